/* The agent against the docker CLI, side by side in one run: inject + undo of
 * proc.pause and container.pause through a local `mayhem-agent serve`
 * (task.execute phase inject, then phase undo, with the lease the runner
 * would send: src/run/run-fault.c, templates of src/plan/compensation.c) next
 * to `docker exec C /busybox kill -STOP|-CONT PID` and `docker pause|unpause`,
 * plus the agent's health.ping round trip and its memory. Each round runs
 * every measurement once, mayhem first in even rounds and docker first in odd
 * ones, so machine noise hits all alike. It prints medians and p95s and never
 * fails on timing (the aim is in shared/DESIGN.md: ~95 ms per docker exec).
 *
 * The bench runs its own target, mayhem-bench-PID from mayhem-test-busybox
 * (tools/build-images), and removes it at the end, on failure and on Ctrl-C
 * too. It runs with --pid=host: a pid namespace's init ignores SIGSTOP sent
 * from inside its namespace, so `docker exec C kill -STOP 1` would do nothing;
 * from the host's namespace the exec'd kill stops the same main process the
 * agent stops through its pidfd. Once, before the timed rounds, it checks that
 * each way really has the effect: the main pid goes to state T and back, the
 * engine reports the container paused and back.
 *
 * usage: bench-agent [ROUNDS] [AGENT]   (ROUNDS 1..1000, default 50; AGENT
 * defaults to $MAYHEM_AGENT, else the build tree's src/agent/mayhem-agent)
 * Needs root (or the rights to signal the container's processes) and dockerd. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/stats.h"
#include "basic/clock.h"
#include "agent/agent-client.h"
#include "basic/parse-number.h"
#include "basic/procfs.h"
#include "common/agent-lease.h"
#include "engine/engine.h"

#define ROUNDS_DEFAULT 50
#define ROUNDS_MAX     1000
#define IMAGE          "mayhem-test-busybox:latest"
#define NAME_TRIES     10
#define CALL_MS        15000
#define EFFECT_WAIT_MS 5000
/* /proc/PID/status lines are "Key:\tvalue"; the ones read here are short. */
#define STATUS_LINE_MAX 512

enum series {
        S_PING,
        S_PROC_MAYHEM,
        S_PROC_DOCKER,
        S_CTR_MAYHEM,
        S_CTR_DOCKER,
        _S_MAX,
};

struct stats {
        double median, p95;
};

struct mem {
        int64_t rss_kb, hwm_kb;
};

struct bench {
        struct engine *engine;
        struct agent_client *agent;
        char container[64];
        bool created;
        char container_id[ENGINE_ID_MAX];
        struct proc_identity main; /* the container's main process, from the engine and /proc */
        json_t *identity;          /* the target as the agent resolves it */
        char pid_arg[16];          /* the main process's host pid, for the exec'd kill */
        unsigned next_lease;
};

static volatile sig_atomic_t interrupted;
static double samples[_S_MAX][ROUNDS_MAX];

static void on_signal(int sig) {
        interrupted = sig;
}

/* Runs argv (no shell) with stdout, and stderr when quiet, on /dev/null: 0
 * when it exits 0, -EIO when it fails, -errno when it cannot be run. */
static int run_argv(const char *const *argv, bool quiet) {
        int status = 0;
        pid_t w, pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || (quiet && dup2(null, STDERR_FILENO) < 0))
                        _exit(127);
                execvp(argv[0], (char *const *)argv);
                _exit(127);
        }
        if (pid < 0)
                return negative_errno();
        while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
                ;
        if (w != pid)
                return -ECHILD;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int docker_kill(const struct bench *b, const char *sig) {
        const char *argv[] = { "docker", "exec", b->container, "/busybox", "kill", sig, b->pid_arg, NULL };
        return run_argv(argv, false);
}

static int docker_verb(const struct bench *b, const char *verb, bool quiet) {
        const char *argv[] = { "docker", verb, b->container, NULL };
        return run_argv(argv, quiet);
}

/* Median, and p95 by nearest rank; sorts v. */
static struct stats stats_of(double *v, int n) {
        doubles_sort(v, (size_t)n);
        return (struct stats){ .median = sorted_median(v, (size_t)n),
                               .p95 = sorted_percentile(v, (size_t)n, 95) };
}

