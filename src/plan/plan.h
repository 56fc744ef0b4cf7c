#pragma once

/* The frozen plan: a drill resolved against a topology, every fault admitted
 * by the safety gates and carrying its compensation, serialised to canonical
 * JSON (sorted keys, no whitespace) whose sha256 is the fingerprint. The same
 * drill and topology give the same bytes.
 *
 * A plan points into the drill spec and the topology it was built from; they
 * must outlive it. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/arena.h"
#include "basic/error.h"
#include "basic/sha256.h"
#include "config/mayhem-config.h"
#include "drill/drill.h"
#include "topology/topology.h"

#define PLAN_FORMAT             "mayhem.plan/1"
#define PLAN_ID_MAX             16
#define PLAN_RUN_ID_MAX         (DRILL_NAME_MAX + 16)
#define PLAN_LEASE_TTL_MIN_S    120
#define PLAN_LEASE_TTL_MARGIN_S 60

struct plan_target {
        const struct drill_target *src;
        const struct topo_container *container; /* docker targets; NULL for a host process */
        const struct topo_service *service;
        const char *label;   /* the container name, or "pid 123" / the process name */
        unsigned node_kinds; /* NK_* bits this target counts as */
};

struct plan_fault {
        char id[PLAN_ID_MAX]; /* "f-0001", in drill order */
        const struct drill_fault *src;
        const struct plan_target *target;
        const struct fault_comp *comp; /* the catalog's, for this kind of target */
        const char **peers;            /* peer containers, resolved */
        size_t n_peers;
        unsigned lease_ttl_s;
};

struct plan_lane {
        const struct plan_target *target;
        size_t first_fault, n_faults; /* faults[first_fault ..] run one after another */
};

/* A check's locus. container: one container; service: every container of
 * the service, in replica order, of which the runner probes from the first
 * one running; process: a process target of the drill (targets:). */
struct plan_check_locus {
        const char *const *containers;
        size_t n_containers;
        const struct plan_target *process;
};

struct plan_step {
        const struct drill_step *src;
        struct plan_lane *lanes; /* parallel: lanes run concurrently; sequential: one after another */
        size_t n_lanes;
        /* per check of src: where its probe runs from (execution container,
         * service or process, resolved here); all empty for a host check */
        struct plan_check_locus *check_loci;
};

/* One gate outcome, recorded like the reference's SafetyDecision. A plan
 * records the refusal and, per admitted fault and per fault step, one allow
 * (policy.allow, blast_radius.allow); under --dry-run every rule's outcome,
 * allow or deny (docs/safety.md). */
struct plan_decision {
        const char *rule;
        const char *fault_id;
        bool allow;
        const char *reason;
        const char *remediation; /* what to change; "" for an allow */
};

struct plan {
        struct arena arena;
        const struct drill_spec *spec;
        const struct topology *topology;
        struct plan_target *targets;
        size_t n_targets;
        struct plan_fault *faults;
        size_t n_faults;
        struct plan_step *steps;
        size_t n_steps;
        struct plan_decision *decisions;
        size_t n_decisions;
        size_t n_refused;        /* denied decisions: only a --dry-run plan has any (it is never run) */
        const char *policy_name; /* the --policy profile the gates applied: "default", "strict", ... */
        const char **warnings; /* one line each, FILE:LINE:COL first where there is one; not fingerprinted */
        size_t n_warnings;
        char *canonical_json; /* what the fingerprint covers */
        char fingerprint[SHA256_HEX_SIZE];
        char run_id[PLAN_RUN_ID_MAX]; /* the plan id, r-<name>-<first 6 hex of the fingerprint>; each run
                                       * of the plan gets its own id from it (run.c) */
};

/* Where a drill's host-process targets live, for the host gate: on the
 * machine planning it (its /proc tells init, kernel threads and the
 * controller's own process tree apart), or behind an agent on another host
 * (only what holds on every host is refused here: pid 1 and mayhem's own
 * program names; that agent refuses the rest for its own host). */
enum plan_host {
        PLAN_HOST_LOCAL,
        PLAN_HOST_REMOTE,
        _PLAN_HOST_MAX,
};

/* Fault-seconds a target already took inside the damage quota's window,
 * summed from the evidence of past runs (the CLI reads them; the planner
 * does not open the evidence). */
struct plan_damage {
        const char *target; /* a container name, or a host process label */
        double fault_s;
};

/* What the command line and the configuration add to a drill. Every field
 * may be 0/NULL: the built-in defaults, planning on this machine. */
struct plan_options {
        enum plan_host host;
        const struct mayhem_config *config; /* policy and blast radius; NULL: config_defaults() */
        const char *policy_name;            /* --policy; NULL: "default" */
        bool allow_critical;                /* --allow-critical, the CLI half of the triple opt-in */
        bool skip_gate;                     /* --skip-gate: the impact gate attempts instead of bypassing */
        bool dry_run; /* evaluate every gate, record every decision, refuse at the end */
        const struct plan_damage *damage;
        size_t n_damage;
};

/* Resolves, gates, compensates and fingerprints. Errors point into the drill
 * (exit 4), are safety refusals (exit 5, with a remediation), or an unknown
 * --policy (exit 2). Under opt->dry_run a safety refusal does not stop the
 * build: it is one more denied decision (plan.n_refused), and the plan that
 * comes back must never run. Nothing is touched. topo may be
 * NULL when every target is a host process. plan_build() is
 * plan_build_on(PLAN_HOST_LOCAL); the plan's bytes do not depend on host. */
int plan_build(
        const struct drill_spec *spec, const struct topology *topo, struct plan **ret,
        struct mh_error *reterr);
int plan_build_on(
        const struct drill_spec *spec, const struct topology *topo, enum plan_host host, struct plan **ret,
        struct mh_error *reterr);
int plan_build_with(
        const struct drill_spec *spec, const struct topology *topo, const struct plan_options *opt,
        struct plan **ret, struct mh_error *reterr);
struct plan *plan_free(struct plan *plan);

/* The --policy profiles, NULL-terminated: "default", "permissive", "strict". */
extern const char *const plan_policy_names[];
DEFINE_FREEP(struct plan, plan_free)

/* The plan as a JSON object, with "fingerprint" and "plan_id" added. */
int plan_to_json(const struct plan *plan, json_t **ret);
/* Everything the fingerprint covers: the plan without fingerprint and plan_id. */
int plan_body_json(const struct plan *plan, json_t **ret);
/* The typed parameters of a fault, given or defaulted, in their base units. */
json_t *plan_fault_params_json(const struct drill_fault *f);
/* The gate outcomes: [{rule, fault, outcome, reason, remediation}]. */
json_t *plan_decisions_json(const struct plan *plan);

/* plan-json-spec.c: the drill parts a plan carries verbatim, typed. An exec
 * or file probe that runs on the controller's host says so ("runs_on":
 * "controller_host"): every one outside a check with another locus. */
json_t *plan_json_probe(const struct drill_probe *p);
json_t *plan_json_check(const struct drill_check *c);
json_t *plan_json_config(const struct drill_config *c);
json_t *plan_json_success(const struct drill_success *s);
json_t *plan_json_observability(const struct drill_observability *o);
json_t *plan_json_slos(const struct drill_slo *slos, size_t n);
json_t *plan_json_steady_state(const struct drill_steady_state *ss);
json_t *plan_json_param(const struct param_value *v);
