#include "run-internal.h"
#include "run-resilience.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "basic/procfs.h"
#include "basic/string-table.h"

static const char *const run_status_table[_RUN_STATUS_MAX] = {
        [RUN_STATUS_COMPLETED] = "completed",
        [RUN_STATUS_FAILED] = "failed",
        [RUN_STATUS_ABORTED] = "aborted",
};

static const char *const verdict_table[_VERDICT_MAX] = {
        [VERDICT_PASS] = "pass",
        [VERDICT_FAIL] = "fail",
        [VERDICT_UNDECIDED] = "undecided",
};

const char *run_status_to_string(enum run_status s) {
        return s < _RUN_STATUS_MAX ? run_status_table[s] : NULL;
}

const char *verdict_to_string(enum verdict v) {
        return v < _VERDICT_MAX ? verdict_table[v] : NULL;
}

/* r-<drill name>-<6 random hex>: every run gets its own id, the plan keeps its fingerprint. */
static void make_run_id(const struct plan *pl, char *buf, size_t size) {
        uint8_t rnd[3] = { 0 };
        const char *prefix_end = strrchr(pl->run_id, '-');
        size_t prefix = prefix_end ? (size_t)(prefix_end - pl->run_id) : strlen(pl->run_id);
        if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
                rnd[0] = (uint8_t)getpid(); /* still unique enough with the time below */
        snprintf(buf, size, "%.*s-%02x%02x%02x", (int)prefix, pl->run_id, rnd[0], rnd[1], rnd[2]);
}

/* What the controller can check alone, before the agent starts: containers
 * that do not exist. (What this build cannot run, the plan refused already:
 * plan-support.c.) */
