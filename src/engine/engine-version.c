#include "engine-internal.h"

#include <stdio.h>
#include <string.h>

#include "basic/parse-number.h"

#define VERSION_PART_DIGITS 4

struct api_version {
        int major, minor;
};

static int parse_part(const char *s, size_t len, int *ret) {
        char digits[VERSION_PART_DIGITS + 1];
        int64_t v;

        if (len == 0 || len > VERSION_PART_DIGITS || strspn(s, "0123456789") < len)
                return -EINVAL;
        memcpy(digits, s, len);
        digits[len] = '\0';
        if (parse_int64(digits, &v) < 0)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

/* "1.41" -> {1, 41}; nothing else is accepted. */
static int api_version_parse(const char *s, struct api_version *ret) {
        const char *dot = strchr(s, '.');
        struct api_version v;

        if (!dot || parse_part(s, (size_t)(dot - s), &v.major) < 0 ||
            parse_part(dot + 1, strlen(dot + 1), &v.minor) < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int api_version_cmp(struct api_version a, struct api_version b) {
        return a.major != b.major ? a.major - b.major : a.minor - b.minor;
}

static int read_version(
        const struct ejson *j, const json_t *root, const char *key, bool required, struct api_version *ret) {
        char s[16] = "";

        int r = ejson_string(j, root, NULL, key, required, s, sizeof(s));
        if (r < 0 || !s[0])
                return r;
        if (api_version_parse(s, ret) < 0)
                return ejson_fail(j, NULL, key, "'%s' is not an API version", s);
        return 0;
}

static int refuse(const struct engine *e, struct api_version v, const char *why, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -EPROTONOSUPPORT, MH_EXIT_CONFIG_ERROR, "engine_version_unsupported",
                "the %s engine at %s speaks Engine API %d.%d%s; mayhem speaks %d.%d to %d.%d",
                engine_kind_display(e->kind), e->socket, v.major, v.minor, why, ENGINE_API_OURS_MAJOR,
                ENGINE_API_OLDEST_MINOR, ENGINE_API_OURS_MAJOR, ENGINE_API_OURS_MINOR);
}

/* The server's newest API capped at ours; refused below 1.24 and below the
 * server's own minimum (an engine that dropped the versions we speak). */
static int choose(
        const struct engine *e, struct api_version server, struct api_version server_min,
        struct api_version *ret, struct mh_error *reterr) {
        static const struct api_version ours = { ENGINE_API_OURS_MAJOR, ENGINE_API_OURS_MINOR };
        static const struct api_version oldest = { ENGINE_API_OURS_MAJOR, ENGINE_API_OLDEST_MINOR };
        struct api_version v = api_version_cmp(server, ours) < 0 ? server : ours;

        if (api_version_cmp(v, oldest) < 0)
                return refuse(e, v, " (too old)", reterr);
        if (api_version_cmp(v, server_min) < 0)
                return refuse(e, server_min, " or newer only", reterr);
        *ret = v;
        return 0;
}

/* Which engine answered. Podman names its first component "Podman Engine",
 * dockerd "Engine"; Platform.Name does not tell them apart (dockerd sends
 * "Docker Engine - Community" or, built by a distribution, ""; Podman sends
 * "linux/amd64/debian-12"). Without Components (before API 1.35) it is dockerd. */
static int read_server(const struct ejson *j, const json_t *root, enum engine_kind *ret) {
        json_t *components = NULL, *c;
        size_t i;

        int r = ejson_get(j, root, NULL, "Components", JSON_ARRAY, false, &components);
        if (r < 0)
                return r;
        *ret = ENGINE_DOCKER;
        json_array_foreach(components, i, c) {
                char where[48]; /* "Components[" + 20 digits + "]" */
                json_t *name;

                snprintf(where, sizeof(where), "Components[%zu]", i);
                if (!json_is_object(c))
                        return ejson_fail(j, where, NULL, "expected object, got %s", ejson_type_name(c));
                r = ejson_get(j, c, where, "Name", JSON_STRING, false, &name);
                if (r < 0)
                        return r;
                if (name && strncmp(json_string_value(name), "Podman", 6) == 0)
                        *ret = ENGINE_PODMAN;
        }
        return 0;
}

int engine_negotiate_version(struct engine *e, struct mh_error *reterr) {
        _cleanup_(json_decrefp) json_t *root = NULL;
        struct engine_call call = { .method = "GET", .path = "/version", .reply_type = JSON_OBJECT };
        struct ejson j = { .what = call.path, .reterr = reterr };
        struct api_version server = { 0, 0 }, server_min = { 0, 0 }, chosen = { 0, 0 };

        int r = engine_request(e, &call, NULL, &root, reterr);
        if (r >= 0)
                r = read_version(&j, root, "ApiVersion", true, &server);
        if (r >= 0)
                r = read_version(&j, root, "MinAPIVersion", false, &server_min);
        if (r >= 0)
                r = ejson_string(
                        &j, root, NULL, "Version", true, e->server_version, sizeof(e->server_version));
        if (r >= 0)
                r = read_server(&j, root, &e->server);
        if (r >= 0)
                r = choose(e, server, server_min, &chosen, reterr);
        if (r < 0)
                return r;
        snprintf(e->api_version, sizeof(e->api_version), "%d.%d", chosen.major, chosen.minor);
        return 0;
}
