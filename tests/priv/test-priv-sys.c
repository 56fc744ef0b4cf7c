#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/error.h"
#include "basic/macro.h"
#include "sys/cgroup.h"
#include "sys/nft-rule.h"
#include "sys/nft.h"
#include "sys/ns.h"
#include "sys/process.h"

/* As root, against the real kernel: pid recycling in a pid namespace of our
 * own, ns_run() into namespaces the test creates, cgroups the test creates and
 * removes, nftables owner tables in throwaway network namespaces. Nothing here
 * touches the host's own namespaces, cgroups or ruleset. Not root: exit 77. A
 * case whose kernel feature is missing is skipped. */

#define WAIT_MS     10000
#define TABLE       "mayhem_priv_test"
#define MARKER_DIR  "/mnt"
#define MARKER_FILE "/mnt/mayhem-priv-marker"
#define HOSTNAME    "mayhem-priv"

static int skipped;

#define SKIP(...)                                                                                           \
        do {                                                                                                \
                fprintf(stderr, "skipped: " __VA_ARGS__);                                                   \
                fputc('\n', stderr);                                                                        \
                skipped++;                                                                                  \
                skip();                                                                                     \
        } while (0)

static pid_t child_sleeper(void) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                for (;;)
                        pause();
        return pid;
}

static void child_kill(pid_t pid) {
        if (pid <= 0)
                return;
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

static int write_text(const char *path, const char *text) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, text, strlen(text));
        int r = n == (ssize_t)strlen(text) ? 0 : (n < 0 ? -errno : -EIO);
        close(fd);
        return r;
}

/* ---- a process that holds namespaces of its own ---- */

struct holder {
        pid_t pid;
        struct proc_identity id;
        bool mnt; /* has a tmpfs on MARKER_DIR with MARKER_FILE in it */
};

/* Forks a child that unshares flags (CLONE_NEWNET, optionally UTS and mount
 * namespaces, set up so a test can tell them from ours) and sleeps. -errno
 * when the child could not unshare. */
