#include "sys/rtnl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "sys/rtnl-internal.h"

static void closemnlp(struct mnl_socket **nl) {
        if (*nl)
                mnl_socket_close(*nl);
}

static int sockopt_on(struct mnl_socket *nl, int level, int opt) {
        int on = 1;
        if (setsockopt(mnl_socket_get_fd(nl), level, opt, &on, sizeof(on)) < 0)
                return negative_errno();
        return 0;
}

static int socket_setup(struct mnl_socket *nl) {
        struct timeval tv = { .tv_sec = RTNL_RECV_TIMEOUT_MS / 1000,
                              .tv_usec = (RTNL_RECV_TIMEOUT_MS % 1000) * 1000 };
        int r;

        if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
                return negative_errno();
        if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
                return negative_errno();
        /* Extended ACKs carry the kernel's reason; capped ACKs do not echo
         * our request back. Both are Linux >= 4.12/4.3; older kernels refuse
         * the option, which only costs us the message. */
        r = sockopt_on(nl, SOL_NETLINK, NETLINK_EXT_ACK);
        if (r < 0 && r != -ENOPROTOOPT)
                return r;
        r = sockopt_on(nl, SOL_NETLINK, NETLINK_CAP_ACK);
        if (r < 0 && r != -ENOPROTOOPT)
                return r;
        return 0;
}

int rtnl_open(struct rtnl **ret, struct mh_error *reterr) {
        _cleanup_(closemnlp) struct mnl_socket *nl = NULL;
        int r;

        nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
        if (!nl) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "rtnetlink", "netlink (route) socket: %s", strerror(-r));
        }
        r = socket_setup(nl);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "rtnetlink", "netlink (route) socket setup: %s", strerror(-r));
        struct rtnl *rt = calloc(1, sizeof(*rt));
        if (!rt)
                return mh_error_fail(reterr, -ENOMEM, "rtnetlink", "out of memory");
        rt->portid = mnl_socket_get_portid(nl);
        rt->seq = (uint32_t)time(NULL);
        rt->nl = TAKE_PTR(nl);
        *ret = rt;
        return 0;
}

struct rtnl *rtnl_free(struct rtnl *rt) {
        if (!rt)
                return NULL;
        closemnlp(&rt->nl);
        free(rt);
        return NULL;
}

