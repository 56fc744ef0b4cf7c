#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/error.h"
#include "basic/macro.h"
#include "sys/cgroup.h"
#include "sys/cgroup-pids.h"
#include "sys/nft.h"
#include "sys/ns.h"
#include "sys/process.h"

/* Processes, namespaces and cgroups without privileges: forked children of
 * our own, ns_run() with an empty namespace mask, and the cgroup parsers on
 * canned text. tests/priv/ does the rest as root. */

#define WAIT_MS 5000

/* A child that waits for signals until killed. */
static pid_t child_sleeper(void) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                for (;;)
                        pause();
        }
        return pid;
}

static void child_kill(pid_t pid) {
        int status;
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
}

/* Waits until the process is in state want (or, with negate, leaves it). */
static bool wait_state(const struct proc_identity *id, char want, bool negate) {
        for (double end = monotonic_ms() + WAIT_MS; monotonic_ms() < end; sleep_ms(5)) {
                char s;
                if (proc_state(id, &s, NULL) < 0)
                        return false;
                if ((s == want) != negate)
                        return true;
        }
        return false;
}

/* ---- process identity ---- */

static void test_identity_of_child(void **state) {
        struct proc_identity self, id, again;
        pid_t pid = child_sleeper();

        assert_int_equal(proc_identity_read(getpid(), &self, NULL), 0);
        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        assert_int_equal(id.pid, pid);
        assert_true(id.start_time >= self.start_time);
        assert_int_equal(proc_identity_read(pid, &again, NULL), 0);
        assert_true(again.start_time == id.start_time);

        int fd = -1;
        assert_int_equal(proc_pidfd_open(&id, &fd, NULL), 0);
        assert_true(fd >= 0);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        assert_int_equal(proc_pidfd_wait_exit(fd, 0), 0);
        kill(pid, SIGKILL);
        assert_int_equal(proc_pidfd_wait_exit(fd, WAIT_MS), 1);
        close(fd);
        child_kill(pid);

        struct mh_error e = { 0 };
        assert_int_equal(proc_identity_read(0, &id, &e), -EINVAL);
        assert_int_equal(proc_identity_read(-5, &id, NULL), -EINVAL);
}

static void test_stop_cont(void **state) {
        struct proc_identity id;
        pid_t pid = child_sleeper();
        char s;

        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        assert_true(wait_state(&id, 'S', false));
        assert_int_equal(proc_signal(&id, SIGSTOP, NULL), 0);
        assert_true(wait_state(&id, 'T', false));
        assert_int_equal(proc_state(&id, &s, NULL), 0);
        assert_int_equal(s, 'T');
        assert_int_equal(proc_signal(&id, SIGCONT, NULL), 0);
        assert_true(wait_state(&id, 'T', true));
        assert_int_equal(proc_state(&id, &s, NULL), 0);
        assert_true(s == 'S' || s == 'R');
        child_kill(pid);
}

static void test_reaped_child_is_gone(void **state) {
        struct proc_identity id;
        struct mh_error e = { 0 };
        int p[2], fd = -1, status;
        char s;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char c;
                close(p[1]);
                (void)read(p[0], &c, 1); /* until the parent closes its end */
                _exit(0);
        }
        close(p[0]);
        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        close(p[1]);
        assert_int_equal(waitpid(pid, &status, 0), pid);

        assert_int_equal(proc_signal(&id, SIGKILL, &e), -ESRCH);
        assert_string_equal(e.id, "process_gone");
        assert_int_equal(proc_state(&id, &s, NULL), -ESRCH);
        assert_int_equal(proc_pidfd_open(&id, &fd, NULL), -ESRCH);
        assert_int_equal(fd, -1);
        assert_int_equal(proc_identity_read(pid, &id, NULL), -ESRCH);
}

