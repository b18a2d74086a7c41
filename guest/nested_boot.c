// SPDX-License-Identifier: GPL-2.0
/*
 * nested_boot: the macro benchmark, the seed's "64 VCPU guest taking forever
 * to boot".  A minimal KVM VMM that boots a Linux bzImage with N vCPUs
 * (32-bit boot protocol, MP table, in-kernel irqchip and PIT, an 8250 on
 * 0x3f8) and times it until the guest's init reports its CPUs and reboots
 * (reboot=t: a triple fault, KVM_EXIT_SHUTDOWN).  The guest runs with
 * nopvspin, so its spinlocks spin on PAUSE and every contended one costs a
 * PAUSE-loop exit here.  For each KVM spin policy given (debugfs kvm/spin_policy) it prints
 *
 *   # BOOT policy=P vcpus=N cpus=C run=R seconds=S spin_loop_exits=E ...
 *
 * usage: nested_boot -k bzImage -i initrd [-n vcpus] [-p policy,...]
 *                    [-r runs] [-m MiB] [-T timeout_s] [-t tag] [-v]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_VCPUS	64
#define GDT_ADDR	0x500
#define ZERO_PAGE	0x7000
#define CMDLINE_ADDR	0x20000
#define MPTABLE_ADDR	0xf0000
#define KERNEL_ADDR	0x100000
#define IOAPIC_ADDR	0xfec00000u
#define LAPIC_ADDR	0xfee00000u
#define MARKER		"NESTED_BOOT_OK cpus="

static const char *base_cmdline =
	"console=ttyS0 quiet reboot=t panic=-1 acpi=off pci=off "
	"nokaslr kunit.enable=0 i8042.noaux i8042.nokbd";
static char cmdline[1024];

static int kvm_fd, vm_fd, nr_vcpus = 2, verbose;
static uint8_t *ram;
static size_t ram_size = 256 << 20;
static int vcpu_fd[MAX_VCPUS];
static struct kvm_run *vcpu_run[MAX_VCPUS];
static pthread_t vcpu_thread[MAX_VCPUS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static bool done;
static const char *failure;
static char console[1 << 16];
static size_t console_len;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *read_file(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(path);
	buf = malloc(st.st_size);
	if (!buf || read(fd, buf, st.st_size) != st.st_size)
		die(path);
	close(fd);
	*size = st.st_size;
	return buf;
}

/* End the boot, the first reason wins; the caller holds the lock. */
static void finish_locked(const char *why)
{
	if (!done) {
		__atomic_store_n(&done, true, __ATOMIC_RELEASE);
		failure = why;
		pthread_cond_broadcast(&done_cond);
	}
}

static void finish(const char *why)
{
	pthread_mutex_lock(&lock);
	finish_locked(why);
	pthread_mutex_unlock(&lock);
}

/* The 8250 registers the Linux driver probes and the console polls. */
static struct {
	uint8_t ier, lcr, mcr, scr, dll, dlm;
} uart;

static uint8_t uart_in(int reg)
{
	bool dlab = uart.lcr & 0x80;
	uint8_t mcr = uart.mcr;

	switch (reg) {
	case 0:
		return dlab ? uart.dll : 0;
	case 1:
		return dlab ? uart.dlm : uart.ier;
	case 2:
		return 0x01;			/* no interrupt pending, no FIFO */
	case 3:
		return uart.lcr;
	case 4:
		return uart.mcr;
	case 5:
		return 0x60;			/* transmitter empty */
	case 6:					/* loopback mirrors MCR, else DCD|DSR|CTS */
		if (!(mcr & 0x10))
			return 0xb0;
		return ((mcr & 1) << 5) | ((mcr & 2) << 3) | ((mcr & 4) << 4) |
		       ((mcr & 8) << 4);
	default:
		return uart.scr;
	}
}

