#include "catalog.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

static const char *const mechanism_table[_MECHANISM_MAX] = {
        [MECHANISM_SIGNAL] = "signal",   [MECHANISM_ENGINE] = "engine",       [MECHANISM_CGROUP] = "cgroup",
        [MECHANISM_PAYLOAD] = "payload", [MECHANISM_NET_SHAPE] = "net_shape", [MECHANISM_TBF] = "tbf",
        [MECHANISM_NFT] = "nft",         [MECHANISM_PROXY] = "proxy",         [MECHANISM_DNS] = "dns",
        [MECHANISM_MOUNT] = "mount",     [MECHANISM_LOADGEN] = "loadgen",     [MECHANISM_NONE] = "none",
};
DEFINE_STRING_TABLE_LOOKUP(mechanism, enum mechanism)

static const char *const param_type_table[_PARAM_TYPE_MAX] = {
        [PARAM_INTEGER] = "integer",   [PARAM_FLOAT] = "float", [PARAM_PERCENT] = "percent",
        [PARAM_DURATION] = "duration", [PARAM_BYTES] = "bytes", [PARAM_RATE] = "rate",
        [PARAM_STRING] = "string",     [PARAM_ENUM] = "enum",
};
DEFINE_STRING_TABLE_LOOKUP(param_type, enum param_type)

size_t catalog_size(void) {
        return catalog_faults_count;
}

const struct fault_def *catalog_at(size_t i) {
        return i < catalog_faults_count ? &catalog_faults[i] : NULL;
}

const struct fault_def *catalog_find(const char *id) {
        for (size_t i = 0; i < catalog_faults_count; i++)
                if (strcmp(catalog_faults[i].id, id) == 0)
                        return &catalog_faults[i];
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
        for (; n < catalog_faults_count && n < max; n++)
                ids[n] = catalog_faults[n].id;
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
        case PARAM_STRING:
        case PARAM_ENUM: snprintf(buf, size, "%s", v->s ? v->s : ""); break;
        default: snprintf(buf, size, "?"); break;
        }
}
