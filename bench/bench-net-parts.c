/* Where the time of a network fault's inject + undo goes: each part of what
 * the agent does for net.packet_loss and net.partition, timed on its own
 * against a network namespace of the bench's own (a child that unshared one;
 * no engine needed), next to the whole through a local `mayhem-agent serve`
 * and in-process:
 *
 *   agent        task.execute inject + undo through the agent (the bench-net column)
 *   in-process   the same fault's apply + undo ops, called directly
 *   ping         the agent's health.ping round trip (the RPC and its framing)
 *   lease        one task.execute frame parsed: JSON, then the lease
 *   pidfd        pidfd_open + the start-time check
 *   fork visit   ns_run(): a forked child enters the netns and does nothing
 *   thread visit ns_net_run(): a thread enters the netns and does nothing
 *   table        an owner table created (its socket opened and bound, one batch)
 *   chains       the two base chains of a partition, one batch each
 *   rules        its two drop rules, one batch each (echoed, for the handles)
 *   delete       the table deleted through its socket (the undo's one batch)
 *   close        that socket closed after the delete: the agent does this on a
 *                thread of its own, off the undo's path, because the kernel
 *                waits for an RCU grace period in it
 *
 * Rounds alternate nothing (each part runs once per round, in this order),
 * and each round starts after a settle time, so the RCU work a close leaves
 * behind does not land in the next round. Medians and p95s in ms; it never
 * fails on timing.
 *
 * With a second agent (another build), its inject + undo and ping are timed
 * in the same rounds, the two taking turns at going first: an A/B comparison
 * that machine noise hits alike.
 *
 * usage: bench-net-parts [ROUNDS] [AGENT] [AGENT_B]   (ROUNDS 1..1000, default 50). Needs root. */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "agent/server-internal.h"
#include "basic/stats.h"
#include "basic/clock.h"
#include "basic/parse-number.h"
#include "common/agent-lease.h"
#include "common/fault-params.h"
#include "fault/fault.h"
#include "fault/live.h"
#include "sys/nft-rule.h"
#include "sys/nft.h"
#include "sys/ns.h"
#include "sys/process.h"

#define ROUNDS_DEFAULT 50
#define ROUNDS_MAX     1000
#define CALL_MS        15000
#define SETTLE_MS      60
#define TABLE          "mayhem-bench-parts"

enum part {
        PART_AGENT_LOSS,
        PART_AGENT_PARTITION,
        PART_INPROC_LOSS,
        PART_INPROC_PARTITION,
        PART_PING,
        PART_LEASE,
        PART_PIDFD,
        PART_FORK_VISIT,
        PART_THREAD_VISIT,
        PART_TABLE,
        PART_CHAINS,
        PART_RULES,
        PART_DELETE,
        PART_CLOSE,
        PART_B_LOSS,
        PART_B_PARTITION,
        PART_B_PING,
        _PART_MAX,
};

static const char *const part_names[_PART_MAX] = {
        [PART_AGENT_LOSS] = "agent: net.packet_loss inject+undo",
        [PART_AGENT_PARTITION] = "agent: net.partition inject+undo",
        [PART_INPROC_LOSS] = "in-process: net.packet_loss",
        [PART_INPROC_PARTITION] = "in-process: net.partition",
        [PART_PING] = "health.ping round trip",
        [PART_LEASE] = "task.execute frame + lease parse",
        [PART_PIDFD] = "pidfd + start-time check",
        [PART_FORK_VISIT] = "netns visit: forked child",
        [PART_THREAD_VISIT] = "netns visit: thread",
        [PART_TABLE] = "owner table create",
        [PART_CHAINS] = "2 base chains",
        [PART_RULES] = "2 drop rules",
        [PART_DELETE] = "table delete (undo)",
        [PART_CLOSE] = "socket close after delete",
        [PART_B_LOSS] = "agent B: net.packet_loss inject+undo",
        [PART_B_PARTITION] = "agent B: net.partition inject+undo",
        [PART_B_PING] = "agent B: health.ping round trip",
};

enum fault {
        F_LOSS,
        F_PARTITION,
        _F_MAX,
};

static const struct {
        const char *id, *params;
} faults[_F_MAX] = {
        [F_LOSS] = { "net.packet_loss", "{\"percent\": 10, \"direction\": \"egress\"}" },
        [F_PARTITION] = { "net.partition", "{\"direction\": \"both\"}" },
};
#define NET_CONTEXT "{\"delivery\": \"nft\"}"

