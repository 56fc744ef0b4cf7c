#include "nft.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "sys/netlink-port.h"
#include "sys/nft-internal.h"
#include "sys/ns.h"

/* Requests here are one table message in a batch; replies are read in
 * chunks of this size, and a table dump stops at NFT_TABLES_MAX entries. */
#define NFT_BUF_SIZE       16384
#define NFT_TABLES_MAX     65536
#define NFT_RECV_TIMEOUT_S 5
#define NFT_DUMP_RETRIES   3
#define NFT_PROBE_TABLE    "mayhem_owner_probe"
#define NFT_PROBE_TIMEOUT  10000

static const struct {
        const char *name;
        int family;
} families[] = {
        { "inet", NFPROTO_INET }, { "ip", NFPROTO_IPV4 },       { "ip6", NFPROTO_IPV6 },
        { "arp", NFPROTO_ARP },   { "bridge", NFPROTO_BRIDGE }, { "netdev", NFPROTO_NETDEV },
};

static int family_parse(const char *s) {
        for (size_t i = 0; s && i < ELEMENTSOF(families); i++)
                if (streq(families[i].name, s))
                        return families[i].family;
        return -EINVAL;
}

int nft_family_from_name(const char *s) {
        return family_parse(s);
}

static int check_args(const char *family, const char *name, int *ret_family, struct mh_error *reterr) {
        int f = family_parse(family);
        if (f < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "unknown nftables family \"%s\" (inet, ip, ip6, arp, bridge, netdev)",
                        family ? family : "(null)");
        size_t len = name ? strnlen(name, NFT_TABLE_MAXNAMELEN) : 0;
        if (len == 0 || len >= NFT_TABLE_MAXNAMELEN)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "an nftables table name has 1 to %d bytes",
                        NFT_TABLE_MAXNAMELEN - 1);
        *ret_family = f;
        return 0;
}

static void closemnlp(struct mnl_socket **nl) {
        if (*nl)
                mnl_socket_close(*nl);
}

/* A bound NETLINK_NETFILTER socket of the current netns. Bound explicitly: the
 * kernel keys an owner table on the port id and only runs the release
 * notifier for bound sockets. Replies are waited for at most
 * NFT_RECV_TIMEOUT_S. */
static int socket_open(struct mnl_socket **ret, struct mh_error *reterr) {
        _cleanup_(closemnlp) struct mnl_socket *nl = NULL;
        struct timeval tv = { .tv_sec = NFT_RECV_TIMEOUT_S };
        int r;

        nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
        if (!nl) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "nftables", "netlink (netfilter) socket: %s", strerror(-r));
        }
        /* A port id this process never hands out again (sys/netlink-port.h):
         * the kernel deletes the owner tables of a port id released. */
        r = -EADDRINUSE;
        for (int i = 0; i < NL_PORT_TRIES && r == -EADDRINUSE; i++)
                r = mnl_socket_bind(nl, 0, nl_port_next()) < 0 ? negative_errno() : 0;
        if (r < 0)
                return mh_error_fail(reterr, r, "nftables", "netlink bind: %s", strerror(-r));
        if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "nftables", "netlink SO_RCVTIMEO: %s", strerror(-r));
        }
        *ret = TAKE_PTR(nl);
        return 0;
}

/* Sends len bytes of requests and runs the replies through cb until the
 * kernel's ACK or DONE. Returns 0 or -errno (the kernel's error, -EAGAIN on
 * the receive timeout). */
static int talk(struct mnl_socket *nl, const void *req, size_t len, mnl_cb_t cb, void *data) {
        char buf[NFT_BUF_SIZE];
        unsigned portid = mnl_socket_get_portid(nl);

        if (mnl_socket_sendto(nl, req, len) < 0)
                return negative_errno();
        for (;;) {
                ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                /* seq 0: an error may answer the batch-begin message rather
                 * than the one we asked an ACK for. */
                int r = mnl_cb_run(buf, (size_t)n, 0, portid, cb, data);
                if (r < 0)
                        return negative_errno();
                if (r == MNL_CB_STOP)
                        return 0;
        }
}

struct table_lookup {
        const char *name;
        size_t seen;
        bool found;
        uint32_t flags, owner;
        bool has_owner;
};

