/* GET /info: what engine_open() keeps about the engine beyond its version. */

#include "engine-internal.h"

#include <stdio.h>
#include <string.h>

#define WHERE_MAX 48 /* "SecurityOptions[" + 20 digits + "]" */

/* dockerd lists "name=rootless" among its SecurityOptions when it runs
 * rootless (each entry is "name=X[,key=value...]"); Podman's compat /info
 * adds its own boolean "Rootless" (true for a per-user service) and, in some
 * versions, the same SecurityOptions entry. Either one decides. */
static int read_security_options(const struct ejson *j, const json_t *root, bool *rootless) {
        json_t *opts = NULL, *o;
        size_t i;

        int r = ejson_get(j, root, NULL, "SecurityOptions", JSON_ARRAY, false, &opts);
        if (r < 0)
                return r;
        json_array_foreach(opts, i, o) {
                char where[WHERE_MAX];
                const char *s;

                snprintf(where, sizeof(where), "SecurityOptions[%zu]", i);
                if (!json_is_string(o))
                        return ejson_fail(j, where, NULL, "expected string, got %s", ejson_type_name(o));
                s = json_string_value(o);
                if (strncmp(s, "name=rootless", 13) == 0 && (s[13] == '\0' || s[13] == ','))
                        *rootless = true;
        }
        return 0;
}

int engine_read_info(struct engine *e, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        _cleanup_(json_decrefp) json_t *root = NULL;
        bool rootless = false, podman_rootless = false;

        int r = engine_path(e, &path, reterr, "/info");
        if (r >= 0)
                r = engine_request(
                        e,
                        &(struct engine_call){
                                .method = "GET", .path = path.data, .reply_type = JSON_OBJECT },
                        NULL, &root, reterr);
        struct ejson j = { .what = path.data, .reterr = reterr };
        if (r >= 0)
                r = read_security_options(&j, root, &rootless);
        if (r >= 0)
                r = ejson_bool(&j, root, NULL, "Rootless", false, &podman_rootless);
        if (r < 0)
                return r;
        e->rootless = rootless || podman_rootless;
        return 0;
}
