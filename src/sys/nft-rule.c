/* Chains and rules in an owner table: one nfnetlink batch per call, sent
 * through the table's own socket, answers read with nft_reply_feed(). */
#include "nft-rule.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "sys/nft-internal.h"
#include "sys/nft-reply.h"
#include "sys/nft-rule-internal.h"

/* A batch holds at most NFT_REPLY_MSGS_MAX messages of a few KiB each (a
 * rule has at most ~20 expressions); libmnl keeps a page spare at the end. */
#define BATCH_SIZE   (128u * 1024u)
#define RECV_SIZE    (64u * 1024u)
#define WHAT_MAX     96
#define NAME_MAX_LEN 256

struct batch {
        struct nft_owner_table *t;
        char *buf;
        struct mnl_nlmsg_batch *b;
        struct nft_reply reply;
        char what[NFT_REPLY_MSGS_MAX][WHAT_MAX];
};

static void batch_done(struct batch *b) {
        if (b->b)
                mnl_nlmsg_batch_stop(b->b);
        free(b->buf);
}

static int batch_start(struct batch *b, struct nft_owner_table *t, bool want_handles) {
        *b = (struct batch){ .t = t };
        b->buf = malloc(BATCH_SIZE);
        if (!b->buf)
                return -ENOMEM;
        b->b = mnl_nlmsg_batch_start(b->buf, BATCH_SIZE);
        if (!b->b)
                return -ENOMEM;
        b->reply.batch_seq = t->seq++;
        nftnl_batch_begin(mnl_nlmsg_batch_current(b->b), b->reply.batch_seq);
        mnl_nlmsg_batch_next(b->b);
        b->reply.seq_first = t->seq;
        b->reply.want_handles = want_handles;
        return 0;
}

/* The header of the next acked message. Callers add at most
 * NFT_RULE_PEERS_MAX messages to a batch, below NFT_REPLY_MSGS_MAX. */
static struct nlmsghdr *batch_msg(struct batch *b, uint16_t type, uint16_t flags, const char *what) {
        assert(b->reply.n < NFT_REPLY_MSGS_MAX);
        snprintf(b->what[b->reply.n], WHAT_MAX, "%s", what);
        b->reply.n++;
        return nftnl_nlmsg_build_hdr(
                mnl_nlmsg_batch_current(b->b), type, (uint16_t)b->t->family, flags | NLM_F_ACK, b->t->seq++);
}

static int batch_msg_done(struct batch *b) {
        return mnl_nlmsg_batch_next(b->b) ? 0 : -E2BIG;
}

static long long now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads answers until the batch is answered, NFT_RULE_REPLY_TIMEOUT_MS
 * passes, or more datagrams came than the batch can cause. */
static int batch_recv(struct batch *b, char *buf) {
        int fd = mnl_socket_get_fd(b->t->nl);
        long long deadline = now_ms() + NFT_RULE_REPLY_TIMEOUT_MS;
        size_t max_datagrams = 4 * NFT_REPLY_MSGS_MAX + 64;

        for (size_t i = 0; i < max_datagrams; i++) {
                long long left = deadline - now_ms();
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (left <= 0)
                        return -ETIMEDOUT;
                int k = poll(&p, 1, (int)left);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        return -ETIMEDOUT;
                struct sockaddr_nl from = { 0 };
                socklen_t fl = sizeof(from);
                ssize_t n = recvfrom(
                        fd, buf, RECV_SIZE, MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from, &fl);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n < 0)
                        return negative_errno();
                if ((size_t)n > RECV_SIZE)
                        return -EMSGSIZE;
                if (from.nl_pid != 0) /* not the kernel: another socket of this netns */
                        continue;
                k = nft_reply_feed(&b->reply, buf, (size_t)n);
                if (k != 0)
                        return k < 0 ? k : 0;
        }
        return -EPROTO;
}

/* Ends, sends and answers the batch. On a kernel error, names the message. */
static int batch_send(struct batch *b, const char *op, struct mh_error *reterr) {
        _cleanup_free_ char *buf = NULL;
        int r;

        nftnl_batch_end(mnl_nlmsg_batch_current(b->b), b->t->seq++);
        if (!mnl_nlmsg_batch_next(b->b))
                return mh_error_fail(reterr, -E2BIG, "nftables", "%s: batch too large", op);
        buf = malloc(RECV_SIZE);
        if (!buf)
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        if (mnl_socket_sendto(b->t->nl, mnl_nlmsg_batch_head(b->b), mnl_nlmsg_batch_size(b->b)) < 0) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "nftables", "%s: send: %s", op, strerror(-r));
        }
        r = batch_recv(b, buf);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "nftables", "%s: reading the kernel's answer: %s", op, strerror(-r));
        if (b->reply.error < 0) {
                size_t i = b->reply.error_index;
                return mh_error_fail(
                        reterr, b->reply.error, "nftables", "%s: %s: %s", op,
                        i < b->reply.n ? b->what[i] : "batch", strerror(-b->reply.error));
        }
        return 0;
}

