// SPDX-License-Identifier: GPL-2.0
/*
 * nested_boot: the macro benchmark.  A minimal KVM VMM that boots Linux
 * bzImages with N vCPUs each (32-bit boot protocol, MP table, in-kernel
 * irqchip and PIT, an 8250 on 0x3f8).  The guests are KVM guests as QEMU's
 * "-cpu host,kvm=on" presents them: the hypervisor bit and the KVM leaves
 * (kvmclock, steal time, PV EOI, PV unhalt and so pv spinlocks, PV TLB
 * flush, PV IPIs, PV sched yield, poll control).  With -N the guest is not
 * told it runs on KVM, as a guest told that its CPUs are dedicated, or an
 * OS without enlightenments: its queued spinlocks spin on PAUSE and every
 * contended one costs a PAUSE-loop exit here.  With -P the guest's PAUSE
 * never exits (KVM_CAP_X86_DISABLE_EXITS), so that every directed yield in
 * directed_yield_attempted comes from its KVM_HC_SCHED_YIELD hypercall.
 * Policies are KVM spin policies (debugfs kvm/spin_policy) with the
 * YIELD_TO_DONATE sched feature, or "stock": policy directed with
 * NO_YIELD_TO_DONATE (6.12's directed yield).  Both knobs are restored at
 * exit.
 *
 * Boot mode (default), the 2010 series' "64 VCPU guest taking forever to boot":
 * one VM at a time, RUNS rounds of one boot per policy (the order rotated
 * from round to round, see rotated()), each timed until
 * the guest's init reports its CPUs and reboots (reboot=t: a triple fault,
 * KVM_EXIT_SHUTDOWN).  Per boot:
 *
 *   # BOOT policy=P vcpus=N cpus=C run=R seconds=S hypervisor=H pvspin=S
 *     spin_loop_exits=E ...
 *
 * (hypervisor and pvspin: what the guest's boot log said, "none" if it
 * said nothing)
 *
 * or, with -R ROW, in the format of the lock benchmarks:
 *
 *   # BENCH row=ROW policy=P lock=boot vcpus=N vms=1 cpus=C run=R
 *     seconds=S boot_s=S spin_loop_exits=E ...
 *
 * Steady mode (-W): VMS VMs boot at once and run nested_init's workload
 * without end (-w: nested_work=ticks, its own lock-heavy loop, the
 * default, or dbench or hackbench; "NESTED_TICK iterations=N" lines).
 * Once every VM ticks, RUNS rounds; in each, for every policy in turn
 * (rotated()), WARMUP_S seconds, then one window of WINDOW_S seconds,
 * one line each (on one line):
 *
 *   # BENCH row=ROW policy=P lock=L vcpus=N vms=V cpus=C run=R
 *     seconds=S acq_per_s=TOTAL vm_acq_per_s=A1,A2,.. jain=J
 *     exits_per_acq=X yields_per_acq=Y ran_next=-1 spin_loop_exits=E ...
 *
 * (L: kernel for nested_init's own loop, else dbench or hackbench, whose
 * iterations are dbench operations or hackbench messages.)
 * A VM's rate is the difference of its latest tick counts over the
 * difference of their arrival times, a window ending at every VM's first
 * tick after WINDOW_S (a stalled VM shows as a low rate); jain is Jain's fairness index of the
 * VMs' rates; the stats are debugfs kvm/ deltas, summed over the VMs, and
 * X and Y are spin_loop_exits and directed_yield_successful per iteration.
 * A VM that stops ticking for -T seconds (or never starts), exits or
 * triple-faults ends the run with "# BENCH-FAILED row=ROW policy=P
 * reason=R" and exit status 1.
 *
 * usage: nested_boot -k bzImage -i initrd [-n vcpus] [-p policy,...]
 *                    [-r runs] [-m MiB] [-T timeout_s] [-t tag] [-v]
 *                    [-a kernel-args] [-N] [-X pv-features] [-P] [-R row]
 *                    [-W -V vms -U warmup_s -d window_s
 *                     -w ticks|dbench|hackbench] [-c]
 *
 * -c places every vCPU thread as libvirt does on cgroup v2, in
 * machine.slice/machine-qemu-V.scope/vcpuN with the cpu controller on at
 * every level (cg_setup()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <asm/kvm_para.h>
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
#define MAX_VMS		8
#define MAX_POLICIES	16
#define GDT_ADDR	0x500
#define ZERO_PAGE	0x7000
#define CMDLINE_ADDR	0x20000
#define MPTABLE_ADDR	0xf0000
#define KERNEL_ADDR	0x100000
#define IOAPIC_ADDR	0xfec00000u
#define LAPIC_ADDR	0xfee00000u
#define MARKER		"NESTED_BOOT_OK cpus="
#define TICK		"NESTED_TICK iterations="
#define SPIN_POLICY	"/sys/kernel/debug/kvm/spin_policy"
#define SCHED_FEATURES	"/sys/kernel/debug/sched/features"

static const char *base_cmdline =
	"console=ttyS0 quiet reboot=t panic=-1 acpi=off pci=off "
	"nokaslr kunit.enable=0 i8042.noaux i8042.nokbd";
static char cmdline[1024];

static int kvm_fd, mmap_size, nr_vcpus = 2, verbose;
static const char *workload = "ticks";	/* -w, nested_init's nested_work */

