/* fs.read_only against a victim of the test's own: a child in a new mount
 * namespace (private propagation) with a tmpfs at a temporary directory
 * that only it sees. The fault is applied through its mechanism as the
 * agent applies it; every effect is measured from inside the victim's
 * namespace (a forked helper, sys/ns.h), and the host's mount table is
 * compared before and after. No container, no dockerd. Not root: exit 77. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-journal.h"
#include "basic/clock.h"
#include "basic/macro.h"
#include "common/fault-params.h"
#include "fault/fault.h"
#include "sys/mountinfo.h"
#include "sys/ns.h"

#define TIMEOUT_MS 5000
#define TEXT_MAX   (1u << 20)

static char dir[64];       /* the tmpfs, in the victim's namespace only */
static char state_dir[64]; /* the stand-in agent's journal */
static pid_t victim = -1;
static struct proc_identity target;

static int victim_main(int ready) {
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("mayhem-test", dir, "tmpfs", 0, "size=1m") < 0)
                return 1;
        (void)!write(ready, "k", 1);
        close(ready);
        for (int i = 0; i < 3000; i++) /* bounded: 300 s */
                usleep(100000);
        return 0;
}

static size_t read_text(const char *path, char *buf, size_t size) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t len = 0;
        ssize_t n;
        assert_true(fd >= 0);
        while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
                len += (size_t)n;
        close(fd);
        buf[len] = '\0';
        return len;
}

/* The host's mount table changed for none of its mounts: every mount of
 * before is still there with the same mount point and flags, and no mount
 * was added at the fault's path (dockerd may add and remove others meanwhile). */
static void assert_host_unchanged(const char *before, const char *after, const char *path) {
        static struct mountinfo_entry a, b;
        for (const char *p = before; *p;) {
                const char *nl = strchr(p, '\n'), *eol = nl ? nl : p + strlen(p);
                if (mountinfo_parse_line(p, (size_t)(eol - p), &b) == 0 &&
                    mountinfo_find(after, strlen(after), b.id, &a) == 1 &&
                    (strcmp(a.point, b.point) != 0 || a.read_only != b.read_only))
                        fail_msg("host mount %s changed", b.point);
                p = nl ? nl + 1 : eol;
        }
        char needle[128];
        snprintf(needle, sizeof(needle), " %s ", path);
        assert_int_equal(!!strstr(before, needle), !!strstr(after, needle));
}

/* ---- inside the victim ---- */

struct write_arg {
        const char *path;
        bool keep; /* hand the descriptor back (ns_run_fd) */
};

static int write_in(void *userdata, char *out, size_t *out_len, int *ret_fd) {
        const struct write_arg *a = userdata;
        *out_len = 0;
        int fd = open(a->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        if (write(fd, "x", 1) != 1) {
                close(fd);
                return -EIO;
        }
        if (a->keep)
                *ret_fd = fd;
        else
                close(fd);
        return 0;
}

/* A new file written in the victim: 0 or -errno (EROFS when the fault holds). */
static int victim_write(const char *name, int *ret_fd) {
        char path[128];
        struct mh_error e = { 0 };
        struct write_arg a = { .path = path, .keep = ret_fd != NULL };
        int res = 1;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (ns_run_fd(&target, NS_BIT(NS_MNT), write_in, &a, TIMEOUT_MS, NULL, NULL, &res, ret_fd, &e) < 0)
                fail_msg("entering the victim: %s", e.msg);
        return res;
}

static size_t victim_mountinfo(char *buf, size_t size) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)victim);
        return read_text(path, buf, size);
}

/* ---- the fault ---- */

struct lease {
        json_t *params, *restore;
};

static struct fault_exec fx_of(const char *path, struct lease *l, json_t *restore) {
        struct fault_exec fx = { .lease_id = "l-00000000000000f1" };
        struct mh_error e = { 0 };
        char over[128];
        const struct fault_def *def = catalog_find("fs.read_only");
        snprintf(over, sizeof(over), "{\"path\":\"%s\"}", path);
        l->params = fault_params_defaults(def, over);
        l->restore = restore ? restore : json_object();
        fx.restore = l->restore;
        if (!l->params || fault_exec_bind(&fx, def, l->params, NULL, &e) < 0)
                fail_msg("binding fs.read_only %s: %s", path, e.msg);
        assert_non_null(fx.mech);
        snprintf(fx.target.engine, sizeof(fx.target.engine), "host");
        snprintf(fx.target.container_name, sizeof(fx.target.container_name), "victim %d", (int)victim);
        fx.target.main = target;
        return fx;
}

