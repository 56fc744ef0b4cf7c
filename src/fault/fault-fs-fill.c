#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/fs-target.h"
#include "fault/payload.h"
#include "sys/ns.h"

/* fs.fill: a payload in the target's mount namespace writes real data into
 * one unnamed file (fs_tmpfile) on the filesystem of path until the used
 * share of its size reaches percent (fs-space.h), and holds it open: the
 * kernel frees the space when the payload dies, however it dies. The data
 * is random, so a compressing filesystem counts it too; fallocate() is not
 * used (some filesystems do not count it, and ENOSPC halfway through one
 * leaves nothing to trim). ENOSPC before the goal (someone else writing)
 * halves the write down to one block, then stops at a full filesystem.
 * The payload keeps CAP_DAC_OVERRIDE only (to write where root may), not
 * CAP_SYS_RESOURCE: the goal is measured against f_bavail and the payload
 * never writes more than goal - used, so the ext4 root reserve is left. */

#define CHUNK   (1u << 20)
#define FILL_MS 12000 /* within PAYLOAD_READY_MS, with room to say why not */

struct fill {
        int fd, dir;
        uint64_t goal, need, held;
        bool full;
        char *buf;
};

static void randomize(char *buf, size_t n) {
        uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ 0x9E3779B97F4A7C15ull;
        for (size_t i = 0; i + 8 <= n; i += 8) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                memcpy(buf + i, &x, 8);
        }
}

/* One write towards the goal; 1 when the goal (or a full filesystem) is reached. */
static int fill_step(struct fill *f, size_t *chunk) {
        struct fs_usage u;
        int r = fs_usage_of(f->dir, &u);
        if (r < 0)
                return r;
        uint64_t used = fs_used(&u);
        if (used + u.block > f->goal || f->held >= f->need)
                return 1;
        size_t n = (size_t)MIN((uint64_t)*chunk, MIN(f->goal - used, f->need - f->held));
        ssize_t w = write(f->fd, f->buf, n);
        if (w > 0) {
                f->held += (uint64_t)w;
                return 0;
        }
        if (w < 0 && errno == EINTR)
                return 0;
        if (w < 0 && errno != ENOSPC)
                return negative_errno();
        if (*chunk <= u.block) {
                f->full = true;
                return 1;
        }
        *chunk /= 2;
        return 0;
}

static int fill_until(struct payload_ctx *c, struct fill *f, struct mh_error *reterr) {
        size_t chunk = CHUNK;
        char a[32], b[32];
        for (double until = monotonic_ms() + FILL_MS;;) {
                int r = fill_step(f, &chunk);
                if (r < 0)
                        return mh_error_fail(reterr, r, "fs", "writing: %s", strerror(-r));
                if (r > 0)
                        return 0;
                if (payload_stopped(c, 0))
                        return -ECANCELED;
                if (monotonic_ms() > until)
                        return mh_error_fail(
                                reterr, -ETIMEDOUT, "fs", "wrote %s of %s in %d s: the disk is too slow",
                                fs_bytes(f->held, a, sizeof(a)), fs_bytes(f->need, b, sizeof(b)),
                                FILL_MS / 1000);
        }
}

static int body(struct payload_ctx *c, struct mh_error *reterr) {
        const char *path = fault_param(c->fx, "path")->s, *why = NULL;
        double percent = fault_param(c->fx, "percent")->f;
        struct fs_usage u;
        char kind[96], size[32];
        _cleanup_close_ int dir = fs_dir_open(path);
        int r = dir < 0 ? dir : fs_usage_of(dir, &u);
        if (r < 0)
                return mh_error_fail(reterr, r, "fs", "%s in the target: %s", path, strerror(-r));
        fs_kind(u.type, kind, sizeof(kind));
        uint64_t goal = fs_fill_goal(&u, percent, &why);
        if (goal == 0)
                return mh_error_fail(
                        reterr, -EALREADY, "fs", "%s (%s): %s: used %.1f%% of %s, wanted %g%%", path, kind,
                        why, 100.0 * (double)fs_used(&u) / (double)MAX(u.size, 1),
                        fs_bytes(u.size, size, sizeof(size)), percent);
        _cleanup_free_ char *buf = malloc(CHUNK);
        _cleanup_close_ int fd = fs_tmpfile(dir);
        if (!buf || fd < 0)
                return mh_error_fail(
                        reterr, fd < 0 ? fd : -ENOMEM, "fs", "a file to fill %s: %s", path,
                        strerror(fd < 0 ? -fd : ENOMEM));
        randomize(buf, CHUNK);
        struct fill f = { .fd = fd, .dir = dir, .goal = goal, .need = goal - fs_used(&u), .buf = buf };
        if ((r = fill_until(c, &f, reterr)) < 0)
                return r == -ECANCELED ? 0 : r;
        if ((r = fs_usage_of(dir, &u)) < 0)
                return mh_error_fail(reterr, r, "fs", "statvfs of %s: %s", path, strerror(-r));
        char held[32];
        payload_ready(
                c,
                FS_HELD_FMT ": used %.1f%% of %s on %s at %s (percent %g, at most 1 GiB added; %s held%s)",
                (unsigned long long)f.held, (unsigned long long)goal,
                100.0 * (double)fs_used(&u) / (double)u.size, fs_bytes(u.size, size, sizeof(size)), kind,
                path, percent, fs_bytes(f.held, held, sizeof(held)),
                f.full ? "; the filesystem filled up before the goal" : "");
        while (!payload_stopped(c, 1000))
                ;
        return 0;
}

/* Effect "fs.filled": the used share of the filesystem, read now by the
 * agent, is at the payload's goal (within 1% of the size). */
static int filled(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        unsigned long long held, goal;
        struct fs_usage u;
        char kind[96], total[32], h[32];
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
        uint64_t used = fs_used(&u), slack = u.size / 100;
        *ret = used + slack >= goal;
        snprintf(
                detail, size,
                "used %.1f%% of %s on %s (goal %.1f%%: percent %g, at most 1 GiB added; %s held "
                "by the payload)",
                100.0 * (double)used / (double)MAX(u.size, 1), fs_bytes(u.size, total, sizeof(total)),
                fs_kind(u.type, kind, sizeof(kind)), 100.0 * (double)goal / (double)MAX(u.size, 1),
                fault_param(fx, "percent")->f, fs_bytes(held, h, sizeof(h)));
        return 0;
}

const struct fault_mechanism fault_payload_fill = {
        .name = "payload.fill",
        .apply = fault_payload_apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "fs.filled", filled } },
        .payload = body,
        .payload_ns = NS_BIT(NS_MNT),
        .payload_caps = 1ull << CAP_DAC_OVERRIDE,
};
