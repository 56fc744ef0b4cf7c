#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/clock.h"
#include "fault/live.h"
#include "fault/payload.h"
#include "sys/cgroup-pids.h"

/* process.thread_exhaust (payload.threads) and process.child_exhaust
 * (payload.children): the payload, charged to the target's pids cgroup,
 * holds threads or forked children until a clone fails with EAGAIN (the
 * group's pids.max reached) or the param's count is held, so the target's
 * own next fork or pthread_create fails with EAGAIN. Each holder blocks on
 * a pipe the body keeps the write end of: closing it lets every holder go,
 * and the kernel does the same when the body dies. Children also carry
 * PR_SET_PDEATHSIG(SIGKILL), and keep the payload's argv, so payload.kill
 * finds any left in the cgroup. The body tops the headroom up every
 * REFILL_MS, so pids the target frees meanwhile are taken back (a child
 * killed by someone else stays a zombie of the payload process until it
 * ends, its pid still charged: nothing to top up). */

#define HOLD_STACK (32 * 1024) /* a holder only blocks in read(2) */
#define REFILL_MS  50
/* The payload process and its body take two pids of the group themselves. */
#define PAYLOAD_OWN_PIDS 2

enum hold_kind {
        HOLD_THREADS,
        HOLD_CHILDREN
};

struct holder {
        enum hold_kind kind;
        struct payload_ctx *c;
        int64_t want, held;
        int gate[2];    /* holders read gate[0]; closing gate[1] releases them */
        int last_errno; /* of the clone that stopped the fill: EAGAIN is pids.max */
        pthread_attr_t attr;
};

static const char *kind_name(enum hold_kind k) {
        return k == HOLD_THREADS ? "threads" : "children";
}

static void block_on(int fd) {
        char b;
        while (read(fd, &b, 1) < 0 && errno == EINTR)
                ;
}

static void *hold_thread(void *arg) {
        block_on((int)(intptr_t)arg);
        return NULL;
}

static int start_thread(struct holder *h) {
        pthread_t t;
        return -pthread_create(&t, &h->attr, hold_thread, (void *)(intptr_t)h->gate[0]);
}

/* CLONE_PARENT: the child is the payload process's, not the body's, though
 * in the target's pid namespace like the body. Orphans are adopted by the
 * reaper of their dead parent's namespace: children of the body would go
 * to the target's pid 1, which may never reap them (a shell, an app that
 * is no init), and their zombies would hold the pids after the fault.
 * The payload process reaps them when the body ends; when it is killed
 * too (the agent died), the host's init does. */
static int start_child(struct holder *h) {
        pid_t pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                /* The payload process died before prctl: the body, killed
                 * with it, has closed the gate, so read returns 0 at once. */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(h->gate[1]);
                close(h->c->in);
                close(h->c->out);
                block_on(h->gate[0]);
                _exit(0);
        }
        return 0;
}

/* Holds more until want or the first failed clone. */
static void fill(struct holder *h) {
        while (h->held < h->want) {
                int r = h->kind == HOLD_THREADS ? start_thread(h) : start_child(h);
                if (r < 0) {
                        h->last_errno = -r;
                        return;
                }
                h->held++;
        }
}

static void pids_text(const struct payload_ctx *c, char *buf, size_t size) {
        struct mh_error e = { 0 };
        struct cgroup_pids p;
        if (cgroup_pids_read(&c->fx->target.main, &p, &e) < 0)
                snprintf(buf, size, "pids unread: %.200s", e.msg);
        else
                snprintf(
                        buf, size, "pids.current %lld of pids.max %lld", (long long)p.current,
                        (long long)p.max);
}

static void say(struct holder *h, bool ready) {
        char pids[PAYLOAD_LINE_MAX];
        const char *why = h->held >= h->want        ? "the count asked for"
                          : h->last_errno == EAGAIN ? "clone failed with EAGAIN"
                                                    : strerror(h->last_errno);
        pids_text(h->c, pids, sizeof(pids));
        if (ready)
                payload_ready(
                        h->c, "%lld %s held (stopped by: %s); %s", (long long)h->held, kind_name(h->kind),
                        why, pids);
        else
                payload_progress(h->c, "%lld %s held; %s", (long long)h->held, kind_name(h->kind), pids);
}

