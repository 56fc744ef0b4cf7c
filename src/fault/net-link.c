#include "net-link.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/macro.h"
#include "sys/ns.h"

int net_link_read(struct rtnl *rt, const char *device, struct net_link *ret, struct mh_error *reterr) {
        int r = rtnl_link_get(rt, device, &ret->link, reterr);
        if (r >= 0)
                r = rtnl_addr_list(
                        rt, ret->link.ifindex, ret->addrs, NET_LINK_ADDRS_MAX, &ret->n_addrs, reterr);
        if (r >= 0)
                r = rtnl_route_list(
                        rt, AF_UNSPEC, ret->link.ifindex, ret->routes, NET_LINK_ROUTES_MAX, &ret->n_routes,
                        &ret->skipped, reterr);
        return r;
}

int net_link_restore(struct rtnl *rt, const struct net_link *rec, struct mh_error *reterr) {
        struct rtnl_link now;
        int r = rtnl_link_get(rt, rec->link.name, &now, reterr), first = 0;
        for (size_t i = 0; r >= 0 && i < rec->n_addrs; i++) {
                struct rtnl_addr a = rec->addrs[i];
                a.ifindex = now.ifindex;
                int x = rtnl_addr_add(rt, &a, RTNL_ADDR_ADD_NODAD, first < 0 ? NULL : reterr);
                if (x < 0 && x != -EEXIST && first == 0)
                        first = x;
        }
        for (size_t i = 0; r >= 0 && i < rec->n_routes; i++) {
                struct rtnl_route rt_ = rec->routes[i];
                rt_.oif = now.ifindex;
                int x = rtnl_route_add(rt, &rt_, first < 0 ? NULL : reterr);
                if (x < 0 && x != -EEXIST && first == 0)
                        first = x;
        }
        return r < 0 ? r : first;
}

static bool same_addr(const struct rtnl_addr *a, const struct rtnl_addr *b) {
        return a->family == b->family && a->prefixlen == b->prefixlen &&
               memcmp(a->addr, b->addr, RTNL_ADDR_LEN) == 0;
}

/* The kernel's identity of a route: what EEXIST is about. */
static bool same_route(const struct rtnl_route *a, const struct rtnl_route *b) {
        return a->family == b->family && a->table == b->table && a->dst_len == b->dst_len &&
               a->tos == b->tos && a->priority == b->priority && a->src_len == b->src_len &&
               memcmp(a->dst, b->dst, RTNL_ADDR_LEN) == 0 && memcmp(a->src, b->src, RTNL_ADDR_LEN) == 0;
}

static void describe(
        char *detail, size_t size, const char *what, int family, const unsigned char *a, int len) {
        char text[INET6_ADDRSTRLEN] = "";
        inet_ntop(family, a, text, sizeof(text));
        snprintf(detail, size, "%s %s/%d is missing", what, text, len);
}

int net_link_missing(
        struct rtnl *rt, const struct net_link *rec, char *detail, size_t size, struct mh_error *reterr) {
        _cleanup_free_ struct net_link *now = calloc(1, sizeof(*now));
        int missing = 0;
        if (!now)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        int r = net_link_read(rt, rec->link.name, now, reterr);
        if (r < 0)
                return r;
        for (size_t i = 0; i < rec->n_addrs; i++) {
                bool found = false;
                for (size_t k = 0; k < now->n_addrs && !found; k++)
                        found = same_addr(&rec->addrs[i], &now->addrs[k]);
                if (!found && missing++ == 0)
                        describe(
                                detail, size, "address", rec->addrs[i].family, rec->addrs[i].addr,
                                rec->addrs[i].prefixlen);
        }
        for (size_t i = 0; i < rec->n_routes; i++) {
                bool found = false;
                for (size_t k = 0; k < now->n_routes && !found; k++)
                        found = same_route(&rec->routes[i], &now->routes[k]);
                if (!found && missing++ == 0)
                        describe(
                                detail, size, "route", rec->routes[i].family, rec->routes[i].dst,
                                rec->routes[i].dst_len);
        }
        if (missing == 0)
                snprintf(
                        detail, size, "all %zu addresses and %zu routes of %s are there", rec->n_addrs,
                        rec->n_routes, rec->link.name);
        return missing;
}