static void uart_out(int reg, uint8_t val)
{
	bool dlab = uart.lcr & 0x80;

	switch (reg) {
	case 0:
		if (dlab) {
			uart.dll = val;
		} else {
			if (console_len < sizeof(console) - 1) {
				console[console_len++] = val;
				console[console_len] = 0;
			}
			if (verbose)
				fputc(val, stderr);
		}
		break;
	case 1:
		if (dlab)
			uart.dlm = val;
		else
			uart.ier = val & 0x0f;
		break;
	case 3:
		uart.lcr = val; break;
	case 4:
		uart.mcr = val & 0x1f; break;
	case 7:
		uart.scr = val; break;
	}
}

static void handle_io(struct kvm_run *run)
{
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint32_t i, j;

	for (i = 0; i < run->io.count; i++, data += run->io.size) {
		uint16_t port = run->io.port;

		if (port >= 0x3f8 && port < 0x400) {
			pthread_mutex_lock(&lock);
			if (run->io.direction == KVM_EXIT_IO_OUT)
				uart_out(port - 0x3f8, data[0]);
			else
				data[0] = uart_in(port - 0x3f8);
			pthread_mutex_unlock(&lock);
		} else if (run->io.direction == KVM_EXIT_IO_IN) {
			/* no device: the bus floats; CMOS reads 0 */
			for (j = 0; j < run->io.size; j++)
				data[j] = port == 0x71 ? 0 : 0xff;
		}
	}
}

static void *vcpu_loop(void *arg)
{
	long id = (long)arg;
	struct kvm_run *run = vcpu_run[id];

	for (;;) {
		if (ioctl(vcpu_fd[id], KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
					return NULL;
				continue;
			}
			finish("KVM_RUN failed");
			return NULL;
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			handle_io(run);
			break;
		case KVM_EXIT_MMIO:
			if (!run->mmio.is_write)
				memset(run->mmio.data, 0, sizeof(run->mmio.data));
			break;
		case KVM_EXIT_SHUTDOWN:
			finish(NULL);
			return NULL;
		default:
			fprintf(stderr, "vcpu %ld: exit reason %u\n", id, run->exit_reason);
			finish("unexpected exit");
			return NULL;
		}
	}
}

static uint8_t checksum(const uint8_t *p, int len)
{
	uint8_t sum = 0;

	while (len--)
		sum += *p++;
	return -sum;
}

/* Intel MP specification 1.4 tables: the CPUs, an ISA bus, the IOAPIC. */
static void write_mptable(void)
{
	uint8_t *mpf = ram + MPTABLE_ADDR, *mpc = mpf + 16, *p = mpc + 44;
	uint16_t entries = 0;
	int i;

	memcpy(mpf, "_MP_", 4);
	*(uint32_t *)(mpf + 4) = MPTABLE_ADDR + 16;
	mpf[8] = 1;			/* length in 16-byte units */
	mpf[9] = 4;			/* spec 1.4 */
	mpf[10] = checksum(mpf, 16);

	for (i = 0; i < nr_vcpus; i++, entries++, p += 20) {
		p[0] = 0;			/* processor */
		p[1] = i;			/* local APIC id */
		p[2] = 0x14;			/* local APIC version */
		p[3] = 1 | (i == 0 ? 2 : 0);	/* enabled, BSP */
		*(uint32_t *)(p + 4) = 0x600;	/* family 6 */
		*(uint32_t *)(p + 8) = 0x201;	/* FPU, APIC */
	}
	p[0] = 1;				/* bus 0: ISA */
	memcpy(p + 2, "ISA   ", 6);
	p += 8, entries++;
	p[0] = 2;				/* IOAPIC */
	p[1] = nr_vcpus;
	p[2] = 0x11;
	p[3] = 1;
	*(uint32_t *)(p + 4) = IOAPIC_ADDR;
	p += 8, entries++;
	for (i = 0; i < 16; i++, p += 8, entries++) {
		p[0] = 3;			/* I/O interrupt: ISA IRQ i -> pin i */
		p[1] = 0;			/* INT */
		p[4] = 0;			/* bus */
		p[5] = i;
		p[6] = nr_vcpus;
		p[7] = i;
	}
	p[0] = 4, p[1] = 3, p[6] = 0xff, p[7] = 0;	/* ExtINT -> LINT0 */
	p += 8, entries++;
	p[0] = 4, p[1] = 1, p[6] = 0xff, p[7] = 1;	/* NMI -> LINT1 */
	p += 8, entries++;

	memcpy(mpc, "PCMP", 4);
	*(uint16_t *)(mpc + 4) = p - mpc;
	mpc[6] = 4;
	memcpy(mpc + 8, "KVMBENCH", 8);
	memcpy(mpc + 16, "NESTEDBOOT  ", 12);
	*(uint16_t *)(mpc + 34) = entries;
	*(uint32_t *)(mpc + 36) = LAPIC_ADDR;
	mpc[7] = checksum(mpc, p - mpc);
}

