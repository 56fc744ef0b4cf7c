/* The network fault's visits to the target's netns (src/fault/net-netns.h),
 * on a netns test host: the target is a process in namespace b of a veth
 * pair. What each visit opens lands in the target's netns and in our hands,
 * and every failing call - a gone target, a table that exists, a rule the
 * kernel refuses, twenty lanes at once - leaves no descriptor open: the
 * count of /proc/self/fd is taken before and after. The guardian
 * (mayhem-agent guard, single-threaded) cleans up through the same code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/fault-params.h"
#include "common/netns-pair.h"
#include "fault/guard.h"
#include "fault/live.h"
#include "fault/net-netns.h"
#include "sys/nft-rule.h"
#include "sys/ns.h"

#define SUBNET    215
#define LANES     20
#define FD_GRACE  3000 /* ms for a detached closer (net-live.c) to finish */
#define PARTITION "{\"delivery\":\"nft\",\"direction\":\"both\"}"

static struct netns_pair pair;
static pid_t holder;
static struct proc_identity target;
static struct fault_lives *lives;

static int skipped;

#define SKIP(...)                                                                                           \
        do {                                                                                                \
                fprintf(stderr, "skipped: " __VA_ARGS__);                                                   \
                fputc('\n', stderr);                                                                        \
                skipped++;                                                                                  \
                skip();                                                                                     \
        } while (0)

static int fd_count(void) {
        int n = 0;
        DIR *d = opendir("/proc/self/fd");
        assert_non_null(d);
        for (struct dirent *de; (de = readdir(d));)
                n += de->d_name[0] != '.';
        closedir(d);
        return n - 1; /* the directory's own */
}

/* The count once the sockets of earlier undos are closed (net-live.c hands
 * them to a thread of their own): the same for 60 ms running. */
static int fd_count_settled(void) {
        int n = fd_count(), same = 0;
        for (double until = monotonic_ms() + FD_GRACE; same < 3 && monotonic_ms() < until;) {
                sleep_ms(20);
                int now = fd_count();
                same = now == n ? same + 1 : 0;
                n = now;
        }
        return n;
}

/* Whether every thread of this process but the caller is parked: blocked in
 * a system call other than close(2). /proc/self/task/TID/syscall names the
 * call a blocked thread is in, and says "running" for one on a CPU. The
 * closer of net-live.c parks in a futex wait between batches; inside close()
 * the kernel may still be releasing a socket (and with it its port id) after
 * the descriptor left the table. */
static bool other_threads_parked(void) {
        int self = (int)syscall(SYS_gettid), tid;
        DIR *d = opendir("/proc/self/task");
        bool parked = d != NULL;
        for (struct dirent *de; parked && (de = readdir(d));) {
                char path[64], buf[32] = "";
                long nr;
                if (sscanf(de->d_name, "%d", &tid) != 1 || tid == self)
                        continue;
                snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue; /* gone */
                ssize_t n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n > 0 && (sscanf(buf, "%ld", &nr) != 1 || nr == SYS_close))
                        parked = false;
        }
        if (d)
                closedir(d);
        return parked;
}

/* The table sockets of an undo are closed by a thread of their own. */
static void assert_fds_back(int before, const char *what) {
        int now = fd_count();
        for (double until = monotonic_ms() + FD_GRACE; now != before && monotonic_ms() < until;) {
                sleep_ms(10);
                now = fd_count();
        }
        if (now != before)
                fail_msg("%s: %d descriptors open, %d before", what, now, before);
}

static void sockets_free(struct net_sockets *so) {
        for (size_t i = 0; i < so->n_tables; i++)
                so->tables[i] = nft_owner_table_free(so->tables[i]);
        so->n_tables = 0;
        if (so->queue_fd >= 0)
                close(so->queue_fd);
        so->queue_fd = -EBADF;
}

static int residue(const char *lease, uint16_t queue, char *detail, size_t size) {
        return net_ns_residue(&target, lease, queue, false, detail, size);
}

/* A table of the lease's name, held by the test, so the fault's own create fails. */
struct blocker_arg {
        const char *family, *lease;
        struct nft_owner_table *t;
};

static int fn_blocker(void *arg, struct mh_error *e) {
        struct blocker_arg *a = arg;
        char name[NET_TABLE_MAX];
        net_table_name(a->lease, name);
        return nft_owner_table_create(a->family, name, &a->t, e);
}

static struct nft_owner_table *blocker(const char *family, const char *lease) {
        struct blocker_arg a = { family, lease, NULL };
        struct mh_error e = { 0 };
        if (ns_net_run(&target, fn_blocker, &a, &e) < 0)
                fail_msg("blocker %s: %s", family, e.msg);
        return a.t;
}