/* ---- the record as JSON ------------------------------------------------------------ */

static json_t *ip_json(int family, const unsigned char *a) {
        char text[INET6_ADDRSTRLEN];
        return inet_ntop(family, a, text, sizeof(text)) ? json_string(text) : json_null();
}

static int family_number(int af) {
        return af == AF_INET ? 4 : 6;
}

static json_t *addr_json(const struct rtnl_addr *a) {
        json_t *o = json_pack(
                "{s:i, s:o, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:s}", "family", family_number(a->family),
                "addr", ip_json(a->family, a->addr), "prefixlen", a->prefixlen, "scope", a->scope, "proto",
                a->proto, "flags", (json_int_t)a->flags, "valid_lft", (json_int_t)a->valid_lft,
                "preferred_lft", (json_int_t)a->preferred_lft, "rt_priority", (json_int_t)a->rt_priority,
                "label", a->label);
        if (o && a->has_peer)
                json_object_set_new(o, "peer", ip_json(a->family, a->peer));
        if (o && a->has_broadcast)
                json_object_set_new(o, "broadcast", ip_json(a->family, a->broadcast));
        return o;
}

static json_t *hex_json(const unsigned char *b, size_t n) {
        char text[2 * RTNL_ROUTE_METRICS_MAX + 1];
        for (size_t i = 0; i < n; i++)
                snprintf(text + 2 * i, 3, "%02x", b[i]);
        text[2 * n] = '\0';
        return json_string(text);
}

static json_t *route_json(const struct rtnl_route *r) {
        json_t *o = json_pack(
                "{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:o}", "family",
                family_number(r->family), "dst_len", r->dst_len, "src_len", r->src_len, "tos", r->tos,
                "protocol", r->protocol, "scope", r->scope, "type", r->type, "pref", r->pref, "flags",
                (json_int_t)r->flags, "table", (json_int_t)r->table, "priority", (json_int_t)r->priority,
                "metrics", hex_json(r->metrics, r->metrics_len));
        const struct {
                const char *key;
                bool has;
                const unsigned char *a;
        } ips[] = { { "dst", r->has_dst, r->dst },
                    { "src", r->has_src, r->src },
                    { "gateway", r->has_gateway, r->gateway },
                    { "prefsrc", r->has_prefsrc, r->prefsrc } };
        for (size_t i = 0; o && i < ELEMENTSOF(ips); i++)
                if (ips[i].has)
                        json_object_set_new(o, ips[i].key, ip_json(r->family, ips[i].a));
        return o;
}

json_t *net_link_json(const struct net_link *rec) {
        json_t *addrs = json_array(), *routes = json_array();
        for (size_t i = 0; addrs && i < rec->n_addrs; i++)
                json_array_append_new(addrs, addr_json(&rec->addrs[i]));
        for (size_t i = 0; routes && i < rec->n_routes; i++)
                json_array_append_new(routes, route_json(&rec->routes[i]));
        return json_pack(
                "{s:s, s:b, s:I, s:o, s:o, s:I}", "device", rec->link.name, "up", rec->link.up, "mtu",
                (json_int_t)rec->link.mtu, "addrs", addrs, "routes", routes, "skipped",
                (json_int_t)rec->skipped);
}

/* Reads fields of one object; the first failure sticks in r. */
struct reader {
        const json_t *o;
        const char *what;
        size_t index;
        int family; /* AF_*, once read */
        int r;
        struct mh_error *e;
};

static void fail(struct reader *rd, const char *key, const char *why) {
        if (rd->r >= 0)
                rd->r = mh_error_fail(
                        rd->e, -EINVAL, "restore_record", "restore record: %s[%zu].%s %s", rd->what,
                        rd->index, key, why);
}