static int holder_start(struct holder *h, int flags) {
        int p[2], err = 0;
        struct stat st;

        *h = (struct holder){ .pid = -1 };
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        if ((flags & CLONE_NEWNS) && (stat(MARKER_DIR, &st) < 0 || !S_ISDIR(st.st_mode)))
                flags &= ~CLONE_NEWNS;
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                close(p[0]);
                if (unshare(flags) < 0)
                        err = errno;
                if (!err && (flags & CLONE_NEWUTS) && sethostname(HOSTNAME, strlen(HOSTNAME)) < 0)
                        err = errno;
                /* Private first, so the tmpfs never shows up in the host's mount namespace. */
                if (!err && (flags & CLONE_NEWNS) &&
                    (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                     mount("tmpfs", MARKER_DIR, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0))
                        err = errno;
                if (!err && (flags & CLONE_NEWNS)) {
                        int fd = open(MARKER_FILE, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
                        if (fd < 0)
                                err = errno;
                        else
                                close(fd);
                }
                (void)write(p[1], &err, sizeof(err));
                if (err)
                        _exit(1);
                for (;;)
                        pause();
        }
        close(p[1]);
        ssize_t n = read(p[0], &err, sizeof(err));
        close(p[0]);
        if (n != (ssize_t)sizeof(err) || err) {
                child_kill(pid);
                return err ? -err : -EIO;
        }
        h->pid = pid;
        h->mnt = flags & CLONE_NEWNS;
        return proc_identity_read(pid, &h->id, NULL);
}

static void holder_stop(struct holder *h) {
        child_kill(h->pid);
        h->pid = -1;
}

/* ---- (a) pid recycling, for real ---- */

static int fn_nothing(void *arg, char *out, size_t *out_len) {
        *out_len = 0;
        return 0;
}

static int fn_net_called(void *arg, struct mh_error *e) {
        *(bool *)arg = true;
        return 0;
}

/* Runs as pid 1 of a new pid namespace with a /proc of its own: there nobody
 * else forks, so ns_last_pid hands out exactly the pid we ask for. Returns 0,
 * or the number of the step that failed. */
static int recycle_scenario(void) {
        struct proc_identity ida, idb;
        struct mh_error e = { 0 };
        char buf[32], s;
        pid_t b = -1;
        uint64_t ino;
        bool called = false;

        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                return 1;
        pid_t a = fork();
        if (a < 0)
                return 2;
        if (a == 0)
                for (;;)
                        pause();
        if (proc_identity_read(a, &ida, NULL) < 0)
                return 3;
        /* Start times count clock ticks (USER_HZ, 10 ms): a successor started
         * within the same tick would carry the same identity. Let one pass. */
        sleep_ms(30);
        kill(a, SIGKILL);
        if (waitpid(a, NULL, 0) != a)
                return 4;

        for (int attempt = 0; attempt < 50 && b != a; attempt++) {
                if (b > 0)
                        child_kill(b);
                snprintf(buf, sizeof(buf), "%d", (int)a - 1);
                if (write_text("/proc/sys/kernel/ns_last_pid", buf) < 0)
                        return 5;
                b = fork();
                if (b < 0)
                        return 6;
                if (b == 0)
                        for (;;)
                                pause();
        }
        if (b != a) {
                child_kill(b);
                return 7;
        }
        int r = 0;
        if (proc_identity_read(b, &idb, NULL) < 0 || idb.start_time == ida.start_time)
                r = 8;
        /* The old identity names nobody now: no signal reaches the newcomer. */
        else if (proc_signal(&ida, SIGKILL, &e) != -ESRCH || !streq(e.id, "process_gone"))
                r = 9;
        else if (proc_state(&ida, &s, NULL) != -ESRCH)
                r = 10;
        else if (ns_inode(&ida, NS_NET, &ino, NULL) != -ESRCH)
                r = 11;
        else if (ns_run(&ida, NS_BIT(NS_NET), fn_nothing, NULL, WAIT_MS, NULL, NULL, NULL, NULL) != -ESRCH)
                r = 12;
        else if (
                ns_net_run(&ida, fn_net_called, &called, &e) != -ESRCH || called ||
                !streq(e.id, "process_gone"))
                r = 16;
        else {
                struct cgroup_info ci;
                if (cgroup_of_process(&ida, &ci, NULL) != -ESRCH)
                        r = 13;
        }
        if (r == 0) {
                sleep_ms(50);
                if (waitpid(b, NULL, WNOHANG) != 0 || proc_state(&idb, &s, NULL) < 0 || s == 'Z')
                        r = 14;
                else if (proc_signal(&idb, 0, NULL) < 0)
                        r = 15;
        }
        child_kill(b);
        return r;
}

static void test_pid_recycling(void **state) {
        int status;
        pid_t h = fork();
        assert_true(h >= 0);
        if (h == 0) {
                if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
                        _exit(77);
                pid_t init = fork();
                if (init < 0)
                        _exit(100);
                if (init == 0)
                        _exit(recycle_scenario());
                int st;
                if (waitpid(init, &st, 0) != init)
                        _exit(101);
                _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        }
        assert_int_equal(waitpid(h, &status, 0), h);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77)
                SKIP("pid recycling: no new pid namespace (unshare(CLONE_NEWPID))");
        if (WEXITSTATUS(status) != 0)
                fail_msg("pid recycling scenario failed at step %d", WEXITSTATUS(status));
}

/* ---- (b) ns_run into a network namespace we made ---- */

struct net_report {
        uint64_t netns_inode;
        uint32_t n_ifs;
        char ifs[8][IF_NAMESIZE];
        char hostname[64];
        bool marker; /* MARKER_FILE visible */
};

static int fn_net_report(void *arg, char *out, size_t *out_len) {
        struct net_report rep = { 0 };
        struct stat st;

        if (stat("/proc/self/ns/net", &st) < 0)
                return -errno;
        rep.netns_inode = (uint64_t)st.st_ino;
        struct if_nameindex *ifs = if_nameindex();
        if (!ifs)
                return -errno;
        for (struct if_nameindex *i = ifs; i->if_index != 0; i++) {
                if (rep.n_ifs < ELEMENTSOF(rep.ifs))
                        snprintf(rep.ifs[rep.n_ifs], IF_NAMESIZE, "%s", i->if_name);
                rep.n_ifs++;
        }
        if_freenameindex(ifs);
        (void)gethostname(rep.hostname, sizeof(rep.hostname) - 1);
        rep.marker = access(MARKER_FILE, F_OK) == 0;
        memcpy(out, &rep, sizeof(rep));
        *out_len = sizeof(rep);
        return 0;
}