static void test_links(void **state) {
        struct net_links l;
        struct mh_error e = { 0 };
        int fds = fd_count();
        if (net_ns_links(&target, &l, &e) < 0)
                fail_msg("links: %s", e.msg);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.name[0], pair.dev_b);
        assert_int_equal(fd_count(), fds);
}

static void test_sockets(void **state) {
        static const char *const inet[] = { "inet" };
        const char *lease = "l-00000000000000b1";
        struct net_sockets so;
        struct mh_error e = { 0 };
        char detail[512];
        int fds = fd_count();

        int r = net_ns_sockets_open(&target, lease, inet, 1, true, &so, &e);
        bool queue = r >= 0;
        if (r < 0) {
                print_message("no shaper queue here (%s): tables only\n", e.msg);
                sockets_free(&so);
                assert_int_equal(fd_count(), fds);
                r = net_ns_sockets_open(&target, lease, inet, 1, false, &so, &e);
        }
        if (r < 0)
                fail_msg("sockets: %s", e.msg);
        assert_int_equal(so.n_tables, 1);
        assert_string_equal(nft_owner_table_family(so.tables[0]), "inet");
        if (queue) {
                assert_true(so.queue_fd >= 0);
                assert_true(so.queue >= NET_QUEUE_BASE && so.queue < NET_QUEUE_BASE + NET_QUEUE_SPAN);
        } else
                assert_int_equal(so.queue_fd, -EBADF);
        assert_int_equal(fd_count(), fds + 1 + (queue ? 1 : 0));
        /* In the target's netns, seen from there (the queue through
         * /proc/thread-self/net), and not in ours. */
        assert_int_equal(residue(lease, so.queue, detail, sizeof(detail)), 1);
        assert_non_null(strstr(detail, "nft table inet mayhem-00000000000000b1"));
        if (queue)
                assert_non_null(strstr(detail, "shaper queue"));
        assert_int_equal(nft_table_exists("inet", "mayhem-00000000000000b1", NULL), 0);

        sockets_free(&so);
        assert_int_equal(residue(lease, queue ? so.queue : 0, detail, sizeof(detail)), 0);
        assert_int_equal(fd_count(), fds);
}

/* A second family that cannot be created: the first one's socket is handed
 * back for the caller to close, nothing else stays open. */
static void test_sockets_partial_failure(void **state) {
        static const char *const split[] = { "ip", "ip6" }, *const ip6_first[] = { "ip6", "ip" };
        const char *lease = "l-00000000000000b2";
        struct net_sockets so;
        struct mh_error e = { 0 };
        char detail[512];
        struct nft_owner_table *blk = blocker("ip6", lease);
        int fds = fd_count();

        assert_int_equal(net_ns_sockets_open(&target, lease, split, 2, true, &so, &e), -EEXIST);
        assert_int_equal(so.n_tables, 1); /* ip */
        assert_int_equal(so.queue_fd, -EBADF);
        assert_int_equal(fd_count(), fds + 1);
        sockets_free(&so);
        assert_int_equal(fd_count(), fds);

        assert_int_equal(net_ns_sockets_open(&target, lease, ip6_first, 2, false, &so, &e), -EEXIST);
        assert_int_equal(so.n_tables, 0);
        assert_int_equal(fd_count(), fds);

        nft_owner_table_free(blk);
        assert_int_equal(residue(lease, 0, detail, sizeof(detail)), 0);
}

struct lane {
        char lease[32];
        bool queue;
        struct net_sockets so;
        int result;
        struct mh_error e;
};

static void *lane_main(void *arg) {
        static const char *const inet[] = { "inet" };
        struct lane *l = arg;
        l->result = net_ns_sockets_open(&target, l->lease, inet, 1, l->queue, &l->so, &l->e);
        return NULL;
}

/* Twenty injections at once used to lose their sockets in the SCM_RIGHTS
 * bundle now and then ("the sockets did not arrive"). */