static void add_e820(uint8_t *zp, uint64_t addr, uint64_t size, uint32_t type)
{
	uint8_t *e = zp + 0x2d0 + 20 * zp[0x1e8]++;

	memcpy(e, &addr, 8);
	memcpy(e + 8, &size, 8);
	memcpy(e + 16, &type, 4);
}

static void load_linux(const uint8_t *kernel, size_t ksize,
		       const uint8_t *initrd, size_t isize)
{
	uint8_t *zp = ram + ZERO_PAGE;
	int setup_sects = kernel[0x1f1] ? kernel[0x1f1] : 4;
	size_t setup_size = (setup_sects + 1) * 512;
	uint32_t initrd_max, initrd_addr;
	uint64_t *gdt = (uint64_t *)(ram + GDT_ADDR);

	if (memcmp(kernel + 0x202, "HdrS", 4) || *(uint16_t *)(kernel + 0x206) < 0x20a) {
		fprintf(stderr, "not a bzImage with boot protocol >= 2.10\n");
		exit(1);
	}
	memset(zp, 0, 4096);
	memcpy(zp + 0x1f1, kernel + 0x1f1, 0x202 + kernel[0x201] - 0x1f1);
	memcpy(ram + KERNEL_ADDR, kernel + setup_size, ksize - setup_size);

	zp[0x210] = 0xff;				/* type_of_loader */
	snprintf((char *)ram + CMDLINE_ADDR, sizeof(cmdline), "%s", cmdline);
	*(uint32_t *)(zp + 0x228) = CMDLINE_ADDR;	/* cmd_line_ptr */
	initrd_max = *(uint32_t *)(kernel + 0x22c);
	if (initrd_max > ram_size - 1)
		initrd_max = ram_size - 1;
	initrd_addr = (initrd_max - isize + 1) & ~0xfffu;
	memcpy(ram + initrd_addr, initrd, isize);
	*(uint32_t *)(zp + 0x218) = initrd_addr;	/* ramdisk_image */
	*(uint32_t *)(zp + 0x21c) = isize;		/* ramdisk_size */

	add_e820(zp, 0, 0x9fc00, 1);
	add_e820(zp, 0x9fc00, 0x400, 2);
	add_e820(zp, 0xf0000, 0x10000, 2);
	add_e820(zp, KERNEL_ADDR, ram_size - KERNEL_ADDR, 1);

	gdt[2] = 0x00cf9b000000ffffull;			/* __BOOT_CS: flat code */
	gdt[3] = 0x00cf93000000ffffull;			/* __BOOT_DS: flat data */
	write_mptable();
}

static void setup_bsp(int fd)
{
	struct kvm_segment code = {
		.base = 0, .limit = 0xffffffff, .selector = 0x10, .type = 11,
		.present = 1, .s = 1, .db = 1, .g = 1,
	};
	struct kvm_segment data = code;
	struct kvm_sregs sregs;
	struct kvm_regs regs = {
		.rip = KERNEL_ADDR, .rsi = ZERO_PAGE, .rflags = 2,	/* code32_start */
	};

	if (ioctl(fd, KVM_GET_SREGS, &sregs))
		die("KVM_GET_SREGS");
	data.selector = 0x18;
	data.type = 3;
	sregs.cs = code;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = data;
	sregs.gdt.base = GDT_ADDR;
	sregs.gdt.limit = 4 * 8 - 1;
	sregs.cr0 |= 1;					/* protected mode, no paging */
	if (ioctl(fd, KVM_SET_SREGS, &sregs) || ioctl(fd, KVM_SET_REGS, &regs))
		die("KVM_SET_SREGS/REGS");
}