/*
 * The paravirtual features QEMU's "-cpu host,kvm=on" presents with an
 * in-kernel irqchip (kvm-msi-ext-dest-id needs a split one), less those
 * cleared with -X.  With -N the guest is not told that it runs on KVM.
 */
#define KVM_PV_FEATURES							\
	(1u << KVM_FEATURE_CLOCKSOURCE | 1u << KVM_FEATURE_NOP_IO_DELAY |	\
	 1u << KVM_FEATURE_CLOCKSOURCE2 | 1u << KVM_FEATURE_ASYNC_PF |	\
	 1u << KVM_FEATURE_STEAL_TIME | 1u << KVM_FEATURE_PV_EOI |	\
	 1u << KVM_FEATURE_PV_UNHALT | 1u << KVM_FEATURE_PV_TLB_FLUSH |	\
	 1u << KVM_FEATURE_ASYNC_PF_VMEXIT | 1u << KVM_FEATURE_PV_SEND_IPI | \
	 1u << KVM_FEATURE_POLL_CONTROL | 1u << KVM_FEATURE_PV_SCHED_YIELD | \
	 1u << KVM_FEATURE_ASYNC_PF_INT | 1u << KVM_FEATURE_CLOCKSOURCE_STABLE_BIT)
static bool kvm_guest = true;
static bool no_pause_exits;	/* -P: the guest's PAUSE never exits */
static uint32_t kvm_features_cleared;

/* What the guest is offered in CPUID 0x40000001 EAX, 0 if not a KVM guest. */
static uint32_t kvm_features(void)
{
	return kvm_guest ? KVM_PV_FEATURES & ~kvm_features_cleared : 0;
}
static size_t ram_size = 256 << 20;

struct vm;

struct vcpu {
	struct vm *vm;
	int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
};

/* The 8250 registers the Linux driver probes and the console polls. */
struct uart {
	uint8_t ier, lcr, mcr, scr, dll, dlm;
};

/*
 * One nested VM.  Its own lock protects its UART and console, so that the
 * UART exits of one VM never wait for another's (a lock shared by every
 * VM would be a confound in a benchmark of lock contention); the global
 * lock protects done and failure, and is taken before a VM's lock.
 */
struct vm {
	int index;
	int fd;
	uint8_t *ram;
	struct vcpu vcpu[MAX_VCPUS];
	pthread_mutex_t lock;
	struct uart uart;
	char console[1 << 16];		/* the newest output, NUL-terminated */
	size_t console_len;
	size_t line;			/* where the current line starts */
	unsigned long ticks;		/* the latest NESTED_TICK count */
	double tick_time;		/* when it arrived, 0 before the first */
	bool done;			/* global lock */
	const char *failure;		/* why it ended, NULL for a SHUTDOWN */
};

/* vm->done is also read without the lock by the vCPU threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;		/* a VM ended; CLOCK_MONOTONIC */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for the wake condition until CLOCK_MONOTONIC time t; holds the lock. */
static void wait_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (time_t)t) * 1e9) };

	pthread_cond_timedwait(&wake, &lock, &ts);
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

/* End a VM's run, the first reason wins; the caller holds the lock. */
static void finish_locked(struct vm *vm, const char *why)
{
	if (!vm->done) {
		__atomic_store_n(&vm->done, true, __ATOMIC_RELEASE);
		vm->failure = why;
		pthread_cond_broadcast(&wake);
	}
}

static void finish(struct vm *vm, const char *why)
{
	pthread_mutex_lock(&lock);
	finish_locked(vm, why);
	pthread_mutex_unlock(&lock);
}

/*
 * Keep the console's newest half when it fills; parse each tick line.  The
 * caller holds vm->lock.  Nobody is woken for a tick: watch() polls.
 */
static void console_putc(struct vm *vm, char c)
{
	size_t half = sizeof(vm->console) / 2;
	const char *tick;

	if (vm->console_len == sizeof(vm->console) - 1) {
		memmove(vm->console, vm->console + half, vm->console_len - half);
		vm->console_len -= half;
		vm->line = vm->line > half ? vm->line - half : 0;
	}
	vm->console[vm->console_len++] = c;
	vm->console[vm->console_len] = 0;
	if (verbose)
		fputc(c, stderr);
	if (c != '\n')
		return;
	tick = strstr(vm->console + vm->line, TICK);
	if (tick) {
		vm->ticks = strtoul(tick + strlen(TICK), NULL, 10);
		vm->tick_time = now();
	}
	vm->line = vm->console_len;
}

static uint8_t uart_in(struct uart *uart, int reg)
{
	bool dlab = uart->lcr & 0x80;
	uint8_t mcr = uart->mcr;

	switch (reg) {
	case 0:
		return dlab ? uart->dll : 0;
	case 1:
		return dlab ? uart->dlm : uart->ier;
	case 2:
		return 0x01;			/* no interrupt pending, no FIFO */
	case 3:
		return uart->lcr;
	case 4:
		return uart->mcr;
	case 5:
		return 0x60;			/* transmitter empty */
	case 6:					/* loopback mirrors MCR, else DCD|DSR|CTS */
		if (!(mcr & 0x10))
			return 0xb0;
		return ((mcr & 1) << 5) | ((mcr & 2) << 3) | ((mcr & 4) << 4) |
		       ((mcr & 8) << 4);
	default:
		return uart->scr;
	}
}

