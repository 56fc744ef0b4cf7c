#include "topology.h"

#include <stdio.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "compose-internal.h"
#include "topology-internal.h"

#define PROJECT_RULE                                                                                        \
        "lowercased and stripped of all but a-z, 0-9, '_' and '-', it must start with a letter or digit"

static int cmp_ref(const void *a, const void *b) {
        return strcmp(
                ((const struct compose_service_ref *)a)->name,
                ((const struct compose_service_ref *)b)->name);
}

/* Compose v2's normalisation; -EINVAL when nothing usable is left. */
static int project_from(const struct compose_ctx *c, const char *raw, char **ret) {
        char *p = arena_alloc(&c->t->arena, strlen(raw) + 1);
        size_t n = 0;

        if (!p)
                return compose_oom(c);
        for (const char *s = raw; *s; s++) {
                char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
                if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-')
                        p[n++] = ch;
        }
        p[n] = '\0';
        if (n == 0 || n > COMPOSE_NAME_MAX || p[0] == '_' || p[0] == '-')
                return -EINVAL;
        *ret = p;
        return 0;
}

static int project_from_directory(const struct compose_ctx *c) {
        _cleanup_free_ char *dir = strdup(c->path), *real = NULL;
        if (!dir)
                return compose_oom(c);
        char *slash = strrchr(dir, '/');
        if (slash)
                slash[slash == dir] = '\0'; /* "/x.yml" lives in "/" */
        real = realpath(slash ? dir : ".", NULL);
        const char *base = real ? real : slash ? dir : ".";
        base = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
        int r = project_from(c, base, &c->t->project);
        if (r != -EINVAL)
                return r;
        return mh_error_set(
                c->reterr, r, MH_EXIT_VALIDATION_ERROR, "validation",
                "%s: the directory name '%s' is no project name (%s); set name: in the file or "
                "COMPOSE_PROJECT_NAME",
                c->path, base, PROJECT_RULE);
}

/* COMPOSE_PROJECT_NAME, else name:, else the directory, as compose does. */
static int read_project(const struct compose_ctx *c, const struct ynode *root) {
        const char *env = compose_getenv(c, "COMPOSE_PROJECT_NAME", strlen("COMPOSE_PROJECT_NAME")), *s;
        const struct ynode *node = ynode_get(root, "name");

        int r = compose_string(c, node, "name", &s); /* checked even when the environment wins */
        if (r < 0)
                return r;
        if (env && *env) {
                r = project_from(c, env, &c->t->project);
                if (r == -EINVAL)
                        return mh_error_set(
                                c->reterr, r, MH_EXIT_VALIDATION_ERROR, "validation",
                                "COMPOSE_PROJECT_NAME='%s' is no project name (%s)", env, PROJECT_RULE);
                return r;
        }
        if (!s || !*s)
                return project_from_directory(c);
        r = project_from(c, s, &c->t->project);
        if (r == -EINVAL)
                return compose_fail(c, node, "name", "'%s' is no project name (%s)", s, PROJECT_RULE);
        return r;
}

