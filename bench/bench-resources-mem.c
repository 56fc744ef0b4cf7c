/* The memory section of bench-resources: our mem.exhaust against
 * `stress-ng --vm 1 --vm-bytes N --vm-keep` (Debian's stress-ng) started in
 * the same memory cgroup, on one container, side by side in one run. For
 * each: the resident bytes the cgroup gained (memory.usage_in_bytes of v1,
 * memory.current of v2, read here from the host) against N and the error,
 * the time from start until the cgroup held 95% of N, and the RSS of the
 * tool's processes (VmRSS of /proc/PID/status: the balloon itself plus what
 * the tool costs on top). N is 50% of the container's limit (128 MiB on
 * 256 MiB); ours is asked for `amount: N` so both aim at the same bytes.
 *
 * stress-ng is moved into the container's memory cgroup only (v1 memory
 * hierarchy, or the unified group): what it charges is what we compare. It
 * keeps the host's mount and pid namespaces; ours runs in the container's.
 *
 * Run by bench-resources on its container (--memory 256m). Needs root,
 * dockerd and stress-ng. Prints; never fails on figures. */

#include "bench-resources.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/run-command.h"

#define MiB        (1024.0 * 1024.0)
#define SETTLE_MS  3000
#define REACHED_AT 0.95
#define PATH_MAX_  700
#define PROCS_MAX  256

struct cg {
        char dir[PATH_MAX_];
        bool v2;
};

struct figures {
        double start_ms, grew, rss_mib;
        pid_t procs[PROCS_MAX]; /* the cgroup's processes before the tool started */
        size_t n_procs;
};

static double read_number(const char *dir, const char *name) {
        char path[PATH_MAX_ + 64], buf[64] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "re");
        if (f && !fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        if (f)
                fclose(f);
        return strtod(buf, NULL);
}

static double usage(const struct cg *c) {
        return read_number(c->dir, c->v2 ? "memory.current" : "memory.usage_in_bytes");
}

static pid_t main_pid(const char *container) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "inspect", "-f", "{{.State.Pid}}", container, NULL });
        pid_t pid = r.exit == 0 && r.out ? (pid_t)strtol(r.out, NULL, 10) : 0;
        cmd_result_done(&r);
        return pid;
}

static bool find_cgroup(pid_t pid, struct cg *ret) {
        char path[64], line[600];
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        FILE *f = fopen(path, "re");
        ret->dir[0] = '\0';
        while (f && fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                char *ctl = strchr(line, ':'), *p = ctl ? strchr(ctl + 1, ':') : NULL;
                if (!p)
                        continue;
                *p++ = '\0';
                if (strcmp(ctl + 1, "memory") == 0) {
                        snprintf(ret->dir, sizeof(ret->dir), "/sys/fs/cgroup/memory%s", p);
                        ret->v2 = false;
                        break;
                }
                if (ctl[1] == '\0' && access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
                        snprintf(ret->dir, sizeof(ret->dir), "/sys/fs/cgroup%s", p);
                        ret->v2 = true;
                }
        }
        if (f)
                fclose(f);
        return ret->dir[0] != '\0';
}

static double rss_mib(pid_t pid) {
        char path[64], line[256];
        double kb = 0;
        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        FILE *f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f))
                if (strncmp(line, "VmRSS:", 6) == 0)
                        kb = strtod(line + 6, NULL);
        if (f)
                fclose(f);
        return kb / 1024.0;
}

/* The pids of the cgroup now (cgroup.procs), at most PROCS_MAX. */
static size_t procs_of(const struct cg *c, pid_t *ret) {
        char path[PATH_MAX_ + 16];
        long pid;
        size_t n = 0;
        snprintf(path, sizeof(path), "%s/cgroup.procs", c->dir);
        FILE *f = fopen(path, "re");
        while (f && n < PROCS_MAX && fscanf(f, "%ld", &pid) == 1)
                ret[n++] = (pid_t)pid;
        if (f)
                fclose(f);
        return n;
}

/* The VmRSS of the cgroup's processes that were not there before (the tool's). */
static double rss_of_new(const struct cg *c, const pid_t *before, size_t n_before) {
        pid_t now[PROCS_MAX];
        size_t n = procs_of(c, now);
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
                bool old = false;
                for (size_t k = 0; k < n_before && !old; k++)
                        old = now[i] == before[k];
                if (!old)
                        sum += rss_mib(now[i]);
        }
        return sum;
}

/* Polls until the cgroup grew by REACHED_AT of want (or SETTLE_MS), then
 * lets it settle; t0 is when the tool was started. */
static void watch(const struct cg *c, double before, double want, double t0, struct figures *ret) {
        ret->start_ms = -1;
        while (monotonic_ms() - t0 < SETTLE_MS && ret->start_ms < 0) {
                if (usage(c) - before >= want * REACHED_AT)
                        ret->start_ms = monotonic_ms() - t0;
                else
                        sleep_ms(2);
        }
        sleep_ms(500);
        ret->grew = usage(c) - before;
        ret->rss_mib = rss_of_new(c, ret->procs, ret->n_procs);
}