static int preflight(const struct plan *pl, const struct run_options *opt, struct mh_error *reterr) {
        int r;
        for (size_t i = 0; i < pl->n_targets; i++) {
                struct engine_container c;
                if (pl->targets[i].src->runtime == TARGET_RUNTIME_PROCESS)
                        continue; /* the agent resolves it, on its own host (agent_preflight) */
                if (!run_target_in_scope(opt, &pl->targets[i]))
                        continue; /* --ctr left it out: it need not exist */
                const char *name = pl->targets[i].container->name;
                r = engine_container_inspect(opt->engine, name, &c, reterr);
                if (r == -ENOENT)
                        return mh_error_set(
                                reterr, r, MH_EXIT_CONFIG_ERROR, "target_missing",
                                "container '%s' (service %s) does not exist in the engine; start the "
                                "stack first; nothing was touched",
                                name, pl->targets[i].service->name);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void agent_lost(void *userdata) {
        struct runner *r = userdata;
        runner_progress(
                r, "the agent died: stopping; its faults stay applied until `mayhem recover execute %s`",
                r->run_id);
        runner_abort(r, "the agent died");
}

/* No open lease of another run (or one this run's controller left) holds a
 * fault on this target that one of the plan's faults conflicts with. */
static int check_conflicts(
        struct runner *r, const struct plan_target *t, const json_t *identity, struct mh_error *reterr) {
        char *text = json_dumps(identity, JSON_COMPACT), *key = text ? lease_target_key(text) : NULL;
        int x = 0;
        for (size_t i = 0; key && i < r->plan->n_faults && x >= 0; i++)
                if (r->plan->faults[i].target == t)
                        x = lease_conflicts(r->opt->evidence, key, r->plan->faults[i].src->def->id, reterr);
        free(text);
        free(key);
        return x;
}

/* What the agent must confirm before the first lease: it can apply every
 * fault here, the network faults have a delivery on its kernel, and every
 * target exists (host processes on its host) and is held by no conflicting
 * lease. */
static int agent_preflight(struct runner *r, struct mh_error *reterr) {
        int x = runner_check_agent(r, reterr);
        for (size_t i = 0; i < r->plan->n_targets && x >= 0; i++) {
                json_t *identity = NULL;
                if (!run_target_in_scope(r->opt, &r->plan->targets[i]))
                        continue;
                if ((x = runner_resolve(r, &r->plan->targets[i], &identity, reterr)) >= 0)
                        x = check_conflicts(r, &r->plan->targets[i], identity, reterr);
                json_decref(identity);
        }
        return x;
}

/* A check of the plan runs from a plain host process (execution: process). */
static bool checks_from_process(const struct plan *pl) {
        for (size_t i = 0; i < pl->n_steps; i++)
                for (size_t j = 0; pl->steps[i].check_loci && j < pl->steps[i].src->n_checks; j++)
                        if (pl->steps[i].check_loci[j].process)
                                return true;
        return false;
}

/* One agent for the run, with the roles its faults need (and the host role
 * only when one of them, or a check, acts on a plain host process), reaching the engine
 * through the controller's socket when it runs here. */
static int start_agent(struct runner *r, struct mh_error *reterr) {
        const char *ids[DRILL_LIST_MAX];
        char roles[256], socket[300];
        size_t n = MIN(r->plan->n_faults, ELEMENTSOF(ids));
        struct agent_client_options o = { .ssh_target = r->opt->agent_ssh,
                                          .remote_agent = r->opt->agent_remote_path,
                                          .roles = roles,
                                          .run_id = r->run_id,
                                          .on_lost = agent_lost,
                                          .userdata = r };
        bool host = checks_from_process(r->plan);
        for (size_t i = 0; i < n; i++) {
                ids[i] = r->plan->faults[i].src->def->id;
                host = host || r->plan->faults[i].target->src->runtime == TARGET_RUNTIME_PROCESS;
        }
        agent_roles_for(ids, n, host, roles, sizeof(roles));
        if (r->opt->engine && !r->opt->agent_ssh) {
                snprintf(socket, sizeof(socket), "%s:%s", r->engine_kind, engine_socket(r->opt->engine));
                o.engine_socket = socket;
        }
        for (size_t i = 0; r->opt->agent_ssh_args && r->opt->agent_ssh_args[i] && i < AGENT_SSH_ARGS_MAX - 1;
             i++)
                o.ssh_args[i] = r->opt->agent_ssh_args[i];
        return agent_client_start(&o, &r->agent, reterr);
}

static int begin(struct runner *r, struct mh_error *reterr) {
        unsigned long long start = 0;
        struct proc_identity self; /* so a janitor can tell this controller has died */
        if (proc_identity_read(getpid(), &self, NULL) >= 0)
                start = self.start_time;
        struct evidence_run run = {
                .id = r->run_id,
                .name = r->plan->spec->name,
                .kind = r->opt->kind ? r->opt->kind : "drill",
                .spec_json = r->opt->spec_json,
                .plan_json = r->plan->canonical_json,
                .plan_fingerprint = r->plan->fingerprint,
                .engine = r->engine_kind ? r->engine_kind : "host",
                .controller_pid = (int)getpid(),
                .controller_start_time = start,
                .has_seed = r->opt->has_seed,
                .seed = r->opt->seed,
                .execution_intent = r->opt->execution_intent,
                .env_fingerprint = r->opt->env_fingerprint,
                .break_glass = r->opt->break_glass,
                .config_json = r->opt->config_json,
        };
        int x = evidence_run_begin(r->opt->evidence, &run, reterr);
        if (x >= 0 && r->opt->on_begin &&
            (x = r->opt->on_begin(r->opt->on_begin_userdata, r->opt->evidence, r->run_id, reterr)) < 0)
                (void)evidence_run_finish(
                        r->opt->evidence, r->run_id, "failed", NULL, NULL, reterr ? reterr->msg : NULL,
                        NULL);
        if (x < 0 && reterr) /* nothing is touched without a journal */
                reterr->exit = MH_EXIT_CONFIG_ERROR;
        return x;
}

static json_t *criteria_json(const struct run_result *res) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < res->n_criteria; i++) {
                const struct criterion_result *c = &res->criteria[i];
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:s, s:b, s:s, s:s, s:s, s:I}", "type",
                                   criterion_type_to_string(c->criterion->type), "source_id",
                                   c->criterion->source_id, "satisfied", c->satisfied, "detail", c->detail,
                                   "over", criterion_over_to_string(c->criterion->over), "window",
                                   criterion_window_to_string(c->criterion->window), "samples",
                                   (json_int_t)c->samples));
        }
        return a;
}

