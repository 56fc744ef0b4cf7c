#include "net-netns.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/fileio.h"
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

/* Runs fn in the target's netns; its message becomes reterr. A target that is
 * gone is -ESRCH. */
static int in_netns(
        const struct proc_identity *id, ns_fn fn, void *arg, char *out, size_t *len,
        struct mh_error *reterr) {
        int result = 0;
        int r = ns_run(id, NS_BIT(NS_NET), fn, arg, NET_NS_WAIT_MS, out, len, &result, reterr);
        if (r < 0)
                return r;
        if (result < 0)
                return mh_error_fail(reterr, result, "netns", "%.*s", (int)*len, out);
        return result;
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

static int fn_links(void *arg, char *out, size_t *out_len) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct mh_error e = { 0 };
        struct net_links l;
        if (rtnl_open(&rt, &e) < 0 || links_of(rt, &l, &e) < 0)
                return net_ns_fail(out, out_len, "%s", e.msg);
        memcpy(out, &l, sizeof(l));
        *out_len = sizeof(l);
        return 0;
}

int net_ns_links(const struct proc_identity *id, struct net_links *ret, struct mh_error *reterr) {
        char out[NS_RESULT_MAX];
        size_t len = sizeof(out);
        _Static_assert(sizeof(struct net_links) <= NS_RESULT_MAX, "device list fits a result");
        int r = in_netns(id, fn_links, NULL, out, &len, reterr);
        if (r < 0)
                return r;
        if (len != sizeof(*ret))
                return mh_error_fail(reterr, -EPROTO, "netns", "short device list");
        memcpy(ret, out, sizeof(*ret));
        return 0;
}

/* ---- sockets the agent keeps ---------------------------------------------- */

/* ---- sockets the agent keeps ---------------------------------------------- */

struct sockets_arg {
        const char *const *families;
        size_t n;
        const char *name;
        bool queue;
        uint32_t first; /* first queue number to try, from the lease id */
};

/* The child hands several descriptors back through the one ns_run_fd()
 * passes: a unix socket whose peer already queued them (SCM_RIGHTS), so one
 * visit to the target's netns opens every socket a fault needs. */
static int bundle_send(const int *fds, size_t n, int *ret_carrier) {
        int sv[2];
        char byte = 'x';
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * NET_SOCKETS_MAX)];
        } control = { 0 };
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        struct msghdr mh = { .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = control.buf,
                             .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
        if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
                return negative_errno();
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * n);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
        int r = sendmsg(sv[0], &mh, MSG_NOSIGNAL) < 0 ? negative_errno() : 0;
        close(sv[0]);
        if (r < 0) {
                close(sv[1]);
                return r;
        }
        *ret_carrier = sv[1];
        return 0;
}

static int bundle_receive(int carrier, int *fds, size_t n) {
        char byte;
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * NET_SOCKETS_MAX)];
        } control;
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        struct msghdr mh = { .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = control.buf,
                             .msg_controllen = sizeof(control.buf) };
        ssize_t got = recvmsg(carrier, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        struct cmsghdr *c = got == 1 ? CMSG_FIRSTHDR(&mh) : NULL;
        size_t have = c && c->cmsg_type == SCM_RIGHTS ? (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;
        if (have)
                memcpy(fds, CMSG_DATA(c), sizeof(int) * MIN(have, n));
        for (size_t i = n; i < have; i++) {
                int extra;
                memcpy(&extra, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                close(extra);
        }
        return have == n && !(mh.msg_flags & MSG_CTRUNC) ? 0 : -EPROTO;
}

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

static int fn_sockets(void *arg, char *out, size_t *out_len, int *ret_fd) {
        const struct sockets_arg *a = arg;
        int fds[NET_SOCKETS_MAX];
        size_t n = 0;
        uint16_t q = 0;
        struct mh_error e = { 0 };
        int r = 0;
        for (size_t i = 0; i < a->n && r >= 0; i++) {
                struct nft_owner_table *t = NULL;
                if ((r = nft_owner_table_create(a->families[i], a->name, &t, &e)) >= 0)
                        fds[n++] = fcntl(nft_owner_table_fd(t), F_DUPFD_CLOEXEC, 3);
                nft_owner_table_free(t); /* the dup keeps the socket, and with it the table */
        }
        if (r >= 0 && a->queue && (r = open_queue(a, &fds[n], &q, &e)) >= 0)
                n++;
        if (r >= 0 && (r = bundle_send(fds, n, ret_fd)) < 0)
                mh_error_fail(&e, r, "netns", "passing sockets: %s", strerror(-r));
        for (size_t i = 0; i < n; i++)
                close(fds[i]);
        if (r < 0)
                return net_ns_fail(out, out_len, "%s", e.msg);
        memcpy(out, &q, sizeof(q));
        *out_len = sizeof(q);
        return 0;
}

static uint32_t lease_hash(const char *lease_id) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const char *p = lease_id; *p; p++)
                h = (h ^ (unsigned char)*p) * 16777619u;
        return h;
}

