#include "topology.h"

#include <stdarg.h>
#include <stdio.h>

#include "basic/string-table.h"
#include "basic/suggest.h"
#include "topology-internal.h"

/* Names listed in a message before "… and N more". */
#define LIST_NAMES_MAX 10

static const char *const topo_condition_table[_TOPO_CONDITION_MAX] = {
        [TOPO_CONDITION_STARTED] = "service_started",
        [TOPO_CONDITION_HEALTHY] = "service_healthy",
        [TOPO_CONDITION_COMPLETED] = "service_completed_successfully",
};
DEFINE_STRING_TABLE_LOOKUP(topo_condition, enum topo_condition)

struct topology *topology_new(const char *source_path) {
        struct topology *t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        arena_init(&t->arena, 0);
        t->source_path = arena_strdup(&t->arena, source_path ? source_path : "<input>");
        if (!t->source_path)
                return topology_free(t);
        return t;
}

struct topology *topology_free(struct topology *t) {
        if (!t)
                return NULL;
        arena_free(&t->arena);
        free(t);
        return NULL;
}

/* Appends to a fixed message buffer; a message that does not fit is cut, which is fine for text. */
_printf_(4, 5) static void msg_append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
        va_list ap;
        if (*len >= size - 1)
                return;
        va_start(ap, fmt);
        int n = vsnprintf(buf + *len, size - *len, fmt, ap);
        va_end(ap);
        if (n > 0)
                *len = MIN(size - 1, *len + (size_t)n);
}

static int cmp_service(const void *a, const void *b) {
        return strcmp(
                (*(const struct topo_service *const *)a)->name,
                (*(const struct topo_service *const *)b)->name);
}

static int cmp_container(const void *a, const void *b) {
        return strcmp(
                (*(const struct topo_container *const *)a)->name,
                (*(const struct topo_container *const *)b)->name);
}

static int sort_names(struct topology *t, size_t *ret_service, struct mh_error *reterr) {
        t->services_by_name = arena_alloc_array(&t->arena, t->n_services, sizeof(*t->services_by_name));
        t->containers_by_name =
                arena_alloc_array(&t->arena, t->n_containers, sizeof(*t->containers_by_name));
        if (!t->services_by_name || !t->containers_by_name)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        for (size_t i = 0; i < t->n_services; i++)
                t->services_by_name[i] = &t->services[i];
        for (size_t i = 0; i < t->n_containers; i++)
                t->containers_by_name[i] = &t->containers[i];
        qsort(t->services_by_name, t->n_services, sizeof(*t->services_by_name), cmp_service);
        qsort(t->containers_by_name, t->n_containers, sizeof(*t->containers_by_name), cmp_container);

        for (size_t i = 1; i < t->n_containers; i++) {
                const struct topo_container *a = t->containers_by_name[i - 1], *b = t->containers_by_name[i];
                if (!streq(a->name, b->name))
                        continue;
                size_t first = MIN(a->service, b->service), second = MAX(a->service, b->service);
                /* Blame an explicit container_name, the later one when both have it. */
                bool later = t->services[second].container_name || !t->services[first].container_name;
                *ret_service = later ? second : first;
                return mh_error_set(
                        reterr, -EEXIST, MH_EXIT_VALIDATION_ERROR, "validation",
                        "container name '%s' is used by service '%s' and by service '%s'", a->name,
                        t->services[first].name, t->services[second].name);
        }
        return 0;
}

/* Reverse edges in compressed form: the services depending on s are
 * list[start[s] .. start[s + 1]). */
static int build_dependents(const struct topology *t, size_t **ret_start, size_t **ret_list) {
        size_t n_edges = 0;
        for (size_t i = 0; i < t->n_services; i++)
                n_edges += t->services[i].n_depends_on;

        _cleanup_free_ size_t *start = calloc(t->n_services + 1, sizeof(size_t));
        _cleanup_free_ size_t *list = calloc(MAX(n_edges, 1), sizeof(size_t));
        _cleanup_free_ size_t *fill = calloc(t->n_services + 1, sizeof(size_t));
        if (!start || !list || !fill)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_services; i++)
                for (size_t j = 0; j < t->services[i].n_depends_on; j++)
                        start[t->services[i].depends_on_index[j] + 1]++;
        for (size_t i = 0; i < t->n_services; i++)
                start[i + 1] += start[i];
        memcpy(fill, start, (t->n_services + 1) * sizeof(size_t));
        for (size_t i = 0; i < t->n_services; i++)
                for (size_t j = 0; j < t->services[i].n_depends_on; j++)
                        list[fill[t->services[i].depends_on_index[j]]++] = i;
        *ret_start = TAKE_PTR(start);
        *ret_list = TAKE_PTR(list);
        return 0;
}

