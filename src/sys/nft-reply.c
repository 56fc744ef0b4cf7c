#include "nft-reply.h"

#include <endian.h>
#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <string.h>

#define NLA_HDR_LEN ((size_t)NLA_ALIGN(sizeof(struct nlattr)))

/* The index of the acked message with sequence number seq, or -1. */
static long seq_index(const struct nft_reply *r, uint32_t seq) {
        uint32_t d = seq - r->seq_first;
        return d < r->n ? (long)d : -1;
}

/* NFTA_RULE_HANDLE from the attributes of a NEWRULE message (after its
 * nfgenmsg), if there is a well-formed one. */
static bool rule_handle(const uint8_t *p, size_t len, uint64_t *ret) {
        while (len >= NLA_HDR_LEN) {
                struct nlattr a;
                memcpy(&a, p, sizeof(a));
                if (a.nla_len < NLA_HDR_LEN || a.nla_len > len)
                        return false;
                if ((a.nla_type & NLA_TYPE_MASK) == NFTA_RULE_HANDLE && a.nla_len == NLA_HDR_LEN + 8) {
                        uint64_t be;
                        memcpy(&be, p + NLA_HDR_LEN, sizeof(be));
                        *ret = be64toh(be);
                        return true;
                }
                size_t step = NLA_ALIGN(a.nla_len);
                if (step >= len)
                        return false;
                p += step;
                len -= step;
        }
        return false;
}

static void on_error(struct nft_reply *r, const uint8_t *payload, size_t len) {
        struct nlmsgerr e;
        if (len < sizeof(e))
                return;
        memcpy(&e, payload, sizeof(e));
        long i = seq_index(r, e.msg.nlmsg_seq);
        bool batch = e.msg.nlmsg_seq == r->batch_seq && e.error != 0;
        if (i < 0 && !batch)
                return;
        if (e.error != 0 && r->error == 0) {
                /* A positive errno is not what the kernel sends; keep it negative. */
                r->error = e.error < 0 ? e.error : -EPROTO;
                r->error_index = i < 0 ? r->n : (size_t)i;
        }
        if (i >= 0 && !r->acked_seq[i]) {
                r->acked_seq[i] = true;
                r->acked++;
        }
        if (batch) {
                /* The whole batch failed: nothing more is to come. */
                for (size_t k = 0; k < r->n; k++)
                        r->acked_seq[k] = true;
                r->acked = r->n;
        }
}

static void on_newrule(struct nft_reply *r, const struct nlmsghdr *h, const uint8_t *payload, size_t len) {
        long i = seq_index(r, h->nlmsg_seq);
        size_t gen = NLMSG_ALIGN(sizeof(struct nfgenmsg));
        uint64_t handle;
        if (i < 0 || len < gen)
                return;
        if (rule_handle(payload + gen, len - gen, &handle)) {
                r->has_handle[i] = true;
                r->handle[i] = handle;
        }
}

static bool answered(const struct nft_reply *r) {
        if (r->acked < r->n)
                return false;
        if (r->error != 0 || !r->want_handles)
                return true;
        for (size_t i = 0; i < r->n; i++)
                if (!r->has_handle[i])
                        return false;
        return true;
}

int nft_reply_feed(struct nft_reply *r, const void *buf, size_t len) {
        const uint8_t *p = buf;

        if (r->n > NFT_REPLY_MSGS_MAX || r->acked > r->n)
                return -EINVAL;
        while (len > 0) {
                struct nlmsghdr h;
                if (len < sizeof(h))
                        return -EPROTO;
                memcpy(&h, p, sizeof(h));
                if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len)
                        return -EPROTO;
                const uint8_t *payload = p + NLMSG_HDRLEN;
                size_t plen = h.nlmsg_len - NLMSG_HDRLEN;
                if (h.nlmsg_type == NLMSG_ERROR)
                        on_error(r, payload, plen);
                else if (h.nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE))
                        on_newrule(r, &h, payload, plen);
                size_t step = NLMSG_ALIGN(h.nlmsg_len);
                if (step >= len)
                        break;
                p += step;
                len -= step;
        }
        return answered(r) ? 1 : 0;
}
