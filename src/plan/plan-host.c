/* The host gate: a plain host process as a target is never one mayhem must
 * leave alone (basic/proc-guard.h): init, a kernel thread, the controller
 * planning it, its threads, ancestors and children, or mayhem's own
 * programs by name. The agent checks the same again on its side, for its
 * own process tree, before it resolves or touches anything. */
#include "plan-internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/proc-guard.h"

/* The controller's and the agent's program names (their /proc/PID/comm). */
static const char *const own_programs[] = { "mayhem", "mayhem-agent" };

static const char *rule_of(enum proc_guard g) {
        switch (g) {
        case PROC_GUARD_INIT: return "safety.host_init";
        case PROC_GUARD_KERNEL: return "safety.host_kernel_thread";
        default: return "safety.host_mayhem";
        }
}

static bool own_program(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(own_programs); i++)
                if (strcmp(name, own_programs[i]) == 0)
                        return true;
        return false;
}

/* What this machine's /proc says: only when the targets live here. */
static enum proc_guard local_guard(const struct drill_target *t, char *why, size_t size) {
        pid_t self = getpid();
        if (t->process_name)
                return proc_guard_check_name(t->process_name, self, "controller", why, size);
        return proc_guard_check((pid_t)t->process_pid, self, "controller", why, size);
}

int plan_host_refusal(
        const struct plan_builder *b, const struct drill_target *t, const char **ret_rule, char *reason,
        size_t size) {
        enum proc_guard g = PROC_GUARD_NONE;
        char why[256], name[64] = "";
        if (t->runtime != TARGET_RUNTIME_PROCESS)
                return 0;
        if (t->process_name)
                snprintf(name, sizeof(name), " (name '%s')", t->process_name);
        if (t->process_name && own_program(t->process_name)) {
                snprintf(why, sizeof(why), "'%s' is the name of mayhem's own program", t->process_name);
                g = PROC_GUARD_SELF;
        } else if (b->host == PLAN_HOST_LOCAL)
                g = local_guard(t, why, sizeof(why));
        else if (t->process_pid == 1) { /* init is pid 1 on every host */
                snprintf(why, sizeof(why), "pid 1 is the init process");
                g = PROC_GUARD_INIT;
        }
        if (g == PROC_GUARD_NONE)
                return 0;
        snprintf(reason, size, "target '%s'%s: %s; a drill never targets it", t->name, name, why);
        *ret_rule = rule_of(g);
        return 1;
}
