/* doctor --fidelity's figures of the container's service, processes and
 * cgroup: how long its HTTP service did not answer, the descriptors its
 * process could still open, and the cgroup's CPU and memory counters as
 * the engine's stats report them, with the integration tests' tolerances
 * (test-signal's pause, test-resfs's fd.exhaust, test-cpu, test-mem). */

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doctor-fidelity-internal.h"
#include "doctor-measure.h"

#define IDLE_CONNECTIONS 40 /* offered to fd.exhaust's target: more than its limit */

/* The service's longest stretch without an answer while the run holds
 * the fault (a GET every 20 ms, 100 ms to answer), at most 8 s. */
void fidelity_unanswered(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        double longest = 0, since = 0;
        (void)before;
        for (double end = fidelity_now_s() + 8; fidelity_now_s() < end; usleep(20000)) {
                double t = fidelity_now_s();
                bool up = doctor_http_answers(env->ip, FIDELITY_PORT, 100);
                if (!up && since == 0)
                        since = t;
                if (up && since > 0) {
                        longest = fmax(longest, t - since);
                        since = 0;
                        if (longest > 0.5)
                                break;
                }
                if (fidelity_run_over(run))
                        break;
        }
        f->within = fabs(longest - fc->want) <= 0.5;
        snprintf(f->achieved, sizeof(f->achieved), "%.2f s without an answer", longest);
        snprintf(f->tolerance, sizeof(f->tolerance), "±0.5 s");
}

double fidelity_main_pid(const struct fidelity_env *env) {
        struct engine_container c;
        return engine_container_inspect(env->engine, env->id, &c, NULL) >= 0 && c.pid > 0 ? c.pid : NAN;
}

/* Open descriptors of pid, from the host's /proc; -1 when unreadable. */
static int open_descriptors(int pid) {
        char path[64];
        int n = 0;
        snprintf(path, sizeof(path), "/proc/%d/fd", pid);
        DIR *d = opendir(path);
        if (!d)
                return -1;
        for (struct dirent *de; (de = readdir(d));)
                n += de->d_name[0] != '.';
        closedir(d);
        return n;
}

/* More idle connections than the limit offered to the service: the
 * descriptors its process opened for them. */
void fidelity_descriptors(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        int fds[IDLE_CONNECTIONS], pid = isnan(before) ? 0 : (int)before;
        (void)run;
        int had = pid ? open_descriptors(pid) : -1, has = -1;
        size_t offered = 0;
        if (had >= 0) {
                offered = doctor_open_idle(env->ip, FIDELITY_PORT, fds, IDLE_CONNECTIONS);
                usleep(400000); /* the service accepts, and backs off 100 ms after EMFILE */
                has = open_descriptors(pid);
                doctor_close_all(fds, IDLE_CONNECTIONS);
        }
        if (had < 0 || has < 0) {
                snprintf(f->achieved, sizeof(f->achieved), "the service's descriptors unreadable");
                return;
        }
        f->within = has - had == (int)fc->want;
        snprintf(
                f->achieved, sizeof(f->achieved), "+%d opened (%zu connections offered)", has - had,
                offered);
        snprintf(f->tolerance, sizeof(f->tolerance), "exactly");
}

static bool stats(const struct fidelity_env *env, struct engine_stats *ret) {
        return engine_container_stats(env->engine, env->id, ret, NULL) >= 0;
}

/* The share of the allowance the container used over ms, in percent; NAN
 * when the engine does not tell. */
static double cpu_share(const struct fidelity_env *env, int ms) {
        struct engine_stats a, b;
        double t0 = fidelity_now_s();
        if (!stats(env, &a))
                return NAN;
        usleep((useconds_t)ms * 1000);
        double t1 = fidelity_now_s();
        if (!stats(env, &b) || b.cpu_ns < a.cpu_ns)
                return NAN;
        return 100.0 * (double)(b.cpu_ns - a.cpu_ns) / 1e9 / (t1 - t0) / FIDELITY_CPUS;
}

