#include "compose-internal.h"

#include <arpa/inet.h>

/* ports: in both of compose's forms.
 *   short  "80", "8080:80", "127.0.0.1:8080:80/udp", "[::1]::80", "8000-8002:80-82", 80
 *   long   {target: 80, published: "8080", host_ip: 127.0.0.1, protocol: udp}
 * Ranges expand into one topo_port per container port. A host range
 * published for one container port leaves the choice to the engine
 * (host_port 0), as docker does. */

#define PORT_MAX 65535u

struct port_spec {
        const char *ip; /* NULL: all addresses */
        const char *protocol;
        uint32_t host_lo, host_hi; /* both 0 when no host port is given */
        uint32_t ctr_lo, ctr_hi;
};

static const char *canonical_protocol(const char *s, size_t n) {
        static const char *const known[] = { "tcp", "udp", "sctp" };
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (strlen(known[i]) == n && strncmp(s, known[i], n) == 0)
                        return known[i];
        return NULL;
}

static bool valid_ip(const char *s) {
        unsigned char buf[sizeof(struct in6_addr)];
        return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static int parse_port(const char *s, size_t n, uint32_t min, uint32_t *ret) {
        uint32_t v = 0;
        if (n == 0 || n > 5)
                return n == 0 ? -EINVAL : -ERANGE;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (uint32_t)(s[i] - '0');
        }
        if (v < min || v > PORT_MAX)
                return -ERANGE;
        *ret = v;
        return 0;
}

/* "80" or "80-82"; lo <= hi. */
static int parse_range(const char *s, size_t n, uint32_t min, uint32_t *lo, uint32_t *hi) {
        const char *dash = memchr(s, '-', n);
        size_t first = dash ? (size_t)(dash - s) : n;
        int r = parse_port(s, first, min, lo);
        if (r >= 0)
                r = dash ? parse_port(dash + 1, n - first - 1, min, hi) : (*hi = *lo, 0);
        if (r >= 0 && *hi < *lo)
                r = -EINVAL;
        return r;
}

static const char *range_problem(int r) {
        return r == -ERANGE ? "port numbers go from 1 to 65535" : "";
}

/* Splits "[IP:][HOST:]CONTAINER" (IPv6 in brackets); sets *ip, *host, *ctr. */
static bool split_short(char *body, char **ip, char **host, char **ctr) {
        char *colon;
        *ip = *host = NULL;
        if (body[0] == '[') {
                char *rb = strchr(body, ']');
                if (!rb || rb[1] != ':')
                        return false;
                *rb = '\0';
                *ip = body + 1;
                body = rb + 2;
                colon = strchr(body, ':');
                if (!colon || strchr(colon + 1, ':'))
                        return false;
        } else if ((colon = strrchr(body, ':')) && colon != strchr(body, ':')) {
                *ip = body;
                *strchr(body, ':') = '\0';
                body += strlen(body) + 1;
                if (strchr(body, ':') != colon)
                        return false;
        }
        if (colon) {
                *colon = '\0';
                *host = body;
                body = colon + 1;
        }
        *ctr = body;
        return true;
}

/* NULL when s is a valid short form; else what is wrong ("" for plain bad syntax). */
static const char *parse_short(const struct compose_ctx *c, const char *s, struct port_spec *p) {
        char *body = arena_strdup(c->scratch, s), *ip, *host, *ctr;
        if (!body)
                return "out of memory";
        char *slash = strrchr(body, '/');
        p->protocol = "tcp";
        if (slash) {
                *slash = '\0';
                if (!(p->protocol = canonical_protocol(slash + 1, strlen(slash + 1))))
                        return "the protocol must be tcp, udp or sctp";
        }
        if (!split_short(body, &ip, &host, &ctr))
                return "";
        if (ip && !valid_ip(ip))
                return "the host address is not an IP address";
        p->ip = ip && *ip ? ip : NULL;
        int r = parse_range(ctr, strlen(ctr), 1, &p->ctr_lo, &p->ctr_hi);
        if (r >= 0 && host && (*host || !ip)) /* "IP::80" leaves the host port open */
                r = parse_range(host, strlen(host), 0, &p->host_lo, &p->host_hi);
        if (r < 0)
                return range_problem(r);
        if (p->host_hi > p->host_lo && p->ctr_hi > p->ctr_lo &&
            p->host_hi - p->host_lo != p->ctr_hi - p->ctr_lo)
                return "the host and container ranges differ in length";
        if (p->ctr_hi > p->ctr_lo && p->host_hi == p->host_lo && p->host_lo)
                return "a container range needs a host range of the same length";
        return NULL;
}

static int read_target(
        const struct compose_ctx *c, const struct ynode *node, const char *where, struct port_spec *p) {
        char w[COMPOSE_WHERE_MAX];
        const struct ynode *n = ynode_get(node, "target");
        int64_t v = -1;

        compose_where_key(w, where, "target");
        int r = compose_uint(c, n, w, PORT_MAX, &v);
        if (r < 0)
                return r;
        if (v < 0)
                return compose_fail(c, node, where, "missing 'target', the container port");
        if (v == 0)
                return compose_fail(c, n, w, "port numbers go from 1 to 65535");
        p->ctr_lo = p->ctr_hi = (uint32_t)v;
        return 0;
}

