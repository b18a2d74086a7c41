// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the nested guest that nested_boot boots: report how many CPUs
 * came up, optionally run a workload that stresses the guest kernel's own
 * locks, then reboot.  The guest runs with reboot=t, so the reboot is a
 * triple fault, which nested_boot sees as KVM_EXIT_SHUTDOWN and takes as
 * the end of the run.  The first line says what the boot log found: the
 * hypervisor detected and whether pv spinlocks are on.  Lines go through
 * /dev/kmsg at KERN_CRIT so that they reach the serial console under
 * "quiet".
 *
 * nested_work=S on the kernel command line (the kernel hands unknown
 * name=value parameters to init as environment variables) runs, after
 * nested_warmup=W seconds (default 1), S seconds of this loop on one
 * thread per CPU and reports the iterations per second of all threads.
 * nested_work=ticks runs it without end instead and prints the iterations
 * of all threads so far every 0.25 s ("NESTED_TICK iterations=N"), for
 * nested_boot -W to measure windows of its own.  nested_work=dbench and
 * nested_work=hackbench run Debian's dbench and hackbench (rt-tests)
 * without end instead, with a tick of the operations or messages done so
 * far at each of their progress points (see run_dbench, run_hackbench).
 * The loop:
 *   - mmap 16 anonymous pages, touch each one, munmap them: page faults,
 *     the mmap lock, page table and LRU locks, TLB shootdown IPIs;
 *   - write a byte to the next thread's pipe, read one from its own: pipe
 *     locks and wake-ups across CPUs;
 *   - take and release a mutex shared by all threads: futex waits and
 *     wake-ups when it is contended.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/klog.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS	64
#define WORK_PAGES	16

static int kmsg = -1;
static volatile int stop;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared_counter;
static int nr_threads;
static int pipes[MAX_THREADS][2];
/* One cache line per thread, so that counting does not contend. */
static struct {
	volatile unsigned long iterations;
	char pad[56];
} count[MAX_THREADS];

static void report(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "<2>");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (kmsg >= 0 && write(kmsg, line, n) < 0)
		return;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	long page = sysconf(_SC_PAGESIZE);
	int out = pipes[(id + 1) % nr_threads][1], in = pipes[id][0];
	char byte = 0;
	char *p;
	int i;

	while (!stop) {
		p = mmap(NULL, WORK_PAGES * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		for (i = 0; i < WORK_PAGES; i++)
			p[i * page] = 1;
		munmap(p, WORK_PAGES * page);

		if (write(out, &byte, 1) != 1 || read(in, &byte, 1) != 1)
			break;

		pthread_mutex_lock(&shared_lock);
		shared_counter++;
		pthread_mutex_unlock(&shared_lock);
		count[id].iterations++;
	}
	/* Keep the ring moving for the threads that still read. */
	if (write(out, &byte, 1) != 1)
		return NULL;
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long total(void)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < nr_threads; i++)
		sum += count[i].iterations;
	return sum;
}

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

/* One worker per CPU; returns 0 when they all run. */
static int start_workers(pthread_t *threads)
{
	long i;

	nr_threads = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_threads > MAX_THREADS)
		nr_threads = MAX_THREADS;
	for (i = 0; i < nr_threads; i++) {
		if (pipe(pipes[i])) {
			report("NESTED_WORK_FAILED pipe\n");
			return -1;
		}
	}
	for (i = 0; i < nr_threads; i++) {
		if (pthread_create(&threads[i], NULL, worker, (void *)i)) {
			report("NESTED_WORK_FAILED pthread_create\n");
			return -1;
		}
	}
	return 0;
}

static void run_work(double warmup, double seconds)
{
	pthread_t threads[MAX_THREADS];
	unsigned long before, after;
	double t0, t1;

	if (start_workers(threads))
		return;
	sleep_seconds(warmup);
	before = total();
	t0 = now();
	sleep_seconds(seconds);
	after = total();
	t1 = now();
	stop = 1;
	report("NESTED_WORK threads=%d seconds=%.3f iterations=%lu per_s=%.1f\n",
	       nr_threads, t1 - t0, after - before, (after - before) / (t1 - t0));
}

/*
 * What the kernel's boot log says the guest runs on, as "word" fields for
 * the NESTED_BOOT_OK line: the hypervisor it detected ("none" if it saw no
 * hypervisor bit) and whether pv spinlocks are on ("enabled", "disabled",
 * or "none" if the kernel said nothing about them).
 */
static void boot_log_word(const char *log, const char *key, char *word, size_t size)
{
	const char *p = strstr(log, key);
	size_t n;

	snprintf(word, size, "none");
	if (!p)
		return;
	p += strlen(key);
	n = strcspn(p, " ,\n");
	if (n && n < size)
		snprintf(word, size, "%.*s", (int)n, p);
}

static char log_buf[1 << 17];

static void boot_log(char *hypervisor, char *pvspin, size_t size)
{
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log_buf, sizeof(log_buf) - 1);

	log_buf[n > 0 ? n : 0] = 0;
	boot_log_word(log_buf, "Hypervisor detected: ", hypervisor, size);
	boot_log_word(log_buf, "PV spinlocks ", pvspin, size);
}

