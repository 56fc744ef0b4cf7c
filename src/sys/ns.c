#include "ns.h"

#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "pidfd-syscall.h"

/* Exit status of a child that could not even report (its parent died while it
 * started, or the socket broke). The parent only sees it when no reply came. */
#define CHILD_EXIT_NO_REPLY 3

#define REPLY_MSG_MAX 256

static const struct {
        const char *name;
        int flag;
} kinds[_NS_KIND_MAX] = {
        [NS_NET] = { "net", CLONE_NEWNET }, [NS_MNT] = { "mnt", CLONE_NEWNS },
        [NS_PID] = { "pid", CLONE_NEWPID }, [NS_UTS] = { "uts", CLONE_NEWUTS },
        [NS_IPC] = { "ipc", CLONE_NEWIPC }, [NS_CGROUP] = { "cgroup", CLONE_NEWCGROUP },
};

/* The order of the per-file fallback, as nsenter(1) has it: the mount
 * namespace last, so the others are entered while paths still resolve as ours. */
static const enum ns_kind enter_order[_NS_KIND_MAX] = {
        NS_CGROUP, NS_IPC, NS_UTS, NS_NET, NS_PID, NS_MNT,
};

/* What the child sends back: one SOCK_SEQPACKET message, header plus out_len
 * bytes of out. */
struct reply {
        int32_t status;    /* 0: fn ran; < 0: the child failed before fn, msg says why */
        int32_t fn_result; /* fn's return value */
        uint32_t out_len;
        char msg[REPLY_MSG_MAX];
        char out[NS_RESULT_MAX];
};

#define REPLY_HEADER_SIZE offsetof(struct reply, out)

const char *ns_kind_to_string(enum ns_kind k) {
        if ((unsigned)k >= _NS_KIND_MAX)
                return NULL;
        return kinds[k].name;
}

int ns_kind_from_string(const char *s) {
        for (size_t i = 0; s && i < _NS_KIND_MAX; i++)
                if (streq(kinds[i].name, s))
                        return (int)i;
        return -EINVAL;
}

static void mask_to_string(unsigned mask, char *buf, size_t size) {
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < _NS_KIND_MAX; i++) {
                if (!(mask & NS_BIT(i)))
                        continue;
                int n = snprintf(buf + used, size - used, "%s%s", used ? "+" : "", kinds[i].name);
                if (n < 0 || (size_t)n >= size - used)
                        return;
                used += (size_t)n;
        }
}

static int gone(struct mh_error *reterr, const struct proc_identity *id) {
        return mh_error_fail(
                reterr, -ESRCH, "process_gone", "process %d (start time %" PRIu64 ") is gone", (int)id->pid,
                id->start_time);
}

/* A pidfd for id (start time checked) and a /proc/PID directory fd opened after
 * that check. The pidfd is asked once more whether its process is still there:
 * if so, the pid was never free between the check and the open, so the
 * directory belongs to the process id names and not to a successor. */
static int target_open(
        const struct proc_identity *id, int *ret_pidfd, int *ret_procfd, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF, procfd = -EBADF;
        char path[64];
        int r;

        r = proc_pidfd_open(id, &pidfd, reterr);
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "/proc/%d", (int)id->pid);
        procfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (procfd < 0) {
                r = negative_errno();
                if (r == -ENOENT)
                        return gone(reterr, id);
                return mh_error_fail(reterr, r, "proc", "%s: %s", path, strerror(-r));
        }
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0) {
                r = negative_errno();
                if (r == -ESRCH)
                        return gone(reterr, id);
                return mh_error_fail(reterr, r, "proc", "process %d: %s", (int)id->pid, strerror(-r));
        }
        *ret_pidfd = TAKE_FD(pidfd);
        *ret_procfd = TAKE_FD(procfd);
        return 0;
}

