/* `mayhem doctor --fidelity`: each fault of the table below held for a few
 * seconds on a throwaway container, through the normal run path (this very
 * binary's `run --execute`, so the lease, undo and verify are the real
 * ones), and what it achieved measured from the host as the integration
 * tests measure it (tests/common/net-assert.h's tolerances). The container
 * runs an image built for the purpose from mayhem's own static target
 * (doctor-fidelity-image.c) and removed afterwards. */

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
#include "doctor-fidelity-internal.h"
#include "doctor-measure.h"
#include "engine/engine.h"

#define FIDELITY_LABEL "org.mayhem.fidelity"
#define LOG_MAX        (1u << 20)

extern char **environ;

/* In the order they run: process.stop and process.kill last, since their
 * undo starts a new process (and may give the container another address). */
static const struct fidelity_case cases[] = {
        { .fault = "net.latency",
          .params = "delay_ms: 100",
          .hold_s = 4,
          .requested = "+100 ms RTT",
          .want = 100,
          .before = fidelity_median_rtt,
          .measure = fidelity_added_rtt },
        { .fault = "net.packet_loss",
          .params = "percent: 20",
          .hold_s = 4,
          .requested = "20 % lost",
          .want = 20,
          .measure = fidelity_spoiled },
        { .fault = "net.corrupt",
          .params = "percent: 20",
          .hold_s = 4,
          .requested = "20 % corrupted",
          .want = 20,
          .measure = fidelity_spoiled },
        { .fault = "net.duplicate",
          .params = "percent: 20",
          .hold_s = 4,
          .requested = "20 % twice",
          .want = 20,
          .measure = fidelity_duplicated },
        /* delay_ms is doctor-fidelity-net.c's REORDER_HELD_MS */
        { .fault = "net.reorder",
          .params = "percent: 30, delay_ms: 50",
          .hold_s = 4,
          .requested = "30 % at once",
          .want = 30,
          .before = fidelity_median_rtt,
          .measure = fidelity_reordered },
        { .fault = "net.bandwidth",
          .params = "rate: 2mbit",
          .hold_s = 4,
          .requested = "2.00 Mbit/s",
          .want = 2,
          .measure = fidelity_rate },
        { .fault = "net.partition",
          .params = "",
          .hold_s = 3,
          .requested = "100 % lost",
          .want = 100,
          .measure = fidelity_cut_off },
        { .fault = "net.connection_refuse",
          .params = "port: 8080",
          .hold_s = 3,
          .requested = "connects refused",
          .want = 100,
          .measure = fidelity_refused },
        { .fault = "net.connection_reset",
          .params = "port: 8080",
          .hold_s = 3,
          .requested = "connections reset",
          .want = 100,
          .measure = fidelity_reset },
        { .fault = "net.interface_down",
          .params = "",
          .hold_s = 3,
          .requested = "100 % lost",
          .want = 100,
          .measure = fidelity_cut_off },
        { .fault = "net.mtu_mismatch",
          .params = "mtu: 1400",
          .hold_s = 3,
          .requested = "MTU 1400",
          .want = 1400,
          .before = fidelity_full_size_answered,
          .measure = fidelity_mtu },
        { .fault = "proc.pause",
          .params = "",
          .hold_s = 3,
          .requested = "3 s paused",
          .want = 3,
          .measure = fidelity_unanswered },
        { .fault = "container.pause",
          .params = "",
          .hold_s = 3,
          .requested = "3 s paused",
          .want = 3,
          .measure = fidelity_unanswered },
        { .fault = "fd.exhaust",
          .params = "limit: 16",
          .hold_s = 3,
          .requested = "+16 descriptors",
          .want = 16,
          .before = fidelity_main_pid,
          .measure = fidelity_descriptors },
        { .fault = "cpu.saturate",
          .params = "percent: 50",
          .hold_s = 6,
          .requested = "+50 % of 0.5 CPU",
          .want = 50,
          .before = fidelity_cpu_idle,
          .measure = fidelity_cpu_added },
        { .fault = "mem.exhaust",
          .params = "amount: 64M",
          .hold_s = 4,
          .requested = "+64 MiB charged",
          .want = 64,
          .before = fidelity_memory_used,
          .measure = fidelity_memory_added },
        { .fault = "process.stop",
          .params = "",
          .hold_s = 3,
          .requested = "stopped, started again",
          .want = 0,
          .before = fidelity_main_pid,
          .measure = fidelity_killed,
          .after = fidelity_restarted },
        { .fault = "process.kill",
          .params = "",
          .hold_s = 3,
          .requested = "killed, started again",
          .want = 0,
          .before = fidelity_main_pid,
          .measure = fidelity_killed,
          .after = fidelity_restarted },
};

