/* fd.exhaust (fault-rlimit.c) on a victim of the test's own: a forked child
 * in a fresh cgroup v2 cgroup that opens descriptors on command over a
 * pipe, so EMFILE is measured inside the victim, and limits are read back
 * from /proc/PID/limits. No container and no namespace of anyone else's is
 * touched. Not root or no cgroup2 mount: skipped (77). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-journal.h"
#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/fault.h"
#include "sys/cgroup.h"
#include "sys/proc-nofile.h"

#define SKIP(...)                                                                                           \
        do {                                                                                                \
                fprintf(stderr, "skipped: " __VA_ARGS__);                                                   \
                fputc('\n', stderr);                                                                        \
                skip();                                                                                     \
        } while (0)

#define OLD_SOFT 1000
#define OLD_HARD 2000
#define LEASE    "lease-rlimit-test"

struct victim {
        pid_t pid, grandchild, orphan;
        int cmd, reply;
};

static char cg_dir[CGROUP_PATH_MAX + 64];
static struct victim v = { -1, -1, -1, -1, -1 };

/* The victim: its limits made known first, then one command at a time. */
static void _noreturn_ victim_main(int cmd, int reply) {
        struct rlimit lim = { OLD_SOFT, OLD_HARD };
        char c;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
                _exit(2);
        while (read(cmd, &c, 1) == 1) {
                int32_t answer = 0;
                if (c == 'o')
                        answer = open("/dev/null", O_RDONLY | O_CLOEXEC) < 0 ? errno : 0;
                else if (c == 'f') {
                        pid_t p = fork();
                        if (p == 0) {
                                for (;;)
                                        pause();
                        }
                        answer = (int32_t)p;
                } else if (c == 'g') { /* a grandchild whose parent exits: reparented */
                        int link[2];
                        if (pipe2(link, O_CLOEXEC) < 0)
                                _exit(4);
                        pid_t p = fork();
                        if (p == 0) {
                                pid_t g = fork();
                                if (g == 0) {
                                        for (;;)
                                                pause();
                                }
                                if (write(link[1], &g, sizeof(g)) != sizeof(g))
                                        _exit(5);
                                _exit(0);
                        }
                        pid_t g = -1;
                        if (read(link[0], &g, sizeof(g)) != sizeof(g))
                                _exit(6);
                        waitpid(p, NULL, 0);
                        close(link[0]);
                        close(link[1]);
                        answer = (int32_t)g;
                }
                if (write(reply, &answer, sizeof(answer)) != sizeof(answer))
                        _exit(3);
        }
        _exit(0);
}

static int32_t ask(char c) {
        int32_t answer = -1;
        struct pollfd p = { .fd = v.reply, .events = POLLIN };
        assert_int_equal(write(v.cmd, &c, 1), 1);
        if (poll(&p, 1, 5000) != 1) /* the victim died: never hang */
                fail_msg("the victim did not answer '%c'", c);
        assert_int_equal(read(v.reply, &answer, sizeof(answer)), (ssize_t)sizeof(answer));
        return answer;
}

/* "Max open files" of /proc/PID/limits, as the kernel prints it. */
static void limits_of(pid_t pid, long *soft, long *hard) {
        char path[64], line[256];
        snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        *soft = *hard = -2;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, "Max open files", 14) == 0)
                        assert_int_equal(sscanf(line + 14, "%ld %ld", soft, hard), 2);
        fclose(f);
}

static void write_pid(const char *dir, pid_t pid) {
        char path[CGROUP_PATH_MAX + 128], buf[32];
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        snprintf(buf, sizeof(buf), "%d", (int)pid);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
        close(fd);
}

static int setup(void **state) {
        char mi[1 << 16] = "", dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];
        int cmd[2], reply[2], fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, mi, sizeof(mi) - 1) : -1;
        if (fd >= 0)
                close(fd);
        mi[MAX(n, (ssize_t)0)] = '\0';
        cg_dir[0] = '\0';
        if (geteuid() != 0 || cgroup_mount_parse(mi, NULL, dir, sizeof(dir), root, sizeof(root)) < 0 ||
            !streq(root, "/"))
                return 0;
        snprintf(cg_dir, sizeof(cg_dir), "%s/mayhem-rlimit-%d", dir, (int)getpid());
        if (mkdir(cg_dir, 0755) < 0) {
                cg_dir[0] = '\0';
                return 0;
        }
        assert_int_equal(pipe2(cmd, O_CLOEXEC), 0);
        assert_int_equal(pipe2(reply, O_CLOEXEC), 0);
        v.pid = fork();
        assert_true(v.pid >= 0);
        if (v.pid == 0)
                victim_main(cmd[0], reply[1]);
        close(cmd[0]);
        close(reply[1]);
        v.cmd = cmd[1];
        v.reply = reply[0];
        write_pid(cg_dir, v.pid);
        *state = &v;
        return 0;
}