static void lease_done(struct lease *l) {
        json_decref(l->params);
        json_decref(l->restore);
}

static int undo(const struct fault_exec *fx, struct mh_error *e) {
        return fault_undo_run(fx, fx->def->comp.undo, fault_comp_n_undo(&fx->def->comp), e);
}

/* A record as text, for the log. */
static void print_record(const char *what, const json_t *j) {
        char *text = json_dumps(j, JSON_COMPACT);
        print_message("%s %s\n", what, text ? text : "?");
        free(text);
}

static bool look(const struct fault_exec *fx, bool effect, int *ret_r) {
        char detail[FAULT_DETAIL_MAX] = "";
        bool ok = false;
        int r = effect ? fault_effect_run(fx, fx->def->comp.effect, &ok, detail, sizeof(detail))
                       : fault_verify_run(fx, fx->def->comp.verify[0], &ok, detail, sizeof(detail));
        print_message("%s: %s -> %s (%d)\n", effect ? "effect" : "verify", detail, ok ? "true" : "false", r);
        if (ret_r)
                *ret_r = r;
        return ok;
}

/* ---- cases ---- */

/* Read-only in the victim, writable again after undo; a descriptor opened
 * before keeps writing; the host's mount table never changes. */
static void test_read_only_and_back(void **state) {
        static char host_before[TEXT_MAX], host_after[TEXT_MAX], v_before[TEXT_MAX], v_after[TEXT_MAX];
        struct mh_error e = { 0 };
        struct lease l;
        int r, open_before = -EBADF;
        read_text("/proc/self/mountinfo", host_before, sizeof(host_before));
        victim_mountinfo(v_before, sizeof(v_before));
        assert_int_equal(victim_write("before", &open_before), 0);
        assert_true(open_before >= 0);

        struct fault_exec fx = fx_of(dir, &l, NULL);
        double t0 = monotonic_ms();
        if (fx.mech->apply(&fx, &e) < 0)
                fail_msg("apply: %s", e.msg);
        print_message("applied in %.1f ms\n", monotonic_ms() - t0);
        print_record("restore", fx.restore);
        assert_int_equal(victim_write("during", NULL), -EROFS);
        assert_int_equal(write(open_before, "y", 1), 1); /* open before: keeps writing */
        assert_true(look(&fx, true, &r));
        assert_int_equal(r, 0); /* the effect itself, not "unobserved" */
        assert_false(look(&fx, false, NULL));
        read_text("/proc/self/mountinfo", host_after, sizeof(host_after));
        assert_host_unchanged(host_before, host_after, dir);

        struct lease again;
        struct fault_exec fx2 = fx_of(dir, &again, NULL);
        assert_int_equal(fx2.mech->apply(&fx2, &e), -EALREADY); /* nothing to change: refused */
        print_message("second apply: %s\n", e.msg);
        lease_done(&again);

        t0 = monotonic_ms();
        if (undo(&fx, &e) < 0)
                fail_msg("undo: %s", e.msg);
        print_message("undone in %.1f ms\n", monotonic_ms() - t0);
        assert_int_equal(victim_write("after", NULL), 0);
        assert_true(look(&fx, false, NULL));
        assert_false(look(&fx, true, NULL));
        assert_int_equal(undo(&fx, &e), 0); /* idempotent */
        victim_mountinfo(v_after, sizeof(v_after));
        assert_string_equal(v_before, v_after);
        read_text("/proc/self/mountinfo", host_after, sizeof(host_after));
        assert_host_unchanged(host_before, host_after, dir);
        close(open_before);
        lease_done(&l);
}

/* The default path "/": the victim's own copy of the host's root mount goes
 * read-only, the host's stays writable. */