static void test_wrong_start_time(void **state) {
        struct proc_identity id, fake;
        struct mh_error e = { 0 };
        pid_t pid = child_sleeper();
        char s;

        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        assert_true(wait_state(&id, 'S', false));
        fake = id;
        fake.start_time = id.start_time + 1;
        assert_int_equal(proc_signal(&fake, SIGSTOP, &e), -ESRCH);
        assert_string_equal(e.id, "process_gone");
        assert_int_equal(proc_signal(&fake, SIGKILL, NULL), -ESRCH);
        assert_int_equal(proc_state(&fake, &s, NULL), -ESRCH);
        fake.start_time = id.start_time - 1;
        assert_int_equal(proc_signal(&fake, SIGKILL, NULL), -ESRCH);

        /* Nothing was delivered: still alive, not stopped. */
        sleep_ms(50);
        assert_int_equal(waitpid(pid, NULL, WNOHANG), 0);
        assert_int_equal(proc_state(&id, &s, NULL), 0);
        assert_true(s == 'S' || s == 'R');
        child_kill(pid);
}

/* ---- ns_run without entering anything ---- */

static int fn_hello(void *arg, char *out, size_t *out_len) {
        int n = snprintf(out, *out_len, "hello from %d", (int)getpid());
        *out_len = (size_t)n;
        return 42;
}

static void test_ns_run_result(void **state) {
        char out[NS_RESULT_MAX];
        size_t len = 0;
        int result = 0;
        char want[64];

        assert_int_equal(ns_run(NULL, 0, fn_hello, NULL, WAIT_MS, out, &len, &result, NULL), 0);
        assert_int_equal(result, 42);
        assert_true(len > 0 && len < sizeof(out));
        out[len] = '\0';
        snprintf(want, sizeof(want), "hello from %d", (int)getpid());
        assert_string_not_equal(out, want); /* it ran in another process */
        assert_memory_equal(out, "hello from ", 11);
        /* No output wanted: fine too. */
        assert_int_equal(ns_run(NULL, 0, fn_hello, NULL, WAIT_MS, NULL, NULL, &result, NULL), 0);
        assert_int_equal(result, 42);
}

static int fn_fail(void *arg, char *out, size_t *out_len) {
        *out_len = 0;
        return -ENOENT;
}

static void test_ns_run_negative_result(void **state) {
        size_t len = 99;
        int result = 0;
        assert_int_equal(ns_run(NULL, 0, fn_fail, NULL, WAIT_MS, NULL, &len, &result, NULL), 0);
        assert_int_equal(result, -ENOENT);
        assert_int_equal(len, 0);
}

static int fn_full(void *arg, char *out, size_t *out_len) {
        if (*out_len != NS_RESULT_MAX)
                return -1;
        for (size_t i = 0; i < NS_RESULT_MAX; i++)
                out[i] = (char)(i * 7 + 3);
        return 0;
}

static void test_ns_run_full_output(void **state) {
        char out[NS_RESULT_MAX];
        size_t len = 0;
        int result = -1;
        assert_int_equal(ns_run(NULL, 0, fn_full, NULL, WAIT_MS, out, &len, &result, NULL), 0);
        assert_int_equal(len, NS_RESULT_MAX);
        for (size_t i = 0; i < NS_RESULT_MAX; i++)
                assert_int_equal(out[i], (char)(i * 7 + 3));
}

static int fn_oversize(void *arg, char *out, size_t *out_len) {
        *out_len = NS_RESULT_MAX + 1;
        return 0;
}

static void test_ns_run_oversize(void **state) {
        struct mh_error e = { 0 };
        int result = 7;
        assert_int_equal(ns_run(NULL, 0, fn_oversize, NULL, WAIT_MS, NULL, NULL, &result, &e), -EPROTO);
        assert_int_equal(result, 7); /* untouched on failure */
        assert_non_null(strstr(e.msg, "4096"));
}

static int fn_crash(void *arg, char *out, size_t *out_len) {
        raise(SIGKILL);
        return 0;
}