int ns_inode(
        const struct proc_identity *id, enum ns_kind kind, uint64_t *ret_inode, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF, procfd = -EBADF;
        char path[32];
        struct stat st;
        int r;

        if (!id || (unsigned)kind >= _NS_KIND_MAX)
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "invalid namespace kind");
        r = target_open(id, &pidfd, &procfd, reterr);
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "ns/%s", kinds[kind].name);
        if (fstatat(procfd, path, &st, 0) < 0) {
                r = negative_errno();
                /* A process that exited (or is a zombie) has no namespaces left. */
                if (r == -ENOENT || r == -ESRCH)
                        return gone(reterr, id);
                return mh_error_fail(
                        reterr, r, "namespace", "/proc/%d/%s: %s", (int)id->pid, path, strerror(-r));
        }
        *ret_inode = (uint64_t)st.st_ino;
        return 0;
}

/* ---- the child ---- */

_printf_(3, 4) static int child_fail(char *msg, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, REPLY_MSG_MAX, fmt, ap);
        va_end(ap);
        return r;
}

static int child_enter(int pidfd, int procfd, unsigned mask, char *msg) {
        char names[64];
        int flags = 0, r;

        mask_to_string(mask, names, sizeof(names));
        for (size_t i = 0; i < _NS_KIND_MAX; i++)
                if (mask & NS_BIT(i))
                        flags |= kinds[i].flag;
        if (setns(pidfd, flags) >= 0)
                return 0;
        r = negative_errno();
        if (r == -ESRCH)
                return child_fail(
                        msg, r, "the target exited before its namespaces (%s) were entered", names);
        if (r != -EINVAL)
                return child_fail(
                        msg, r, "setns(pidfd, %s): %s%s", names, strerror(-r),
                        r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");

        /* Linux < 5.8 does not take a pidfd here (EINVAL): one /proc/PID/ns
         * file per namespace, all opened before the first setns(). EINVAL also
         * comes from a request the kernel refuses either way; the per-file
         * setns() below then names the namespace at fault. */
        int fds[_NS_KIND_MAX];
        for (size_t i = 0; i < _NS_KIND_MAX; i++)
                fds[i] = -EBADF;
        r = 0;
        for (size_t i = 0; i < _NS_KIND_MAX && r == 0; i++) {
                enum ns_kind k = enter_order[i];
                char path[32];
                if (!(mask & NS_BIT(k)))
                        continue;
                snprintf(path, sizeof(path), "ns/%s", kinds[k].name);
                fds[k] = openat(procfd, path, O_RDONLY | O_CLOEXEC);
                if (fds[k] < 0) {
                        r = negative_errno();
                        if (r == -ENOENT || r == -ESRCH)
                                r = child_fail(
                                        msg, -ESRCH, "the target exited before its %s namespace was entered",
                                        kinds[k].name);
                        else
                                r = child_fail(msg, r, "open /proc/PID/%s: %s", path, strerror(-r));
                }
        }
        for (size_t i = 0; i < _NS_KIND_MAX && r == 0; i++) {
                enum ns_kind k = enter_order[i];
                if (fds[k] < 0)
                        continue;
                if (setns(fds[k], kinds[k].flag) < 0) {
                        r = negative_errno();
                        r = child_fail(
                                msg, r, "setns(%s): %s%s", kinds[k].name, strerror(-r),
                                r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
                }
        }
        for (size_t i = 0; i < _NS_KIND_MAX; i++)
                closep(&fds[i]);
        return r;
}

static int send_reply(int sock, const struct reply *rep, int fd) {
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } control;
        struct iovec iov = {
                .iov_base = (void *)rep,
                .iov_len = REPLY_HEADER_SIZE + rep->out_len,
        };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (fd >= 0) {
                memset(&control, 0, sizeof(control));
                mh.msg_control = control.buf;
                mh.msg_controllen = sizeof(control.buf);
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        for (;;) {
                if (sendmsg(sock, &mh, MSG_NOSIGNAL) >= 0)
                        return 0;
                if (errno != EINTR)
                        return negative_errno();
        }
}

_noreturn_ static void child_main(
        int sock, pid_t parent, int pidfd, int procfd, unsigned mask, ns_fd_fn fn, void *arg) {
        static struct reply rep; /* the child's own copy; too big for a small thread stack */
        sigset_t none;
        int pass_fd = -1;

        memset(&rep, 0, sizeof(rep));
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                _exit(CHILD_EXIT_NO_REPLY);
        /* The parent may have died before the death signal was armed. */
        if (getppid() != parent)
                _exit(CHILD_EXIT_NO_REPLY);

        if (mask != 0)
                rep.status = child_enter(pidfd, procfd, mask, rep.msg);
        closep(&pidfd);
        closep(&procfd);
        if (rep.status == 0) {
                size_t len = NS_RESULT_MAX;
                rep.fn_result = fn(arg, rep.out, &len, &pass_fd);
                if (len > NS_RESULT_MAX) {
                        rep.status = child_fail(
                                rep.msg, -EPROTO, "the function reported %zu bytes, more than %d", len,
                                NS_RESULT_MAX);
                        len = 0;
                }
                rep.out_len = (uint32_t)len;
        }
        if (send_reply(sock, &rep, pass_fd) < 0)
                _exit(CHILD_EXIT_NO_REPLY);
        _exit(EXIT_SUCCESS);
}

/* ---- the parent ---- */

static int remaining_ms(int64_t deadline) {
        int64_t left = deadline - (int64_t)monotonic_ms();
        return left < 0 ? 0 : (int)MIN(left, (int64_t)INT32_MAX);
}

/* Receives the reply without blocking: 1 got it, 0 nothing yet, -EPIPE the
 * child closed the socket without answering, -EPROTO a malformed reply. A
 * descriptor that came with it goes to *ret_fd. */
static int reply_receive(int sock, struct reply *rep, int *ret_fd) {
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * 4)];
        } control;
        struct iovec iov = { .iov_base = rep, .iov_len = sizeof(*rep) };
        struct msghdr mh = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        ssize_t n;

        do
                n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EAGAIN ? 0 : negative_errno();
        if (n == 0)
                return -EPIPE;

        _cleanup_close_ int fd = -EBADF;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < nfds; i++) {
                        int got;
                        memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                        if (fd < 0)
                                fd = got;
                        else
                                close(got); /* more than we asked for */
                }
        }
        if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t)n < REPLY_HEADER_SIZE ||
            rep->out_len > NS_RESULT_MAX || (size_t)n != REPLY_HEADER_SIZE + rep->out_len)
                return -EPROTO;
        rep->msg[REPLY_MSG_MAX - 1] = '\0';
        *ret_fd = TAKE_FD(fd);
        return 1;
}

