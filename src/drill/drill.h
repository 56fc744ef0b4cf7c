#pragma once

/* A drill file (reference `kind: drill`, docs/drill-format.md) as a typed
 * spec. Every value is parsed, typed and range-checked here, once: fault
 * parameters against the catalog's schemas, durations to milliseconds. Nothing
 * downstream re-parses a string. Each piece keeps the line:col it came from so
 * later stages (cross references, the planner) can point at it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/arena.h"
#include "basic/error.h"
#include "catalog/catalog.h"

#define DRILL_FILE_MAX (4u * 1024u * 1024u)
#define DRILL_NAME_MAX 128
#define DRILL_LIST_MAX 1000 /* any list a user writes: targets, faults, steps, checks, ... */

struct srcpos {
        unsigned line, col;
};

enum on_failure {
        ON_FAILURE_ABORT_AND_RECOVER,
        ON_FAILURE_CONTINUE,
        _ON_FAILURE_MAX,
};

enum log_level {
        LOG_LEVEL_DEBUG,
        LOG_LEVEL_INFO,
        LOG_LEVEL_WARNING,
        LOG_LEVEL_ERROR,
        _LOG_LEVEL_MAX,
};

enum target_runtime {
        TARGET_RUNTIME_DOCKER,
        TARGET_RUNTIME_KUBERNETES,
        TARGET_RUNTIME_PROCESS, /* a plain host process, by pid or name (our extension) */
        _TARGET_RUNTIME_MAX,
};

enum probe_type {
        PROBE_HTTP,
        PROBE_EXEC,
        PROBE_TCP,
        PROBE_PROCESS,
        PROBE_METRIC,
        PROBE_FILE,
        _PROBE_TYPE_MAX,
};

enum check_locus {
        CHECK_LOCUS_HOST,
        CHECK_LOCUS_CONTAINER,
        CHECK_LOCUS_SERVICE,
        CHECK_LOCUS_PROCESS,
        _CHECK_LOCUS_MAX,
};

enum step_kind {
        STEP_PARALLEL,
        STEP_SEQUENTIAL,
        STEP_WAIT,
        STEP_CHECK,
        STEP_CHECK_SPEC,
        _STEP_KIND_MAX,
};

enum criterion_type {
        CRITERION_STATUS,
        CRITERION_LATENCY,
        CRITERION_METRIC,
        CRITERION_COUNT,
        CRITERION_BOOLEAN,
        _CRITERION_TYPE_MAX,
};

/* Which of a source's samples a criterion judges, and how (docs/drill-format.md). */
enum criterion_over {
        CRITERION_OVER_LAST,
        CRITERION_OVER_ALL,
        CRITERION_OVER_ANY,
        CRITERION_OVER_MAX,
        CRITERION_OVER_MIN,
        CRITERION_OVER_P50,
        CRITERION_OVER_P95,
        CRITERION_OVER_P99,
        CRITERION_OVER_MEAN,
        _CRITERION_OVER_MAX,
};

enum criterion_window {
        CRITERION_WINDOW_WHOLE, /* first: a zeroed criterion judges every sample */
        CRITERION_WINDOW_BASELINE,
        CRITERION_WINDOW_DURING,
        CRITERION_WINDOW_AFTER,
        _CRITERION_WINDOW_MAX,
};

enum obs_kind {
        OBS_LOGS,
        OBS_INSPECTION,
        OBS_PROBE,
        OBS_METRICS,
        _OBS_KIND_MAX,
};

enum slo_kind {
        SLO_LATENCY,
        SLO_ERROR_BUDGET,
        SLO_RECOVERY_TIME,
        SLO_SATURATION,
        SLO_ABSENCE,
        _SLO_KIND_MAX,
};

enum slo_operator {
        SLO_OP_LT,
        SLO_OP_LTE,
        SLO_OP_GT,
        SLO_OP_GTE,
        SLO_OP_EQ,
        _SLO_OPERATOR_MAX,
};

enum severity {
        SEVERITY_CRITICAL,
        SEVERITY_WARNING,
        SEVERITY_INFO,
        _SEVERITY_MAX,
};

enum ss_phase {
        SS_PHASE_PRE,
        SS_PHASE_DURING,
        SS_PHASE_POST,
        _SS_PHASE_MAX,
};

/* A list of names with where each was written. */
struct drill_names {
        const char **v;
        struct srcpos *pos;
        size_t n;
};