static void test_ns_run_crash(void **state) {
        struct mh_error e = { 0 };
        assert_int_equal(ns_run(NULL, 0, fn_crash, NULL, WAIT_MS, NULL, NULL, NULL, &e), -ECHILD);
        assert_non_null(strstr(e.msg, "signal 9"));
}

static int fn_sleep(void *arg, char *out, size_t *out_len) {
        int fd = *(int *)arg;
        pid_t me = getpid();
        (void)write(fd, &me, sizeof(me));
        sleep(30);
        return 0;
}

static void test_ns_run_timeout(void **state) {
        struct mh_error e = { 0 };
        int p[2];
        pid_t child = 0;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        double start = monotonic_ms();
        assert_int_equal(ns_run(NULL, 0, fn_sleep, &p[1], 300, NULL, NULL, NULL, &e), -ETIMEDOUT);
        double took = monotonic_ms() - start;
        assert_true(took >= 250 && took < 5000);
        assert_string_equal(e.id, "timeout");
        assert_int_equal(read(p[0], &child, sizeof(child)), (ssize_t)sizeof(child));
        assert_true(child > 0 && child != getpid());
        /* Killed and reaped: the pid is free (not even a zombie). */
        assert_int_equal(kill(child, 0), -1);
        assert_int_equal(errno, ESRCH);
        close(p[0]);
        close(p[1]);
}

static void test_ns_run_invalid(void **state) {
        struct proc_identity self;
        assert_int_equal(proc_identity_read(getpid(), &self, NULL), 0);
        assert_int_equal(ns_run(NULL, 0, NULL, NULL, WAIT_MS, NULL, NULL, NULL, NULL), -EINVAL);
        assert_int_equal(ns_run(NULL, 0, fn_hello, NULL, 0, NULL, NULL, NULL, NULL), -EINVAL);
        assert_int_equal(ns_run(NULL, 0, fn_hello, NULL, -1, NULL, NULL, NULL, NULL), -EINVAL);
        assert_int_equal(
                ns_run(NULL, NS_BIT(NS_NET), fn_hello, NULL, WAIT_MS, NULL, NULL, NULL, NULL), -EINVAL);
        assert_int_equal(ns_run(&self, 1u << 12, fn_hello, NULL, WAIT_MS, NULL, NULL, NULL, NULL), -EINVAL);
}

static void test_ns_run_gone_target(void **state) {
        struct proc_identity id;
        struct mh_error e = { 0 };
        pid_t pid = child_sleeper();
        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        child_kill(pid);
        assert_int_equal(ns_run(&id, NS_BIT(NS_NET), fn_hello, NULL, WAIT_MS, NULL, NULL, NULL, &e), -ESRCH);
        assert_string_equal(e.id, "process_gone");
}

static int fn_pass_pipe(void *arg, char *out, size_t *out_len, int *ret_fd) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        (void)write(p[1], "x", 1);
        close(p[1]);
        *ret_fd = p[0];
        *out_len = 0;
        return 0;
}

static int fn_pass_nothing(void *arg, char *out, size_t *out_len, int *ret_fd) {
        *out_len = 0;
        return 5;
}

static void test_ns_run_fd(void **state) {
        int fd = -1, result = -1;
        char c = 0;
        assert_int_equal(ns_run_fd(NULL, 0, fn_pass_pipe, NULL, WAIT_MS, NULL, NULL, &result, &fd, NULL), 0);
        assert_int_equal(result, 0);
        assert_true(fd >= 0);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        assert_int_equal(read(fd, &c, 1), 1);
        assert_int_equal(c, 'x');
        assert_int_equal(read(fd, &c, 1), 0); /* the child's write end is gone */
        close(fd);

        assert_int_equal(
                ns_run_fd(NULL, 0, fn_pass_nothing, NULL, WAIT_MS, NULL, NULL, &result, &fd, NULL), 0);
        assert_int_equal(result, 5);
        assert_int_equal(fd, -EBADF);
        /* A descriptor nobody asked for is closed, not leaked. */
        assert_int_equal(
                ns_run_fd(NULL, 0, fn_pass_pipe, NULL, WAIT_MS, NULL, NULL, &result, NULL, NULL), 0);
}