static void test_ns_run_netns(void **state) {
        struct holder h;
        struct proc_identity self;
        struct net_report rep;
        struct mh_error e = { 0 };
        char out[NS_RESULT_MAX];
        size_t len = 0;
        uint64_t ino = 0, ours = 0;
        int result = -1;

        int r = holder_start(&h, CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWNS);
        if (r < 0)
                SKIP("no new network namespace: %s", strerror(-r));
        assert_int_equal(ns_inode(&h.id, NS_NET, &ino, NULL), 0);
        assert_int_equal(proc_identity_read(getpid(), &self, NULL), 0);
        assert_int_equal(ns_inode(&self, NS_NET, &ours, NULL), 0);
        assert_true(ino != ours);

        unsigned mask = NS_BIT(NS_NET) | NS_BIT(NS_UTS) | NS_BIT(NS_IPC) | NS_BIT(NS_CGROUP);
        if (h.mnt)
                mask |= NS_BIT(NS_MNT);
        r = ns_run(&h.id, mask, fn_net_report, NULL, WAIT_MS, out, &len, &result, &e);
        if (r < 0)
                fail_msg("ns_run: %s", e.msg);
        assert_int_equal(result, 0);
        assert_int_equal(len, sizeof(rep));
        memcpy(&rep, out, sizeof(rep));
        assert_true(rep.netns_inode == ino);
        assert_int_equal(rep.n_ifs, 1);
        assert_string_equal(rep.ifs[0], "lo");
        assert_string_equal(rep.hostname, HOSTNAME);
        assert_int_equal(rep.marker, h.mnt);
        assert_int_equal(access(MARKER_FILE, F_OK), -1); /* not in ours */

        /* Network namespace only: the rest stays ours. */
        char myhost[64] = { 0 };
        (void)gethostname(myhost, sizeof(myhost) - 1);
        assert_int_equal(
                ns_run(&h.id, NS_BIT(NS_NET), fn_net_report, NULL, WAIT_MS, out, &len, &result, NULL), 0);
        memcpy(&rep, out, sizeof(rep));
        assert_true(rep.netns_inode == ino);
        assert_string_equal(rep.hostname, myhost);
        assert_false(rep.marker);

        /* Gone holder: ESRCH, nothing entered. */
        struct proc_identity old = h.id;
        holder_stop(&h);
        assert_int_equal(
                ns_run(&old, NS_BIT(NS_NET), fn_net_report, NULL, WAIT_MS, out, &len, &result, NULL),
                -ESRCH);
        assert_int_equal(ns_inode(&old, NS_NET, &ino, NULL), -ESRCH);
}

/* ---- (b2) ns_net_run: the network namespace on a thread of ours ---- */

static uint64_t inode_of(const char *path) {
        struct stat st;
        return stat(path, &st) < 0 ? 0 : (uint64_t)st.st_ino;
}

/* Open descriptors of this process. */
static int fd_count(void) {
        int n = 0;
        DIR *d = opendir("/proc/self/fd");
        assert_non_null(d);
        for (struct dirent *de; (de = readdir(d));)
                n += de->d_name[0] != '.';
        closedir(d);
        return n - 1; /* the directory's own */
}

struct thread_report {
        uint64_t thread_ns, leader_ns; /* /proc/thread-self/ns/net, /proc/self/ns/net */
        pid_t tid;
        bool all_blocked;
        uint32_t n_ifs;
};

static int fn_thread_report(void *arg, struct mh_error *e) {
        struct thread_report *rep = arg;
        sigset_t mask;
        rep->thread_ns = inode_of("/proc/thread-self/ns/net");
        rep->leader_ns = inode_of("/proc/self/ns/net");
        rep->tid = gettid();
        rep->all_blocked = pthread_sigmask(SIG_SETMASK, NULL, &mask) == 0 && sigismember(&mask, SIGTERM) &&
                           sigismember(&mask, SIGINT) && sigismember(&mask, SIGCHLD);
        struct if_nameindex *ifs = if_nameindex();
        if (!ifs)
                return mh_error_fail(e, -errno, "test", "if_nameindex: %s", strerror(errno));
        for (struct if_nameindex *i = ifs; i->if_index != 0; i++)
                rep->n_ifs++;
        if_freenameindex(ifs);
        return 0;
}

static int fn_fail_with(void *arg, struct mh_error *e) {
        return mh_error_fail(e, -ENOTRECOVERABLE, "test_fn", "fn failed on purpose");
}

static int fn_positive(void *arg, struct mh_error *e) {
        return 42;
}