struct bench {
        pid_t holder;
        struct target_identity target;
        struct agent_client *agent, *agent_b;
        struct fault_lives *lives; /* the in-process faults' */
        unsigned next_lease;
};

static double samples[_PART_MAX][ROUNDS_MAX];

/* A child in a network namespace of its own, with lo up being irrelevant:
 * the nft faults need no device. */
static int holder_start(struct bench *b, struct mh_error *e) {
        int p[2], err = 0;
        if (pipe2(p, O_CLOEXEC) < 0)
                return mh_error_set(e, -errno, MH_EXIT_GENERAL_FAILURE, "pipe", "pipe: %s", strerror(errno));
        pid_t pid = fork();
        if (pid < 0)
                return mh_error_set(e, -errno, MH_EXIT_GENERAL_FAILURE, "fork", "fork: %s", strerror(errno));
        if (pid == 0) {
                if (unshare(CLONE_NEWNET) < 0)
                        err = errno;
                (void)!write(p[1], &err, sizeof(err));
                for (;;)
                        pause();
        }
        close(p[1]);
        ssize_t n = read(p[0], &err, sizeof(err));
        close(p[0]);
        b->holder = pid;
        if (n != (ssize_t)sizeof(err) || err)
                return mh_error_set(
                        e, -EPERM, MH_EXIT_CONFIG_ERROR, "unshare", "unshare(CLONE_NEWNET): %s (root?)",
                        strerror(err ? err : EIO));
        return target_identity_of_process(pid, NULL, PROC_SCOPE_ANY, &b->target, e);
}

static json_t *lease_json(struct bench *b, enum fault f) {
        char id[32];
        snprintf(id, sizeof(id), "l-%08x%08x", (unsigned)getpid(), ++b->next_lease);
        json_t *identity = target_identity_json(&b->target);
        json_t *j = agent_lease_new(id, faults[f].id, identity, faults[f].params, NET_CONTEXT);
        json_decref(identity);
        return j;
}

static int agent_phase(
        struct agent_client *c, enum fault f, const char *phase, json_t *lease, struct mh_error *e) {
        json_t *params =
                json_pack("{s:s, s:s, s:O}", "fault_id", faults[f].id, "phase", phase, "lease", lease);
        int r = agent_client_call(c, "task.execute", params, CALL_MS, NULL, e);
        if (r < 0)
                mh_error_prefix(e, "%s %s: ", faults[f].id, phase);
        return r;
}

static int agent_fault(
        struct bench *b, struct agent_client *c, enum fault f, double *ret_ms, struct mh_error *e) {
        json_t *lease = lease_json(b, f);
        double t0 = monotonic_ms();
        int r = agent_phase(c, f, "inject", lease, e);
        if (r >= 0)
                r = agent_phase(c, f, "undo", lease, e);
        *ret_ms = monotonic_ms() - t0;
        json_decref(lease);
        return r;
}

static int inproc_fault(struct bench *b, enum fault f, double *ret_ms, struct mh_error *e) {
        const struct fault_def *def = catalog_find(faults[f].id);
        char lease_id[32];
        snprintf(lease_id, sizeof(lease_id), "l-%08x%08x", (unsigned)getpid(), ++b->next_lease);
        json_t *params = fault_params_defaults(def, faults[f].params),
               *net = json_loads(NET_CONTEXT, 0, NULL), *restore = json_object();
        struct fault_exec fx = { .lease_id = lease_id,
                                 .lives = b->lives,
                                 .duration_ms = 10000,
                                 .target = b->target,
                                 .restore = restore };
        int r = fault_exec_bind(&fx, def, params, net, e);
        double t0 = monotonic_ms();
        if (r >= 0)
                r = fx.mech->apply(&fx, e);
        if (r >= 0)
                r = fault_undo_run(&fx, def->comp.undo, fault_comp_n_undo(&def->comp), e);
        *ret_ms = monotonic_ms() - t0;
        json_decref(params);
        json_decref(net);
        json_decref(restore);
        return r;
}

