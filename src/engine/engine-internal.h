#pragma once

/* Shared by the engine client's files: the engine object, the one request
 * path (engine-request.c), type-checked JSON access (engine-json.c) and the
 * container parsers used by both inspect and list (engine-container.c). */

#include <jansson.h>
#include <sys/types.h>

#include "basic/strbuf.h"
#include "engine.h"
#include "http-client.h"
#include "unix-http.h"

#define ENGINE_API_OURS_MAJOR   1
#define ENGINE_API_OURS_MINOR   43 /* the newest API this client speaks */
#define ENGINE_API_OLDEST_MINOR 24 /* 1.24, Docker 1.12: the oldest we accept */
#define ENGINE_REPLY_MAX        (1u << 20)
#define ENGINE_LIST_REPLY_MAX   (8u << 20)
#define ENGINE_TIMEOUT_MS       30000
#define ENGINE_PATH_MAX         4096
#define ENGINE_MSG_MAX          300 /* bytes of an engine's error message kept */
#define ENGINE_SIGNAL_MAX       16  /* "SIGWINCH" + NUL, with room */

struct engine {
        enum engine_kind kind;   /* the socket the caller asked for */
        enum engine_kind server; /* what answered there, from GET /version */
        bool rootless;           /* from GET /info */
        char socket[HTTP_UNIX_SOCKET_PATH_MAX];
        char api_version[16];
        char server_version[64];
};

#ifndef json_auto_t /* jansson >= 2.11 defines json_decrefp() itself for GCC */
static inline void json_decrefp(json_t **p) {
        json_decref(*p);
}
#endif

/* engine.c */
const char *engine_kind_display(enum engine_kind k); /* "Docker", "Podman" */
/* The socket engine_open() uses without an explicit path; the environment is
 * passed in (docker_host, xdg_runtime_dir may be NULL) so tests can vary it. */
int engine_default_socket(
        enum engine_kind kind, uid_t uid, const char *docker_host, const char *xdg_runtime_dir, char *buf,
        size_t size, struct mh_error *reterr);

/* engine-version.c: GET /version, the choice of API version and which
 * engine answered (e->server). */
int engine_negotiate_version(struct engine *e, struct mh_error *reterr);

/* engine-info.c: GET /v<api>/info after the version is chosen; sets e->rootless. */
int engine_read_info(struct engine *e, struct mh_error *reterr);

/* engine-request.c */
struct engine_call {
        const char *method;
        const char *path;   /* "/version" or "/v1.41/containers/web/json" (see engine_path()) */
        size_t max_body;    /* 0: ENGINE_REPLY_MAX */
        int64_t timeout_ms; /* 0: ENGINE_TIMEOUT_MS */
        json_type
                reply_type; /* JSON_OBJECT or JSON_ARRAY: parse a 2xx reply as that; JSON_NULL: ignore it */
        long alt_status;    /* a status with its own meaning for this call ... */
        int alt_code;       /* ... 0: success (304 on start), < 0: that error (409 on unpause: -EALREADY) */
        /* Non-NULL: a 2xx reply's body is moved here as it came (logs), and
         * a body over max_body is kept cut (raw->truncated) instead of -EFBIG. */
        struct http_response *raw;
        const char *body;         /* JSON sent with the call, or NULL */
        size_t body_len;          /* 0: strlen(body) */
        const char *content_type; /* of body; NULL: application/json */
        /* Every number of the reply parsed as a real: a counter above 2^63
         * (Podman 4.3's stats: a negative usage_in_usermode wrapped around)
         * would otherwise refuse the whole reply. */
        bool numbers_as_reals;
};

/* Sends one call. Replies 2xx and alt_status are answers; >= 400 are errors
 * carrying the engine's message; transport failures are "engine_unreachable"
 * (a missing socket file is -ECONNREFUSED here: -ENOENT means "no such
 * container"). ret_status and ret_json (NULL unless a 2xx reply was parsed)
 * may be NULL. */
int engine_request(
        const struct engine *e, const struct engine_call *call, long *ret_status, json_t **ret_json,
        struct mh_error *reterr);
/* Appends "/v<api>" and the formatted rest to path. */
int engine_path(const struct engine *e, struct strbuf *path, struct mh_error *reterr, const char *fmt, ...)
        _printf_(4, 5);

/* engine-inspect.c: engine_container_inspect() within timeout_ms (0: ENGINE_TIMEOUT_MS). */
int engine_inspect_timed(
        struct engine *e, const char *name_or_id, int64_t timeout_ms, struct engine_container *ret,
        struct mh_error *reterr);

/* engine-image.c: the first "error" of a build's reply (a stream of JSON
 * objects, as Docker and Podman send it) in buf as one printable line, ""
 * when there is none before the stream ends or stops being JSON. */
void engine_build_stream_error(const char *body, size_t len, char *buf, size_t size);

/* engine-validate.c: checked before anything is sent. */
int engine_check_name(const char *name_or_id, struct mh_error *reterr);
int engine_check_project(const char *project, struct mh_error *reterr);
/* "KILL" or "SIGKILL" -> "SIGKILL" in ret (ENGINE_SIGNAL_MAX bytes); NULL -> "SIGKILL". */
int engine_signal_canonical(const char *signal, char *ret, struct mh_error *reterr);
bool engine_name_valid(const char *s, size_t max);

/* engine-json.c: every field read is type-checked; a wrong or missing one is
 * -EPROTO naming the field ("State.Pid: expected integer, got string"). JSON
 * null counts as absent. objname is the parent's path for messages (NULL at
 * the top). Optional fields that are absent leave the output untouched. */
struct ejson {
        const char *what; /* the call, "GET /v1.41/containers/web/json" */
        struct mh_error *reterr;
};

int ejson_fail(const struct ejson *j, const char *objname, const char *key, const char *fmt, ...)
        _printf_(4, 5);
int ejson_get(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, json_type type,
        bool required, json_t **ret);
int ejson_string(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, bool required,
        char *buf, size_t size);
int ejson_int(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, bool required,
        int64_t min, int64_t max, int64_t *ret);
int ejson_bool(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, bool required,
        bool *ret);
const char *ejson_type_name(const json_t *v);

/* engine-container.c */
int engine_parse_labels(
        const struct ejson *j, const json_t *obj, const char *objname, struct engine_container *c);
int engine_parse_networks(
        const struct ejson *j, const json_t *obj, const char *objname, struct engine_container *c);
/* "80/tcp" -> 80, "tcp" */
int engine_parse_port_key(
        const struct ejson *j, const char *objname, const char *key, uint16_t *ret_port, char *proto,
        size_t proto_size);
void engine_add_port(
        struct engine_container *c, uint16_t container_port, const char *proto, const char *host_ip,
        uint16_t host_port);
/* Podman's state names that differ from dockerd's become dockerd's (see engine.h). */
void engine_status_normalize(struct engine_container *c);
/* Sets running/paused/restarting from c->status (the list reply has no flags). */
void engine_flags_from_status(struct engine_container *c);
/* The engine's "/name" without the slash, and an id that is safe to send back. */
int engine_set_identity(
        const struct ejson *j, const char *objname, const char *name, struct engine_container *c);
