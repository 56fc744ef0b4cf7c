#pragma once

/* The effective configuration: mayhem.yaml (./mayhem.yaml or --config PATH;
 * a file with `kind: drill` doubles as the spec and projects only log_level
 * and risk_ceiling), mayhem.<profile>.yaml beside it (--profile), the
 * environment (MAYHEM_STORAGE_PATH, MAYHEM_ARTIFACTS_DIR, MAYHEM_LOG_LEVEL),
 * then flags; deep merge, `targets` merged per profile name. Every value
 * keeps where it came from (reference §9.1; docs/configuration.md).
 *
 * Everything is owned by the config's arena. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/arena.h"
#include "basic/error.h"
#include "catalog/catalog.h"
#include "drill/drill.h"

enum config_source {
        CONFIG_SOURCE_DEFAULT,
        CONFIG_SOURCE_FILE,    /* the base file */
        CONFIG_SOURCE_PROFILE, /* mayhem.<profile>.yaml */
        CONFIG_SOURCE_ENV,
        CONFIG_SOURCE_FLAG,
        _CONFIG_SOURCE_MAX,
};

/* Where one key's effective value came from: "policy.risk_ceiling" from
 * mayhem.yaml:4:17, or from MAYHEM_LOG_LEVEL, or the default. */
struct config_origin {
        const char *key; /* dotted path, "blast_radius.damage_quota.budget_s" */
        enum config_source source;
        const char *where; /* "mayhem.yaml:4:17", "MAYHEM_LOG_LEVEL", "--db"; NULL for a default */
        const char *value; /* the effective value as JSON text: 50, "mayhem.db", ["net."], null */
};

struct config_fault_pair {
        const char *a, *b; /* fault ids or prefixes ("net."), unordered */
};

struct config_policy {
        const char *const *allow_faults; /* NULL: no allowlist (then DEFAULT_DENY applies) */
        size_t n_allow_faults;
        const char *const *deny_faults;
        size_t n_deny_faults;
        bool has_risk_ceiling;
        enum risk risk_ceiling;
        bool allow_critical;
        const char *const *critical_fault_acks;
        size_t n_critical_fault_acks;
};

struct config_damage_quota {
        double budget_s;            /* 14400: worst target's fault-seconds in the window */
        double per_fault_ceiling_s; /* 3600: one step's charge on one target */
        double window_s;            /* 604800: enforced here, unlike the reference */
};

struct config_blast_radius {
        double max_services_pct;         /* (0,100], 50 */
        int64_t max_hosts;               /* >= 1, 2 */
        int64_t max_concurrent_faults;   /* >= 1, 3: faults in force at once, over parallel lanes */
        double max_duration_per_fault_s; /* 300 */
        const struct config_fault_pair *forbidden_fault_pairs;
        size_t n_forbidden_fault_pairs;
        struct config_damage_quota damage_quota;
};

struct config_maniac {
        int64_t level;     /* 1..5, 2 */
        int64_t run_level; /* 1..500, 10 */
        bool has_seed;
        int64_t seed;
};

/* A target profile (`targets:`, alias `profiles:`). */
struct config_target {
        const char *name;              /* [a-zA-Z0-9][a-zA-Z0-9._-]{0,63} */
        const char *engine;            /* "docker" | "podman" */
        const char *compose;           /* a compose file, relative to the config file's directory; NULL */
        const char *const *containers; /* scope: only these containers; NULL: all */
        size_t n_containers;
        const char *extends; /* the profile it extends (one level), already applied; NULL */
};

struct mayhem_config {
        struct arena arena;
        const char *path;       /* the base file, NULL when none was found */
        const char *drill_path; /* --config named a `kind: drill` file: the spec to use */
        const char *profile;    /* --profile, or NULL */
        struct config_policy policy;
        struct config_blast_radius blast_radius;
        const char *storage_path;  /* "mayhem.db" */
        const char *artifacts_dir; /* ".mayhem/artifacts" */
        const char *runtime;       /* "docker" | "podman" */
        enum log_level log_level;
        double recovery_grace_s; /* 300 */
        struct config_maniac maniac;
        const struct config_target *targets;
        size_t n_targets;
        const struct config_target *target;   /* --target, or the only profile; NULL */
        const char *const *target_containers; /* `target: {containers: [...]}`: scope without a profile */
        size_t n_target_containers;
        const char *const *warnings; /* keys accepted for compatibility that do nothing here */
        size_t n_warnings;
        const struct config_origin *origins; /* one per key, sorted by key */
        size_t n_origins;
};

/* What the command line gives the loader. Every field may be NULL/0. */
struct config_request {
        const char *config_path; /* --config */
        const char *profile;     /* --profile */
        const char *target;      /* --target */
        const char *db_path;     /* --db: beats storage.path */
        bool podman;             /* -p: beats runtime */
};

/* Loads and layers the configuration. No file at all is the defaults; a
 * --config or --profile file that is missing, a bad key or value, a missing
 * apiVersion, an unknown --target are errors at FILE:LINE:COL (exit 3). */
int config_load(const struct config_request *req, struct mayhem_config **ret, struct mh_error *reterr);
struct mayhem_config *config_free(struct mayhem_config *c);
DEFINE_FREEP(struct mayhem_config, config_free)

/* The built-in defaults alone (for tests and for code that runs without a
 * command line). */
int config_defaults(struct mayhem_config **ret, struct mh_error *reterr);

/* One document of len bytes as the base file, with no profile, environment
 * or flags (for the fuzzer and tests). path names it in errors. */
int config_parse(
        const char *path, const char *data, size_t len, struct mayhem_config **ret, struct mh_error *reterr);

/* The containers a run may touch: the selected profile's `containers`, else
 * `target.containers`; n = 0: no limit. */
const char *const *config_scope(const struct mayhem_config *c, size_t *ret_n);

/* The effective configuration with provenance as one JSON object, the shape
 * of `prepare config show --json` ({"file", "drill", "profile", "target",
 * "keys": {KEY: {"value", "source", "where"}}, "warnings"}), for the evidence
 * (runs.config_json). *ret is malloc()ed. */
int config_to_json_text(const struct mayhem_config *c, char **ret, struct mh_error *reterr);

const struct config_origin *config_origin(const struct mayhem_config *c, const char *key);
const char *config_source_to_string(enum config_source s); /* "default", "file", ... */