static void test_root_is_the_victims_only(void **state) {
        static char host_before[TEXT_MAX], host_after[TEXT_MAX];
        struct mh_error e = { 0 };
        struct lease l;
        char probe[64];
        read_text("/proc/self/mountinfo", host_before, sizeof(host_before));
        struct fault_exec fx = fx_of("/", &l, NULL);
        if (fx.mech->apply(&fx, &e) < 0)
                fail_msg("apply /: %s", e.msg);
        assert_true(look(&fx, true, NULL));
        snprintf(probe, sizeof(probe), "/tmp/mayhem-ro-host-%d", (int)getpid());
        int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        int host_err = fd < 0 ? errno : 0;
        if (fd >= 0) {
                close(fd);
                unlink(probe);
        }
        if (undo(&fx, &e) < 0)
                fail_msg("undo /: %s", e.msg);
        assert_int_equal(host_err, 0); /* the host wrote while the victim could not */
        assert_true(look(&fx, false, NULL));
        read_text("/proc/self/mountinfo", host_after, sizeof(host_after));
        assert_host_unchanged(host_before, host_after, "/");
        lease_done(&l);
}

static int record_put(const struct fault_exec *fx, void *userdata, struct mh_error *reterr) {
        return agent_journal_put(userdata, fx->lease_id, fx->def, &fx->target, fx->restore, reterr);
}

/* A stand-in agent applies with the agent's journal as its record and is
 * SIGKILLed: the mount stays read-only (kernel state, no holder), and a
 * fresh undo from the journal alone puts it back; no residue. */
static void test_recover_after_kill(void **state) {
        static char v_before[TEXT_MAX], v_after[TEXT_MAX];
        struct mh_error e = { 0 };
        int p[2];
        char buf[512] = "";
        victim_mountinfo(v_before, sizeof(v_before));
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t agent = fork();
        assert_true(agent >= 0);
        if (agent == 0) {
                struct agent_journal *j = NULL;
                struct lease l;
                char msg[256];
                close(p[0]);
                if (agent_journal_open(state_dir, &j, msg, sizeof(msg)) < 0) {
                        dprintf(p[1], "journal: %s", msg);
                        _exit(1);
                }
                struct fault_exec fx = fx_of(dir, &l, NULL);
                fx.record = record_put;
                fx.record_userdata = j;
                if (fx.mech->apply(&fx, &e) < 0) {
                        dprintf(p[1], "apply: %s", e.msg);
                        _exit(1);
                }
                dprintf(p[1], "ok");
                close(p[1]);
                pause();
                _exit(0);
        }
        close(p[1]);
        ssize_t n = read(p[0], buf, sizeof(buf) - 1);
        close(p[0]);
        if (n <= 0 || strncmp(buf, "ok", 2) != 0)
                fail_msg("stand-in: %s", buf);
        kill(agent, SIGKILL);
        waitpid(agent, NULL, 0);
        assert_int_equal(victim_write("orphaned", NULL), -EROFS); /* outlives the agent */

        struct agent_journal *j = NULL;
        struct target_identity t;
        json_t *restore = NULL;
        bool settled = true;
        char msg[256];
        assert_int_equal(agent_journal_open(state_dir, &j, msg, sizeof(msg)), 0);
        if (agent_journal_get(
                    j, "l-00000000000000f1", catalog_find("fs.read_only"), &t, &restore, &settled, &e) < 0)
                fail_msg("journal: %s", e.msg);
        assert_false(settled);
        print_record("recovering from the record", restore);
        struct lease l;
        struct fault_exec fx = fx_of(dir, &l, restore);
        fx.target = t;
        double t0 = monotonic_ms();
        if (undo(&fx, &e) < 0)
                fail_msg("recover: %s", e.msg);
        print_message("recovered in %.1f ms\n", monotonic_ms() - t0);
        assert_true(look(&fx, false, NULL));
        assert_int_equal(victim_write("recovered", NULL), 0);
        victim_mountinfo(v_after, sizeof(v_after));
        assert_string_equal(v_before, v_after); /* residue: no mount flag of ours left */
        assert_int_equal(agent_journal_drop(j, "l-00000000000000f1"), 0);
        agent_journal_close(j);
        lease_done(&l);
}

/* A target in the test's own mount namespace is the host's: refused, nothing changed. */
static void test_refuses_the_host_namespace(void **state) {
        static char host_before[TEXT_MAX], host_after[TEXT_MAX];
        struct mh_error e = { 0 };
        struct lease l;
        read_text("/proc/self/mountinfo", host_before, sizeof(host_before));
        struct fault_exec fx = fx_of("/", &l, NULL);
        assert_int_equal(proc_identity_read(getpid(), &fx.target.main, NULL), 0);
        assert_int_equal(fx.mech->apply(&fx, &e), -EPERM);
        print_message("refused: %s\n", e.msg);
        assert_int_equal(json_object_size(fx.restore), 0);
        read_text("/proc/self/mountinfo", host_after, sizeof(host_after));
        assert_host_unchanged(host_before, host_after, "/");
        lease_done(&l);
}