/* Follows unresolved edges from the first service left over by the
 * topological sort until a service repeats: that loop is a cycle. */
static int describe_cycle(
        const struct topology *t, const size_t *pending, size_t *ret_service, struct mh_error *reterr) {
        _cleanup_free_ size_t *pos = malloc(t->n_services * sizeof(size_t));
        _cleanup_free_ size_t *path = malloc(t->n_services * sizeof(size_t));
        char msg[MH_ERROR_MSG_MAX];
        size_t len = 0, n = 0, s = 0;

        if (!pos || !path)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        memset(pos, 0xff, t->n_services * sizeof(size_t));
        while (pending[s] == 0)
                s++;
        while (pos[s] == SIZE_MAX) {
                const struct topo_service *svc = &t->services[s];
                pos[s] = n;
                path[n++] = s;
                for (size_t j = 0; j < svc->n_depends_on; j++)
                        if (pending[svc->depends_on_index[j]] > 0) {
                                s = svc->depends_on_index[j];
                                break;
                        }
        }
        msg_append(msg, sizeof(msg), &len, "dependency cycle:");
        for (size_t i = pos[s]; i < n; i++)
                msg_append(msg, sizeof(msg), &len, " %s ->", t->services[path[i]].name);
        msg_append(msg, sizeof(msg), &len, " %s", t->services[s].name);
        *ret_service = s;
        return mh_error_set(reterr, -ELOOP, MH_EXIT_VALIDATION_ERROR, "validation", "%s", msg);
}

/* Kahn's algorithm; t->order doubles as its queue. */
static int order_services(struct topology *t, size_t *ret_service, struct mh_error *reterr) {
        _cleanup_free_ size_t *start = NULL, *list = NULL;
        _cleanup_free_ size_t *pending = calloc(MAX(t->n_services, 1), sizeof(size_t));
        size_t head = 0, tail = 0;

        t->order = arena_alloc_array(&t->arena, t->n_services, sizeof(size_t));
        if (!pending || !t->order || build_dependents(t, &start, &list) < 0)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        for (size_t i = 0; i < t->n_services; i++) {
                pending[i] = t->services[i].n_depends_on;
                if (pending[i] == 0)
                        t->order[tail++] = i;
        }
        while (head < tail) {
                size_t s = t->order[head++];
                for (size_t k = start[s]; k < start[s + 1]; k++)
                        if (--pending[list[k]] == 0)
                                t->order[tail++] = list[k];
        }
        if (tail < t->n_services)
                return describe_cycle(t, pending, ret_service, reterr);
        return 0;
}

int topology_index(struct topology *t, size_t *ret_service, struct mh_error *reterr) {
        if (t->n_services > TOPOLOGY_SERVICES_MAX || t->n_containers > TOPOLOGY_CONTAINERS_MAX)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_VALIDATION_ERROR, "validation",
                        "more than %u services or %u containers", TOPOLOGY_SERVICES_MAX,
                        TOPOLOGY_CONTAINERS_MAX);
        int r = sort_names(t, ret_service, reterr);
        if (r < 0)
                return r;
        return order_services(t, ret_service, reterr);
}

static int cmp_key_container(const void *key, const void *elem) {
        return strcmp(key, (*(const struct topo_container *const *)elem)->name);
}

static int cmp_key_service(const void *key, const void *elem) {
        return strcmp(key, (*(const struct topo_service *const *)elem)->name);
}

const struct topo_container *topology_find_container(const struct topology *t, const char *name) {
        const struct topo_container *const *p =
                bsearch(name, t->containers_by_name, t->n_containers, sizeof(*p), cmp_key_container);
        return p ? *p : NULL;
}

int topology_find_service(const struct topology *t, const char *name, size_t *ret_index) {
        const struct topo_service *const *p =
                bsearch(name, t->services_by_name, t->n_services, sizeof(*p), cmp_key_service);
        if (!p)
                return -ENOENT;
        *ret_index = (size_t)(*p - t->services);
        return 0;
}

/* "a, b, c, … and N more" for containers[first .. first + count). */
static void append_containers(
        const struct topology *t, size_t first, size_t count, char *buf, size_t size, size_t *len) {
        for (size_t i = 0; i < MIN(count, (size_t)LIST_NAMES_MAX); i++)
                msg_append(buf, size, len, "%s%s", i ? ", " : "", t->containers[first + i].name);
        if (count > LIST_NAMES_MAX)
                msg_append(buf, size, len, ", … and %zu more", count - LIST_NAMES_MAX);
}

