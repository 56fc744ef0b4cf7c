#include "engine.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/string-table.h"
#include "engine-internal.h"

static const char *const engine_kind_table[_ENGINE_KIND_MAX] = {
        [ENGINE_DOCKER] = "docker",
        [ENGINE_PODMAN] = "podman",
};

DEFINE_STRING_TABLE_LOOKUP(engine_kind, enum engine_kind)

const char *engine_kind_display(enum engine_kind k) {
        return k == ENGINE_PODMAN ? "Podman" : "Docker";
}

static int set_path(char *buf, size_t size, const char *path, struct mh_error *reterr) {
        if (!path[0])
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_CONFIG_ERROR, "engine_socket", "empty engine socket path");
        if (strlen(path) >= size)
                return mh_error_set(
                        reterr, -ENAMETOOLONG, MH_EXIT_CONFIG_ERROR, "engine_socket",
                        "engine socket path '%.200s...' is too long for a unix socket", path);
        memcpy(buf, path, strlen(path) + 1);
        return 0;
}

static int docker_socket(const char *docker_host, char *buf, size_t size, struct mh_error *reterr) {
        if (!docker_host || !docker_host[0])
                return set_path(buf, size, "/var/run/docker.sock", reterr);
        if (strncmp(docker_host, "unix://", 7) != 0)
                return mh_error_set(
                        reterr, -EPROTONOSUPPORT, MH_EXIT_CONFIG_ERROR, "engine_unsupported_host",
                        "DOCKER_HOST=%.200s is not supported: mayhem talks to the engine on its own host "
                        "over "
                        "a unix socket (the agent runs there); unset DOCKER_HOST or set it to "
                        "unix:///path/to/docker.sock",
                        docker_host);
        return set_path(buf, size, docker_host + 7, reterr);
}

int engine_default_socket(
        enum engine_kind kind, uid_t uid, const char *docker_host, const char *xdg_runtime_dir, char *buf,
        size_t size, struct mh_error *reterr) {
        char path[HTTP_UNIX_SOCKET_PATH_MAX * 2];

        if (kind == ENGINE_DOCKER)
                return docker_socket(docker_host, buf, size, reterr);
        if (uid == 0)
                return set_path(buf, size, "/run/podman/podman.sock", reterr);
        if (xdg_runtime_dir && xdg_runtime_dir[0] == '/')
                snprintf(path, sizeof(path), "%s/podman/podman.sock", xdg_runtime_dir);
        else
                snprintf(path, sizeof(path), "/run/user/%u/podman/podman.sock", (unsigned)uid);
        return set_path(buf, size, path, reterr);
}

int engine_open(
        enum engine_kind kind, const char *socket_path, struct engine **ret, struct mh_error *reterr) {
        _cleanup_(engine_freep) struct engine *e = NULL;
        int r;

        assert(kind >= 0 && kind < _ENGINE_KIND_MAX && ret);
        e = calloc(1, sizeof(*e));
        if (!e)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        e->kind = kind;
        if (socket_path)
                r = set_path(e->socket, sizeof(e->socket), socket_path, reterr);
        else
                r = engine_default_socket(
                        kind, geteuid(), getenv("DOCKER_HOST"), getenv("XDG_RUNTIME_DIR"), e->socket,
                        sizeof(e->socket), reterr);
        if (r >= 0)
                r = engine_negotiate_version(e, reterr);
        if (r >= 0)
                r = engine_read_info(e, reterr);
        if (r < 0) {
                /* Whatever went wrong, the environment is not usable: exit 3. */
                if (reterr)
                        reterr->exit = MH_EXIT_CONFIG_ERROR;
                return r;
        }
        *ret = TAKE_PTR(e);
        return 0;
}

struct engine *engine_free(struct engine *e) {
        free(e);
        return NULL;
}

const char *engine_api_version(const struct engine *e) {
        return e->api_version;
}

const char *engine_socket(const struct engine *e) {
        return e->socket;
}

const char *engine_server_version(const struct engine *e) {
        return e->server_version;
}

enum engine_kind engine_kind_of(const struct engine *e) {
        return e->kind;
}

const char *engine_server_name(const struct engine *e) {
        return engine_kind_to_string(e->server);
}

bool engine_is_rootless(const struct engine *e) {
        return e->rootless;
}