static bool name_ok(const char *s, size_t max) {
        size_t len = s ? strnlen(s, max) : 0;
        return len > 0 && len < max;
}

static int hook_num(int family, enum nft_hook h) {
        if (family == NFPROTO_NETDEV)
                return h == NFT_HOOK_INGRESS  ? NF_NETDEV_INGRESS
                       : h == NFT_HOOK_EGRESS ? NF_NETDEV_EGRESS
                                              : -EINVAL;
        if (h >= NFT_HOOK_PREROUTING && h <= NFT_HOOK_POSTROUTING)
                return NF_INET_PRE_ROUTING + (int)(h - NFT_HOOK_PREROUTING);
        return -EINVAL;
}

static int chain_check(
        const struct nft_owner_table *t, const struct nft_chain_spec *c, struct mh_error *reterr) {
        if (!t || !c || !name_ok(c->name, NAME_MAX_LEN))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "a chain needs a table and a name of 1 to 255 bytes");
        if (hook_num(t->family, c->hook) < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "hook %s does not suit a %s table",
                        nft_hook_to_string(c->hook) ? nft_hook_to_string(c->hook) : "(invalid)",
                        nft_owner_table_family(t));
        if ((t->family == NFPROTO_NETDEV) != (c->device != NULL) || (c->device && !name_ok(c->device, 16)))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "a device (1 to 15 bytes) is required in netdev tables and refused elsewhere");
        return 0;
}

static struct nftnl_chain *chain_build(const struct nft_owner_table *t, const struct nft_chain_spec *c) {
        struct nftnl_chain *ch = nftnl_chain_alloc();
        if (!ch)
                return NULL;
        nftnl_chain_set_u32(ch, NFTNL_CHAIN_FAMILY, (uint32_t)t->family);
        nftnl_chain_set_u32(ch, NFTNL_CHAIN_HOOKNUM, (uint32_t)hook_num(t->family, c->hook));
        nftnl_chain_set_s32(ch, NFTNL_CHAIN_PRIO, c->priority);
        nftnl_chain_set_u32(ch, NFTNL_CHAIN_POLICY, NF_ACCEPT);
        if (nftnl_chain_set_str(ch, NFTNL_CHAIN_TABLE, t->name) < 0 ||
            nftnl_chain_set_str(ch, NFTNL_CHAIN_NAME, c->name) < 0 ||
            nftnl_chain_set_str(ch, NFTNL_CHAIN_TYPE, "filter") < 0 ||
            (c->device && nftnl_chain_set_str(ch, NFTNL_CHAIN_DEV, c->device) < 0)) {
                nftnl_chain_free(ch);
                return NULL;
        }
        return ch;
}

int nft_chain_add(struct nft_owner_table *t, const struct nft_chain_spec *c, struct mh_error *reterr) {
        struct batch b;
        char what[WHAT_MAX];
        int r = chain_check(t, c, reterr);
        if (r < 0)
                return r;
        struct nftnl_chain *ch = chain_build(t, c);
        if (!ch)
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        r = batch_start(&b, t, false);
        if (r >= 0) {
                snprintf(what, sizeof(what), "chain %s", c->name);
                struct nlmsghdr *nlh = batch_msg(&b, NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_EXCL, what);
                nftnl_chain_nlmsg_build_payload(nlh, ch);
                r = batch_msg_done(&b);
        }
        nftnl_chain_free(ch);
        if (r >= 0)
                r = batch_send(&b, "adding nftables chain", reterr);
        else
                r = mh_error_fail(reterr, r, "nftables", "building chain: %s", strerror(-r));
        batch_done(&b);
        return r;
}

/* One DELRULE: the rule with handle, or every rule of chain (handle 0). */
static int rule_del(
        struct nft_owner_table *t, const char *chain, uint64_t handle, const char *op,
        struct mh_error *reterr) {
        struct batch b;
        char what[WHAT_MAX];
        if (!t || !name_ok(chain, NAME_MAX_LEN))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "%s: needs a table and a chain name of 1 to 255 bytes", op);
        struct nftnl_rule *r = nftnl_rule_alloc();
        int k = r ? batch_start(&b, t, false) : -ENOMEM;
        if (k >= 0) {
                nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, (uint32_t)t->family);
                nftnl_rule_set_str(r, NFTNL_RULE_TABLE, t->name);
                nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
                if (handle)
                        nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, handle);
                snprintf(what, sizeof(what), "chain %s", chain);
                nftnl_rule_nlmsg_build_payload(batch_msg(&b, NFT_MSG_DELRULE, 0, what), r);
                k = batch_msg_done(&b);
                k = k < 0 ? mh_error_fail(reterr, k, "nftables", "%s: %s", op, strerror(-k))
                          : batch_send(&b, op, reterr);
                batch_done(&b);
        } else
                k = mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        nftnl_rule_free(r);
        return k;
}

