#pragma once

/* The offline topology: services, their containers and networks, and the
 * depends_on graph, as a Docker Compose file describes them. Everything a
 * struct topology points to lives in its arena and dies with
 * topology_free(); callers never free a member. The live engine state is
 * compared against this later (drift), it is not read here. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/arena.h"
#include "basic/error.h"

#define TOPOLOGY_SERVICES_MAX   10000u
#define TOPOLOGY_CONTAINERS_MAX 100000u
#define TOPOLOGY_REPLICAS_MAX   1000u

struct topo_port {
        uint16_t container_port;
        uint16_t host_port; /* 0: no fixed host port (not published, or an ephemeral one the engine picks) */
        char *host_ip;      /* NULL: all addresses */
        char *protocol;     /* "tcp", "udp" or "sctp" */
};

/* Durations and retries are -1 when the file leaves them unset. */
struct topo_healthcheck {
        bool present;  /* the service has a healthcheck: key */
        bool disabled; /* disable: true, or test: ["NONE"] */
        char **test;   /* as docker takes it: "CMD-SHELL" first for the string form */
        size_t n_test;
        int64_t interval_ms, timeout_ms, start_period_ms;
        int64_t retries;
};

enum topo_condition {
        TOPO_CONDITION_STARTED,
        TOPO_CONDITION_HEALTHY,
        TOPO_CONDITION_COMPLETED,
        _TOPO_CONDITION_MAX,
};

/* "service_started", "service_healthy", "service_completed_successfully". */
const char *topo_condition_to_string(enum topo_condition c);
int topo_condition_from_string(const char *s);

struct topo_service {
        char *name;
        char *image;            /* NULL when the service only builds */
        char *container_name;   /* explicit container_name:, or NULL */
        char *network_mode;     /* network_mode: ("host", "none", "service:x", ...), or NULL */
        size_t replicas;        /* deploy.replicas or scale; 0 is allowed */
        size_t first_container; /* its containers are containers[first_container .. + replicas) */
        struct topo_port *ports;
        size_t n_ports;
        char **networks; /* names as written in the file; "default" when none and no network_mode */
        size_t n_networks;
        char **depends_on;
        size_t *depends_on_index; /* the same edges as indexes into topology.services */
        enum topo_condition *depends_on_condition;
        size_t n_depends_on;
        char **cap_add; /* upper case, without the CAP_ prefix: "NET_ADMIN", "ALL" */
        size_t n_cap_add;
        struct topo_healthcheck healthcheck;
        unsigned line, col; /* of the service's key in the compose file */
};

struct topo_inactive {
        char *name;
        char *container_name; /* its container_name:, or NULL */
        char *profiles;       /* as listed, ", " between them */
};

struct topo_container {
        char *name;
        size_t service;   /* index into topology.services */
        unsigned replica; /* 1-based */
};

struct topology {
        char *project;
        char *source_path;
        struct topo_service *services; /* in file order */
        size_t n_services;
        struct topo_container *containers; /* grouped by service, in service order */
        size_t n_containers;
        char **networks; /* declared at the top level, then "default" if a service uses it */
        size_t n_networks;
        /* Services left out because none of their profiles is active
         * (COMPOSE_PROFILES): not targets. */
        struct topo_inactive *inactive;
        size_t n_inactive;
        /* What the file says that we do not follow (unknown keys, include:),
         * one line each, "FILE:LINE:COL: where: what"; at most COMPOSE_WARNINGS_MAX. */
        const char **warnings;
        size_t n_warnings;

        /* Private: filled by the loader. */
        struct arena arena;
        const struct topo_service **services_by_name;
        const struct topo_container **containers_by_name;
        size_t *order; /* service indexes, each after every service it depends on */
};

/* A project's .env file (compose-dotenv.c has the format): variables for
 * interpolation, COMPOSE_PROJECT_NAME and COMPOSE_PROFILES; the environment
 * wins over it. Errors carry FILE:LINE:COL. */
#define COMPOSE_DOTENV_MAX       (1024u * 1024u)
#define COMPOSE_DOTENV_VARS_MAX  10000u
#define COMPOSE_DOTENV_VALUE_MAX (64u * 1024u)
struct compose_dotenv;
int compose_dotenv_parse(
        const char *path, const char *data, size_t len, struct compose_dotenv **ret,
        struct mh_error *reterr);
int compose_dotenv_load(const char *path, struct compose_dotenv **ret, struct mh_error *reterr);
/* The value of the variable name[0..len), NULL when the file does not set it. */
const char *compose_dotenv_get(const struct compose_dotenv *e, const char *name, size_t len);
size_t compose_dotenv_size(const struct compose_dotenv *e);
struct compose_dotenv *compose_dotenv_free(struct compose_dotenv *e);
DEFINE_FREEP(struct compose_dotenv, compose_dotenv_free)

/* Reads path (at most COMPOSE_FILE_MAX bytes), and the .env beside it when
 * there is one, parses and validates it. Services of profiles that are not
 * active (COMPOSE_PROFILES, comma-separated; "*" activates all) are left
 * out, into topology.inactive; a service with no profiles: is always there.
 * Keys that are no compose keys, extends: and include: are warnings.
 * Errors carry FILE:LINE:COL of the offending node and exit class VALIDATION. */
#define COMPOSE_FILE_MAX     (16u * 1024u * 1024u)
#define COMPOSE_WARNINGS_MAX 100u
int compose_load(const char *path, struct topology **ret, struct mh_error *reterr);
/* The same on bytes in memory, with the variables of dotenv (may be NULL);
 * path names the source in errors and, through its directory, gives the
 * default project name. */
int compose_parse_with(
        const char *path, const char *data, size_t len, const struct compose_dotenv *dotenv,
        struct topology **ret, struct mh_error *reterr);
int compose_parse(
        const char *path, const char *data, size_t len, struct topology **ret, struct mh_error *reterr);
/* Looks in dir (NULL: the current directory) for compose.yaml, compose.yml,
 * docker-compose.yml, docker-compose.yaml, in that order. *ret_path is
 * malloc()ed. -ENOENT when there is none, with a message saying what was
 * looked for. */
int compose_find_default(const char *dir, char **ret_path, struct mh_error *reterr);

struct topology *topology_free(struct topology *t);
DEFINE_FREEP(struct topology, topology_free)

/* Exact-name lookups, O(log n). NULL / -ENOENT when absent. */
const struct topo_container *topology_find_container(const struct topology *t, const char *name);
int topology_find_service(const struct topology *t, const char *name, size_t *ret_index);

/* A drill's target name to one container: a container name first, else a
 * service that has exactly one container. -ENOENT (unknown, with the known
 * names and a "did you mean"; a service no active profile enables says so), or -EINVAL (a service with
 * several containers, listing them). */
int topology_resolve(
        const struct topology *t, const char *target, const struct topo_container **ret,
        struct mh_error *reterr);

/* Every service that depends on service, directly or through others (not
 * service itself), in dependency order. Writes at most max indexes and
 * returns how many there are, so a caller may size its buffer with
 * max = n_services. Allocates nothing. */
size_t topology_dependents(const struct topology *t, size_t service, size_t *ret_services, size_t max);

/* {"project", "source", "services": [...], "containers": [...],
 *  "networks": [...], "edges": [{"from", "to", "condition"}],
 *  "inactive_services": [{"name", "profiles"}], "warnings": [...]}; an edge
 * points from a service to the one it depends on. -ENOMEM only. */
int topology_to_json(const struct topology *t, json_t **ret);
