/* Targets as the agent resolves them: containers through the engine socket
 * of its own configuration (never a path from a request), host processes
 * from its own /proc. */
#include "server-internal.h"

#include "basic/proc-scope.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/rpc.h"
#include "basic/proc-guard.h"

int agent_options_engine_socket(struct agent_options *opt, const char *value, char *msg, size_t size) {
        enum engine_kind kind = ENGINE_DOCKER;
        const char *path = value, *colon = strchr(value, ':');
        if (colon && value[0] != '/') {
                char name[16];
                int k;
                snprintf(
                        name, sizeof(name), "%.*s", (int)MIN((size_t)(colon - value), sizeof(name) - 1),
                        value);
                if ((k = engine_kind_from_string(name)) < 0) {
                        snprintf(
                                msg, size,
                                "--engine-socket %.100s: the kind before ':' must be docker or podman",
                                value);
                        return -EINVAL;
                }
                kind = (enum engine_kind)k;
                path = colon + 1;
        }
        if (!path[0] || strlen(path) >= AGENT_SOCKET_MAX) {
                snprintf(
                        msg, size, "--engine-socket %.100s: the path must be 1..%d bytes", value,
                        AGENT_SOCKET_MAX - 1);
                return -EINVAL;
        }
        memcpy(opt->engine_socket[kind], path, strlen(path) + 1);
        return 0;
}

struct engine *agent_engine(struct agent_state *s, enum engine_kind kind, char *msg, size_t size) {
        struct mh_error err = { 0 };
        struct engine *e;
        if ((unsigned)kind >= _ENGINE_KIND_MAX)
                return NULL;
        pthread_mutex_lock(&s->lock);
        if (!s->engines[kind]) {
                const char *path = s->opt->engine_socket[kind];
                if (engine_open(kind, path[0] ? path : NULL, &s->engines[kind], &err) < 0)
                        snprintf(msg, size, "%s", err.msg);
        }
        e = s->engines[kind];
        pthread_mutex_unlock(&s->lock);
        return e;
}

int agent_host_allowed(struct agent_state *s, const char *what, char *msg, size_t size) {
        if (agent_can_reach_host(&s->opt->caps))
                return 0;
        snprintf(
                msg, size, "agent '%s' not authorized to %s a host process: it needs role host",
                s->opt->agent_id, what);
        return RPC_SAFETY_REFUSED;
}

int agent_host_guard(pid_t pid, char *msg, size_t size) {
        char why[256];
        if (proc_guard_check(pid, getpid(), "agent", why, sizeof(why)) == PROC_GUARD_NONE)
                return 0;
        snprintf(msg, size, "%s: the agent never acts on it; nothing was touched", why);
        return RPC_TARGET_FORBIDDEN;
}

/* {"engine": "host", "pid": N | "name": NAME, "include_containers": bool}:
 * by name, only processes outside containers unless include_containers. */
static int resolve_host(
        struct agent_state *s, const json_t *t, struct target_identity *ret, char *msg, size_t size) {
        json_int_t pid = json_integer_value(json_object_get(t, "pid"));
        const char *name = json_string_value(json_object_get(t, "name"));
        enum proc_scope scope =
                json_is_true(json_object_get(t, "include_containers")) ? PROC_SCOPE_ANY : PROC_SCOPE_HOST;
        struct mh_error err = { 0 };
        int r;
        if ((r = agent_host_allowed(s, "resolve", msg, size)) < 0)
                return r;
        if ((pid <= 0 || pid > INT32_MAX) && (!name || !*name)) {
                snprintf(msg, size, "target.resolve: a host target needs a pid or a name");
                return RPC_INVALID_PARAMS;
        }
        if ((r = target_identity_of_process(pid > 0 ? pid : 0, name, scope, ret, &err)) < 0) {
                snprintf(msg, size, "%s", err.msg);
                return r == -ESRCH ? RPC_TARGET_MISSING : RPC_TASK_FAILED;
        }
        return agent_host_guard(ret->main.pid, msg, size);
}

/* {"engine": "docker"|"podman", "container": NAME} or a host process (resolve_host). */
static int resolve(
        struct agent_state *s, const json_t *t, struct target_identity *ret, char *msg, size_t size) {
        const char *engine = json_string_value(json_object_get(t, "engine"));
        struct mh_error err = { 0 };
        int kind, r;
        if (engine && strcmp(engine, "host") == 0)
                return resolve_host(s, t, ret, msg, size);
        const char *container = json_string_value(json_object_get(t, "container"));
        if (!engine || (kind = engine_kind_from_string(engine)) < 0 || !container || !*container) {
                snprintf(
                        msg, size,
                        "target.resolve: the target needs engine docker|podman|host and a "
                        "container");
                return RPC_INVALID_PARAMS;
        }
        struct engine *e = agent_engine(s, (enum engine_kind)kind, msg, size);
        if (!e)
                return RPC_TASK_FAILED;
        if ((r = target_identity_resolve(e, container, ret, &err)) < 0) {
                snprintf(msg, size, "%s", err.msg);
                return r == -ENOENT || r == -ESRCH ? RPC_TARGET_MISSING : RPC_TASK_FAILED;
        }
        return 0;
}