/* A socket belongs to the namespace it was created in, wherever it is used. */
static int fn_table_create(void *arg, struct mh_error *e) {
        return nft_owner_table_create("inet", TABLE, arg, e);
}

static int fn_table_exists(void *arg, struct mh_error *e) {
        return nft_table_exists("inet", TABLE, e);
}

struct lane {
        const struct proc_identity *id;
        int result;
        struct thread_report rep;
};

static void *lane_main(void *arg) {
        struct lane *l = arg;
        l->result = ns_net_run(l->id, fn_thread_report, &l->rep, NULL);
        return NULL;
}

static void test_ns_net_run(void **state) {
        struct holder h;
        struct thread_report rep = { 0 };
        struct mh_error e = { 0 };
        uint64_t ino = 0;

        int r = holder_start(&h, CLONE_NEWNET);
        if (r < 0)
                SKIP("no new network namespace: %s", strerror(-r));
        assert_int_equal(ns_inode(&h.id, NS_NET, &ino, NULL), 0);
        uint64_t ours = inode_of("/proc/thread-self/ns/net");
        assert_true(ours != 0 && ours != ino);
        int fds = fd_count();

        r = ns_net_run(&h.id, fn_thread_report, &rep, &e);
        if (r < 0)
                fail_msg("ns_net_run: %s", e.msg);
        assert_int_equal(r, 0);
        assert_true(rep.thread_ns == ino);  /* the thread was in the target's */
        assert_true(rep.leader_ns == ours); /* /proc/self follows the leader: ours */
        assert_true(rep.tid != gettid());
        assert_true(rep.all_blocked);
        assert_int_equal(rep.n_ifs, 1);                            /* lo only, as in the holder's */
        assert_true(inode_of("/proc/thread-self/ns/net") == ours); /* we never moved */
        assert_int_equal(fd_count(), fds);

        /* fn's answer is the call's, whatever its sign, and so is its message. */
        assert_int_equal(ns_net_run(&h.id, fn_positive, NULL, NULL), 42);
        assert_int_equal(ns_net_run(&h.id, fn_fail_with, NULL, &e), -ENOTRECOVERABLE);
        assert_string_equal(e.id, "test_fn");
        assert_int_equal(fd_count(), fds);

        /* What fn opened there stays there, in our hands. */
        struct nft_owner_table *t = NULL;
        r = nft_owner_supported(NULL);
        if (r == 1) {
                if (ns_net_run(&h.id, fn_table_create, &t, &e) < 0)
                        fail_msg("table in the holder's netns: %s", e.msg);
                assert_int_equal(fd_count(), fds + 1);
                assert_int_equal(ns_net_run(&h.id, fn_table_exists, NULL, NULL), 1);
                assert_int_equal(nft_table_exists("inet", TABLE, NULL), 0); /* not in ours */
                t = nft_owner_table_free(t);
                assert_int_equal(ns_net_run(&h.id, fn_table_exists, NULL, NULL), 0);
                assert_int_equal(fd_count(), fds);
        }

        /* Twenty at once, from twenty threads of ours. */
        struct lane lanes[20];
        pthread_t th[20];
        for (size_t i = 0; i < ELEMENTSOF(lanes); i++) {
                lanes[i] = (struct lane){ .id = &h.id, .result = -1 };
                assert_int_equal(pthread_create(&th[i], NULL, lane_main, &lanes[i]), 0);
        }
        for (size_t i = 0; i < ELEMENTSOF(lanes); i++) {
                assert_int_equal(pthread_join(th[i], NULL), 0);
                assert_int_equal(lanes[i].result, 0);
                assert_true(lanes[i].rep.thread_ns == ino);
        }
        assert_int_equal(fd_count(), fds);

        /* A fresh namespace of the thread's own: neither ours nor the holder's. */
        memset(&rep, 0, sizeof(rep));
        assert_int_equal(ns_net_run_new(fn_thread_report, &rep, &e), 0);
        assert_true(rep.thread_ns != 0 && rep.thread_ns != ours && rep.thread_ns != ino);
        assert_int_equal(fd_count(), fds);

        /* Gone holder: ESRCH, fn never runs, nothing left open. */
        struct proc_identity old = h.id;
        holder_stop(&h);
        bool called = false;
        assert_int_equal(ns_net_run(&old, fn_net_called, &called, &e), -ESRCH);
        assert_false(called);
        assert_string_equal(e.id, "process_gone");
        assert_int_equal(ns_net_run(NULL, fn_net_called, &called, NULL), -EINVAL);
        assert_int_equal(ns_net_run(&old, NULL, NULL, NULL), -EINVAL);
        assert_false(called);
        assert_int_equal(fd_count(), fds);
        assert_true(inode_of("/proc/thread-self/ns/net") == ours);
}