struct drill_param {
        const struct param_spec *spec;
        struct param_value value; /* meaningful when given or defaulted */
        bool given;               /* written in the drill */
        bool defaulted;           /* taken from the catalog default */
        struct srcpos pos;        /* of the value when given */
};

struct drill_fault {
        const struct fault_def *def;
        struct srcpos pos; /* of the `fault:` value */
        int64_t duration_ms;
        struct srcpos duration_pos;
        enum on_failure on_failure; /* resolved: the fault's own, else config.on_failure */
        bool recovery;              /* resolved likewise */
        struct drill_names peers;   /* `targets:` — partition / scope peers */
        const char *network_path;
        struct drill_param *params; /* one per catalog parameter, in catalog order */
        size_t n_params;
};

struct drill_k8s_ref {
        const char *kind, *namespace, *name, *container;
};

struct drill_target {
        const char *name; /* the key under containers: / targets: */
        struct srcpos pos;
        enum target_runtime runtime;
        const char *container_name; /* docker: the container to resolve; equals name under containers: */
        const char *process_name;   /* process: by /proc/PID/comm ... */
        int64_t process_pid;        /* ... or by pid (> 0) */
        bool process_include_containers; /* by name: processes inside containers match too */
        struct srcpos process_pos;       /* of the pid or name value */
        struct drill_k8s_ref k8s;
        struct drill_fault *faults;
        size_t n_faults;
};

struct drill_probe {
        enum probe_type type;
        struct srcpos pos;
        int64_t timeout_ms;
        /* http */
        const char *url, *method;
        int64_t expected_status;
        /* exec */
        const char **cmd;
        size_t n_cmd;
        int64_t expected_exit_code;
        /* tcp */
        const char *host;
        int64_t port;
        /* process: name, or pid > 0 */
        const char *process_name;
        int64_t pid;
        /* metric */
        const char *endpoint, *query;
        bool has_threshold;
        double threshold;
        /* file */
        const char *path, *contains;
};

struct drill_check {
        const char *id; /* written, or generated "check-SSSS-I" */
        struct srcpos pos;
        struct drill_probe probe;
        enum check_locus execution;
        struct srcpos execution_pos; /* of the value; the check's when not written */
        const char *target;          /* required unless execution is host */
        struct srcpos target_pos;
};

struct drill_step {
        enum step_kind kind;
        struct srcpos pos;
        struct drill_names names; /* parallel / sequential */
        /* wait: either a fixed duration or until a check passes */
        int64_t wait_ms;
        bool wait_until;
        const char *until_check_id; /* names a check of the drill, or NULL */
        struct srcpos until_pos;
        struct drill_probe until_probe; /* inline probe when until_check_id is NULL */
        int64_t until_timeout_ms, until_interval_ms;
        /* check / check_spec */
        struct drill_check *checks;
        size_t n_checks;
};

struct drill_criterion {
        enum criterion_type type;
        struct srcpos pos;
        const char *source_id;
        int64_t expected; /* status */
        double lt_ms;     /* latency, strict < */
        bool has_gt, has_lt;
        double gt, lt;                /* metric, exclusive */
        int64_t gte;                  /* count */
        bool value;                   /* boolean */
        enum criterion_over over;     /* default last, the reference's meaning */
        enum criterion_window window; /* default whole */
        bool has_over, has_window;    /* written in the drill */
};

struct drill_success {
        bool present;
        bool require_all;
        struct drill_criterion *criteria;
        size_t n_criteria;
};

struct drill_obs_source {
        enum obs_kind kind;
        struct srcpos pos, kind_pos;
        const char *source_id;
        const char *container; /* logs, inspection */
        int64_t tail;          /* logs */
        const char *since;     /* logs, as written; checked into one of: */
        int64_t since_unix_s;  /* logs: an RFC 3339 time or unix seconds, 0: none */
        int64_t since_ago_ms;  /* logs: a duration before the collection, 0: none */
        const char *pattern;   /* logs: POSIX ERE, REG_ICASE; DRILL_LOGS_PATTERN_DEFAULT */
        int64_t timeout_ms;
        struct drill_probe probe;      /* probe */
        int64_t cadence_ms;            /* probe, metrics: 0 = once */
        const char *endpoint, *metric; /* metrics */
};

#define DRILL_LOGS_PATTERN_DEFAULT "error|fatal|panic"

