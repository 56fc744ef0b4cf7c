#include "fault.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "sys/cgroup.h"

/* cpu.throttle writes the container's cgroup quota directly (not the
 * engine's config): the quota read just before the fault goes into the
 * lease's restore record and is put back exactly, "unlimited" included,
 * which an engine update cannot do. */

#define QUOTA_MIN_US 1000

struct quota {
        int64_t quota; /* -1: unlimited */
        int64_t period;
};

/* What a throttle to percent of the previous allowance sets (all host CPUs
 * when it was unlimited); the kernel's minimum is 1 ms. */
static int64_t throttled(const struct quota *before, double percent) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int64_t allowance = before->quota > 0 ? before->quota : before->period * MAX(cpus, 1L);
        int64_t q = (int64_t)((double)allowance * percent / 100.0);
        return MAX(q, (int64_t)QUOTA_MIN_US);
}

static bool recorded(const struct fault_exec *fx, struct quota *ret) {
        const json_t *q = json_object_get(fx->restore, "cpu_quota"),
                     *p = json_object_get(fx->restore, "cpu_period");
        if (!json_is_integer(q) || !json_is_integer(p) || json_integer_value(p) <= 0)
                return false;
        *ret = (struct quota){ json_integer_value(q) > 0 ? json_integer_value(q) : -1,
                               json_integer_value(p) };
        return true;
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        const struct target_identity *t = &fx->target;
        struct quota before;
        int r;
        if (t->main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "%s has no running main process",
                        t->container_name);
        if ((r = cgroup_cpu_quota(&t->main, &before.quota, &before.period, reterr)) < 0) {
                mh_error_prefix(
                        reterr, "the CPU quota of %s before the fault is unknown; refusing to change it: ",
                        t->container_name);
                return r;
        }
        if (json_object_set_new(fx->restore, "cpu_quota", json_integer(before.quota)) < 0 ||
            json_object_set_new(fx->restore, "cpu_period", json_integer(before.period)) < 0)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        if ((r = fault_record(fx, reterr)) < 0)
                return r;
        return cgroup_set_cpu_quota(
                &t->main, throttled(&before, fault_param(fx, "percent")->f), before.period, reterr);
}

/* A gone process took its cgroup settings with it (a restart re-applies the
 * engine's); nothing recorded means nothing was changed. */
static int undo_restore(const struct fault_exec *fx, struct mh_error *reterr) {
        struct quota before;
        if (fx->target.main.pid <= 0 || !recorded(fx, &before))
                return 0;
        int r = cgroup_set_cpu_quota(&fx->target.main, before.quota, before.period, reterr);
        return r == -ESRCH ? 0 : r;
}

/* The target's cgroup quota now; false (with detail) when it cannot be read. */
static bool quota_now(const struct fault_exec *fx, struct quota *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        if (fx->target.main.pid > 0 &&
            cgroup_cpu_quota(&fx->target.main, &ret->quota, &ret->period, &e) >= 0)
                return true;
        snprintf(detail, size, "%s", fx->target.main.pid > 0 ? e.msg : "no main process");
        return false;
}

static int look_restored(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct quota now, before;
        if (!recorded(fx, &before)) {
                *ret = true;
                snprintf(detail, size, "no quota was recorded, so none was changed");
                return 0;
        }
        if (!quota_now(fx, &now, detail, size)) {
                *ret = fx->target.main.pid <= 0 || proc_state(&fx->target.main, NULL, NULL) == -ESRCH;
                return 0; /* gone: nothing left */
        }
        *ret = (now.quota == before.quota || (now.quota < 0 && before.quota < 0)) &&
               now.period == before.period;
        snprintf(
                detail, size, "cpu quota %" PRId64 "/%" PRId64 " (before: %" PRId64 "/%" PRId64 ")",
                now.quota, now.period, before.quota, before.period);
        return 0;
}

static int look_limited(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct quota now = { 0 }, before;
        *ret = false;
        if (!recorded(fx, &before)) {
                snprintf(detail, size, "no quota before the fault was recorded");
                return 0;
        }
        int64_t want = throttled(&before, fault_param(fx, "percent")->f);
        *ret = quota_now(fx, &now, detail, size) && now.quota == want;
        if (*ret || now.quota)
                snprintf(
                        detail, size, "cpu quota %" PRId64 "/%" PRId64 "us (wanted %" PRId64 ")", now.quota,
                        now.period, want);
        return 0;
}

const struct fault_mechanism fault_cgroup_cpu = {
        .name = "cgroup.cpu",
        .records = true,
        .apply = apply,
        .undo = { { "cgroup.restore_cpu", undo_restore } },
        .verify = { { "cgroup.cpu_restored", look_restored } },
        .effect = { { "cgroup.cpu_limited", look_limited } },
};