int nft_owner_table_delete(struct nft_owner_table *t, struct mh_error *reterr) {
        struct batch b;
        struct nftnl_table *nt = t ? nftnl_table_alloc() : NULL;
        int k = nt ? batch_start(&b, t, false) : -ENOMEM;
        if (k < 0) {
                nftnl_table_free(nt);
                return mh_error_fail(reterr, k, "nftables", "deleting a table: %s", strerror(-k));
        }
        nftnl_table_set_u32(nt, NFTNL_TABLE_FAMILY, (uint32_t)t->family);
        nftnl_table_set_str(nt, NFTNL_TABLE_NAME, t->name);
        nftnl_table_nlmsg_build_payload(batch_msg(&b, NFT_MSG_DELTABLE, 0, "table"), nt);
        k = batch_msg_done(&b);
        k = k < 0 ? mh_error_fail(reterr, k, "nftables", "deleting table %s: %s", t->name, strerror(-k))
                  : batch_send(&b, "deleting nftables table", reterr);
        batch_done(&b);
        nftnl_table_free(nt);
        return k;
}

int nft_chain_flush(struct nft_owner_table *t, const char *chain, struct mh_error *reterr) {
        return rule_del(t, chain, 0, "flushing nftables chain", reterr);
}

int nft_rule_delete(struct nft_owner_table *t, const char *chain, uint64_t handle, struct mh_error *reterr) {
        if (handle == 0)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "deleting an nftables rule: handle 0 names no rule");
        return rule_del(t, chain, handle, "deleting nftables rule", reterr);
}

/* One NEWRULE message of spec for peer (NULL: no peer test). */
static int rule_msg(
        struct batch *b, const char *chain, const struct nft_rule_spec *spec, const char *peer,
        enum nft_queue_via via, struct mh_error *reterr) {
        char what[WHAT_MAX];
        struct nftnl_rule *r = nftnl_rule_alloc();
        if (!r)
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, (uint32_t)b->t->family);
        nftnl_rule_set_str(r, NFTNL_RULE_TABLE, b->t->name);
        nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
        int k = nft_rule_exprs_add(r, b->t->family, spec, peer, via, reterr);
        if (k >= 0) {
                snprintf(
                        what, sizeof(what), "rule %zu (%s%s%s) in chain %s", b->reply.n + 1,
                        nft_action_to_string(spec->action), peer ? ", peer " : "", peer ? peer : "", chain);
                uint16_t flags = NLM_F_CREATE | NLM_F_APPEND | NLM_F_ECHO;
                nftnl_rule_nlmsg_build_payload(batch_msg(b, NFT_MSG_NEWRULE, flags, what), r);
                k = batch_msg_done(b);
                if (k < 0)
                        k = mh_error_fail(reterr, k, "nftables", "rule batch too large");
        }
        nftnl_rule_free(r);
        return k;
}

static int rule_add_via(
        struct nft_owner_table *t, const char *chain, const struct nft_rule_spec *spec,
        enum nft_queue_via via, struct nft_rule_handles *ret_handles, struct mh_error *reterr) {
        struct batch b;
        int k = batch_start(&b, t, true);
        if (k < 0) {
                batch_done(&b);
                return mh_error_fail(reterr, k, "nftables", "out of memory");
        }
        for (size_t i = 0; k >= 0 && (i == 0 || (i < NFT_RULE_PEERS_MAX && spec->peers[i])); i++)
                k = rule_msg(&b, chain, spec, spec->peers[i], via, reterr);
        if (k >= 0)
                k = batch_send(&b, "adding nftables rule", reterr);
        if (k >= 0 && ret_handles) {
                ret_handles->n = b.reply.n;
                for (size_t i = 0; i < b.reply.n; i++)
                        ret_handles->handle[i] = b.reply.handle[i];
        }
        batch_done(&b);
        return k;
}

int nft_rule_add(
        struct nft_owner_table *t, const char *chain, const struct nft_rule_spec *spec,
        struct nft_rule_handles *ret_handles, struct mh_error *reterr) {
        if (!t || !name_ok(chain, NAME_MAX_LEN))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "adding an nftables rule needs a table and a chain name of 1 to 255 bytes");
        int k = nft_rule_spec_check(nft_owner_table_family(t), spec, reterr);
        if (k < 0)
                return k;
        bool queue = spec->action == NFT_ACTION_QUEUE;
        enum nft_queue_via via = queue && spec->queue.via == NFT_QUEUE_XT ? NFT_QUEUE_XT : NFT_QUEUE_NATIVE;
        k = rule_add_via(t, chain, spec, via, ret_handles, reterr);
        /* AUTO: a kernel without the native expression answers ENOENT; the xt
         * target is the fallback where xtables targets are allowed. */
        if (k == -ENOENT && queue && spec->queue.via == NFT_QUEUE_AUTO &&
            (t->family == NFPROTO_IPV4 || t->family == NFPROTO_IPV6))
                return rule_add_via(t, chain, spec, NFT_QUEUE_XT, ret_handles, reterr);
        if (k == -ENOENT && queue && reterr)
                mh_error_prefix(
                        reterr, "no such chain, or this kernel has no nft queue expression "
                                "(CONFIG_NFT_QUEUE; the xt NFQUEUE target works in ip and ip6 tables): ");
        return k;
}