static void uart_out(struct vm *vm, int reg, uint8_t val)
{
	struct uart *uart = &vm->uart;
	bool dlab = uart->lcr & 0x80;

	switch (reg) {
	case 0:
		if (dlab)
			uart->dll = val;
		else
			console_putc(vm, val);
		break;
	case 1:
		if (dlab)
			uart->dlm = val;
		else
			uart->ier = val & 0x0f;
		break;
	case 3:
		uart->lcr = val; break;
	case 4:
		uart->mcr = val & 0x1f; break;
	case 7:
		uart->scr = val; break;
	}
}

static void handle_io(struct vm *vm, struct kvm_run *run)
{
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint32_t i, j;

	for (i = 0; i < run->io.count; i++, data += run->io.size) {
		uint16_t port = run->io.port;

		if (port >= 0x3f8 && port < 0x400) {
			pthread_mutex_lock(&vm->lock);
			if (run->io.direction == KVM_EXIT_IO_OUT)
				uart_out(vm, port - 0x3f8, data[0]);
			else
				data[0] = uart_in(&vm->uart, port - 0x3f8);
			pthread_mutex_unlock(&vm->lock);
		} else if (run->io.direction == KVM_EXIT_IO_IN) {
			/* no device: the bus floats; CMOS reads 0 */
			for (j = 0; j < run->io.size; j++)
				data[j] = port == 0x71 ? 0 : 0xff;
		}
	}
}

static bool cg_on;		/* -c: see cg_setup() */
static int cg_write(int vm, int vcpu, const char *file, const char *val);