/* A write of the outcome itself failed: the run is not "completed". */
static void outcome_unrecorded(struct runner *r) {
        struct run_result *res = r->result;
        res->evidence_lost = true;
        if (res->status == RUN_STATUS_COMPLETED)
                res->status = RUN_STATUS_FAILED;
        run_outcome_settle(res);
        snprintf(res->reason, sizeof(res->reason), "%s", r->reason);
}

static void finish(struct runner *r) {
        struct run_result *res = r->result;
        const struct drill_observability *o = &r->plan->spec->observability;
        runner_resilience(r); /* first: a failed write of it fails the run like any other */
        res->status = r->interrupted ? RUN_STATUS_ABORTED
                      : r->failed    ? RUN_STATUS_FAILED
                                     : RUN_STATUS_COMPLETED;
        res->evidence_lost = r->evidence_lost;
        res->refused = r->refused;
        if ((res->leases_dirty || res->leases_orphaned || res->evidence_lost) &&
            res->status == RUN_STATUS_COMPLETED)
                res->status = RUN_STATUS_FAILED;
        snprintf(res->reason, sizeof(res->reason), "%s", r->reason);
        res->sources_total = o->n_sources;
        for (size_t i = 0; i < o->n_sources; i++) {
                /* a logs source's own observation says whether it was read; a
                 * failed probe or inspection is still a sample */
                const struct observation *ob = runner_latest(r, o->sources[i].source_id);
                res->sources_collected += ob && (o->sources[i].kind != OBS_LOGS || ob->value != 0);
        }
        runner_criteria(r);
        runner_slos(r);
        runner_steady_judge(r);
        if (runner_evidence_lost(r) && !res->evidence_lost) {
                /* their rows are evidence too: one that could not be written fails the run */
                res->evidence_lost = true;
                if (res->status == RUN_STATUS_COMPLETED)
                        res->status = RUN_STATUS_FAILED;
                snprintf(res->reason, sizeof(res->reason), "%s", r->reason);
        }
        run_outcome_settle(res);
        res->wall_s = (monotonic_ms() - r->t0_ms) / 1000;

        json_t *criteria = criteria_json(res);
        char *criteria_text = criteria ? json_dumps(criteria, JSON_COMPACT) : NULL;
        struct mh_error e = { 0 };
        if (runner_event(
                    r,
                    res->status == RUN_STATUS_COMPLETED ? EVENT_RUN_COMPLETED
                    : res->status == RUN_STATUS_ABORTED ? EVENT_RUN_ABORTED
                                                        : EVENT_RUN_FAILED,
                    json_pack(
                            "{s:s, s:s}", "verdict", verdict_to_string(res->verdict), "reason",
                            res->reason)) < 0) {
                outcome_unrecorded(r); /* the outcome written next says so */
        }
        char *summary = run_summary_markdown(r->plan, res);
        if (evidence_run_finish(
                    r->opt->evidence, r->run_id, run_status_to_string(res->status),
                    verdict_to_string(res->verdict), criteria_text, summary, &e) < 0) {
                runner_evidence_failed(r, "the run's outcome", &e);
                outcome_unrecorded(r);
        }
        free(summary);
        free(criteria_text);
        json_decref(criteria);
}

static void runner_done(struct runner *r) {
        free(r->delivery);
        if (r->bypass)
                for (size_t i = 0; i < r->plan->n_faults; i++)
                        free(r->bypass[i]);
        free(r->bypass);
        free(r->outcome);
        free(r->windows);
        free(r->ss_given_b);
        json_decref(r->kept);
        for (size_t i = 0; i < r->n_obs; i++)
                free(r->obs[i].source);
        free(r->obs);
        pthread_cond_destroy(&r->wake);
        pthread_mutex_destroy(&r->lock);
}

