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
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/macro.h"
#include "sys/ns.h"
#include "sys/process.h"

/* ns_run() and ns_net_run() on a kernel older than 5.8, where setns() takes
 * no pidfd: linked with -Wl,--wrap=setns, the first setns() of every process
 * (and the first after a test resets the count) fails with EINVAL as such a
 * kernel would, and the rest go through. The child, or the thread, must then
 * fall back to /proc/PID/ns/<kind> and still end up in the right namespaces. */

#define WAIT_MS  10000
#define HOSTNAME "mayhem-fallback"

int __real_setns(int fd, int nstype);
int __wrap_setns(int fd, int nstype);

static int setns_calls; /* per process: a forked child starts from the parent's count */

int __wrap_setns(int fd, int nstype) {
        if (setns_calls++ == 0) {
                errno = EINVAL;
                return -1;
        }
        return __real_setns(fd, nstype);
}

struct report {
        uint64_t netns_inode, utsns_inode;
        char hostname[64];
        int setns_calls;
};

static int fn_report(void *arg, char *out, size_t *out_len) {
        struct report rep = { .setns_calls = setns_calls };
        struct stat st;
        if (stat("/proc/self/ns/net", &st) < 0)
                return -errno;
        rep.netns_inode = (uint64_t)st.st_ino;
        if (stat("/proc/self/ns/uts", &st) < 0)
                return -errno;
        rep.utsns_inode = (uint64_t)st.st_ino;
        (void)gethostname(rep.hostname, sizeof(rep.hostname) - 1);
        memcpy(out, &rep, sizeof(rep));
        *out_len = sizeof(rep);
        return 0;
}

static void test_fallback(void **state) {
        struct proc_identity id;
        struct report rep;
        struct mh_error e = { 0 };
        char out[NS_RESULT_MAX];
        size_t len = 0;
        uint64_t net = 0, uts = 0;
        int p[2], err = 0, result = -1;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNET | CLONE_NEWUTS) < 0 || sethostname(HOSTNAME, strlen(HOSTNAME)) < 0)
                        err = errno;
                (void)write(p[1], &err, sizeof(err));
                for (;;)
                        pause();
        }
        close(p[1]);
        assert_int_equal(read(p[0], &err, sizeof(err)), (ssize_t)sizeof(err));
        close(p[0]);
        if (err) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                fprintf(stderr, "skipped: unshare: %s\n", strerror(err));
                skip();
        }
        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        assert_int_equal(ns_inode(&id, NS_NET, &net, NULL), 0);
        assert_int_equal(ns_inode(&id, NS_UTS, &uts, NULL), 0);

        int r = ns_run(
                &id, NS_BIT(NS_NET) | NS_BIT(NS_UTS), fn_report, NULL, WAIT_MS, out, &len, &result, &e);
        if (r < 0)
                fail_msg("ns_run: %s", e.msg);
        assert_int_equal(result, 0);
        assert_int_equal(len, sizeof(rep));
        memcpy(&rep, out, sizeof(rep));
        assert_int_equal(rep.setns_calls, 3); /* the refused pidfd call, then net and uts one by one */
        assert_true(rep.netns_inode == net);
        assert_true(rep.utsns_inode == uts);
        assert_string_equal(rep.hostname, HOSTNAME);
        assert_int_equal(setns_calls, 0); /* the parent never calls setns() */

        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

struct thread_report {
        uint64_t netns_inode;
        int setns_calls;
};

static int fn_thread_report(void *arg, struct mh_error *e) {
        struct thread_report *rep = arg;
        struct stat st;
        if (stat("/proc/thread-self/ns/net", &st) < 0)
                return -errno;
        rep->netns_inode = (uint64_t)st.st_ino;
        rep->setns_calls = setns_calls;
        return 0;
}

/* ns_net_run(): the thread's setns(pidfd) is refused, and it enters through
 * /proc/PID/ns/net instead. */
static void test_thread_fallback(void **state) {
        struct proc_identity id;
        struct thread_report rep = { 0 };
        struct mh_error e = { 0 };
        struct stat st;
        uint64_t net = 0;
        int p[2], err = 0;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNET) < 0)
                        err = errno;
                (void)write(p[1], &err, sizeof(err));
                for (;;)
                        pause();
        }
        /* Until the child is in a namespace of its own: it says so (or why not). */
        close(p[1]);
        assert_int_equal(read(p[0], &err, sizeof(err)), (ssize_t)sizeof(err));
        close(p[0]);
        if (err) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                fprintf(stderr, "skipped: unshare(CLONE_NEWNET): %s\n", strerror(err));
                skip();
        }
        assert_int_equal(proc_identity_read(pid, &id, NULL), 0);
        assert_int_equal(ns_inode(&id, NS_NET, &net, NULL), 0);
        assert_int_equal(stat("/proc/self/ns/net", &st), 0);
        assert_true(net != (uint64_t)st.st_ino);
        setns_calls = 0; /* the next setns() is refused, as Linux < 5.8 would */
        int r = ns_net_run(&id, fn_thread_report, &rep, &e);
        if (r < 0)
                fail_msg("ns_net_run: %s", e.msg);
        assert_int_equal(rep.setns_calls, 2); /* the refused pidfd call, then the file */
        assert_true(rep.netns_inode == net);
        assert_int_equal(stat("/proc/thread-self/ns/net", &st), 0);
        assert_true((uint64_t)st.st_ino != net); /* only the thread moved */

        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        /* Gone: -ESRCH before any setns() (the pidfd check refuses it). */
        setns_calls = 0;
        assert_int_equal(ns_net_run(&id, fn_thread_report, &rep, &e), -ESRCH);
        assert_int_equal(setns_calls, 0);
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: needs root\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fallback),
                cmocka_unit_test(test_thread_fallback),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