static void *vcpu_loop(void *arg)
{
	struct vcpu *vcpu = arg;
	struct vm *vm = vcpu->vm;
	struct kvm_run *run = vcpu->run;
	char tid[16];

	if (cg_on) {
		snprintf(tid, sizeof(tid), "%d", (int)gettid());
		if (cg_write(vm->index, vcpu->id, "cgroup.threads", tid)) {
			finish(vm, "cgroup_move_failed");
			return NULL;
		}
	}
	for (;;) {
		if (ioctl(vcpu->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				if (__atomic_load_n(&vm->done, __ATOMIC_ACQUIRE))
					return NULL;
				continue;
			}
			finish(vm, "kvm_run_failed");
			return NULL;
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			handle_io(vm, run);
			break;
		case KVM_EXIT_MMIO:
			if (!run->mmio.is_write)
				memset(run->mmio.data, 0, sizeof(run->mmio.data));
			break;
		case KVM_EXIT_SHUTDOWN:
			finish(vm, NULL);
			return NULL;
		default:
			fprintf(stderr, "vm %d vcpu %d: exit reason %u\n", vm->index,
				vcpu->id, run->exit_reason);
			finish(vm, "unexpected_exit");
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
static void write_mptable(uint8_t *ram)
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

static void load_linux(uint8_t *ram, const uint8_t *kernel, size_t ksize,
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
	write_mptable(ram);
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

		if (e->function == 1) {
			e->ebx = (e->ebx & 0x00ffffff) | (id << 24);
			if (kvm_guest)
				e->ecx |= 1u << 31;	/* hypervisor present */
		}
		if (e->function == KVM_CPUID_FEATURES)
			e->eax &= kvm_features();
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
	"spin_loop_exits", "directed_yield_attempted", "directed_yield_successful",
	"directed_yield_local", "directed_yield_forfeited",
};
#define NR_STATS (sizeof(stat_names) / sizeof(stat_names[0]))	/* no ARRAY_SIZE in user space */
enum { ST_EXITS, ST_ATTEMPTED, ST_SUCCESSFUL, ST_LOCAL };

/* Sums over all VMs; the stats of a VM vanish with it. */
static void read_stats(unsigned long long *stats)
{
	unsigned int s;

	for (s = 0; s < NR_STATS; s++)
		stats[s] = debugfs_stat(stat_names[s]);
}

static int write_knob(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(val, f);
	return fclose(f);
}

/* "stock" is 6.12's directed yield: no lag donation. */
static int select_policy(const char *policy)
{
	bool stock = !strcmp(policy, "stock");

	if (write_knob(SPIN_POLICY, stock ? "directed" : policy) ||
	    write_knob(SCHED_FEATURES, stock ? "NO_YIELD_TO_DONATE" : "YIELD_TO_DONATE")) {
		fprintf(stderr, "nested_boot: cannot select policy %s\n", policy);
		return -1;
	}
	return 0;
}

static char saved_policy[32];
static bool saved_no_donate;

static void save_knobs(void)
{
	char features[4096] = "";
	FILE *f = fopen(SPIN_POLICY, "r");

	if (f) {
		if (fscanf(f, "%31s", saved_policy) != 1)
			saved_policy[0] = 0;
		fclose(f);
	}
	f = fopen(SCHED_FEATURES, "r");
	if (f) {
		if (!fgets(features, sizeof(features), f))
			features[0] = 0;
		fclose(f);
	}
	saved_no_donate = !!strstr(features, "NO_YIELD_TO_DONATE");
}

/*
 * -c: libvirt's placement of vCPU threads on cgroup v2, each in
 * machine.slice/machine-qemu-V.scope/vcpuN with the cpu controller on at
 * every level, so that two vCPUs of one VM meet at their VM's scope and
 * two VMs at machine.slice, never at the root.  libvirt runs one QEMU
 * process per VM; every VM here is threads of one process, which cgroup v2
 * allows only in a threaded subtree: machine.slice is this process's
 * domain, the scopes and vcpuN below it are threaded cgroups (the cpu
 * controller is threaded; each cgroup is a task group of the scheduler
 * either way).  Default weights, as libvirt's.  Undone by restore_knobs()
 * at exit.
 */
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_SLICE	CG_ROOT "/machine.slice"

static bool cg_added_cpu, cg_made;

static void cg_path(char *buf, size_t size, int vm, int vcpu, const char *file)
{
	int n = snprintf(buf, size, CG_SLICE);

	if (vm >= 0)
		n += snprintf(buf + n, size - n, "/machine-qemu-%d.scope", vm + 1);
	if (vcpu >= 0)
		n += snprintf(buf + n, size - n, "/vcpu%d", vcpu);
	if (file)
		snprintf(buf + n, size - n, "/%s", file);
}

static int cg_write(int vm, int vcpu, const char *file, const char *val)
{
	char path[256];

	cg_path(path, sizeof(path), vm, vcpu, file);
	return write_knob(path, val);
}

static void cg_teardown(void)
{
	char path[256];
	int v, i;

	if (!cg_made)
		return;
	/* This process back in the root (where the guest's init started it). */
	write_knob(CG_ROOT "/cgroup.procs", "0");
	for (v = MAX_VMS - 1; v >= 0; v--) {
		for (i = MAX_VCPUS - 1; i >= 0; i--) {
			cg_path(path, sizeof(path), v, i, NULL);
			rmdir(path);
		}
		cg_path(path, sizeof(path), v, -1, NULL);
		rmdir(path);
	}
	rmdir(CG_SLICE);
	if (cg_added_cpu)
		write_knob(CG_ROOT "/cgroup.subtree_control", "-cpu");
	cg_made = false;
}

static int cg_setup(int vms, int vcpus)
{
	char line[512] = "", path[256], *p;
	FILE *f = fopen(CG_ROOT "/cgroup.subtree_control", "r");
	int v, i;

	if (!f) {
		fprintf(stderr, "nested_boot: -c needs cgroup v2 at " CG_ROOT "\n");
		return -1;
	}
	/* Empty (no line at all) when no controller is enabled. */
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	/* A word of its own: "cpuset" is not "cpu". */
	for (p = strtok(line, " \n"); p && strcmp(p, "cpu"); p = strtok(NULL, " \n"))
		;
	if (!p) {
		if (write_knob(CG_ROOT "/cgroup.subtree_control", "+cpu"))
			return -1;
		cg_added_cpu = true;
	}
	if (mkdir(CG_SLICE, 0755))
		return -1;
	cg_made = true;
	if (cg_write(-1, -1, "cgroup.procs", "0"))
		return -1;
	for (v = 0; v < vms; v++) {
		cg_path(path, sizeof(path), v, -1, NULL);
		if (mkdir(path, 0755) || cg_write(v, -1, "cgroup.type", "threaded"))
			return -1;
		for (i = 0; i < vcpus; i++) {
			cg_path(path, sizeof(path), v, i, NULL);
			if (mkdir(path, 0755) || cg_write(v, i, "cgroup.type", "threaded"))
				return -1;
		}
	}
	if (cg_write(-1, -1, "cgroup.subtree_control", "+cpu"))
		return -1;
	for (v = 0; v < vms; v++)
		if (cg_write(v, -1, "cgroup.subtree_control", "+cpu"))
			return -1;
	cg_on = true;
	return 0;
}

static void restore_knobs(void)
{
	cg_teardown();
	if (saved_policy[0])
		write_knob(SPIN_POLICY, saved_policy);
	write_knob(SCHED_FEATURES, saved_no_donate ? "NO_YIELD_TO_DONATE" : "YIELD_TO_DONATE");
}

static struct vm *vm_create(int index, const uint8_t *kernel, size_t ksize,
			    const uint8_t *initrd, size_t isize,
			    struct kvm_cpuid2 *cpuid)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_pit_config pit = { 0 };
	struct vm *vm = calloc(1, sizeof(*vm));
	int i;

	if (!vm)
		die("calloc");
	vm->index = index;
	pthread_mutex_init(&vm->lock, NULL);
	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM");
	if (ioctl(vm->fd, KVM_SET_TSS_ADDR, 0xfffbd000) ||
	    ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0) ||
	    ioctl(vm->fd, KVM_CREATE_PIT2, &pit))
		die("VM setup");
	if (no_pause_exits) {
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_X86_DISABLE_EXITS,
			.args[0] = KVM_X86_DISABLE_EXITS_PAUSE,
		};

		if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap))
			die("KVM_CAP_X86_DISABLE_EXITS");
	}
	vm->ram = mmap(NULL, ram_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->ram == MAP_FAILED)
		die("mmap");
	region.memory_size = ram_size;
	region.userspace_addr = (uintptr_t)vm->ram;
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &region))
		die("KVM_SET_USER_MEMORY_REGION");
	load_linux(vm->ram, kernel, ksize, initrd, isize);

	for (i = 0; i < nr_vcpus; i++) {
		struct vcpu *vcpu = &vm->vcpu[i];

		vcpu->vm = vm;
		vcpu->id = i;
		vcpu->fd = ioctl(vm->fd, KVM_CREATE_VCPU, i);
		if (vcpu->fd < 0)
			die("KVM_CREATE_VCPU");
		vcpu->run = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE,
				 MAP_SHARED, vcpu->fd, 0);
		if (vcpu->run == MAP_FAILED)
			die("mmap kvm_run");
		set_cpuid(vcpu->fd, i, cpuid);
	}
	setup_bsp(vm->vcpu[0].fd);
	return vm;
}