static int table_cb(const struct nlmsghdr *nlh, void *data) {
        struct table_lookup *lk = data;
        struct nftnl_table *t;

        if (++lk->seen > NFT_TABLES_MAX) {
                errno = E2BIG;
                return MNL_CB_ERROR;
        }
        t = nftnl_table_alloc();
        if (!t) {
                errno = ENOMEM;
                return MNL_CB_ERROR;
        }
        if (nftnl_table_nlmsg_parse(nlh, t) < 0) {
                nftnl_table_free(t);
                errno = EPROTO;
                return MNL_CB_ERROR;
        }
        const char *name = nftnl_table_get_str(t, NFTNL_TABLE_NAME);
        if (name && streq(name, lk->name)) {
                lk->found = true;
                lk->flags = nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS);
                lk->has_owner = nftnl_table_is_set(t, NFTNL_TABLE_OWNER);
                lk->owner = lk->has_owner ? nftnl_table_get_u32(t, NFTNL_TABLE_OWNER) : 0;
        }
        nftnl_table_free(t);
        return MNL_CB_OK;
}

/* Dumps the tables of family through nl and looks for name. A dump that the
 * kernel marks interrupted (the ruleset changed meanwhile, EINTR) is retried. */
static int table_lookup(
        struct mnl_socket *nl, int family, const char *name, uint32_t seq, struct table_lookup *ret) {
        char req[NFT_BUF_SIZE / 4];
        int r = -EINTR;

        for (int attempt = 0; attempt < NFT_DUMP_RETRIES && r == -EINTR; attempt++) {
                struct table_lookup lk = { .name = name };
                struct nlmsghdr *nlh = nftnl_table_nlmsg_build_hdr(
                        req, NFT_MSG_GETTABLE, (uint16_t)family, NLM_F_DUMP, seq + (uint32_t)attempt);
                r = talk(nl, nlh, nlh->nlmsg_len, table_cb, &lk);
                if (r == 0)
                        *ret = lk;
        }
        return r;
}

static int create_error(int r, const char *family, const char *name, struct mh_error *reterr) {
        if (r == -EOPNOTSUPP)
                return mh_error_fail(
                        reterr, r, "kernel_feature",
                        "nftables table %s %s: this kernel has no owner tables (NFT_TABLE_F_OWNER needs "
                        "Linux "
                        "5.12 or newer), so a fault could outlive the agent; refusing",
                        family, name);
        if (r == -EEXIST)
                return mh_error_fail(
                        reterr, r, "nftables", "nftables table %s %s already exists", family, name);
        if (r == -EPERM)
                return mh_error_fail(
                        reterr, r, "permission", "nftables table %s %s: %s (needs CAP_NET_ADMIN)", family,
                        name, strerror(-r));
        return mh_error_fail(reterr, r, "nftables", "nftables table %s %s: %s", family, name, strerror(-r));
}

static uint32_t seq_start(void) {
        return (uint32_t)time(NULL);
}

int nft_owner_table_create(
        const char *family, const char *name, struct nft_owner_table **ret, struct mh_error *reterr) {
        _cleanup_(closemnlp) struct mnl_socket *nl = NULL;
        struct nftnl_table *t;
        char req[NFT_BUF_SIZE / 4];
        size_t off = 0;
        int fam, r;

        r = check_args(family, name, &fam, reterr);
        if (r < 0)
                return r;
        r = socket_open(&nl, reterr);
        if (r < 0)
                return r;

        t = nftnl_table_alloc();
        if (!t)
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, (uint32_t)fam);
        nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS, NFT_TABLE_F_OWNER);
        if (nftnl_table_set_str(t, NFTNL_TABLE_NAME, name) < 0) {
                nftnl_table_free(t);
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        }

        /* One batch: begin, NEWTABLE (create, exclusive, acked), end. The
         * three messages are far below the buffer size (a name is < 256 bytes). */
        uint32_t seq = seq_start();
        struct nlmsghdr *nlh = nftnl_batch_begin(req + off, seq++);
        off += nlh->nlmsg_len;
        nlh = nftnl_table_nlmsg_build_hdr(
                req + off, NFT_MSG_NEWTABLE, (uint16_t)fam, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq++);
        nftnl_table_nlmsg_build_payload(nlh, t);
        nftnl_table_free(t);
        off += nlh->nlmsg_len;
        nlh = nftnl_batch_end(req + off, seq++);
        off += nlh->nlmsg_len;

        r = talk(nl, req, off, NULL, NULL);
        if (r == -EPERM) {
                /* The kernel looks the name up before it checks for EEXIST, and
                 * an owner table looked up through another socket is EPERM. */
                struct table_lookup lk;
                if (table_lookup(nl, fam, name, seq, &lk) == 0 && lk.found)
                        return mh_error_fail(
                                reterr, -EEXIST, "nftables", "nftables table %s %s already exists%s", family,
                                name, lk.has_owner ? ", owned by another netlink socket" : "");
        }
        if (r < 0)
                return create_error(r, family, name, reterr);

        struct nft_owner_table *o = malloc(sizeof(*o));
        if (!o)
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        *o = (struct nft_owner_table){ .nl = TAKE_PTR(nl), .seq = seq, .family = fam };
        memcpy(o->name, name, strlen(name) + 1);
        *ret = o;
        return 0;
}

