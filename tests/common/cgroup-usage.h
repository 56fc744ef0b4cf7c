#pragma once

/* A container's CPU usage counter read from the host, for the tests and
 * benches that check cpu.saturate: found from /proc/PID/cgroup by the test
 * itself (cpuacct.usage of the v1 cpuacct hierarchy, else usage_usec of the
 * unified group's cpu.stat), not through mayhem's own readers. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cgroup_usage {
        char dir[512]; /* the cgroup's directory: its cgroup.procs is there too */
        bool v2;
};

/* The counter of the cgroup pid is in. */
bool cgroup_usage_find(pid_t pid, struct cgroup_usage *ret);
/* CPU seconds the cgroup used so far. */
bool cgroup_usage_read(const struct cgroup_usage *c, double *ret_s);
/* The share of allowance (CPUs) it used over the next ms, in percent; NAN
 * when the counter cannot be read. */
double cgroup_usage_share(const struct cgroup_usage *c, double allowance, int ms);
/* The summed VmRSS (KiB) of the cgroup's processes whose argv[0] starts
 * with prefix (not comm: a payload is exec'd through /proc/self/exe), and
 * how many there were. */
long cgroup_usage_rss_kb(const struct cgroup_usage *c, const char *prefix, int *ret_n);
