#include "catalog.h"

#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/units.h"
#include "catalog-internal.h"

static const char *const fault_category_table[_FAULT_CATEGORY_MAX] = {
        [FAULT_CATEGORY_PROCESS] = "process",
        [FAULT_CATEGORY_CONTAINER] = "container",
        [FAULT_CATEGORY_CPU] = "cpu",
        [FAULT_CATEGORY_MEMORY] = "memory",
        [FAULT_CATEGORY_FILESYSTEM] = "filesystem",
        [FAULT_CATEGORY_NETWORK] = "network",
        [FAULT_CATEGORY_HTTP] = "http",
        [FAULT_CATEGORY_DEPENDENCY] = "dependency",
        [FAULT_CATEGORY_DATABASE] = "database",
        [FAULT_CATEGORY_DNS] = "dns",
        [FAULT_CATEGORY_TLS] = "tls",
        [FAULT_CATEGORY_CLOCK] = "clock",
        [FAULT_CATEGORY_LOAD] = "load",
};
DEFINE_STRING_TABLE_LOOKUP(fault_category, enum fault_category)

static const char *const risk_table[_RISK_MAX] = {
        [RISK_LOW] = "low",
        [RISK_MEDIUM] = "medium",
        [RISK_HIGH] = "high",
        [RISK_CRITICAL] = "critical",
};
DEFINE_STRING_TABLE_LOOKUP(risk, enum risk)

static const char *const node_kind_table[_NODE_KIND_MAX] = {
        [NODE_HOST] = "host",
        [NODE_SERVICE] = "service",
        [NODE_CONTAINER] = "container",
        [NODE_PROCESS] = "process",
        [NODE_EXTERNAL_DEPENDENCY] = "external_dependency",
        [NODE_POD] = "pod",
        [NODE_K8S_NODE] = "k8s_node",
};
DEFINE_STRING_TABLE_LOOKUP(node_kind, enum node_kind)

static const char *const fault_need_table[_FAULT_NEED_MAX] = {
        [FAULT_NEED_DOCKER_ENGINE] = "docker_engine",     [FAULT_NEED_NET_ADMIN] = "net_admin",
        [FAULT_NEED_PROCESS_CONTROL] = "process_control", [FAULT_NEED_FS_CONTROL] = "fs_control",
        [FAULT_NEED_CGROUP_CONTROL] = "cgroup_control",
};
DEFINE_STRING_TABLE_LOOKUP(fault_need, enum fault_need)

static const char *const reversibility_table[_REVERSIBILITY_MAX] = {
        [REVERSIBILITY_REVERSIBLE] = "reversible",
        [REVERSIBILITY_RECONCILED] = "reconciled",
        [REVERSIBILITY_IRREVERSIBLE] = "irreversible",
};
DEFINE_STRING_TABLE_LOOKUP(reversibility, enum reversibility)

static const char *const agent_role_table[_AGENT_ROLE_MAX] = {
        [AGENT_ROLE_PROC] = "proc", [AGENT_ROLE_CONTAINER] = "container",
        [AGENT_ROLE_CPU] = "cpu",   [AGENT_ROLE_MEMORY] = "memory",
        [AGENT_ROLE_FS] = "fs",     [AGENT_ROLE_NETWORK] = "network",
        [AGENT_ROLE_LOAD] = "load", [AGENT_ROLE_FUZZ] = "fuzz",
        [AGENT_ROLE_HOST] = "host",
};

/* The reference's second names of the roles. */
static const char *const agent_role_alias_table[_AGENT_ROLE_MAX] = {
        [AGENT_ROLE_PROC] = "process", [AGENT_ROLE_CONTAINER] = "node", [AGENT_ROLE_MEMORY] = "mem",
        [AGENT_ROLE_FS] = "storage",   [AGENT_ROLE_NETWORK] = "net",
};

const char *agent_role_to_string(enum agent_role r) {
        return (unsigned)r < _AGENT_ROLE_MAX ? agent_role_table[r] : NULL;
}

int agent_role_from_string(const char *s) {
        int r = string_table_lookup(agent_role_table, _AGENT_ROLE_MAX, s);
        return r >= 0 ? r : string_table_lookup(agent_role_alias_table, _AGENT_ROLE_MAX, s);
}

size_t agent_role_names(const char **ret, size_t max) {
        size_t n = 0;
        for (int r = 0; r < _AGENT_ROLE_MAX; r++) {
                if (n < max)
                        ret[n++] = agent_role_table[r];
                if (agent_role_alias_table[r] && n < max)
                        ret[n++] = agent_role_alias_table[r];
        }
        return n;
}

