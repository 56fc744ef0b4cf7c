#include "proc-guard.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "basic/macro.h"
#include "basic/procfs.h"

static const char *const guard_names[_PROC_GUARD_MAX] = {
        [PROC_GUARD_INIT] = "init",   [PROC_GUARD_KERNEL] = "kernel_thread",
        [PROC_GUARD_SELF] = "self",   [PROC_GUARD_ANCESTOR] = "ancestor",
        [PROC_GUARD_CHILD] = "child",
};

const char *proc_guard_to_string(enum proc_guard g) {
        return (unsigned)g < _PROC_GUARD_MAX ? guard_names[g] : NULL;
}

/* How many generations above self pid is (1: the parent), or 0 when it is
 * not an ancestor of self. */
static unsigned generation_of(pid_t pid, pid_t self) {
        struct proc_info p;
        pid_t at = self;
        for (unsigned g = 1; g <= PROC_ANCESTORS_MAX; g++) {
                if (proc_info_read(at, &p) < 0 || p.ppid <= 0)
                        return 0;
                if (p.ppid == pid)
                        return g;
                at = p.ppid;
        }
        return 0;
}

/* "pid 7 (bash)", or "pid 9, a thread of pid 7 (bash)," for a thread id. */
static void subject(pid_t pid, pid_t tgid, char *buf, size_t size) {
        char comm[32];
        proc_comm(tgid, comm, sizeof(comm));
        if (pid == tgid)
                snprintf(buf, size, "pid %d (%s)", (int)pid, comm);
        else
                snprintf(buf, size, "pid %d, a thread of pid %d (%s),", (int)pid, (int)tgid, comm);
}

static enum proc_guard classify(pid_t tgid, pid_t self, unsigned *ret_generation) {
        struct proc_info p;
        if (tgid == 1)
                return PROC_GUARD_INIT;
        if (proc_info_read(tgid, &p) < 0)
                return PROC_GUARD_NONE;
        if (p.flags & PF_KTHREAD_BIT)
                return PROC_GUARD_KERNEL;
        if (tgid == self)
                return PROC_GUARD_SELF;
        if (p.ppid == self)
                return PROC_GUARD_CHILD;
        *ret_generation = generation_of(tgid, self);
        return *ret_generation ? PROC_GUARD_ANCESTOR : PROC_GUARD_NONE;
}

enum proc_guard proc_guard_check(pid_t pid, pid_t self, const char *who, char *why, size_t size) {
        pid_t tgid = pid;
        unsigned gen = 0;
        char subj[96];
        if (pid <= 0)
                return PROC_GUARD_NONE;
        if (proc_tgid(pid, &tgid) < 0)
                tgid = pid;
        enum proc_guard g = classify(tgid, self, &gen);
        if (g == PROC_GUARD_NONE)
                return g;
        subject(pid, tgid, subj, sizeof(subj));
        switch (g) {
        case PROC_GUARD_INIT: snprintf(why, size, "%s is the init process", subj); break;
        case PROC_GUARD_KERNEL: snprintf(why, size, "%s is a kernel thread", subj); break;
        case PROC_GUARD_SELF: snprintf(why, size, "%s is the %s itself", subj, who); break;
        case PROC_GUARD_CHILD: snprintf(why, size, "%s is a child of the %s", subj, who); break;
        default:
                if (gen == 1)
                        snprintf(why, size, "%s is the %s's parent", subj, who);
                else
                        snprintf(
                                why, size, "%s is an ancestor of the %s (%u generations up)", subj, who,
                                gen);
        }
        return g;
}

struct named {
        pid_t self;
        const char *who;
        char *why;
        size_t size;
};

static int check_named(const struct proc_info *p, void *userdata) {
        struct named *n = userdata;
        return (int)proc_guard_check(p->pid, n->self, n->who, n->why, n->size);
}

enum proc_guard proc_guard_check_name(
        const char *name, pid_t self, const char *who, char *why, size_t size) {
        struct named n = { .self = self, .who = who, .why = why, .size = size };
        int r = proc_each_named(name, check_named, &n);
        return r > 0 ? (enum proc_guard)r : PROC_GUARD_NONE;
}
