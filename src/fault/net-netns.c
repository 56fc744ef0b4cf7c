#include "net-netns.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "shaper/shaper.h"
#include "sys/ns.h"
#include "sys/rtnl.h"

void net_table_name(const char *lease_id, char buf[NET_TABLE_MAX]) {
        snprintf(buf, NET_TABLE_MAX, "mayhem-%.16s", lease_id + (strncmp(lease_id, "l-", 2) == 0 ? 2 : 0));
}

void net_ifb_name(const char *lease_id, char buf[IF_NAMESIZE]) {
        snprintf(buf, IF_NAMESIZE, "mh%.8s", lease_id + (strncmp(lease_id, "l-", 2) == 0 ? 2 : 0));
}

int net_ns_fail(char *out, size_t *out_len, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(out, *out_len, fmt, ap);
        va_end(ap);
        *out_len = n < 0 ? 0 : MIN((size_t)n, *out_len - 1);
        return -EIO;
}

struct call_arg {
        ns_fn fn;
        void *arg;
        char *out;
        size_t *out_len;
        int result;
};

static int call_trampoline(void *arg, struct mh_error *e) {
        struct call_arg *c = arg;
        c->result = c->fn(c->arg, c->out, c->out_len);
        return 0;
}

int net_ns_call(
        const struct proc_identity *id, ns_fn fn, void *arg, char *out, size_t *out_len, int *ret_fn_result,
        struct mh_error *reterr) {
        struct call_arg c = { .fn = fn, .arg = arg, .out = out, .out_len = out_len };
        int r = ns_net_run(id, call_trampoline, &c, reterr);
        if (r < 0)
                return r;
        *ret_fn_result = c.result;
        return 0;
}

/* ---- devices ---------------------------------------------------------- */

static int links_of(struct rtnl *rt, struct net_links *ret, struct mh_error *e) {
        struct rtnl_link all[64];
        size_t n = 0;
        int r = rtnl_link_list(rt, all, ELEMENTSOF(all), &n, e);
        if (r < 0)
                return r;
        ret->n = 0;
        for (size_t i = 0; i < n && ret->n < NET_LINKS_MAX; i++)
                if (strcmp(all[i].name, "lo") != 0 && strcmp(all[i].kind, "ifb") != 0)
                        snprintf(ret->name[ret->n++], IF_NAMESIZE, "%s", all[i].name);
        return 0;
}

static int fn_links(void *arg, struct mh_error *e) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        int r = rtnl_open(&rt, e);
        return r < 0 ? r : links_of(rt, arg, e);
}

int net_ns_links(const struct proc_identity *id, struct net_links *ret, struct mh_error *reterr) {
        struct net_links l;
        int r = ns_net_run(id, fn_links, &l, reterr);
        if (r < 0)
                return r;
        *ret = l;
        return 0;
}

/* ---- sockets the agent keeps ---------------------------------------------- */

struct sockets_arg {
        const char *const *families;
        size_t n;
        const char *name;
        bool queue;
        uint32_t first; /* first queue number to try, from the lease id */
        struct net_sockets *ret;
};

static int open_queue(const struct sockets_arg *a, int *ret_fd, uint16_t *ret_q, struct mh_error *e) {
        for (uint32_t i = 0; i < NET_QUEUE_SPAN; i++) {
                uint16_t q = (uint16_t)(NET_QUEUE_BASE + (a->first + i) % NET_QUEUE_SPAN);
                int r = shaper_queue_open(q, ret_fd, e);
                if (r == -EBUSY)
                        continue;
                if (r >= 0)
                        *ret_q = q;
                return r;
        }
        return mh_error_fail(
                e, -EBUSY, "nfqueue", "every queue number %u..%u is taken", NET_QUEUE_BASE,
                NET_QUEUE_BASE + NET_QUEUE_SPAN - 1);
}

/* Each socket goes into a->ret as soon as it is open, so a failure halfway
 * leaves the caller holding exactly what there is to close. */
static int fn_sockets(void *arg, struct mh_error *e) {
        struct sockets_arg *a = arg;
        for (size_t i = 0; i < a->n; i++) {
                int r = nft_owner_table_create(a->families[i], a->name, &a->ret->tables[i], e);
                if (r < 0)
                        return r;
                a->ret->n_tables = i + 1;
        }
        return a->queue ? open_queue(a, &a->ret->queue_fd, &a->ret->queue, e) : 0;
}

static uint32_t lease_hash(const char *lease_id) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const char *p = lease_id; *p; p++)
                h = (h ^ (unsigned char)*p) * 16777619u;
        return h;
}

int net_ns_sockets_open(
        const struct proc_identity *id, const char *lease_id, const char *const *families, size_t n,
        bool queue, struct net_sockets *ret, struct mh_error *reterr) {
        char name[NET_TABLE_MAX];
        net_table_name(lease_id, name);
        *ret = (struct net_sockets){ .queue_fd = -EBADF };
        /* Only a matter of speed, once per process: without it, the chains
         * added to these tables, and their deletion, may each rewrite kernel
         * text (sys/nft-rule.h). */
        (void)nft_hooks_hold(NULL);
        struct sockets_arg a = {
                families, MIN(n, (size_t)NET_SOCKETS_MAX - 1), name, queue, lease_hash(lease_id), ret
        };
        return ns_net_run(id, fn_sockets, &a, reterr);
}

struct dup_arg {
        const char *name;
        const struct nft_rule_spec *specs;
        size_t n;
        struct nft_owner_table *table;
};

static int dup_chains(struct nft_owner_table *t, const struct dup_arg *a, struct mh_error *e) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct net_links l;
        char chain[24];
        int r = rtnl_open(&rt, e);
        if (r < 0 || (r = links_of(rt, &l, e)) < 0)
                return r;
        for (size_t d = 0; d < l.n && r >= 0; d++) {
                snprintf(chain, sizeof(chain), "eg%zu", d);
                struct nft_chain_spec c = { .name = chain, .hook = NFT_HOOK_EGRESS, .device = l.name[d] };
                r = nft_chain_add(t, &c, e);
                for (size_t i = 0; i < a->n && r >= 0; i++) {
                        struct nft_rule_spec s = a->specs[i];
                        s.dup.device = l.name[d]; /* resolved here, in the target's netns */
                        r = nft_rule_add(t, chain, &s, NULL, e);
                }
        }
        return r;
}

static int fn_dup(void *arg, struct mh_error *e) {
        struct dup_arg *a = arg;
        int r = nft_owner_table_create("netdev", a->name, &a->table, e);
        return r < 0 ? r : dup_chains(a->table, a, e);
}

int net_ns_dup_egress_open(
        const struct proc_identity *id, const char *name, const struct nft_rule_spec *specs, size_t n,
        struct nft_owner_table **ret, struct mh_error *reterr) {
        _cleanup_(nft_owner_table_freep) struct nft_owner_table *t = NULL;
        struct dup_arg a = { name, specs, n, NULL };
        int r = ns_net_run(id, fn_dup, &a, reterr);
        t = a.table; /* closed, and the table with it, unless all went well */
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}
