#pragma once

/* The processes of a host that mayhem never acts on, whatever a drill or a
 * request says: init (pid 1), kernel threads, and the process asking (the
 * controller when it plans, the agent when it resolves or acts), its
 * threads, its ancestors (the controller that started an agent, the shell
 * or ssh session above it) and its children (an agent's helpers). Reads
 * /proc; touches nothing. */

#include <stddef.h>
#include <sys/types.h>

#define PF_KTHREAD_BIT     0x00200000u /* include/linux/sched.h: PF_KTHREAD */
#define PROC_ANCESTORS_MAX 4096        /* a parent chain longer than this is not walked further */

enum proc_guard {
        PROC_GUARD_NONE,     /* none of them */
        PROC_GUARD_INIT,     /* pid 1 */
        PROC_GUARD_KERNEL,   /* a kernel thread: kthreadd (pid 2) and what it starts */
        PROC_GUARD_SELF,     /* the asking process, or one of its threads */
        PROC_GUARD_ANCESTOR, /* its parent, the parent's parent, ... */
        PROC_GUARD_CHILD,    /* a child of the asking process */
        _PROC_GUARD_MAX,
};

/* Which of them pid is, seen from the process self (who names it in the
 * reason: "controller", "agent"). A thread id counts as its process.
 * PROC_GUARD_NONE also when there is no such process (nothing to protect:
 * resolving it fails later). Otherwise why gets one line: "pid 2 (kthreadd)
 * is a kernel thread". */
enum proc_guard proc_guard_check(pid_t pid, pid_t self, const char *who, char *why, size_t size);

/* The same for every process named name (/proc/PID/comm): the first one the
 * guard protects, or PROC_GUARD_NONE. */
enum proc_guard proc_guard_check_name(const char *name, pid_t self, const char *who, char *why, size_t size);

/* "init", "kernel_thread", "self", "ancestor", "child"; NULL for NONE. */
const char *proc_guard_to_string(enum proc_guard g);