static uint64_t number(struct reader *rd, const char *key, uint64_t max) {
        const json_t *v = json_object_get(rd->o, key);
        json_int_t n = json_integer_value(v);
        if (!json_is_integer(v) || n < 0 || (uint64_t)n > max) {
                fail(rd, key, "is not an integer in range");
                return 0;
        }
        return (uint64_t)n;
}

static int family_of(struct reader *rd) {
        uint64_t f = number(rd, "family", 6);
        if (f != 4 && f != 6)
                fail(rd, "family", "is neither 4 nor 6");
        return rd->family = f == 4 ? AF_INET : AF_INET6;
}

/* An address of the record's family; false (and no failure) when absent and not required. */
static bool ip(struct reader *rd, const char *key, unsigned char *out, bool required) {
        const json_t *v = json_object_get(rd->o, key);
        if (!v && !required)
                return false;
        memset(out, 0, RTNL_ADDR_LEN);
        if (!json_is_string(v) || inet_pton(rd->family, json_string_value(v), out) != 1) {
                fail(rd, key, "is not an address of its family");
                return false;
        }
        return true;
}

static uint8_t prefix(struct reader *rd, const char *key) {
        return (uint8_t)number(rd, key, rd->family == AF_INET ? 32 : 128);
}

static void addr_from(struct reader *rd, struct rtnl_addr *a) {
        const char *label = json_string_value(json_object_get(rd->o, "label"));
        *a = (struct rtnl_addr){ .family = family_of(rd) };
        ip(rd, "addr", a->addr, true);
        a->prefixlen = prefix(rd, "prefixlen");
        a->scope = (uint8_t)number(rd, "scope", UINT8_MAX);
        a->proto = (uint8_t)number(rd, "proto", UINT8_MAX);
        a->flags = (uint32_t)number(rd, "flags", UINT32_MAX);
        a->valid_lft = (uint32_t)number(rd, "valid_lft", UINT32_MAX);
        a->preferred_lft = (uint32_t)number(rd, "preferred_lft", UINT32_MAX);
        a->rt_priority = (uint32_t)number(rd, "rt_priority", UINT32_MAX);
        if (a->valid_lft == 0 || a->preferred_lft > a->valid_lft)
                fail(rd, "preferred_lft", "is longer than valid_lft, or valid_lft is 0");
        a->has_peer = ip(rd, "peer", a->peer, false);
        a->has_broadcast = ip(rd, "broadcast", a->broadcast, false);
        if (!label || strlen(label) >= sizeof(a->label))
                fail(rd, "label", "is not a string shorter than a device name");
        else
                memcpy(a->label, label, strlen(label) + 1);
}

static void metrics_from(struct reader *rd, struct rtnl_route *r) {
        const char *hex = json_string_value(json_object_get(rd->o, "metrics"));
        size_t n = hex ? strlen(hex) : 0;
        if (!hex || n % 2 || n / 2 > RTNL_ROUTE_METRICS_MAX) {
                fail(rd, "metrics", "is not an even string of at most 512 hex digits");
                return;
        }
        for (size_t i = 0; i < n / 2; i++) {
                unsigned byte;
                char two[3] = { hex[2 * i], hex[2 * i + 1], '\0' };
                if (strspn(two, "0123456789abcdef") != 2 || sscanf(two, "%2x", &byte) != 1) {
                        fail(rd, "metrics", "holds a character that is not a lowercase hex digit");
                        return;
                }
                r->metrics[i] = (unsigned char)byte;
        }
        r->metrics_len = (uint16_t)(n / 2);
}

