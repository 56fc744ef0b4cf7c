#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/proc-guard.h"
#include "basic/proc-scope.h"
#include "basic/procfs.h"

/* The processes mayhem never touches, and the processes that count as
 * inside a container, read from this machine's /proc: this test is the
 * "controller", its parent and children are real processes. */

static char why[256];

static enum proc_guard guard(pid_t pid) {
        why[0] = '\0';
        return proc_guard_check(pid, getpid(), "controller", why, sizeof(why));
}

static void assert_prefix(const char *s, const char *prefix) {
        if (strncmp(s, prefix, strlen(prefix)) != 0)
                fail_msg("'%s' does not start with '%s'", s, prefix);
}

static pid_t sleeper(const char *name) {
        pid_t pid = fork();
        if (pid == 0) {
                prctl(PR_SET_NAME, name);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;)
                        pause();
        }
        return pid;
}

/* Whether pid carries name (its PR_SET_NAME is done) within 5 s. */
static bool named_within(pid_t pid, const char *name) {
        double t0 = monotonic_ms();
        char comm[32];
        for (;;) {
                proc_comm(pid, comm, sizeof(comm));
                if (strcmp(comm, name) == 0)
                        return true;
                if (monotonic_ms() - t0 > 5000) {
                        print_message("pid %d is '%s', not '%s', after 5 s\n", (int)pid, comm, name);
                        return false;
                }
                sleep_ms(5);
        }
}

static void reap(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

static void test_init(void **state) {
        assert_int_equal(guard(1), PROC_GUARD_INIT);
        assert_prefix(why, "pid 1 (");
        assert_non_null(strstr(why, ") is the init process"));
        assert_string_equal(proc_guard_to_string(PROC_GUARD_INIT), "init");
        assert_null(proc_guard_to_string(PROC_GUARD_NONE));
}

static void test_self_parent_ancestors(void **state) {
        char want[128], comm[32];
        proc_comm(getpid(), comm, sizeof(comm));
        assert_int_equal(guard(getpid()), PROC_GUARD_SELF);
        snprintf(want, sizeof(want), "pid %d (%s) is the controller itself", (int)getpid(), comm);
        assert_string_equal(why, want);
        if (getppid() <= 1)
                skip();
        proc_comm(getppid(), comm, sizeof(comm));
        assert_int_equal(guard(getppid()), PROC_GUARD_ANCESTOR);
        snprintf(want, sizeof(want), "pid %d (%s) is the controller's parent", (int)getppid(), comm);
        assert_string_equal(why, want);
        struct proc_info parent;
        assert_int_equal(proc_info_read(getppid(), &parent), 0);
        if (parent.ppid > 1) {
                assert_int_equal(guard(parent.ppid), PROC_GUARD_ANCESTOR);
                assert_non_null(strstr(why, "is an ancestor of the controller (2 generations up)"));
        }
}

static void *idle_thread(void *arg) {
        pid_t *tid = arg;
        *tid = (pid_t)syscall(SYS_gettid);
        for (int i = 0; i < 500 && *tid > 0; i++)
                usleep(10000);
        return NULL;
}

/* A thread id is its process: /proc/TID is there though /proc lists no TID. */
static void test_thread_counts_as_its_process(void **state) {
        pthread_t t;
        volatile pid_t tid = 0;
        char want[160], comm[32];
        assert_int_equal(pthread_create(&t, NULL, idle_thread, (void *)&tid), 0);
        while (tid == 0)
                usleep(1000);
        proc_comm(getpid(), comm, sizeof(comm));
        assert_int_equal(guard(tid), PROC_GUARD_SELF);
        snprintf(
                want, sizeof(want), "pid %d, a thread of pid %d (%s), is the controller itself", (int)tid,
                (int)getpid(), comm);
        assert_string_equal(why, want);
        pid_t group = 0;
        assert_int_equal(proc_tgid(tid, &group), 0);
        assert_int_equal(group, getpid());
        tid = -1;
        pthread_join(t, NULL);
}

static void test_children(void **state) {
        char want[128];
        pid_t child = sleeper("mh-guard-kid");
        assert_true(named_within(child, "mh-guard-kid"));
        assert_int_equal(guard(child), PROC_GUARD_CHILD);
        snprintf(want, sizeof(want), "pid %d (mh-guard-kid) is a child of the controller", (int)child);
        assert_string_equal(why, want);
        assert_int_equal(
                proc_guard_check_name("mh-guard-kid", getpid(), "controller", why, sizeof(why)),
                PROC_GUARD_CHILD);
        /* Seen from the child, this test is its parent; from pid 1, neither is anything. */
        assert_int_equal(proc_guard_check(getpid(), child, "agent", why, sizeof(why)), PROC_GUARD_ANCESTOR);
        assert_non_null(strstr(why, "is the agent's parent"));
        reap(child);
        assert_int_equal(guard(child), PROC_GUARD_NONE); /* gone: nothing to protect */
}

/* Some process with PF_KTHREAD, or 0 (a pid namespace shows none). */
static pid_t a_kernel_thread(void) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        pid_t found = 0;
        while (d && !found && (de = readdir(d))) {
                struct proc_info p;
                long pid = strtol(de->d_name, NULL, 10);
                if (pid > 2 && proc_info_read((pid_t)pid, &p) == 0 && (p.flags & PF_KTHREAD_BIT))
                        found = (pid_t)pid;
        }
        if (d)
                closedir(d);
        return found;
}

