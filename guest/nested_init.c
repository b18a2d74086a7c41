// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the nested guest that nested_boot boots: report how many CPUs
 * came up, then reboot.  The guest runs with reboot=t, so the reboot is a
 * triple fault, which nested_boot sees as KVM_EXIT_SHUTDOWN and takes as
 * the end of the boot.  The line goes through /dev/kmsg at KERN_CRIT so
 * that it reaches the serial console under "quiet".
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	char line[64];
	int fd;

	mount("dev", "/dev", "devtmpfs", 0, NULL);
	mount("sys", "/sys", "sysfs", 0, NULL);
	fd = open("/dev/kmsg", O_WRONLY);
	snprintf(line, sizeof(line), "<2>NESTED_BOOT_OK cpus=%ld\n",
		 sysconf(_SC_NPROCESSORS_ONLN));
	if (fd >= 0)
		write(fd, line, strlen(line));
	reboot(RB_AUTOBOOT);
	return 1;
}
