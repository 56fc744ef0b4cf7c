#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/fs-target.h"
#include "fault/payload.h"
#include "sys/ns.h"

/* fs.inode_exhaust: a payload in the target's mount namespace creates empty
 * unnamed files (fs_tmpfile) on the filesystem of path until percent of its
 * free inodes are used (fs-space.h), and holds one descriptor on each: the
 * kernel frees every inode when the payload dies, however it dies, so no
 * file is ever left to remove. That takes one descriptor per inode, up to
 * FS_INODES_CAP: the payload raises its own RLIMIT_NOFILE to what it needs,
 * which is why it keeps CAP_SYS_RESOURCE (past the hard limit the agent
 * runs with; fs.nr_open still bounds it), with CAP_DAC_OVERRIDE to create
 * files where root may. Each held inode also costs the kernel ~1 KiB
 * (inode, dentry, file), charged to the target's memory cgroup. */

#define INODE_MS  12000 /* within PAYLOAD_READY_MS, with room to say why not */
#define FDS_SPARE 64

struct held {
        int *fd;
        size_t n;
};

static void held_close(struct held *h) {
        for (size_t i = 0; i < h->n; i++)
                close(h->fd[i]);
        free(h->fd);
        h->fd = NULL;
        h->n = 0;
}

static int raise_nofile(uint64_t n, struct mh_error *reterr) {
        struct rlimit l;
        rlim_t need = (rlim_t)(n + FDS_SPARE);
        if (getrlimit(RLIMIT_NOFILE, &l) < 0)
                return mh_error_fail(reterr, negative_errno(), "fs", "getrlimit: %s", strerror(errno));
        if (l.rlim_cur >= need)
                return 0;
        struct rlimit want = { .rlim_cur = need, .rlim_max = MAX(l.rlim_max, need) };
        if (setrlimit(RLIMIT_NOFILE, &want) < 0)
                return mh_error_fail(
                        reterr, negative_errno(), "fs",
                        "holding %llu inodes needs %llu descriptors; the hard limit is %llu and raising it "
                        "needs CAP_SYS_RESOURCE and fs.nr_open at least that: %s",
                        (unsigned long long)n, (unsigned long long)need, (unsigned long long)l.rlim_max,
                        strerror(errno));
        return 0;
}

/* Up to n unnamed files; *ret_full when the filesystem ran out of inodes first. */
static int create(
        struct payload_ctx *c, int dir, struct held *h, size_t n, bool *ret_full, struct mh_error *reterr) {
        double until = monotonic_ms() + INODE_MS;
        while (h->n < n) {
                int fd = fs_tmpfile(dir);
                if (fd == -ENOSPC) {
                        *ret_full = true;
                        return 0;
                }
                if (fd < 0)
                        return mh_error_fail(
                                reterr, fd, "fs", "file %zu of %zu: %s", h->n + 1, n, strerror(-fd));
                h->fd[h->n++] = fd;
                if (h->n % 1024 != 0)
                        continue;
                if (payload_stopped(c, 0))
                        return -ECANCELED;
                if (monotonic_ms() > until)
                        return mh_error_fail(
                                reterr, -ETIMEDOUT, "fs", "created %zu of %zu files in %d s", h->n, n,
                                INODE_MS / 1000);
        }
        return 0;
}

static int hold(
        struct payload_ctx *c, int dir, const struct fs_usage *u0, uint64_t n, struct held *h,
        struct mh_error *reterr) {
        const char *path = fault_param(c->fx, "path")->s;
        double percent = fault_param(c->fx, "percent")->f;
        bool full = false;
        struct fs_usage u;
        char kind[96];
        int r = raise_nofile(n, reterr);
        if (r < 0)
                return r;
        if (!(h->fd = calloc(n, sizeof(int))))
                return mh_error_fail(
                        reterr, -ENOMEM, "fs", "no memory for %llu descriptors", (unsigned long long)n);
        if ((r = create(c, dir, h, n, &full, reterr)) < 0)
                return r;
        if ((r = fs_usage_of(dir, &u)) < 0)
                return mh_error_fail(reterr, r, "fs", "statvfs of %s: %s", path, strerror(-r));
        payload_ready(
                c,
                FS_HELD_FMT ": %llu of %llu inodes used (%.1f%%) on %s at %s (wanted %g%% of the %llu "
                            "free: %llu%s)",
                (unsigned long long)h->n, (unsigned long long)(fs_inodes_used(u0) + n),
                (unsigned long long)fs_inodes_used(&u), (unsigned long long)u.files,
                100.0 * (double)fs_inodes_used(&u) / (double)MAX(u.files, 1),
                fs_kind(u.type, kind, sizeof(kind)), path, percent, (unsigned long long)u0->ffree,
                (unsigned long long)n, full ? "; the filesystem ran out of inodes first" : "");
        while (!payload_stopped(c, 1000))
                ;
        return 0;
}

static int body(struct payload_ctx *c, struct mh_error *reterr) {
        const char *path = fault_param(c->fx, "path")->s, *why = NULL;
        double percent = fault_param(c->fx, "percent")->f;
        struct fs_usage u;
        struct held h = { 0 };
        char kind[96];
        _cleanup_close_ int dir = fs_dir_open(path);
        int r = dir < 0 ? dir : fs_usage_of(dir, &u);
        if (r < 0)
                return mh_error_fail(reterr, r, "fs", "%s in the target: %s", path, strerror(-r));
        uint64_t n = fs_inode_goal(&u, percent, &why);
        if (n == 0)
                return mh_error_fail(
                        reterr, -EOPNOTSUPP, "fs", "%s (%s): %s", path, fs_kind(u.type, kind, sizeof(kind)),
                        why);
        r = hold(c, dir, &u, n, &h, reterr);
        held_close(&h);
        return r == -ECANCELED ? 0 : r;
}

/* Effect "fs.inodes_used": the used inodes of the filesystem, read now by
 * the agent, are at the payload's goal (within 1% of the inode count). */
static int inodes_used(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        unsigned long long held, goal;
        struct fs_usage u;
        char kind[96];
        *ret = false;
        if (!fs_payload_held(fx, &held, &goal)) {
                snprintf(detail, size, "the payload is not running");
                return 0;
        }
        int r = fs_target_usage(&fx->target.main, fault_param(fx, "path")->s, &u, &e);
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        uint64_t used = fs_inodes_used(&u);
        *ret = used + u.files / 100 >= goal;
        snprintf(
                detail, size,
                "%llu of %llu inodes used (%.1f%%) on %s (wanted %llu; %llu held by the payload)",
                (unsigned long long)used, (unsigned long long)u.files,
                100.0 * (double)used / (double)MAX(u.files, 1), fs_kind(u.type, kind, sizeof(kind)), goal,
                held);
        return 0;
}

const struct fault_mechanism fault_payload_inodes = {
        .name = "payload.inodes",
        .apply = fault_payload_apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "fs.inodes_used", inodes_used } },
        .payload = body,
        .payload_ns = NS_BIT(NS_MNT),
        .payload_caps = (1ull << CAP_DAC_OVERRIDE) | (1ull << CAP_SYS_RESOURCE),
};
