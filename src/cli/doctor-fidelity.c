/* `mayhem doctor --fidelity`: each fault of the table below held for a few
 * seconds on a throwaway container, through the normal run path (this very
 * binary's `run --execute`, so the lease, undo and verify are the real
 * ones), and what it achieved measured from the host as the integration
 * tests measure it (tests/common/net-assert.h's tolerances). The container
 * runs the demo image (mayhem-demo-api, a static HTTP service FROM
 * scratch, tools/build-images): mayhem's own binaries are dynamically
 * linked, so there is no static mayhem binary to put in an image of ours. */

#include "doctor-fidelity.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "doctor-measure.h"
#include "engine/engine.h"

#define FIDELITY_IMAGE "mayhem-demo-api:latest"
#define FIDELITY_PORT  8080
#define FIDELITY_LABEL "org.mayhem.fidelity"
#define FIDELITY_CPUS  0.5 /* the container's CPU limit: cpu.saturate's allowance */
#define LOG_MAX        (1u << 20)

extern char **environ;

enum measure {
        MEASURE_RTT,   /* added round trip, ms */
        MEASURE_LOSS,  /* echoes lost, % */
        MEASURE_PAUSE, /* time the service did not answer, s */
        MEASURE_CPU,   /* added share of the container's CPU allowance, % */
};

static const struct fidelity_case {
        const char *fault;
        const char *params; /* drill YAML flow-mapping entries */
        int hold_s;
        enum measure measure;
        double requested;
} cases[] = {
        { "net.latency", "delay_ms: 100", 4, MEASURE_RTT, 100 },
        { "net.packet_loss", "percent: 20", 4, MEASURE_LOSS, 20 },
        { "proc.pause", "", 3, MEASURE_PAUSE, 3 },
        { "cpu.saturate", "percent: 50", 6, MEASURE_CPU, 50 },
};

struct fidelity_env {
        char dir[64], compose[96], db[96], name[64], ip[64];
        struct engine *engine;
        char id[ENGINE_ID_MAX];
        bool podman; /* the run gets -p */
};

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_text(const char *path, const char *text) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        size_t len = strlen(text);
        if (fd < 0)
                return -errno;
        return write(fd, text, len) == (ssize_t)len ? 0 : -EIO;
}

/* The container, started, its HTTP service answering. */
static int env_up(struct fidelity_env *env, enum engine_kind kind, struct mh_error *reterr) {
        struct engine_container c;
        int r = engine_open(kind, NULL, &env->engine, reterr);
        env->podman = kind == ENGINE_PODMAN;
        if (r < 0)
                return r;
        snprintf(env->name, sizeof(env->name), "mayhem-fidelity-%d", (int)getpid());
        if ((r = engine_container_create(
                     env->engine, FIDELITY_IMAGE, env->name, FIDELITY_LABEL, (int64_t)(FIDELITY_CPUS * 1e9),
                     env->id, reterr)) < 0) {
                if (r == -ENOENT && reterr)
                        snprintf(
                                reterr->msg, sizeof(reterr->msg),
                                "no image %s here: build it with tools/build-images", FIDELITY_IMAGE);
                return r;
        }
        if ((r = engine_container_start(env->engine, env->id, reterr)) < 0 ||
            (r = engine_container_inspect(env->engine, env->id, &c, reterr)) < 0)
                return r;
        if (c.n_networks == 0 || !c.networks[0].ip[0])
                return mh_error_set(
                        reterr, -EADDRNOTAVAIL, MH_EXIT_CONFIG_ERROR, "fidelity", "%s has no IP address",
                        env->name);
        snprintf(env->ip, sizeof(env->ip), "%s", c.networks[0].ip);
        for (double end = now_s() + 10; now_s() < end; usleep(100000))
                if (doctor_http_answers(env->ip, FIDELITY_PORT, 300))
                        break;
        snprintf(env->dir, sizeof(env->dir), "/tmp/mayhem-fidelity-XXXXXX");
        if (!mkdtemp(env->dir))
                return mh_error_set(
                        reterr, -errno, MH_EXIT_CONFIG_ERROR, "fidelity", "mkdtemp: %s", strerror(errno));
        snprintf(env->compose, sizeof(env->compose), "%s/compose.yaml", env->dir);
        snprintf(env->db, sizeof(env->db), "%s/fidelity.db", env->dir);
        char text[512];
        snprintf(
                text, sizeof(text), "services:\n  probe:\n    image: %s\n    container_name: %s\n",
                FIDELITY_IMAGE, env->name);
        if ((r = write_text(env->compose, text)) < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_CONFIG_ERROR, "fidelity", "%s: %s", env->compose, strerror(-r));
        return 0;
}

