#pragma once

/* A client for the Docker Engine API (and Podman's Docker-compatible API)
 * over the engine's unix socket: inspect, list and the lifecycle calls the
 * faults need. No docker CLI, no shell.
 *
 * A struct engine is read-only after engine_open(), so one engine may be
 * used from several threads at once; every call opens its own connection.
 *
 * Every function returns 0 or -errno and fills reterr on failure. Shared
 * error codes:
 *   -EINVAL   a name, id or signal failed validation (nothing was sent),
 *             or the engine answered HTTP 400
 *   -ENOENT   no such container (HTTP 404)
 *   -EBUSY    the engine refused in the container's state (HTTP 409; Podman
 *             answers HTTP 500 with cause "container state improper")
 *   -EACCES   HTTP 401/403
 *   -EIO      HTTP 5xx or another unexpected status
 *   -EPROTO   a malformed reply; the message names the field
 *   -EFBIG    the reply exceeded its size cap
 *   -ECONNREFUSED, -EACCES, ...  the socket does not answer (a missing
 *             socket file is -ECONNREFUSED too, so -ENOENT always means "no
 *             such container"); exit class CONFIG_ERROR, id "engine_unreachable"
 *   -ETIMEDOUT the engine took too long (id "engine_timeout")
 * Engine replies become one line: "<call>: <engine message> (HTTP <status>)".
 *
 * Podman (4.x) is spoken to through the same Docker-compatible API and the same
 * code; where its replies differ the parsers say so in a comment. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"

enum engine_kind {
        ENGINE_DOCKER,
        ENGINE_PODMAN,
        _ENGINE_KIND_MAX,
};

const char *engine_kind_to_string(enum engine_kind k); /* "docker", "podman" */
int engine_kind_from_string(const char *s);

struct engine;

/* Connects to the engine and negotiates the API version: GET /version, then
 * min(the server's ApiVersion, 1.43); below 1.24, or below the server's
 * MinAPIVersion, is refused. Then GET /info, for engine_is_rootless().
 * socket_path NULL picks the default:
 *   docker  $DOCKER_HOST when it is unix://PATH (any other scheme is refused:
 *           the agent runs on the engine's host), else /var/run/docker.sock
 *   podman  /run/podman/podman.sock as root, else
 *           $XDG_RUNTIME_DIR/podman/podman.sock (/run/user/UID/... without it)
 * Every failure has exit class CONFIG_ERROR; an engine that does not answer
 * has id "engine_unreachable" and a one-line message naming the socket, the
 * OS error and how to start the engine. */
int engine_open(
        enum engine_kind kind, const char *socket_path, struct engine **ret, struct mh_error *reterr);
struct engine *engine_free(struct engine *e);
DEFINE_FREEP(struct engine, engine_free)

const char *engine_api_version(const struct engine *e); /* negotiated, "1.41" */
const char *engine_socket(const struct engine *e);      /* the socket path in use */
/* The engine's own version: "20.10.24+dfsg1" (dockerd), "4.3.1" (Podman). */
const char *engine_server_version(const struct engine *e);
/* The kind asked for in engine_open() (which socket), not necessarily what answered. */
enum engine_kind engine_kind_of(const struct engine *e);
/* What answered on the socket, from GET /version's Components: "docker" or "podman". */
const char *engine_server_name(const struct engine *e);
/* The engine runs without root (rootless dockerd or a per-user Podman service),
 * from GET /info: SecurityOptions holds "name=rootless" (dockerd), or Podman's
 * own "Rootless": true. */
bool engine_is_rootless(const struct engine *e);

#define ENGINE_ID_MAX       65 /* 64 hex digits + NUL */
#define ENGINE_NAME_MAX     256
#define ENGINE_NETWORKS_MAX 8
#define ENGINE_PORTS_MAX    32
#define ENGINE_LIST_MAX     4096 /* containers in one list reply */

struct engine_network {
        char name[128];
        char ip[64]; /* "" when the engine reports none */
};

struct engine_port {
        uint16_t container_port;
        char protocol[8]; /* tcp udp sctp */
        char host_ip[64];
        uint16_t host_port; /* 0: not published */
};

struct engine_container {
        char id[ENGINE_ID_MAX];
        char name[ENGINE_NAME_MAX]; /* without the leading '/' */
        /* The image as the engine resolved it at creation: "busybox:latest" from
         * dockerd, "localhost/busybox:latest" from Podman (it names where it came from). */
        char image[256];
        /* created running paused restarting removing exited dead, and from Podman
         * also stopping (still running); Podman's stopped, configured and
         * initialized are reported as exited, created and created. */
        char status[24];
        bool running, paused, restarting;
        int pid; /* host pid of the main process, 0 when none */
        int exit_code;
        char started_at[48], finished_at[48]; /* as the engine reports them (RFC 3339) */
        char compose_project[128], compose_service[128];
        char restart_policy[32];
        struct engine_network networks[ENGINE_NETWORKS_MAX];
        size_t n_networks;
        struct engine_port ports[ENGINE_PORTS_MAX];
        size_t n_ports;
        bool more_networks, more_ports; /* the engine reported more than fit; the rest are left out */
        int64_t nano_cpus, cpu_quota, cpu_period, cpu_shares;
        char cgroup_parent[256];
        bool tty; /* Config.Tty (inspect only): its logs are raw text, not multiplexed */
};

/* name_or_id: [a-zA-Z0-9][a-zA-Z0-9_.-]* (names and hex ids both match). */
int engine_container_inspect(
        struct engine *e, const char *name_or_id, struct engine_container *ret, struct mh_error *reterr);