static void set_cpuid(int fd, int id, struct kvm_cpuid2 *supported)
{
	struct kvm_cpuid2 *c;
	size_t size = sizeof(*c) + supported->nent * sizeof(c->entries[0]);
	uint32_t i;

	c = malloc(size);
	memcpy(c, supported, size);
	for (i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function == 1)
			e->ebx = (e->ebx & 0x00ffffff) | (id << 24);
		if (e->function == 0xb || e->function == 0x1f)
			e->edx = id;
	}
	if (ioctl(fd, KVM_SET_CPUID2, c))
		die("KVM_SET_CPUID2");
	free(c);
}

static struct kvm_cpuid2 *supported_cpuid(void)
{
	int n = 256;
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + n * sizeof(c->entries[0]));

	c->nent = n;
	if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c))
		die("KVM_GET_SUPPORTED_CPUID");
	return c;
}

static void noop(int sig)
{
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long debugfs_stat(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/kvm/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static const char * const stat_names[] = {
	"spin_loop_exits", "spin_yield_attempted", "spin_yield_successful",
	"spin_yield_local",
};
#define NR_STATS (sizeof(stat_names) / sizeof(stat_names[0]))	/* no ARRAY_SIZE in user space */

/* One boot: returns seconds, or a negative value if it did not finish. */
static double boot_once(const uint8_t *kernel, size_t ksize, const uint8_t *initrd,
			size_t isize, struct kvm_cpuid2 *cpuid, int timeout,
			unsigned long long *stats)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_pit_config pit = { 0 };
	int mmap_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	struct timespec deadline;
	double start, seconds;
	unsigned int s;
	long i;
	int rc = 0;

	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die("KVM_CREATE_VM");
	if (ioctl(vm_fd, KVM_SET_TSS_ADDR, 0xfffbd000) ||
	    ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0) ||
	    ioctl(vm_fd, KVM_CREATE_PIT2, &pit))
		die("VM setup");
	ram = mmap(NULL, ram_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED)
		die("mmap");
	region.memory_size = ram_size;
	region.userspace_addr = (uintptr_t)ram;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region))
		die("KVM_SET_USER_MEMORY_REGION");
	load_linux(kernel, ksize, initrd, isize);

	for (i = 0; i < nr_vcpus; i++) {
		vcpu_fd[i] = ioctl(vm_fd, KVM_CREATE_VCPU, i);
		if (vcpu_fd[i] < 0)
			die("KVM_CREATE_VCPU");
		vcpu_run[i] = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, vcpu_fd[i], 0);
		if (vcpu_run[i] == MAP_FAILED)
			die("mmap kvm_run");
		set_cpuid(vcpu_fd[i], i, cpuid);
	}
	setup_bsp(vcpu_fd[0]);

	memset(&uart, 0, sizeof(uart));
	console_len = 0;
	console[0] = 0;
	done = false;
	failure = NULL;
	start = now();
	for (i = 0; i < nr_vcpus; i++)
		pthread_create(&vcpu_thread[i], NULL, vcpu_loop, (void *)i);

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout;
	pthread_mutex_lock(&lock);
	while (!done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&done_cond, &lock, &deadline);
	finish_locked("timeout");
	seconds = now() - start;
	pthread_mutex_unlock(&lock);

	/* The stats of a VM vanish with it: read them while it lives. */
	for (s = 0; s < NR_STATS; s++)
		stats[s] = debugfs_stat(stat_names[s]);

	for (i = 0; i < nr_vcpus; i++) {
		vcpu_run[i]->immediate_exit = 1;
		pthread_kill(vcpu_thread[i], SIGUSR1);
	}
	for (i = 0; i < nr_vcpus; i++) {
		pthread_join(vcpu_thread[i], NULL);
		munmap(vcpu_run[i], mmap_size);
		close(vcpu_fd[i]);
	}
	close(vm_fd);
	munmap(ram, ram_size);

	if (!failure) {
		char *m = strstr(console, MARKER);

		if (!m)
			failure = "SHUTDOWN before init ran";
		else if (atoi(m + strlen(MARKER)) != nr_vcpus)
			failure = "not all CPUs came up";
	}
	if (failure) {
		fprintf(stderr, "nested_boot: %s after %.1f s; guest console:\n%s\n",
			failure, seconds, console);
		return -1;
	}
	return seconds;
}

