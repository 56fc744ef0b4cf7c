#include "config-internal.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

/* The keys of mayhem.yaml (reference §9.1), in one table: the reader takes
 * the keys a mapping allows from it, the renderer the values to show, the
 * loader the defaults' provenance. */

#define F(field) offsetof(struct mayhem_config, field)
#define SECTION(name)                                                                                       \
        { .key = name, .kind = CK_SECTION }
#define NUM(name, field, lo, hi, open)                                                                      \
        { .key = name, .kind = CK_NUM, .off = F(field), .min = (lo), .max = (hi), .open_min = (open) }
#define INT(name, field, lo, hi)                                                                            \
        { .key = name, .kind = CK_INT, .off = F(field), .min = (lo), .max = (hi) }
#define LIST(name, kind_, field, count)                                                                     \
        { .key = name, .kind = kind_, .off = F(field), .aux = F(count) }

#define SECONDS_MAX (10.0 * 365 * 24 * 3600) /* ten years: a typo, not a budget */

const struct ckey config_keys[] = {
        { .key = "apiVersion", .kind = CK_API },
        SECTION("policy"),
        LIST("policy.allow_faults", CK_FAULTS_OPT, policy.allow_faults, policy.n_allow_faults),
        LIST("policy.deny_faults", CK_FAULTS, policy.deny_faults, policy.n_deny_faults),
        { .key = "policy.risk_ceiling",
          .kind = CK_RISK_OPT,
          .off = F(policy.risk_ceiling),
          .aux = F(policy.has_risk_ceiling) },
        { .key = "policy.allow_critical", .kind = CK_BOOL, .off = F(policy.allow_critical) },
        LIST("policy.critical_fault_acks", CK_FAULTS, policy.critical_fault_acks,
             policy.n_critical_fault_acks),
        SECTION("blast_radius"),
        NUM("blast_radius.max_services_pct", blast_radius.max_services_pct, 0, 100, true),
        INT("blast_radius.max_hosts", blast_radius.max_hosts, 1, 1000000),
        INT("blast_radius.max_concurrent_faults", blast_radius.max_concurrent_faults, 1, 1000000),
        NUM("blast_radius.max_duration_per_fault_s", blast_radius.max_duration_per_fault_s, 0, SECONDS_MAX,
            true),
        LIST("blast_radius.forbidden_fault_pairs", CK_PAIRS, blast_radius.forbidden_fault_pairs,
             blast_radius.n_forbidden_fault_pairs),
        { .key = "blast_radius.damage_quota", .kind = CK_QUOTA },
        NUM("blast_radius.damage_quota.budget_s", blast_radius.damage_quota.budget_s, 0, SECONDS_MAX, true),
        NUM("blast_radius.damage_quota.per_fault_ceiling_s", blast_radius.damage_quota.per_fault_ceiling_s,
            0, SECONDS_MAX, true),
        NUM("blast_radius.damage_quota.window_s", blast_radius.damage_quota.window_s, 0, SECONDS_MAX, true),
        SECTION("storage"),
        { .key = "storage.path", .kind = CK_STR, .off = F(storage_path) },
        { .key = "storage.artifacts_dir", .kind = CK_STR, .off = F(artifacts_dir) },
        SECTION("toolkit"),
        { .key = "toolkit.binaries", .kind = CK_BINARIES },
        { .key = "runtime", .kind = CK_RUNTIME, .off = F(runtime) },
        SECTION("target"),
        LIST("target.containers", CK_STRS, target_containers, n_target_containers),
        { .key = "targets", .kind = CK_TARGETS },
        { .key = "profiles", .kind = CK_TARGETS },
        SECTION("kubernetes"),
        { .key = "kubernetes.context", .kind = CK_K8S },
        { .key = "kubernetes.namespace", .kind = CK_K8S },
        NUM("recovery_grace", recovery_grace_s, 0, SECONDS_MAX, false),
        { .key = "log_level", .kind = CK_LOG_LEVEL, .off = F(log_level) },
        SECTION("maniac"),
        INT("maniac.level", maniac.level, 1, 5),
        INT("maniac.run_level", maniac.run_level, 1, 500),
        { .key = "maniac.seed",
          .kind = CK_SEED,
          .off = F(maniac.seed),
          .aux = F(maniac.has_seed),
          .min = (double)INT64_MIN,
          .max = (double)INT64_MAX },
};
const size_t config_n_keys = sizeof(config_keys) / sizeof(config_keys[0]);

const struct ckey *config_key_find(const char *key) {
        for (size_t i = 0; i < config_n_keys; i++)
                if (strcmp(config_keys[i].key, key) == 0)
                        return &config_keys[i];
        return NULL;
}

bool config_key_is_leaf(const struct ckey *k) {
        switch (k->kind) {
        case CK_SECTION:
        case CK_QUOTA:
        case CK_API:
        case CK_TARGETS:
        case CK_K8S:
        case CK_BINARIES: return false;
        default: return true;
        }
}
