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

/* Which role an agent needs to apply a fault (mayhem-agent serve --roles).
 * AGENT_ROLE_HOST is no fault's own: it is what a fault on a plain host
 * process needs besides the fault's role (fault_roles_on()), and it is not in
 * the default set, so an agent started without it touches only containers. */
enum agent_role {
        AGENT_ROLE_PROC,      /* "proc" or "process" */
        AGENT_ROLE_CONTAINER, /* "container" or "node" */
        AGENT_ROLE_CPU,
        AGENT_ROLE_MEMORY,  /* "memory" or "mem" */
        AGENT_ROLE_FS,      /* "fs" or "storage" */
        AGENT_ROLE_NETWORK, /* "network" or "net" */
        AGENT_ROLE_LOAD,
        AGENT_ROLE_FUZZ,
        AGENT_ROLE_HOST, /* plain host processes as targets */
        _AGENT_ROLE_MAX,
};
#define ROLE_BIT(r) (1u << (r))
/* What any target that is a plain host process needs. */
#define ROLES_HOST_TARGET ROLE_BIT(AGENT_ROLE_HOST)

/* What of the target a fault changes: the agent's resource_access check. */
enum resource_kind {
        RESOURCE_PROCESS,   /* its processes, through pidfds */
        RESOURCE_CONTAINER, /* its container, through the engine */
        RESOURCE_CGROUP,    /* its cgroup's knobs */
        RESOURCE_MOUNT,     /* its mount namespace and files */
        RESOURCE_NETNS,     /* its network namespace */
        RESOURCE_NONE,      /* nothing of the target: traffic sent to it from outside */
        _RESOURCE_KIND_MAX,
};

/* Faults of one class compete for the same state of a target: a second
 * lease of the class on a target that holds one is refused unless the class
 * stacks (conflict_class_stacks()), and never for the same fault twice. */
enum conflict_class {
        CONFLICT_RUN_STATE,       /* freezer and signals: paused, stopped, killed, restarted */
        CONFLICT_CPU_QUOTA,       /* the cgroup's CPU quota */
        CONFLICT_CPU_LOAD,        /* burners in the target's cgroup */
        CONFLICT_MEMORY,          /* balloons in the target's memory cgroup */
        CONFLICT_NETNS_SHAPING,   /* delay, rate, reorder, duplicate, corrupt in the netns */
        CONFLICT_NETNS_FILTERING, /* drop and reject rules in the netns */
        CONFLICT_NETNS_LINK,      /* the target's network devices themselves: state, MTU */
        CONFLICT_MOUNT,           /* remounts */
        CONFLICT_FS_SPACE,        /* space, inodes and I/O of the target's filesystem */
        CONFLICT_DESCRIPTORS,     /* descriptors and connections held open */
        CONFLICT_DNS,             /* the responder on port 53 */
        CONFLICT_L7_PROXY,        /* the transparent proxy on the service port */
        CONFLICT_LOAD,            /* load sent to the target */
        CONFLICT_CLOCK,
        _CONFLICT_CLASS_MAX,
};

/* What a network fault does to packets; how it is delivered (nftables, the
 * shaper, netem, tbf) is the impact gate's choice for the kernel at hand. */
enum net_action {
        NET_ACTION_NONE, /* not a packet fault */
        NET_ACTION_DELAY,
        NET_ACTION_REORDER,
        NET_ACTION_RATE,
        NET_ACTION_DROP, /* a share of the packets (share), or all of them */
        NET_ACTION_FLAP, /* all of them, switched on and off */
        NET_ACTION_DUPLICATE,
        NET_ACTION_CORRUPT,
        NET_ACTION_RESET,  /* TCP reset of established connections */
        NET_ACTION_REFUSE, /* TCP reset of the SYN, ICMP port unreachable for UDP */
        _NET_ACTION_MAX,
};

#define NET_SIDE_EGRESS  1u /* what the target sends (the output hook) */
#define NET_SIDE_INGRESS 2u /* what it receives (the input hook) */

/* A fault that always acts on one side (side != 0) acts on one port, which
 * it must be given (fixed_port, or its port param): it is port-bound. One
 * without a side acts where its direction param says, on every port unless
 * its scope params narrow it. */
struct net_facts {
        enum net_action action;
        unsigned side;        /* NET_SIDE_*; 0: the direction param */
        bool port_either;     /* the port param means traffic to or from it, not only to it */
        uint16_t fixed_port;  /* always this port (dns.timeout: 53); 0: the port param */
        const char *protocol; /* always this protocol ("tcp", "any"); NULL: the protocol param */
        const char *share;    /* the param with the share of packets affected; NULL: all of them */
        /* Also the target's own loopback: the resolver it asks may be
         * there, as Docker's 127.0.0.11 on a user-defined network is. */
        bool loopback;
        /* The fixed port is where the answers come from: ingress matches
         * the source port (dns.timeout drops the answers, so the query is
         * sent and waited for: a drop of what the target sends would fail
         * its send() at once with EPERM, no timeout). */
        bool answers;
};

/* Compensation, decided at plan time (reference controller/compensation.py):
 * the undo ops that put the target back, the verify probes that prove it,
 * the effect check that proves the fault was in force. Names are stable:
 * plans and the lease journal hold them, and the fault's mechanism
 * (src/fault/) implements each one; every undo op is idempotent and harmless
 * on a fault never applied. Unused slots are NULL. */
