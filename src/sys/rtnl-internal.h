#pragma once

/* What the rtnl*.c files share: the handle, the request/reply transport and
 * the strict reply walker. */

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/rtnl.h"

#define RTNL_EXTACK_MAX    200 /* room for the kernel's extended-ACK message */
#define RTNL_DUMP_ATTEMPTS 3   /* a dump the kernel marks interrupted is retried */

struct rtnl {
        struct mnl_socket *nl;
        uint32_t seq, portid;
        bool broken;               /* out of step with the kernel: every call fails with -EIO */
        char ext[RTNL_EXTACK_MAX]; /* the last error's extended-ACK message, "" for none */
};

/* How to read one reply. The walker checks every message against seq and
 * portid; messages of type are handed to cb (which may stop with < 0). */
struct rtnl_walk {
        uint32_t seq, portid;
        uint16_t type;
        bool ack; /* ends with an NLMSG_ERROR ack (0 or the error), not NLMSG_DONE */
        int (*cb)(const struct nlmsghdr *nlh, void *data);
        void *data;
        /* out */
        bool malformed; /* -EBADMSG / -EPROTO came from the bytes, not the kernel */
        char ext[RTNL_EXTACK_MAX];
};

/* Walks len bytes of messages as described above: 0 at a clean end, the
 * kernel's error, -EBADMSG, -EPROTO (wrong seq/portid/type, no end), -EINTR
 * (NLM_F_DUMP_INTR), or what cb returned. */
int rtnl_walk_reply(const void *buf, size_t len, struct rtnl_walk *w);

/* Fills tb[0..max] with the attributes in [p, p + len) by type (later ones
 * win, types above max ignored). -EBADMSG when an attribute does not fit. */
int rtnl_attrs_parse(const void *p, size_t len, const struct nlattr **tb, uint16_t max);
/* Copies a NUL-terminated string attribute; -EBADMSG when it is not
 * terminated or does not fit in size bytes. */
int rtnl_attr_strcpy(const struct nlattr *a, char *out, size_t size);

/* A u32 attribute (-EBADMSG when shorter), and an address attribute of
 * exactly n bytes (-EBADMSG otherwise). */
int rtnl_attr_u32(const struct nlattr *a, uint32_t *ret);
int rtnl_attr_addr(const struct nlattr *a, size_t n, unsigned char *ret);
/* The bytes of an address of family: 4 (AF_INET), 16 (AF_INET6), else 0. */
size_t rtnl_family_addr_len(int family);

/* Sends nlh (its nlmsg_seq and nlmsg_pid are set here) and reads the reply
 * into *ret_buf (malloc()ed) up to the message that ends it, within
 * RTNL_REPLY_MAX bytes / RTNL_REPLY_MSGS_MAX messages. */
int rtnl_exchange(struct rtnl *rt, struct nlmsghdr *nlh, char **ret_buf, size_t *ret_len);
/* rtnl_exchange() + rtnl_walk_reply() for a request sent with NLM_F_ACK:
 * messages of type go to cb. rt->ext gets the kernel's message on failure. */
int rtnl_ack(
        struct rtnl *rt, struct nlmsghdr *nlh, uint16_t type, int (*cb)(const struct nlmsghdr *, void *),
        void *data);

/* Formats "what: strerror[ (kernel: ext)]" into reterr: EPERM is a
 * configuration error (no CAP_NET_ADMIN), the rest general failures. */
int rtnl_fail(struct rtnl *rt, struct mh_error *reterr, int r, const char *fmt, ...) _printf_(4, 5);

/* Formats a dump parser's failure r into reterr: "<what> dump: <why>[ (kernel: ext)]". */
int rtnl_parse_error(struct mh_error *reterr, int r, const char *what, const char *ext);
/* inet_ntop() of an AF_INET / AF_INET6 address into buf, "?" when it fails:
 * for messages. Returns buf. */
#define RTNL_ADDR_STR_MAX 46 /* INET6_ADDRSTRLEN */
const char *rtnl_addr_str(int family, const unsigned char *addr, char *buf, size_t size);

/* A request header with a zeroed family header of hdrlen bytes after it in
 * buf (RTNL_MSG_MAX bytes, aligned). */
struct nlmsghdr *rtnl_msg_start(void *buf, uint16_t type, uint16_t flags, size_t hdrlen);

/* One tcmsg-based request: RTM_NEWQDISC etc. for ifindex/parent/handle. */
struct nlmsghdr *rtnl_tc_msg_start(
        void *buf, uint16_t type, uint16_t flags, int ifindex, uint32_t parent, uint32_t handle,
        uint32_t info);
/* Sends the dump request nlh and walks the whole reply with w (its seq,
 * portid and ack are set here); a malformed reply breaks the handle. */
int rtnl_dump(struct rtnl *rt, struct nlmsghdr *nlh, struct rtnl_walk *w);
/* Walks a qdisc dump reply for the qdisc of ifindex at parent: 1 found (in
 * *ret), 0 none; retries an interrupted dump. */
int rtnl_qdisc_find(struct rtnl *rt, int ifindex, uint32_t parent, struct rtnl_qdisc *ret);
/* A tcmsg-based message's family header, kind and ifindex: -EBADMSG when it
 * does not fit. Attributes from TCA_KIND up go to tb. */
int rtnl_tc_msg_parse(
        const struct nlmsghdr *nlh, const struct tcmsg **ret_t, const struct nlattr **tb, uint16_t max);
/* Ticks of the kernel's packet scheduler clock to send size bytes at rate
 * bytes/s (iproute2's tc_calc_xmittime()), capped at UINT32_MAX. */
uint32_t rtnl_xmittime(uint64_t rate, uint64_t size);
/* ns to scheduler ticks, capped at UINT32_MAX. */
uint32_t rtnl_ns_to_ticks(uint64_t ns);
