#include "fault.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "fault/rlimit-procs.h"
#include "fault/rlimit-record.h"
#include "sys/proc-nofile.h"

/* fd.exhaust: RLIMIT_NOFILE of every process of the target (rlimit-procs.h
 * says which) lowered with prlimit, soft and hard alike, to the number that
 * leaves exactly limit free descriptor numbers below it (never raising
 * either). The limits of each process before the fault are recorded first
 * (fault_record(): the agent's journal), and put back exactly by undo, also
 * on processes forked during the fault, which inherited the lowered ones:
 * a process started after the fault whose nearest recorded ancestor's
 * lowered limits it still has gets that ancestor's old ones (in a
 * container's cgroup, a process with no recorded ancestor left, reparented,
 * gets the old limits of the first recorded process whose lowered limits it
 * has). A process changed its limits itself: undo sets the old ones anyway. */

static const char *target_name(const struct fault_exec *fx) {
        return fx->target.container_name[0] ? fx->target.container_name : "the target";
}

static bool same(const struct rlimit *a, const struct rlimit *b) {
        return a->rlim_cur == b->rlim_cur && a->rlim_max == b->rlim_max;
}

/* A live process's identity, -ESRCH for a gone or zombie one. */
static int live_identity(pid_t pid, struct proc_identity *ret) {
        char state = 0;
        if (proc_identity_read(pid, ret, NULL) < 0 || proc_state(ret, &state, NULL) < 0 || state == 'Z')
                return -ESRCH;
        return 0;
}

/* What the fault sets on one process (nothing is changed yet). */
static int plan_one(
        pid_t pid, uint64_t limit, bool hard_too, struct nofile_entry *ret, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF;
        _cleanup_free_ int *fds = NULL;
        struct nofile_entry e = { 0 };
        size_t n = 0;
        int r;
        if (live_identity(pid, &e.id) < 0 || proc_pidfd_open(&e.id, &pidfd, NULL) < 0)
                return -ESRCH;
        if ((r = proc_nofile_get(pid, &e.old, reterr)) < 0 || (r = proc_fd_list(pid, &fds, &n, reterr)) < 0)
                return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0 ? -ESRCH : r; /* it exited */
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
                return -ESRCH; /* gone while we read it */
        rlim_t want = (rlim_t)nofile_soft_for(fds, n, limit);
        e.set.rlim_cur = MIN(e.old.rlim_cur, want);
        e.set.rlim_max = hard_too ? MIN(e.old.rlim_max, want) : e.old.rlim_max;
        *ret = e;
        return 0;
}

/* Sets lim on the process e names; a gone (or reused) pid is left alone. */
static int set_one(const struct nofile_entry *e, const struct rlimit *lim, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF;
        if (proc_pidfd_open(&e->id, &pidfd, NULL) < 0)
                return 0;
        int r = proc_nofile_set(e->id.pid, lim, reterr);
        return r == -ESRCH ? 0 : r;
}

