#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/cpu-duty.h"
#include "fault/payload.h"
#include "sys/cgroup-cpu.h"

/* cpu.saturate: burner threads in the target's cgroups and pid namespace,
 * closed-loop so the CPU they add is percent of the target's allowance
 * (cgroup-cpu.h: the quota, else the CPUs it may run on).
 *
 * The body measures what it adds with CLOCK_PROCESS_CPUTIME_ID: its own CPU
 * time is exactly what it charges to the cgroup, and needs no file. It
 * reads the allowance and the cgroup's usage counter itself (from /proc and
 * the cgroup mounts of the agent's mount namespace: payload_ns is 0, and
 * those files are world-readable, so no capability is kept); the usage
 * counter only feeds its progress lines (the app's share, a binding quota).
 * The agent's effect check measures both again from the kernel: the
 * payload threads' run time (schedstat) and the cgroup's usage counter. */

#define SLICE_NS     (10 * 1000 * 1000ull) /* a burner's period: well under the cfs period */
#define CTRL_MS      200                   /* the loop's step */
#define REPORT_STEPS 5                     /* a progress line each second */
#define NS_PER_S     1e9

static atomic_bool stopping;
static _Atomic double duty;

static uint64_t clock_ns(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec ts_of(uint64_t ns) {
        return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull),
                                  .tv_nsec = (long)(ns % 1000000000ull) };
}

/* Busy for duty of each slice, counted in this thread's CPU time (a slice
 * it was preempted or throttled in ends at its wall deadline anyway), then
 * asleep until the slice ends. */
static void *burn(void *arg) {
        (void)arg;
        uint64_t next = clock_ns(CLOCK_MONOTONIC);
        while (!atomic_load(&stopping)) {
                uint64_t want = (uint64_t)(atomic_load(&duty) * (double)SLICE_NS);
                uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
                next += SLICE_NS;
                while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < want && clock_ns(CLOCK_MONOTONIC) < next)
                        ;
                struct timespec until = ts_of(next);
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
                        ;
                uint64_t now = clock_ns(CLOCK_MONOTONIC);
                if (now > next + SLICE_NS) /* fell behind: do not catch up in a burst */
                        next = now;
        }
        return NULL;
}

struct sample {
        uint64_t wall, ours, cgroup;
};

static void sample_take(struct sample *s, int usage_fd, bool v2) {
        s->wall = clock_ns(CLOCK_MONOTONIC);
        s->ours = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        if (usage_fd < 0 || cgroup_cpu_usage_read(usage_fd, v2, &s->cgroup) < 0)
                s->cgroup = 0;
}

/* A progress line on the last second: ours and the cgroup's, as shares of
 * the allowance; says so when the quota leaves less than wanted. */
static void report(
        struct payload_ctx *c, const struct sample *a, const struct sample *b, double allowance,
        double wanted, bool have_cgroup) {
        double win = (double)(b->wall - a->wall);
        double ours = cpu_share_pct((double)(b->ours - a->ours), win, allowance);
        if (!have_cgroup) {
                payload_progress(c, "ours %.1f%% of %.2f CPU (wanted %.0f%%)", ours, allowance, wanted);
                return;
        }
        double cg = cpu_share_pct((double)(b->cgroup - a->cgroup), win, allowance);
        if (cpu_verdict(ours, cg, wanted) == CPU_VERDICT_BINDING)
                payload_progress(
                        c,
                        "ours %.1f%% of %.2f CPU (wanted %.0f%%), cgroup %.1f%%: the quota binds, the app "
                        "takes %.1f%%, ours gets what is left",
                        ours, allowance, wanted, cg, cg - ours);
        else
                payload_progress(
                        c, "ours %.1f%% of %.2f CPU (wanted %.0f%%), cgroup %.1f%%", ours, allowance, wanted,
                        cg);
}

static void control(struct payload_ctx *c, struct cpu_duty *d, double allowance, double percent) {
        _cleanup_close_ int usage_fd = -EBADF;
        struct mh_error e = { 0 };
        bool v2 = false;
        if (cgroup_cpu_usage_open(&c->fx->target.main, &usage_fd, &v2, &e) < 0)
                usage_fd = -EBADF; /* progress without the cgroup's share */
        struct sample last, mark, now;
        sample_take(&last, usage_fd, v2);
        mark = last;
        for (unsigned step = 1; !payload_stopped(c, CTRL_MS); step++) {
                sample_take(&now, usage_fd, v2);
                double dt = (double)(now.wall - last.wall) / NS_PER_S;
                if (dt > 0)
                        atomic_store(
                                &duty, cpu_duty_step(d, (double)(now.ours - last.ours) / NS_PER_S / dt, dt));
                last = now;
                if (step % REPORT_STEPS == 0) {
                        report(c, &mark, &now, allowance, percent, usage_fd >= 0);
                        mark = now;
                }
        }
}

