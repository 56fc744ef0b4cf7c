#pragma once

/* Shared by the compose reader's files: one parse context and typed
 * readers for the few compose keys we read. Every reader takes the node,
 * and "where", the node's YAML path ("services.api.ports[1]") that starts
 * the error message; the error points at the node's line and column. */

#include <stdbool.h>
#include <stdint.h>

#include "drill/ydoc.h"
#include "topology.h"

#define COMPOSE_NAME_MAX          255u         /* service, container and network names */
#define COMPOSE_VALUE_MAX         (64u * 1024) /* one scalar after interpolation */
#define COMPOSE_PORTS_MAX         1000u        /* per service, ranges expanded */
#define COMPOSE_LIST_MAX          1000u        /* networks, cap_add, test words, top-level networks */
#define COMPOSE_INTERPOLATE_DEPTH 8u           /* ${A:-${B:-...}} */
/* A longer YAML path would be cut from the message anyway. */
#define COMPOSE_WHERE_MAX MH_ERROR_MSG_MAX

#define COMPOSE_PROFILES_MAX 1000u /* active ones, and per service */

struct compose_service_ref {
        const char *name;
        size_t index; /* into topology.services when active, else into topology.inactive */
        bool active;
};

struct compose_ctx {
        const char *path;
        struct topology *t;    /* what we keep goes into t->arena */
        struct arena *scratch; /* the YAML document's arena, for temporaries */
        struct mh_error *reterr;
        const struct compose_dotenv *dotenv; /* NULL: none */
        const char **profiles;               /* the active ones (COMPOSE_PROFILES) */
        size_t n_profiles;
        const struct compose_service_ref *services_by_name; /* every service, sorted, for depends_on */
        const char **service_names;                         /* file order, for suggestions */
        size_t n_services;                                  /* in the file, active or not */
        const struct ypair **service_pairs;                 /* the active services' entries, file order */
        size_t n_active;
};

/* A list item ("db") or a mapping entry ("db: {condition: ...}"), the two
 * forms compose allows for networks and depends_on. */
struct compose_entry {
        const char *name;
        const struct ynode *at;    /* the item, or the key */
        const struct ynode *value; /* the mapping entry's value; NULL for an item */
        size_t index;
};

int compose_fail(
        const struct compose_ctx *c, const struct ynode *at, const char *where, const char *fmt, ...)
        _printf_(4, 5);
int compose_oom(const struct compose_ctx *c);
/* A line for topology.warnings, "FILE:LINE:COL: where: what"; -ENOMEM only. */
int compose_warn(
        const struct compose_ctx *c, const struct ynode *at, const char *where, const char *fmt, ...)
        _printf_(4, 5);
/* A variable from the environment, else from .env; name is len bytes, not NUL-terminated. */
const char *compose_getenv(const struct compose_ctx *c, const char *name, size_t len);
/* buf has COMPOSE_WHERE_MAX bytes: "parent.key", "parent[i]", or an entry in its form. */
void compose_where_key(char *buf, const char *parent, const char *key);
void compose_where_index(char *buf, const char *parent, size_t i);
void compose_where_entry(char *buf, const char *parent, const struct compose_entry *e);
/* node must be of kind; a null or absent node is accepted only when null_ok. */
int compose_expect(
        const struct compose_ctx *c, const struct ynode *node, enum ynode_kind kind, bool null_ok,
        const char *where);

/* Scalar readers. An absent or null node reads as "unset": 0 is returned
 * and *ret is left alone (compose_string sets it to NULL). Strings are
 * interpolated; the result lives in the scratch arena. */
int compose_string(
        const struct compose_ctx *c, const struct ynode *node, const char *where, const char **ret);
int compose_uint(
        const struct compose_ctx *c, const struct ynode *node, const char *where, int64_t max, int64_t *ret);
int compose_bool(const struct compose_ctx *c, const struct ynode *node, const char *where, bool *ret);
int compose_duration(const struct compose_ctx *c, const struct ynode *node, const char *where, int64_t *ret);
/* A copy in the topology's arena. */
int compose_keep(const struct compose_ctx *c, const char *s, char **ret);
/* A list of strings (null: none), kept in the topology's arena. */
int compose_string_list(
        const struct compose_ctx *c, const struct ynode *node, const char *where, size_t max, char ***ret,
        size_t *ret_n);
/* A list of names or a mapping keyed by name (null: none); duplicates are errors. */
int compose_entries(
        const struct compose_ctx *c, const struct ynode *node, const char *where, size_t max,
        struct compose_entry **ret, size_t *ret_n);

/* Expands ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?msg}, ${VAR?msg},
 * ${VAR:+alt}, ${VAR+alt}, $VAR and $$ in s from the environment, else .env. */
int compose_interpolate(
        const struct compose_ctx *c, const struct ynode *at, const char *where, const char *s,
        const char **ret);

/* Compose's rule for service names ([a-zA-Z0-9._-]+), or docker's for
 * container names ([a-zA-Z0-9][a-zA-Z0-9_.-]+); both at most COMPOSE_NAME_MAX. */
bool compose_name_valid(const char *s, bool container);
/* compose-keys.c: warnings for keys that are no compose keys (x-* is always
 * allowed), for include: and for extends:, which we do not follow. */
int compose_check_top_keys(const struct compose_ctx *c, const struct ynode *root);
int compose_check_service_keys(const struct compose_ctx *c, const struct ynode *svc, const char *where);
/* compose-profiles.c: the active profiles, and whether a service is active
 * (*ret), its profiles joined into *ret_profiles (scratch) when it is not. */
int compose_read_active_profiles(struct compose_ctx *c);
int compose_service_active(
        const struct compose_ctx *c, const struct ypair *p, bool *ret, const char **ret_profiles);
int compose_service_parse(const struct compose_ctx *c, const struct ypair *p, struct topo_service *svc);
int compose_ports_parse(
        const struct compose_ctx *c, const struct ynode *node, const char *where, struct topo_service *svc);