static int lease_parse(struct bench *b, double *ret_ms, struct mh_error *e) {
        json_t *lease = lease_json(b, F_PARTITION);
        json_t *frame = json_pack(
                "{s:s, s:i, s:s, s:{s:s, s:s, s:s, s:s, s:O}}", "jsonrpc", "2.0", "id", 7, "method",
                "task.execute", "params", "run_id", "bench", "agent_id", "a-bench", "fault_id",
                faults[F_PARTITION].id, "phase", "inject", "lease", lease);
        char *text = json_dumps(frame, JSON_COMPACT);
        struct agent_lease l;
        char msg[256];
        double t0 = monotonic_ms();
        json_t *back = json_loads(text, 0, NULL);
        int r = agent_lease_from_json(
                json_object_get(json_object_get(back, "params"), "lease"), &l, msg, sizeof(msg));
        if (r >= 0)
                agent_lease_done(&l);
        json_decref(back);
        *ret_ms = monotonic_ms() - t0;
        free(text);
        json_decref(frame);
        json_decref(lease);
        return r < 0 ? mh_error_set(e, r, MH_EXIT_GENERAL_FAILURE, "lease", "%s", msg) : 0;
}

static int fn_nothing(void *arg, char *out, size_t *out_len) {
        *out_len = 0;
        return 0;
}

static int fn_nothing_net(void *arg, struct mh_error *e) {
        return 0;
}

struct table_parts {
        struct nft_owner_table *t;
        double table_ms;
};

static int fn_table(void *arg, struct mh_error *e) {
        struct table_parts *p = arg;
        double t0 = monotonic_ms();
        int r = nft_owner_table_create("inet", TABLE, &p->t, e);
        p->table_ms = monotonic_ms() - t0;
        return r;
}

/* The partition's table, part by part. */
static int table_steps(struct bench *b, int round, struct mh_error *e) {
        static const struct nft_chain_spec chains[] = {
                { .name = "in", .hook = NFT_HOOK_INPUT },
                { .name = "out", .hook = NFT_HOOK_OUTPUT },
        };
        static const struct nft_rule_spec rules[] = {
                { .not_loopback = true, .action = NFT_ACTION_DROP },
                { .not_loopback_out = true, .action = NFT_ACTION_DROP },
        };
        struct table_parts p = { 0 };
        int r = ns_net_run(&b->target.main, fn_table, &p, e);
        if (r < 0)
                return r;
        samples[PART_TABLE][round] = p.table_ms;
        double t0 = monotonic_ms();
        for (size_t i = 0; i < ELEMENTSOF(chains) && r >= 0; i++)
                r = nft_chain_add(p.t, &chains[i], e);
        double t1 = monotonic_ms();
        for (size_t i = 0; i < ELEMENTSOF(rules) && r >= 0; i++)
                r = nft_rule_add(p.t, chains[i].name, &rules[i], NULL, e);
        double t2 = monotonic_ms();
        if (r >= 0)
                r = nft_owner_table_delete(p.t, e);
        double t3 = monotonic_ms();
        nft_owner_table_free(p.t);
        double t4 = monotonic_ms();
        samples[PART_CHAINS][round] = t1 - t0;
        samples[PART_RULES][round] = t2 - t1;
        samples[PART_DELETE][round] = t3 - t2;
        samples[PART_CLOSE][round] = t4 - t3;
        return r;
}

static int ping(struct agent_client *c, double *ret_ms, struct mh_error *e) {
        double t0 = monotonic_ms();
        int r = agent_client_call(c, "health.ping", json_object(), CALL_MS, NULL, e);
        *ret_ms = monotonic_ms() - t0;
        return r;
}

/* Agent A's faults and ping, and agent B's when there is one, B first in odd rounds. */
static int agent_rounds(struct bench *b, int i, struct mh_error *e) {
        static const enum part parts[2][3] = {
                { PART_AGENT_LOSS, PART_AGENT_PARTITION, PART_PING },
                { PART_B_LOSS, PART_B_PARTITION, PART_B_PING },
        };
        struct agent_client *c[2] = { b->agent, b->agent_b };
        int r;
        for (int k = 0; k < 2; k++) {
                int w = b->agent_b ? (i + k) % 2 : k;
                if (!c[w])
                        continue;
                sleep_ms(SETTLE_MS);
                if ((r = agent_fault(b, c[w], F_LOSS, &samples[parts[w][0]][i], e)) < 0)
                        return r;
                sleep_ms(SETTLE_MS);
                if ((r = agent_fault(b, c[w], F_PARTITION, &samples[parts[w][1]][i], e)) < 0)
                        return r;
                sleep_ms(SETTLE_MS);
                if ((r = ping(c[w], &samples[parts[w][2]][i], e)) < 0)
                        return r;
        }
        return 0;
}

