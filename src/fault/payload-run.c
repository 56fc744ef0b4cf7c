#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/strv.h"
#include "fault/payload.h"
#include "sys/cgroup.h"
#include "sys/ns.h"

/* The payload process (payload.h): this side never runs in the agent. */

struct payload_args {
        const char *fault, *lease, *params;
        int64_t pid, start, parent;
};

static int parse(int argc, char **argv, struct payload_args *a) {
        a->fault = argv_option(argc, argv, "--fault");
        a->lease = argv_option(argc, argv, "--lease");
        a->params = argv_option(argc, argv, "--params");
        bool numbers = argv_option_int64(argc, argv, "--pid", &a->pid) >= 0 &&
                       argv_option_int64(argc, argv, "--start", &a->start) >= 0 &&
                       argv_option_int64(argc, argv, "--parent", &a->parent) >= 0;
        return numbers && a->fault && a->lease && a->params && a->pid > 0 && a->pid <= INT32_MAX &&
                               a->start >= 0 && a->parent > 0
                       ? 0
                       : -EINVAL;
}

_printf_(3, 0) static void say(int fd, const char *word, const char *fmt, va_list ap) {
        char line[PAYLOAD_LINE_MAX];
        int n = snprintf(line, sizeof(line), "%s ", word);
        vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
        for (char *p = line; *p; p++)
                if (*p == '\n')
                        *p = ' ';
        size_t len = strlen(line);
        line[len++] = '\n';
        ssize_t w = write(fd, line, len);
        (void)w;
}

void payload_ready(struct payload_ctx *c, const char *fmt, ...) {
        va_list ap;
        if (c->ready_sent)
                return;
        c->ready_sent = true;
        va_start(ap, fmt);
        say(c->out, "ready", fmt, ap);
        va_end(ap);
}

void payload_progress(struct payload_ctx *c, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        say(c->out, "progress", fmt, ap);
        va_end(ap);
}

bool payload_stopped(struct payload_ctx *c, int ms) {
        struct pollfd p = { .fd = c->in, .events = POLLIN };
        int r;
        while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
                ;
        return r != 0;
}

_printf_(3, 4) static void sayf(int fd, const char *word, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        say(fd, word, fmt, ap);
        va_end(ap);
}

static void report_error(const struct mh_error *e) {
        sayf(STDOUT_FILENO, "error", "%s", e->msg[0] ? e->msg : "the payload failed");
}

/* Only the capabilities in keep (1 << CAP_* bits) that the process has,
 * and no way to gain any. One the agent lacks (a bounding set without
 * CAP_SYS_RESOURCE) is not asked for: the body fails where it needs it,
 * and says why. */
static int drop_capabilities(uint64_t keep, struct mh_error *reterr) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = { 0 }, now[2] = { 0 };
        if (syscall(SYS_capget, &h, now) < 0)
                return mh_error_fail(
                        reterr, negative_errno(), "payload", "cannot read capabilities: %s",
                        strerror(errno));
        for (int i = 0; i < 2; i++)
                d[i].effective = d[i].permitted = (uint32_t)(keep >> (32 * i)) & now[i].permitted;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_capset, &h, d) < 0)
                return mh_error_fail(
                        reterr, negative_errno(), "payload", "cannot drop capabilities: %s",
                        strerror(errno));
        return 0;
}

/* The parent is still there: the pipe it holds the write end of (alone,
 * since the child closed its copy) has not hung up. getppid() cannot tell:
 * the parent is outside the pid namespace the body is in, so it reads 0. */
static bool parent_alive(int lifeline) {
        struct pollfd p = { .fd = lifeline, .events = POLLIN };
        return poll(&p, 1, 0) == 0;
}

/* The forked body, in the target's pid namespace; never returns. */
_noreturn_ static void body_main(const struct fault_exec *fx, int lifeline) {
        struct mh_error e = { 0 };
        struct payload_ctx c = { .fx = fx, .in = STDIN_FILENO, .out = STDOUT_FILENO };
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || !parent_alive(lifeline))
                _exit(1);
        close(lifeline);
        fcntl(STDOUT_FILENO, F_SETFL, O_NONBLOCK);
        int r = drop_capabilities(fx->mech->payload_caps, &e);
        if (r >= 0)
                r = fx->mech->payload(&c, &e);
        if (r < 0)
                report_error(&e);
        _exit(r < 0 ? 1 : 0);
}