static void runner_init(
        struct runner *r, const struct plan *pl, const struct run_options *opt, struct run_result *res) {
        pthread_condattr_t attr;
        *r = (struct runner){ .plan = pl,
                              .opt = opt,
                              .result = res,
                              .engine_kind = opt->engine ? engine_kind_to_string(engine_kind_of(opt->engine))
                                                         : NULL };
        pthread_mutex_init(&r->lock, NULL);
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&r->wake, &attr);
        pthread_condattr_destroy(&attr);
        make_run_id(pl, r->run_id, sizeof(r->run_id));
        memcpy(res->run_id, r->run_id, sizeof(res->run_id));
        r->t0_ms = monotonic_ms();
        r->deadline_ms = r->t0_ms + (double)pl->spec->config.timeout_ms;
}

int run_execute(
        const struct plan *pl, const struct run_options *opt, struct run_result *ret,
        struct mh_error *reterr) {
        struct runner r;
        pthread_t signals, observer;
        sigset_t old_mask;
        int e;

        *ret = (struct run_result){ 0 };
        if ((e = preflight(pl, opt, reterr)) < 0)
                return e;
        runner_init(&r, pl, opt, ret);
        /* Signals are blocked before any thread exists (the agent client's
         * reader too), so SIGINT/SIGTERM can only reach the waiter thread. */
        bool have_signals = runner_signals_start(&r, &signals, &old_mask) >= 0;
        r.delivery = calloc(pl->n_faults ? pl->n_faults : 1, sizeof(*r.delivery));
        r.bypass = calloc(pl->n_faults ? pl->n_faults : 1, sizeof(*r.bypass));
        r.outcome = calloc(pl->n_faults ? pl->n_faults : 1, sizeof(*r.outcome));
        r.windows = calloc(pl->n_faults ? pl->n_faults : 1, sizeof(*r.windows));
        if (r.windows)
                fault_windows_init(r.windows, pl->n_faults);
        if (!r.delivery || !r.bypass || !r.outcome || !r.windows)
                e = mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        else if (
                (e = runner_steady_prepare(&r, reterr)) >= 0 && (e = start_agent(&r, reterr)) >= 0 &&
                (e = agent_preflight(&r, reterr)) >= 0)
                e = begin(&r, reterr);
        if (e < 0) {
                agent_client_stop(r.agent);
                if (have_signals)
                        runner_signals_stop(signals, &old_mask);
                runner_done(&r);
                return e;
        }
        runner_progress(&r, "run %s started (plan %.12s)", r.run_id, pl->fingerprint);
        runner_event(&r, EVENT_RUN_STARTED, json_pack("{s:s}", "fingerprint", pl->fingerprint));
        runner_record_delivery(&r);
        runner_steady_capture(&r, SS_PHASE_PRE);
        bool have_observer = runner_observer_start(&r, &observer) >= 0;
        runner_steps(&r);
        r.steps_end_ms = monotonic_ms();
        if (have_observer)
                runner_observer_stop(&r, observer);
        runner_steady_capture(&r, SS_PHASE_POST);
        runner_collect_logs(&r);
        runner_kept_recheck(&r);
        r.agent = agent_client_stop(r.agent); /* it holds nothing now but kept faults; closing lets it go */
        if (have_signals)
                runner_signals_stop(signals, &old_mask);
        finish(&r);
        runner_done(&r);
        return 0;
}

bool run_target_in_scope(const struct run_options *opt, const struct plan_target *t) {
        if (!opt->only_containers)
                return true;
        for (size_t i = 0; t->container && i < opt->n_only_containers; i++)
                if (strcmp(opt->only_containers[i], t->container->name) == 0)
                        return true;
        return false;
}

void run_result_done(struct run_result *r) {
        free(r->criteria);
        r->criteria = NULL;
        free(r->slos);
        r->slos = NULL;
        free(r->ss);
        r->ss = NULL;
        json_decref(r->resilience_json);
        r->resilience_json = NULL;
}