static int plan_all(
        const struct fault_exec *fx, struct nofile_entry **ret, size_t *ret_n, struct mh_error *reterr) {
        _cleanup_free_ pid_t *pids = calloc(RLIMIT_PIDS_MAX, sizeof(pid_t));
        _cleanup_free_ struct nofile_entry *e = calloc(RLIMIT_PIDS_MAX, sizeof(*e));
        size_t n = 0, m = 0;
        bool hard_too = nofile_can_raise_hard();
        int r;
        if (!pids || !e)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        if ((r = rlimit_target_pids(&fx->target, pids, &n, reterr)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = plan_one(pids[i], (uint64_t)fault_param(fx, "limit")->i, hard_too, &e[m], reterr);
                if (r == -ESRCH)
                        continue; /* exited meanwhile: nothing to lower */
                if (r < 0)
                        return r;
                m++;
        }
        if (m == 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "no process of %s is left", target_name(fx));
        *ret = TAKE_PTR(e);
        *ret_n = m;
        return 0;
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        _cleanup_free_ struct nofile_entry *e = NULL;
        uint64_t since = rlimit_ticks_now();
        size_t n = 0;
        int r;
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "%s has no running main process",
                        target_name(fx));
        if ((r = plan_all(fx, &e, &n, reterr)) < 0 ||
            (r = rlimit_record_put(fx->restore, e, n, since, reterr)) < 0 ||
            (r = fault_record(fx, reterr)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((r = set_one(&e[i], &e[i].set, reterr)) < 0) {
                        for (size_t k = 0; k < i; k++)
                                (void)set_one(&e[k], &e[k].old, NULL);
                        mh_error_prefix(reterr, "%s: ", target_name(fx));
                        return r;
                }
        return 0;
}

static bool recorded_at(const struct nofile_entry *e, size_t n, const struct proc_identity *id) {
        for (size_t i = 0; i < n; i++)
                if (e[i].id.pid == id->pid && e[i].id.start_time == id->start_time)
                        return true;
        return false;
}

/* The entry whose old limits a process forked during the fault is given (the
 * rule at the top), or NULL. */
static const struct nofile_entry *inherited_from(
        const struct fault_exec *fx, const struct nofile_entry *e, size_t n, pid_t pid,
        const struct rlimit *now) {
        _cleanup_free_ struct proc_identity *ids = calloc(MAX(n, (size_t)1), sizeof(*ids));
        size_t k;
        if (!ids)
                return NULL;
        for (size_t i = 0; i < n; i++)
                ids[i] = e[i].id;
        if (rlimit_ancestor_of(pid, ids, n, &k))
                return same(now, &e[k].set) ? &e[k] : NULL;
        for (size_t i = 0; !target_is_host_process(&fx->target) && i < n; i++)
                if (same(now, &e[i].set))
                        return &e[i];
        return NULL;
}

/* Each process forked since the fault that still has inherited limits: put
 * back (fix) or counted in *ret_left. */
static int children_pass(
        const struct fault_exec *fx, const struct nofile_entry *e, size_t n, uint64_t since, bool fix,
        size_t *ret_left, struct mh_error *reterr) {
        _cleanup_free_ pid_t *pids = calloc(RLIMIT_CANDIDATES_MAX, sizeof(pid_t));
        size_t m = 0, left = 0;
        int r;
        if (!pids)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        *ret_left = 0;
        if (fx->target.main.pid <= 0 || rlimit_candidate_pids(&fx->target, pids, &m, NULL) < 0)
                return 0; /* the target is gone, and its processes with it */
        for (size_t i = 0; i < m; i++) {
                struct nofile_entry child = { 0 };
                const struct nofile_entry *from;
                if (live_identity(pids[i], &child.id) < 0 || child.id.start_time < since ||
                    recorded_at(e, n, &child.id) || proc_nofile_get(pids[i], &child.set, NULL) < 0 ||
                    !(from = inherited_from(fx, e, n, pids[i], &child.set)))
                        continue;
                if (!fix)
                        left++;
                else if ((r = set_one(&child, &from->old, reterr)) < 0)
                        return r;
        }
        *ret_left = left;
        return 0;
}

static int undo_restore(const struct fault_exec *fx, struct mh_error *reterr) {
        _cleanup_free_ struct nofile_entry *e = NULL;
        uint64_t since = 0;
        size_t n = 0, left = 0;
        int r = rlimit_record_get(fx->restore, &e, &n, &since, reterr);
        if (r < 0 || n == 0)
                return r; /* nothing recorded: nothing was changed */
        for (size_t i = 0; i < n; i++)
                if ((r = set_one(&e[i], &e[i].old, reterr)) < 0)
                        return r;
        return children_pass(fx, e, n, since, true, &left, reterr);
}

static void lim_text(char *buf, size_t size, const struct rlimit *l) {
        char s[24] = "unlimited", h[24] = "unlimited";
        if (l->rlim_cur != RLIM_INFINITY)
                snprintf(s, sizeof(s), "%" PRIu64, (uint64_t)l->rlim_cur);
        if (l->rlim_max != RLIM_INFINITY)
                snprintf(h, sizeof(h), "%" PRIu64, (uint64_t)l->rlim_max);
        snprintf(buf, size, "%s/%s", s, h);
}

/* Recorded processes still running whose limits are not the old ones. */
static size_t not_back(const struct nofile_entry *e, size_t n, char *detail, size_t size) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int pidfd = -EBADF;
                struct rlimit now;
                char a[64], b[64];
                if (proc_pidfd_open(&e[i].id, &pidfd, NULL) < 0 ||
                    proc_nofile_get(e[i].id.pid, &now, NULL) < 0 || same(&now, &e[i].old))
                        continue;
                lim_text(a, sizeof(a), &now);
                lim_text(b, sizeof(b), &e[i].old);
                if (bad++ == 0)
                        snprintf(
                                detail, size, "process %d has RLIMIT_NOFILE %s, not %s as before",
                                (int)e[i].id.pid, a, b);
        }
        return bad;
}