/* Deleted, then closed off our path: the descriptor goes a moment later. */
static void test_nft_free_later(void **state) {
        struct holder h;
        struct mh_error e = { 0 };
        struct nft_owner_table *t = NULL;
        if (nft_owner_supported(NULL) != 1)
                SKIP("no nftables owner tables here");
        int r = holder_start(&h, CLONE_NEWNET);
        if (r < 0)
                SKIP("no new network namespace: %s", strerror(-r));
        nft_owner_table_free_later(NULL);
        for (int i = 0; i < 3; i++) { /* the closer thread is started once, then kept */
                int fds = fd_count();
                if (ns_net_run(&h.id, fn_table_create, &t, &e) < 0)
                        fail_msg("table: %s", e.msg);
                assert_int_equal(fd_count(), fds + 1);
                assert_int_equal(nft_owner_table_delete(t, &e), 0);
                assert_int_equal(ns_net_run(&h.id, fn_table_exists, NULL, NULL), 0);
                nft_owner_table_free_later(TAKE_PTR(t));
                for (int k = 0; k < 300 && fd_count() != fds; k++)
                        sleep_ms(10);
                assert_int_equal(fd_count(), fds);
        }
        holder_stop(&h);
}

/* A zombie still has its pid and start time, but no namespaces left. */
static void test_ns_net_run_zombie(void **state) {
        struct holder h;
        struct mh_error e = { 0 };
        bool called = false;
        int r = holder_start(&h, CLONE_NEWNET);
        if (r < 0)
                SKIP("no new network namespace: %s", strerror(-r));
        int fds = fd_count();
        kill(h.pid, SIGKILL);
        /* Until it is a zombie, and not reaped (WNOWAIT): SIGKILL cannot be
         * held off, so this returns once the kernel has torn it down. */
        siginfo_t si = { 0 };
        assert_int_equal(waitid(P_PID, (id_t)h.pid, &si, WEXITED | WNOWAIT), 0);
        assert_int_equal(si.si_pid, h.pid);
        assert_int_equal(ns_net_run(&h.id, fn_net_called, &called, &e), -ESRCH);
        assert_false(called);
        assert_int_equal(fd_count(), fds);
        holder_stop(&h);
}

/* ---- (c) a function that does not return is killed ---- */

static int fn_hang(void *arg, char *out, size_t *out_len) {
        pid_t me = getpid();
        (void)write(*(int *)arg, &me, sizeof(me));
        for (;;)
                pause();
        return 0;
}

static void test_ns_run_timeout_kills(void **state) {
        struct holder h;
        struct mh_error e = { 0 };
        pid_t child = 0;
        int p[2];

        int r = holder_start(&h, CLONE_NEWNET);
        if (r < 0)
                SKIP("no new network namespace: %s", strerror(-r));
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        double start = monotonic_ms();
        r = ns_run(&h.id, NS_BIT(NS_NET), fn_hang, &p[1], 400, NULL, NULL, NULL, &e);
        double took = monotonic_ms() - start;
        assert_int_equal(r, -ETIMEDOUT);
        assert_true(took >= 350 && took < 5000);
        assert_int_equal(read(p[0], &child, sizeof(child)), (ssize_t)sizeof(child));
        assert_true(child > 0);
        assert_int_equal(kill(child, 0), -1); /* killed and reaped */
        assert_int_equal(errno, ESRCH);
        assert_int_equal(proc_signal(&h.id, 0, NULL), 0); /* the target is untouched */
        close(p[0]);
        close(p[1]);
        holder_stop(&h);
}

/* ---- (d) cgroups we create ---- */

struct cg_fixture {
        char v1_dir[CGROUP_PATH_MAX + 64]; /* "" when not made */
        char v2_dir[CGROUP_PATH_MAX + 64];
        char name[64]; /* "/mayhem-priv-PID" */
        pid_t target, joiner;
};