static int body(struct payload_ctx *c, struct mh_error *reterr) {
        double allowance = 0, percent = fault_param(c->fx, "percent")->f;
        bool limited = false;
        int r = cgroup_cpu_allowance(&c->fx->target.main, &allowance, &limited, reterr);
        if (r < 0)
                return r;
        struct cpu_duty d;
        cpu_duty_init(&d, allowance, percent);
        atomic_store(&duty, d.duty);
        pthread_t t[CPU_BURNERS_MAX];
        unsigned n = 0;
        while (n < d.threads && pthread_create(&t[n], NULL, burn, NULL) == 0)
                n++;
        if (n < d.threads) {
                atomic_store(&stopping, true);
                for (unsigned i = 0; i < n; i++)
                        pthread_join(t[i], NULL);
                return mh_error_fail(
                        reterr, -EAGAIN, "payload", "only %u of %u burner threads could be created", n,
                        d.threads);
        }
        payload_ready(
                c, "%u burner thread%s for %.0f%% of %.2f CPU (%s) = %.2f CPU", n, n == 1 ? "" : "s",
                percent, allowance, limited ? "the cgroup's quota" : "no quota: the CPUs it may run on",
                d.target);
        control(c, &d, allowance, percent);
        atomic_store(&stopping, true);
        for (unsigned i = 0; i < n; i++)
                pthread_join(t[i], NULL);
        return 0;
}

/* ---- in the agent ------------------------------------------------------------ */

/* The run time of every thread of pid (/proc/PID/task/TID/schedstat, ns). */
static uint64_t threads_ns(pid_t pid) {
        char path[64], buf[128];
        uint64_t sum = 0;
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                char file[96];
                snprintf(file, sizeof(file), "%.20s/%.20s/schedstat", path, de->d_name);
                int fd = open(file, O_RDONLY | O_CLOEXEC);
                ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
                if (fd >= 0)
                        close(fd);
                unsigned long long ns = 0;
                if (len > 0 && (buf[len] = '\0', sscanf(buf, "%llu", &ns) == 1))
                        sum += ns;
        }
        closedir(d);
        return sum;
}

static uint64_t payloads_ns(const pid_t *pids, size_t n) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += threads_ns(pids[i]);
        return sum;
}

/* cpu.busy: over CPU_LOOK_MS, the payload's threads used percent of the
 * allowance (within CPU_LOOK_TOL_PTS), or the cgroup is at its quota. */
static int busy_look(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        _cleanup_close_ int fd = -EBADF;
        double allowance = 0, wanted = fault_param(fx, "percent")->f;
        bool limited = false, v2 = false;
        pid_t pids[8];
        size_t n = 0;
        uint64_t u0 = 0, u1 = 0;
        *ret = false;
        int r = cgroup_cpu_allowance(&fx->target.main, &allowance, &limited, &e);
        if (r >= 0)
                r = cgroup_cpu_usage_open(&fx->target.main, &fd, &v2, &e);
        if (r >= 0)
                r = payload_pids_of_lease(&fx->target, fx->lease_id, pids, ELEMENTSOF(pids), &n, &e);
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        if (n == 0) {
                snprintf(detail, size, "no payload of ours runs in the target's cgroup");
                return 0;
        }
        uint64_t t0 = clock_ns(CLOCK_MONOTONIC), p0 = payloads_ns(pids, n);
        if ((r = cgroup_cpu_usage_read(fd, v2, &u0)) >= 0) {
                sleep_ms(CPU_LOOK_MS);
                r = cgroup_cpu_usage_read(fd, v2, &u1);
        }
        uint64_t t1 = clock_ns(CLOCK_MONOTONIC), p1 = payloads_ns(pids, n);
        if (r < 0) {
                snprintf(detail, size, "the cgroup's CPU usage counter: %s", strerror(-r));
                return r;
        }
        double win = (double)(t1 - t0);
        double ours = cpu_share_pct((double)(p1 - p0), win, allowance);
        double cg = cpu_share_pct((double)(u1 - u0), win, allowance);
        enum cpu_verdict v = cpu_verdict(ours, cg, wanted);
        *ret = v != CPU_VERDICT_OFF;
        int len = snprintf(
                detail, size,
                "over %d ms: ours %.1f%%, cgroup usage %.1f%% of %.2f CPU (%s; wanted %.0f%% +-%.0f)",
                CPU_LOOK_MS, ours, cg, allowance, limited ? "quota" : "no quota", wanted, CPU_LOOK_TOL_PTS);
        if (v == CPU_VERDICT_BINDING && len > 0 && (size_t)len < size)
                snprintf(
                        detail + len, size - (size_t)len,
                        ": the quota binds, the app takes %.1f%%, ours gets what is left", cg - ours);
        return 0;
}

const struct fault_mechanism fault_payload_cpu = {
        .name = "payload.cpu",
        .apply = fault_payload_apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "cpu.busy", busy_look } },
        .payload = body,
};
