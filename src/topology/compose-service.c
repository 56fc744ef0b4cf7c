#include "compose-internal.h"

#include <inttypes.h>
#include <strings.h>

#include "basic/suggest.h"

#define DEFAULT_NETWORK "default"

static bool is_alnum(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

bool compose_name_valid(const char *s, bool container) {
        size_t n = strlen(s);
        if (n == 0 || n > COMPOSE_NAME_MAX || (container && (n < 2 || !is_alnum(s[0]))))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_alnum(s[i]) && !strchr("._-", s[i]))
                        return false;
        return true;
}

/* A string key of the service; empty reads as unset, as in compose. */
static int read_text(
        const struct compose_ctx *c, const struct ynode *n, const char *where, const char *key, char **ret) {
        char w[COMPOSE_WHERE_MAX];
        const char *s;

        compose_where_key(w, where, key);
        int r = compose_string(c, ynode_get(n, key), w, &s);
        if (r < 0 || !s || !*s)
                return r;
        return compose_keep(c, s, ret);
}

static int read_names(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX];
        int r = read_text(c, n, where, "image", &svc->image);
        if (r >= 0)
                r = read_text(c, n, where, "network_mode", &svc->network_mode);
        if (r >= 0)
                r = read_text(c, n, where, "container_name", &svc->container_name);
        if (r < 0 || !svc->container_name || compose_name_valid(svc->container_name, true))
                return r;
        compose_where_key(w, where, "container_name");
        return compose_fail(
                c, ynode_get(n, "container_name"), w,
                "invalid container name '%s' (docker takes [a-zA-Z0-9][a-zA-Z0-9_.-]+)",
                svc->container_name);
}

static int read_replicas(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        char wd[COMPOSE_WHERE_MAX], w[COMPOSE_WHERE_MAX];
        const struct ynode *deploy = ynode_get(n, "deploy");
        int64_t replicas = -1, scale = -1;

        compose_where_key(wd, where, "deploy");
        int r = compose_expect(c, deploy, YNODE_MAP, true, wd);
        compose_where_key(w, wd, "replicas");
        if (r >= 0)
                r = compose_uint(c, ynode_get(deploy, "replicas"), w, TOPOLOGY_REPLICAS_MAX, &replicas);
        compose_where_key(w, where, "scale");
        if (r >= 0)
                r = compose_uint(c, ynode_get(n, "scale"), w, TOPOLOGY_REPLICAS_MAX, &scale);
        if (r < 0)
                return r;
        if (replicas >= 0 && scale >= 0 && replicas != scale)
                return compose_fail(
                        c, ynode_get(n, "scale"), w, "%" PRId64 " differs from deploy.replicas: %" PRId64,
                        scale, replicas);
        svc->replicas = (size_t)(replicas >= 0 ? replicas : scale >= 0 ? scale : 1);
        return 0;
}

static int read_ports(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX];
        compose_where_key(w, where, "ports");
        return compose_ports_parse(c, ynode_get(n, "ports"), w, svc);
}

static int check_network(const struct compose_ctx *c, const struct compose_entry *e, const char *where) {
        const struct topology *t = c->t;
        if (streq(e->name, DEFAULT_NETWORK))
                return 0;
        for (size_t i = 0; i < t->n_networks; i++)
                if (streq(e->name, t->networks[i]))
                        return 0;
        const char *hint = suggest_closest(e->name, (const char *const *)t->networks, t->n_networks);
        if (hint)
                return compose_fail(
                        c, e->at, where, "undefined network '%s'; did you mean '%s'?", e->name, hint);
        return compose_fail(
                c, e->at, where, "undefined network '%s' (declare it under the top-level networks:)",
                e->name);
}