static int cg_setup(void **state) {
        static struct cg_fixture f;
        char mi[1 << 16], dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];
        int fd;

        memset(&f, 0, sizeof(f));
        f.target = f.joiner = -1;
        snprintf(f.name, sizeof(f.name), "/mayhem-priv-%d", (int)getpid());
        fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        size_t used = 0;
        ssize_t n;
        while ((n = read(fd, mi + used, sizeof(mi) - 1 - used)) > 0)
                used += (size_t)n;
        close(fd);
        mi[used] = '\0';

        if (geteuid() == 0 && cgroup_mount_parse(mi, "cpu", dir, sizeof(dir), root, sizeof(root)) == 0 &&
            streq(root, "/")) {
                snprintf(f.v1_dir, sizeof(f.v1_dir), "%s%s", dir, f.name);
                if (mkdir(f.v1_dir, 0755) < 0)
                        f.v1_dir[0] = '\0';
        }
        if (geteuid() == 0 && cgroup_mount_parse(mi, NULL, dir, sizeof(dir), root, sizeof(root)) == 0 &&
            streq(root, "/")) {
                snprintf(f.v2_dir, sizeof(f.v2_dir), "%s%s", dir, f.name);
                if (mkdir(f.v2_dir, 0755) < 0)
                        f.v2_dir[0] = '\0';
        }
        *state = &f;
        return 0;
}

static void rmdir_retry(const char *dir) {
        /* A just-reaped member can keep a cgroup busy for a moment. */
        for (int i = 0; i < 100 && dir[0]; i++) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return;
                sleep_ms(10);
        }
        fprintf(stderr, "could not remove %s: %s\n", dir, strerror(errno));
}

static int cg_teardown(void **state) {
        struct cg_fixture *f = *state;
        child_kill(f->target);
        child_kill(f->joiner);
        rmdir_retry(f->v1_dir);
        rmdir_retry(f->v2_dir);
        return 0;
}

static void put_into(const char *dir, pid_t pid) {
        char path[CGROUP_PATH_MAX + 128], buf[32];
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        snprintf(buf, sizeof(buf), "%d", (int)pid);
        assert_int_equal(write_text(path, buf), 0);
}

static void test_cgroups(void **state) {
        struct cg_fixture *f = *state;
        struct proc_identity target, joiner;
        struct cgroup_info ti, ji;
        struct mh_error e = { 0 };
        int64_t quota = 0, period = 0;
        char path[CGROUP_PATH_MAX + 128];

        if (!f->v1_dir[0] && !f->v2_dir[0])
                SKIP("no cgroup hierarchy to create a test cgroup in");
        f->target = child_sleeper();
        f->joiner = child_sleeper();
        assert_int_equal(proc_identity_read(f->target, &target, NULL), 0);
        assert_int_equal(proc_identity_read(f->joiner, &joiner, NULL), 0);
        if (f->v1_dir[0])
                put_into(f->v1_dir, f->target);
        if (f->v2_dir[0])
                put_into(f->v2_dir, f->target);

        assert_int_equal(cgroup_of_process(&target, &ti, &e), 0);
        if (f->v1_dir[0])
                assert_string_equal(ti.v1_cpu, f->name);
        if (f->v2_dir[0])
                assert_string_equal(ti.unified, f->name);

        /* The joiner starts where we are, and ends where the target is. */
        assert_int_equal(cgroup_of_process(&joiner, &ji, NULL), 0);
        assert_memory_not_equal(&ji, &ti, sizeof(ji));
        if (cgroup_join(&target, f->joiner, &e) < 0)
                fail_msg("cgroup_join: %s", e.msg);
        assert_int_equal(cgroup_of_process(&joiner, &ji, NULL), 0);
        assert_memory_equal(&ji, &ti, sizeof(ji));

        /* Quota: unlimited, then what we write. */
        if (f->v1_dir[0]) {
                if (cgroup_cpu_quota(&target, &quota, &period, &e) < 0)
                        fail_msg("cgroup_cpu_quota: %s", e.msg);
                assert_true(quota == -1);
                assert_true(period > 0);
                snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", f->v1_dir);
                assert_int_equal(write_text(path, "100000"), 0);
                snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", f->v1_dir);
                assert_int_equal(write_text(path, "50000"), 0);
                assert_int_equal(cgroup_cpu_quota(&target, &quota, &period, NULL), 0);
                assert_true(quota == 50000 && period == 100000);
        } else {
                snprintf(path, sizeof(path), "%s/cpu.max", f->v2_dir);
                if (access(path, F_OK) == 0) {
                        assert_int_equal(write_text(path, "max 100000"), 0);
                        assert_int_equal(cgroup_cpu_quota(&target, &quota, &period, NULL), 0);
                        assert_true(quota == -1 && period == 100000);
                        assert_int_equal(write_text(path, "25000 50000"), 0);
                        assert_int_equal(cgroup_cpu_quota(&target, &quota, &period, NULL), 0);
                        assert_true(quota == 25000 && period == 50000);
                } else
                        assert_int_equal(cgroup_cpu_quota(&target, &quota, &period, NULL), -ENOENT);
        }

        /* Gone target, gone joiner. */
        struct proc_identity old = target;
        child_kill(f->target);
        f->target = -1;
        assert_int_equal(cgroup_join(&old, f->joiner, &e), -ESRCH);
        assert_int_equal(cgroup_cpu_quota(&old, &quota, &period, NULL), -ESRCH);
        assert_int_equal(cgroup_of_process(&old, &ti, NULL), -ESRCH);
        pid_t gone = joiner.pid;
        child_kill(f->joiner);
        f->joiner = -1;
        struct proc_identity self;
        assert_int_equal(proc_identity_read(getpid(), &self, NULL), 0);
        assert_int_equal(cgroup_join(&self, gone, &e), -ESRCH);
}