static void child_reap(pid_t pid, int *ret_status) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (ret_status)
                *ret_status = status;
}

static int child_died(struct mh_error *reterr, int status) {
        if (WIFSIGNALED(status))
                return mh_error_fail(
                        reterr, -ECHILD, "namespace_child",
                        "the namespace helper was killed by signal %d (%s) before it answered",
                        WTERMSIG(status), strsignal(WTERMSIG(status)));
        return mh_error_fail(
                reterr, -ECHILD, "namespace_child",
                "the namespace helper exited with status %d before it answered",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int ns_run_fd(
        const struct proc_identity *id, unsigned ns_mask, ns_fd_fn fn, void *arg, int timeout_ms,
        char *ret_out, size_t *ret_len, int *ret_fn_result, int *ret_fd, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF, procfd = -EBADF, child_pidfd = -EBADF, passed = -EBADF;
        struct reply rep;
        int sv[2], r, status;
        char names[64];

        if (!fn || timeout_ms <= 0 || (ns_mask & ~NS_ALL_MASK) || (ns_mask != 0 && !id))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "ns_run: invalid arguments (namespace mask 0x%x, timeout %d ms)", ns_mask,
                        timeout_ms);
        mask_to_string(ns_mask, names, sizeof(names));

        int64_t deadline = (int64_t)monotonic_ms() + timeout_ms;
        if (ns_mask != 0) {
                r = target_open(id, &pidfd, &procfd, reterr);
                if (r < 0)
                        return r;
        }
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "namespace", "socketpair: %s", strerror(-r));
        }
        _cleanup_close_ int sock = sv[0], child_sock = sv[1];

        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "namespace", "fork: %s", strerror(-r));
        }
        if (pid == 0) {
                closep(&sock);
                child_main(child_sock, parent, pidfd, procfd, ns_mask, fn, arg);
        }
        closep(&child_sock);
        /* The child is ours and not reaped, so its pid cannot be reused: the
         * pidfd tells us when it exits even if something it started still
         * holds its end of the socket. Without pidfd_open (Linux < 5.3) the
         * socket's end-of-file has to do. */
        child_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

        bool answered = false, exited = false;
        memset(&rep, 0, REPLY_HEADER_SIZE);
        r = 0;
        while (!answered) {
                int left = remaining_ms(deadline);
                if (left == 0) {
                        r = -ETIMEDOUT;
                        break;
                }
                struct pollfd p[2] = {
                        { .fd = sock, .events = POLLIN },
                        { .fd = child_pidfd, .events = POLLIN },
                };
                int n = poll(p, child_pidfd >= 0 ? 2 : 1, left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = negative_errno();
                        break;
                }
                if (n == 0)
                        continue;
                if (p[1].revents)
                        exited = true;
                r = reply_receive(sock, &rep, &passed);
                if (r == 1) {
                        answered = true;
                        r = 0;
                } else if (r == 0 && exited) {
                        r = -EPIPE; /* exited, and nothing is queued */
                } else if (r == 0) {
                        continue;
                }
                if (r < 0)
                        break;
        }

        if (r == -EPIPE) {
                /* The child is gone or going without an answer: reap it to say why. */
                child_reap(pid, &status);
                return child_died(reterr, status);
        }
        if (answered && !exited) {
                /* It is on its way to _exit(); give it what is left of the time.
                 * Without a pidfd, waitpid() below waits for that exit. */
                exited = child_pidfd < 0 || proc_pidfd_wait_exit(child_pidfd, remaining_ms(deadline)) == 1;
        }
        if (!answered || !exited)
                (void)kill(pid, SIGKILL);
        child_reap(pid, &status);

        if (r == -ETIMEDOUT && id)
                return mh_error_fail(
                        reterr, r, "timeout",
                        "the function in the namespaces (%s) of process %d did not finish within %d ms; "
                        "killed it",
                        names, (int)id->pid, timeout_ms);
        if (r == -ETIMEDOUT)
                return mh_error_fail(
                        reterr, r, "timeout", "the forked function did not finish within %d ms; killed it",
                        timeout_ms);
        if (r == -EPROTO)
                return mh_error_fail(
                        reterr, r, "namespace_child", "malformed reply from the namespace helper");
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "namespace", "waiting for the namespace helper: %s", strerror(-r));
        if (rep.status < 0) {
                if (rep.status == -ESRCH && id)
                        return gone(reterr, id);
                return mh_error_fail(
                        reterr, rep.status, "namespace", "process %d: %s", id ? (int)id->pid : 0, rep.msg);
        }

        if (ret_out)
                memcpy(ret_out, rep.out, rep.out_len);
        if (ret_len)
                *ret_len = rep.out_len;
        if (ret_fn_result)
                *ret_fn_result = rep.fn_result;
        if (ret_fd)
                *ret_fd = TAKE_FD(passed);
        return 0;
}