double fidelity_now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool fidelity_run_over(pid_t run) {
        siginfo_t info = { 0 };
        return waitid(P_PID, (id_t)run, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == run;
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
        struct engine_limits limits = { .nano_cpus = (int64_t)(FIDELITY_CPUS * 1e9),
                                        .memory_bytes = FIDELITY_MEM };
        env->image_built = true; /* removed also when the reply is lost but the build went on */
        if ((r = fidelity_image_build(env->engine, env->name, FIDELITY_LABEL, reterr)) < 0)
                return r;
        char image[sizeof(env->name) + 8];
        snprintf(image, sizeof(image), "%s:latest", env->name);
        if ((r = engine_container_create(
                     env->engine, image, env->name, FIDELITY_LABEL, &limits, env->id, reterr)) < 0 ||
            (r = engine_container_start(env->engine, env->id, reterr)) < 0 ||
            (r = engine_container_inspect(env->engine, env->id, &c, reterr)) < 0)
                return r;
        if (c.n_networks == 0 || !c.networks[0].ip[0])
                return mh_error_set(
                        reterr, -EADDRNOTAVAIL, MH_EXIT_CONFIG_ERROR, "fidelity", "%s has no IP address",
                        env->name);
        snprintf(env->ip, sizeof(env->ip), "%s", c.networks[0].ip);
        for (double end = fidelity_now_s() + 10; fidelity_now_s() < end; usleep(100000))
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
                text, sizeof(text), "services:\n  probe:\n    image: %s\n    container_name: %s\n", image,
                env->name);
        if ((r = write_text(env->compose, text)) < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_CONFIG_ERROR, "fidelity", "%s: %s", env->compose, strerror(-r));
        return 0;
}

/* Removes all the container, the drills, logs and the run's database. */
static void env_down(struct fidelity_env *env) {
        if (env->engine && env->id[0])
                (void)engine_container_remove(env->engine, env->id, NULL);
        if (env->engine && env->image_built)
                (void)engine_image_remove(env->engine, env->name, NULL);
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
        for (double end = fidelity_now_s() + 15; fidelity_now_s() < end; usleep(50000)) {
                _cleanup_free_ char *text = read_log(log);
                if (text && strstr(text, "injected "))
                        return true;
                if (fidelity_run_over(pid))
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

static json_t *run_case(struct fidelity_env *env, const struct fidelity_case *fc) {
        struct fidelity_figure f = { .achieved = "not measured: the run did not inject", .measured = true };
        char log[160];
        double before = fc->before ? fc->before(env) : 0;
        pid_t pid = start_run(env, fc, log, sizeof(log));
        if (pid < 0)
                return json_pack("{s:s, s:s}", "fault", fc->fault, "error", "could not start the run");
        if (wait_injected(pid, log))
                fc->measure(env, fc, before, pid, &f);
        int code = wait_run(pid);
        if (fc->after)
                fc->after(env, before, &f);
        _cleanup_free_ char *text = read_log(log);
        char delivery[32] = "-";
        const char *at = text ? strstr(text, "delivered by ") : NULL;
        if (at)
                sscanf(at, "delivered by %31s", delivery);
        return json_pack(
                "{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:i, s:i}", "fault", fc->fault, "requested",
                fc->requested, "achieved", f.achieved, "tolerance", f.tolerance, "delivery", delivery,
                "measured", f.measured, "within", f.within && code == 0, "run_exit", code, "hold_s",
                fc->hold_s);
}

int doctor_fidelity(
        enum engine_kind kind, doctor_fidelity_row_fn *on_row, void *userdata, json_t **ret_rows,
        char *ret_where, size_t where_size, struct mh_error *reterr) {
        struct fidelity_env env = { 0 };
        if (geteuid() != 0) {
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_CONFIG_ERROR, "fidelity",
                        "doctor --fidelity needs root (its faults, and the raw ICMP socket it measures "
                        "with)");
        }
        int r = env_up(&env, kind, reterr);
        json_t *rows = json_array();
        snprintf(
                ret_where, where_size, "%s (%s, mayhem-target, %s)", env.name, engine_kind_to_string(kind),
                env.ip);
        for (size_t i = 0; r >= 0 && rows && i < ELEMENTSOF(cases); i++) {
                json_t *row = run_case(&env, &cases[i]);
                if (on_row && row)
                        on_row(ret_where, row, userdata);
                json_array_append_new(rows, row);
        }
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
