#pragma once

/* Running our own code inside another process's namespaces (shared/STYLE.md,
 * "Namespaces, processes, fds"): the caller never calls setns() itself.
 *
 * - ns_net_run(): the network namespace only, on a dedicated short-lived
 *   thread of the caller's process. Network namespaces are per thread, so the
 *   thread enters the target's, runs a function there and exits; what the
 *   function opens (netlink, nft, NFQUEUE sockets) belongs to the target's
 *   namespace and stays in the caller's memory: no fork, no fd passing.
 * - ns_run() / ns_run_fd(): any set of namespaces, in a forked, short-lived
 *   child that reports back over a socketpair. Mount, pid and user namespaces
 *   need it: setns() of those fails in a multi-threaded process. */

#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "sys/process.h"

/* Names as in /proc/PID/ns. */
enum ns_kind {
        NS_NET,
        NS_MNT,
        NS_PID,
        NS_UTS,
        NS_IPC,
        NS_CGROUP,
        _NS_KIND_MAX,
};

#define NS_BIT(k)     (1u << (k))
#define NS_ALL_MASK   ((1u << _NS_KIND_MAX) - 1)
#define NS_RESULT_MAX 4096

/* "net", "mnt", ...; NULL for a value out of range. */
const char *ns_kind_to_string(enum ns_kind k);
/* -EINVAL for an unknown name. */
int ns_kind_from_string(const char *s);

/* Runs in the child. out holds *out_len bytes (NS_RESULT_MAX on entry); set
 * *out_len to what was written. The return value is handed to the caller as is. */
typedef int (*ns_fn)(void *arg, char *out, size_t *out_len);

/* Forks a child that enters the namespaces of id named by ns_mask (NS_BIT()s)
 * and calls fn(arg, out, &out_len) there; the parent never calls setns().
 *
 * How the namespaces are entered: the parent opens a pidfd for id with the
 * start-time check, then the child calls setns(pidfd, CLONE_NEW*) (Linux >=
 * 5.8, all namespaces at once). On older kernels it falls back to
 * /proc/PID/ns/<kind>, opened relative to a /proc/PID directory fd that the
 * parent opened *after* the pidfd check and re-verified against the pidfd, so a
 * recycled pid can never hand us someone else's namespaces.
 *
 * The child has PR_SET_PDEATHSIG(SIGKILL) (and checks that the parent did not
 * die before it was set). The death signal follows the parent *thread*: call
 * ns_run() from a thread that outlives the call (any thread does, since the
 * call waits). The child _exit()s and never returns into the caller's code.
 *
 * NS_PID: setns() into a pid namespace changes the namespace of the child's
 * future *children* only; fn itself keeps its pid. An fn that needs to be
 * inside the target's pid namespace forks once more (and reaps what it forks:
 * a timeout kills the direct child only).
 * NS_MNT: the child's root and cwd become the target's; /proc is then the
 * target's /proc, if it has one.
 *
 * fn runs in a forked copy of the caller: in a multi-threaded caller it must
 * not take locks other threads may have held at fork time (glibc's malloc is
 * safe; stdio streams are not guaranteed to be).
 *
 * id may be NULL only with ns_mask 0 (fn runs in a plain child, e.g. to
 * unshare() something throwaway). ret_out, when not NULL, must have room for
 * NS_RESULT_MAX bytes; *ret_len gets the byte count. timeout_ms (> 0) bounds
 * the whole call: past it the child is killed and reaped and the call fails
 * with -ETIMEDOUT.
 *
 * Returns 0 when fn ran (its return value in *ret_fn_result, whatever its
 * sign); -ESRCH when the target is gone (or its pid recycled); -EPERM/-EINVAL
 * from setns(); -ECHILD when the child died without answering (fn crashed);
 * -ETIMEDOUT; -EPROTO when fn reported more than NS_RESULT_MAX bytes. */
int ns_run(
        const struct proc_identity *id, unsigned ns_mask, ns_fn fn, void *arg, int timeout_ms, char *ret_out,
        size_t *ret_len, int *ret_fn_result, struct mh_error *reterr);