static int hold(struct holder *h, struct mh_error *reterr) {
        fill(h);
        if (h->held == 0)
                return mh_error_fail(
                        reterr, -h->last_errno, "pids", "no %s could be created: %s", kind_name(h->kind),
                        strerror(h->last_errno));
        say(h, true);
        for (int64_t last = h->held; !payload_stopped(h->c, REFILL_MS); last = h->held) {
                fill(h);
                if (h->held != last)
                        say(h, false);
        }
        return 0;
}

static int body(struct payload_ctx *c, enum hold_kind kind, struct mh_error *reterr) {
        struct holder h = { .kind = kind, .c = c, .want = fault_param(c->fx, kind_name(kind))->i };
        if (pipe2(h.gate, O_CLOEXEC) < 0)
                return mh_error_fail(reterr, -errno, "pids", "pipe: %s", strerror(errno));
        pthread_attr_init(&h.attr);
        pthread_attr_setdetachstate(&h.attr, PTHREAD_CREATE_DETACHED);
        /* No guard page: one mapping per stack, so vm.max_map_count does
         * not stop the fill before pids.max. */
        pthread_attr_setguardsize(&h.attr, 0);
        pthread_attr_setstacksize(&h.attr, HOLD_STACK);
        int r = hold(&h, reterr);
        close(h.gate[1]); /* every holder's read returns 0 */
        close(h.gate[0]);
        pthread_attr_destroy(&h.attr);
        return r;
}

static int threads_body(struct payload_ctx *c, struct mh_error *reterr) {
        return body(c, HOLD_THREADS, reterr);
}

static int children_body(struct payload_ctx *c, struct mh_error *reterr) {
        return body(c, HOLD_CHILDREN, reterr);
}

/* Refused before anything starts when there is no limit to fill, or no room
 * for the payload itself. */
static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        struct cgroup_pids p;
        int r = cgroup_pids_read(&fx->target.main, &p, reterr);
        if (r < 0)
                return r;
        if (p.max == CGROUP_PIDS_UNLIMITED)
                return mh_error_fail(
                        reterr, -EOPNOTSUPP, "no_pids_limit",
                        "%s: the target has no pids limit (its cgroup's pids.max is max); exhausting the "
                        "host's pid space is refused",
                        fx->def->id);
        if (p.max - p.current <= PAYLOAD_OWN_PIDS)
                return mh_error_fail(
                        reterr, -EAGAIN, "pids",
                        "%s: pids.current %lld of pids.max %lld leaves no room for the payload's own %d "
                        "pids",
                        fx->def->id, (long long)p.current, (long long)p.max, PAYLOAD_OWN_PIDS);
        return fault_payload_apply(fx, reterr);
}

static void last_line(void *live, void *arg) {
        if (!payload_last(live, arg, PAYLOAD_LINE_MAX))
                snprintf(arg, PAYLOAD_LINE_MAX, "exited");
}

/* Measured: the group's pids.current has reached its pids.max, so the
 * kernel refuses the target's next clone. A pid the target freed a moment
 * ago is taken back at the body's next refill: read again for up to
 * EFFECT_READS refills before saying the group is not full. */
#define EFFECT_READS 4
static int exhausted(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        struct cgroup_pids p;
        char line[PAYLOAD_LINE_MAX] = "not held by this agent";
        *ret = false;
        for (int i = 0; i < EFFECT_READS && !*ret; i++) {
                if (i)
                        sleep_ms(REFILL_MS);
                if (cgroup_pids_read(&fx->target.main, &p, &e) < 0) {
                        snprintf(detail, size, "%s", e.msg);
                        return e.code;
                }
                *ret = p.max != CGROUP_PIDS_UNLIMITED && p.current >= p.max;
        }
        fault_live_with(fx->lives, fx->lease_id, last_line, line);
        if (*ret)
                snprintf(
                        detail, size,
                        "pids.current %lld of pids.max %lld: the target's next fork or pthread_create "
                        "fails with EAGAIN (payload: %s)",
                        (long long)p.current, (long long)p.max, line);
        else
                snprintf(
                        detail, size, "pids.current %lld of pids.max %lld: %lld left (payload: %s)",
                        (long long)p.current, (long long)p.max, (long long)(p.max - p.current), line);
        return 0;
}

const struct fault_mechanism fault_payload_threads = {
        .name = "payload.threads",
        .apply = apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "pids.exhausted", exhausted } },
        .payload = threads_body,
};

const struct fault_mechanism fault_payload_children = {
        .name = "payload.children",
        .apply = apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "pids.exhausted", exhausted } },
        .payload = children_body,
};