/* ---- (e) nftables owner tables ---- */

_printf_(3, 4) static int report(char *out, size_t *out_len, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(out, *out_len, fmt, ap);
        va_end(ap);
        *out_len = n < 0 ? 0 : MIN((size_t)n, *out_len - 1);
        return -1;
}

/* In a throwaway netns: create, see it, see a second create refused, free, gone. */
static int fn_owner_cycle(void *arg, char *out, size_t *out_len) {
        struct nft_owner_table *t = NULL, *t2 = NULL;
        struct mh_error e = { 0 };
        int r;

        if (unshare(CLONE_NEWNET) < 0)
                return report(out, out_len, "unshare: %s", strerror(errno));
        if ((r = nft_table_exists("inet", TABLE, &e)) != 0)
                return report(out, out_len, "before: exists = %d %s", r, e.msg);
        if (nft_owner_table_create("inet", TABLE, &t, &e) < 0)
                return report(out, out_len, "create: %s", e.msg);
        if ((r = nft_table_exists("inet", TABLE, &e)) != 1)
                return report(out, out_len, "after create: exists = %d %s", r, e.msg);
        if ((r = nft_table_exists("ip", TABLE, &e)) != 0)
                return report(out, out_len, "other family: exists = %d %s", r, e.msg);
        if ((r = nft_owner_table_create("inet", TABLE, &t2, &e)) != -EEXIST)
                return report(out, out_len, "second create: %d %s", r, e.msg);
        if (!streq(nft_owner_table_name(t), TABLE) || nft_owner_table_fd(t) < 0)
                return report(out, out_len, "accessors");
        t = nft_owner_table_free(t);
        if ((r = nft_table_exists("inet", TABLE, &e)) != 0)
                return report(out, out_len, "after free: exists = %d %s", r, e.msg);
        *out_len = 0;
        return 0;
}

/* Leaves the table to the child's exit (mode 0) or to SIGKILL (mode 1). */
static int fn_owner_abandon(void *arg, char *out, size_t *out_len) {
        struct nft_owner_table *t = NULL;
        struct mh_error e = { 0 };
        if (nft_owner_table_create("inet", TABLE, &t, &e) < 0)
                return report(out, out_len, "create: %s", e.msg);
        if (nft_table_exists("inet", TABLE, &e) != 1)
                return report(out, out_len, "not there after create");
        if (*(int *)arg == 1)
                raise(SIGKILL);
        *out_len = 0;
        return 0; /* t is not freed: the socket closes with the process */
}

static int fn_owner_pass(void *arg, char *out, size_t *out_len, int *ret_fd) {
        struct nft_owner_table *t = NULL;
        struct mh_error e = { 0 };
        if (nft_owner_table_create("inet", TABLE, &t, &e) < 0)
                return report(out, out_len, "create: %s", e.msg);
        *ret_fd = fcntl(nft_owner_table_fd(t), F_DUPFD_CLOEXEC, 3);
        nft_owner_table_free(t); /* the dup keeps the socket, and so the table */
        *out_len = 0;
        return *ret_fd < 0 ? report(out, out_len, "dup: %s", strerror(errno)) : 0;
}

