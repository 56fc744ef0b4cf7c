#pragma once

#include <pthread.h>

#include "agent.h"
#include "basic/clock.h"

#define AGENT_HELD_MAX     256
#define AGENT_TASKS_KEPT   64
#define AGENT_INFLIGHT_MAX 32
#define AGENT_ENGINES_MAX  8
#define AGENT_VERIFY_MS    10000

struct held_lease {
        bool used;
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

struct engine_slot {
        char socket[256];
        struct engine *engine;
};

struct worker;

struct agent_state {
        const struct agent_options *opt;
        pthread_mutex_t lock; /* everything below */
        pthread_cond_t idle;
        struct held_lease held[AGENT_HELD_MAX];
        struct task_record tasks[AGENT_TASKS_KEPT], compensated[AGENT_TASKS_KEPT];
        size_t n_tasks, n_compensated; /* total ever; the arrays are rings */
        unsigned next_task;
        int inflight;
        /* the threads of slow methods (server.c) */
        struct worker *workers[AGENT_INFLIGHT_MAX], *idle_workers[AGENT_INFLIGHT_MAX];
        size_t n_workers, n_idle_workers;
        bool stopping;
        struct engine_slot engines[AGENT_ENGINES_MAX];
        size_t n_engines;
        pthread_mutex_t out_lock; /* one frame at a time on stdout */
};

void agent_log(struct agent_state *s, const char *fmt, ...) _printf_(2, 3);
void agent_send(struct agent_state *s, char *line /* freed */);

/* agent-methods.c: a handler fills *ret (result) or returns an rpc_code with msg. */
typedef int (*agent_method)(
        struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
agent_method agent_method_find(const char *name, bool *ret_slow);

/* agent-exec.c */
int agent_task_execute(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size);
struct engine *agent_engine_for(
        struct agent_state *s, const struct target_identity *t, char *msg, size_t size);
/* Undoes and verifies one lease (watchdog, dead-man's switch); logs the outcome. */
void agent_compensate(struct agent_state *s, struct agent_lease *l, const char *why);
void agent_record_task(
        struct agent_state *s, struct task_record *ring, size_t *n, const struct task_record *t);