static void vm_start(struct vm *vm)
{
	int i;

	for (i = 0; i < nr_vcpus; i++)
		if (pthread_create(&vm->vcpu[i].thread, NULL, vcpu_loop, &vm->vcpu[i]))
			die("pthread_create");
}

/* The highest vector set in one of the local APIC's 256-bit registers. */
static int apic_highest(const struct kvm_lapic_state *lapic, int reg)
{
	int v;

	for (v = 255; v >= 0; v--)
		if (*(const uint32_t *)(lapic->regs + reg + (v / 32) * 16) & (1u << (v % 32)))
			return v;
	return -1;
}

/* The kernel text addresses among the 512 stack words above @rsp. */
static void dump_stack_text(struct vm *vm, int fd, uint64_t rsp)
{
	uint64_t a;
	int n;

	fprintf(stderr, "nested_boot:   stack text:");
	for (a = rsp, n = 0; n < 512; n++, a += 8) {
		struct kvm_translation tr = { .linear_address = a };
		uint64_t v;

		if (ioctl(fd, KVM_TRANSLATE, &tr) || !tr.valid ||
		    tr.physical_address + 8 > ram_size)
			break;
		memcpy(&v, vm->ram + tr.physical_address, 8);
		if (v >= 0xffffffff81000000ull && v < 0xffffffff83000000ull)
			fprintf(stderr, " %llx", (unsigned long long)v);
	}
	fprintf(stderr, "\n");
}

/*
 * Where each vCPU of a VM that failed stopped: its registers, run state
 * (3 is halted), the highest vector in service and requested in its local
 * APIC, and the 32 bytes around the guest virtual address in RDI (for a
 * vCPU halted in kvm_wait(): a qspinlock's MCS node, or the lock).
 */
static void dump_vcpus(struct vm *vm)
{
	int i;

	for (i = 0; i < nr_vcpus; i++) {
		struct kvm_translation tr = { 0 };
		struct kvm_lapic_state lapic;
		struct kvm_mp_state mp;
		struct kvm_regs regs;
		uint32_t word[8] = { 0 };
		int fd = vm->vcpu[i].fd;

		if (ioctl(fd, KVM_GET_REGS, &regs) || ioctl(fd, KVM_GET_MP_STATE, &mp) ||
		    ioctl(fd, KVM_GET_LAPIC, &lapic))
			continue;
		tr.linear_address = regs.rdi & ~31ull;
		if (!ioctl(fd, KVM_TRANSLATE, &tr) && tr.valid &&
		    tr.physical_address + sizeof(word) <= ram_size)
			memcpy(word, vm->ram + tr.physical_address, sizeof(word));
		fprintf(stderr, "nested_boot: vm %d vcpu %d: mp_state=%u rip=%#llx rsp=%#llx rflags=%#llx rdi=%#llx rsi=%#llx isr=%d irr=%d tpr=%#x; at rdi & ~31: %08x %08x %08x %08x %08x %08x %08x %08x\n",
			vm->index, i, mp.mp_state, regs.rip, regs.rsp, regs.rflags,
			regs.rdi, regs.rsi, apic_highest(&lapic, 0x100),
			apic_highest(&lapic, 0x200), *(uint32_t *)(lapic.regs + 0x80),
			word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]);
		dump_stack_text(vm, fd, regs.rsp);
	}
}

static void vm_destroy(struct vm *vm)
{
	int i;

	finish(vm, "stopped");
	for (i = 0; i < nr_vcpus; i++) {
		vm->vcpu[i].run->immediate_exit = 1;
		pthread_kill(vm->vcpu[i].thread, SIGUSR1);
	}
	for (i = 0; i < nr_vcpus; i++)
		pthread_join(vm->vcpu[i].thread, NULL);
	if (vm->failure && strcmp(vm->failure, "stopped"))
		dump_vcpus(vm);
	for (i = 0; i < nr_vcpus; i++) {
		munmap(vm->vcpu[i].run, mmap_size);
		close(vm->vcpu[i].fd);
	}
	close(vm->fd);
	munmap(vm->ram, ram_size);
	pthread_mutex_destroy(&vm->lock);
	free(vm);
}