static int make_propagation(void *userdata, char *out, size_t *out_len, int *ret_fd) {
        *out_len = 0;
        return mount(NULL, dir, NULL, *(const unsigned long *)userdata, NULL) < 0 ? -errno : 0;
}

static void victim_propagation(unsigned long flag) {
        struct mh_error e = { 0 };
        int res = 1;
        if (ns_run_fd(
                    &target, NS_BIT(NS_MNT), make_propagation, &flag, TIMEOUT_MS, NULL, NULL, &res, NULL,
                    &e) < 0)
                fail_msg("entering the victim: %s", e.msg);
        assert_int_equal(res, 0);
}

/* A path on a shared mount: a mount over it would propagate to its peers. */
static void test_refuses_a_shared_mount(void **state) {
        static char v_before[TEXT_MAX], v_after[TEXT_MAX];
        struct mh_error e = { 0 };
        struct lease l;
        victim_propagation(MS_SHARED);
        victim_mountinfo(v_before, sizeof(v_before));
        struct fault_exec fx = fx_of(dir, &l, NULL);
        int r = fx.mech->apply(&fx, &e);
        victim_mountinfo(v_after, sizeof(v_after));
        victim_propagation(MS_PRIVATE);
        assert_int_equal(r, -EPERM);
        print_message("refused: %s\n", e.msg);
        assert_string_equal(v_before, v_after);
        assert_int_equal(victim_write("shared", NULL), 0);
        lease_done(&l);
}

/* "/" with a file on it open for writing: the kernel keeps it writable
 * (EBUSY), the fault says so, nothing changed, and undo finds nothing. */
static void test_root_with_a_writer_is_refused(void **state) {
        struct mh_error e = { 0 };
        struct lease l;
        char path[96];
        int fd = -EBADF, res = 1;
        snprintf(path, sizeof(path), "/tmp/mayhem-ro-writer-%d", (int)getpid());
        struct write_arg a = { .path = path, .keep = true };
        if (ns_run_fd(&target, NS_BIT(NS_MNT), write_in, &a, TIMEOUT_MS, NULL, NULL, &res, &fd, &e) < 0)
                fail_msg("entering the victim: %s", e.msg);
        assert_int_equal(res, 0);
        struct fault_exec fx = fx_of("/", &l, NULL);
        assert_int_equal(fx.mech->apply(&fx, &e), -EBUSY);
        print_message("refused: %s\n", e.msg);
        assert_true(look(&fx, false, NULL));
        assert_int_equal(undo(&fx, &e), 0);
        assert_int_equal(write(fd, "z", 1), 1);
        close(fd);
        unlink(path);
        lease_done(&l);
}

/* ---- setup ---- */

static int setup(void **state) {
        int p[2];
        char c;
        snprintf(dir, sizeof(dir), "/tmp/mayhem-ro-XXXXXX");
        snprintf(state_dir, sizeof(state_dir), "/tmp/mayhem-ro-state-XXXXXX");
        if (!mkdtemp(dir) || !mkdtemp(state_dir) || pipe2(p, O_CLOEXEC) < 0)
                return -1;
        victim = fork();
        if (victim == 0) {
                close(p[0]);
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                        _exit(1);
                _exit(victim_main(p[1]));
        }
        close(p[1]);
        if (victim < 0 || read(p[0], &c, 1) != 1 || proc_identity_read(victim, &target, NULL) < 0)
                return -1;
        close(p[0]);
        return 0;
}

static int teardown(void **state) {
        if (victim > 0) {
                kill(victim, SIGKILL);
                waitpid(victim, NULL, 0);
        }
        rmdir(dir);       /* the tmpfs went with the victim's namespace */
        rmdir(state_dir); /* empty: the record was dropped */
        return 0;
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: needs root\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_read_only_and_back),
                cmocka_unit_test(test_root_is_the_victims_only),
                cmocka_unit_test(test_recover_after_kill),
                cmocka_unit_test(test_refuses_the_host_namespace),
                cmocka_unit_test(test_refuses_a_shared_mount),
                cmocka_unit_test(test_root_with_a_writer_is_refused),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
