#include "fault-internal.h"

#include <signal.h>
#include <stdio.h>

/* Signals the target's main process from the host through a pidfd taken
 * with a start-time check (src/sys/process.c): a recycled pid is never hit.
 * proc.pause stops it (undo: SIGCONT); process.stop and process.kill end it,
 * and its engine (or, for a host process, its supervisor) starts it again. */

static int signal_main(const struct fault_exec *fx, int sig, struct mh_error *reterr) {
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "'%s' has no running main process",
                        fx->target.container_name);
        return proc_signal(&fx->target.main, sig, reterr);
}

static int apply_stop(struct fault_exec *fx, struct mh_error *reterr) {
        return signal_main(fx, SIGSTOP, reterr);
}

static int apply_term(struct fault_exec *fx, struct mh_error *reterr) {
        return signal_main(fx, SIGTERM, reterr);
}

static int apply_kill(struct fault_exec *fx, struct mh_error *reterr) {
        return signal_main(fx, SIGKILL, reterr);
}

/* Nothing left to continue when the process is gone. */
static int undo_cont(const struct fault_exec *fx, struct mh_error *reterr) {
        if (fx->target.main.pid <= 0)
                return 0;
        int r = proc_signal(&fx->target.main, SIGCONT, reterr);
        return r == -ESRCH ? 0 : r;
}

/* A host process comes back through its supervisor: nothing of ours to undo. */
static int undo_none(const struct fault_exec *fx, struct mh_error *reterr) {
        return 0;
}

/* 'T' (stopped), '-' when the process is gone, else its state letter. */
static char state_of(const struct fault_exec *fx) {
        char state = '-';
        if (fx->target.main.pid <= 0 || proc_state(&fx->target.main, &state, NULL) < 0)
                return '-';
        return state;
}

static bool stopped(char state) {
        return state == 'T' || state == 't';
}

static void describe(const struct fault_exec *fx, char state, char *detail, size_t size) {
        snprintf(
                detail, size, "process %d %s", (int)fx->target.main.pid,
                state == '-'     ? "is gone"
                : stopped(state) ? "is stopped"
                                 : "is running");
}

static int look_stopped(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        char state = state_of(fx);
        *ret = stopped(state);
        describe(fx, state, detail, size);
        return 0;
}

static int look_not_stopped(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        char state = state_of(fx);
        *ret = !stopped(state);
        describe(fx, state, detail, size);
        return 0;
}

int fault_process_gone(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        char state = state_of(fx);
        *ret = state == '-';
        describe(fx, state, detail, size);
        return 0;
}

/* A host process by the name it had: one of that name runs (again), where
 * it ran (on the host, or in a container when the drill let it match one). */
static int look_running(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct proc_identity now;
        struct mh_error why = { 0 };
        enum proc_scope scope = fx->target.contained ? PROC_SCOPE_ANY : PROC_SCOPE_HOST;
        *ret = proc_find_by_name(fx->target.container_name, scope, &now, &why) >= 0 || why.code == -ENOTUNIQ;
        snprintf(detail, size, "%.200s", *ret ? "a process of that name runs" : why.msg);
        return 0;
}

const struct fault_mechanism fault_signal_stop = {
        .name = "signal.stop",
        .apply = apply_stop,
        .undo = { { "signal.cont", undo_cont } },
        .verify = { { "process.not_stopped", look_not_stopped } },
        .effect = { { "process.stopped", look_stopped } },
};

#define ENDED_UNDO                                                                                          \
        {                                                                                                   \
                { "engine.start", fault_engine_start }, {                                                   \
                        "none", undo_none                                                                   \
                }                                                                                           \
        }
#define ENDED_VERIFY                                                                                        \
        {                                                                                                   \
                { "container.running", fault_container_running }, {                                         \
                        "process.running", look_running                                                     \
                }                                                                                           \
        }

const struct fault_mechanism fault_signal_term = {
        .name = "signal.term",
        .apply = apply_term,
        .undo = ENDED_UNDO,
        .verify = ENDED_VERIFY,
        .effect = { { "process.gone", fault_process_gone } },
};

const struct fault_mechanism fault_signal_kill = {
        .name = "signal.kill",
        .apply = apply_kill,
        .undo = ENDED_UNDO,
        .verify = ENDED_VERIFY,
        .effect = { { "process.gone", fault_process_gone } },
};