static const char *const resource_kind_table[_RESOURCE_KIND_MAX] = {
        [RESOURCE_PROCESS] = "process", [RESOURCE_CONTAINER] = "container", [RESOURCE_CGROUP] = "cgroup",
        [RESOURCE_MOUNT] = "mount",     [RESOURCE_NETNS] = "netns",         [RESOURCE_NONE] = "none",
};
DEFINE_STRING_TABLE_LOOKUP(resource_kind, enum resource_kind)

static const char *const conflict_class_table[_CONFLICT_CLASS_MAX] = {
        [CONFLICT_RUN_STATE] = "run_state",
        [CONFLICT_CPU_QUOTA] = "cpu_quota",
        [CONFLICT_CPU_LOAD] = "cpu_load",
        [CONFLICT_MEMORY] = "memory",
        [CONFLICT_NETNS_SHAPING] = "netns_shaping",
        [CONFLICT_NETNS_FILTERING] = "netns_filtering",
        [CONFLICT_NETNS_LINK] = "netns_link",
        [CONFLICT_MOUNT] = "mount",
        [CONFLICT_FS_SPACE] = "fs_space",
        [CONFLICT_DESCRIPTORS] = "descriptors",
        [CONFLICT_DNS] = "dns",
        [CONFLICT_L7_PROXY] = "l7_proxy",
        [CONFLICT_LOAD] = "load",
        [CONFLICT_CLOCK] = "clock",
};
DEFINE_STRING_TABLE_LOOKUP(conflict_class, enum conflict_class)

/* Stacking classes hold independent pieces of state, undone in reverse
 * order: latency with bandwidth, two rule sets, two loads. The others hold
 * one value (a quota, a run state, a mount, a device's MTU) that a second
 * fault would record as "the state before" and put back wrongly. */
static const bool conflict_class_stack_table[_CONFLICT_CLASS_MAX] = {
        [CONFLICT_CPU_LOAD] = true,      [CONFLICT_MEMORY] = true,
        [CONFLICT_NETNS_SHAPING] = true, [CONFLICT_NETNS_FILTERING] = true,
        [CONFLICT_FS_SPACE] = true,      [CONFLICT_DESCRIPTORS] = true,
        [CONFLICT_LOAD] = true,
};

bool conflict_class_stacks(enum conflict_class c) {
        return (unsigned)c < _CONFLICT_CLASS_MAX && conflict_class_stack_table[c];
}

bool faults_conflict(const struct fault_def *a, const struct fault_def *b) {
        return a == b || (a->conflict == b->conflict && !conflict_class_stacks(a->conflict));
}

double fault_damage_weight(const struct fault_def *def) {
        static const double risk_w[_RISK_MAX] = {
                [RISK_LOW] = 1, [RISK_MEDIUM] = 1, [RISK_HIGH] = 2, [RISK_CRITICAL] = 4
        };
        static const double rev_w[_REVERSIBILITY_MAX] = {
                [REVERSIBILITY_REVERSIBLE] = 1,
                [REVERSIBILITY_RECONCILED] = 1.25,
                [REVERSIBILITY_IRREVERSIBLE] = 2,
        };
        if (!def || (unsigned)def->risk >= _RISK_MAX || (unsigned)def->reversibility >= _REVERSIBILITY_MAX)
                return 8;
        return risk_w[def->risk] * rev_w[def->reversibility];
}

static const char *const net_action_table[_NET_ACTION_MAX] = {
        [NET_ACTION_NONE] = "none",           [NET_ACTION_DELAY] = "delay",
        [NET_ACTION_REORDER] = "reorder",     [NET_ACTION_RATE] = "rate",
        [NET_ACTION_DROP] = "drop",           [NET_ACTION_FLAP] = "flap",
        [NET_ACTION_DUPLICATE] = "duplicate", [NET_ACTION_CORRUPT] = "corrupt",
        [NET_ACTION_RESET] = "reset",         [NET_ACTION_REFUSE] = "refuse",
};

const char *net_action_to_string(enum net_action a) {
        return (unsigned)a < _NET_ACTION_MAX ? net_action_table[a] : NULL;
}

static const char *const param_type_table[_PARAM_TYPE_MAX] = {
        [PARAM_INTEGER] = "integer",   [PARAM_FLOAT] = "float", [PARAM_PERCENT] = "percent",
        [PARAM_DURATION] = "duration", [PARAM_BYTES] = "bytes", [PARAM_RATE] = "rate",
        [PARAM_STRING] = "string",     [PARAM_ENUM] = "enum",   [PARAM_DNS_NAME] = "dns_name",
        [PARAM_PATH] = "path",         [PARAM_URL] = "url",
};
DEFINE_STRING_TABLE_LOOKUP(param_type, enum param_type)

#define CATALOG_MAX 128