struct plain_call {
        ns_fn fn;
        void *arg;
};

static int plain_trampoline(void *arg, char *out, size_t *out_len, int *ret_fd) {
        struct plain_call *c = arg;
        return c->fn(c->arg, out, out_len);
}

int ns_run(
        const struct proc_identity *id, unsigned ns_mask, ns_fn fn, void *arg, int timeout_ms, char *ret_out,
        size_t *ret_len, int *ret_fn_result, struct mh_error *reterr) {
        struct plain_call c = { .fn = fn, .arg = arg };
        if (!fn)
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "ns_run: no function");
        return ns_run_fd(
                id, ns_mask, plain_trampoline, &c, timeout_ms, ret_out, ret_len, ret_fn_result, NULL,
                reterr);
}

/* ---- the network namespace on a thread of our own ---- */

/* The visiting threads run on stacks of ours, kept for the next visit: a
 * stack glibc allocates is cut back with MADV_DONTNEED when its thread exits,
 * so every visit faulted its pages in again and the join waited for the cut
 * (measured on Linux 6.18: ~25 us of a ~500 us inject). Room for fn's
 * netlink buffers with sanitizers on; only the pages touched count. */
#define VISIT_STACK_SIZE  (1024u * 1024u)
#define VISIT_STACKS_KEPT 4