int agent_target_resolve(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        struct target_identity t;
        int r = resolve(s, json_object_get(params, "target"), &t, msg, size);
        if (r < 0)
                return r;
        *ret = json_pack("{s:o}", "identity", target_identity_json(&t));
        return 0;
}

static bool same(const struct target_identity *a, const struct target_identity *b) {
        return strcmp(a->container_id, b->container_id) == 0 && strcmp(a->started_at, b->started_at) == 0 &&
               a->main.pid == b->main.pid && a->main.start_time == b->main.start_time;
}

static int changed(
        const struct target_identity *was, const struct target_identity *now, char *msg, size_t size) {
        snprintf(
                msg, size,
                "target %s is not the one the controller resolved (started %s, main pid %d; now started %s, "
                "main pid %d): a restarted container or a reused pid is a new target; nothing was touched",
                was->container_name, was->started_at, (int)was->main.pid, now->started_at,
                (int)now->main.pid);
        return RPC_TARGET_CHANGED;
}

/* A host process named by the lease: never one the guard protects, in any
 * phase, whatever pid and start time the request claims. */
static int check_process(bool inject, struct target_identity *t, char *msg, size_t size) {
        struct target_identity now = *t;
        int r = t->main.pid > 0 ? agent_host_guard(t->main.pid, msg, size) : 0;
        if (r < 0)
                return r;
        r = t->main.pid > 0 ? proc_identity_read(t->main.pid, &now.main, NULL) : -ESRCH;
        if (r < 0 || now.main.start_time != t->main.start_time) {
                if (!inject) {
                        t->main = (struct proc_identity){ 0 }; /* gone: nothing of it to act on */
                        return 0;
                }
                if (r < 0) {
                        snprintf(
                                msg, size, "process %d of the lease is gone; nothing was touched",
                                (int)t->main.pid);
                        return RPC_TARGET_MISSING;
                }
                return changed(t, &now, msg, size);
        }
        return 0;
}

/* The kernel's word that an inject's target is the one the controller
 * journalled, without a round trip to the engine (~1 ms): the main process
 * runs with the journalled start time, before and after its cgroup is read,
 * and that cgroup's path names the container's full id (every engine's
 * cgroup does, systemd driver or cgroupfs). A restarted container has
 * another main process; a forged pid is in another cgroup. False: ask the
 * engine. */
static bool kernel_says_same(const struct target_identity *t) {
        struct proc_identity now;
        char cgroup[4096];
        size_t n = strlen(t->container_id);
        if (t->main.pid <= 0 || n != 64 || strspn(t->container_id, "0123456789abcdef") != n)
                return false;
        for (int look = 0; look < 2; look++) {
                if (proc_identity_read(t->main.pid, &now, NULL) < 0 || now.start_time != t->main.start_time)
                        return false;
                if (look == 0 && (proc_cgroup_text(t->main.pid, cgroup, sizeof(cgroup)) < 0 ||
                                  !strstr(cgroup, t->container_id)))
                        return false;
        }
        return true;
}

int agent_target_check(
        struct agent_state *s, struct engine *e, bool inject, struct target_identity *t, char *msg,
        size_t size) {
        struct target_identity now;
        struct mh_error err = { 0 };
        if (!e)
                return check_process(inject, t, msg, size);
        if (inject && kernel_says_same(t))
                return 0;
        int r = target_identity_resolve(e, t->container_id, &now, &err);
        if (r == -ENOENT && !inject) {
                t->main = (struct proc_identity){ 0 }; /* removed: the undo ops say what that means */
                return 0;
        }
        if (r < 0) {
                snprintf(msg, size, "%s", err.msg);
                return r == -ENOENT ? RPC_TARGET_MISSING : RPC_TASK_FAILED;
        }
        if (inject && !same(t, &now))
                return changed(t, &now, msg, size);
        *t = now;
        return 0;
}

int agent_target_of(
        struct agent_state *s, const json_t *target, struct target_identity *ret, char *msg, size_t size) {
        return resolve(s, target, ret, msg, size);
}
