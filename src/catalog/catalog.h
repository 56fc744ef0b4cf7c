#pragma once

/* The fault catalog: one constant entry per fault id, with the reference's
 * parameter names, defaults and ranges (shared/reference/mayhem-spec.md
 * §8.1, shared/DESIGN.md). The drill parser types and range-checks every
 * parameter against these schemas; the planner reads risk, node kinds and
 * mechanism from here. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fault_category {
        FAULT_CATEGORY_PROCESS,
        FAULT_CATEGORY_CONTAINER,
        FAULT_CATEGORY_CPU,
        FAULT_CATEGORY_MEMORY,
        FAULT_CATEGORY_FILESYSTEM,
        FAULT_CATEGORY_NETWORK,
        FAULT_CATEGORY_HTTP,
        FAULT_CATEGORY_DEPENDENCY,
        FAULT_CATEGORY_DATABASE,
        FAULT_CATEGORY_DNS,
        FAULT_CATEGORY_TLS,
        FAULT_CATEGORY_CLOCK,
        FAULT_CATEGORY_LOAD,
        _FAULT_CATEGORY_MAX,
};

enum risk {
        RISK_LOW,
        RISK_MEDIUM,
        RISK_HIGH,
        RISK_CRITICAL,
        _RISK_MAX,
};

enum node_kind {
        NODE_HOST,
        NODE_SERVICE,
        NODE_CONTAINER,
        NODE_PROCESS,
        NODE_EXTERNAL_DEPENDENCY,
        NODE_POD,
        NODE_K8S_NODE,
        _NODE_KIND_MAX,
};
#define NODE_BIT(k) (1u << (k))
#define NK_HOST     NODE_BIT(NODE_HOST)
#define NK_SVC      NODE_BIT(NODE_SERVICE)
#define NK_CTR      NODE_BIT(NODE_CONTAINER)
#define NK_PROC     NODE_BIT(NODE_PROCESS)
#define NK_EXT      NODE_BIT(NODE_EXTERNAL_DEPENDENCY)
#define NK_POD      NODE_BIT(NODE_POD)

/* What the reference calls required_caps. */
enum fault_need {
        FAULT_NEED_DOCKER_ENGINE,
        FAULT_NEED_NET_ADMIN,
        FAULT_NEED_PROCESS_CONTROL,
        FAULT_NEED_FS_CONTROL,
        FAULT_NEED_CGROUP_CONTROL,
        _FAULT_NEED_MAX,
};
#define NEED_BIT(n)    (1u << (n))
#define NEED_ENGINE    NEED_BIT(FAULT_NEED_DOCKER_ENGINE)
#define NEED_NET_ADMIN NEED_BIT(FAULT_NEED_NET_ADMIN)
#define NEED_PROCESS   NEED_BIT(FAULT_NEED_PROCESS_CONTROL)
#define NEED_FS        NEED_BIT(FAULT_NEED_FS_CONTROL)
#define NEED_CGROUP    NEED_BIT(FAULT_NEED_CGROUP_CONTROL)

enum reversibility {
        REVERSIBILITY_REVERSIBLE, /* undo puts back what was there */
        REVERSIBILITY_RECONCILED, /* undo restores service, not the same process */
        REVERSIBILITY_IRREVERSIBLE,
        _REVERSIBILITY_MAX,
};

/* How this implementation applies the fault (shared/DESIGN.md, "mechanism here"). */
enum mechanism {
        MECHANISM_SIGNAL,    /* signals through a pidfd */
        MECHANISM_ENGINE,    /* Docker/Podman Engine API */
        MECHANISM_CGROUP,    /* cgroup knobs (or engine update) */
        MECHANISM_PAYLOAD,   /* our own code forked into the target's namespaces and cgroup */
        MECHANISM_NET_SHAPE, /* netem qdisc, or the NFQUEUE shaper where the kernel has no netem */
        MECHANISM_TBF,       /* tbf qdisc */
        MECHANISM_NFT,       /* nftables rules in an owner table */
        MECHANISM_PROXY,     /* transparent proxy in the target's netns */
        MECHANISM_DNS,       /* DNS responder in the target's netns */
        MECHANISM_MOUNT,     /* remount in the target's mount namespace */
        MECHANISM_LOADGEN,   /* built-in load generator */
        MECHANISM_NONE,      /* catalog-only: refused */
        _MECHANISM_MAX,
};