/* VmRSS and VmHWM of pid, in KiB. */
static int mem_of(pid_t pid, struct mem *ret) {
        char path[64], line[STATUS_LINE_MAX];
        struct mem m = { -1, -1 };
        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        while (fgets(line, sizeof(line), f)) {
                int64_t *dst = strncmp(line, "VmRSS:", 6) == 0   ? &m.rss_kb
                               : strncmp(line, "VmHWM:", 6) == 0 ? &m.hwm_kb
                                                                 : NULL;
                if (!dst)
                        continue;
                char *num = line + 6 + strspn(line + 6, " \t");
                num[strspn(num, "0123456789")] = '\0';
                if (parse_int64(num, dst) < 0)
                        *dst = -1;
        }
        fclose(f);
        if (m.rss_kb < 0 || m.hwm_kb < 0)
                return -EPROTO;
        *ret = m;
        return 0;
}

/* The lease the runner sends for this fault: the target as the agent
 * resolved it, the catalog's defaults. */
static json_t *lease_json(struct bench *b, const char *fault_id) {
        char id[48];
        snprintf(id, sizeof(id), "bench-%d-%u", (int)getpid(), ++b->next_lease);
        return agent_lease_new(id, fault_id, b->identity, NULL, NULL);
}

static int agent_inject(struct bench *b, const char *fault_id, json_t **ret_lease, struct mh_error *e) {
        json_t *lease = lease_json(b, fault_id);
        if (!lease)
                return mh_error_set(e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        int r = agent_lease_call(b->agent, lease, "inject", NULL, e);
        if (r < 0) {
                json_decref(lease);
                return r;
        }
        *ret_lease = lease;
        return 0;
}

static int agent_undo(struct bench *b, json_t *lease, struct mh_error *e) {
        int r = agent_lease_call(b->agent, lease, "undo", NULL, e);
        json_decref(lease);
        return r;
}

/* One timed inject + undo through the agent, lease building included. */
static int agent_round(struct bench *b, const char *fault_id, double *ret_ms, struct mh_error *e) {
        json_t *lease = NULL;
        double t0 = monotonic_ms();
        int r = agent_inject(b, fault_id, &lease, e);
        if (r >= 0)
                r = agent_undo(b, lease, e);
        *ret_ms = monotonic_ms() - t0;
        return r;
}

static int docker_round(struct bench *b, bool proc, double *ret_ms, struct mh_error *e) {
        double t0 = monotonic_ms();
        int r = proc ? docker_kill(b, "-STOP") : docker_verb(b, "pause", false);
        if (r >= 0)
                r = proc ? docker_kill(b, "-CONT") : docker_verb(b, "unpause", false);
        *ret_ms = monotonic_ms() - t0;
        if (r < 0)
                return mh_error_set(
                        e, r, MH_EXIT_GENERAL_FAILURE, "docker", "%s failed",
                        proc ? "docker exec kill -STOP/-CONT" : "docker pause/unpause");
        return 0;
}

/* Polls until the main process is stopped (state T) or no longer is. */
static int wait_stopped(const struct bench *b, bool stopped, const char *how, struct mh_error *e) {
        char state = '?';
        for (double until = monotonic_ms() + EFFECT_WAIT_MS;;) {
                int r = proc_state(&b->main, &state, e);
                if (r < 0)
                        return r;
                if ((state == 'T') == stopped)
                        return 0;
                if (monotonic_ms() >= until)
                        return mh_error_set(
                                e, -ETIME, MH_EXIT_GENERAL_FAILURE, "no_effect",
                                "after %s, pid %d is in state %c, not %s, after %d ms", how,
                                (int)b->main.pid, state, stopped ? "T" : "out of T", EFFECT_WAIT_MS);
                sleep_ms(1);
        }
}

/* Polls until the engine reports the container paused, or running and not paused. */
static int wait_paused(const struct bench *b, bool paused, const char *how, struct mh_error *e) {
        struct engine_container c;
        for (double until = monotonic_ms() + EFFECT_WAIT_MS;;) {
                int r = engine_container_inspect(b->engine, b->container_id, &c, e);
                if (r < 0)
                        return r;
                if (paused ? c.paused : c.running && !c.paused)
                        return 0;
                if (monotonic_ms() >= until)
                        return mh_error_set(
                                e, -ETIME, MH_EXIT_GENERAL_FAILURE, "no_effect",
                                "after %s, the engine reports the container %s after %d ms", how, c.status,
                                EFFECT_WAIT_MS);
                sleep_ms(5);
        }
}

static int docker_step(struct bench *b, int r, const char *what, struct mh_error *e) {
        if (r < 0)
                return mh_error_set(e, r, MH_EXIT_GENERAL_FAILURE, "docker", "%s failed", what);
        return 0;
}

/* Once, untimed (it also warms both paths up): each way has the effect and undoes it. */
static int check_effects(struct bench *b, struct mh_error *e) {
        json_t *lease = NULL;
        int r;
        if ((r = agent_inject(b, "proc.pause", &lease, e)) < 0)
                return r;
        r = wait_stopped(b, true, "the agent's proc.pause inject", e);
        int u = agent_undo(b, lease, r < 0 ? NULL : e);
        if (r < 0 || (r = u) < 0 || (r = wait_stopped(b, false, "the agent's proc.pause undo", e)) < 0)
                return r;
        if ((r = docker_step(b, docker_kill(b, "-STOP"), "docker exec kill -STOP", e)) < 0)
                return r;
        r = wait_stopped(b, true, "docker exec kill -STOP", e);
        u = docker_kill(b, "-CONT");
        if (r < 0 || (r = docker_step(b, u, "docker exec kill -CONT", e)) < 0 ||
            (r = wait_stopped(b, false, "docker exec kill -CONT", e)) < 0)
                return r;

        if ((r = agent_inject(b, "container.pause", &lease, e)) < 0)
                return r;
        r = wait_paused(b, true, "the agent's container.pause inject", e);
        u = agent_undo(b, lease, r < 0 ? NULL : e);
        if (r < 0 || (r = u) < 0 || (r = wait_paused(b, false, "the agent's container.pause undo", e)) < 0)
                return r;
        if ((r = docker_step(b, docker_verb(b, "pause", false), "docker pause", e)) < 0)
                return r;
        r = wait_paused(b, true, "docker pause", e);
        u = docker_verb(b, "unpause", false);
        if (r < 0 || (r = docker_step(b, u, "docker unpause", e)) < 0 ||
            (r = wait_paused(b, false, "docker unpause", e)) < 0)
                return r;
        return 0;
}

static int ping(struct bench *b, double *ret_ms, struct mh_error *e) {
        double t0 = monotonic_ms();
        int r = agent_client_call(b->agent, "health.ping", json_object(), CALL_MS, NULL, e);
        *ret_ms = monotonic_ms() - t0;
        return r;
}

static int one_round(struct bench *b, int i, struct mh_error *e) {
        bool docker_first = i % 2;
        int r;
        if ((r = ping(b, &samples[S_PING][i], e)) < 0)
                return r;
        for (int pass = 0; pass < 2; pass++) {
                bool docker = (pass == 0) == docker_first;
                r = docker ? docker_round(b, true, &samples[S_PROC_DOCKER][i], e)
                           : agent_round(b, "proc.pause", &samples[S_PROC_MAYHEM][i], e);
                if (r < 0)
                        return r;
        }
        for (int pass = 0; pass < 2; pass++) {
                bool docker = (pass == 0) == docker_first;
                r = docker ? docker_round(b, false, &samples[S_CTR_DOCKER][i], e)
                           : agent_round(b, "container.pause", &samples[S_CTR_MAYHEM][i], e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* docker run -d of our target under a name no other session holds. */
static int start_container(struct bench *b, struct mh_error *e) {
        struct engine_container c;
        int r = 0;
        for (int i = 0; i < NAME_TRIES; i++) {
                if (i == 0)
                        snprintf(b->container, sizeof(b->container), "mayhem-bench-%d", (int)getpid());
                else
                        snprintf(b->container, sizeof(b->container), "mayhem-bench-%d-%d", (int)getpid(), i);
                if ((r = engine_container_inspect(b->engine, b->container, &c, e)) == -ENOENT)
                        break;
                if (r < 0)
                        return r;
        }
        if (r != -ENOENT)
                return mh_error_set(
                        e, -EEXIST, MH_EXIT_GENERAL_FAILURE, "name_taken",
                        "containers mayhem-bench-%d* already exist", (int)getpid());
        const char *argv[] = { "docker", "run",        "-d",  "--pid=host", "--label", "org.mayhem.bench=1",
                               "--name", b->container, IMAGE, NULL };
        if (run_argv(argv, false) < 0) {
                /* A run that failed to start the container, or was interrupted, can
                 * leave it behind; the name was free a moment ago, so it is ours. */
                struct mh_error ignored = { 0 };
                b->created = engine_container_inspect(b->engine, b->container, &c, &ignored) >= 0;
                return mh_error_set(
                        e, -EIO, MH_EXIT_GENERAL_FAILURE, "docker",
                        "docker run of %s failed (tools/build-images?)", IMAGE);
        }
        b->created = true;
        if ((r = engine_container_inspect(b->engine, b->container, &c, e)) < 0)
                return r;
        snprintf(b->container_id, sizeof(b->container_id), "%s", c.id);
        if (c.pid <= 0 || proc_identity_read(c.pid, &b->main, e) < 0)
                return mh_error_set(
                        e, -ESRCH, MH_EXIT_GENERAL_FAILURE, "not_running", "%s has no running main process",
                        b->container);
        snprintf(b->pid_arg, sizeof(b->pid_arg), "%d", (int)b->main.pid);
        return 0;
}

/* The agent ends first (it undoes any lease still held), then the container goes. */
static void cleanup(struct bench *b) {
        b->agent = agent_client_stop(b->agent);
        if (b->created) {
                const char *argv[] = { "docker", "rm", "-f", b->container, NULL };
                docker_verb(b, "unpause", true);
                if (run_argv(argv, true) < 0)
                        fprintf(stderr, "bench-agent: could not remove container %s; docker rm -f it\n",
                                b->container);
        }
        b->engine = engine_free(b->engine);
        json_decref(b->identity);
        b->identity = NULL;
}

/* $MAYHEM_AGENT wins; else AGENT from the command line, else the build tree
 * beside this binary (build/bench -> build/src/agent). The client finds it
 * through $MAYHEM_AGENT. */
static void choose_agent(const char *arg) {
        char self[PATH_MAX], path[PATH_MAX + 32];
        if (arg) {
                setenv("MAYHEM_AGENT", arg, 1);
                return;
        }
        if (getenv("MAYHEM_AGENT"))
                return;
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
                return;
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (!slash)
                return;
        *slash = '\0';
        snprintf(path, sizeof(path), "%s/../src/agent/mayhem-agent", self);
        if (access(path, X_OK) == 0)
                setenv("MAYHEM_AGENT", path, 1);
}

static void print_row(const char *op, double *mayhem, double *docker, int n) {
        struct stats m = stats_of(mayhem, n), d = stats_of(docker, n);
        printf("%-28s %8.2f %8.2f   %8.2f %8.2f   %7.1fx\n", op, m.median, m.p95, d.median, d.p95,
               d.median / m.median);
}

static void print_mem(const char *when, const struct mem *m) {
        printf("  %-24s VmRSS %7.2f MiB   VmHWM %7.2f MiB\n", when, (double)m->rss_kb / 1024.0,
               (double)m->hwm_kb / 1024.0);
}

static int bench_run(struct bench *b, int rounds, struct mh_error *e) {
        char run_id[64], exe[PATH_MAX] = "?";
        struct mem idle, after;
        int r;

        if ((r = engine_open(ENGINE_DOCKER, NULL, &b->engine, e)) < 0)
                return r;
        if ((r = start_container(b, e)) < 0)
                return r;
        snprintf(run_id, sizeof(run_id), "bench-agent-%d", (int)getpid());
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT"),
                                          .roles = "proc,container",
                                          .run_id = run_id };
        if ((r = agent_client_start(&o, &b->agent, e)) < 0 ||
            (r = agent_lease_resolve(b->agent, "docker", b->container, &b->identity, e)) < 0)
                return r;
        pid_t agent_pid = agent_client_pid(b->agent);
        char link[64];
        snprintf(link, sizeof(link), "/proc/%d/exe", (int)agent_pid);
        ssize_t n = readlink(link, exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 1] = '\0';
        if ((r = mem_of(agent_pid, &idle)) < 0)
                return mh_error_set(
                        e, r, MH_EXIT_GENERAL_FAILURE, "proc", "cannot read /proc/%d/status",
                        (int)agent_pid);

        printf("bench-agent: %s %s (API %s), container %s (%s, --pid=host, main pid %d)\n",
               engine_server_name(b->engine), engine_server_version(b->engine),
               engine_api_version(b->engine), b->container, IMAGE, (int)b->main.pid);
        printf("agent: %s serve --roles proc,container (pid %d)\n", exe, (int)agent_pid);
        fflush(stdout);

        if (interrupted)
                return mh_error_set(e, -EINTR, MH_EXIT_GENERAL_FAILURE, "interrupted", "interrupted");
        if ((r = check_effects(b, e)) < 0)
                return r;
        printf("effect check (once, untimed): proc.pause: pid %d went to state T and back, through the "
               "agent and "
               "through docker exec kill; container.pause: the engine reported it paused and back, both "
               "ways\n",
               (int)b->main.pid);
        fflush(stdout);

        for (int i = 0; i < rounds; i++) {
                if (interrupted)
                        return mh_error_set(
                                e, -EINTR, MH_EXIT_GENERAL_FAILURE, "interrupted", "interrupted");
                if ((r = one_round(b, i, e)) < 0) {
                        mh_error_prefix(e, "round %d: ", i + 1);
                        return r;
                }
        }
        if ((r = mem_of(agent_pid, &after)) < 0)
                return mh_error_set(
                        e, r, MH_EXIT_GENERAL_FAILURE, "proc", "cannot read /proc/%d/status",
                        (int)agent_pid);

        printf("\n%d alternating rounds; inject + undo per round, ms\n", rounds);
        printf("%-28s %8s %8s   %8s %8s   %8s\n", "operation", "mayhem", "p95", "docker", "p95", "ratio");
        print_row("proc.pause inject+undo", samples[S_PROC_MAYHEM], samples[S_PROC_DOCKER], rounds);
        print_row("container.pause inject+undo", samples[S_CTR_MAYHEM], samples[S_CTR_DOCKER], rounds);
        printf("  mayhem: task.execute inject + undo through the agent (lease built each time)\n"
               "  docker: docker exec %s /busybox kill -STOP|-CONT %d; docker pause + docker unpause\n"
               "  ratio: docker median / mayhem median\n",
               b->container, (int)b->main.pid);
        struct stats ping_stats = stats_of(samples[S_PING], rounds);
        printf("\nagent round trip (health.ping): median %.3f ms, p95 %.3f ms\n", ping_stats.median,
               ping_stats.p95);
        printf("agent memory (/proc/%d/status):\n", (int)agent_pid);
        print_mem("idle after start", &idle);
        char when[64];
        snprintf(when, sizeof(when), "after %d rounds", rounds);
        print_mem(when, &after);
        return 0;
}

static void usage(FILE *f) {
        fprintf(f,
                "usage: bench-agent [ROUNDS] [AGENT]   (ROUNDS 1..%d, default %d; AGENT defaults to "
                "$MAYHEM_AGENT, else the build tree's src/agent/mayhem-agent)\n",
                ROUNDS_MAX, ROUNDS_DEFAULT);
}

int main(int argc, char **argv) {
        struct bench b = { 0 };
        struct mh_error err = { 0 };
        int64_t rounds = ROUNDS_DEFAULT;

        if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
                usage(stdout);
                return 0;
        }
        if (argc > 3 ||
            (argc > 1 && (parse_int64(argv[1], &rounds) < 0 || rounds < 1 || rounds > ROUNDS_MAX))) {
                usage(stderr);
                return 2;
        }
        choose_agent(argc > 2 ? argv[2] : NULL);

        /* No SA_RESTART: Ctrl-C stops the rounds and still reaches cleanup. */
        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        int r = bench_run(&b, (int)rounds, &err);
        cleanup(&b);
        if (r < 0) {
                fprintf(stderr, "bench-agent: %s\n", err.msg[0] ? err.msg : strerror(-r));
                return 1;
        }
        return 0;
}
