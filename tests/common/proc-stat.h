#pragma once

/* /proc/PID/stat read by the tests themselves, so they observe a process
 * without going through the code under test. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct proc_stat {
        char state; /* 'R', 'S', 'T', 'Z', ... */
        int ppid;
        unsigned long long start_time; /* field 22, clock ticks since boot */
};

/* False when the process is gone (or its stat unreadable). */
bool proc_stat_read(pid_t pid, struct proc_stat *ret);

/* The state letter, or '-' when the process is gone. */
char proc_state_of(pid_t pid);

/* /proc/PID/comm is name. */
bool proc_comm_is(pid_t pid, const char *name);

/* The CPU quota of pid's cgroup as "quota/period", read from cgroupfs:
 * cgroup v1's cpu controller (cfs_quota_us, cfs_period_us) or v2's cpu.max
 * ("max 100000" is written "-1/100000", as v1 says unlimited). "" when it
 * cannot be read. */
void proc_cpu_quota_text(pid_t pid, char *buf, size_t size);
