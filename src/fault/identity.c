#include "fault.h"

#include <stdio.h>
#include <string.h>

#include "basic/proc-scope.h"

static void copy(char *dst, size_t size, const char *src) {
        snprintf(dst, size, "%s", src ? src : "");
}

int target_identity_resolve(
        struct engine *e, const char *container, struct target_identity *ret, struct mh_error *reterr) {
        struct engine_container c;
        struct target_identity t = { 0 };
        int r = engine_container_inspect(e, container, &c, reterr);
        if (r < 0)
                return r;
        copy(t.engine, sizeof(t.engine), engine_kind_of(e) == ENGINE_PODMAN ? "podman" : "docker");
        copy(t.container_id, sizeof(t.container_id), c.id);
        copy(t.container_name, sizeof(t.container_name), c.name);
        copy(t.started_at, sizeof(t.started_at), c.started_at);
        if (c.running && c.pid > 0 && (r = proc_identity_read(c.pid, &t.main, reterr)) < 0)
                return r;
        *ret = t;
        return 0;
}

/* "contained" only when true, so a container's identity and a host
 * process's outside containers read as they always have. */
json_t *target_identity_json(const struct target_identity *t) {
        json_t *o = json_pack(
                "{s:s, s:s, s:s, s:s, s:i, s:I}", "engine", t->engine, "container_id", t->container_id,
                "container_name", t->container_name, "started_at", t->started_at, "pid", (int)t->main.pid,
                "pid_start_time", (json_int_t)t->main.start_time);
        if (o && t->contained)
                json_object_set_new(o, "contained", json_true());
        return o;
}

int target_identity_from_json(const json_t *j, struct target_identity *ret, struct mh_error *reterr) {
        const char *engine = NULL, *id = NULL, *name = NULL, *started = NULL;
        int pid = 0, contained = 0;
        json_int_t start_time = 0;
        json_error_t err;
        if (json_unpack_ex(
                    (json_t *)j, &err, 0, "{s:s, s:s, s:s, s:s, s:i, s:I, s?b}", "engine", &engine,
                    "container_id", &id, "container_name", &name, "started_at", &started, "pid", &pid,
                    "pid_start_time", &start_time, "contained", &contained) < 0 ||
            pid < 0 || start_time < 0)
                return mh_error_fail(
                        reterr, -EPROTO, "bad_identity", "runtime identity in the lease is malformed: %s",
                        err.text);
        struct target_identity t = { .main = { .pid = pid, .start_time = (uint64_t)start_time },
                                     .contained = contained };
        copy(t.engine, sizeof(t.engine), engine);
        copy(t.container_id, sizeof(t.container_id), id);
        copy(t.container_name, sizeof(t.container_name), name);
        copy(t.started_at, sizeof(t.started_at), started);
        *ret = t;
        return 0;
}

int target_identity_of_process(
        int64_t pid, const char *name, enum proc_scope scope, struct target_identity *ret,
        struct mh_error *reterr) {
        struct target_identity t = { 0 };
        int r = pid > 0 ? proc_identity_read((pid_t)pid, &t.main, reterr)
                        : proc_find_by_name(name, scope, &t.main, reterr);
        if (r < 0)
                return r;
        copy(t.engine, sizeof(t.engine), "host");
        proc_comm(t.main.pid, t.container_name, sizeof(t.container_name));
        if (strcmp(t.container_name, "?") == 0)
                snprintf(t.container_name, sizeof(t.container_name), "pid %d", (int)t.main.pid);
        t.contained = proc_in_container(t.main.pid) != 0;
        *ret = t;
        return 0;
}

bool target_is_host_process(const struct target_identity *t) {
        return strcmp(t->engine, "host") == 0;
}