static int read_networks(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX], ew[COMPOSE_WHERE_MAX];
        const struct ynode *node = ynode_get(n, "networks");
        struct compose_entry *entries;
        size_t n_entries;

        compose_where_key(w, where, "networks");
        int r = compose_entries(c, node, w, COMPOSE_LIST_MAX, &entries, &n_entries);
        if (r < 0)
                return r;
        if (svc->network_mode && node && !ynode_is_null(node))
                return compose_fail(c, node, w, "cannot be combined with network_mode");
        if (!(svc->networks = arena_alloc_array(&c->t->arena, MAX(n_entries, 1), sizeof(char *))))
                return compose_oom(c);
        if (n_entries == 0 && !svc->network_mode) /* compose attaches such a service to "default" */
                return compose_keep(c, DEFAULT_NETWORK, &svc->networks[svc->n_networks++]);
        for (size_t i = 0; i < n_entries; i++) {
                compose_where_entry(ew, w, &entries[i]);
                r = check_network(c, &entries[i], ew);
                if (r >= 0 && entries[i].value)
                        r = compose_expect(c, entries[i].value, YNODE_MAP, true, ew);
                if (r >= 0)
                        r = compose_keep(c, entries[i].name, &svc->networks[svc->n_networks++]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_ref(const void *key, const void *elem) {
        return strcmp(key, ((const struct compose_service_ref *)elem)->name);
}

static int read_dependency(
        const struct compose_ctx *c, const struct compose_entry *e, const char *where,
        struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX];
        const struct compose_service_ref *ref =
                bsearch(e->name, c->services_by_name, c->n_services, sizeof(*ref), cmp_ref);
        const char *condition = NULL;
        size_t k = svc->n_depends_on;

        if (!ref) {
                const char *hint = suggest_closest(e->name, c->service_names, c->n_services);
                return compose_fail(
                        c, e->at, where, "unknown service '%s'%s%s%s", e->name,
                        hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
        }
        if (!ref->active) /* compose refuses it too: the service is not in the project */
                return compose_fail(
                        c, e->at, where,
                        "service '%s' is left out: none of its profiles (%s) is active (COMPOSE_PROFILES)",
                        e->name, c->t->inactive[ref->index].profiles);
        int r = compose_expect(c, e->value, YNODE_MAP, true, where);
        compose_where_key(w, where, "condition");
        if (r >= 0)
                r = compose_string(c, ynode_get(e->value, "condition"), w, &condition);
        if (r < 0)
                return r;
        int cond = condition ? topo_condition_from_string(condition) : TOPO_CONDITION_STARTED;
        if (cond < 0)
                return compose_fail(
                        c, ynode_get(e->value, "condition"), w,
                        "expected service_started, service_healthy or "
                        "service_completed_successfully, not '%s'",
                        condition);
        svc->depends_on_index[k] = ref->index;
        svc->depends_on_condition[k] = (enum topo_condition)cond;
        svc->n_depends_on++;
        return compose_keep(c, e->name, &svc->depends_on[k]);
}

static int read_depends_on(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX], ew[COMPOSE_WHERE_MAX];
        struct compose_entry *entries;
        size_t n_entries;

        compose_where_key(w, where, "depends_on");
        int r = compose_entries(
                c, ynode_get(n, "depends_on"), w, TOPOLOGY_SERVICES_MAX, &entries, &n_entries);
        if (r < 0 || n_entries == 0)
                return r;
        svc->depends_on = arena_alloc_array(&c->t->arena, n_entries, sizeof(char *));
        svc->depends_on_index = arena_alloc_array(&c->t->arena, n_entries, sizeof(size_t));
        svc->depends_on_condition = arena_alloc_array(&c->t->arena, n_entries, sizeof(enum topo_condition));
        if (!svc->depends_on || !svc->depends_on_index || !svc->depends_on_condition)
                return compose_oom(c);
        for (size_t i = 0; i < n_entries; i++) {
                compose_where_entry(ew, w, &entries[i]);
                r = read_dependency(c, &entries[i], ew, svc);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* "cap_net_admin" and "CAP_NET_ADMIN" are docker's spellings of NET_ADMIN. */
static bool normalize_capability(char *s) {
        if (strncasecmp(s, "CAP_", 4) == 0)
                memmove(s, s + 4, strlen(s + 4) + 1);
        for (char *p = s; *p; p++) {
                if (*p >= 'a' && *p <= 'z')
                        *p = (char)(*p - 'a' + 'A');
                if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
                        return false;
        }
        return *s != '\0';
}

static int read_cap_add(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX], iw[COMPOSE_WHERE_MAX];
        const struct ynode *node = ynode_get(n, "cap_add");

        compose_where_key(w, where, "cap_add");
        int r = compose_string_list(c, node, w, COMPOSE_LIST_MAX, &svc->cap_add, &svc->n_cap_add);
        for (size_t i = 0; r >= 0 && i < svc->n_cap_add; i++)
                if (!normalize_capability(svc->cap_add[i])) {
                        compose_where_index(iw, w, i);
                        r = compose_fail(
                                c, node->items[i], iw, "invalid capability '%s'", node->items[i]->text);
                }
        return r;
}

/* test: a string runs in a shell, a list is docker's own form. */
static int read_test(
        const struct compose_ctx *c, const struct ynode *node, const char *where,
        struct topo_healthcheck *h) {
        char w[COMPOSE_WHERE_MAX], iw[COMPOSE_WHERE_MAX];
        const struct ynode *test = ynode_get(node, "test");
        const char *s;
        int r;

        compose_where_key(w, where, "test");
        if (test && test->kind == YNODE_SCALAR && !ynode_is_null(test)) {
                r = compose_string(c, test, w, &s);
                if (r < 0)
                        return r;
                if (!(h->test = arena_alloc_array(&c->t->arena, 2, sizeof(char *))))
                        return compose_oom(c);
                h->n_test = 2;
                r = compose_keep(c, "CMD-SHELL", &h->test[0]);
                return r < 0 ? r : compose_keep(c, s, &h->test[1]);
        }
        r = compose_string_list(c, test, w, COMPOSE_LIST_MAX, &h->test, &h->n_test);
        if (r < 0 || h->n_test == 0)
                return r;
        if (streq(h->test[0], "NONE") || streq(h->test[0], "CMD") || streq(h->test[0], "CMD-SHELL"))
                return 0;
        compose_where_index(iw, w, 0);
        return compose_fail(c, test->items[0], iw, "expected NONE, CMD or CMD-SHELL, not '%s'", h->test[0]);
}

static int read_healthcheck_numbers(
        const struct compose_ctx *c, const struct ynode *node, const char *where,
        struct topo_healthcheck *h) {
        const struct {
                const char *key;
                int64_t *ret;
        } durations[] = {
                { "interval", &h->interval_ms },
                { "timeout", &h->timeout_ms },
                { "start_period", &h->start_period_ms },
        };
        char w[COMPOSE_WHERE_MAX];
        bool disable = false;
        int r = 0;

        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(durations); i++) {
                compose_where_key(w, where, durations[i].key);
                r = compose_duration(c, ynode_get(node, durations[i].key), w, durations[i].ret);
        }
        compose_where_key(w, where, "retries");
        if (r >= 0)
                r = compose_uint(c, ynode_get(node, "retries"), w, INT32_MAX, &h->retries);
        compose_where_key(w, where, "disable");
        if (r >= 0)
                r = compose_bool(c, ynode_get(node, "disable"), w, &disable);
        h->disabled = disable;
        return r;
}

static int read_healthcheck(
        const struct compose_ctx *c, const struct ynode *n, const char *where, struct topo_service *svc) {
        struct topo_healthcheck *h = &svc->healthcheck;
        const struct ynode *node = ynode_get(n, "healthcheck");
        char w[COMPOSE_WHERE_MAX];

        *h = (struct topo_healthcheck){
                .interval_ms = -1, .timeout_ms = -1, .start_period_ms = -1, .retries = -1
        };
        compose_where_key(w, where, "healthcheck");
        int r = compose_expect(c, node, YNODE_MAP, true, w);
        if (r < 0 || !node || ynode_is_null(node))
                return r;
        h->present = true;
        r = read_test(c, node, w, h);
        if (r >= 0)
                r = read_healthcheck_numbers(c, node, w, h);
        if (r >= 0 && h->n_test > 0 && streq(h->test[0], "NONE"))
                h->disabled = true;
        return r;
}

static int check_container_name(
        const struct compose_ctx *c, const struct ynode *n, const char *where,
        const struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX];
        if (!svc->container_name || svc->replicas == 1)
                return 0;
        compose_where_key(w, where, "container_name");
        return compose_fail(
                c, ynode_get(n, "container_name"), w,
                "'%s' names one container, but the service has %zu replicas", svc->container_name,
                svc->replicas);
}

int compose_service_parse(const struct compose_ctx *c, const struct ypair *p, struct topo_service *svc) {
        static int (*const readers[])(
                const struct compose_ctx *, const struct ynode *, const char *, struct topo_service *) = {
                read_names,      read_replicas, read_ports,       read_networks,
                read_depends_on, read_cap_add,  read_healthcheck,
        };
        char where[COMPOSE_WHERE_MAX];

        compose_where_key(where, "services", p->key->text);
        int r = compose_expect(c, p->value, YNODE_MAP, false, where);
        if (r >= 0)
                r = compose_keep(c, p->key->text, &svc->name);
        svc->line = p->key->line;
        svc->col = p->key->col;
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(readers); i++)
                r = readers[i](c, p->value, where, svc);
        return r < 0 ? r : check_container_name(c, p->value, where, svc);
}