#define COMP_OPS_MAX 3
struct fault_comp {
        const char *undo[COMP_OPS_MAX];
        const char *verify[COMP_OPS_MAX];
        const char *effect;
};

enum param_type {
        PARAM_INTEGER,  /* int64 */
        PARAM_FLOAT,    /* double */
        PARAM_PERCENT,  /* double, "50" or "50%" */
        PARAM_DURATION, /* int64 milliseconds; "500ms", "10s", bare = seconds */
        PARAM_BYTES,    /* uint64 bytes; "64k", "256M" */
        PARAM_RATE,     /* uint64 bits per second; "10mbit", "2kbps" */
        PARAM_STRING,
        PARAM_ENUM,     /* string restricted to choices */
        PARAM_DNS_NAME, /* string: a DNS name (basic/text-kind.h) */
        PARAM_PATH,     /* string: an absolute path without ".." */
        PARAM_URL,      /* string: an http(s) URL, its port 1..65535 */
        _PARAM_TYPE_MAX,
};

/* The text kinds: a string that must also be what its kind says. */
static inline bool param_type_is_text(enum param_type t) {
        return t == PARAM_STRING || t == PARAM_ENUM || t == PARAM_DNS_NAME || t == PARAM_PATH ||
               t == PARAM_URL;
}

/* A typed parameter value. Which member is meaningful follows the type:
 * i for INTEGER and DURATION, u for BYTES and RATE, f for FLOAT and PERCENT,
 * s for STRING, ENUM and the other text kinds. */
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
        enum agent_role role;
        enum resource_kind resource;
        enum conflict_class conflict;
        /* The mechanism that applies it (src/fault/registry.c); NULL: none in
         * this version, so the fault is refused (catalog-only, or gated by the
         * planner like clock.skew). */
        const char *mechanism;
        struct net_facts net;
        struct fault_comp comp;
        const struct fault_comp *host_comp; /* on a plain host process, when it differs */
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

/* What this build does with a fault (discover faults, validation):
 * runnable: a mechanism of this build injects it;
 * planned_only: typed and planned with its undo, but no mechanism of this
 *   build injects it, so validation refuses it (exit 4);
 * catalog_only: refused with its reason (fault_def.refusal). */
enum fault_status {
        FAULT_STATUS_RUNNABLE,
        FAULT_STATUS_PLANNED_ONLY,
        FAULT_STATUS_CATALOG_ONLY,
        _FAULT_STATUS_MAX,
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
const char *agent_role_to_string(enum agent_role r);
/* Primary names and their aliases ("process", "node", "mem", "storage", "net"). */
int agent_role_from_string(const char *s);
/* The role names and aliases, for messages and suggestions; returns how many. */
size_t agent_role_names(const char **ret, size_t max);
const char *resource_kind_to_string(enum resource_kind k);
int resource_kind_from_string(const char *s);
const char *conflict_class_to_string(enum conflict_class c);
int conflict_class_from_string(const char *s);
bool conflict_class_stacks(enum conflict_class c);
/* Two faults on one target conflict when they are the same fault, or share
 * a conflict class that does not stack. */
bool faults_conflict(const struct fault_def *a, const struct fault_def *b);

/* What one second of def in force costs against the damage quota (reference
 * §5.3): the risk weight (low 1, medium 1, high 2, critical 4) times the
 * reversibility weight (reversible 1, reconciled 1.25, irreversible 2); 8
 * for NULL, a fault this catalog does not know. */
double fault_damage_weight(const struct fault_def *def);
const char *net_action_to_string(enum net_action a);

/* The compensation of f on a target: host_process picks host_comp where the
 * fault has one (nothing restarts a plain process the way an engine does). */
const struct fault_comp *fault_comp_for(const struct fault_def *f, bool host_process);
size_t fault_comp_n_undo(const struct fault_comp *c);
size_t fault_comp_n_verify(const struct fault_comp *c);
/* The roles (ROLE_BIT) an agent needs for f on a target: the fault's own,
 * and on a plain host process AGENT_ROLE_HOST too. */
unsigned fault_roles_on(const struct fault_def *f, bool host_process);
/* The roles of the given faults, as "proc,container" for mayhem-agent serve
 * --roles, with "host" when host_targets (some of them act on a plain host
 * process); unknown ids are skipped. */
void agent_roles_for(const char *const *fault_ids, size_t n, bool host_targets, char *buf, size_t size);
const char *param_type_to_string(enum param_type t);

/* The mechanisms this build implements, by the name fault_def.mechanism
 * uses (src/fault/registry.c has one vtable for each; tests/unit/test-fault.c
 * proves the two lists agree). */
bool catalog_mechanism_runnable(const char *name);
enum fault_status fault_status_of(const struct fault_def *f);
const char *fault_status_to_string(enum fault_status s);
int fault_status_from_string(const char *s);
/* The fault a catalog-only fault's alternative names first ("use ID ..."),
 * or NULL. */
const struct fault_def *fault_alternative_of(const struct fault_def *f);
/* How many catalog faults have status s. */
size_t catalog_count_status(enum fault_status s);

/* 0 when text is what the parameter's kind says (a DNS name, an absolute
 * path, an http URL; any text for a plain string), else -EINVAL with the
 * reason in why, to follow the quoted value. Enum choices are not checked. */
int param_text_check(const struct param_spec *p, const char *text, char *why, size_t size);
int param_type_from_string(const char *s);
