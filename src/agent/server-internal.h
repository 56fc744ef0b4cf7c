#pragma once

#include <pthread.h>

#include "agent.h"
#include "basic/clock.h"
#include "fault/fault.h"

#define AGENT_HELD_MAX     256
#define AGENT_TASKS_KEPT   64
#define AGENT_INFLIGHT_MAX 32
#define AGENT_VERIFY_MS    10000
#define AGENT_RELEASE_MS   20000 /* how long the agent waits for its undos before it exits */
#define AGENT_LEASE_ID_MAX 32
/* How long an agent that outlives its run holds the faults kept in force
 * (recovery: false) that need a live process, before it undoes them itself. */
#define AGENT_KEEP_MAX_S (24 * 3600)

/* A lease as the agent holds it: the fault, its target (resolved), its
 * typed params and network context as the lease gave them, and what apply
 * recorded to restore. Everything else (undo ops, verify probes, the effect
 * check) the agent derives from the catalog. */
struct agent_lease {
        char id[AGENT_LEASE_ID_MAX];
        const struct fault_def *def;
        unsigned ttl_seconds;
        int64_t duration_ms;
        struct target_identity target;
        json_t *params;  /* owned; the bound params point into it */
        json_t *net;     /* owned, or NULL */
        json_t *restore; /* owned, never NULL: what apply recorded, or the journal's (recovery) */
        bool settled;    /* the agent's record says it was put back and verified already */
};

/* From task.execute's "lease": -EINVAL with a one-line message naming the
 * bad field. Ops the request lists (undo, verify, effect) are compared with
 * what the catalog says the fault uses, never obeyed: a difference is refused. */
int agent_lease_from_json(const json_t *j, struct agent_lease *ret, char *msg, size_t size);
void agent_lease_done(struct agent_lease *l);
/* The catalog's compensation of the lease's fault on its kind of target. */
const struct fault_comp *agent_lease_comp(const struct agent_lease *l);

struct held_lease {
        bool used;
        bool kept; /* lease.keep: no TTL, not undone when stdin closes (agent-keep.c) */
        struct agent_lease lease;
        double expires_ms;
        char task_id[16];
};

struct task_record {
        char id[16];
        char lease_id[AGENT_LEASE_ID_MAX];
        char state[16]; /* done, failed, compensated */
        char detail[256];
};

struct worker;

struct agent_state {
        const struct agent_options *opt;
        struct fault_lives *lives;
        pthread_mutex_t lock; /* everything below */
        pthread_cond_t idle;
        struct held_lease held[AGENT_HELD_MAX];
        struct task_record tasks[AGENT_TASKS_KEPT], compensated[AGENT_TASKS_KEPT];
        size_t n_tasks, n_compensated; /* total ever; the arrays are rings */
        unsigned next_task;
        int inflight;
        size_t compensating; /* agent-compensate.c threads still running */
        /* the threads of slow methods (server.c) */
        struct worker *workers[AGENT_INFLIGHT_MAX], *idle_workers[AGENT_INFLIGHT_MAX];
        size_t n_workers, n_idle_workers;
        bool stopping;
        struct engine *engines[_ENGINE_KIND_MAX]; /* opened on first use */
        pthread_mutex_t out_lock;                 /* one frame at a time on stdout */
};

void agent_log(struct agent_state *s, const char *fmt, ...) _printf_(2, 3);
void agent_send(struct agent_state *s, char *line /* freed */);

/* agent-methods.c: a handler fills *ret (result) or returns an rpc_code with msg. */
typedef int (*agent_method)(
        struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
agent_method agent_method_find(const char *name, bool *ret_slow);

/* agent-target.c: the engine of a kind, through the agent's own socket for
 * it; NULL with msg when it cannot be reached. */
struct engine *agent_engine(struct agent_state *s, enum engine_kind kind, char *msg, size_t size);
int agent_target_resolve(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
/* The target a request names ({"engine", "container"} or a host process),
 * resolved as target.resolve does: 0 or an rpc_code with msg. */
int agent_target_of(
        struct agent_state *s, const json_t *target, struct target_identity *ret, char *msg, size_t size);
/* agent-probe.c: probe.run, a read-only http / tcp probe from the target's side. */
int agent_probe_run(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
/* Plain host processes need the host role (catalog.h, ROLES_HOST_TARGET):
 * 0, or RPC_SAFETY_REFUSED with msg ("not authorized to WHAT a host process"). */
int agent_host_allowed(struct agent_state *s, const char *what, char *msg, size_t size);
/* pid is not a process the agent never touches (basic/proc-guard.h: init, a
 * kernel thread, the agent itself, its ancestors, the controller among
 * them, its children): 0, or RPC_TARGET_FORBIDDEN with msg. */
int agent_host_guard(pid_t pid, char *msg, size_t size);
/* The lease's target as the agent reads it now, into *t: for an inject it
 * must be the one the controller journalled (else RPC_TARGET_CHANGED, or
 * RPC_TARGET_MISSING when it is gone); for a later phase of a lease the agent
 * does not hold (recovery) the main process becomes the container's now (pid
 * 0 when it has none), never a pid the request names. 0 or an rpc_code with msg. */
int agent_target_check(
        struct agent_state *s, struct engine *e, bool inject, struct target_identity *t, char *msg,
        size_t size);

/* agent-exec.c */
int agent_task_execute(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
/* Undoes and verifies one lease (watchdog, dead-man's switch); logs the outcome. */
void agent_compensate(struct agent_state *s, struct agent_lease *l, const char *why);
void agent_record_task(
        struct agent_state *s, struct task_record *ring, size_t *n, const struct task_record *t);
/* agent-compensate.c: agent_compensate() of l (taken) on a thread of its own. */
void agent_compensate_start(struct agent_state *s, struct agent_lease *l, const char *why);
/* Waits for every compensation started until deadline_ms (monotonic); how many still run. */
size_t agent_compensations_wait(struct agent_state *s, double deadline_ms);
/* With s->lock held: waits on s->idle (a CLOCK_MONOTONIC condition) until deadline_ms or a wake-up. */
void agent_wait_until_locked(struct agent_state *s, double deadline_ms);
/* lease.forget of a held lease: the fault stays on purpose, its record goes. */
void agent_forget_record(struct agent_state *s, const char *lease_id);

/* agent-keep.c: lease.keep (recovery: false). A held lease whose fault
 * needs the agent alive (its live record: nft owner tables, the shaper, a
 * guardian) stays held as kept; any other is let go, its effect held by the
 * kernel or the engine. Either way the agent's record says kept. */
int agent_lease_keep(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
/* How many held leases are kept. */
size_t agent_kept_count(struct agent_state *s);
/* After stdin closed with kept leases held: the agent outlives its run as
 * their keeper, its stdout and stderr on /dev/null, until SIGTERM or SIGINT
 * on sfd or AGENT_KEEP_MAX_S; returns why it stops, for release_all(). */
const char *agent_keeper_hold(struct agent_state *s, int sfd);
/* Before a fresh agent undoes a lease it does not hold: the keeper its
 * record names (pid and start time) is stopped (SIGTERM through a pidfd,
 * waited for), so it undoes its own faults. 0, or RPC_TASK_FAILED with msg
 * when it does not exit. */
int agent_keeper_stop(struct agent_state *s, const char *lease_id, char *msg, size_t size);