int nft_owner_table_adopt(
        int fd, const char *family, const char *name, struct nft_owner_table **ret,
        struct mh_error *reterr) {
        _cleanup_close_ int owned = fd;
        _cleanup_(closemnlp) struct mnl_socket *nl = NULL;
        struct table_lookup lk;
        int fam, r, domain = 0, proto = 0;
        socklen_t sl = sizeof(int);

        r = check_args(family, name, &fam, reterr);
        if (r < 0)
                return r;
        if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &sl) < 0 ||
            getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &sl) < 0 || domain != AF_NETLINK ||
            proto != NETLINK_NETFILTER)
                return mh_error_fail(
                        reterr, -ENOTSOCK, "invalid_argument",
                        "descriptor %d is not a netfilter netlink socket", fd);
        nl = mnl_socket_fdopen(fd);
        if (!nl) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "nftables", "netlink socket %d: %s", fd, strerror(-r));
        }
        TAKE_FD(owned); /* now closed with nl */

        /* The table must exist and be owned by this very socket. */
        r = table_lookup(nl, fam, name, seq_start(), &lk);
        if (r < 0)
                return mh_error_fail(reterr, r, "nftables", "listing %s tables: %s", family, strerror(-r));
        if (!lk.found || !(lk.flags & NFT_TABLE_F_OWNER) || !lk.has_owner ||
            lk.owner != mnl_socket_get_portid(nl))
                return mh_error_fail(
                        reterr, -ENOENT, "nftables",
                        "nftables table %s %s is not owned by the socket handed over", family, name);

        struct nft_owner_table *o = malloc(sizeof(*o));
        if (!o)
                return mh_error_fail(reterr, -ENOMEM, "nftables", "out of memory");
        *o = (struct nft_owner_table){ .nl = TAKE_PTR(nl), .seq = seq_start(), .family = fam };
        memcpy(o->name, name, strlen(name) + 1);
        *ret = o;
        return 0;
}

int nft_owner_table_fd(const struct nft_owner_table *t) {
        return t ? mnl_socket_get_fd(t->nl) : -EBADF;
}

const char *nft_owner_table_name(const struct nft_owner_table *t) {
        return t ? t->name : NULL;
}

const char *nft_owner_table_family(const struct nft_owner_table *t) {
        for (size_t i = 0; t && i < ELEMENTSOF(families); i++)
                if (families[i].family == t->family)
                        return families[i].name;
        return NULL;
}

struct nft_owner_table *nft_owner_table_free(struct nft_owner_table *t) {
        if (!t)
                return NULL;
        closemnlp(&t->nl);
        free(t);
        return NULL;
}

int nft_table_exists(const char *family, const char *name, struct mh_error *reterr) {
        _cleanup_(closemnlp) struct mnl_socket *nl = NULL;
        struct table_lookup lk;
        int fam, r;

        r = check_args(family, name, &fam, reterr);
        if (r < 0)
                return r;
        r = socket_open(&nl, reterr);
        if (r < 0)
                return r;
        r = table_lookup(nl, fam, name, seq_start(), &lk);
        if (r < 0)
                return mh_error_fail(reterr, r, "nftables", "listing %s tables: %s", family, strerror(-r));
        return lk.found ? 1 : 0;
}

