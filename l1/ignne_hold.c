// SPDX-License-Identifier: GPL-2.0
/*
 * Assert IGNNE# and keep it asserted, for scripts/migrate-test.sh's reset
 * check (qemu/patches/0002: IGNNE# lives in a field of the first CPU that a
 * reset must clear).  A write to port F0h makes the chipset assert IGNNE#
 * (QEMU: ioportF0_write() -> cpu_set_ignne()); any CPU that reloads its FPU
 * environment (FLDENV, FRSTOR, FXRSTOR, XRSTOR: Linux does on a return to
 * user space after a context switch) deasserts it.  So the write is repeated
 * in a user-space loop, no system call, for SECONDS, and the host can stop
 * the machine and read the state meanwhile: a single write was undone
 * before the host's stop in 1 of 2 runs of make check.
 *
 * usage: ignne_hold SECONDS
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <time.h>
#include <x86intrin.h>

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 0;
	unsigned long long end;
	struct timespec t0, t1;
	cpu_set_t cpus;

	if (seconds <= 0 || seconds > 600) {
		fprintf(stderr, "usage: %s SECONDS (1-600)\n", argv[0]);
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || ioperm(0xf0, 1, 1)) {
		perror("ignne_hold: sched_setaffinity/ioperm");
		return 1;
	}
	/* TSC cycles per second, measured over 0.1 s */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	end = __rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec < 100000000L);
	end = __rdtsc() + (__rdtsc() - end) * 10 * seconds;
	printf("# ignne_hold: IGNNE asserted, holding for %d s\n", seconds);
	fflush(stdout);
	/* Again and again: any CPU's FPU reload in between deasserts it. */
	while (__rdtsc() < end)
		outb(0, 0xf0);
	printf("ok 1 ignne_hold: held IGNNE# for %d s\n", seconds);
	return 0;
}