static void test_parallel_lanes(void **state) {
        static struct lane lanes[LANES];
        pthread_t th[LANES];
        char detail[512];
        int fds = fd_count();

        for (int round = 0; round < 3; round++) {
                for (int i = 0; i < LANES; i++) {
                        lanes[i] = (struct lane){ .queue = i % 2 == 0 };
                        snprintf(lanes[i].lease, sizeof(lanes[i].lease), "l-00000000000c%02d%02d", round, i);
                        assert_int_equal(pthread_create(&th[i], NULL, lane_main, &lanes[i]), 0);
                }
                int queues = 0;
                for (int i = 0; i < LANES; i++) {
                        assert_int_equal(pthread_join(th[i], NULL), 0);
                        if (lanes[i].result < 0 && lanes[i].queue && lanes[i].so.n_tables == 1)
                                lanes[i].queue = false; /* no NFQUEUE on this kernel */
                        else if (lanes[i].result < 0)
                                fail_msg("lane %d: %s", i, lanes[i].e.msg);
                        assert_int_equal(lanes[i].so.n_tables, 1);
                        queues += lanes[i].so.queue_fd >= 0;
                }
                assert_int_equal(fd_count(), fds + LANES + queues);
                for (int i = 0; i < LANES; i++) {
                        assert_int_equal(residue(lanes[i].lease, 0, detail, sizeof(detail)), 1);
                        for (int j = 0; j < i; j++)
                                if (lanes[i].so.queue_fd >= 0 && lanes[j].so.queue_fd >= 0)
                                        assert_int_not_equal(lanes[i].so.queue, lanes[j].so.queue);
                }
                for (int i = 0; i < LANES; i++)
                        sockets_free(&lanes[i].so);
                assert_int_equal(fd_count(), fds);
        }
}

static void test_dup_egress(void **state) {
        const char *name = "mayhem-00000000000000b3";
        struct nft_owner_table *t = NULL;
        struct mh_error e = { 0 };
        char detail[512];
        int r = nft_netdev_egress_supported(&e);
        if (r != 1)
                SKIP("no netdev egress chains here: %s", r < 0 ? e.msg : "Linux < 5.16");
        struct nft_rule_spec spec = { .probability = 5000,
                                      .action = NFT_ACTION_DUP_DEVICE,
                                      .mark_guard = 0x6d680001u };
        int fds = fd_count();
        if (net_ns_dup_egress_open(&target, name, &spec, 1, &t, &e) < 0)
                fail_msg("dup egress: %s", e.msg);
        assert_string_equal(nft_owner_table_family(t), "netdev");
        assert_int_equal(residue("l-00000000000000b3", 0, detail, sizeof(detail)), 1);
        t = nft_owner_table_free(t);
        assert_int_equal(fd_count(), fds);

        /* A rule the spec check refuses halfway (no mark guard): the table goes too. */
        spec.mark_guard = 0;
        assert_int_equal(net_ns_dup_egress_open(&target, name, &spec, 1, &t, &e), -EINVAL);
        assert_null(t);
        assert_int_equal(fd_count(), fds);
        assert_int_equal(residue("l-00000000000000b3", 0, detail, sizeof(detail)), 0);
}

/* Every visit to a target that is gone, and never was in force. */
static void test_gone_target(void **state) {
        static const char *const inet[] = { "inet" };
        struct proc_identity gone;
        struct net_sockets so;
        struct net_links l;
        struct nft_owner_table *t = NULL;
        struct nft_rule_spec spec = { .action = NFT_ACTION_DUP_DEVICE, .mark_guard = 1 };
        struct net_recipe rc = { .delivery = NET_DELIVERY_TBF,
                                 .dirs = NET_SIDE_EGRESS,
                                 .rate_bytes_per_s = 125000,
                                 .burst_bytes = 10000 };
        struct mh_error e = { 0 };
        char detail[512];

        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                for (;;)
                        pause();
        assert_int_equal(proc_identity_read(pid, &gone, NULL), 0);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);

        int fds = fd_count();
        assert_int_equal(net_ns_sockets_open(&gone, "l-00000000000000b4", inet, 1, true, &so, &e), -ESRCH);
        assert_int_equal(so.n_tables, 0);
        assert_int_equal(so.queue_fd, -EBADF);
        assert_int_equal(net_ns_links(&gone, &l, &e), -ESRCH);
        assert_int_equal(net_ns_dup_egress_open(&gone, "mayhem-b4", &spec, 1, &t, &e), -ESRCH);
        assert_null(t);
        assert_int_equal(net_ns_qdisc_apply(&gone, "l-00000000000000b4", &rc, &e), -ESRCH);
        assert_int_equal(net_ns_clean(&gone, "l-00000000000000b4", &e), 0);
        assert_int_equal(net_ns_residue(&gone, "l-00000000000000b4", 1, true, detail, sizeof(detail)), 0);
        assert_non_null(strstr(detail, "gone"));
        assert_int_equal(fd_count(), fds);
}

/* A lease's params and net context: the bound params point into them. */
struct lease {
        json_t *params, *net, *restore;
};