static const char *suggest_target(const struct topology *t, const char *target) {
        size_t n = t->n_containers + t->n_services;
        _cleanup_free_ const char **names = malloc(MAX(n, 1) * sizeof(*names));
        if (!names)
                return NULL; /* the message loses its hint, nothing else */
        for (size_t i = 0; i < t->n_containers; i++)
                names[i] = t->containers[i].name;
        for (size_t i = 0; i < t->n_services; i++)
                names[t->n_containers + i] = t->services[i].name;
        return suggest_closest(target, names, n);
}

static const struct topo_inactive *find_inactive(const struct topology *t, const char *target) {
        for (size_t i = 0; i < t->n_inactive; i++)
                if (streq(t->inactive[i].name, target) ||
                    (t->inactive[i].container_name && streq(t->inactive[i].container_name, target)))
                        return &t->inactive[i];
        return NULL;
}

static int unknown_target(const struct topology *t, const char *target, struct mh_error *reterr) {
        const struct topo_inactive *off = find_inactive(t, target);
        char msg[MH_ERROR_MSG_MAX];
        size_t len = 0;

        if (off)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "unknown_target",
                        "'%s' is service '%s' of %s, left out: none of its profiles (%s) is active (set "
                        "COMPOSE_PROFILES)",
                        target, off->name, t->source_path, off->profiles);
        msg_append(
                msg, sizeof(msg), &len, "no container or service named '%s' in %s (", target,
                t->source_path);
        if (t->n_containers == 0)
                msg_append(msg, sizeof(msg), &len, "it defines no containers");
        else {
                msg_append(msg, sizeof(msg), &len, "known: ");
                append_containers(t, 0, t->n_containers, msg, sizeof(msg), &len);
        }
        msg_append(msg, sizeof(msg), &len, ")");
        const char *hint = suggest_target(t, target);
        if (hint)
                msg_append(msg, sizeof(msg), &len, "; did you mean '%s'?", hint);
        return mh_error_set(reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "unknown_target", "%s", msg);
}

static int ambiguous_service(
        const struct topology *t, const struct topo_service *svc, struct mh_error *reterr) {
        char msg[MH_ERROR_MSG_MAX];
        size_t len = 0;

        if (svc->replicas == 0)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "unknown_target",
                        "service '%s' has no containers (it is scaled to 0)", svc->name);
        msg_append(
                msg, sizeof(msg), &len, "service '%s' has %zu containers; name one of them: ", svc->name,
                svc->replicas);
        append_containers(t, svc->first_container, svc->replicas, msg, sizeof(msg), &len);
        return mh_error_set(reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "ambiguous_target", "%s", msg);
}

int topology_resolve(
        const struct topology *t, const char *target, const struct topo_container **ret,
        struct mh_error *reterr) {
        const struct topo_container *c = topology_find_container(t, target);
        size_t s;

        if (!c && topology_find_service(t, target, &s) >= 0) {
                if (t->services[s].replicas != 1)
                        return ambiguous_service(t, &t->services[s], reterr);
                c = &t->containers[t->services[s].first_container];
        }
        if (!c)
                return unknown_target(t, target, reterr);
        *ret = c;
        return 0;
}

/* One pass in dependency order suffices: a service's dependencies are all
 * decided before it is looked at. The bitmap is bounded by TOPOLOGY_SERVICES_MAX. */
size_t topology_dependents(const struct topology *t, size_t service, size_t *ret_services, size_t max) {
        uint64_t hit[(TOPOLOGY_SERVICES_MAX + 63) / 64] = { 0 };
        size_t n = 0;
        bool after = false;

        if (service >= t->n_services || t->n_services > TOPOLOGY_SERVICES_MAX)
                return 0;
        hit[service / 64] |= UINT64_C(1) << (service % 64);
        for (size_t k = 0; k < t->n_services; k++) {
                size_t s = t->order[k];
                const struct topo_service *svc = &t->services[s];
                after = after || s == service;
                for (size_t j = 0; after && s != service && j < svc->n_depends_on; j++) {
                        size_t d = svc->depends_on_index[j];
                        if (!(hit[d / 64] & (UINT64_C(1) << (d % 64))))
                                continue;
                        hit[s / 64] |= UINT64_C(1) << (s % 64);
                        if (n < max)
                                ret_services[n] = s;
                        n++;
                        break;
                }
        }
        return n;
}
