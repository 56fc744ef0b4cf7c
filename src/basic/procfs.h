#pragma once

/* Processes as /proc shows them, read only: a process named by pid *and*
 * start time, so a recycled pid is never taken for the process we meant.
 * Acting on one (signals through pidfds) is sys/process.h's, in the agent;
 * the controller reads these to check on itself and for host probes. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/error.h"

struct proc_identity {
        pid_t pid;
        uint64_t start_time; /* /proc/PID/stat field 22, clock ticks since boot */
};

/* The identity of pid now; -ESRCH when there is no such process. */
int proc_identity_read(pid_t pid, struct proc_identity *ret, struct mh_error *reterr);

/* The state letter of /proc/PID/stat ('R', 'S', 'T', 'Z', ...) when the process
 * is still the one id names; -ESRCH otherwise. */
int proc_state(const struct proc_identity *id, char *ret_state, struct mh_error *reterr);

/* What /proc/PID/stat says of a process, beyond its identity. */
struct proc_info {
        pid_t pid, ppid;
        char state;
        unsigned flags; /* field 9: the kernel's PF_* bits (PF_KTHREAD 0x00200000: a kernel thread) */
        uint64_t start_time;
};

/* -ESRCH when there is no such process, -EPROTO for a stat line we cannot read. */
int proc_info_read(pid_t pid, struct proc_info *ret);
/* The thread group (process) a pid belongs to: pid itself for a process, its
 * process for a thread id (/proc/TID is there too, though /proc lists no TID). */
int proc_tgid(pid_t pid, pid_t *ret);
/* /proc/PID/comm without its newline, or "?" when it cannot be read. */
void proc_comm(pid_t pid, char *buf, size_t size);

/* Calls fn for every live process (not a zombie) whose /proc/PID/comm is
 * name, until fn returns non-zero, and returns that (or -errno for /proc). */
int proc_each_named(const char *name, int (*fn)(const struct proc_info *p, void *userdata), void *userdata);

enum proc_scope {
        PROC_SCOPE_HOST, /* processes of the host only, none inside a container (proc-scope.h) */
        PROC_SCOPE_ANY,  /* containers' processes too */
};

/* The live process whose /proc/PID/comm is name, among those of scope:
 * -ESRCH when none (the message names the ones of that name the scope left
 * out), -ENOTUNIQ (the message lists pids) when several, so a signal never
 * hits the wrong one. */
int proc_find_by_name(
        const char *name, enum proc_scope scope, struct proc_identity *ret, struct mh_error *reterr);

/* For sys/process.c: the process behind id now (its state letter), or
 * -ESRCH when the pid is free or reused; and the error for a gone process. */
int proc_same(const struct proc_identity *id, char *ret_state);
int proc_gone(struct mh_error *reterr, const struct proc_identity *id);
