/* Network faults: inject + undo of net.latency, net.packet_loss and
 * net.partition through a local `mayhem-agent serve --roles network` (the
 * lease the runner sends, with the delivery the impact gate picks on this
 * kernel), side by side in one run with what a classic chaos tool runs:
 * `docker exec C tc|nft ...` inside a target that ships iproute2 and
 * nftables, and `nsenter -t PID -n tc|nft ...` from the host. Rounds
 * alternate the order of the three ways, so machine noise hits all alike.
 * Medians and p95s in ms, and the ratios; it never fails on timing.
 *
 * The tc side uses netem where the kernel has it; without sch_netem (this
 * machine) net.latency's tc stand-in is a tbf qdisc added and deleted at the
 * root: the same rtnetlink round trips netem would take, through the same
 * tool, and the bench says so in its output. Loss and partition go through
 * nft on that side, as iptables-era tools do without netem.
 *
 * usage: bench-net [ROUNDS] [AGENT]   (ROUNDS 1..200, default 20). Needs root,
 * dockerd and mayhem-test-iproute2 (tools/build-images). */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/stats.h"
#include "basic/clock.h"
#include "basic/parse-number.h"
#include "common/agent-lease.h"
#include "engine/engine.h"
#include "plan/impact.h"

#define ROUNDS_DEFAULT 20
#define ROUNDS_MAX     200
#define IMAGE          "mayhem-test-iproute2:latest"
#define CALL_MS        15000
#define SETTLE_MS      100

enum way {
        W_MAYHEM,
        W_EXEC,
        W_NSENTER,
        _W_MAX
};
enum fault {
        F_LATENCY,
        F_LOSS,
        F_PARTITION,
        _F_MAX
};

static const struct {
        const char *id, *params;
} faults[_F_MAX] = {
        [F_LATENCY] = { "net.latency", "{\"delay_ms\": 100, \"direction\": \"egress\"}" },
        [F_LOSS] = { "net.packet_loss", "{\"percent\": 10, \"direction\": \"egress\"}" },
        [F_PARTITION] = { "net.partition", "{\"direction\": \"both\"}" },
};

struct bench {
        struct engine *engine;
        struct agent_client *agent;
        char container[64], pid_arg[16];
        bool created, netem;
        json_t *identity; /* the target as the agent resolves it */
        const char *delivery[_F_MAX];
        unsigned next_lease;
};

static double samples[_F_MAX][_W_MAX][ROUNDS_MAX];

static int run_argv(const char *const *argv) {
        int status = 0;
        pid_t pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
                        _exit(127);
                execvp(argv[0], (char *const *)argv);
                _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid)
                return -ECHILD;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* The tool's commands for one fault: apply, then undo. */
static void tool_commands(const struct bench *b, enum fault f, const char *cmd[2][4]) {
        static const char *const nft_loss =
                "add table ip mhbench; add chain ip mhbench o { type filter hook "
                "output priority 0; }; add rule ip mhbench o numgen random mod 100 < 10 "
                "drop";
        static const char *const nft_part =
                "add table ip mhbench; add chain ip mhbench i { type filter hook "
                "input priority 0; }; add chain ip mhbench o { type filter hook output "
                "priority 0; }; add rule ip mhbench i iifname != lo drop; add rule ip "
                "mhbench o oifname != lo drop";
        if (f == F_LATENCY) {
                cmd[0][0] = "tc";
                cmd[0][1] = b->netem ? "qdisc add dev eth0 root netem delay 100ms"
                                     : "qdisc add dev eth0 root tbf rate 1gbit burst 32kb latency 100ms";
                cmd[1][0] = "tc";
                cmd[1][1] = "qdisc del dev eth0 root";
        } else {
                cmd[0][0] = "nft";
                cmd[0][1] = f == F_LOSS ? nft_loss : nft_part;
                cmd[1][0] = "nft";
                cmd[1][1] = "delete table ip mhbench";
        }
}

/* Splits a command's words into argv after prefix (words are separated by
 * single spaces; nft gets its whole script as one argument). */