static void route_from(struct reader *rd, struct rtnl_route *r) {
        *r = (struct rtnl_route){ .family = family_of(rd) };
        r->dst_len = prefix(rd, "dst_len");
        r->src_len = prefix(rd, "src_len");
        r->tos = (uint8_t)number(rd, "tos", UINT8_MAX);
        r->protocol = (uint8_t)number(rd, "protocol", UINT8_MAX);
        r->scope = (uint8_t)number(rd, "scope", UINT8_MAX);
        r->type = (uint8_t)number(rd, "type", UINT8_MAX);
        if (r->type != 1 /* RTN_UNICAST: the only type recorded */)
                fail(rd, "type", "is not 1 (unicast)");
        r->pref = (uint8_t)number(rd, "pref", UINT8_MAX);
        r->flags = (uint32_t)number(rd, "flags", UINT32_MAX);
        r->table = (uint32_t)number(rd, "table", UINT32_MAX);
        r->priority = (uint32_t)number(rd, "priority", UINT32_MAX);
        r->has_dst = ip(rd, "dst", r->dst, false);
        r->has_src = ip(rd, "src", r->src, false);
        r->has_gateway = ip(rd, "gateway", r->gateway, false);
        r->has_prefsrc = ip(rd, "prefsrc", r->prefsrc, false);
        if ((r->dst_len && !r->has_dst) || (r->src_len && !r->has_src))
                fail(rd, r->has_dst ? "src" : "dst", "is missing for its prefix length");
        metrics_from(rd, r);
}

int net_link_from_json(const json_t *j, struct net_link *ret, struct mh_error *reterr) {
        const char *device = json_string_value(json_object_get(j, "device"));
        const json_t *addrs = json_object_get(j, "addrs"), *routes = json_object_get(j, "routes");
        struct reader rd = { .o = j, .what = "device", .e = reterr };
        struct net_link rec = { .link.up = json_is_true(json_object_get(j, "up")) };
        if (!json_is_object(j) || !device || !device[0] || strlen(device) >= IF_NAMESIZE ||
            !json_is_array(addrs) || !json_is_array(routes) || json_array_size(addrs) > NET_LINK_ADDRS_MAX ||
            json_array_size(routes) > NET_LINK_ROUTES_MAX)
                return mh_error_fail(
                        reterr, -EINVAL, "restore_record",
                        "restore record: a device of at most %d addresses and %d routes is expected",
                        NET_LINK_ADDRS_MAX, NET_LINK_ROUTES_MAX);
        memcpy(rec.link.name, device, strlen(device) + 1);
        rec.link.mtu = (uint32_t)number(&rd, "mtu", UINT32_MAX);
        rec.skipped = (size_t)number(&rd, "skipped", UINT32_MAX);
        for (size_t i = 0; rd.r >= 0 && i < json_array_size(addrs); i++) {
                rd = (struct reader){
                        .o = json_array_get(addrs, i), .what = "addrs", .index = i, .e = reterr
                };
                addr_from(&rd, &rec.addrs[rec.n_addrs++]);
        }
        for (size_t i = 0; rd.r >= 0 && i < json_array_size(routes); i++) {
                rd = (struct reader){
                        .o = json_array_get(routes, i), .what = "routes", .index = i, .e = reterr
                };
                route_from(&rd, &rec.routes[rec.n_routes++]);
        }
        if (rd.r < 0)
                return rd.r;
        *ret = rec;
        return 0;
}

/* ---- visits to the target's netns ----------------------------------------------------- */

struct visit {
        const char *device;
        unsigned what;
        uint32_t mtu;
        bool up;
        const struct net_link *rec; /* put back or looked for */
        struct net_link *out;       /* read */
        struct rtnl_link now;
        int missing;
        char *detail;
        size_t size;
};

static int visit_record(void *arg, struct mh_error *e) {
        struct visit *v = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        int r = rtnl_open(&rt, e);
        return r < 0 ? r : net_link_read(rt, v->device, v->out, e);
}

static int visit_change(void *arg, struct mh_error *e) {
        struct visit *v = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct rtnl_link l;
        int r = rtnl_open(&rt, e);
        if (r >= 0)
                r = rtnl_link_get(rt, v->device, &l, e);
        if (r >= 0 && (v->what & NET_LINK_MTU))
                r = rtnl_link_set_mtu(rt, l.ifindex, v->mtu, e);
        if (r >= 0 && (v->what & NET_LINK_STATE))
                r = rtnl_link_set_state(rt, l.ifindex, v->up, e);
        return r;
}