static pthread_mutex_t stacks_lock = PTHREAD_MUTEX_INITIALIZER;
static void *stacks_kept[VISIT_STACKS_KEPT];
static size_t n_stacks_kept;

/* A stack with a guard page at its low end, or NULL. */
static void *stack_take(void) {
        void *p = NULL;
        pthread_mutex_lock(&stacks_lock);
        if (n_stacks_kept > 0)
                p = stacks_kept[--n_stacks_kept];
        pthread_mutex_unlock(&stacks_lock);
        if (p)
                return p;
        int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE;
        p = mmap(NULL, VISIT_STACK_SIZE, PROT_READ | PROT_WRITE, flags, -1, 0);
        if (p == MAP_FAILED)
                return NULL;
        if (mprotect(p, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE) < 0) {
                munmap(p, VISIT_STACK_SIZE);
                return NULL;
        }
        return p;
}

/* Only for a stack whose thread was joined: nothing runs on it any more. */
static void stack_give(void *p) {
        pthread_mutex_lock(&stacks_lock);
        if (n_stacks_kept < VISIT_STACKS_KEPT) {
                stacks_kept[n_stacks_kept++] = p;
                p = NULL;
        }
        pthread_mutex_unlock(&stacks_lock);
        if (p)
                munmap(p, VISIT_STACK_SIZE);
}

struct net_visit {
        const struct proc_identity *id; /* NULL: a new network namespace */
        int pidfd;
        ns_net_fn fn;
        void *arg;
        struct mh_error *reterr;
        int result;
};