static int read_top_networks(const struct compose_ctx *c, const struct ynode *root) {
        const struct ynode *node = ynode_get(root, "networks");
        char w[COMPOSE_WHERE_MAX];
        struct topology *t = c->t;

        int r = compose_expect(c, node, YNODE_MAP, true, "networks");
        size_t n = r >= 0 && node && node->kind == YNODE_MAP ? node->n_pairs : 0;
        if (r < 0)
                return r;
        if (n > COMPOSE_LIST_MAX)
                return compose_fail(c, node, "networks", "more than %u networks", COMPOSE_LIST_MAX);
        t->networks = arena_alloc_array(&t->arena, n + 1, sizeof(char *)); /* + "default" */
        if (!t->networks)
                return compose_oom(c);
        for (size_t i = 0; i < n; i++) {
                compose_where_key(w, "networks", node->pairs[i].key->text);
                r = compose_expect(c, node->pairs[i].value, YNODE_MAP, true, w);
                if (r >= 0)
                        r = compose_keep(c, node->pairs[i].key->text, &t->networks[t->n_networks++]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A service no active profile enables: kept by name, for messages. */
static int add_inactive(
        const struct compose_ctx *c, const struct ypair *p, const char *profiles, size_t *ret_index) {
        struct topology *t = c->t;
        struct topo_inactive *x = &t->inactive[t->n_inactive];
        char sw[COMPOSE_WHERE_MAX], w[COMPOSE_WHERE_MAX];
        const char *container = NULL;

        compose_where_key(sw, "services", p->key->text);
        compose_where_key(w, sw, "container_name");
        int r = compose_string(c, ynode_get(p->value, "container_name"), w, &container);
        *x = (struct topo_inactive){ 0 };
        if (r >= 0)
                r = compose_keep(c, p->key->text, &x->name);
        if (r >= 0)
                r = compose_keep(c, profiles, &x->profiles);
        if (r >= 0 && container && *container)
                r = compose_keep(c, container, &x->container_name);
        if (r < 0)
                return r;
        *ret_index = t->n_inactive++;
        return 0;
}

/* One service's entry: its name checked, its keys looked at, whether a
 * profile leaves it out. */
static int index_service(struct compose_ctx *c, const struct ypair *p, struct compose_service_ref *ref) {
        char w[COMPOSE_WHERE_MAX];
        const char *profiles = NULL;
        bool active = true;

        compose_where_key(w, "services", p->key->text);
        if (!compose_name_valid(p->key->text, false))
                return compose_fail(
                        c, p->key, w,
                        "invalid service name (compose takes [a-zA-Z0-9._-]+, at most %u characters)",
                        COMPOSE_NAME_MAX);
        int r = compose_check_service_keys(c, p->value, w);
        if (r >= 0)
                r = compose_service_active(c, p, &active, &profiles);
        if (r < 0)
                return r;
        *ref = (struct compose_service_ref){ .name = p->key->text, .active = active };
        if (!active)
                return add_inactive(c, p, profiles, &ref->index);
        ref->index = c->n_active;
        c->service_pairs[c->n_active++] = p;
        return 0;
}

/* The names, sorted, before any service is read: depends_on may point forward. */
static int index_services(struct compose_ctx *c, const struct ynode *services) {
        size_t n = services->n_pairs;
        struct compose_service_ref *refs = arena_alloc_array(c->scratch, MAX(n, 1), sizeof(*refs));
        const char **names = arena_alloc_array(c->scratch, MAX(n, 1), sizeof(*names));
        const struct ypair **pairs = arena_alloc_array(c->scratch, MAX(n, 1), sizeof(*pairs));

        if (n > TOPOLOGY_SERVICES_MAX)
                return compose_fail(c, services, "services", "more than %u services", TOPOLOGY_SERVICES_MAX);
        c->t->inactive = arena_alloc_array(&c->t->arena, MAX(n, 1), sizeof(*c->t->inactive));
        if (!refs || !names || !pairs || !c->t->inactive)
                return compose_oom(c);
        c->service_pairs = pairs;
        for (size_t i = 0; i < n; i++) {
                int r = index_service(c, &services->pairs[i], &refs[i]);
                if (r < 0)
                        return r;
                names[i] = refs[i].name;
        }
        qsort(refs, n, sizeof(*refs), cmp_ref);
        c->services_by_name = refs;
        c->service_names = names;
        c->n_services = n;
        return 0;
}

static int add_default_network(const struct compose_ctx *c) {
        struct topology *t = c->t;
        bool used = false;

        for (size_t i = 0; i < t->n_networks; i++)
                if (streq(t->networks[i], "default"))
                        return 0;
        for (size_t i = 0; !used && i < t->n_services; i++)
                for (size_t j = 0; !used && j < t->services[i].n_networks; j++)
                        used = streq(t->services[i].networks[j], "default");
        return used ? compose_keep(c, "default", &t->networks[t->n_networks++]) : 0;
}

/* container_name, or compose v2's <project>-<service>-<n>. */
static int name_container(
        const struct compose_ctx *c, const struct topo_service *svc, unsigned replica, char **ret) {
        if (svc->container_name) {
                *ret = svc->container_name;
                return 0;
        }
        size_t size = strlen(c->t->project) + strlen(svc->name) + 16;
        char *name = arena_alloc(&c->t->arena, size);
        if (!name)
                return compose_oom(c);
        snprintf(name, size, "%s-%s-%u", c->t->project, svc->name, replica);
        *ret = name;
        return 0;
}

static int make_containers(const struct compose_ctx *c, const struct ynode *services) {
        struct topology *t = c->t;
        size_t total = 0, k = 0;

        for (size_t i = 0; i < t->n_services; i++)
                total += t->services[i].replicas;
        if (total > TOPOLOGY_CONTAINERS_MAX)
                return compose_fail(
                        c, services, "services", "more than %u containers in all", TOPOLOGY_CONTAINERS_MAX);
        t->containers = arena_alloc_array(&t->arena, MAX(total, 1), sizeof(*t->containers));
        if (!t->containers)
                return compose_oom(c);
        for (size_t i = 0; i < t->n_services; i++) {
                t->services[i].first_container = k;
                for (unsigned n = 1; n <= t->services[i].replicas; n++, k++) {
                        t->containers[k] = (struct topo_container){ .service = i, .replica = n };
                        int r = name_container(c, &t->services[i], n, &t->containers[k].name);
                        if (r < 0)
                                return r;
                }
        }
        t->n_containers = total;
        return 0;
}

/* topology_index() finds name clashes and cycles; point at the key to blame. */
static int index_topology(const struct compose_ctx *c) {
        struct mh_error e = { 0 };
        char w[COMPOSE_WHERE_MAX], kw[COMPOSE_WHERE_MAX];
        size_t bad = 0;

        int r = topology_index(c->t, &bad, &e);
        if (r >= 0)
                return 0;
        if (r != -EEXIST && r != -ELOOP) {
                if (c->reterr)
                        *c->reterr = e;
                return r;
        }
        const struct ypair *p = c->service_pairs[bad];
        const char *key = r == -EEXIST ? "container_name" : "depends_on";
        const struct ynode *at = ynode_get(p->value, key);
        compose_where_key(w, "services", p->key->text);
        compose_where_key(kw, w, key);
        return compose_fail(c, at ? at : p->key, at ? kw : w, "%s", e.msg);
}

static int parse_services(struct compose_ctx *c, const struct ynode *services) {
        struct topology *t = c->t;
        int r = index_services(c, services);
        if (r < 0)
                return r;
        t->services = arena_alloc_array(&t->arena, MAX(c->n_active, 1), sizeof(*t->services));
        if (!t->services)
                return compose_oom(c);
        for (size_t i = 0; i < c->n_active; i++) {
                r = compose_service_parse(c, c->service_pairs[i], &t->services[i]);
                if (r < 0)
                        return r;
                t->n_services++;
        }
        return 0;
}

static int parse_root(struct compose_ctx *c, const struct ynode *root) {
        if (root->kind != YNODE_MAP)
                return compose_fail(
                        c, root, "", "expected a mapping at the top level, not %s", ynode_describe(root));
        const struct ynode *services = ynode_get(root, "services");
        if (!services)
                return compose_fail(c, root, "", "no services: mapping at the top level");
        int r = compose_expect(c, services, YNODE_MAP, false, "services");
        if (r >= 0)
                r = compose_check_top_keys(c, root);
        if (r >= 0)
                r = compose_read_active_profiles(c);
        if (r >= 0)
                r = read_project(c, root);
        if (r >= 0)
                r = read_top_networks(c, root);
        if (r >= 0)
                r = parse_services(c, services);
        if (r >= 0)
                r = add_default_network(c);
        if (r >= 0)
                r = make_containers(c, services);
        return r < 0 ? r : index_topology(c);
}

int compose_parse_with(
        const char *path, const char *data, size_t len, const struct compose_dotenv *dotenv,
        struct topology **ret, struct mh_error *reterr) {
        _cleanup_(ydoc_freep) struct ydoc *doc = NULL;
        _cleanup_(topology_freep) struct topology *t = NULL;
        const struct ydoc_limits limits = YDOC_LIMITS_DEFAULT;

        path = path ? path : "<input>";
        if (len > COMPOSE_FILE_MAX)
                return mh_error_set(
                        reterr, -EFBIG, MH_EXIT_VALIDATION_ERROR, "validation",
                        "%s: larger than the %u byte limit", path, COMPOSE_FILE_MAX);
        int r = ydoc_parse(path, data, len, &limits, &doc, reterr);
        if (r < 0)
                return r;
        t = topology_new(path);
        if (!t)
                return mh_error_set(
                        reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", path);
        struct compose_ctx c = {
                .path = t->source_path, .t = t, .scratch = &doc->arena, .reterr = reterr, .dotenv = dotenv
        };
        r = parse_root(&c, doc->root);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

int compose_parse(
        const char *path, const char *data, size_t len, struct topology **ret, struct mh_error *reterr) {
        return compose_parse_with(path, data, len, NULL, ret, reterr);
}

/* The project directory's .env, as compose reads it: the compose file's
 * directory. None is fine; one that cannot be read or parsed is an error. */
static int load_dotenv(const char *compose_path, struct compose_dotenv **ret, struct mh_error *reterr) {
        const char *slash = strrchr(compose_path, '/');
        _cleanup_free_ char *path = NULL;
        int n = slash ? (int)(slash - compose_path) + 1 : 0;
        struct stat st;

        if (asprintf(&path, "%.*s.env", n, compose_path) < 0)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (stat(path, &st) < 0 && errno == ENOENT) {
                *ret = NULL;
                return 0;
        }
        return compose_dotenv_load(path, ret, reterr);
}

int compose_load(const char *path, struct topology **ret, struct mh_error *reterr) {
        _cleanup_(compose_dotenv_freep) struct compose_dotenv *dotenv = NULL;
        _cleanup_free_ char *data = NULL;
        size_t len = 0;

        int r = read_file_bounded(path, COMPOSE_FILE_MAX, &data, &len, reterr);
        if (r >= 0)
                r = load_dotenv(path, &dotenv, reterr);
        if (r < 0)
                return r;
        return compose_parse_with(path, data, len, dotenv, ret, reterr);
}

int compose_find_default(const char *dir, char **ret_path, struct mh_error *reterr) {
        static const char *const names[] = {
                "compose.yaml",
                "compose.yml",
                "docker-compose.yml",
                "docker-compose.yaml",
        };
        size_t dlen = dir ? strlen(dir) : 0;
        bool slash = dlen > 0 && dir[dlen - 1] != '/';

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                struct stat st;
                char *p = NULL;
                if (asprintf(&p, "%s%s%s", dir ? dir : "", slash ? "/" : "", names[i]) < 0)
                        return mh_error_set(
                                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
                if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                        *ret_path = p;
                        return 0;
                }
                free(p);
        }
        return mh_error_set(
                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "compose_not_found",
                "no compose file in %s (looked for compose.yaml, compose.yml, docker-compose.yml and "
                "docker-compose.yaml); name one with -c FILE",
                dir ? dir : "the current directory");
}