static int adopt_all(
        const struct sockets_arg *a, const int *fds, struct net_sockets *ret, struct mh_error *e) {
        int r = 0;
        for (size_t i = 0; i < a->n; i++) {
                int x = r < 0 ? (close(fds[i]), 0)
                              : nft_owner_table_adopt(fds[i], a->families[i], a->name, &ret->tables[i], e);
                if (r >= 0 && x < 0)
                        r = x;
                else if (x >= 0 && r >= 0)
                        ret->n_tables = i + 1;
        }
        ret->queue_fd = a->queue ? fds[a->n] : -EBADF;
        return r;
}

int net_ns_sockets_open(
        const struct proc_identity *id, const char *lease_id, const char *const *families, size_t n,
        bool queue, struct net_sockets *ret, struct mh_error *reterr) {
        char name[NET_TABLE_MAX], out[NS_RESULT_MAX];
        size_t len = sizeof(out);
        int result = 0, carrier = -EBADF, fds[NET_SOCKETS_MAX];
        net_table_name(lease_id, name);
        struct sockets_arg a = { families, MIN(n, (size_t)NET_SOCKETS_MAX - 1), name, queue,
                                 lease_hash(lease_id) };
        *ret = (struct net_sockets){ .queue_fd = -EBADF };
        int r = ns_run_fd(
                id, NS_BIT(NS_NET), fn_sockets, &a, NET_NS_WAIT_MS, out, &len, &result, &carrier, reterr);
        if (r < 0)
                return r;
        if (result < 0 || carrier < 0 || len != sizeof(uint16_t)) {
                if (carrier >= 0)
                        close(carrier);
                return mh_error_fail(
                        reterr, result < 0 ? result : -EPROTO, "netns",
                        "opening sockets in the target's netns: %.*s", (int)len, out);
        }
        memcpy(&ret->queue, out, sizeof(ret->queue));
        r = bundle_receive(carrier, fds, a.n + (queue ? 1 : 0));
        close(carrier);
        if (r < 0)
                return mh_error_fail(reterr, r, "netns", "the sockets did not arrive");
        return adopt_all(&a, fds, ret, reterr);
}

struct dup_arg {
        const char *name;
        const struct nft_rule_spec *specs;
        size_t n;
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
                        s.dup.device = l.name[d];
                        r = nft_rule_add(t, chain, &s, NULL, e);
                }
        }
        return r;
}

static int fn_dup(void *arg, char *out, size_t *out_len, int *ret_fd) {
        const struct dup_arg *a = arg;
        struct nft_owner_table *t = NULL;
        struct mh_error e = { 0 };
        if (nft_owner_table_create("netdev", a->name, &t, &e) < 0 || dup_chains(t, a, &e) < 0) {
                nft_owner_table_free(t);
                return net_ns_fail(out, out_len, "%s", e.msg);
        }
        *ret_fd = fcntl(nft_owner_table_fd(t), F_DUPFD_CLOEXEC, 3);
        nft_owner_table_free(t);
        *out_len = 0;
        return *ret_fd < 0 ? net_ns_fail(out, out_len, "dup: %s", strerror(errno)) : 0;
}

int net_ns_dup_egress_open(
        const struct proc_identity *id, const char *name, const struct nft_rule_spec *specs, size_t n,
        struct nft_owner_table **ret, struct mh_error *reterr) {
        struct dup_arg a = { name, specs, n };
        char out[NS_RESULT_MAX];
        size_t len = sizeof(out);
        int result = 0, fd = -EBADF;
        int r = ns_run_fd(id, NS_BIT(NS_NET), fn_dup, &a, NET_NS_WAIT_MS, out, &len, &result, &fd, reterr);
        if (r < 0)
                return r;
        if (result < 0 || fd < 0)
                return mh_error_fail(
                        reterr, result < 0 ? result : -EPROTO, "nft_table", "table netdev %s: %.*s", name,
                        (int)len, out);
        return nft_owner_table_adopt(fd, "netdev", name, ret, reterr);
}