static void test_ns_inode_self(void **state) {
        struct proc_identity self, id;
        for (int k = 0; k < _NS_KIND_MAX; k++) {
                char path[64];
                struct stat st;
                uint64_t ino = 0;
                snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_kind_to_string(k));
                assert_int_equal(stat(path, &st), 0);
                assert_int_equal(proc_identity_read(getpid(), &self, NULL), 0);
                assert_int_equal(ns_inode(&self, k, &ino, NULL), 0);
                assert_true(ino == (uint64_t)st.st_ino);
        }
        pid_t pid = child_sleeper();
        uint64_t ino = 0;
        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        child_kill(pid);
        assert_int_equal(ns_inode(&id, NS_NET, &ino, NULL), -ESRCH);
        assert_true(ino == 0);
        assert_int_equal(ns_inode(&self, _NS_KIND_MAX, &ino, NULL), -EINVAL);
}

static void test_ns_kind_strings(void **state) {
        static const char *const names[] = { "net", "mnt", "pid", "uts", "ipc", "cgroup" };
        for (int k = 0; k < _NS_KIND_MAX; k++) {
                assert_string_equal(ns_kind_to_string(k), names[k]);
                assert_int_equal(ns_kind_from_string(names[k]), k);
        }
        assert_null(ns_kind_to_string(_NS_KIND_MAX));
        assert_int_equal(ns_kind_from_string("user"), -EINVAL);
        assert_int_equal(ns_kind_from_string(NULL), -EINVAL);
}

/* ---- cgroup parsers ---- */