static int one_round(struct bench *b, int i, struct mh_error *e) {
        int r, fd = -EBADF;
        double t0;

        if ((r = agent_rounds(b, i, e)) < 0)
                return r;
        sleep_ms(SETTLE_MS);
        if ((r = inproc_fault(b, F_LOSS, &samples[PART_INPROC_LOSS][i], e)) < 0)
                return r;
        sleep_ms(SETTLE_MS);
        if ((r = inproc_fault(b, F_PARTITION, &samples[PART_INPROC_PARTITION][i], e)) < 0)
                return r;
        sleep_ms(SETTLE_MS);

        if ((r = lease_parse(b, &samples[PART_LEASE][i], e)) < 0)
                return r;

        t0 = monotonic_ms();
        r = proc_pidfd_open(&b->target.main, &fd, e);
        samples[PART_PIDFD][i] = monotonic_ms() - t0;
        if (r < 0)
                return r;
        close(fd);

        t0 = monotonic_ms();
        r = ns_run(&b->target.main, NS_BIT(NS_NET), fn_nothing, NULL, CALL_MS, NULL, NULL, NULL, e);
        samples[PART_FORK_VISIT][i] = monotonic_ms() - t0;
        if (r < 0)
                return r;
        t0 = monotonic_ms();
        r = ns_net_run(&b->target.main, fn_nothing_net, NULL, e);
        samples[PART_THREAD_VISIT][i] = monotonic_ms() - t0;
        if (r < 0)
                return r;
        sleep_ms(SETTLE_MS);
        return table_steps(b, i, e);
}

/* The median (p 50) or the nearest-rank p-th percentile; sorts v. */
static double pct(double *v, int n, int p) {
        doubles_sort(v, (size_t)n);
        return p == 50 ? sorted_median(v, (size_t)n) : sorted_percentile(v, (size_t)n, (unsigned)p);
}

static void report(int rounds, bool with_b) {
        printf("\n%d rounds, ms (median / p95)\n", rounds);
        for (int p = 0; p < (with_b ? _PART_MAX : PART_B_LOSS); p++)
                printf("  %-36s %8.3f / %8.3f\n", part_names[p], pct(samples[p], rounds, 50),
                       pct(samples[p], rounds, 95));
        printf("  (the agent closes the socket on a thread of its own: 'close' is not on the undo's "
               "path)\n");
}

static int bench_run(struct bench *b, int rounds, struct mh_error *e) {
        int r = holder_start(b, e);
        if (r < 0)
                return r;
        if (!(b->lives = fault_lives_new()))
                return mh_error_set(e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT"),
                                          .roles = "network,host", /* the holder is a host process */
                                          .run_id = "bench-net-parts" };
        if ((r = agent_client_start(&o, &b->agent, e)) < 0)
                return r;
        if (getenv("MAYHEM_AGENT_B")) {
                o.agent_path = getenv("MAYHEM_AGENT_B");
                if ((r = agent_client_start(&o, &b->agent_b, e)) < 0)
                        return r;
                printf("bench-net-parts: agent B %s, pid %d\n", o.agent_path,
                       (int)agent_client_pid(b->agent_b));
        }
        printf("bench-net-parts: netns holder pid %d, agent pid %d\n", (int)b->holder,
               (int)agent_client_pid(b->agent));
        for (int i = 0; i < rounds; i++)
                if ((r = one_round(b, i, e)) < 0)
                        return r;
        report(rounds, b->agent_b);
        return 0;
}

int main(int argc, char **argv) {
        struct bench b = { .holder = -1 };
        struct mh_error err = { 0 };
        int64_t rounds = ROUNDS_DEFAULT;
        if (argc > 4 ||
            (argc > 1 && (parse_int64(argv[1], &rounds) < 0 || rounds < 1 || rounds > ROUNDS_MAX))) {
                fprintf(stderr, "usage: bench-net-parts [ROUNDS 1..%d] [AGENT] [AGENT_B]\n", ROUNDS_MAX);
                return 2;
        }
        if (argc > 2)
                setenv("MAYHEM_AGENT", argv[2], 1);
        if (argc > 3)
                setenv("MAYHEM_AGENT_B", argv[3], 1);
        if (geteuid() != 0) {
                fprintf(stderr, "bench-net-parts: needs root\n");
                return 77;
        }
        signal(SIGPIPE, SIG_IGN);
        int r = bench_run(&b, (int)rounds, &err);
        b.agent = agent_client_stop(b.agent);
        b.agent_b = agent_client_stop(b.agent_b);
        if (b.holder > 0) {
                kill(b.holder, SIGKILL);
                waitpid(b.holder, NULL, 0);
        }
        if (r < 0) {
                fprintf(stderr, "bench-net-parts: %s\n", err.msg);
                return 1;
        }
        return 0;
}