/* Removes all the container, the drills, logs and the run's database. */
static void env_down(struct fidelity_env *env) {
        if (env->engine && env->id[0])
                (void)engine_container_remove(env->engine, env->id, NULL);
        env->engine = engine_free(env->engine);
        if (!env->dir[0])
                return;
        static const char *const files[] = { "compose.yaml",       "drill.yaml",      "run.log",
                                             "fidelity.db",        "fidelity.db-wal", "fidelity.db-shm",
                                             "fidelity.db-journal" };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char path[160];
                snprintf(path, sizeof(path), "%s/%s", env->dir, files[i]);
                (void)unlink(path);
        }
        (void)rmdir(env->dir);
}

/* `mayhem --db DB run DRILL -c COMPOSE --execute`, this binary, its output in run.log. */
static pid_t start_run(
        const struct fidelity_env *env, const struct fidelity_case *fc, char *log, size_t log_size) {
        char drill[160], text[1024], self[4096];
        snprintf(drill, sizeof(drill), "%s/drill.yaml", env->dir);
        snprintf(log, log_size, "%s/run.log", env->dir);
        snprintf(
                text, sizeof(text),
                "kind: drill\nname: fidelity\nconfig: {risk_ceiling: high}\ntargets:\n  t:\n    runtime: "
                "docker\n"
                "    docker: {container_name: %s}\n    faults:\n      - {fault: %s, duration: %ds%s%s}\n"
                "execution:\n  - parallel: [t]\n",
                env->name, fc->fault, fc->hold_s, fc->params[0] ? ", " : "", fc->params);
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0 || write_text(drill, text) < 0)
                return -EIO;
        self[n] = '\0';
        char *const argv[] = { self,
                               "--db",
                               (char *)env->db,
                               env->podman ? "-p" : "--no-color",
                               "run",
                               drill,
                               "-c",
                               (char *)env->compose,
                               "--execute",
                               NULL };
        posix_spawn_file_actions_t fa;
        pid_t pid;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
        int r = posix_spawn(&pid, self, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        return r == 0 ? pid : -r;
}

static char *read_log(const char *log) {
        char *data = NULL;
        size_t len = 0;
        return read_file_bounded(log, LOG_MAX, &data, &len, NULL) < 0 ? NULL : data;
}

/* Until the run says the fault is injected (or it ended, or 15 s passed). */
static bool wait_injected(pid_t pid, const char *log) {
        for (double end = now_s() + 15; now_s() < end; usleep(50000)) {
                _cleanup_free_ char *text = read_log(log);
                if (text && strstr(text, "injected "))
                        return true;
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        return false;
        }
        return false;
}

static int wait_run(pid_t pid) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The service's longest stretch without an answer while the run holds the pause. */
static double pause_seen(const struct fidelity_env *env, pid_t pid) {
        double longest = 0, since = 0;
        for (double end = now_s() + 8; now_s() < end;) {
                double t = now_s();
                bool up = doctor_http_answers(env->ip, FIDELITY_PORT, 100);
                if (!up && since == 0)
                        since = t;
                if (up && since > 0) {
                        longest = fmax(longest, t - since);
                        since = 0;
                        if (longest > 0.5)
                                break;
                }
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        break;
                usleep(20000);
        }
        return longest;
}

/* The share of the allowance the container used over ms, in percent; NAN
 * when the engine does not tell. */
static double cpu_share(const struct fidelity_env *env, int ms) {
        uint64_t a, b;
        double t0 = now_s();
        if (engine_container_cpu_usage(env->engine, env->id, &a, NULL) < 0)
                return NAN;
        usleep((useconds_t)ms * 1000);
        double t1 = now_s();
        if (engine_container_cpu_usage(env->engine, env->id, &b, NULL) < 0 || b < a)
                return NAN;
        return 100.0 * (double)(b - a) / 1e9 / (t1 - t0) / FIDELITY_CPUS;
}

/* 99 % interval of a binomial count, as tests/common/netprobe.c's. */
static bool in_binomial(unsigned k, unsigned n, double p) {
        double sd = sqrt(n * p * (1 - p)), mean = n * p;
        return k >= mean - 2.576 * sd && k <= mean + 2.576 * sd;
}

static void requested_text(const struct fidelity_case *fc, char *buf, size_t size) {
        switch (fc->measure) {
        case MEASURE_RTT: snprintf(buf, size, "+%.0f ms RTT", fc->requested); break;
        case MEASURE_LOSS: snprintf(buf, size, "%.0f %% lost", fc->requested); break;
        case MEASURE_PAUSE: snprintf(buf, size, "%.0f s paused", fc->requested); break;
        case MEASURE_CPU: snprintf(buf, size, "+%.0f %% of %.1f CPU", fc->requested, FIDELITY_CPUS); break;
        }
}