static int fn_exists(void *arg, char *out, size_t *out_len) {
        struct mh_error e = { 0 };
        int r = nft_table_exists("inet", TABLE, &e);
        if (r < 0)
                report(out, out_len, "%s", e.msg);
        else
                *out_len = 0;
        return r;
}

/* Whether the table is in h's netns: 1, 0. */
static int exists_in(const struct holder *h) {
        char out[NS_RESULT_MAX];
        size_t len = 0;
        int result = -1;
        struct mh_error e = { 0 };
        if (ns_run(&h->id, NS_BIT(NS_NET), fn_exists, NULL, WAIT_MS, out, &len, &result, &e) < 0)
                fail_msg("ns_run: %s", e.msg);
        if (result < 0)
                fail_msg("nft_table_exists: %.*s", (int)len, out);
        return result;
}

static void test_nft_owner_tables(void **state) {
        struct mh_error e = { 0 };
        char out[NS_RESULT_MAX];
        size_t len = 0;
        int result = -1, r;

        r = nft_owner_supported(&e);
        if (r < 0)
                SKIP("cannot probe for owner tables: %s", e.msg);
        if (r == 0)
                SKIP("this kernel has no nftables owner tables (Linux < 5.12)");
        assert_int_equal(nft_owner_supported(NULL), 1); /* remembered */

        assert_int_equal(ns_run(NULL, 0, fn_owner_cycle, NULL, WAIT_MS, out, &len, &result, &e), 0);
        if (result != 0)
                fail_msg("owner table cycle: %.*s", (int)len, out);

        struct holder h;
        r = holder_start(&h, CLONE_NEWNET);
        if (r < 0)
                SKIP("no new network namespace: %s", strerror(-r));

        /* A child that exits, and one that is killed, holding the table. */
        for (int mode = 0; mode < 2; mode++) {
                r = ns_run(&h.id, NS_BIT(NS_NET), fn_owner_abandon, &mode, WAIT_MS, out, &len, &result, &e);
                if (mode == 0) {
                        assert_int_equal(r, 0);
                        if (result != 0)
                                fail_msg("abandon: %.*s", (int)len, out);
                } else
                        assert_int_equal(r, -ECHILD);
                assert_int_equal(exists_in(&h), 0);
        }

        /* Handed to us: lives on after the child, dies with our descriptor. */
        int fd = -1;
        r = ns_run_fd(&h.id, NS_BIT(NS_NET), fn_owner_pass, NULL, WAIT_MS, out, &len, &result, &fd, &e);
        assert_int_equal(r, 0);
        if (result != 0)
                fail_msg("pass: %.*s", (int)len, out);
        assert_true(fd >= 0);
        assert_int_equal(exists_in(&h), 1);
        assert_int_equal(nft_table_exists("inet", TABLE, NULL), 0); /* not in our netns */
        struct nft_owner_table *t = NULL;
        if (nft_owner_table_adopt(fd, "inet", TABLE, &t, &e) < 0)
                fail_msg("adopt: %s", e.msg);
        assert_int_equal(exists_in(&h), 1);
        t = nft_owner_table_free(t);
        assert_int_equal(exists_in(&h), 0);

        /* Adopting a socket that does not own the table is refused. */
        r = ns_run_fd(&h.id, NS_BIT(NS_NET), fn_owner_pass, NULL, WAIT_MS, out, &len, &result, &fd, &e);
        assert_int_equal(r, 0);
        assert_int_equal(nft_owner_table_adopt(fd, "inet", "mayhem_not_this_one", &t, &e), -ENOENT);
        assert_null(t);
        assert_int_equal(exists_in(&h), 0); /* the refused descriptor was closed */
        holder_stop(&h);
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: needs root\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pid_recycling),
                cmocka_unit_test(test_ns_run_netns),
                cmocka_unit_test(test_ns_net_run),
                cmocka_unit_test(test_ns_net_run_zombie),
                cmocka_unit_test(test_nft_free_later),
                cmocka_unit_test(test_ns_run_timeout_kills),
                cmocka_unit_test_setup_teardown(test_cgroups, cg_setup, cg_teardown),
                cmocka_unit_test(test_nft_owner_tables),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        if (failed == 0 && skipped == (int)ELEMENTSOF(tests))
                return 77;
        return failed;
}
