#include "cgroup-cpu.h"

#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/parse-number.h"

/* cpu.stat has a dozen lines (v2 with pressure and burst fields). */
#define CPU_STAT_MAX 2048

/* The CPUs target may run on: its affinity, else the online ones. */
static double cpus_of(pid_t pid) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(pid, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
                return CPU_COUNT(&set);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? (double)n : 1.0;
}

int cgroup_cpu_allowance(
        const struct proc_identity *target, double *ret_cpus, bool *ret_limited, struct mh_error *reterr) {
        int64_t quota = -1, period = 0;
        double cpus = cpus_of(target->pid);
        int r = cgroup_cpu_quota(target, &quota, &period, reterr);
        if (r < 0 && r != -ENOENT)
                return r;
        /* -ENOENT: the v2 root or no cpu controller there, so no quota. */
        bool limited = r >= 0 && quota > 0 && period > 0 && (double)quota / (double)period < cpus;
        *ret_cpus = limited ? (double)quota / (double)period : cpus;
        *ret_limited = limited;
        return 0;
}

int cgroup_cpu_usage_open(
        const struct proc_identity *target, int *ret_fd, bool *ret_v2, struct mh_error *reterr) {
        return cgroup_controller_dir_open(target, "cpuacct", ret_fd, ret_v2, NULL, 0, reterr);
}

int cgroup_cpu_stat_usage_parse(const char *text, uint64_t *ret_usec) {
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                if (strncmp(p, "usage_usec ", 11) != 0)
                        continue;
                char num[32];
                size_t len = strcspn(p + 11, "\n");
                if (len == 0 || len >= sizeof(num))
                        return -EINVAL;
                memcpy(num, p + 11, len);
                num[len] = '\0';
                int64_t v;
                if (parse_int64(num, &v) < 0 || v < 0)
                        return -EINVAL;
                *ret_usec = (uint64_t)v;
                return 0;
        }
        return -ENOENT;
}

int cgroup_cpu_usage_read(int dirfd, bool v2, uint64_t *ret_ns) {
        char buf[CPU_STAT_MAX];
        int r = read_text_at(dirfd, v2 ? "cpu.stat" : "cpuacct.usage", buf, sizeof(buf));
        if (r < 0)
                return r;
        if (v2) {
                uint64_t usec = 0;
                if ((r = cgroup_cpu_stat_usage_parse(buf, &usec)) < 0)
                        return r;
                *ret_ns = usec * 1000;
                return 0;
        }
        buf[strcspn(buf, "\n")] = '\0';
        int64_t ns;
        if (parse_int64(buf, &ns) < 0 || ns < 0)
                return -EINVAL;
        *ret_ns = (uint64_t)ns;
        return 0;
}