static void print_console(struct vm *vm, const char *why, double seconds)
{
	pthread_mutex_lock(&vm->lock);
	fprintf(stderr, "nested_boot: vm %d: %s after %.1f s; guest console:\n%s\n",
		vm->index, why, seconds, vm->console);
	pthread_mutex_unlock(&vm->lock);
}

/* One boot: returns its reason if it failed, else NULL and the seconds. */
static const char *boot_once(const uint8_t *kernel, size_t ksize,
			     const uint8_t *initrd, size_t isize,
			     struct kvm_cpuid2 *cpuid, int timeout,
			     double *seconds, unsigned long long *stats,
			     char *guest, size_t guest_size)
{
	struct vm *vm = vm_create(0, kernel, ksize, initrd, isize, cpuid);
	const char *failure;
	double start;
	char *m;

	start = now();
	vm_start(vm);
	pthread_mutex_lock(&lock);
	while (!vm->done && now() < start + timeout)
		wait_until(start + timeout);
	finish_locked(vm, "timeout");
	*seconds = now() - start;
	failure = vm->failure;
	pthread_mutex_unlock(&lock);
	read_stats(stats);

	pthread_mutex_lock(&vm->lock);
	if (!failure) {
		m = strstr(vm->console, MARKER);
		if (!m)
			failure = "shutdown_before_init";
		else if (atoi(m + strlen(MARKER)) != nr_vcpus)
			failure = "missing_cpus";
		else {	/* the rest of the line: what the guest runs on */
			m += strlen(MARKER);
			m += strcspn(m, " \r\n");
			snprintf(guest, guest_size, "%.*s", (int)strcspn(m, "\r\n"), m);
		}
	}
	pthread_mutex_unlock(&vm->lock);
	if (failure)
		print_console(vm, failure, *seconds);
	vm_destroy(vm);
	return failure;
}

/*
 * The policy at position @p of round @r: round r runs the policies from
 * the r-th on, wrapping around (a cyclic Latin square), so that over
 * nr_pol rounds every policy takes every position once and a drift in the
 * machine's speed within a round (the first window after a change of
 * policy, a warming cache) favours none of them.  Each policy still
 * follows the same one, but for the first of a round.
 */
static char *rotated(char **pol, int nr_pol, int r, int p)
{
	return pol[(r + p) % nr_pol];
}

static int boot_mode(const uint8_t *kernel, size_t ksize, const uint8_t *initrd,
		     size_t isize, struct kvm_cpuid2 *cpuid, char **pol, int nr_pol,
		     int runs, int timeout, const char *row, const char *tag)
{
	unsigned long long stats[NR_STATS];
	char guest[128] = "";
	int failed = 0, r, p;
	const char *failure;
	unsigned int s;
	char *policy;
	double sec;

	/* Rounds of one boot per policy: a drift in speed favours none. */
	for (r = 0; r < runs; r++) {
		for (p = 0; p < nr_pol; p++) {
			policy = rotated(pol, nr_pol, r, p);
			if (select_policy(policy))
				return 1;
			failure = boot_once(kernel, ksize, initrd, isize, cpuid,
					    timeout, &sec, stats, guest, sizeof(guest));
			if (failure && row)
				printf("# BENCH-FAILED row=%s policy=%s%s reason=%s\n",
				       row, tag, policy, failure);
			else if (failure)
				printf("# BOOT-FAILED policy=%s%s vcpus=%d run=%d\n",
				       tag, policy, nr_vcpus, r);
			else if (row)
				printf("# BENCH row=%s policy=%s%s lock=boot vcpus=%d vms=1 cpus=%ld run=%d seconds=%.3f boot_s=%.3f",
				       row, tag, policy, nr_vcpus,
				       sysconf(_SC_NPROCESSORS_ONLN), r, sec, sec);
			else
				printf("# BOOT policy=%s%s vcpus=%d cpus=%ld run=%d seconds=%.3f",
				       tag, policy, nr_vcpus,
				       sysconf(_SC_NPROCESSORS_ONLN), r, sec);
			if (!failure) {
				printf("%s kvm_features=%#x", guest, kvm_features());
				for (s = 0; s < NR_STATS; s++)
					printf(" %s=%llu", stat_names[s], stats[s]);
				printf("\n");
			}
			fflush(stdout);
			failed += !!failure;
		}
	}
	return failed ? 1 : 0;
}

/* Steady mode: what steady_mode() knows about each VM at one moment. */
struct sample {
	unsigned long ticks[MAX_VMS];
	double tick_time[MAX_VMS];
	unsigned long long stats[NR_STATS];
	double time;
};

static struct vm *vms[MAX_VMS];
static int nr_vms = 1;

/*
 * Watch the VMs until CLOCK_MONOTONIC time @until, or with @until < 0 until
 * each has ticked: returns NULL, or the failure that ends the run, with the
 * VM in *failed.  A VM fails when it ends, or when it has not ticked for
 * @timeout seconds (since @start before its first tick).
 */