/* Containers of one compose project (label com.docker.compose.project), or
 * all with compose_project NULL; stopped ones too when all. Fills id, name,
 * image, status, running/paused/restarting, compose labels, ports and
 * networks from the list reply (pid, times, cpu and restart policy need
 * engine_container_inspect()). *ret is malloc()ed, free() it; NULL when
 * *ret_n is 0. More than ENGINE_LIST_MAX containers is -E2BIG. */
int engine_container_list(
        struct engine *e, const char *compose_project, bool all, struct engine_container **ret,
        size_t *ret_n, struct mh_error *reterr);

/* signal: "SIGKILL" or "KILL" form of HUP INT QUIT ILL TRAP ABRT BUS FPE KILL
 * USR1 SEGV USR2 PIPE ALRM TERM STOP CONT TSTP WINCH; NULL means SIGKILL.
 * A container that is not running: -EBUSY. (A paused one: dockerd refuses
 * with -EBUSY, Podman kills it.) */
/* What a throwaway container is limited to: 0 means no limit. */
struct engine_limits {
        int64_t nano_cpus, memory_bytes;
};
/* A container of image named name, labelled label=1, within limits,
 * created (not started); its id in ret_id. For throwaway measurement
 * targets (mayhem doctor --fidelity). -ENOENT when the image is not there. */
int engine_container_create(
        struct engine *e, const char *image, const char *name, const char *label,
        const struct engine_limits *limits, char ret_id[ENGINE_ID_MAX], struct mh_error *reterr);
/* Throwaway images, named name:latest (name as a container name, lower
 * case). engine_image_build() sends tar (a build context: a Dockerfile and
 * what it copies) to the engine's builder, labels the image label=1 and
 * checks the image is there afterwards; an error in the builder's stream
 * is -EIO with its message. engine_image_present(): 0 or -ENOENT.
 * engine_image_remove() removes it even when containers still use it. */
int engine_image_build(
        struct engine *e, const char *name, const char *label, const char *tar, size_t tar_len,
        struct mh_error *reterr);
int engine_image_present(struct engine *e, const char *name, struct mh_error *reterr);
int engine_image_remove(struct engine *e, const char *name, struct mh_error *reterr);
/* The cgroup's own counters as the engine's stats report them (GET stats,
 * one shot): CPU time used in ns (cpu_stats.cpu_usage.total_usage) and the
 * memory charged in bytes (memory_stats.usage). */
struct engine_stats {
        uint64_t cpu_ns, memory_bytes;
};
int engine_container_stats(
        struct engine *e, const char *id, struct engine_stats *ret, struct mh_error *reterr);
/* Removes the container, running or not, with its anonymous volumes. */
int engine_container_remove(struct engine *e, const char *id, struct mh_error *reterr);
int engine_container_kill(struct engine *e, const char *id, const char *signal, struct mh_error *reterr);
/* timeout_s: 0..3600, seconds the engine waits after SIGTERM before SIGKILL.
 * Already stopped (HTTP 304) is 0. */
int engine_container_stop(struct engine *e, const char *id, int timeout_s, struct mh_error *reterr);
/* Already running (HTTP 304) is 0. */
int engine_container_start(struct engine *e, const char *id, struct mh_error *reterr);
int engine_container_restart(struct engine *e, const char *id, int timeout_s, struct mh_error *reterr);
/* Already paused or not running: -EBUSY. */
int engine_container_pause(struct engine *e, const char *id, struct mh_error *reterr);
/* Not paused: -EALREADY (id "engine_not_paused"), so an undo can treat it as
 * done. Newer engines say so with HTTP 409; dockerd 20.10 answers HTTP 500 and
 * Podman HTTP 500 "container state improper", so after those the container
 * is inspected and its state decides. */
/* engine-exec.c: runs argv (n 1..ENGINE_EXEC_ARGV_MAX, no shell) in the
 * running container id through the engine's exec API (create, start
 * detached: no output is read, so none can grow without bound; inspect until
 * it exits or timeout_ms passes). 0 with *ret_exit_code; -ETIMEDOUT (the
 * process is left to the engine: exec instances cannot be killed by the
 * API); the engine's errors otherwise, its message in reterr (a missing
 * binary is the engine's "no such file" at start). */
#define ENGINE_EXEC_ARGV_MAX 64
int engine_container_exec(
        struct engine *e, const char *id, const char *const *argv, size_t n, int64_t timeout_ms,
        int *ret_exit_code, struct mh_error *reterr);
int engine_container_unpause(struct engine *e, const char *id, struct mh_error *reterr);

/* GET /containers/{id}/logs?stdout=1&stderr=1&timestamps=1&tail=N[&since=S]
 * (engine-logs.c). tail 1..ENGINE_LOGS_TAIL_MAX lines; since_s > 0: unix
 * seconds; max_bytes caps the body (a longer one is kept cut, truncated
 * set); timeout_ms bounds the exchange. The container is inspected first
 * for Config.Tty (ret->tty: raw text, else the multiplexed stream; see
 * log-stream.h). Release ret with engine_logs_done(). */
#define ENGINE_LOGS_TAIL_MAX 10000
struct engine_logs_query {
        int64_t tail, since_s, timeout_ms;
        size_t max_bytes;
};
struct engine_logs {
        char *body;
        size_t len;
        bool truncated, tty;
};
int engine_container_logs(
        struct engine *e, const char *name_or_id, const struct engine_logs_query *q, struct engine_logs *ret,
        struct mh_error *reterr);
void engine_logs_done(struct engine_logs *l);
