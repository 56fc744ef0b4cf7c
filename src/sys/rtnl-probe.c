/* Kernel feature probes for qdiscs, IFB devices and the ingress redirect:
 * each runs once in a throwaway netns of a forked child (as nft.c's owner
 * table probe does) and its answer is remembered. */
#include "sys/rtnl.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sys/ns.h"
#include "sys/rtnl-internal.h"

#define PROBE_TIMEOUT_MS 10000
#define PROBE_KINDS_MAX  16 /* distinct qdisc kinds remembered */
#define PROBE_IFB        "mhprobe0"
#define PROBE_LINK       1 /* lo: every new netns has it, at ifindex 1 */

_printf_(3, 4) static void out_printf(char *out, size_t *out_len, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(out, *out_len, fmt, ap);
        va_end(ap);
        *out_len = n < 0 ? 0 : MIN((size_t)n, *out_len - 1);
}

/* Opens a handle in a fresh netns of the (forked) caller. */
static int probe_open(struct rtnl **ret, char *out, size_t *out_len) {
        struct mh_error e = { 0 };
        int r;

        if (unshare(CLONE_NEWNET) < 0) {
                r = negative_errno();
                out_printf(out, out_len, "unshare(CLONE_NEWNET): %s", strerror(-r));
                return r;
        }
        r = rtnl_open(ret, &e);
        if (r < 0)
                out_printf(out, out_len, "%s", e.msg);
        return r;
}

/* A bare request for a qdisc kind without options. */
static int bare_add(struct rtnl *rt, const char *kind) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct nlmsghdr *nlh = rtnl_tc_msg_start(
                req, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, PROBE_LINK, RTNL_PARENT_ROOT, RTNL_HANDLE, 0);
        mnl_attr_put_strz(nlh, TCA_KIND, kind);
        return rtnl_ack(rt, nlh, 0, NULL, NULL);
}

/* Returns 0 known, -ENOENT unknown kind, or another error (in out). */
static int kind_fn(void *arg, char *out, size_t *out_len) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        const char *kind = arg;
        struct mh_error e = { 0 };
        int r = probe_open(&rt, out, out_len);

        if (r < 0)
                return r;
        if (streq(kind, "tbf")) {
                struct rtnl_tbf t = { .rate = 125000, .burst = 16384, .limit = 65536 };
                r = rtnl_qdisc_tbf_add(rt, PROBE_LINK, &t, &e);
        } else if (streq(kind, "netem")) {
                struct rtnl_netem n = { .delay_ns = 1000000, .limit = 1000 };
                r = rtnl_qdisc_netem_add(rt, PROBE_LINK, &n, &e);
        } else if (streq(kind, "ingress")) {
                r = rtnl_qdisc_ingress_add(rt, PROBE_LINK, &e);
        } else {
                r = bare_add(rt, kind);
                if (r != -ENOENT && r != -EPERM && r < 0)
                        r = 0; /* rejected options: the kernel knows the kind */
                if (r < 0)
                        mh_error_fail(&e, r, "rtnetlink", "adding %s: %s", kind, strerror(-r));
        }
        if (r < 0)
                out_printf(out, out_len, "%s", e.msg);
        *out_len = r < 0 ? *out_len : 0;
        return r;
}

static int run_probe(const char *what, ns_fn fn, void *arg, struct mh_error *reterr) {
        char out[NS_RESULT_MAX + 1];
        size_t len = 0;
        int fn_result, r;

        r = ns_run(NULL, 0, fn, arg, PROBE_TIMEOUT_MS, out, &len, &fn_result, reterr);
        if (r < 0) {
                mh_error_prefix(reterr, "probing for %s: ", what);
                return r;
        }
        out[MIN(len, (size_t)NS_RESULT_MAX)] = '\0';
        if (fn_result == 0)
                return 1;
        if (fn_result == -ENOENT || fn_result == -EOPNOTSUPP)
                return 0;
        return mh_error_fail(
                reterr, fn_result, "kernel_feature", "probing for %s: %s%s", what, out,
                fn_result == -EPERM ? " (needs CAP_SYS_ADMIN and CAP_NET_ADMIN)" : "");
}

static pthread_mutex_t kinds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
        char kind[RTNL_KIND_MAX];
        int answer;
} kinds_cache[PROBE_KINDS_MAX];
static size_t kinds_cached;

/* The remembered answer for kind, or -1. */
static int kind_cached(const char *kind) {
        int r = -1;

        pthread_mutex_lock(&kinds_lock);
        for (size_t i = 0; i < kinds_cached && r < 0; i++)
                if (streq(kinds_cache[i].kind, kind))
                        r = kinds_cache[i].answer;
        pthread_mutex_unlock(&kinds_lock);
        return r;
}

/* Past PROBE_KINDS_MAX kinds an answer is not remembered, only probed again. */
static void kind_remember(const char *kind, size_t n, int answer) {
        pthread_mutex_lock(&kinds_lock);
        if (kinds_cached < PROBE_KINDS_MAX) {
                memcpy(kinds_cache[kinds_cached].kind, kind, n + 1);
                kinds_cache[kinds_cached++].answer = answer;
        }
        pthread_mutex_unlock(&kinds_lock);
}

int rtnl_qdisc_kind_supported(const char *kind, struct mh_error *reterr) {
        size_t n = kind ? strnlen(kind, RTNL_KIND_MAX) : 0;
        char what[RTNL_KIND_MAX + 16];

        if (n == 0 || n >= RTNL_KIND_MAX)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "a qdisc kind has 1 to %d bytes",
                        RTNL_KIND_MAX - 1);
        int r = kind_cached(kind);
        if (r >= 0)
                return r;
        (void)snprintf(what, sizeof(what), "the %s qdisc", kind);
        r = run_probe(what, kind_fn, (void *)kind, reterr);
        if (r >= 0)
                kind_remember(kind, n, r);
        return r;
}

static int ifb_fn(void *arg, char *out, size_t *out_len) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct mh_error e = { 0 };
        int ifb, r = probe_open(&rt, out, out_len);

        if (r < 0)
                return r;
        r = rtnl_ifb_create(rt, PROBE_IFB, &ifb, &e);
        if (r == 0 && arg) /* the whole ingress path */
                r = rtnl_link_set_up(rt, ifb, &e);
        if (r == 0 && arg)
                r = rtnl_qdisc_ingress_add(rt, PROBE_LINK, &e);
        if (r == 0 && arg)
                r = rtnl_filter_redirect_add(rt, PROBE_LINK, ifb, &e);
        if (r < 0)
                out_printf(out, out_len, "%s", e.msg);
        else
                *out_len = 0;
        return r;
}

int rtnl_ifb_supported(struct mh_error *reterr) {
        static int cached = -1;
        int r = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);

        if (r >= 0)
                return r;
        r = run_probe("IFB devices", ifb_fn, NULL, reterr);
        if (r >= 0)
                __atomic_store_n(&cached, r, __ATOMIC_RELEASE);
        return r;
}

int rtnl_ingress_redirect_supported(struct mh_error *reterr) {
        static int cached = -1;
        int r = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);

        if (r >= 0)
                return r;
        r = run_probe("the ingress redirect (IFB, ingress qdisc, u32, mirred)", ifb_fn, (void *)1, reterr);
        if (r >= 0)
                __atomic_store_n(&cached, r, __ATOMIC_RELEASE);
        return r;
}