static const char *watch(double until, double start, int timeout, struct vm **failed)
{
	static char reason[64];
	const char *why = NULL;
	bool all_ticked;
	double t, last;
	int i;

	pthread_mutex_lock(&lock);
	for (;;) {
		t = now();
		all_ticked = true;
		for (i = 0; i < nr_vms && !why; i++) {
			struct vm *vm = vms[i];
			double tick_time;

			pthread_mutex_lock(&vm->lock);
			tick_time = vm->tick_time;
			pthread_mutex_unlock(&vm->lock);
			last = tick_time ? tick_time : start;
			all_ticked &= tick_time != 0;
			if (vm->done) {
				snprintf(reason, sizeof(reason), "vm%d_%s", i,
					 vm->failure ? vm->failure : "shutdown");
				why = reason;
			} else if (t - last > timeout) {
				snprintf(reason, sizeof(reason), "vm%d_%s_%ds", i,
					 tick_time ? "no_tick_for" : "no_first_tick_in",
					 timeout);
				why = reason;
			}
			if (why)
				*failed = vm;
		}
		if (why || (until < 0 && all_ticked) || (until >= 0 && t >= until))
			break;
		/* wake at least every 0.25 s to check the timeout */
		wait_until(until >= 0 && until < t + 0.25 ? until : t + 0.25);
	}
	pthread_mutex_unlock(&lock);
	return why;
}

static void take_sample(struct sample *smp)
{
	int i;

	for (i = 0; i < nr_vms; i++) {
		pthread_mutex_lock(&vms[i]->lock);
		smp->ticks[i] = vms[i]->ticks;
		smp->tick_time[i] = vms[i]->tick_time;
		pthread_mutex_unlock(&vms[i]->lock);
	}
	smp->time = now();
	read_stats(smp->stats);
}

/* Has every VM ticked between the samples @a and @b? */
static bool ticked_since(const struct sample *a, const struct sample *b)
{
	int i;

	for (i = 0; i < nr_vms; i++)
		if (b->tick_time[i] <= a->tick_time[i])
			return false;
	return true;
}

/* Print one window's line; returns why it has no numbers, or NULL. */
static const char *print_window(const char *row, const char *policy, int run,
				const struct sample *a, const struct sample *b)
{
	static char reason[64];
	double rate[MAX_VMS], sum = 0, sum_sq = 0, iterations = 0;
	unsigned long long d[NR_STATS];
	unsigned int s;
	int i;

	for (i = 0; i < nr_vms; i++) {
		if (b->tick_time[i] <= a->tick_time[i]) {
			snprintf(reason, sizeof(reason), "vm%d_no_tick_in_window", i);
			return reason;
		}
		rate[i] = (b->ticks[i] - a->ticks[i]) / (b->tick_time[i] - a->tick_time[i]);
		iterations += b->ticks[i] - a->ticks[i];
		sum += rate[i];
		sum_sq += rate[i] * rate[i];
	}
	if (iterations == 0)
		return "no_iterations_in_window";
	for (s = 0; s < NR_STATS; s++)
		d[s] = b->stats[s] - a->stats[s];
	printf("# BENCH row=%s policy=%s lock=%s vcpus=%d vms=%d cpus=%ld run=%d seconds=%.3f acq_per_s=%.1f vm_acq_per_s=",
	       row, policy, strcmp(workload, "ticks") ? workload : "kernel", nr_vcpus, nr_vms, sysconf(_SC_NPROCESSORS_ONLN), run,
	       b->time - a->time, sum);
	for (i = 0; i < nr_vms; i++)
		printf("%s%.1f", i ? "," : "", rate[i]);
	printf(" kvm_features=%#x jain=%.4f exits_per_acq=%.4f yields_per_acq=%.4f ran_next=-1",
	       kvm_features(),
	       sum_sq > 0 ? sum * sum / (nr_vms * sum_sq) : 0,
	       d[ST_EXITS] / iterations, d[ST_SUCCESSFUL] / iterations);
	for (s = 0; s < NR_STATS; s++)
		printf(" %s=%llu", stat_names[s], d[s]);
	printf("\n");
	fflush(stdout);
	return NULL;
}