static void test_kernel_threads(void **state) {
        pid_t k = a_kernel_thread();
        if (!k) {
                print_message("no kernel thread in this pid namespace\n");
                skip();
        }
        assert_int_equal(guard(k), PROC_GUARD_KERNEL);
        assert_non_null(strstr(why, ") is a kernel thread"));
        struct proc_info p;
        if (proc_info_read(2, &p) == 0 && (p.flags & PF_KTHREAD_BIT)) {
                assert_int_equal(guard(2), PROC_GUARD_KERNEL);
                assert_string_equal(why, "pid 2 (kthreadd) is a kernel thread");
                assert_int_equal(
                        proc_guard_check_name("kthreadd", getpid(), "controller", why, sizeof(why)),
                        PROC_GUARD_KERNEL);
        }
}

static void test_unprotected(void **state) {
        pid_t child = sleeper("mh-guard-mid");
        assert_int_equal(guard(INT32_MAX), PROC_GUARD_NONE); /* above any pid_max */
        assert_int_equal(guard(0), PROC_GUARD_NONE);
        assert_int_equal(guard(-4), PROC_GUARD_NONE);
        /* Another process's child is none of the controller's business. */
        assert_int_equal(proc_guard_check(child, 1, "controller", why, sizeof(why)), PROC_GUARD_NONE);
        assert_int_equal(
                proc_guard_check_name("mayhem-nosuch", getpid(), "controller", why, sizeof(why)),
                PROC_GUARD_NONE);
        reap(child);
}

static void test_cgroup_paths(void **state) {
        static const char *const containers[] = {
                "12:memory:/docker/0123abcd\n",
                "0::/system.slice/docker-0123abcd.scope\n",
                "0::/machine.slice/libpod-0123abcd.scope/container\n",
                "1:name=systemd:/libpod_parent/libpod-0123abcd\n",
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
                "cri-containerd-0123.scope\n",
                "0::/system.slice/crio-0123abcd.scope\n",
                "0::/lxc.payload.web\n",
                "3:cpu:/lxc/web\n",
                "5:pids:/\n4:memory:/docker/0123abcd\n0::/\n",
        };
        static const char *const hosts[] = {
                "0::/\n",
                "0::/system.slice/docker.service\n",
                "0::/system.slice/containerd.service\n",
                "4:memory:/process_api/b3bc225ac26f2b4d8732b08d28a541cb\n",
                "0::/user.slice/user-1000.slice/session-2.scope\n",
                "0::/docker\n", /* the cgroupfs driver's parent, with no container in it */
                "0::/system.slice/dockerd-helper.service\n",
                "",
        };
        for (size_t i = 0; i < ELEMENTSOF(containers); i++)
                if (!proc_cgroup_is_container(containers[i]))
                        fail_msg("not a container: %s", containers[i]);
        for (size_t i = 0; i < ELEMENTSOF(hosts); i++)
                if (proc_cgroup_is_container(hosts[i]))
                        fail_msg("a container: %s", hosts[i]);
}