static const struct fault_def *by_id[CATALOG_MAX];
static size_t n_by_id;
static pthread_once_t by_id_once = PTHREAD_ONCE_INIT;

static int def_cmp(const void *a, const void *b) {
        return strcmp((*(const struct fault_def *const *)a)->id, (*(const struct fault_def *const *)b)->id);
}

/* Every family's entries, in id order. */
static void by_id_build(void) {
        const struct {
                const struct fault_def *defs;
                const size_t *n;
        } families[] = {
                { catalog_process, &catalog_process_count },
                { catalog_resource, &catalog_resource_count },
                { catalog_network, &catalog_network_count },
                { catalog_app, &catalog_app_count },
        };
        for (size_t f = 0; f < ELEMENTSOF(families); f++)
                for (size_t i = 0; i < *families[f].n; i++) {
                        assert(n_by_id < CATALOG_MAX);
                        by_id[n_by_id++] = &families[f].defs[i];
                }
        qsort(by_id, n_by_id, sizeof(by_id[0]), def_cmp);
}

size_t catalog_size(void) {
        pthread_once(&by_id_once, by_id_build);
        return n_by_id;
}

const struct fault_def *catalog_at(size_t i) {
        return i < catalog_size() ? by_id[i] : NULL;
}

const struct fault_def *catalog_find(const char *id) {
        for (size_t i = 0; i < catalog_size(); i++)
                if (strcmp(by_id[i]->id, id) == 0)
                        return by_id[i];
        return NULL;
}

const struct param_spec *fault_param_find(const struct fault_def *f, const char *name) {
        for (size_t i = 0; i < f->n_params; i++)
                if (strcmp(f->params[i].name, name) == 0 ||
                    (f->params[i].alias && strcmp(f->params[i].alias, name) == 0))
                        return &f->params[i];
        return NULL;
}

size_t catalog_ids(const char **ids, size_t max) {
        size_t n = 0;
        for (; n < catalog_size() && n < max; n++)
                ids[n] = by_id[n]->id;
        return n;
}

size_t node_kind_names(unsigned bits, const char *ret[_NODE_KIND_MAX]) {
        size_t n = 0;
        for (int k = 0; k < _NODE_KIND_MAX; k++)
                if (bits & NODE_BIT(k))
                        ret[n++] = node_kind_table[k];
        return n;
}

size_t fault_need_names(unsigned bits, const char *ret[_FAULT_NEED_MAX]) {
        size_t n = 0;
        for (int k = 0; k < _FAULT_NEED_MAX; k++)
                if (bits & NEED_BIT(k))
                        ret[n++] = fault_need_table[k];
        return n;
}

void param_value_format(const struct param_value *v, char *buf, size_t size) {
        switch (v->type) {
        case PARAM_INTEGER: snprintf(buf, size, "%" PRId64, v->i); break;
        case PARAM_FLOAT: snprintf(buf, size, "%g", v->f); break;
        case PARAM_PERCENT: snprintf(buf, size, "%g%%", v->f); break;
        case PARAM_DURATION: format_duration_ms(buf, size, v->i); break;
        case PARAM_BYTES: format_bytes(buf, size, v->u); break;
        case PARAM_RATE: format_rate_bps(buf, size, v->u); break;
        default:
                if (param_type_is_text(v->type))
                        snprintf(buf, size, "%s", v->s ? v->s : "");
                else
                        snprintf(buf, size, "?");
                break;
        }
}

const struct fault_comp *fault_comp_for(const struct fault_def *f, bool host_process) {
        return host_process && f->host_comp ? f->host_comp : &f->comp;
}

static size_t count(const char *const *names) {
        size_t n = 0;
        while (n < COMP_OPS_MAX && names[n])
                n++;
        return n;
}

size_t fault_comp_n_undo(const struct fault_comp *c) {
        return count(c->undo);
}

size_t fault_comp_n_verify(const struct fault_comp *c) {
        return count(c->verify);
}

unsigned fault_roles_on(const struct fault_def *f, bool host_process) {
        return ROLE_BIT(f->role) | (host_process ? ROLES_HOST_TARGET : 0u);
}

void agent_roles_for(const char *const *fault_ids, size_t n, bool host_targets, char *buf, size_t size) {
        unsigned roles = 0;
        size_t len = 0;
        for (size_t i = 0; i < n; i++) {
                const struct fault_def *f = catalog_find(fault_ids[i]);
                if (f)
                        roles |= fault_roles_on(f, host_targets);
        }
        if (size)
                buf[0] = '\0';
        for (int r = 0; r < _AGENT_ROLE_MAX; r++)
                if ((roles & ROLE_BIT(r)) && len < size)
                        len += (size_t)snprintf(
                                buf + len, size - len, "%s%s", len ? "," : "", agent_role_table[r]);
}
