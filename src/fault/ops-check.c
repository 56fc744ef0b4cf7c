#include "fault.h"

#include "fault/fault-net.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/cgroup.h"

/* Verify probes (is the target back?) and effect checks (is the fault in
 * force?) share their looks at the process and the container. */

static int look_container(
        struct engine *e, const struct target_identity *t, struct engine_container *c, char *detail,
        size_t size) {
        struct mh_error err = { 0 };
        int r = engine_container_inspect(e, t->container_id, c, &err);
        if (r < 0)
                snprintf(detail, size, "%s", err.msg);
        return r;
}

/* 'T' (stopped), '-' when the process is gone, else its state letter. */
static char look_process(const struct target_identity *t) {
        char state = '-';
        if (t->main.pid <= 0 || proc_state(&t->main, &state, NULL) < 0)
                return '-';
        return state;
}

static void describe(char *detail, size_t size, const struct engine_container *c) {
        snprintf(detail, size, "container %s is %s", c->name, c->paused ? "paused" : c->status);
}

/* The target's cgroup quota now; false (with detail) when it cannot be read. */
static bool look_quota(
        const struct target_identity *t, int64_t *quota, int64_t *period, char *detail, size_t size) {
        struct mh_error e = { 0 };
        if (t->main.pid > 0 && cgroup_cpu_quota(&t->main, quota, period, &e) >= 0)
                return true;
        snprintf(detail, size, "%s", t->main.pid > 0 ? e.msg : "no main process");
        return false;
}

static int verify_cpu(const struct target_identity *t, bool *ret_ok, char *detail, size_t size) {
        int64_t q = 0, p = 0;
        if (!look_quota(t, &q, &p, detail, size)) {
                *ret_ok = t->main.pid <= 0 ||
                          proc_state(&t->main, NULL, NULL) == -ESRCH; /* gone: nothing left */
                return 0;
        }
        *ret_ok = (q == t->cpu_quota || (q < 0 && t->cpu_quota < 0)) && p == t->cpu_period;
        snprintf(
                detail, size, "cpu quota %" PRId64 "/%" PRId64 " (before: %" PRId64 "/%" PRId64 ")", q, p,
                t->cpu_quota, t->cpu_period);
        return 0;
}

int verify_probe_run(
        enum verify_probe v, const struct fault_exec *fx, bool *ret_ok, char *detail, size_t size) {
        const struct target_identity *t = &fx->target;
        struct engine_container c;
        char state;
        int r;
        switch (v) {
        case VERIFY_PROCESS_NOT_STOPPED:
                state = look_process(t);
                *ret_ok = state != 'T' && state != 't';
                snprintf(
                        detail, size, "process %d %s", (int)t->main.pid,
                        state == '-' ? "is gone"
                        : *ret_ok    ? "is not stopped"
                                     : "is still stopped");
                return 0;
        case VERIFY_CONTAINER_RUNNING:
                if ((r = look_container(fx->engine, t, &c, detail, size)) < 0)
                        return r;
                *ret_ok = c.running && !c.paused && !c.restarting;
                describe(detail, size, &c);
                return 0;
        case VERIFY_CPU_RESTORED: return verify_cpu(t, ret_ok, detail, size);
        case VERIFY_PROCESS_RUNNING: {
                struct proc_identity now;
                struct mh_error why = { 0 };
                *ret_ok = proc_find_by_name(t->container_name, &now, &why) >= 0 || why.code == -ENOTUNIQ;
                snprintf(detail, size, "%.200s", *ret_ok ? "a process of that name runs" : why.msg);
                return 0;
        }
        case VERIFY_NET_CLEAN:
                if ((r = fault_net_residue(fx, detail, size)) < 0)
                        return r;
                *ret_ok = r == 0;
                return 0;
        default: return -EOPNOTSUPP;
        }
}

bool verify_probe_supported(enum verify_probe v) {
        return v == VERIFY_PROCESS_NOT_STOPPED || v == VERIFY_CONTAINER_RUNNING ||
               v == VERIFY_CPU_RESTORED || v == VERIFY_PROCESS_RUNNING || v == VERIFY_NET_CLEAN;
}

static int cpu_effect(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        int64_t q = 0, p = 0,
                want = cpu_throttle_quota(
                        &fx->target, fault_param_num(fx, "percent", 50), sysconf(_SC_NPROCESSORS_ONLN));
        *ret = look_quota(&fx->target, &q, &p, detail, size) && q == want;
        if (*ret || q)
                snprintf(
                        detail, size, "cpu quota %" PRId64 "/%" PRId64 "us (wanted %" PRId64 ")", q, p,
                        want);
        return 0;
}

static int container_effect(
        enum effect_check ck, const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct engine_container c;
        int r = look_container(fx->engine, &fx->target, &c, detail, size);
        if (r < 0)
                return r;
        describe(detail, size, &c);
        if (ck == EFFECT_CONTAINER_PAUSED)
                *ret = c.paused;
        else if (ck == EFFECT_CONTAINER_EXITED)
                *ret = !c.running && !c.restarting;
        else {
                *ret = c.running && strcmp(c.started_at, fx->target.started_at) != 0;
                snprintf(
                        detail, size, "container %s %s (started %s, before %s)", c.name,
                        *ret ? "restarted" : "did not restart", c.started_at, fx->target.started_at);
        }
        return 0;
}

/* In force: the agent holds the lease's tables / shaper / guardian, and the
 * target's netns shows them. */
static int net_effect(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        int r = fault_net_residue(fx, detail, size);
        if (r < 0)
                return r;
        *ret = r > 0 && net_live_has(fx->lease_id, NULL);
        return 0;
}

int effect_check_run(
        enum effect_check ck, const struct fault_exec *fx, bool *ret_in_force, char *detail, size_t size) {
        char state;
        switch (ck) {
        case EFFECT_PROCESS_STOPPED:
        case EFFECT_PROCESS_GONE:
                state = look_process(&fx->target);
                *ret_in_force = ck == EFFECT_PROCESS_GONE ? state == '-' : state == 'T' || state == 't';
                snprintf(
                        detail, size, "process %d %s", (int)fx->target.main.pid,
                        state == '-'                   ? "is gone"
                        : state == 'T' || state == 't' ? "is stopped"
                                                       : "is running");
                return 0;
        case EFFECT_CONTAINER_PAUSED:
        case EFFECT_CONTAINER_EXITED:
        case EFFECT_CONTAINER_RESTARTED: return container_effect(ck, fx, ret_in_force, detail, size);
        case EFFECT_CPU_LIMITED: return cpu_effect(fx, ret_in_force, detail, size);
        case EFFECT_NET_SHAPED:
        case EFFECT_NFT_RULES_PRESENT: return net_effect(fx, ret_in_force, detail, size);
        default: return -EOPNOTSUPP;
        }
}

bool effect_check_supported(enum effect_check c) {
        switch (c) {
        case EFFECT_PROCESS_STOPPED:
        case EFFECT_PROCESS_GONE:
        case EFFECT_CONTAINER_PAUSED:
        case EFFECT_CONTAINER_EXITED:
        case EFFECT_CONTAINER_RESTARTED:
        case EFFECT_CPU_LIMITED:
        case EFFECT_NET_SHAPED:
        case EFFECT_NFT_RULES_PRESENT: return true;
        default: return false;
        }
}