static int setns_fail(struct mh_error *reterr, const struct proc_identity *id, const char *how, int r) {
        return mh_error_fail(
                reterr, r, "namespace", "process %d: setns(%s, net): %s%s", (int)id->pid, how, strerror(-r),
                r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
}

/* Runs on the visiting thread: only its namespace changes. */
static int net_enter(const struct net_visit *v) {
        _cleanup_close_ int procfd = -EBADF, nsfd = -EBADF;
        char path[64];
        int r;

        if (!v->id) {
                if (unshare(CLONE_NEWNET) >= 0)
                        return 0;
                r = negative_errno();
                return mh_error_fail(
                        v->reterr, r, "namespace", "unshare(CLONE_NEWNET): %s%s", strerror(-r),
                        r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
        }
        if (setns(v->pidfd, CLONE_NEWNET) >= 0)
                return 0;
        r = negative_errno();
        if (r == -ESRCH)
                return gone(v->reterr, v->id);
        if (r != -EINVAL)
                return setns_fail(v->reterr, v->id, "pidfd", r);

        /* Linux < 5.8 takes no pidfd here. The directory is opened after the
         * pidfd's start-time check and the pidfd asked once more whether its
         * process is alive: if so, the pid was never free in between, and
         * /proc/PID is the process id names. */
        snprintf(path, sizeof(path), "/proc/%d", (int)v->id->pid);
        procfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (procfd < 0) {
                r = negative_errno();
                if (r == -ENOENT)
                        return gone(v->reterr, v->id);
                return mh_error_fail(v->reterr, r, "proc", "%s: %s", path, strerror(-r));
        }
        if (syscall(SYS_pidfd_send_signal, v->pidfd, 0, NULL, 0) < 0) {
                r = negative_errno();
                if (r == -ESRCH)
                        return gone(v->reterr, v->id);
                return mh_error_fail(v->reterr, r, "proc", "process %d: %s", (int)v->id->pid, strerror(-r));
        }
        nsfd = openat(procfd, "ns/net", O_RDONLY | O_CLOEXEC);
        if (nsfd < 0) {
                r = negative_errno();
                /* A process that exited (or is a zombie) has no namespaces left. */
                if (r == -ENOENT || r == -ESRCH)
                        return gone(v->reterr, v->id);
                return mh_error_fail(
                        v->reterr, r, "namespace", "open /proc/%d/ns/net: %s", (int)v->id->pid,
                        strerror(-r));
        }
        if (setns(nsfd, CLONE_NEWNET) < 0)
                return setns_fail(v->reterr, v->id, "/proc/PID/ns/net", negative_errno());
        return 0;
}

static void *net_visit_main(void *arg) {
        struct net_visit *v = arg;
        int r = net_enter(v);
        v->result = r < 0 ? r : v->fn(v->arg, v->reterr);
        return NULL;
}

/* Runs v on a new thread with every signal blocked, and joins it. */
static int net_visit_run(struct net_visit *v, struct mh_error *reterr) {
        pthread_attr_t attr;
        sigset_t all;
        pthread_t t;
        int r;

        r = -pthread_attr_init(&attr);
        if (r < 0)
                return mh_error_fail(reterr, r, "namespace", "pthread_attr_init: %s", strerror(-r));
        /* Without a stack of ours (out of memory), glibc's will do. */
        void *stack = stack_take();
        if (stack)
                r = -pthread_attr_setstack(&attr, stack, VISIT_STACK_SIZE);
        /* Blocked from its first instruction: a signal meant for the process
         * is never handled on a thread that is inside another namespace. */
        sigfillset(&all);
        if (r == 0)
                r = -pthread_attr_setsigmask_np(&attr, &all);
        if (r == 0)
                r = -pthread_create(&t, &attr, net_visit_main, v);
        pthread_attr_destroy(&attr);
        if (r < 0) {
                if (stack)
                        stack_give(stack);
                return mh_error_fail(
                        reterr, r, "namespace", "no thread to enter a network namespace on: %s",
                        strerror(-r));
        }
        r = pthread_join(t, NULL);
        assert(r == 0); /* our own joinable thread */
        if (stack)
                stack_give(stack); /* joined: nothing runs on it any more */
        return v->result;
}

int ns_net_run(const struct proc_identity *id, ns_net_fn fn, void *arg, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF;
        int r;

        if (!id || !fn)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "ns_net_run: no target or function");
        r = proc_pidfd_open(id, &pidfd, reterr);
        if (r < 0)
                return r;
        struct net_visit v = { .id = id, .pidfd = pidfd, .fn = fn, .arg = arg, .reterr = reterr };
        return net_visit_run(&v, reterr);
}

int ns_net_run_new(ns_net_fn fn, void *arg, struct mh_error *reterr) {
        if (!fn)
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "ns_net_run_new: no function");
        struct net_visit v = { .pidfd = -EBADF, .fn = fn, .arg = arg, .reterr = reterr };
        return net_visit_run(&v, reterr);
}

int ns_enter_self(const struct proc_identity *id, unsigned ns_mask, struct mh_error *reterr) {
        _cleanup_close_ int pidfd = -EBADF, procfd = -EBADF;
        char msg[REPLY_MSG_MAX] = "";
        if (!id || (ns_mask & ~NS_ALL_MASK))
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "invalid namespace set");
        int r = target_open(id, &pidfd, &procfd, reterr);
        if (r < 0)
                return r;
        r = child_enter(pidfd, procfd, ns_mask, msg);
        return r < 0 ? mh_error_fail(reterr, r, r == -ESRCH ? "process_gone" : "namespace", "%s", msg) : 0;
}