static int set_policy(const char *policy)
{
	FILE *f = fopen("/sys/kernel/debug/kvm/spin_policy", "w");

	if (!f)
		return -1;
	fputs(policy, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	const char *kpath = NULL, *ipath = NULL, *tag = "", *extra = "";
	int pvspin = 0;
	char *policies = strdup("local"), *policy, *save;
	int runs = 1, timeout = 600, opt, failed = 0, r;
	unsigned long long stats[NR_STATS];
	struct sigaction sa = { .sa_handler = noop };
	struct kvm_cpuid2 *cpuid;
	uint8_t *kernel, *initrd;
	size_t ksize, isize;
	unsigned int s;

	while ((opt = getopt(argc, argv, "k:i:n:p:r:m:T:t:va:P")) != -1) {
		switch (opt) {
		case 'a':
			extra = optarg; break;
		case 'P':
			pvspin = 1; break;
		case 'k':
			kpath = optarg; break;
		case 'i':
			ipath = optarg; break;
		case 'n':
			nr_vcpus = atoi(optarg); break;
		case 'p':
			policies = strdup(optarg); break;
		case 'r':
			runs = atoi(optarg); break;
		case 'm':
			ram_size = (size_t)atoi(optarg) << 20; break;
		case 'T':
			timeout = atoi(optarg); break;
		case 't':
			tag = optarg; break;
		case 'v':
			verbose = 1; break;
		default:
			fprintf(stderr, "usage: %s -k bzImage -i initrd [-n vcpus] [-p policy,...]\n"
				"       [-r runs] [-m MiB] [-T timeout] [-t tag] [-v]\n"
				"       [-a kernel-args] [-P (paravirtual spinlocks)]\n", argv[0]);
			return 2;
		}
	}
	if (!kpath || !ipath || nr_vcpus < 1 || nr_vcpus > MAX_VCPUS) {
		fprintf(stderr, "nested_boot: -k and -i are required, 1 <= -n <= %d\n",
			MAX_VCPUS);
		return 2;
	}
	snprintf(cmdline, sizeof(cmdline), "%s%s %s", base_cmdline,
		 pvspin ? "" : " nopvspin", extra);
	sigaction(SIGUSR1, &sa, NULL);
	kvm_fd = open("/dev/kvm", O_RDWR);
	if (kvm_fd < 0)
		die("/dev/kvm");
	kernel = read_file(kpath, &ksize);
	initrd = read_file(ipath, &isize);
	cpuid = supported_cpuid();

	for (policy = strtok_r(policies, ",", &save); policy;
	     policy = strtok_r(NULL, ",", &save)) {
		if (set_policy(policy)) {
			fprintf(stderr, "nested_boot: cannot set kvm/spin_policy to %s\n", policy);
			return 1;
		}
		for (r = 0; r < runs; r++) {
			double sec = boot_once(kernel, ksize, initrd, isize, cpuid,
					       timeout, stats);

			if (sec < 0) {
				printf("# BOOT-FAILED policy=%s%s vcpus=%d run=%d\n",
				       tag, policy, nr_vcpus, r);
				failed++;
				continue;
			}
			printf("# BOOT policy=%s%s vcpus=%d cpus=%ld run=%d seconds=%.3f",
			       tag, policy, nr_vcpus, sysconf(_SC_NPROCESSORS_ONLN), r, sec);
			for (s = 0; s < NR_STATS; s++)
				printf(" %s=%llu", stat_names[s], stats[s]);
			printf("\n");
			fflush(stdout);
		}
	}
	return failed ? 1 : 0;
}
