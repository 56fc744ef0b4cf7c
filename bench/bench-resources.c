/* Resource faults against a classic stress tool, side by side in one run on
 * ONE container limited to 0.5 CPU: mayhem's cpu.saturate at 50% (through
 * a local `mayhem-agent serve --roles cpu`, the lease the runner sends)
 * against `stress-ng --cpu 1 --cpu-load 50` placed in the same cgroups,
 * both measured over the same window from the cgroup's usage counter
 * (cpuacct.usage / cpu.stat, read here from the host): achieved share of
 * the allowance, its error against the wanted 50%, and the ratio. stress-ng
 * counts its load on one whole CPU, so it also runs at --cpu-load 25 (the
 * load a user who did the arithmetic for 0.5 CPU would type), which
 * compares the two loops' accuracy alone. Also: our payload's start time
 * (inject until the payload said ready) and RSS, beside stress-ng's RSS.
 *
 * One function per section (cpu_section(); others may follow on the same
 * container). It never fails on the figures.
 *
 * usage: bench-resources [ROUNDS] [WINDOW_S] [AGENT]   (rounds 1..20, default
 * 2; window 2..60 s, default 10). Needs
 * root, dockerd, mayhem-test-busybox (tools/build-images) and stress-ng. */

#include "bench-resources.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "basic/parse-number.h"
#include "basic/procfs.h"
#include "common/agent-lease.h"
#include "common/cgroup-usage.h"
#include "engine/engine.h"
#include "sys/cgroup.h"

#define IMAGE          "mayhem-test-busybox:latest"
#define CPUS           0.5
#define CPUS_ARG       "0.5"
#define WANTED_PCT     50.0
#define WINDOW_DEFAULT 10
#define WINDOW_MAX     60
#define ROUNDS_DEFAULT 2
#define ROUNDS_MAX     20
#define SETTLE_MS      2000

struct bench {
        struct engine *engine;
        struct agent_client *agent;
        char container[64];
        bool created;
        struct proc_identity main; /* the container's main process */
        struct cgroup_usage usage; /* its cgroup's counter, read from the host */
        json_t *identity;          /* the target as the agent resolves it */
        int window_ms, rounds;
        unsigned next_lease;
};

static int run_quiet(const char *const *argv) {
        int status = 0;
        pid_t pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
                        _exit(127);
                execvp(argv[0], (char *const *)argv);
                _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0)
                return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* ---- cpu.saturate against stress-ng --cpu ------------------------------------ */

struct cpu_row {
        const char *who;
        int load; /* stress-ng's --cpu-load; 0 for ours */
        double share, error, worst,
                start_ms; /* sums over rounds (percent of the allowance), worst |error| */
        long rss_kb;
        int procs;
};

/* stress-ng --cpu 1 --cpu-load LOAD in the container's cgroups: forked, put
 * into every hierarchy of the container (cgroup_join, as our payloads are)
 * before it execs, so its workers are born there. */
static pid_t stress_start(struct bench *b, int load, struct mh_error *e) {
        char load_arg[16], timeout[16];
        int go[2];
        snprintf(load_arg, sizeof(load_arg), "%d", load);
        snprintf(timeout, sizeof(timeout), "%d", b->window_ms / 1000 + 30); /* a backstop only */
        if (pipe2(go, O_CLOEXEC) < 0)
                return mh_error_set(e, -errno, MH_EXIT_GENERAL_FAILURE, "pipe", "pipe: %s", strerror(errno));
        pid_t pid = fork();
        if (pid == 0) {
                char c;
                close(go[1]);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (read(go[0], &c, 1) != 1 || null < 0 || dup2(null, STDOUT_FILENO) < 0 ||
                    dup2(null, STDERR_FILENO) < 0)
                        _exit(127);
                execlp("stress-ng", "stress-ng", "--cpu", "1", "--cpu-load", load_arg, "--timeout", timeout,
                       (char *)NULL);
                _exit(127);
        }
        close(go[0]);
        int r = pid < 0 ? mh_error_set(
                                  e, -errno, MH_EXIT_GENERAL_FAILURE, "fork", "fork: %s", strerror(errno))
                        : cgroup_join(&b->main, pid, e);
        if (r >= 0 && write(go[1], "g", 1) != 1)
                r = -EPIPE;
        close(go[1]);
        if (r < 0 && pid > 0) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
        }
        return r < 0 ? r : pid;
}