/* The fault bound as the agent binds it; text holds its params and net context. */
static struct fault_exec fx_of(
        const char *fault_id, const char *lease_id, const char *text, struct lease *l) {
        struct fault_exec fx = { .lease_id = lease_id, .lives = lives };
        struct mh_error e = { 0 };
        l->restore = json_object();
        fx.restore = l->restore;
        if (fault_case_split(catalog_find(fault_id), text, &l->params, &l->net) < 0 ||
            fault_exec_bind(&fx, catalog_find(fault_id), l->params, l->net, &e) < 0)
                fail_msg("%s %s: %s", fault_id, text, e.msg);
        snprintf(fx.target.engine, sizeof(fx.target.engine), "host");
        snprintf(fx.target.container_name, sizeof(fx.target.container_name), "%s", pair.b);
        fx.target.main = target;
        return fx;
}

static void lease_done(struct lease *l) {
        json_decref(l->params);
        json_decref(l->net);
        json_decref(l->restore);
}

static int fault_apply_net(struct fault_exec *fx, struct mh_error *e) {
        return fx->mech->apply(fx, e);
}

/* The catalog's undo ops, as the agent runs them. */
static int fault_net_release(const struct fault_exec *fx) {
        return fault_undo_run(fx, fx->def->comp.undo, fault_comp_n_undo(&fx->def->comp), NULL);
}

/* The whole fault, failing on its second table and succeeding: no descriptor
 * outlives the undo (its closer runs detached, so the count is waited for). */
static void test_fault_fd_balance(void **state) {
        const char *lease = "l-00000000000000b5";
        struct mh_error e = { 0 };
        char detail[512];
        struct lease dup, part;
        struct fault_exec fx_dup =
                                  fx_of("net.duplicate", lease,
                                        "{\"delivery\":\"nft\",\"percent\":50,\"direction\":\"ingress\","
                                        "\"self\":[\"10.215.0.2\"]}",
                                        &dup),
                          fx_part = fx_of("net.partition", lease, PARTITION, &part);

        struct nft_owner_table *blk = blocker("ip6", lease);
        int fds = fd_count_settled();
        int r = fault_apply_net(&fx_dup, &e);
        assert_int_equal(r, -EEXIST); /* ip was created, ip6 was not: both let go */
        assert_fds_back(fds, "net.duplicate failing on its ip6 table");
        blk = nft_owner_table_free(blk);
        fds = fd_count();
        assert_int_equal(residue(lease, 0, detail, sizeof(detail)), 0);

        for (int i = 0; i < 5; i++) {
                if (fault_apply_net(&fx_part, &e) < 0)
                        fail_msg("partition: %s", e.msg);
                assert_int_equal(residue(lease, 0, detail, sizeof(detail)), 1);
                assert_int_equal(fault_net_release(&fx_part), 0);
                assert_int_equal(residue(lease, 0, detail, sizeof(detail)), 0);
        }
        assert_fds_back(fds, "five partitions applied and undone");
        lease_done(&dup);
        lease_done(&part);
}

/* The sockets of undone leases are closed a moment later, on a thread of
 * their own (net-live.c); the next lease's table must not go with them. Every
 * socket here is opened by this one process, and the kernel deletes the owner
 * tables of a port id released (sys/netlink-port.h): a burst of undos leaves
 * a queue of closes behind, and the probe lease's table is created while they
 * run. */
static void test_release_spares_next_table(void **state) {
        const char *probe = "l-00000000000000b7";
        struct mh_error e = { 0 };
        char detail[512], leases[5][32];
        struct lease part;
        for (int round = 0; round < 20; round++) {
                int base = fd_count_settled(), held = 0;
                for (int i = 0; i < 5; i++) {
                        snprintf(leases[i], sizeof(leases[i]), "l-00000000000d%02d%02d", round, i);
                        struct fault_exec fx = fx_of("net.partition", leases[i], PARTITION, &part);
                        if (fault_apply_net(&fx, &e) < 0)
                                fail_msg("partition %s: %s", leases[i], e.msg);
                        if (i == 0) /* what one lease holds open: the probe's, later */
                                held = fd_count() - base;
                        assert_int_equal(fault_net_release(&fx), 0);
                        lease_done(&part);
                }
                struct fault_exec fx = fx_of("net.partition", probe, PARTITION, &part);
                if (fault_apply_net(&fx, &e) < 0)
                        fail_msg("partition %s: %s", probe, e.msg);
                /* Until the queued closes are done, their kernel releases too:
                 * only the probe's descriptors open, and the closer parked. */
                double t0 = monotonic_ms();
                while ((fd_count() != base + held || !other_threads_parked()) &&
                       monotonic_ms() - t0 < FD_GRACE)
                        sleep_ms(5);
                if (fd_count() != base + held || !other_threads_parked())
                        fail_msg(
                                "round %d: after %.0f ms, %d descriptors open (want %d), closer %s", round,
                                monotonic_ms() - t0, fd_count(), base + held,
                                other_threads_parked() ? "parked" : "busy");
                if (residue(probe, 0, detail, sizeof(detail)) != 1)
                        fail_msg(
                                "round %d: the table went with an undone lease's socket: %s", round, detail);
                assert_int_equal(fault_net_release(&fx), 0);
                lease_done(&part);
        }
}

