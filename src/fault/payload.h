#pragma once

/* Payloads: a fault's own code (its mechanism's .payload body) run as a
 * process in the target's cgroups and pid namespace, never a tool copied
 * into the target. The agent runs itself as
 *
 *     mayhem-agent payload --fault ID --lease ID --pid PID --start TICKS
 *                          --parent AGENT_PID --params JSON
 *
 * with a pipe on stdin (it never writes; the payload stops when it reads
 * anything or EOF: the agent said stop, or died) and one on stdout (lines
 * "ready DETAIL", "progress DETAIL", "error MESSAGE"). The process sets
 * PR_SET_PDEATHSIG(SIGKILL), joins every cgroup hierarchy of the target
 * (so its CPU, memory and pids are charged to the target's limits), enters
 * the target's pid namespace and the mechanism's payload_ns, and forks the
 * body, which carries PR_SET_PDEATHSIG too, oom_score_adj 1000 and only the
 * mechanism's payload_caps. Whatever the body holds (threads, memory,
 * unlinked files) the kernel frees when it dies: the agent killed with
 * SIGKILL leaves nothing of it behind. */

#include <stdbool.h>
#include <stddef.h>

#include "fault/fault.h"

/* ---- in the payload process ---------------------------------------------- */

struct payload_ctx {
        const struct fault_exec *fx; /* the lease's fault, typed params and target */
        int in, out;                 /* the pipes from and to the agent */
        bool ready_sent;
};

/* Says the fault is in force ("ready DETAIL"); once, before the agent's
 * start call times out (PAYLOAD_READY_MS). */
_printf_(2, 3) void payload_ready(struct payload_ctx *c, const char *fmt, ...);
/* A progress line; dropped when the agent has not read the last ones. */
_printf_(2, 3) void payload_progress(struct payload_ctx *c, const char *fmt, ...);
/* Waits up to ms (0: just looks); true once the agent said stop or is gone:
 * the body then frees what it holds and returns 0. */
bool payload_stopped(struct payload_ctx *c, int ms);

/* The payload process's main: argv as after "payload". 0 when the body ran
 * and stopped on request; < 0 with reterr otherwise (also sent to the agent
 * as "error MESSAGE"). */
int fault_payload_run(int argc, char **argv, struct mh_error *reterr);

/* ---- in the agent ----------------------------------------------------------- */

#define PAYLOAD_READY_MS 15000
#define PAYLOAD_LINE_MAX 512

struct payload;

/* Starts fx's mechanism payload and waits for its "ready" line (its detail
 * in ready, may be NULL). -ETIMEDOUT, or the payload's own error, when it is
 * not ready in time: the payload is stopped then. */
int payload_start(
        const struct fault_exec *fx, struct payload **ret, char *ready, size_t size,
        struct mh_error *reterr);
/* The newest "progress" detail (or the ready one when none came since);
 * false when the payload has exited. */
bool payload_last(struct payload *p, char *buf, size_t size);
/* Tells the payload to stop, waits up to a second for it to go, then
 * SIGKILLs it; reaps it. NULL-safe; returns NULL. */
struct payload *payload_stop(struct payload *p);

/* The pids of the target's cgroup that are payloads of lease_id (their
 * argv says so), at most max; for the undo and verify of a lease whose
 * payload the agent no longer holds. */
int payload_pids_of_lease(
        const struct target_identity *t, const char *lease_id, pid_t *ret, size_t max, size_t *ret_n,
        struct mh_error *reterr);

/* The ops every payload mechanism lists in its vtable (catalog C_PAYLOAD):
 * apply starts the body and holds it in fx->lives; "payload.kill" stops it,
 * and SIGKILLs any payload of the lease left in the target's cgroup;
 * "payload.gone" looks for one; "payload.running" says whether the held
 * one still runs (mechanisms give a measured effect instead where they
 * can). */
int fault_payload_apply(struct fault_exec *fx, struct mh_error *reterr);
int fault_payload_kill(const struct fault_exec *fx, struct mh_error *reterr);
int fault_payload_gone(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
int fault_payload_running(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
void fault_payload_release(void *live);

/* The undo, verify and release every payload mechanism shares, for its
 * vtable: `.apply = fault_payload_apply, PAYLOAD_UNDO_VERIFY, .effect = ...`. */
#define PAYLOAD_UNDO_VERIFY                                                                                 \
        .undo = { { "payload.kill", fault_payload_kill } },                                                 \
        .verify = { { "payload.gone", fault_payload_gone } }, .release = fault_payload_release