static int oom_first(struct mh_error *reterr) {
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? write(fd, "1000", 4) : -1;
        int r = n == 4 ? 0 : negative_errno();
        if (fd >= 0)
                close(fd);
        return r < 0 ? mh_error_fail(reterr, r, "payload", "oom_score_adj: %s", strerror(-r)) : 0;
}

/* The end of a process that entered the target's pid namespace: no exit
 * handlers, which would fork into that namespace (LeakSanitizer's
 * StopTheWorld does, and spins forever on a parent its tracer cannot see). */
_noreturn_ static void end(int r, const struct mh_error *e) {
        if (r < 0 && r != -ECHILD)
                report_error(e);
        _exit(r < 0 ? 1 : 0);
}

/* Into the target's cgroups and namespaces, then the body in a child (the
 * pid namespace takes effect for children only); waits for it. Returns only
 * when it failed before it set about entering the namespaces. */
static int enter_and_run(struct fault_exec *fx, struct mh_error *reterr) {
        int lifeline[2], status = 0;
        int r = oom_first(reterr);
        if (r >= 0)
                r = cgroup_join(&fx->target.main, getpid(), reterr);
        if (r < 0)
                return r;
        if ((r = ns_enter_self(&fx->target.main, NS_BIT(NS_PID) | fx->mech->payload_ns, reterr)) < 0)
                end(r, reterr);
        if (pipe2(lifeline, O_CLOEXEC) < 0)
                end(mh_error_fail(reterr, negative_errno(), "payload", "pipe: %s", strerror(errno)), reterr);
        pid_t child = fork();
        if (child < 0)
                end(mh_error_fail(reterr, negative_errno(), "payload", "fork: %s", strerror(errno)), reterr);
        if (child == 0) {
                close(lifeline[1]);
                body_main(fx, lifeline[0]);
        }
        close(lifeline[0]);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        /* Processes a body cloned with CLONE_PARENT are ours (the children
         * of process.child_exhaust): reaped here, once they see the body
         * gone, so their zombies leave no pid charged to the target. */
        while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
                ;
        end(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD, reterr);
}

static int bind_lease(
        const struct payload_args *a, json_t *params, struct fault_exec *fx, struct mh_error *reterr) {
        const struct fault_def *def = catalog_find(a->fault);
        if (!def)
                return mh_error_fail(reterr, -EINVAL, "payload", "no fault %s in the catalog", a->fault);
        int r = fault_exec_bind(fx, def, params, NULL, reterr);
        if (r < 0)
                return r;
        if (!fx->mech || !fx->mech->payload)
                return mh_error_fail(reterr, -EOPNOTSUPP, "payload", "%s has no payload", a->fault);
        snprintf(fx->target.engine, sizeof(fx->target.engine), "host");
        snprintf(fx->target.container_name, sizeof(fx->target.container_name), "pid %d", (int)a->pid);
        fx->target.main = (struct proc_identity){ .pid = (pid_t)a->pid, .start_time = (uint64_t)a->start };
        return 0;
}

int fault_payload_run(int argc, char **argv, struct mh_error *reterr) {
        struct payload_args a = { 0 };
        struct fault_exec fx = { 0 };
        int r = 0;
        /* First, so an agent that dies from here on takes us with it; not
         * dumpable, so the target's root (uid 0, no capabilities, as our body
         * once it dropped them) cannot ptrace its way into what we hold. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || prctl(PR_SET_DUMPABLE, 0) < 0 ||
            parse(argc, argv, &a) < 0 || getppid() != a.parent)
                r = mh_error_fail(
                        reterr, -EINVAL, "usage",
                        "payload needs --fault, --lease, --pid, --start, --parent (its agent) and --params");
        json_t *params = r < 0 ? NULL : json_loads(a.params, 0, NULL);
        if (r >= 0 && !json_is_object(params))
                r = mh_error_fail(reterr, -EINVAL, "usage", "payload: --params takes a JSON object");
        fx.lease_id = a.lease;
        if (r >= 0)
                r = bind_lease(&a, params, &fx, reterr);
        if (r >= 0)
                r = enter_and_run(&fx, reterr);
        if (r < 0 && r != -ECHILD)
                report_error(reterr);
        json_decref(params);
        return r;
}