static void reap(pid_t pid) {
        if (pid <= 0)
                return;
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

static int teardown(void **state) {
        if (v.grandchild > 0)
                kill(v.grandchild, SIGKILL);
        if (v.orphan > 0)
                kill(v.orphan, SIGKILL);
        v.grandchild = v.orphan = -1;
        reap(v.pid);
        if (v.cmd >= 0)
                close(v.cmd);
        if (v.reply >= 0)
                close(v.reply);
        for (int i = 0; i < 100 && cg_dir[0] && rmdir(cg_dir) < 0 && errno == EBUSY; i++)
                sleep_ms(10);
        return 0;
}

static struct fault_exec fx_engine(json_t *params, json_t *restore, const char *engine) {
        struct fault_exec fx = { .lease_id = LEASE, .restore = restore };
        struct mh_error e = { 0 };
        if (fault_exec_bind(&fx, catalog_find("fd.exhaust"), params, NULL, &e) < 0)
                fail_msg("bind: %s", e.msg);
        snprintf(fx.target.engine, sizeof(fx.target.engine), "%s", engine);
        snprintf(fx.target.container_name, sizeof(fx.target.container_name), "rlimit-victim");
        if (proc_identity_read(v.pid, &fx.target.main, &e) < 0)
                fail_msg("victim: %s", e.msg);
        return fx;
}

/* A container-like target: the victim's cgroup. */
static struct fault_exec fx_of(json_t *params, json_t *restore) {
        return fx_engine(params, restore, "docker");
}

static void expect_limits(pid_t pid, long soft, long hard) {
        long s, h;
        limits_of(pid, &s, &h);
        assert_int_equal(s, soft);
        assert_int_equal(h, hard);
}

/* limit 5: five more opens succeed inside the victim, the sixth gets EMFILE. */
static void expect_headroom(int limit) {
        for (int i = 0; i < limit; i++)
                assert_int_equal(ask('o'), 0);
        assert_int_equal(ask('o'), EMFILE);
}

static void check(const struct fault_exec *fx, bool effect, bool want) {
        char detail[FAULT_DETAIL_MAX] = "";
        bool ok = !want;
        const char *name = effect ? "rlimit.nofile_lowered" : "rlimit.nofile_restored";
        int r = effect ? fault_effect_run(fx, name, &ok, detail, sizeof(detail))
                       : fault_verify_run(fx, name, &ok, detail, sizeof(detail));
        fprintf(stderr, "%s: %s\n", name, detail);
        assert_true(r >= 0);
        assert_true(ok == want);
}

static void test_apply_undo(void **state) {
        if (!cg_dir[0])
                SKIP("not root, or no cgroup2 hierarchy to make a cgroup in");
        json_t *params = json_pack("{s:i, s:s}", "limit", 5, "mode", "exhaust"), *restore = json_object();
        struct fault_exec fx = fx_of(params, restore);
        struct mh_error e = { 0 };
        expect_limits(v.pid, OLD_SOFT, OLD_HARD);
        double t0 = monotonic_ms();
        if (fx.mech->apply(&fx, &e) < 0)
                fail_msg("apply: %s", e.msg);
        fprintf(stderr, "apply: %.2f ms\n", monotonic_ms() - t0);
        check(&fx, true, true);
        v.orphan = ask('g'); /* before the headroom is used up: it needs a pipe */
        assert_true(v.orphan > 0);
        expect_headroom(5);
        long soft, hard;
        limits_of(v.pid, &soft, &hard);
        assert_true(soft < OLD_SOFT);
        /* The hard limit is lowered too only when it can be raised back. */
        assert_true(hard == (nofile_can_raise_hard() ? soft : OLD_HARD));
        fprintf(stderr, "lowered to %ld/%ld (hard %s)\n", soft, hard, hard == soft ? "lowered" : "kept");
        v.grandchild = ask('f');
        assert_true(v.grandchild > 0);
        expect_limits(v.grandchild, soft, hard); /* inherited */
        expect_limits(v.orphan, soft, hard);
        check(&fx, false, false);

        const char *undo[] = { "rlimit.restore_nofile" };
        t0 = monotonic_ms();
        if (fault_undo_run(&fx, undo, 1, &e) < 0)
                fail_msg("undo: %s", e.msg);
        fprintf(stderr, "undo: %.2f ms\n", monotonic_ms() - t0);
        expect_limits(v.pid, OLD_SOFT, OLD_HARD);
        expect_limits(v.grandchild, OLD_SOFT, OLD_HARD);
        expect_limits(v.orphan, OLD_SOFT, OLD_HARD); /* no recorded ancestor left: by its limits */
        check(&fx, false, true);
        assert_int_equal(ask('o'), 0);            /* opens work again */
        if (fault_undo_run(&fx, undo, 1, &e) < 0) /* idempotent */
                fail_msg("undo again: %s", e.msg);
        json_decref(params);
        json_decref(restore);
}

static int journal_record(const struct fault_exec *fx, void *userdata, struct mh_error *reterr) {
        return agent_journal_put(userdata, fx->lease_id, fx->def, &fx->target, fx->restore, reterr);
}

/* The applying process exits; a fresh one undoes from the journal's record alone. */
static void test_recover(void **state) {
        if (!cg_dir[0])
                SKIP("not root, or no cgroup2 hierarchy to make a cgroup in");
        char dir[] = "/tmp/mayhem-rlimit-journal-XXXXXX", msg[256];
        struct agent_journal *j = NULL;
        assert_non_null(mkdtemp(dir));
        assert_int_equal(agent_journal_open(dir, &j, msg, sizeof(msg)), 0);
        json_t *params = json_pack("{s:i, s:s}", "limit", 3, "mode", "exhaust");
        pid_t agent = fork();
        assert_true(agent >= 0);
        if (agent == 0) {
                struct fault_exec fx = fx_of(params, json_object());
                struct mh_error e = { 0 };
                fx.record = journal_record;
                fx.record_userdata = j;
                if (fx.mech->apply(&fx, &e) < 0) {
                        fprintf(stderr, "apply in the first agent: %s\n", e.msg);
                        _exit(1);
                }
                _exit(0);
        }
        int status;
        assert_int_equal(waitpid(agent, &status, 0), agent);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        expect_headroom(3);

        struct target_identity target;
        json_t *restore = NULL;
        bool settled;
        struct mh_error e = { 0 };
        if (agent_journal_get(j, LEASE, catalog_find("fd.exhaust"), &target, &restore, &settled, &e) < 0)
                fail_msg("journal: %s", e.msg);
        struct fault_exec fx = fx_of(params, restore);
        fx.target = target;
        const char *undo[] = { "rlimit.restore_nofile" };
        if (fault_undo_run(&fx, undo, 1, &e) < 0)
                fail_msg("recover: %s", e.msg);
        expect_limits(v.pid, OLD_SOFT, OLD_HARD);
        check(&fx, false, true);
        json_decref(restore);
        json_decref(params);
        agent_journal_drop(j, LEASE);
        agent_journal_close(j);
        rmdir(dir);
}

/* A host process: the victim and the child it had when the fault started are
 * lowered; a child forked during the fault inherits, and all are put back. */
static void test_host_tree(void **state) {
        if (!cg_dir[0])
                SKIP("not root, or no cgroup2 hierarchy to make a cgroup in");
        json_t *params = json_pack("{s:i, s:s}", "limit", 2, "mode", "exhaust"), *restore = json_object();
        struct mh_error e = { 0 };
        pid_t before = ask('f');
        assert_true(before > 0);
        struct fault_exec fx = fx_engine(params, restore, "host");
        if (fx.mech->apply(&fx, &e) < 0)
                fail_msg("apply: %s", e.msg);
        assert_int_equal(json_array_size(json_object_get(restore, "nofile")), 2);
        long soft, hard, csoft, chard;
        limits_of(v.pid, &soft, &hard);
        limits_of(before, &csoft, &chard);
        assert_true(soft < OLD_SOFT && csoft < OLD_SOFT);
        expect_headroom(2);
        v.grandchild = ask('f');
        expect_limits(v.grandchild, soft, hard);
        const char *undo[] = { "rlimit.restore_nofile" };
        if (fault_undo_run(&fx, undo, 1, &e) < 0)
                fail_msg("undo: %s", e.msg);
        expect_limits(v.pid, OLD_SOFT, OLD_HARD);
        expect_limits(before, OLD_SOFT, OLD_HARD);
        expect_limits(v.grandchild, OLD_SOFT, OLD_HARD);
        check(&fx, false, true);
        kill(before, SIGKILL);
        json_decref(params);
        json_decref(restore);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_apply_undo, setup, teardown),
                cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
                cmocka_unit_test_setup_teardown(test_host_tree, setup, teardown),
        };
        if (geteuid() != 0) {
                fprintf(stderr, "not root: skipped\n");
                return 77;
        }
        return cmocka_run_group_tests(tests, NULL, NULL);
}