/* mayhem-agent guard: a single-threaded process that cleans our qdiscs when
 * its pipe closes without "release". */
static void test_guardian_cleans(void **state) {
        const char *agent = getenv("MAYHEM_AGENT_BIN");
        const char *lease = "l-00000000000000b6";
        struct net_recipe rc = { .delivery = NET_DELIVERY_TBF,
                                 .dirs = NET_SIDE_EGRESS | NET_SIDE_INGRESS,
                                 .rate_bytes_per_s = 125000,
                                 .burst_bytes = 10000 };
        struct mh_error e = { 0 };
        char detail[512];
        int status = 0;

        if (!agent)
                SKIP("MAYHEM_AGENT_BIN is not set");
        int fds = fd_count_settled();
        if (net_ns_qdisc_apply(&target, lease, &rc, &e) < 0)
                SKIP("no tbf/ifb here: %s", e.msg);
        assert_int_equal(net_ns_residue(&target, lease, 0, true, detail, sizeof(detail)), 1);
        assert_int_equal(fd_count(), fds);

        /* The guardian as the agent starts it (fault_guard_start()), from a
         * child that then dies without "release", as an agent would. */
        json_t *params = fault_params_defaults(
                catalog_find("net.bandwidth"), "{\"direction\":\"both\",\"rate\":1000000}");
        json_t *net = json_pack("{s:s}", "delivery", "tbf"), *restore = json_object();
        pid_t child = fork();
        if (child == 0) {
                struct fault_exec fx = { .lease_id = lease, .restore = restore, .target.main = target };
                struct fault_guard *g = NULL;
                fault_guard_exe_set(agent);
                _exit(fault_exec_bind(&fx, catalog_find("net.bandwidth"), params, net, &e) < 0 ||
                      fault_guard_start(&fx, &g, &e) < 0);
        }
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        /* The guardian notices the closed pipe and cleans on its own time;
         * 10 s is for a hung guardian only. */
        int left;
        double t0 = monotonic_ms();
        while ((left = net_ns_residue(&target, lease, 0, true, detail, sizeof(detail))) > 0 &&
               monotonic_ms() - t0 < 10000)
                sleep_ms(10);
        if (left != 0)
                fail_msg("guardian: %d after %.0f ms: %s", left, monotonic_ms() - t0, detail);
        assert_int_equal(fd_count(), fds);
        json_decref(params);
        json_decref(net);
        json_decref(restore);
}

static int hold_forever(void *arg, int out) {
        for (int i = 0; i < 3000; i++) /* bounded: 300 s */
                usleep(100000);
        return 0;
}

static int setup(void **state) {
        struct mh_error e = { 0 };
        int fd;
        if (nft_owner_supported(&e) != 1) {
                fprintf(stderr, "skipped: no nftables owner tables: %s\n", e.msg);
                return -1;
        }
        if (netns_pair_create(&pair, "mhnt", SUBNET) < 0 || !(lives = fault_lives_new()))
                return -1;
        holder = netns_fork(pair.b, hold_forever, NULL, &fd);
        close(fd);
        if (holder < 0 || proc_identity_read(holder, &target, NULL) < 0)
                return -1;
        /* Once per process, and kept: taken before any count of descriptors. */
        (void)nft_hooks_hold(NULL);
        return 0;
}

static int teardown(void **state) {
        if (holder > 0) {
                kill(holder, SIGKILL);
                waitpid(holder, NULL, 0);
        }
        lives = fault_lives_free(lives);
        netns_pair_destroy(&pair);
        return 0;
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: needs root\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_links),
                cmocka_unit_test(test_sockets),
                cmocka_unit_test(test_sockets_partial_failure),
                cmocka_unit_test(test_parallel_lanes),
                cmocka_unit_test(test_dup_egress),
                cmocka_unit_test(test_gone_target),
                cmocka_unit_test(test_fault_fd_balance),
                cmocka_unit_test(test_release_spares_next_table),
                cmocka_unit_test(test_guardian_cleans),
        };
        int failed = cmocka_run_group_tests(tests, setup, teardown);
        if (failed == 0 && skipped == (int)ELEMENTSOF(tests))
                return 77;
        return failed;
}