static int read_published(
        const struct compose_ctx *c, const struct ynode *node, const char *where, struct port_spec *p) {
        char w[COMPOSE_WHERE_MAX];
        const struct ynode *n = ynode_get(node, "published");
        const char *s;

        compose_where_key(w, where, "published");
        int r = compose_string(c, n, w, &s);
        if (r < 0 || !s || !*s)
                return r;
        r = parse_range(s, strlen(s), 0, &p->host_lo, &p->host_hi);
        if (r < 0)
                return compose_fail(
                        c, n, w, "invalid published port '%s'%s%s", s, *range_problem(r) ? ": " : "",
                        range_problem(r));
        return 0;
}

static int read_ip_protocol(
        const struct compose_ctx *c, const struct ynode *node, const char *where, struct port_spec *p) {
        char w[COMPOSE_WHERE_MAX];
        const struct ynode *n = ynode_get(node, "host_ip");
        const char *s;

        compose_where_key(w, where, "host_ip");
        int r = compose_string(c, n, w, &s);
        if (r < 0)
                return r;
        if (s && *s && !valid_ip(s))
                return compose_fail(c, n, w, "'%s' is not an IP address", s);
        p->ip = s && *s ? s : NULL;

        n = ynode_get(node, "protocol");
        compose_where_key(w, where, "protocol");
        r = compose_string(c, n, w, &s);
        if (r < 0)
                return r;
        p->protocol = s ? canonical_protocol(s, strlen(s)) : "tcp";
        if (!p->protocol)
                return compose_fail(c, n, w, "protocol must be tcp, udp or sctp, not '%s'", s);
        return 0;
}

static int parse_item(
        const struct compose_ctx *c, const struct ynode *node, const char *where, struct port_spec *p) {
        const char *s, *problem;
        int r;

        *p = (struct port_spec){ 0 };
        if (node->kind == YNODE_MAP) {
                r = read_target(c, node, where, p);
                if (r >= 0)
                        r = read_published(c, node, where, p);
                return r < 0 ? r : read_ip_protocol(c, node, where, p);
        }
        if (node->kind != YNODE_SCALAR || ynode_is_null(node))
                return compose_fail(
                        c, node, where, "expected a port or a mapping, not %s", ynode_describe(node));
        r = compose_string(c, node, where, &s);
        if (r < 0)
                return r;
        problem = parse_short(c, s, p);
        if (problem && *problem)
                return compose_fail(c, node, where, "invalid port '%s': %s", s, problem);
        if (problem)
                return compose_fail(c, node, where, "invalid port '%s'", s);
        return 0;
}

static void expand_spec(const struct port_spec *p, char *ip, char *protocol, struct topo_port *out) {
        bool per_port = p->host_hi - p->host_lo == p->ctr_hi - p->ctr_lo;
        for (uint32_t k = 0; k <= p->ctr_hi - p->ctr_lo; k++)
                out[k] = (struct topo_port){
                        .container_port = (uint16_t)(p->ctr_lo + k),
                        .host_port = per_port && p->host_lo ? (uint16_t)(p->host_lo + k) : 0,
                        .host_ip = ip,
                        .protocol = protocol,
                };
}

int compose_ports_parse(
        const struct compose_ctx *c, const struct ynode *node, const char *where, struct topo_service *svc) {
        char w[COMPOSE_WHERE_MAX];
        size_t total = 0;
        int r = compose_expect(c, node, YNODE_SEQ, true, where);
        if (r < 0 || !node || ynode_is_null(node))
                return r;
        struct port_spec *specs = arena_alloc_array(c->scratch, MAX(node->n_items, 1), sizeof(*specs));
        if (!specs)
                return compose_oom(c);
        for (size_t i = 0; i < node->n_items; i++) {
                compose_where_index(w, where, i);
                r = parse_item(c, node->items[i], w, &specs[i]);
                if (r < 0)
                        return r;
                total += specs[i].ctr_hi - specs[i].ctr_lo + 1;
                if (total > COMPOSE_PORTS_MAX)
                        return compose_fail(
                                c, node->items[i], w, "more than %u ports (a range counts each port)",
                                COMPOSE_PORTS_MAX);
        }
        svc->ports = arena_alloc_array(&c->t->arena, MAX(total, 1), sizeof(*svc->ports));
        if (!svc->ports)
                return compose_oom(c);
        for (size_t i = 0; i < node->n_items; i++) {
                char *ip = NULL, *protocol = NULL;
                if ((specs[i].ip && compose_keep(c, specs[i].ip, &ip) < 0) ||
                    compose_keep(c, specs[i].protocol, &protocol) < 0)
                        return -ENOMEM;
                expand_spec(&specs[i], ip, protocol, svc->ports + svc->n_ports);
                svc->n_ports += specs[i].ctr_hi - specs[i].ctr_lo + 1;
        }
        return 0;
}