static void stress_stop(pid_t pid) {
        kill(pid, SIGTERM);
        for (int i = 0; i < 50 && waitpid(pid, NULL, WNOHANG) == 0; i++)
                sleep_ms(20);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

/* One window of row's load: its share, |error| and RSS added up. */
static void measure(struct bench *b, struct cpu_row *row, const char *argv0, double idle) {
        sleep_ms(SETTLE_MS);
        row->rss_kb = cgroup_usage_rss_kb(&b->usage, argv0, &row->procs);
        double share = cgroup_usage_share(&b->usage, CPUS, b->window_ms) - idle;
        row->share += share;
        row->error += fabs(share - WANTED_PCT);
        row->worst = fmax(row->worst, fabs(share - WANTED_PCT));
}

static int ours(struct bench *b, struct cpu_row *row, double idle, struct mh_error *e) {
        char id[48];
        snprintf(id, sizeof(id), "l-bench-res-%d-%u", (int)getpid(), ++b->next_lease);
        json_t *lease = agent_lease_new(id, "cpu.saturate", b->identity, "{\"percent\": 50}", NULL);
        if (!lease)
                return mh_error_set(e, -EINVAL, MH_EXIT_GENERAL_FAILURE, "lease", "no cpu.saturate lease");
        double t0 = monotonic_ms();
        int r = agent_lease_call(b->agent, lease, "inject", NULL, e);
        row->start_ms += monotonic_ms() - t0;
        if (r >= 0) {
                measure(b, row, "mayhem-agent", idle);
                r = agent_lease_call(b->agent, lease, "undo", NULL, e);
        }
        json_decref(lease);
        return r;
}

static int theirs(struct bench *b, struct cpu_row *row, double idle, struct mh_error *e) {
        pid_t pid = stress_start(b, row->load, e);
        if (pid < 0)
                return pid;
        measure(b, row, "stress-ng", idle);
        stress_stop(pid);
        return 0;
}

static void cpu_report(const struct bench *b, const struct cpu_row *rows, size_t n, double idle) {
        printf("\ncpu: %.0f%% of the container's %.1f CPU wanted; share of the allowance achieved over %d "
               "ms "
               "windows (cgroup usage counter, idle %.2f%% taken off), mean of %d rounds\n",
               WANTED_PCT, CPUS, b->window_ms, idle, b->rounds);
        printf("%-42s %9s %11s %10s %10s %6s\n", "", "share %", "mean |err|", "worst", "RSS KiB", "procs");
        for (size_t i = 0; i < n; i++)
                printf("%-42s %9.2f %11.2f %10.2f %10ld %6d\n", rows[i].who, rows[i].share / b->rounds,
                       rows[i].error / b->rounds, rows[i].worst, rows[i].rss_kb, rows[i].procs);
        for (size_t i = 1; i < n; i++)
                printf("  our error / %s's: %.3g\n", rows[i].who, rows[0].error / fmax(rows[i].error, 1e-6));
        printf("  our payload: ready %.1f ms after inject (mean of the inject calls), RSS %ld KiB in %d "
               "processes\n",
               rows[0].start_ms / b->rounds, rows[0].rss_kb, rows[0].procs);
        printf("  stress-ng counts --cpu-load on one whole CPU: 50 asks for 0.5 CPU, all of this "
               "container's quota; 25 is the load that means 50%% of 0.5 CPU\n");
}

/* Rounds rotate the order of the three, so machine noise hits all alike. */
static int cpu_section(struct bench *b, struct mh_error *e) {
        struct cpu_row rows[3] = {
                { .who = "mayhem cpu.saturate percent=50" },
                { .who = "stress-ng --cpu 1 --cpu-load 50", .load = 50 },
                { .who = "stress-ng --cpu 1 --cpu-load 25 (by hand)", .load = 25 },
        };
        double idle = cgroup_usage_share(&b->usage, CPUS, 1000);
        int r = 0;
        for (int i = 0; r >= 0 && i < b->rounds; i++)
                for (int k = 0; r >= 0 && k < 3; k++) {
                        struct cpu_row *row = &rows[(i + k) % 3];
                        r = row->load ? theirs(b, row, idle, e) : ours(b, row, idle, e);
                }
        if (r >= 0)
                cpu_report(b, rows, 3, idle);
        return r;
}

/* ---- the container and the agent -------------------------------------------- */

static int start(struct bench *b, struct mh_error *e) {
        snprintf(b->container, sizeof(b->container), "mayhem-bench-res-%d", (int)getpid());
        const char *argv[] = { "docker", "run",      "-d",   "--name", b->container, "--cpus",
                               CPUS_ARG, "--memory", "256m", IMAGE,    NULL };
        if (run_quiet(argv) < 0)
                return mh_error_set(
                        e, -EIO, MH_EXIT_GENERAL_FAILURE, "docker",
                        "docker run %s failed (tools/build-images?)", IMAGE);
        b->created = true;
        struct engine_container c;
        int r = engine_container_inspect(b->engine, b->container, &c, e);
        if (r >= 0)
                r = proc_identity_read(c.pid, &b->main, e);
        if (r >= 0 && !cgroup_usage_find(c.pid, &b->usage))
                r = mh_error_set(
                        e, -ENOENT, MH_EXIT_GENERAL_FAILURE, "cgroup", "no CPU usage counter for %s",
                        b->container);
        return r;
}

static void cleanup(struct bench *b) {
        b->agent = agent_client_stop(b->agent);
        if (b->created)
                run_quiet((const char *const[]){ "docker", "rm", "-f", b->container, NULL });
        b->engine = engine_free(b->engine);
        json_decref(b->identity);
}

static int bench_run(struct bench *b, struct mh_error *e) {
        char run_id[64];
        int r;
        if (run_quiet((const char *const[]){ "stress-ng", "--version", NULL }) < 0)
                return mh_error_set(
                        e, -ENOENT, MH_EXIT_GENERAL_FAILURE, "stress-ng",
                        "stress-ng is not installed (tools/bootstrap)");
        if ((r = engine_open(ENGINE_DOCKER, NULL, &b->engine, e)) < 0 || (r = start(b, e)) < 0)
                return r;
        snprintf(run_id, sizeof(run_id), "bench-resources-%d", (int)getpid());
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT"),
                                          .roles = "cpu",
                                          .run_id = run_id };
        if ((r = agent_client_start(&o, &b->agent, e)) < 0 ||
            (r = agent_lease_resolve(b->agent, "docker", b->container, &b->identity, e)) < 0)
                return r;
        printf("bench-resources: container %s (%s, --cpus %s, main pid %d, %s counter %s), agent pid %d\n",
               b->container, IMAGE, CPUS_ARG, (int)b->main.pid, b->usage.v2 ? "v2" : "v1", b->usage.dir,
               (int)agent_client_pid(b->agent));
        if ((r = cpu_section(b, e)) < 0)
                return r;
        printf("\n");
        return bench_mem_section(b->container) < 0 ? mh_error_set(
                                                             e, -EIO, MH_EXIT_GENERAL_FAILURE, "memory",
                                                             "the memory section could not run")
                                                   : 0;
}

int main(int argc, char **argv) {
        struct bench b = { .window_ms = WINDOW_DEFAULT * 1000, .rounds = ROUNDS_DEFAULT };
        struct mh_error err = { 0 };
        int64_t rounds = ROUNDS_DEFAULT, window = WINDOW_DEFAULT;
        if (argc > 4 ||
            (argc > 1 && (parse_int64(argv[1], &rounds) < 0 || rounds < 1 || rounds > ROUNDS_MAX)) ||
            (argc > 2 && (parse_int64(argv[2], &window) < 0 || window < 2 || window > WINDOW_MAX))) {
                fprintf(stderr, "usage: bench-resources [ROUNDS 1..%d] [WINDOW_S 2..%d] [AGENT]\n",
                        ROUNDS_MAX, WINDOW_MAX);
                return 2;
        }
        b.rounds = (int)rounds;
        b.window_ms = (int)window * 1000;
        if (argc > 3)
                setenv("MAYHEM_AGENT", argv[3], 1);
        signal(SIGPIPE, SIG_IGN);
        int r = bench_run(&b, &err);
        cleanup(&b);
        if (r < 0) {
                fprintf(stderr, "bench-resources: %s\n", err.msg);
                return 1;
        }
        return 0;
}
