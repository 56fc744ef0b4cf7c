#include "plan-internal.h"

#include <stdio.h>
#include <string.h>

/* Fault admission (reference §5.2): denylist, allowlist or the default
 * denylist, risk ceiling, the critical triple opt-in, in that order. The
 * verdicts are computed with no I/O so a unit test can walk every rule with
 * faults the catalog does not have (a critical one, node.reboot). */

const char *const plan_policy_names[] = { "default", "permissive", "strict", NULL };

/* The reference's DEFAULT_DENY: a policy default, not a fact about a fault
 * (this catalog has no node.reboot, so a drill cannot name it today; the
 * rule stays so a catalog that grows one refuses it without an allowlist). */
static const char *const default_deny[] = { "node.reboot" };

/* An entry is a fault id, or a prefix: "net." or "net.*" (every net. fault). */
static bool entry_matches(const char *entry, const char *id) {
        size_t n = strlen(entry);
        if (n >= 2 && entry[n - 1] == '*' && entry[n - 2] == '.')
                n--;
        if (n && entry[n - 1] == '.')
                return strncmp(entry, id, n) == 0;
        return strcmp(entry, id) == 0;
}

static const char *list_match(const char *const *list, size_t n, const char *id) {
        for (size_t i = 0; i < n; i++)
                if (entry_matches(list[i], id))
                        return list[i];
        return NULL;
}

bool plan_fault_pattern_matches(const char *pattern, const char *id) {
        return entry_matches(pattern, id);
}

static void verdict(struct pb_verdict *v, const char *rule, bool allow) {
        *v = (struct pb_verdict){ .rule = rule, .allow = allow };
}

static void rule_deny_faults(const struct config_policy *pol, const char *id, struct pb_verdict *v) {
        const char *hit = list_match(pol->deny_faults, pol->n_deny_faults, id);
        verdict(v, "policy.deny_faults", !hit);
        if (!hit) {
                snprintf(v->reason, sizeof(v->reason), "%s: not in policy denylist", id);
                return;
        }
        snprintf(v->reason, sizeof(v->reason), "%s: denied by policy denylist", id);
        snprintf(
                v->remedy, sizeof(v->remedy),
                "remove '%s' from policy.deny_faults, or drop %s from the drill", hit, id);
}

static void rule_allow_faults(const struct config_policy *pol, const char *id, struct pb_verdict *v) {
        if (pol->allow_faults) {
                bool in = list_match(pol->allow_faults, pol->n_allow_faults, id);
                verdict(v, "policy.allow_faults", in);
                snprintf(v->reason, sizeof(v->reason), "%s: %s policy allowlist", id, in ? "in" : "not in");
                if (!in)
                        snprintf(v->remedy, sizeof(v->remedy), "add '%s' to policy.allow_faults", id);
                return;
        }
        const char *hit = list_match(default_deny, ELEMENTSOF(default_deny), id);
        verdict(v, "policy.default_deny", !hit);
        if (!hit) {
                snprintf(v->reason, sizeof(v->reason), "%s: not in the default denylist", id);
                return;
        }
        snprintf(v->reason, sizeof(v->reason), "%s: denied by default (no policy allowlist)", id);
        snprintf(
                v->remedy, sizeof(v->remedy), "list '%s' in policy.allow_faults to allow it explicitly", id);
}

static void rule_risk_ceiling(
        const struct config_policy *pol, enum risk drill_ceiling, const struct fault_def *def,
        struct pb_verdict *v) {
        bool policy_binds = pol->has_risk_ceiling && pol->risk_ceiling < drill_ceiling;
        enum risk ceiling = policy_binds ? pol->risk_ceiling : drill_ceiling;
        verdict(v, "policy.risk_ceiling", def->risk <= ceiling);
        snprintf(
                v->reason, sizeof(v->reason), "%s has risk %s, %s the %s risk_ceiling %s", def->id,
                risk_to_string(def->risk), v->allow ? "within" : "above",
                policy_binds ? "policy's" : "drill's", risk_to_string(ceiling));
        if (v->allow)
                return;
        if (policy_binds)
                snprintf(
                        v->remedy, sizeof(v->remedy),
                        "raise policy.risk_ceiling to %s (or pick another --policy); a drill can only "
                        "tighten it",
                        risk_to_string(def->risk));
        else
                snprintf(
                        v->remedy, sizeof(v->remedy), "raise config.risk_ceiling in the drill to %s",
                        risk_to_string(def->risk));
}

