#include "fault.h"

#include <unistd.h>

#include "sys/cgroup.h"

/* cpu.throttle writes the container's cgroup quota directly (not the
 * engine's config): the quota before the fault, recorded in the lease, is put
 * back exactly, "unlimited" included, which an engine update cannot do. */

#define QUOTA_MIN_US 1000

int64_t cpu_throttle_quota(const struct target_identity *before, double percent, long host_cpus) {
        int64_t allowance =
                before->cpu_quota > 0 ? before->cpu_quota : before->cpu_period * MAX(host_cpus, 1L);
        int64_t q = (int64_t)((double)allowance * percent / 100.0);
        return MAX(q, (int64_t)QUOTA_MIN_US);
}

int fault_apply_cpu_throttle(struct fault_exec *fx, struct mh_error *reterr) {
        const struct target_identity *t = &fx->target;
        if (t->main.pid <= 0 || t->cpu_period <= 0)
                return mh_error_fail(
                        reterr, -ENOENT, "cpu_unknown",
                        "the CPU quota of %s before the fault is unknown; refusing to change it",
                        t->container_name);
        int64_t q = cpu_throttle_quota(t, fault_param_num(fx, "percent", 50), sysconf(_SC_NPROCESSORS_ONLN));
        return cgroup_set_cpu_quota(&t->main, q, t->cpu_period, reterr);
}

/* A gone process took its cgroup settings with it (a restart re-applies the engine's). */
int cpu_quota_restore(const struct target_identity *t, struct mh_error *reterr) {
        if (t->main.pid <= 0 || t->cpu_period <= 0)
                return 0;
        int r = cgroup_set_cpu_quota(&t->main, t->cpu_quota > 0 ? t->cpu_quota : -1, t->cpu_period, reterr);
        return r == -ESRCH ? 0 : r;
}