/* pids.max: "max" or a count, the same on v1 and v2. */
static void test_cgroup_pids_max(void **state) {
        int64_t v = 0;
        assert_int_equal(cgroup_pids_max_parse("max", &v), 0);
        assert_int_equal(v, CGROUP_PIDS_UNLIMITED);
        assert_int_equal(cgroup_pids_max_parse("64", &v), 0);
        assert_int_equal(v, 64);
        assert_int_equal(cgroup_pids_max_parse("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(cgroup_pids_max_parse("-1", &v), -EINVAL);
        assert_int_equal(cgroup_pids_max_parse("", &v), -EINVAL);
        assert_int_equal(cgroup_pids_max_parse("maxx", &v), -EINVAL);
        assert_int_equal(cgroup_pids_max_parse("12 ", &v), -EINVAL);
}

static void test_cgroup_parse_hybrid(void **state) {
        /* This machine's Docker container: v1 controllers, v2 mounted beside. */
        static const char text[] = "9:name=systemd:/docker/abc\n"
                                   "8:pids:/docker/abc\n"
                                   "7:blkio:/docker/abc\n"
                                   "6:freezer:/docker/abc\n"
                                   "5:devices:/docker/abc\n"
                                   "4:memory:/docker/abc\n"
                                   "3:cpuset:/docker/abc\n"
                                   "2:cpuacct:/docker/acct\n"
                                   "1:cpu:/docker/cpu\n"
                                   "0::/docker/abc\n";
        struct cgroup_info i;
        assert_int_equal(cgroup_info_parse(text, &i), 0);
        assert_true(i.v1);
        assert_true(i.v2);
        assert_string_equal(i.unified, "/docker/abc");
        assert_string_equal(i.v1_cpu, "/docker/cpu");
        assert_string_equal(i.v1_cpuacct, "/docker/acct");
        assert_string_equal(i.v1_memory, "/docker/abc");
        assert_string_equal(i.v1_freezer, "/docker/abc");
        assert_string_equal(i.v1_pids, "/docker/abc");
        assert_string_equal(i.v1_blkio, "/docker/abc");
}

static void test_cgroup_parse_v2_and_combined(void **state) {
        struct cgroup_info i;
        assert_int_equal(cgroup_info_parse("0::/system.slice/docker-x.scope\n", &i), 0);
        assert_true(i.v2);
        assert_false(i.v1);
        assert_string_equal(i.unified, "/system.slice/docker-x.scope");
        assert_string_equal(i.v1_cpu, "");

        /* "cpu,cpuacct" fills both; "cpuset" is not "cpu"; no trailing newline. */
        assert_int_equal(cgroup_info_parse("3:cpuset:/a\n2:cpu,cpuacct:/b:c\n1:net_cls,net_prio:/n", &i), 0);
        assert_false(i.v2);
        assert_true(i.v1);
        assert_string_equal(i.v1_cpu, "/b:c");
        assert_string_equal(i.v1_cpuacct, "/b:c");
        assert_string_equal(i.v1_memory, "");

        assert_int_equal(cgroup_info_parse("", &i), 0);
        assert_false(i.v1 || i.v2);
}

static void test_cgroup_parse_malformed(void **state) {
        struct cgroup_info i = { .v2 = true };
        assert_int_equal(cgroup_info_parse("garbage\n", &i), -EINVAL);
        assert_int_equal(cgroup_info_parse("1:cpu\n", &i), -EINVAL);
        assert_int_equal(cgroup_info_parse("1:cpu:relative\n", &i), -EINVAL);
        assert_int_equal(cgroup_info_parse(":cpu:/x\n", &i), -EINVAL);
        assert_int_equal(cgroup_info_parse("1::/x\n", &i), -EINVAL); /* v1 line without controllers */
        assert_true(i.v2);                                           /* untouched on failure */

        char long_line[CGROUP_PATH_MAX + 32];
        int n = snprintf(long_line, sizeof(long_line), "0::/");
        memset(long_line + n, 'a', CGROUP_PATH_MAX);
        long_line[n + CGROUP_PATH_MAX] = '\0';
        assert_int_equal(cgroup_info_parse(long_line, &i), -ENAMETOOLONG);
}

static const char mountinfo[] =
        "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
        "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
        "32 31 0:29 / /sys/fs/cgroup/cpu\\040x rw,relatime shared:9 master:2 - cgroup cgroup "
        "rw,cpu,cpuacct\n"
        "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
        "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
        "rw,xattr,release_agent=/lib/systemd/systemd-cgroups-agent,name=systemd\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n"
        "50 22 0:40 / /mnt/cgroup rw - tmpfs cgroup rw\n";

static void test_cgroup_mount_parse(void **state) {
        char dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];

        assert_int_equal(cgroup_mount_parse(mountinfo, "cpu", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(dir, "/sys/fs/cgroup/cpu x");
        assert_string_equal(root, "/");
        assert_int_equal(cgroup_mount_parse(mountinfo, "cpuacct", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(dir, "/sys/fs/cgroup/cpu x");
        assert_int_equal(
                cgroup_mount_parse(mountinfo, "cpu,cpuacct", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_int_equal(cgroup_mount_parse(mountinfo, "cpuset", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(dir, "/sys/fs/cgroup/cpuset");
        assert_int_equal(cgroup_mount_parse(mountinfo, "memory", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(root, "/docker/abc");
        assert_int_equal(
                cgroup_mount_parse(mountinfo, "name=systemd", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(dir, "/sys/fs/cgroup/systemd");
        assert_int_equal(cgroup_mount_parse(mountinfo, NULL, dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(dir, "/sys/fs/cgroup/unified");
        assert_int_equal(cgroup_mount_parse(mountinfo, "", dir, sizeof(dir), root, sizeof(root)), 0);
        assert_string_equal(dir, "/sys/fs/cgroup/unified");

        assert_int_equal(
                cgroup_mount_parse(mountinfo, "hugetlb", dir, sizeof(dir), root, sizeof(root)), -ENOENT);
        assert_int_equal(
                cgroup_mount_parse(mountinfo, "cpu,memory", dir, sizeof(dir), root, sizeof(root)), -ENOENT);
        assert_int_equal(
                cgroup_mount_parse(
                        "41 31 0:38 / /u rw - tmpfs x rw\n", NULL, dir, sizeof(dir), root, sizeof(root)),
                -ENOENT);
        assert_int_equal(cgroup_mount_parse(mountinfo, "cpu", dir, 8, root, sizeof(root)), -ENAMETOOLONG);
}

static void test_cgroup_of_self(void **state) {
        struct proc_identity self;
        struct cgroup_info mine, parsed;
        char text[65536];
        int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, text, sizeof(text) - 1);
        close(fd);
        assert_true(n > 0);
        text[n] = '\0';
        assert_int_equal(cgroup_info_parse(text, &parsed), 0);

        assert_int_equal(proc_identity_read(getpid(), &self, NULL), 0);
        assert_int_equal(cgroup_of_process(&self, &mine, NULL), 0);
        assert_memory_equal(&mine, &parsed, sizeof(mine));
        assert_true(mine.v1 || mine.v2);

        struct proc_identity gone = self;
        gone.start_time++;
        assert_int_equal(cgroup_of_process(&gone, &mine, NULL), -ESRCH);
}

/* ---- nft argument checks (no netlink needed) ---- */

static void test_nft_arguments(void **state) {
        struct nft_owner_table *t = NULL;
        struct mh_error e = { 0 };
        char name[300];

        assert_int_equal(nft_owner_table_create("ipx", "t", &t, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "ipx"));
        assert_int_equal(nft_owner_table_create("inet", "", &t, NULL), -EINVAL);
        memset(name, 'n', sizeof(name) - 1);
        name[sizeof(name) - 1] = '\0';
        assert_int_equal(nft_owner_table_create("inet", name, &t, NULL), -EINVAL);
        assert_int_equal(nft_table_exists(NULL, "t", NULL), -EINVAL);
        assert_null(t);
        assert_null(nft_owner_table_free(NULL));
        assert_int_equal(nft_owner_table_fd(NULL), -EBADF);

        /* adopt takes the descriptor even when it refuses it */
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        assert_int_equal(nft_owner_table_adopt(p[0], "inet", "t", &t, NULL), -ENOTSOCK);
        assert_int_equal(fcntl(p[0], F_GETFD), -1);
        close(p[1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_identity_of_child),
                cmocka_unit_test(test_stop_cont),
                cmocka_unit_test(test_reaped_child_is_gone),
                cmocka_unit_test(test_wrong_start_time),
                cmocka_unit_test(test_ns_run_result),
                cmocka_unit_test(test_ns_run_negative_result),
                cmocka_unit_test(test_ns_run_full_output),
                cmocka_unit_test(test_ns_run_oversize),
                cmocka_unit_test(test_ns_run_crash),
                cmocka_unit_test(test_ns_run_timeout),
                cmocka_unit_test(test_ns_run_invalid),
                cmocka_unit_test(test_ns_run_gone_target),
                cmocka_unit_test(test_ns_run_fd),
                cmocka_unit_test(test_ns_inode_self),
                cmocka_unit_test(test_ns_kind_strings),
                cmocka_unit_test(test_cgroup_pids_max),
                cmocka_unit_test(test_cgroup_parse_hybrid),
                cmocka_unit_test(test_cgroup_parse_v2_and_combined),
                cmocka_unit_test(test_cgroup_parse_malformed),
                cmocka_unit_test(test_cgroup_mount_parse),
                cmocka_unit_test(test_cgroup_of_self),
                cmocka_unit_test(test_nft_arguments),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