static void rule_critical(
        const struct config_policy *pol, bool cli_allow_critical, const struct fault_def *def,
        struct pb_verdict *v) {
        const char *missing[3];
        size_t n = 0;
        char list[256] = "";

        verdict(v, "policy.critical_triple_optin", true);
        if (def->risk != RISK_CRITICAL) {
                snprintf(
                        v->reason, sizeof(v->reason), "%s: risk %s needs no opt-in", def->id,
                        risk_to_string(def->risk));
                return;
        }
        if (!pol->allow_critical)
                missing[n++] = "policy.allow_critical is not true";
        if (!cli_allow_critical)
                missing[n++] = "--allow-critical was not given";
        if (!list_match(pol->critical_fault_acks, pol->n_critical_fault_acks, def->id))
                missing[n++] = "the fault is not in policy.critical_fault_acks";
        if (!n) {
                snprintf(v->reason, sizeof(v->reason), "%s: critical, opted in three times", def->id);
                return;
        }
        for (size_t i = 0, len = 0; i < n && len < sizeof(list); i++)
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "; " : "", missing[i]);
        v->allow = false;
        snprintf(
                v->reason, sizeof(v->reason), "%s is critical and needs the triple opt-in: %s", def->id,
                list);
        snprintf(
                v->remedy, sizeof(v->remedy),
                "set policy.allow_critical: true, list '%s' in policy.critical_fault_acks, and pass "
                "--allow-critical",
                def->id);
}

size_t plan_policy_verdicts(
        const struct config_policy *pol, enum risk drill_ceiling, bool cli_allow_critical,
        const struct fault_def *def, struct pb_verdict v[PLAN_POLICY_RULES]) {
        rule_deny_faults(pol, def->id, &v[0]);
        rule_allow_faults(pol, def->id, &v[1]);
        rule_risk_ceiling(pol, drill_ceiling, def, &v[2]);
        rule_critical(pol, cli_allow_critical, def, &v[3]);
        return PLAN_POLICY_RULES;
}

int plan_policy_admit(struct plan_builder *b, struct plan_fault *f) {
        struct pb_verdict v[PLAN_POLICY_RULES];
        size_t n = plan_policy_verdicts(
                &b->policy, b->spec->config.risk_ceiling, b->opt->allow_critical, f->src->def, v);
        int denied = 0;
        for (size_t i = 0; i < n; i++) {
                int r = pb_gate(b, f, f->src->pos, &v[i]);
                if (r < 0)
                        return r;
                denied |= r;
        }
        return denied;
}

/* The --policy profiles overlay the configuration's policy (docs/safety.md):
 * strict caps the risk ceiling at medium and takes critical faults away;
 * permissive drops the policy's ceiling (the drill's still holds). Neither
 * touches the lists. */
static void overlay(struct config_policy *p, const char *name) {
        if (strcmp(name, "strict") == 0) {
                if (!p->has_risk_ceiling || p->risk_ceiling > RISK_MEDIUM)
                        p->risk_ceiling = RISK_MEDIUM;
                p->has_risk_ceiling = true;
                p->allow_critical = false;
        } else if (strcmp(name, "permissive") == 0)
                p->has_risk_ceiling = false;
}

int plan_policy_setup(struct plan_builder *b) {
        const char *name = b->opt->policy_name ? b->opt->policy_name : "default";
        char known[128] = "";
        size_t len = 0;
        for (size_t i = 0; plan_policy_names[i]; i++) {
                if (strcmp(plan_policy_names[i], name) == 0) {
                        b->policy = b->config->policy;
                        overlay(&b->policy, name);
                        b->plan->policy_name = plan_policy_names[i];
                        return 0;
                }
                len += (size_t)snprintf(
                        known + len, sizeof(known) - len, "%s%s", i ? ", " : "", plan_policy_names[i]);
        }
        return mh_error_set(
                b->reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "usage", "unknown --policy '%s' (known: %s)", name,
                known);
}
