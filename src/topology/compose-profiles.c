/* Compose profiles: a service that lists profiles: exists only when one of
 * them is active; one without profiles: always exists. The active ones come
 * from COMPOSE_PROFILES (the environment, else .env), comma-separated; "*"
 * activates every profile, as `docker compose --profile '*'` does. */

#include "compose-internal.h"

static bool is_blank(char ch) {
        return ch == ' ' || ch == '\t';
}

int compose_read_active_profiles(struct compose_ctx *c) {
        const char *s = compose_getenv(c, "COMPOSE_PROFILES", strlen("COMPOSE_PROFILES"));
        size_t n = 0;

        if (!s || !*s)
                return 0;
        const char **v = arena_alloc_array(c->scratch, COMPOSE_PROFILES_MAX, sizeof(*v));
        if (!v)
                return compose_oom(c);
        while (*s) {
                const char *end = strchrnul(s, ',');
                const char *a = s, *b = end;
                while (a < b && is_blank(*a))
                        a++;
                while (b > a && is_blank(b[-1]))
                        b--;
                if (b > a && n == COMPOSE_PROFILES_MAX)
                        return mh_error_set(
                                c->reterr, -E2BIG, MH_EXIT_VALIDATION_ERROR, "validation",
                                "COMPOSE_PROFILES names more than %u profiles", COMPOSE_PROFILES_MAX);
                if (b > a && !(v[n++] = arena_strndup(c->scratch, a, (size_t)(b - a))))
                        return compose_oom(c);
                s = *end ? end + 1 : end;
        }
        c->profiles = v;
        c->n_profiles = n;
        return 0;
}

static bool profile_active(const struct compose_ctx *c, const char *name) {
        for (size_t i = 0; i < c->n_profiles; i++)
                if (streq(c->profiles[i], "*") || streq(c->profiles[i], name))
                        return true;
        return false;
}

static int join(const struct compose_ctx *c, char *const *v, size_t n, const char **ret) {
        size_t size = 1;
        for (size_t i = 0; i < n; i++)
                size += strlen(v[i]) + 2;
        char *s = arena_alloc(c->scratch, size), *p = s;
        if (!s)
                return compose_oom(c);
        *s = '\0';
        for (size_t i = 0; i < n; i++)
                p += snprintf(p, size - (size_t)(p - s), "%s%s", i ? ", " : "", v[i]);
        *ret = s;
        return 0;
}

int compose_service_active(
        const struct compose_ctx *c, const struct ypair *p, bool *ret, const char **ret_profiles) {
        char sw[COMPOSE_WHERE_MAX], w[COMPOSE_WHERE_MAX], iw[COMPOSE_WHERE_MAX];
        const struct ynode *node = ynode_get(p->value, "profiles");
        char **names = NULL;
        size_t n = 0;
        bool active = false;

        compose_where_key(sw, "services", p->key->text);
        compose_where_key(w, sw, "profiles");
        int r = compose_string_list(c, node, w, COMPOSE_PROFILES_MAX, &names, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (!compose_name_valid(names[i], true)) {
                        compose_where_index(iw, w, i);
                        return compose_fail(
                                c, node->items[i], iw,
                                "invalid profile name '%s' (compose takes [a-zA-Z0-9][a-zA-Z0-9_.-]+)",
                                names[i]);
                }
                active = active || profile_active(c, names[i]);
        }
        *ret = n == 0 || active;
        return *ret ? 0 : join(c, names, n, ret_profiles);
}