static json_t *run_case(const struct fidelity_env *env, const struct fidelity_case *fc) {
        struct doctor_echo base = { 0 }, during = { 0 };
        double idle = fc->measure == MEASURE_CPU ? cpu_share(env, 1000) : 0;
        char log[160], achieved[96] = "not measured", requested[64], tolerance[64] = "";
        bool measured = true;
        bool within = false;
        if (fc->measure != MEASURE_PAUSE)
                (void)doctor_echo_probe(env->ip, 200, 5000, 300, &base);
        pid_t pid = start_run(env, fc, log, sizeof(log));
        if (pid < 0)
                return json_pack("{s:s, s:s}", "fault", fc->fault, "error", "could not start the run");
        bool injected = wait_injected(pid, log);
        if (injected && fc->measure == MEASURE_RTT &&
            doctor_echo_probe(env->ip, 300, 5000, 500, &during) == 0 && during.received > 0) {
                double added = during.median_ms - base.median_ms, tol = fmax(5.0, fc->requested * 0.10);
                within = fabs(added - fc->requested) <= tol;
                snprintf(achieved, sizeof(achieved), "+%.1f ms RTT", added);
                snprintf(tolerance, sizeof(tolerance), "±%.1f ms", tol);
        } else if (
                injected && fc->measure == MEASURE_LOSS &&
                doctor_echo_probe(env->ip, 1000, 1500, 500, &during) == 0) {
                unsigned lost = during.sent - during.received;
                within = in_binomial(lost, during.sent, fc->requested / 100);
                snprintf(
                        achieved, sizeof(achieved), "%.1f %% lost (%u of %u)", 100.0 * lost / during.sent,
                        lost, during.sent);
                snprintf(tolerance, sizeof(tolerance), "99 %% binomial interval");
        } else if (injected && fc->measure == MEASURE_PAUSE) {
                double seen = pause_seen(env, pid);
                within = fabs(seen - fc->requested) <= 0.5;
                snprintf(achieved, sizeof(achieved), "%.2f s without an answer", seen);
                snprintf(tolerance, sizeof(tolerance), "±0.5 s");
        } else if (injected && fc->measure == MEASURE_CPU) {
                usleep(1500000); /* the burners settle (test-cpu allows 5 s; they take well under 1) */
                double added = cpu_share(env, 3000) - idle;
                within = !isnan(added) && fabs(added - fc->requested) <= 5.0;
                if (isnan(added)) /* Podman 4.3's stats carry a counter above 2^63 our JSON parser refuses */
                        snprintf(achieved, sizeof(achieved), "not measured (engine stats unreadable)");
                else
                        snprintf(achieved, sizeof(achieved), "+%.1f %% of %.1f CPU", added, FIDELITY_CPUS);
                snprintf(tolerance, sizeof(tolerance), "±5 points");
        }
        measured = !strstr(achieved, "engine stats unreadable"); /* a fault not injected counts as missed */
        int code = wait_run(pid);
        _cleanup_free_ char *text = read_log(log);
        char delivery[32] = "-";
        const char *at = text ? strstr(text, "delivered by ") : NULL;
        if (at)
                sscanf(at, "delivered by %31s", delivery);
        requested_text(fc, requested, sizeof(requested));
        return json_pack(
                "{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:i, s:i}", "fault", fc->fault, "requested", requested,
                "achieved", achieved, "tolerance", tolerance, "delivery", delivery, "measured", measured,
                "within", within && code == 0, "run_exit", code, "hold_s", fc->hold_s);
}

int doctor_fidelity(
        enum engine_kind kind, json_t **ret_rows, char *ret_where, size_t where_size,
        struct mh_error *reterr) {
        struct fidelity_env env = { 0 };
        if (geteuid() != 0) {
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_CONFIG_ERROR, "fidelity",
                        "doctor --fidelity needs root (its faults, and the raw ICMP socket it measures "
                        "with)");
        }
        int r = env_up(&env, kind, reterr);
        json_t *rows = json_array();
        for (size_t i = 0; r >= 0 && rows && i < ELEMENTSOF(cases); i++)
                json_array_append_new(rows, run_case(&env, &cases[i]));
        snprintf(
                ret_where, where_size, "%s (%s, %s, %s)", env.name, FIDELITY_IMAGE,
                engine_kind_to_string(kind), env.ip);
        env_down(&env);
        if (r < 0) {
                if (reterr)
                        reterr->exit = MH_EXIT_CONFIG_ERROR; /* it could not run here: docs/doctor.md */
                json_decref(rows);
                return r;
        }
        *ret_rows = rows;
        return 0;
}