/* A process in a pid namespace of its own, as a container's are: the
 * grandchild of an intermediate child that unshared CLONE_NEWPID. Its host
 * pid in *ret, or false without the privilege. */
static bool start_contained(const char *name, pid_t *ret_mid, pid_t *ret) {
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t mid = fork();
        if (mid == 0) {
                pid_t inner = -1;
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (unshare(CLONE_NEWPID) == 0 && (inner = fork()) == 0) {
                        prctl(PR_SET_NAME, name);
                        for (;;)
                                pause();
                }
                (void)!write(p[1], &inner, sizeof(inner));
                if (inner > 0)
                        waitpid(inner, NULL, 0);
                _exit(0);
        }
        close(p[1]);
        pid_t inner = -1;
        assert_int_equal(read(p[0], &inner, sizeof(inner)), (ssize_t)sizeof(inner));
        close(p[0]);
        *ret_mid = mid;
        *ret = inner;
        if (inner > 0)
                assert_true(named_within(inner, name));
        else
                waitpid(mid, NULL, 0);
        return inner > 0;
}

static void test_contained_by_name(void **state) {
        struct proc_identity id;
        struct mh_error e = { 0 };
        char ctr[16], host_name[16];
        /* Looked up host-wide by name: this run's pid in them (15 characters
         * at most), so another run at the same time has names of its own. */
        snprintf(ctr, sizeof(ctr), "mhctr-%d", (int)getpid());
        snprintf(host_name, sizeof(host_name), "mhhost-%d", (int)getpid());
        pid_t mid, inner, host = sleeper(host_name);
        int self = proc_in_container(getpid()); /* 0 on the host, 1 when this test runs in a container */
        assert_true(self == 0 || self == 1);
        if (!start_contained(ctr, &mid, &inner)) {
                reap(host);
                print_message("no CLONE_NEWPID here (needs root)\n");
                skip();
        }
        assert_int_equal(proc_in_container(inner), 1);
        assert_int_equal(proc_find_by_name(ctr, PROC_SCOPE_HOST, &id, &e), -ESRCH);
        char want[256];
        snprintf(
                want, sizeof(want),
                "no host process named '%s' runs: pid %d of that name is in a container (or "
                "cannot be read as on the host); include_containers: true matches it",
                ctr, (int)inner);
        assert_string_equal(e.msg, want);
        assert_int_equal(proc_find_by_name(ctr, PROC_SCOPE_ANY, &id, &e), 0);
        assert_int_equal(id.pid, inner);
        if (self == 0) {
                assert_true(named_within(host, host_name));
                assert_int_equal(proc_find_by_name(host_name, PROC_SCOPE_HOST, &id, &e), 0);
                assert_int_equal(id.pid, host);
        }
        reap(host);
        kill(inner, SIGKILL);
        waitpid(mid, NULL, 0);
        assert_int_equal(proc_in_container(inner), -ESRCH);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_init),
                cmocka_unit_test(test_self_parent_ancestors),
                cmocka_unit_test(test_thread_counts_as_its_process),
                cmocka_unit_test(test_children),
                cmocka_unit_test(test_kernel_threads),
                cmocka_unit_test(test_unprotected),
                cmocka_unit_test(test_cgroup_paths),
                cmocka_unit_test(test_contained_by_name),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
