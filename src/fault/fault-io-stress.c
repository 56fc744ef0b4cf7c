#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/payload.h"
#include "sys/ns.h"

/* fs.io_stress (payload.io): worker threads of a payload in the target's
 * cgroups and mount namespace move data through the filesystem of the
 * target's /tmp (else /), each on its own unlinked O_TMPFILE file, so the
 * kernel frees the space when the payload dies. Writers and readers are
 * separate threads (op both: one of each per worker), each paced to its
 * own MiB/s, so both rates hold at every moment. O_DIRECT where the
 * filesystem takes it: reads then come from the device, not the page
 * cache, and the bytes moved are the device's. The effect check measures
 * the kernel's own task I/O accounting (/proc/PID/io read_bytes and
 * write_bytes: bytes sent to and fetched from the storage layer) of the
 * payload's processes: cgroup v1 blkio.throttle.io_service_bytes stays at
 * 0 unless a throttle is set (Linux 6.18 here), so it cannot be read. */

#define WORKERS_MAX  8
#define DIO_ALIGN    4096
#define PACE_STEP_MS 100 /* longest sleep between stop checks */
#define LOOK_MS      1000

enum io_dir {
        IO_WRITE,
        IO_READ
};

struct io_plan {
        uint64_t bytes, block;
        double mib_s[2]; /* per direction; 0: unpaced */
        bool dir[2];
        double until_ms; /* 0: until stopped */
        bool direct;
};

struct io_thread {
        pthread_t t;
        const struct io_plan *plan;
        enum io_dir dir;
        int fd;
        int err;
};

static atomic_bool stopping;

static bool over(const struct io_plan *p) {
        return atomic_load(&stopping) || (p->until_ms > 0 && monotonic_ms() > p->until_ms);
}

/* Sleeps until moved bytes are due at mib_s since start. */
static void pace(double start, uint64_t moved, double mib_s, const struct io_plan *p) {
        if (mib_s <= 0)
                return;
        for (double due = start + (double)moved / (mib_s * 1048576.0) * 1000.0; !over(p);) {
                double left = due - monotonic_ms();
                if (left <= 0)
                        return;
                sleep_ms((int)MIN(left + 1, PACE_STEP_MS));
        }
}

/* One pass over the file; reads stop at its end. */
static int pass(struct io_thread *w, void *buf, bool paced, double start, uint64_t *moved) {
        const struct io_plan *p = w->plan;
        for (uint64_t off = 0; off + p->block <= p->bytes && !over(p); off += p->block) {
                ssize_t n = w->dir == IO_WRITE ? pwrite(w->fd, buf, p->block, (off_t)off)
                                               : pread(w->fd, buf, p->block, (off_t)off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                *moved += (uint64_t)n;
                if (paced)
                        pace(start, *moved, p->mib_s[w->dir], p);
        }
        return 0;
}

static void *run_io(void *arg) {
        struct io_thread *w = arg;
        void *buf = NULL;
        uint64_t moved = 0, fill = 0;
        if ((w->err = posix_memalign(&buf, DIO_ALIGN, w->plan->block)) != 0)
                return NULL;
        for (size_t i = 0; i < w->plan->block; i++)
                ((unsigned char *)buf)[i] = (unsigned char)(i * 131 + 7);
        /* A reader's file is written once first, unpaced: something to read. */
        struct io_thread filler = *w;
        filler.dir = IO_WRITE;
        int r = w->dir == IO_READ ? pass(&filler, buf, false, 0, &fill) : 0;
        for (double start = monotonic_ms(); r >= 0 && !over(w->plan);)
                r = pass(w, buf, true, start, &moved);
        w->err = r < 0 ? -r : 0;
        free(buf);
        return NULL;
}

/* An unlinked file of our own under the target's /tmp, else /. */
static int scratch_open(bool *direct) {
        static const char *const dirs[] = { "/tmp", "/" };
        int fd = -1;
        for (size_t i = 0; fd < 0 && i < ELEMENTSOF(dirs); i++) {
                fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC | O_DIRECT, 0600);
                *direct = fd >= 0;
                if (fd < 0 && errno == EINVAL) /* no O_DIRECT there: through the page cache */
                        fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        }
        return fd < 0 ? -errno : fd;
}

static void plan_of(const struct fault_exec *fx, struct io_plan *p) {
        const char *op = fault_param(fx, "op")->s;
        const struct param_value *rd = fault_param_opt(fx, "read_mb_s"),
                                 *wr = fault_param_opt(fx, "write_mb_s"),
                                 *secs = fault_param_opt(fx, "seconds");
        p->block = MAX(fault_param(fx, "block_size")->u / DIO_ALIGN * DIO_ALIGN, (uint64_t)DIO_ALIGN);
        p->bytes = MAX(fault_param(fx, "io_bytes")->u / p->block * p->block, p->block);
        p->mib_s[IO_READ] = rd ? (double)rd->i : 0;
        p->mib_s[IO_WRITE] = wr ? (double)wr->i : 0;
        p->dir[IO_READ] = strcmp(op, "write") != 0;
        p->dir[IO_WRITE] = strcmp(op, "read") != 0;
        p->until_ms = secs ? monotonic_ms() + (double)secs->i : 0;
}