static int ours(const char *container, const struct cg *c, double want, struct figures *ret) {
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT"),
                                          .roles = "memory",
                                          .run_id = "bench" };
        struct agent_client *a = NULL;
        struct mh_error e = { 0 };
        json_t *identity = NULL, *lease = NULL;
        char params[64], id[40];
        int r = agent_client_start(&o, &a, &e);
        if (r >= 0)
                r = agent_lease_resolve(a, "docker", container, &identity, &e);
        snprintf(params, sizeof(params), "{\"amount\": %.0f}", want);
        snprintf(id, sizeof(id), "l-bench-mem-%d", (int)getpid());
        if (r >= 0 && !(lease = agent_lease_new(id, "mem.exhaust", identity, params, NULL)))
                r = -EINVAL;
        ret->n_procs = procs_of(c, ret->procs);
        double before = usage(c), t0 = monotonic_ms();
        if (r >= 0 && (r = agent_lease_call(a, lease, "inject", NULL, &e)) >= 0) {
                watch(c, before, want, t0, ret);
                r = agent_lease_call(a, lease, "undo", NULL, &e);
        }
        if (r < 0)
                fprintf(stderr, "bench-resources-mem: mayhem: %s\n", e.msg[0] ? e.msg : strerror(-r));
        json_decref(lease);
        json_decref(identity);
        agent_client_stop(a);
        return r;
}

/* stress-ng, its pid written into the container's memory cgroup before it execs. */
static int stress(const struct cg *c, double want, struct figures *ret) {
        char bytes[32], procs[PATH_MAX_ + 16];
        snprintf(bytes, sizeof(bytes), "%.0f", want);
        snprintf(procs, sizeof(procs), "%s/cgroup.procs", c->dir);
        ret->n_procs = procs_of(c, ret->procs);
        double before = usage(c), t0 = monotonic_ms();
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int fd = open(procs, O_WRONLY | O_CLOEXEC),
                    devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0)
                        _exit(126);
                dup2(devnull, STDOUT_FILENO);
                dup2(devnull, STDERR_FILENO);
                execlp("stress-ng", "stress-ng", "--vm", "1", "--vm-bytes", bytes, "--vm-keep", "--timeout",
                       "60", (char *)NULL);
                _exit(127);
        }
        watch(c, before, want, t0, ret);
        kill(pid, SIGTERM);
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) >= 126) {
                fprintf(stderr, "bench-resources-mem: stress-ng could not start (is it installed?)\n");
                return -ENOENT;
        }
        for (double t = monotonic_ms(); usage(c) > before + 2 * MiB && monotonic_ms() - t < 2000;)
                sleep_ms(10); /* its workers exit after the parent */
        return 0;
}

static void row(const char *who, double want, const struct figures *f) {
        double err = (f->grew - want) / want * 100;
        printf("  %-30s %10.1f %10.1f %+9.2f%% %10.0f %10.1f\n", who, want / MiB, f->grew / MiB, err,
               f->start_ms, f->rss_mib);
}

int bench_mem_section(const char *container) {
        struct cg c;
        struct figures a = { 0 }, b = { 0 };
        pid_t pid = main_pid(container);
        if (pid <= 0 || !find_cgroup(pid, &c)) {
                fprintf(stderr, "bench-resources-mem: no memory cgroup for %s\n", container);
                return -ENOENT;
        }
        double limit = read_number(c.dir, c.v2 ? "memory.max" : "memory.limit_in_bytes");
        if (limit <= 0 || limit >= 4.0e18) {
                fprintf(stderr, "bench-resources-mem: %s has no memory limit\n", container);
                return -EINVAL;
        }
        double want = limit / 2;
        int r = ours(container, &c, want, &a);
        int s = stress(&c, want, &b);
        printf("memory: %s, limit %.0f MiB (cgroup %s), N = 50%% of it\n", container, limit / MiB,
               c.v2 ? "v2" : "v1");
        printf("  %-30s %10s %10s %10s %10s %10s\n", "tool", "N MiB", "got MiB", "error", "95% ms",
               "RSS MiB");
        if (r >= 0)
                row("mayhem mem.exhaust amount=N", want, &a);
        if (s >= 0)
                row("stress-ng --vm 1 --vm-keep", want, &b);
        if (r >= 0 && s >= 0 && b.grew != want)
                printf("  error ratio (ours / stress-ng's): %.3f\n",
                       fabs(a.grew - want) / fabs(b.grew - want));
        printf("  (got: the cgroup's usage gain; 95%% ms: from start until the cgroup held 95%% of N; RSS: "
               "VmRSS of the tool's processes)\n");
        return r < 0 ? r : s;
}