static int look_restored(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        _cleanup_free_ struct nofile_entry *e = NULL;
        struct mh_error err = { 0 };
        uint64_t since = 0;
        size_t n = 0, left = 0;
        *ret = false;
        if (rlimit_record_get(fx->restore, &e, &n, &since, &err) < 0) {
                snprintf(detail, size, "%s", err.msg);
                return -EINVAL;
        }
        size_t bad = not_back(e, n, detail, size);
        if (children_pass(fx, e, n, since, false, &left, &err) < 0) {
                snprintf(detail, size, "%s", err.msg);
                return -ENOMEM;
        }
        *ret = bad == 0 && left == 0;
        if (*ret)
                snprintf(
                        detail, size,
                        "every one of the %zu processes recorded has its RLIMIT_NOFILE of before, or is "
                        "gone",
                        n);
        else if (bad == 0)
                snprintf(
                        detail, size, "%zu processes forked during the fault keep the lowered RLIMIT_NOFILE",
                        left);
        return 0;
}

/* In force: the main process has the lowered limits, and no more than limit
 * free descriptor numbers below its soft limit (its /proc/PID/fd counted). */
static int look_lowered(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        _cleanup_free_ struct nofile_entry *e = NULL;
        _cleanup_free_ int *fds = NULL;
        struct mh_error err = { 0 };
        struct rlimit now;
        uint64_t since = 0;
        size_t n = 0, nfds = 0;
        char a[64];
        *ret = false;
        if (rlimit_record_get(fx->restore, &e, &n, &since, &err) < 0 ||
            !recorded_at(e, n, &fx->target.main)) {
                snprintf(
                        detail, size, "%s",
                        err.msg[0] ? err.msg : "the main process's limits were not recorded");
                return 0;
        }
        pid_t pid = fx->target.main.pid;
        if (proc_state(&fx->target.main, NULL, NULL) < 0 || proc_nofile_get(pid, &now, &err) < 0 ||
            proc_fd_list(pid, &fds, &nfds, &err) < 0) {
                snprintf(detail, size, "%s", err.msg[0] ? err.msg : "the main process is gone");
                return 0;
        }
        uint64_t free_below = nofile_headroom(fds, nfds, now.rlim_cur);
        *ret = free_below <= (uint64_t)fault_param(fx, "limit")->i;
        lim_text(a, sizeof(a), &now);
        snprintf(
                detail, size,
                "process %d: RLIMIT_NOFILE %s, %zu descriptors open, %" PRIu64 " more can be opened",
                (int)pid, a, nfds, free_below);
        return 0;
}

const struct fault_mechanism fault_rlimit_nofile = {
        .name = "rlimit.nofile",
        .records = true,
        .apply = apply,
        .undo = { { "rlimit.restore_nofile", undo_restore } },
        .verify = { { "rlimit.nofile_restored", look_restored } },
        .effect = { { "rlimit.nofile_lowered", look_lowered } },
};