static int tool_run(const struct bench *b, enum way w, const char *tool, const char *words) {
        char buf[512];
        const char *argv[64];
        size_t n = 0;
        if (w == W_EXEC) {
                argv[n++] = "docker", argv[n++] = "exec", argv[n++] = b->container;
                argv[n++] = strcmp(tool, "tc") == 0 ? "/usr/sbin/tc" : "/usr/sbin/nft";
        } else {
                argv[n++] = "nsenter", argv[n++] = "-t", argv[n++] = b->pid_arg, argv[n++] = "-n";
                argv[n++] = tool;
        }
        snprintf(buf, sizeof(buf), "%s", words);
        if (strcmp(tool, "nft") == 0)
                argv[n++] = buf;
        else
                for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < 62;
                     t = strtok_r(NULL, " ", &save))
                        argv[n++] = t;
        argv[n] = NULL;
        return run_argv(argv);
}

static json_t *lease_json(struct bench *b, enum fault f) {
        char id[32], net[64];
        snprintf(id, sizeof(id), "l-%08x%08x", (unsigned)getpid(), ++b->next_lease);
        snprintf(net, sizeof(net), "{\"delivery\": \"%s\"}", b->delivery[f]);
        return agent_lease_new(id, faults[f].id, b->identity, faults[f].params, net);
}

static int phase(struct bench *b, enum fault f, const char *name, json_t *lease, struct mh_error *e) {
        return agent_lease_call(b->agent, lease, name, NULL, e);
}

/* One inject + undo, timed, one way. */
static int one(struct bench *b, enum fault f, enum way w, double *ret_ms, struct mh_error *e) {
        double t0 = monotonic_ms();
        int r;
        if (w == W_MAYHEM) {
                json_t *lease = lease_json(b, f);
                if ((r = phase(b, f, "inject", lease, e)) >= 0)
                        r = phase(b, f, "undo", lease, e);
                json_decref(lease);
        } else {
                const char *cmd[2][4] = { { 0 } };
                tool_commands(b, f, cmd);
                if ((r = tool_run(b, w, cmd[0][0], cmd[0][1])) >= 0)
                        r = tool_run(b, w, cmd[1][0], cmd[1][1]);
                if (r < 0)
                        mh_error_set(
                                e, r, MH_EXIT_GENERAL_FAILURE, "tool", "%s %s via %s failed", cmd[0][0],
                                cmd[0][1], w == W_EXEC ? "docker exec" : "nsenter");
        }
        *ret_ms = monotonic_ms() - t0;
        return r;
}

static int decide_delivery(struct bench *b, struct mh_error *e) {
        json_t *caps = NULL;
        int r = agent_client_call(b->agent, "capabilities.query", json_object(), CALL_MS, &caps, e);
        if (r < 0)
                return r;
        struct impact_kernel k;
        impact_kernel_from_json(json_object_get(caps, "kernel"), &k);
        json_decref(caps);
        b->netem = k.netem;
        b->delivery[F_LATENCY] = k.netem ? "netem" : "shaper";
        b->delivery[F_LOSS] = b->delivery[F_PARTITION] = "nft";
        return k.known ? 0
                       : mh_error_set(
                                 e, -EPERM, MH_EXIT_CONFIG_ERROR, "kernel",
                                 "the agent could not probe its kernel (root?)");
}

static int start(struct bench *b, struct mh_error *e) {
        snprintf(b->container, sizeof(b->container), "mayhem-bench-net-%d", (int)getpid());
        const char *argv[] = {
                "docker",       "run",          "-d",  "--cap-add", "NET_ADMIN", "--name", b->container,
                "--entrypoint", "/usr/sbin/ip", IMAGE, "monitor",   "link",      NULL
        };
        if (run_argv(argv) < 0)
                return mh_error_set(
                        e, -EIO, MH_EXIT_GENERAL_FAILURE, "docker",
                        "docker run %s failed (tools/build-images?)", IMAGE);
        b->created = true;
        struct engine_container c;
        int r = engine_container_inspect(b->engine, b->container, &c, e);
        snprintf(b->pid_arg, sizeof(b->pid_arg), "%d", r < 0 ? 0 : c.pid);
        return r;
}

/* The median (p 50) or the nearest-rank p-th percentile; sorts v. */
static double pct(double *v, int n, int p) {
        doubles_sort(v, (size_t)n);
        return p == 50 ? sorted_median(v, (size_t)n) : sorted_percentile(v, (size_t)n, (unsigned)p);
}