int rtnl_fail(struct rtnl *rt, struct mh_error *reterr, int r, const char *fmt, ...) {
        char what[MH_ERROR_MSG_MAX];
        va_list ap;

        va_start(ap, fmt);
        (void)vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        bool ext = rt && rt->ext[0];
        return mh_error_fail(
                reterr, r, r == -EPERM ? "permission" : "rtnetlink", "%s: %s%s%s%s%s", what, strerror(-r),
                ext ? " (kernel: " : "", ext ? rt->ext : "", ext ? ")" : "",
                r == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
}

int rtnl_parse_error(struct mh_error *reterr, int r, const char *what, const char *ext) {
        bool k = ext && ext[0];
        return mh_error_fail(
                reterr, r, "rtnetlink", "%s dump: %s%s%s%s", what,
                r == -EBADMSG   ? "malformed reply"
                : r == -EPROTO  ? "reply out of step with the request"
                : r == -EINTR   ? "interrupted by a concurrent change"
                : r == -ENOBUFS ? "more entries than room for them"
                                : strerror(-r),
                k ? " (kernel: " : "", k ? ext : "", k ? ")" : "");
}

const char *rtnl_addr_str(int family, const unsigned char *addr, char *buf, size_t size) {
        if (!inet_ntop(family, addr, buf, (socklen_t)size))
                (void)snprintf(buf, size, "?");
        return buf;
}

struct nlmsghdr *rtnl_msg_start(void *buf, uint16_t type, uint16_t flags, size_t hdrlen) {
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = NLM_F_REQUEST | flags;
        mnl_nlmsg_put_extra_header(nlh, hdrlen);
        return nlh;
}

/* ---- the reply walker ---- */

int rtnl_attrs_parse(const void *p, size_t len, const struct nlattr **tb, uint16_t max) {
        const uint8_t *b = p;

        for (uint16_t t = 0; t <= max; t++)
                tb[t] = NULL;
        while (len > 0) {
                const struct nlattr *a = (const struct nlattr *)b;
                if (len < sizeof(*a) || a->nla_len < sizeof(*a) || a->nla_len > len)
                        return -EBADMSG;
                uint16_t type = a->nla_type & NLA_TYPE_MASK;
                if (type <= max)
                        tb[type] = a;
                size_t step = MNL_ALIGN(a->nla_len);
                if (step >= len)
                        break;
                b += step;
                len -= step;
        }
        return 0;
}

int rtnl_attr_strcpy(const struct nlattr *a, char *out, size_t size) {
        size_t n = mnl_attr_get_payload_len(a);
        const char *s = mnl_attr_get_payload(a);
        const char *nul = memchr(s, '\0', n);

        if (!nul || (size_t)(nul - s) >= size)
                return -EBADMSG;
        memcpy(out, s, (size_t)(nul - s) + 1);
        return 0;
}

int rtnl_attr_u32(const struct nlattr *a, uint32_t *ret) {
        if (mnl_attr_get_payload_len(a) < sizeof(uint32_t))
                return -EBADMSG;
        memcpy(ret, mnl_attr_get_payload(a), sizeof(uint32_t));
        return 0;
}

int rtnl_attr_addr(const struct nlattr *a, size_t n, unsigned char *ret) {
        if (mnl_attr_get_payload_len(a) != n)
                return -EBADMSG;
        memcpy(ret, mnl_attr_get_payload(a), n);
        return 0;
}

size_t rtnl_family_addr_len(int family) {
        return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

static void extack_copy(const struct nlmsghdr *nlh, struct rtnl_walk *w) {
        const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
        const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
        size_t off = sizeof(*e), plen = mnl_nlmsg_get_payload_len(nlh);

        if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
                return;
        if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
                if (e->msg.nlmsg_len < sizeof(struct nlmsghdr))
                        return;
                off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
        }
        off = MNL_ALIGN(off);
        if (off > plen ||
            rtnl_attrs_parse((const uint8_t *)e + off, plen - off, tb, NLMSGERR_ATTR_MAX) < 0 ||
            !tb[NLMSGERR_ATTR_MSG])
                return;
        if (rtnl_attr_strcpy(tb[NLMSGERR_ATTR_MSG], w->ext, sizeof(w->ext)) < 0)
                w->ext[0] = '\0';
}

static int malformed(struct rtnl_walk *w, int r) {
        w->malformed = true;
        return r;
}

/* One control message (ERROR or DONE): 1 when it ends the reply cleanly,
 * < 0 for an error. */
static int walk_control(const struct nlmsghdr *nlh, struct rtnl_walk *w) {
        size_t plen = mnl_nlmsg_get_payload_len(nlh);
        int err = 0;

        if (nlh->nlmsg_type == NLMSG_ERROR) {
                if (plen < sizeof(struct nlmsgerr))
                        return malformed(w, -EBADMSG);
                err = ((const struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->error;
                if (err > 0 || err < -4095 || (err == 0 && !w->ack))
                        return malformed(w, -EPROTO);
                if (err < 0)
                        extack_copy(nlh, w);
                return err < 0 ? err : 1;
        }
        /* NLMSG_DONE: a dump's end, carrying the dump's error when it failed. */
        if (w->ack)
                return malformed(w, -EPROTO);
        if (plen >= sizeof(int))
                memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(int));
        if (err > 0 || err < -4095)
                return malformed(w, -EPROTO);
        return err < 0 ? err : 1;
}

int rtnl_walk_reply(const void *buf, size_t len, struct rtnl_walk *w) {
        const uint8_t *p = buf;

        w->malformed = false;
        w->ext[0] = '\0';
        while (len > 0) {
                const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;
                int r;

                if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
                        return malformed(w, -EBADMSG);
                if (nlh->nlmsg_seq != w->seq || nlh->nlmsg_pid != w->portid)
                        return malformed(w, -EPROTO);
                if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
                        return -EINTR;
                if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE) {
                        r = walk_control(nlh, w);
                        return r < 0 ? r : 0;
                }
                if (nlh->nlmsg_type != w->type)
                        return malformed(w, -EPROTO);
                r = w->cb ? w->cb(nlh, w->data) : 0;
                if (r < 0)
                        return r == -EBADMSG ? malformed(w, r) : r;
                size_t step = NLMSG_ALIGN(nlh->nlmsg_len);
                if (step >= len)
                        break;
                p += step;
                len -= step;
        }
        return malformed(w, -EPROTO); /* ended without DONE / ACK */
}

/* ---- transport ---- */

/* Whether the datagram [p, p + n) holds the message that ends the reply to
 * seq; a malformed datagram ends it too (the walker will say why). */
static bool datagram_ends(const uint8_t *p, size_t n, uint32_t seq, size_t *msgs) {
        while (n > 0) {
                const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;
                if (n < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > n)
                        return true;
                (*msgs)++;
                if (nlh->nlmsg_seq == seq &&
                    (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR))
                        return true;
                size_t step = NLMSG_ALIGN(nlh->nlmsg_len);
                if (step >= n)
                        break;
                p += step;
                n -= step;
        }
        return false;
}

static int recv_one(struct rtnl *rt, char **buf, size_t *cap, size_t len, size_t *ret_n) {
        if (*cap - len < RTNL_RECV_SIZE) {
                size_t ncap = MIN(MAX(*cap * 2, len + RTNL_RECV_SIZE), (size_t)RTNL_REPLY_MAX);
                if (ncap - len < RTNL_RECV_SIZE)
                        return -EMSGSIZE;
                char *b = realloc(*buf, ncap);
                if (!b)
                        return -ENOMEM;
                *buf = b;
                *cap = ncap;
        }
        for (int i = 0; i < 100; i++) {
                ssize_t n = mnl_socket_recvfrom(rt->nl, *buf + len, RTNL_RECV_SIZE);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : negative_errno();
                *ret_n = (size_t)n;
                return 0;
        }
        return -EINTR;
}

int rtnl_exchange(struct rtnl *rt, struct nlmsghdr *nlh, char **ret_buf, size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        size_t cap = 0, len = 0, msgs = 0;

        if (rt->broken)
                return -EIO;
        nlh->nlmsg_seq = ++rt->seq;
        nlh->nlmsg_pid = 0;
        rt->ext[0] = '\0';
        if (mnl_socket_sendto(rt->nl, nlh, nlh->nlmsg_len) < 0)
                return negative_errno();
        for (;;) {
                size_t n = 0;
                int r = recv_one(rt, &buf, &cap, len, &n);
                if (r < 0) {
                        rt->broken = true; /* an unread rest would answer the next request */
                        return r;
                }
                bool end = datagram_ends((const uint8_t *)buf + len, n, nlh->nlmsg_seq, &msgs);
                len += n;
                if (end)
                        break;
                if (msgs > RTNL_REPLY_MSGS_MAX || n == 0) {
                        rt->broken = true;
                        return -EMSGSIZE;
                }
        }
        *ret_buf = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int rtnl_ack(
        struct rtnl *rt, struct nlmsghdr *nlh, uint16_t type, int (*cb)(const struct nlmsghdr *, void *),
        void *data) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        nlh->nlmsg_flags |= NLM_F_ACK;
        r = rtnl_exchange(rt, nlh, &buf, &len);
        if (r < 0)
                return r;
        struct rtnl_walk w = { .seq = nlh->nlmsg_seq,
                               .portid = rt->portid,
                               .type = type,
                               .ack = true,
                               .cb = cb,
                               .data = data };
        r = rtnl_walk_reply(buf, len, &w);
        if (w.malformed)
                rt->broken = true;
        memcpy(rt->ext, w.ext, sizeof(rt->ext));
        return r;
}

int rtnl_dump(struct rtnl *rt, struct nlmsghdr *nlh, struct rtnl_walk *w) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        nlh->nlmsg_flags |= NLM_F_DUMP;
        r = rtnl_exchange(rt, nlh, &buf, &len);
        if (r < 0)
                return r;
        w->seq = nlh->nlmsg_seq;
        w->portid = rt->portid;
        w->ack = false;
        r = rtnl_walk_reply(buf, len, w);
        if (w->malformed)
                rt->broken = true;
        memcpy(rt->ext, w->ext, sizeof(rt->ext));
        return r;
}

struct nlmsghdr *rtnl_tc_msg_start(
        void *buf, uint16_t type, uint16_t flags, int ifindex, uint32_t parent, uint32_t handle,
        uint32_t info) {
        struct nlmsghdr *nlh = rtnl_msg_start(buf, type, flags, sizeof(struct tcmsg));
        struct tcmsg *t = mnl_nlmsg_get_payload(nlh);

        t->tcm_family = AF_UNSPEC;
        t->tcm_ifindex = ifindex;
        t->tcm_parent = parent;
        t->tcm_handle = handle;
        t->tcm_info = info;
        return nlh;
}