/* Like ns_fn, and fn may hand one file descriptor back to the caller by setting
 * *ret_fd (initially -1): it is passed with SCM_RIGHTS and arrives in the
 * caller O_CLOEXEC. This is how a socket opened inside the target's network
 * namespace (e.g. an nft owner table's netlink socket, see sys/nft.h) outlives
 * the child. */
typedef int (*ns_fd_fn)(void *arg, char *out, size_t *out_len, int *ret_fd);

/* ns_run() for an ns_fd_fn: *ret_fd gets the passed descriptor, or -EBADF when
 * fn passed none. ret_fd may be NULL (a passed descriptor is then closed). */
int ns_run_fd(
        const struct proc_identity *id, unsigned ns_mask, ns_fd_fn fn, void *arg, int timeout_ms,
        char *ret_out, size_t *ret_len, int *ret_fn_result, int *ret_fd, struct mh_error *reterr);

/* Runs on the ns_net_run() thread, inside the target's network namespace.
 * The caller waits for it, so arg and reterr may point into the caller's
 * stack. Returns >= 0 or -errno, with reterr set on failure. */
typedef int (*ns_net_fn)(void *arg, struct mh_error *reterr);

/* Calls fn(arg, reterr) on a new thread that has entered the network
 * namespace of id, and joins it. Only that thread changes namespace: the
 * caller's, and every other thread's, are untouched, before and after. The
 * thread exits after fn (it never goes back to a pool), so no later work can
 * find itself in the target's namespace.
 *
 * How the namespace is entered: a pidfd for id is opened and checked against
 * the start time, then the thread calls setns(pidfd, CLONE_NEWNET) (Linux >=
 * 5.8). On older kernels (EINVAL) it opens /proc/PID/ns/net relative to a
 * /proc/PID directory fd opened after the pidfd check and re-verified against
 * the pidfd, so a recycled pid never hands us someone else's namespace.
 *
 * fn runs in the caller's address space with all signals blocked: results
 * and descriptors come back through arg. It must bound its own waits (there
 * is no timeout: a thread cannot be killed); the netlink sockets of sys/ do,
 * with receive timeouts. Inside fn, /proc/self/net shows the namespace of the
 * thread group leader, not fn's: read /proc/thread-self/net. fn must not
 * fork() with the expectation of a single-threaded child, nor setns() into
 * anything but a network namespace.
 *
 * Returns what fn returned; or, when fn never ran: -EINVAL for a NULL id or
 * fn; -ESRCH when the target is gone (or its pid recycled); -EPERM / -EINVAL
 * from setns() (CAP_SYS_ADMIN missing, or a namespace the kernel refuses);
 * -EAGAIN / -ENOMEM when no thread could be created. The descriptors it
 * opened to get there are closed on every path. */
int ns_net_run(const struct proc_identity *id, ns_net_fn fn, void *arg, struct mh_error *reterr);

/* ns_net_run() into a new network namespace instead (unshare(CLONE_NEWNET) on
 * the thread): empty but for lo, which is down, and seen by nobody else. It
 * lives as long as something holds it, e.g. a socket fn opened there; with
 * nothing, it goes when the thread exits. -EPERM without CAP_SYS_ADMIN. */
int ns_net_run_new(ns_net_fn fn, void *arg, struct mh_error *reterr);

/* Enters the namespaces of id named by ns_mask in the calling process
 * itself, with the pidfd checks and the /proc fallback of ns_run()'s child.
 * Only for a single-threaded process that is about to do its work there (a
 * payload right after exec): the mount namespace refuses a multi-threaded
 * caller, and NS_PID takes effect for the caller's future children only.
 * -ESRCH when the target is gone; -EPERM / -EINVAL from setns(). */
int ns_enter_self(const struct proc_identity *id, unsigned ns_mask, struct mh_error *reterr);

/* The inode of /proc/PID/ns/<kind>, checked against id's start time (to record
 * a namespace identity in a lease). -ESRCH when the process is gone. Two
 * processes share a namespace when the inodes are equal (nsfs has a single
 * device). */
int ns_inode(
        const struct proc_identity *id, enum ns_kind kind, uint64_t *ret_inode, struct mh_error *reterr);