static int steady_mode(const uint8_t *kernel, size_t ksize, const uint8_t *initrd,
		       size_t isize, struct kvm_cpuid2 *cpuid, char **pol, int nr_pol,
		       int runs, int timeout, const char *row, double warmup,
		       double window)
{
	struct vm *failed_vm = NULL;
	char *policy = pol[0];
	const char *why = NULL;
	struct sample a, b;
	int i, p, r = 0;
	double start;

	if (select_policy(policy))
		return 1;
	for (i = 0; i < nr_vms; i++)
		vms[i] = vm_create(i, kernel, ksize, initrd, isize, cpuid);
	start = now();
	for (i = 0; i < nr_vms; i++)
		vm_start(vms[i]);
	why = watch(-1, start, timeout, &failed_vm);
	if (!why)
		printf("# nested_boot: %d VM(s) of %d vCPUs ticking after %.1f s\n",
		       nr_vms, nr_vcpus, now() - start);

	/*
	 * Rounds of one window per policy, in rotated order, so that a drift in
	 * the machine's speed is spread over the policies instead of favouring
	 * one position.
	 */
	for (r = 0; r < runs && !why; r++) {
		for (p = 0; p < nr_pol && !why; p++) {
			policy = rotated(pol, nr_pol, r, p);
			if (select_policy(policy)) {
				why = "cannot_select_policy";
				break;
			}
			why = watch(now() + warmup, start, timeout, &failed_vm);
			if (why)
				break;
			take_sample(&a);
			why = watch(a.time + window, start, timeout, &failed_vm);
			/*
			 * A window ends at each VM's first tick after it: a VM
			 * that stalls shows as a low rate, and fails only by
			 * not ticking for the timeout.
			 */
			while (!why) {
				take_sample(&b);
				if (ticked_since(&a, &b))
					break;
				why = watch(now() + 0.25, start, timeout, &failed_vm);
			}
			if (!why)
				why = print_window(row, policy, r, &a, &b);
		}
	}
	if (why) {
		printf("# BENCH-FAILED row=%s policy=%s reason=%s\n", row,
		       policy ? policy : "none", why);
		fflush(stdout);
		if (failed_vm)
			print_console(failed_vm, why, now() - start);
	}
	for (i = 0; i < nr_vms; i++)
		vm_destroy(vms[i]);
	return why ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *kpath = NULL, *ipath = NULL, *tag = "", *extra = "", *row = NULL;
	char *policies = strdup("local"), *pol[MAX_POLICIES], *policy, *save;
	int runs = 1, timeout = 600, opt, steady = 0, nr_pol = 0;
	bool cgroups = false;
	double warmup = 2, window = 3;
	struct sigaction sa = { .sa_handler = noop };
	struct kvm_cpuid2 *cpuid;
	pthread_condattr_t attr;
	uint8_t *kernel, *initrd;
	size_t ksize, isize;

	while ((opt = getopt(argc, argv, "k:i:n:p:r:m:T:t:va:NPX:R:WV:U:d:w:c")) != -1) {
		switch (opt) {
		case 'a':
			extra = optarg; break;
		case 'N':
			kvm_guest = false; break;
		case 'P':
			no_pause_exits = true; break;
		case 'X':
			kvm_features_cleared = strtoul(optarg, NULL, 0); break;
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
		case 'R':
			row = optarg; break;
		case 'W':
			steady = 1; break;
		case 'c':
			cgroups = true; break;
		case 'V':
			nr_vms = atoi(optarg); break;
		case 'U':
			warmup = atof(optarg); break;
		case 'd':
			window = atof(optarg); break;
		case 'w':
			workload = optarg; break;
		default:
			fprintf(stderr, "usage: %s -k bzImage -i initrd [-n vcpus] [-p policy,...]\n"
				"       [-r runs] [-m MiB] [-T timeout] [-t tag] [-v]\n"
				"       [-a kernel-args] [-N (not a KVM guest)] [-X pv-features-to-clear]\n"
				"       [-P (no PAUSE exits)]\n"
				"       [-R row]\n"
				"       [-W (steady mode) -V vms -U warmup_s -d window_s\n"
				"        -w ticks|dbench|hackbench] [-c (vCPU threads in libvirt's cgroups)]\n",
				argv[0]);
			return 2;
		}
	}
	if (!kpath || !ipath || nr_vcpus < 1 || nr_vcpus > MAX_VCPUS ||
	    nr_vms < 1 || nr_vms > MAX_VMS || (steady && (!row || window <= 0))) {
		fprintf(stderr, "nested_boot: -k and -i are required, 1 <= -n <= %d, 1 <= -V <= %d; -W needs -R and -d > 0\n",
			MAX_VCPUS, MAX_VMS);
		return 2;
	}
	/* The policies, in the order of the first round (rotated() after). */
	for (policy = strtok_r(policies, ",", &save); policy;
	     policy = strtok_r(NULL, ",", &save)) {
		if (nr_pol == MAX_POLICIES) {
			fprintf(stderr, "nested_boot: at most %d policies\n", MAX_POLICIES);
			return 2;
		}
		pol[nr_pol++] = policy;
	}
	if (!nr_pol) {
		fprintf(stderr, "nested_boot: -p needs a policy\n");
		return 2;
	}
	if (steady)
		snprintf(cmdline, sizeof(cmdline), "%s nested_work=%s %s",
			 base_cmdline, workload, extra);
	else
		snprintf(cmdline, sizeof(cmdline), "%s %s", base_cmdline, extra);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &attr);
	kvm_fd = open("/dev/kvm", O_RDWR);
	if (kvm_fd < 0)
		die("/dev/kvm");
	mmap_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	kernel = read_file(kpath, &ksize);
	initrd = read_file(ipath, &isize);
	cpuid = supported_cpuid();
	save_knobs();
	atexit(restore_knobs);
	if (cgroups && cg_setup(nr_vms, nr_vcpus)) {
		perror("nested_boot: -c: cannot place the vCPU threads in cgroups");
		return 1;
	}

	if (steady)
		return steady_mode(kernel, ksize, initrd, isize, cpuid, pol, nr_pol,
				   runs, timeout, row, warmup, window);
	return boot_mode(kernel, ksize, initrd, isize, cpuid, pol, nr_pol, runs,
			 timeout, row, tag);
}