static int start_all(
        struct io_plan *p, int workers, struct io_thread *t, size_t *ret_n, struct mh_error *reterr) {
        size_t n = 0;
        int r = 0;
        for (int i = 0; i < workers && r >= 0; i++)
                for (int d = IO_WRITE; d <= IO_READ && r >= 0; d++) {
                        if (!p->dir[d])
                                continue;
                        t[n] = (struct io_thread){ .plan = p, .dir = d, .fd = scratch_open(&p->direct) };
                        if ((r = t[n].fd) < 0)
                                r = mh_error_fail(
                                        reterr, r, "io", "no scratch file under /tmp or /: %s",
                                        strerror(-r));
                        else if ((r = -pthread_create(&t[n].t, NULL, run_io, &t[n])) < 0)
                                r = mh_error_fail(reterr, r, "io", "worker thread: %s", strerror(-r));
                        else
                                n++;
                }
        *ret_n = n;
        return r;
}

static int body(struct payload_ctx *c, struct mh_error *reterr) {
        struct io_plan p = { 0 };
        struct io_thread t[2 * WORKERS_MAX];
        size_t n = 0;
        int workers = (int)fault_param(c->fx, "workers")->i;
        plan_of(c->fx, &p);
        int r = start_all(&p, workers, t, &n, reterr);
        if (r >= 0)
                payload_ready(
                        c,
                        "%d worker(s), %" PRIu64 " MiB files, %" PRIu64
                        " KiB blocks, %s; write %.0f read %.0f MiB/s each (0: unpaced)",
                        workers, p.bytes >> 20, p.block >> 10,
                        p.direct ? "O_DIRECT" : "buffered (no O_DIRECT here)",
                        p.dir[IO_WRITE] ? p.mib_s[IO_WRITE] : -1, p.dir[IO_READ] ? p.mib_s[IO_READ] : -1);
        bool said[2 * WORKERS_MAX] = { false };
        while (r >= 0 && !payload_stopped(c, 1000))
                for (size_t i = 0; i < n; i++)
                        if (t[i].err && !said[i] && (said[i] = true))
                                payload_progress(
                                        c, "a %s worker stopped: %s",
                                        t[i].dir == IO_WRITE ? "write" : "read", strerror(t[i].err));
        atomic_store(&stopping, true);
        for (size_t i = 0; i < n; i++) {
                pthread_join(t[i].t, NULL);
                close(t[i].fd);
        }
        return r;
}

/* The kernel's I/O accounting of the lease's payload processes. */
static int io_of(
        const struct fault_exec *fx, uint64_t *rd, uint64_t *wr, size_t *ret_n, struct mh_error *e) {
        pid_t pids[4];
        size_t n = 0;
        int r = payload_pids_of_lease(&fx->target, fx->lease_id, pids, ELEMENTSOF(pids), &n, e);
        *rd = *wr = 0;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                char path[64], line[128];
                snprintf(path, sizeof(path), "/proc/%d/io", (int)pids[i]);
                FILE *f = fopen(path, "re");
                unsigned long long v;
                while (f && fgets(line, sizeof(line), f)) {
                        if (sscanf(line, "read_bytes: %llu", &v) == 1)
                                *rd += v;
                        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
                                *wr += v;
                }
                if (f)
                        fclose(f);
        }
        *ret_n = n;
        return r;
}

/* Over LOOK_MS: in force when each direction the fault runs moved at least
 * half its paced rate (any bytes when unpaced). */
static int moving(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        struct io_plan p = { 0 };
        uint64_t r0, w0, r1, w1;
        size_t n = 0;
        *ret = false;
        plan_of(fx, &p);
        double t0 = monotonic_ms();
        if (io_of(fx, &r0, &w0, &n, &e) < 0 || (sleep_ms(LOOK_MS), io_of(fx, &r1, &w1, &n, &e)) < 0) {
                snprintf(detail, size, "%s", e.msg);
                return e.code;
        }
        double s = (monotonic_ms() - t0) / 1000.0, workers = (double)fault_param(fx, "workers")->i;
        double got[2] = { (double)(w1 - w0) / 1048576.0 / s, (double)(r1 - r0) / 1048576.0 / s };
        *ret = n > 0;
        for (int d = IO_WRITE; d <= IO_READ; d++)
                if (p.dir[d])
                        *ret = *ret && (p.mib_s[d] > 0 ? got[d] >= 0.5 * p.mib_s[d] * workers : got[d] > 0);
        snprintf(
                detail, size,
                "the payload's storage I/O (/proc/PID/io) over %.1f s: write %.1f MiB/s, read %.1f MiB/s "
                "(asked: %.0f and %.0f per worker x %.0f, 0: unpaced)",
                s, got[IO_WRITE], got[IO_READ], p.mib_s[IO_WRITE], p.mib_s[IO_READ], workers);
        return 0;
}

const struct fault_mechanism fault_payload_io = {
        .name = "payload.io",
        .apply = fault_payload_apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "io.moving", moving } },
        .payload = body,
        .payload_ns = NS_BIT(NS_MNT),
};