/*
 * Start @argv with its standard output (and error) on a pipe; returns the
 * read end, or -1.
 */
static int spawn(char *const argv[])
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	return fd[0];
}

/* One line of @fd, at most @size - 1 bytes, ended by \n or \r; 0 at EOF. */
static int read_line(int fd, char *line, size_t size)
{
	size_t n = 0;
	char c;

	while (read(fd, &c, 1) == 1) {
		if (c == '\n' || c == '\r') {
			if (!n)
				continue;
			break;
		}
		if (n < size - 1)
			line[n++] = c;
	}
	line[n] = 0;
	return n > 0;
}

/*
 * Debian's dbench, without end, on the initramfs (a tmpfs), one client per
 * CPU, with its own loadfile: dbench prints a status line every second,
 * "CLIENTS LINES MB/sec ...", LINES being the loadfile lines (operations)
 * each client has completed on average; each becomes a tick of
 * CLIENTS * LINES operations.
 */
static void run_dbench(void)
{
	char clients[16], line[256];
	char *argv[] = { "/usr/bin/dbench", "-c", "/usr/share/dbench/client.txt",
			 "-D", "/dbench", "-t", "1000000", clients, NULL };
	unsigned long nclients, lines;
	int fd;

	snprintf(clients, sizeof(clients), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	mkdir("/dbench", 0755);
	fd = spawn(argv);
	if (fd < 0) {
		report("NESTED_WORK_FAILED dbench\n");
		return;
	}
	while (read_line(fd, line, sizeof(line))) {
		if (sscanf(line, "%lu %lu", &nclients, &lines) == 2 && strstr(line, "MB/sec"))
			report("NESTED_TICK iterations=%lu\n", nclients * lines);
		else	/* its other lines, to the console */
			report("dbench: %s\n", line);
	}
	report("NESTED_WORK_FAILED dbench ended\n");
}

/*
 * Debian's hackbench (rt-tests) in pipe mode with threads (-T), one group
 * of 20 senders and 20 receivers per CPU, each sender sending a message to
 * each receiver of its group 20 times, again and again: a tick of the
 * messages delivered so far after each run.  Threads, because in process
 * mode a run of an 8-vCPU guest at 4x spent nearly all its time in fork()
 * and exit() under L1's shadow paging: 900 messages/s with 5 loops, 22700
 * with one group of 100 loops, 50500 with threads, 8 groups of 20 loops
 * (tests/hackbench-calibration.list, results/hackbench-window-length.txt).
 * nested_hb_groups=, nested_hb_loops= and nested_hb_threads=0|1 on the
 * kernel command line override the defaults, for such calibrations.
 */
#define HACKBENCH_LOOPS		20
static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v ? atol(v) : def;
}

static void run_hackbench(void)
{
	char groups[16], loops[16], line[256];
	char *argv[] = { "/usr/bin/hackbench", "-p", "-g", groups, "-l", loops, NULL, NULL };
	unsigned long long messages = 0;
	long ngroups = env_long("nested_hb_groups", sysconf(_SC_NPROCESSORS_ONLN));
	long nloops = env_long("nested_hb_loops", HACKBENCH_LOOPS);
	int fd, status;

	if (env_long("nested_hb_threads", 1))
		argv[6] = "-T";
	snprintf(groups, sizeof(groups), "%ld", ngroups);
	snprintf(loops, sizeof(loops), "%ld", nloops);
	for (;;) {
		fd = spawn(argv);
		if (fd < 0) {
			report("NESTED_WORK_FAILED hackbench\n");
			return;
		}
		while (read_line(fd, line, sizeof(line)))
			;
		close(fd);
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			report("NESTED_WORK_FAILED hackbench status %d\n", status);
			return;
		}
		messages += (unsigned long long)ngroups * 20 * 20 * nloops;
		report("NESTED_TICK iterations=%llu\n", messages);
	}
}

/* Without end: nested_boot ends the VM. */
static void run_ticks(void)
{
	pthread_t threads[MAX_THREADS];

	if (start_workers(threads))
		return;
	for (;;) {
		sleep_seconds(0.25);
		report("NESTED_TICK iterations=%lu\n", total());
	}
}

int main(void)
{
	const char *work = getenv("nested_work");
	const char *warmup = getenv("nested_warmup");
	char hypervisor[32], pvspin[32];

	mount("dev", "/dev", "devtmpfs", 0, NULL);
	mount("sys", "/sys", "sysfs", 0, NULL);
	kmsg = open("/dev/kmsg", O_WRONLY);
	boot_log(hypervisor, pvspin, sizeof(hypervisor));
	report("NESTED_BOOT_OK cpus=%ld hypervisor=%s pvspin=%s\n",
	       sysconf(_SC_NPROCESSORS_ONLN), hypervisor, pvspin);
	if (work && !strcmp(work, "ticks"))
		run_ticks();
	else if (work && !strcmp(work, "dbench"))
		run_dbench();
	else if (work && !strcmp(work, "hackbench"))
		run_hackbench();
	else if (work)
		run_work(warmup ? atof(warmup) : 1, atof(work));
	reboot(RB_AUTOBOOT);
	return 1;
}
