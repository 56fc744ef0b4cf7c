#include "shaper/shaper-internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <sys/socket.h>

/* The shaper's netlink messages: verdicts out, packets and errors in. */

#define CONFIG_BUF_SIZE 512

int shaper_vbuf_flush(struct shaper_vbuf *v, int fd) {
        if (v->len == 0)
                return 0;
        for (;;) {
                ssize_t n = send(fd, v->buf, v->len, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                v->len = 0;
                if (n < 0)
                        return negative_errno();
                v->sends++;
                return 0;
        }
}

int shaper_vbuf_accept(struct shaper_vbuf *v, int fd, uint32_t id, bool batch) {
        /* header + nfgenmsg + NFQA_VERDICT_HDR, with room to spare */
        if (v->len + 64 > sizeof(v->buf)) {
                int r = shaper_vbuf_flush(v, fd);
                if (r < 0)
                        return r;
        }
        struct nlmsghdr *nlh = nfq_nlmsg_put(
                v->buf + v->len, batch ? NFQNL_MSG_VERDICT_BATCH : NFQNL_MSG_VERDICT, v->queue_num);
        nfq_nlmsg_verdict_put(nlh, (int)id, NF_ACCEPT);
        v->len += nlh->nlmsg_len;
        v->msgs++;
        return 0;
}

int shaper_send_all(int fd, const void *buf, size_t len) {
        ssize_t n;
        while ((n = send(fd, buf, len, 0)) < 0 && errno == EINTR)
                ;
        if (n < 0)
                return negative_errno();
        return (size_t)n == len ? 0 : -EIO;
}

int shaper_queue_send_maxlen(int fd, uint16_t queue_num, uint32_t maxlen, uint32_t seq) {
        char buf[CONFIG_BUF_SIZE];
        struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue_num);
        nlh->nlmsg_flags |= NLM_F_ACK;
        nlh->nlmsg_seq = seq;
        nfq_nlmsg_cfg_put_qmaxlen(nlh, maxlen);
        return shaper_send_all(fd, nlh, nlh->nlmsg_len);
}

static void packet_parse(const struct nlmsghdr *nlh, struct shaper_msg *m) {
        struct nlattr *attr[NFQA_MAX + 1] = { 0 };

        m->kind = SHAPER_MSG_BAD;
        if (nfq_nlmsg_parse(nlh, attr) < 0 || !attr[NFQA_PACKET_HDR] ||
            mnl_attr_get_payload_len(attr[NFQA_PACKET_HDR]) < sizeof(struct nfqnl_msg_packet_hdr))
                return;
        const struct nfqnl_msg_packet_hdr *ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
        m->kind = SHAPER_MSG_PACKET;
        m->id = ntohl(ph->packet_id);
        /* CAP_LEN comes only when the copy was cut short. */
        if (attr[NFQA_CAP_LEN])
                m->len = ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN]));
        else if (attr[NFQA_PAYLOAD])
                m->len = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
}

static void msg_parse(const struct nlmsghdr *nlh, struct shaper_msg *m) {
        *m = (struct shaper_msg){ .kind = SHAPER_MSG_OTHER, .seq = nlh->nlmsg_seq };
        if (nlh->nlmsg_type == NLMSG_ERROR) {
                const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
                if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
                        m->kind = SHAPER_MSG_BAD;
                        return;
                }
                m->kind = e->error == 0 ? SHAPER_MSG_ACK : SHAPER_MSG_ERROR;
                m->error = e->error;
                return;
        }
        if (nlh->nlmsg_type == ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
                packet_parse(nlh, m);
}

int shaper_msg_walk(
        const void *buf, size_t len, int (*cb)(const struct shaper_msg *m, void *data), void *data) {
        int left = (int)MIN(len, (size_t)INT_MAX);

        for (const struct nlmsghdr *nlh = buf; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
                struct shaper_msg m;
                msg_parse(nlh, &m);
                int r = cb(&m, data);
                if (r < 0)
                        return r;
        }
        return 0;
}