_printf_(3, 4) static void out_printf(char *out, size_t *out_len, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(out, *out_len, fmt, ap);
        va_end(ap);
        *out_len = n < 0 ? 0 : MIN((size_t)n, *out_len - 1);
}

/* Runs in a forked child: a throwaway netns, one owner table, gone again. */
static int probe_fn(void *arg, char *out, size_t *out_len) {
        struct nft_owner_table *t = NULL;
        struct mh_error e = { 0 };
        int r;

        if (unshare(CLONE_NEWNET) < 0) {
                r = negative_errno();
                out_printf(out, out_len, "unshare(CLONE_NEWNET): %s", strerror(-r));
                return r;
        }
        r = nft_owner_table_create("inet", NFT_PROBE_TABLE, &t, &e);
        if (r < 0) {
                out_printf(out, out_len, "%s", e.msg);
                return r;
        }
        nft_owner_table_free(t);
        *out_len = 0;
        return 0;
}

int nft_owner_supported(struct mh_error *reterr) {
        static int cached = -1; /* 0 or 1 once known */
        char out[NS_RESULT_MAX + 1];
        size_t len = 0;
        int fn_result, r;

        r = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
        if (r >= 0)
                return r;
        r = ns_run(NULL, 0, probe_fn, NULL, NFT_PROBE_TIMEOUT, out, &len, &fn_result, reterr);
        if (r < 0) {
                mh_error_prefix(reterr, "probing for nftables owner tables: ");
                return r;
        }
        out[MIN(len, (size_t)NS_RESULT_MAX)] = '\0';
        if (fn_result == 0 || fn_result == -EOPNOTSUPP) {
                r = fn_result == 0;
                __atomic_store_n(&cached, r, __ATOMIC_RELEASE);
                return r;
        }
        return mh_error_fail(
                reterr, fn_result, "kernel_feature", "probing for nftables owner tables: %s%s", out,
                fn_result == -EPERM ? " (needs CAP_SYS_ADMIN and CAP_NET_ADMIN)" : "");
}

/* ---- closing off the caller's path ---- */

static pthread_mutex_t closer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t closer_cond = PTHREAD_COND_INITIALIZER;
static struct nft_owner_table *closer_queue; /* linked through ->next_closing */
static bool closer_started;

static void *closer_main(void *arg) {
        pthread_mutex_lock(&closer_lock);
        for (;;) {
                while (!closer_queue)
                        pthread_cond_wait(&closer_cond, &closer_lock);
                struct nft_owner_table *t = TAKE_PTR(closer_queue);
                pthread_mutex_unlock(&closer_lock);
                while (t) {
                        struct nft_owner_table *next = t->next_closing;
                        nft_owner_table_free(t);
                        t = next;
                }
                pthread_mutex_lock(&closer_lock);
        }
        return NULL;
}

static bool closer_start_locked(void) {
        pthread_attr_t attr;
        sigset_t all;
        pthread_t thread;
        if (closer_started)
                return true;
        if (pthread_attr_init(&attr) != 0)
                return false;
        sigfillset(&all);
        closer_started = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                         pthread_attr_setsigmask_np(&attr, &all) == 0 &&
                         pthread_create(&thread, &attr, closer_main, NULL) == 0;
        pthread_attr_destroy(&attr);
        return closer_started;
}

void nft_owner_table_free_later(struct nft_owner_table *t) {
        if (!t)
                return;
        pthread_mutex_lock(&closer_lock);
        bool queued = closer_start_locked();
        if (queued) {
                t->next_closing = closer_queue;
                closer_queue = t;
                pthread_cond_signal(&closer_cond);
        }
        pthread_mutex_unlock(&closer_lock);
        if (!queued)
                nft_owner_table_free(t);
}

int nft_socket_open(struct mnl_socket **ret, struct mh_error *reterr) {
        return socket_open(ret, reterr);
}

int nft_talk(struct mnl_socket *nl, const void *req, size_t len, mnl_cb_t cb, void *data) {
        return talk(nl, req, len, cb, data);
}