static void report(const struct bench *b, int rounds) {
        /* Round 0 runs the agent first: its first network fault, which also
         * pays what the agent does once (nft_hooks_hold(): a netns of its own
         * with the hooks' static keys held on). In the medians too. */
        double first = samples[F_LATENCY][W_MAYHEM][0];
        printf("\n%d alternating rounds; inject + undo, ms (median / p95)\n", rounds);
        printf("%-17s %-7s %17s %17s %17s %9s %9s\n", "fault", "via", "mayhem agent", "docker exec",
               "nsenter", "exec/us", "nsent/us");
        for (int f = 0; f < _F_MAX; f++) {
                double m50 = pct(samples[f][W_MAYHEM], rounds, 50),
                       m95 = pct(samples[f][W_MAYHEM], rounds, 95);
                double x50 = pct(samples[f][W_EXEC], rounds, 50), x95 = pct(samples[f][W_EXEC], rounds, 95);
                double n50 = pct(samples[f][W_NSENTER], rounds, 50),
                       n95 = pct(samples[f][W_NSENTER], rounds, 95);
                printf("%-17s %-7s %8.2f / %6.2f %8.2f / %6.2f %8.2f / %6.2f %8.1fx %8.1fx\n", faults[f].id,
                       b->delivery[f], m50, m95, x50, x95, n50, n95, x50 / m50, n50 / m50);
        }
        if (!b->netem)
                printf("  this kernel has no sch_netem: the tc side of net.latency adds and deletes a root "
                       "tbf "
                       "(the same rtnetlink round trips), the agent uses its NFQUEUE shaper\n");
        printf("  the agent's first network fault (net.latency, round 1): %.2f ms, with its one-time "
               "setup\n",
               first);
        printf("  mayhem: task.execute inject + undo (lease built each time); docker exec %s "
               "/usr/sbin/tc|nft ...; "
               "nsenter -t %s -n tc|nft ...\n",
               b->container, b->pid_arg);
}

static void cleanup(struct bench *b) {
        b->agent = agent_client_stop(b->agent);
        if (b->created)
                run_argv((const char *const[]){ "docker", "rm", "-f", b->container, NULL });
        b->engine = engine_free(b->engine);
        json_decref(b->identity);
}

static int bench_run(struct bench *b, int rounds, struct mh_error *e) {
        char run_id[64];
        int r;
        if ((r = engine_open(ENGINE_DOCKER, NULL, &b->engine, e)) < 0 || (r = start(b, e)) < 0)
                return r;
        snprintf(run_id, sizeof(run_id), "bench-net-%d", (int)getpid());
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT"),
                                          .roles = "network",
                                          .run_id = run_id };
        if ((r = agent_client_start(&o, &b->agent, e)) < 0 || (r = decide_delivery(b, e)) < 0 ||
            (r = agent_lease_resolve(b->agent, "docker", b->container, &b->identity, e)) < 0)
                return r;
        printf("bench-net: container %s (%s, main pid %s), agent pid %d\n", b->container, IMAGE, b->pid_arg,
               (int)agent_client_pid(b->agent));
        for (int i = 0; i < rounds; i++)
                for (int f = 0; f < _F_MAX; f++)
                        for (int k = 0; k < _W_MAX; k++) {
                                enum way w = (enum way)((i + k) % _W_MAX);
                                /* Each way's deletions end with an RCU grace period the kernel
                                 * waits out holding the netns's nftables mutex: let it pass, so
                                 * no way is timed against the previous one's leftovers. */
                                sleep_ms(SETTLE_MS);
                                if ((r = one(b, (enum fault)f, w, &samples[f][w][i], e)) < 0)
                                        return r;
                        }
        report(b, rounds);
        return 0;
}

int main(int argc, char **argv) {
        struct bench b = { 0 };
        struct mh_error err = { 0 };
        int64_t rounds = ROUNDS_DEFAULT;
        if (argc > 3 ||
            (argc > 1 && (parse_int64(argv[1], &rounds) < 0 || rounds < 1 || rounds > ROUNDS_MAX))) {
                fprintf(stderr, "usage: bench-net [ROUNDS 1..%d] [AGENT]\n", ROUNDS_MAX);
                return 2;
        }
        if (argc > 2)
                setenv("MAYHEM_AGENT", argv[2], 1);
        signal(SIGPIPE, SIG_IGN);
        int r = bench_run(&b, (int)rounds, &err);
        cleanup(&b);
        if (r < 0) {
                fprintf(stderr, "bench-net: %s\n", err.msg);
                return 1;
        }
        return 0;
}