enum param_type {
        PARAM_INTEGER,  /* int64 */
        PARAM_FLOAT,    /* double */
        PARAM_PERCENT,  /* double, "50" or "50%" */
        PARAM_DURATION, /* int64 milliseconds; "500ms", "10s", bare = seconds */
        PARAM_BYTES,    /* uint64 bytes; "64k", "256M" */
        PARAM_RATE,     /* uint64 bits per second; "10mbit", "2kbps" */
        PARAM_STRING,
        PARAM_ENUM, /* string restricted to choices */
        _PARAM_TYPE_MAX,
};

/* A typed parameter value. Which member is meaningful follows the type:
 * i for INTEGER and DURATION, u for BYTES and RATE, f for FLOAT and PERCENT,
 * s for STRING and ENUM. */
struct param_value {
        enum param_type type;
        union {
                int64_t i;
                uint64_t u;
                double f;
                const char *s;
        };
};

struct param_spec {
        const char *name;
        enum param_type type;
        bool required;
        bool has_default;
        struct param_value def;
        bool has_min, has_max; /* bounds in the value's own unit (ms, bytes, bit/s) */
        double min, max;
        const char *const *choices; /* PARAM_ENUM: NULL-terminated */
        /* Another accepted spelling: the reference's "seconds" (a duration) for
         * an integer *_ms parameter. The value is converted to milliseconds. */
        const char *alias;
        const char *help;
};

struct fault_def {
        const char *id;
        enum fault_category category;
        enum risk risk;
        unsigned max_duration_s;
        unsigned node_kinds; /* NK_* bits */
        unsigned needs;      /* NEED_* bits */
        enum reversibility reversibility;
        enum mechanism mechanism;
        const struct param_spec *params;
        size_t n_params;
        const char *effect; /* what the target sees while the fault is in force */
        const char *undo;   /* what compensation does */
        const char *verify; /* how the undo is proven */
        /* Catalog-only faults: refused before anything is touched, with this
         * reason and a suggested alternative. NULL for executable faults. */
        const char *refusal;
        const char *alternative;
};

size_t catalog_size(void);
const struct fault_def *catalog_at(size_t i);
const struct fault_def *catalog_find(const char *id);
/* By name or alias; NULL when the fault has no such parameter. */
const struct param_spec *fault_param_find(const struct fault_def *f, const char *name);
/* For suggestions: fills ids[] with up to max fault ids, returns the count. */
size_t catalog_ids(const char **ids, size_t max);

/* The names of the NK_* / NEED_* bits set in bits, in enum order; returns how many. */
size_t node_kind_names(unsigned bits, const char *ret[_NODE_KIND_MAX]);
size_t fault_need_names(unsigned bits, const char *ret[_FAULT_NEED_MAX]);

/* "10s", "64k", "10mbit", "50%", "\"SIGKILL\"" ... as a drill would spell it. */
void param_value_format(const struct param_value *v, char *buf, size_t size);

const char *fault_category_to_string(enum fault_category c);
int fault_category_from_string(const char *s);
const char *risk_to_string(enum risk r);
int risk_from_string(const char *s);
const char *node_kind_to_string(enum node_kind k);
int node_kind_from_string(const char *s);
const char *fault_need_to_string(enum fault_need n);
int fault_need_from_string(const char *s);
const char *reversibility_to_string(enum reversibility r);
int reversibility_from_string(const char *s);
const char *mechanism_to_string(enum mechanism m);
int mechanism_from_string(const char *s);
const char *param_type_to_string(enum param_type t);
int param_type_from_string(const char *s);