struct drill_observability {
        bool present;
        int64_t cadence_ms, total_timeout_ms;
        struct drill_obs_source *sources;
        size_t n_sources;
};

struct drill_slo {
        struct srcpos pos;
        const char *metric, *unit, *name, *target;
        enum slo_kind kind;
        enum slo_operator op;
        double threshold;
        int64_t window_s;
        enum criterion_over over; /* latency, saturation: overrides p95 / max when has_over */
        bool has_over;
        struct srcpos metric_pos;
};

struct drill_ss_signal {
        struct srcpos pos;
        const char *name, *source_id, *metric;
        bool has_expect;
        bool has_lte, has_gte, has_eq;
        double lte, gte, eq;
        bool has_tolerance;
        bool has_at_most, has_at_most_relative;
        double at_most, at_most_relative;
        bool has_baseline_window;
        int64_t baseline_window_ms;
        enum severity severity;
};

struct drill_ss_phase {
        struct srcpos pos;
        enum ss_phase phase;
        struct drill_names assert_unchanged, assert_degraded, assert_recovered;
        bool has_within;
        double within;
};

struct drill_steady_state {
        bool present;
        int64_t samples, window_ms;
        struct drill_ss_signal *signals;
        size_t n_signals;
        struct drill_ss_phase *phases;
        size_t n_phases;
};

struct drill_config {
        enum risk risk_ceiling;
        int64_t max_faults;
        struct srcpos max_faults_pos; /* line 0: not written, so not enforced (1.0 drills leave it at 1) */
        int64_t timeout_ms;
        struct srcpos timeout_pos; /* line 0: not written, the default */
        enum log_level log_level;
        bool recovery;
        enum on_failure on_failure;
        bool has_maniac;
        int64_t maniac_level, maniac_run_level;
        bool has_maniac_seed;
        int64_t maniac_seed;
};

struct drill_spec {
        struct arena arena; /* owns everything below */
        const char *path;
        const char *api_version; /* tolerated, recorded, never interpreted */
        const char *name;
        const char *hypothesis;
        struct drill_config config;
        bool declared_as_targets; /* `targets:` rather than `containers:` */
        struct drill_target *targets;
        size_t n_targets;
        struct drill_step *steps;
        size_t n_steps;
        struct drill_success success;
        struct drill_observability observability;
        struct drill_slo *slos;
        size_t n_slos;
        struct drill_steady_state steady_state;
};

/* Parses and types a drill. Errors are one line with path:line:col (exit 4). */
int drill_parse(
        const char *path, const char *data, size_t len, struct drill_spec **ret, struct mh_error *reterr);
int drill_load(const char *path, struct drill_spec **ret, struct mh_error *reterr);
struct drill_spec *drill_spec_free(struct drill_spec *spec);
DEFINE_FREEP(struct drill_spec, drill_spec_free)

/* Cross references inside one drill: execution names declared targets, check
 * and source ids are unique, wait.until_check_passes names a check, phases
 * name declared signals. Separate from drill_parse so a drill can be read
 * (and shown) before it is judged. */
int drill_spec_check(const struct drill_spec *spec, struct mh_error *reterr);

const struct drill_target *drill_spec_find_target(const struct drill_spec *spec, const char *name);
const struct drill_param *drill_fault_param(const struct drill_fault *f, const char *name);

#define DRILL_ENUM_DECL(name, type)                                                                         \
        const char *name##_to_string(type v);                                                               \
        int name##_from_string(const char *s);
DRILL_ENUM_DECL(on_failure, enum on_failure)
DRILL_ENUM_DECL(log_level, enum log_level)
DRILL_ENUM_DECL(target_runtime, enum target_runtime)
DRILL_ENUM_DECL(probe_type, enum probe_type)
DRILL_ENUM_DECL(check_locus, enum check_locus)
DRILL_ENUM_DECL(step_kind, enum step_kind)
DRILL_ENUM_DECL(criterion_type, enum criterion_type)
DRILL_ENUM_DECL(criterion_over, enum criterion_over)
DRILL_ENUM_DECL(criterion_window, enum criterion_window)
DRILL_ENUM_DECL(obs_kind, enum obs_kind)
DRILL_ENUM_DECL(slo_kind, enum slo_kind)
DRILL_ENUM_DECL(slo_operator, enum slo_operator)
DRILL_ENUM_DECL(severity, enum severity)
DRILL_ENUM_DECL(ss_phase, enum ss_phase)