static int visit_put_back(void *arg, struct mh_error *e) {
        struct visit *v = arg;
        v->device = v->rec->link.name;
        v->mtu = v->rec->link.mtu;
        v->up = v->rec->link.up;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        int r = visit_change(v, e);
        if (r >= 0 && (r = rtnl_open(&rt, e)) >= 0)
                r = net_link_restore(rt, v->rec, e);
        return r;
}

static int visit_look(void *arg, struct mh_error *e) {
        struct visit *v = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        int r = rtnl_open(&rt, e);
        if (r >= 0)
                r = rtnl_link_get(rt, v->rec->link.name, &v->now, e);
        if (r >= 0)
                r = v->missing = net_link_missing(rt, v->rec, v->detail, v->size, e);
        return r;
}

static int in_target(const struct proc_identity *target, ns_net_fn fn, struct visit *v, struct mh_error *e) {
        return target->pid > 0 ? ns_net_run(target, fn, v, e)
                               : mh_error_fail(e, -ESRCH, "not_running", "the target is not running");
}

int net_link_record(
        const struct proc_identity *target, const char *device, struct net_link *ret,
        struct mh_error *reterr) {
        struct visit v = { .device = device, .out = ret };
        return in_target(target, visit_record, &v, reterr);
}

int net_link_change(
        const struct proc_identity *target, const char *device, unsigned what, uint32_t mtu,
        struct mh_error *reterr) {
        struct visit v = { .device = device, .what = what, .mtu = mtu, .up = false };
        return in_target(target, visit_change, &v, reterr);
}

int net_link_put_back(
        const struct proc_identity *target, const struct net_link *rec, unsigned what,
        struct mh_error *reterr) {
        struct visit v = { .rec = rec, .what = what };
        int r = in_target(target, visit_put_back, &v, reterr);
        return r == -ESRCH || r == -ENODEV ? 0 : r;
}

int net_link_look(
        const struct proc_identity *target, const struct net_link *rec, struct rtnl_link *ret_now,
        int *ret_missing, char *detail, size_t size, struct mh_error *reterr) {
        struct visit v = { .rec = rec, .detail = detail, .size = size };
        int r = in_target(target, visit_look, &v, reterr);
        if (r >= 0) {
                *ret_now = v.now;
                *ret_missing = v.missing;
        }
        return r;
}

int net_link_verify(
        const struct proc_identity *target, const json_t *restore, unsigned what, bool *ret_ok, char *detail,
        size_t size) {
        _cleanup_free_ struct net_link *rec = calloc(1, sizeof(*rec));
        struct rtnl_link now;
        struct mh_error e = { 0 };
        int missing = 0;
        *ret_ok = false;
        if (!rec)
                return -ENOMEM;
        if (!json_object_size(restore) || net_link_from_json(restore, rec, &e) < 0) {
                *ret_ok = !json_object_size(restore);
                snprintf(
                        detail, size, "%s", *ret_ok ? "no device was recorded, so none was changed" : e.msg);
                return 0;
        }
        int r = net_link_look(target, rec, &now, &missing, detail, size, &e);
        if (r == -ESRCH || r == -ENODEV) {
                *ret_ok = true;
                snprintf(detail, size, "%s", e.msg);
                return 0;
        }
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        if ((what & NET_LINK_STATE) && now.up != rec->link.up)
                snprintf(
                        detail, size, "device %s is %s, recorded %s", now.name, now.up ? "up" : "down",
                        rec->link.up ? "up" : "down");
        else if ((what & NET_LINK_MTU) && now.mtu != rec->link.mtu)
                snprintf(
                        detail, size, "device %s has MTU %u, recorded %u", now.name, (unsigned)now.mtu,
                        (unsigned)rec->link.mtu);
        else
                *ret_ok = missing == 0;
        return 0;
}