double fidelity_cpu_idle(const struct fidelity_env *env) {
        return cpu_share(env, 1000);
}

/* The engine did not give its stats (no answer, or a reply without the
 * counters): said, and not counted as a miss. */
static void unreadable(struct fidelity_figure *f) {
        f->measured = false;
        snprintf(f->achieved, sizeof(f->achieved), "not measured (engine stats unreadable)");
}

void fidelity_cpu_added(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        (void)run;
        usleep(1500000); /* the burners settle (test-cpu allows 5 s; they take well under 1) */
        double added = cpu_share(env, 3000) - before;
        snprintf(f->tolerance, sizeof(f->tolerance), "±5 points");
        if (isnan(added)) {
                unreadable(f);
                return;
        }
        f->within = fabs(added - fc->want) <= 5.0;
        snprintf(f->achieved, sizeof(f->achieved), "+%.1f %% of %.1f CPU", added, FIDELITY_CPUS);
}

double fidelity_memory_used(const struct fidelity_env *env) {
        struct engine_stats s;
        return stats(env, &s) ? (double)s.memory_bytes : NAN;
}

/* The cgroup's growth once it stops growing (read every 100 ms, at most
 * 2.5 s), against test-mem's ±2 %. */
void fidelity_memory_added(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        double want = fc->want * (1 << 20), last = -1, now = fidelity_memory_used(env);
        (void)run;
        for (double end = fidelity_now_s() + 2.5; !isnan(now) && now != last && fidelity_now_s() < end;) {
                usleep(100000);
                last = now;
                now = fidelity_memory_used(env);
        }
        snprintf(f->tolerance, sizeof(f->tolerance), "±2 %%");
        if (isnan(now) || isnan(before)) {
                unreadable(f);
                return;
        }
        double added = now - before;
        f->within = fabs(added - want) <= 0.02 * want;
        snprintf(f->achieved, sizeof(f->achieved), "+%.1f MiB charged", added / (1 << 20));
}

/* How soon after the inject the service stopped answering (a GET every 20
 * ms, at most 2 s); the run's undo then starts it again (fidelity_restarted). */
void fidelity_killed(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        double t0 = fidelity_now_s(), gone = NAN;
        (void)fc, (void)before;
        for (; fidelity_now_s() < t0 + 2 && !fidelity_run_over(run); usleep(20000))
                if (!doctor_http_answers(env->ip, FIDELITY_PORT, 100)) {
                        gone = fidelity_now_s() - t0;
                        break;
                }
        f->within = !isnan(gone) && gone <= 0.5;
        if (isnan(gone))
                snprintf(f->achieved, sizeof(f->achieved), "still answering 2 s after the inject");
        else
                snprintf(f->achieved, sizeof(f->achieved), "gone in %.2f s", gone);
        snprintf(f->tolerance, sizeof(f->tolerance), "gone within 0.5 s, back");
}

/* After the run: the container runs a new main process, and its service
 * answers (within 5 s) at the address it has now. */
void fidelity_restarted(struct fidelity_env *env, double before, struct fidelity_figure *f) {
        struct engine_container c = { 0 };
        bool back = false;
        if (engine_container_inspect(env->engine, env->id, &c, NULL) >= 0 && c.n_networks > 0)
                snprintf(env->ip, sizeof(env->ip), "%s", c.networks[0].ip);
        for (double end = fidelity_now_s() + 5; !back && fidelity_now_s() < end; usleep(100000))
                back = doctor_http_answers(env->ip, FIDELITY_PORT, 300);
        bool new_pid = c.running && c.pid > 0 && !isnan(before) && c.pid != (int)before;
        f->within = f->within && back && new_pid;
        size_t n = strlen(f->achieved);
        snprintf(
                f->achieved + n, sizeof(f->achieved) - n, "; %s",
                back && new_pid ? "back, new pid"
                : new_pid       ? "new pid, not answering"
                                : "not started again");
}
