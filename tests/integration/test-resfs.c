/* fd.exhaust and fs.read_only through the whole tool on real containers
 * (issue 12): the real mayhem runs a drill against busybox containers and
 * the effect is measured from outside it.
 *
 * - fd.exhaust (limit 5 and 40): while in force, the container's main
 *   process (a busybox shell loop, the workload) has soft == hard == its open
 *   descriptors + limit in /proc/PID/limits, and a `tee` it forks on request
 *   opens exactly `limit` files and then gets EMFILE; afterwards the limits
 *   text is byte-identical to before and tee opens all of them again.
 * - fs.read_only (/data and /): `docker exec touch` gets EROFS while in
 *   force and works after; the container's mountinfo is byte-identical
 *   before and after, and so is the host's (when another process mounted
 *   meanwhile: no mount changed and none that could be ours came or went). / with a file held open for
 * writing is refused (EBUSY) and changes nothing, as docs/drill-format.md says.
 * - the agent SIGKILLed mid-fault (both faults): the kernel state outlives
 *   it, the run exits 7, `mayhem recover execute` puts everything back and
 *   leaves no agent and no open lease.
 * Needs root (the agent, /proc/PID of the containers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/proc-stat.h"
#include "demo-harness.h"
#include "engine/engine.h"

/* The containers are the compose file's, with this process's pid appended
 * to their names (the test writes that copy), so two checkouts running the
 * test at once do not take each other's containers. */
#define COMPOSE_SRC "tests/data/compose/resfs/compose.yaml"
#define N_FILES     60 /* what the probe's tee tries to open, more than any limit here */
#define TEXT_MAX    (1 << 20)
#define IN_FORCE_S  30.0  /* the run's baseline and inject, bounded */
#define RUN_S       120.0 /* a whole run of a 4 s fault, bounded */
#define LOG_MS      5000  /* for a line of the probe to reach docker logs */
/* What the probe prints on stderr after tee: its end in docker logs. */
#define PROBE_END "ls: /probe-end: No such file or directory"

static struct demo demo;
static char drill[96], compose[96], fd_c[64], fs_c[64], held_c[64];

/* ---- reading /proc from the host ---------------------------------------- */

/* A /proc file (size 0 in stat) read to its end; malloc()ed. */
static char *slurp(const char *path) {
        char *buf = malloc(TEXT_MAX);
        size_t len = 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_non_null(buf);
        if (fd < 0)
                fail_msg("%s: %s", path, strerror(errno));
        for (ssize_t n; len < TEXT_MAX - 1 && (n = read(fd, buf + len, TEXT_MAX - 1 - len)) > 0;)
                len += (size_t)n;
        close(fd);
        buf[len] = '\0';
        return buf;
}

static char *proc_text(int pid, const char *name) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
        return slurp(path);
}

/* "Max open files  SOFT  HARD  files" of /proc/PID/limits. */
static void nofile(int pid, unsigned long *ret_soft, unsigned long *ret_hard) {
        char *text = proc_text(pid, "limits"), *line = strstr(text, "Max open files");
        assert_non_null(line);
        assert_int_equal(sscanf(line + strlen("Max open files"), "%lu %lu", ret_soft, ret_hard), 2);
        free(text);
}

static unsigned open_fds(int pid) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/fd", pid);
        DIR *d = opendir(path);
        struct dirent *de;
        unsigned n = 0;
        assert_non_null(d);
        while ((de = readdir(d)))
                n += de->d_name[0] != '.';
        closedir(d);
        return n;
}

static int main_pid(const char *name) {
        struct engine_container c;
        assert_true(demo_inspect_container(name, &c));
        assert_true(c.running);
        return c.pid;
}

/* ---- the containers ----------------------------------------------------- */

/* The fd target's workload: when /go appears, a forked tee (inheriting the
 * shell's limits) opens /f/1 .. /f/N_FILES in order, its errors on the
 * container's stderr, then an ls of a missing file marks the end of that on
 * stderr (PROBE_END), then /done. No redirections: busybox ash saves a
 * redirected descriptor at 10 or above and exits when the limit is lower.
 * A shell inside the container is the target, not a tool of ours. */
static const char *probe_script(void) {
        static char s[2048];
        int n = snprintf(
                s, sizeof(s),
                "/busybox mkdir -p /f; while :; do if [ -e /go ]; then /busybox rm -f /go /done /f/*; "
                "/busybox tee");
        for (int i = 1; i <= N_FILES; i++)
                n += snprintf(s + n, sizeof(s) - (size_t)n, " /f/%d", i);
        snprintf(
                s + n, sizeof(s) - (size_t)n,
                "; /busybox ls /probe-end; /busybox touch /done; fi; /busybox sleep 0.05; done");
        return s;
}

static bool docker(const char *const *argv) {
        struct cmd_result r = run_command(NULL, argv);
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "%s %s: %s", argv[0], argv[1], r.err);
        cmd_result_done(&r);
        return ok;
}

static bool start(const char *name, const char *service, const char *const *cmd) {
        char project[64], svc[96];
        const char *argv[16] = { "docker",  "run",   "-d",      "--name", name,
                                 "--label", project, "--label", svc,      "mayhem-test-busybox:latest" };
        size_t n = 10;
        snprintf(project, sizeof(project), "com.docker.compose.project=resfs");
        snprintf(svc, sizeof(svc), "com.docker.compose.service=%s", service);
        for (size_t i = 0; cmd && cmd[i] && n < 15; i++)
                argv[n++] = cmd[i];
        argv[n] = NULL;
        return docker(argv);
}

static void remove_all(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", fd_c, fs_c, held_c, NULL });
        cmd_result_done(&r);
}

/* The compose file with each container_name NAME as NAME-PID, at compose. */
static bool write_compose(const char *root) {
        char src[700];
        snprintf(src, sizeof(src), "%s/%s", root, COMPOSE_SRC);
        char *text = slurp(src);
        FILE *f = fopen(compose, "we");
        bool ok = f != NULL;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); ok && line;
             line = strtok_r(NULL, "\n", &save))
                ok = (strstr(line, "container_name: ") ? fprintf(f, "%s-%d\n", line, (int)getpid())
                                                       : fprintf(f, "%s\n", line)) > 0;
        free(text);
        return f && fclose(f) == 0 && ok;
}

/* ---- the probes --------------------------------------------------------- */

/* What the fd container printed on stderr so far (malloc()ed). */
static char *fd_logs(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "docker", "logs", fd_c, NULL });
        char *text = strdup(r.err ? r.err : "");
        cmd_result_done(&r);
        return text;
}

/* How many of /f/1.. the container's tee could open; what it printed into
 * err. The probe's stderr is read up to its end mark, waited for: docker
 * logs lags behind the container, and a line of this probe read by the next
 * one would be counted as the next one's. */
static unsigned tee_probe(int pid, char *err, size_t size) {
        char go[64], done[64], file[64];
        char *logs = fd_logs();
        size_t seen = strlen(logs);
        free(logs);
        snprintf(go, sizeof(go), "/proc/%d/root/go", pid);
        snprintf(done, sizeof(done), "/proc/%d/root/done", pid);
        unlink(done);
        int fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        double until = monotonic_ms() + 5000;
        while ((access(done, F_OK) < 0 || access(go, F_OK) == 0) && monotonic_ms() < until)
                sleep_ms(10);
        assert_int_equal(access(done, F_OK), 0);
        unsigned n = 0;
        for (int i = 1; i <= N_FILES; i++) {
                snprintf(file, sizeof(file), "/proc/%d/root/f/%d", pid, i);
                n += access(file, F_OK) == 0;
        }
        char *end = NULL;
        for (double t0 = monotonic_ms();; sleep_ms(20)) {
                logs = fd_logs();
                end = strlen(logs) >= seen ? strstr(logs + seen, PROBE_END) : NULL;
                if (end || monotonic_ms() - t0 > LOG_MS)
                        break;
                free(logs);
        }
        if (!end)
                fail_msg("the probe's end mark not in docker logs within %d ms:\n%s", LOG_MS, logs + seen);
        snprintf(err, size, "%.*s", (int)(end - (logs + seen)), logs + seen);
        free(logs);
        return n;
}

/* docker exec NAME /busybox touch PATH: 0 when it worked, else its error. */
static bool touch_in(const char *name, const char *path, char *err, size_t size) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "exec", name, "/busybox", "touch", path, NULL });
        bool ok = r.exit == 0;
        snprintf(err, size, "%s", r.err ? r.err : "");
        cmd_result_done(&r);
        if (ok) {
                r = run_command(
                        NULL, (const char *const[]){ "docker", "exec", name, "/busybox", "rm", path, NULL });
                cmd_result_done(&r);
        }
        return ok;
}

static void assert_read_only(const char *name, const char *path) {
        char err[512];
        if (touch_in(name, path, err, sizeof(err)))
                fail_msg("touch %s in %s worked while read-only", path, name);
        if (!strstr(err, "Read-only file system"))
                fail_msg("touch %s in %s: %s (want EROFS)", path, name, err);
}

static void assert_writable(const char *name, const char *path) {
        char err[512];
        if (!touch_in(name, path, err, sizeof(err)))
                fail_msg("touch %s in %s: %s", path, name, err);
}

/* ---- the runs ----------------------------------------------------------- */

static void write_drill(const char *container, const char *fault) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: resfs\ncontainers:\n  %s:\n    faults:\n      - %s\n"
                "execution:\n  - sequential: [%s]\n",
                container, fault, container);
        assert_int_equal(fclose(f), 0);
}

static pid_t spawn_run(void) {
        demo_fresh_db(&demo);
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", drill, "-c", compose, "--execute", NULL });
        assert_true(pid > 0);
        return pid;
}

static void fail_with_log(const char *what, int code);

/* The run's exit code; a run still going after RUN_S is stopped (SIGTERM:
 * it undoes what it holds; SIGKILL 30 s later) and the test fails with its log. */
static int wait_run(pid_t pid) {
        int status = 0;
        pid_t r;
        double t0 = monotonic_ms();
        while ((r = waitpid(pid, &status, WNOHANG)) == 0 && monotonic_ms() - t0 < RUN_S * 1000)
                sleep_ms(20);
        if (r == 0) {
                kill(pid, SIGTERM);
                for (double t1 = monotonic_ms(); (r = waitpid(pid, &status, WNOHANG)) == 0;)
                        if (monotonic_ms() - t1 > 30000) {
                                kill(pid, SIGKILL);
                                waitpid(pid, &status, 0);
                                break;
                        } else
                                sleep_ms(20);
                char what[64];
                snprintf(what, sizeof(what), "still running after %.0f s, stopped", RUN_S);
                fail_with_log(what, -1);
        }
        assert_int_equal(r, pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void fail_with_log(const char *what, int code) {
        static char log[8192];
        char *text = demo_spawn_log(&demo);
        snprintf(log, sizeof(log), "%s", text);
        free(text);
        fail_msg("%s: mayhem run exited %d:\n%s", what, code, log);
}

/* Polls until changed() says the fault is in force, or the run ended. */
static void wait_in_force(pid_t run, bool (*changed)(int pid, const void *arg), int pid, const void *arg) {
        double until = monotonic_ms() + IN_FORCE_S * 1000;
        while (!changed(pid, arg)) {
                int status;
                if (waitpid(run, &status, WNOHANG) == run)
                        fail_with_log(
                                "ended before the fault was seen",
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
                if (monotonic_ms() > until)
                        fail_msg("fault not in force within %.0f s", IN_FORCE_S);
                sleep_ms(20);
        }
}

static bool limits_changed(int pid, const void *before) {
        char *now = proc_text(pid, "limits");
        bool changed = strcmp(now, before) != 0;
        free(now);
        return changed;
}

static bool mounts_changed(int pid, const void *before) {
        char *now = proc_text(pid, "mountinfo");
        bool changed = strcmp(now, before) != 0;
        free(now);
        return changed;
}

/* ---- fd.exhaust --------------------------------------------------------- */

/* Whether this process (and so the agent it starts) holds CAP_SYS_RESOURCE,
 * read from /proc/self/status rather than asked of the code under test. */
static bool sys_resource(void) {
        char *text = slurp("/proc/self/status"), *line = strstr(text, "CapEff:");
        unsigned long long eff = 0;
        assert_non_null(line);
        assert_int_equal(sscanf(line + strlen("CapEff:"), "%llx", &eff), 1);
        free(text);
        return eff & (1ULL << 24); /* CAP_SYS_RESOURCE */
}

/* The hard limit is lowered with the soft one only when the agent could
 * raise it back; otherwise it is the one before (old_hard). */
static void assert_exhausted(int pid, unsigned limit, unsigned long old_hard) {
        unsigned long soft, hard;
        char err[4096], want[64];
        nofile(pid, &soft, &hard);
        unsigned fds = open_fds(pid);
        print_message("limit %u: soft %lu hard %lu (was %lu), %u open\n", limit, soft, hard, old_hard, fds);
        assert_int_equal(soft, fds + limit);
        assert_int_equal(hard, sys_resource() ? soft : old_hard);
        unsigned opened = tee_probe(pid, err, sizeof(err));
        print_message(
                "limit %u: tee opened %u of %d; then %.*s\n", limit, opened, N_FILES,
                (int)strcspn(err, "\n"), err);
        assert_int_equal(opened, limit);
        snprintf(want, sizeof(want), "tee: /f/%u: Too many open files", limit + 1);
        if (strncmp(err, want, strlen(want)) != 0)
                fail_msg("tee's errors lack '%s': %s", want, err);
}

static void assert_fd_baseline(int pid, const char *before) {
        char err[4096], *now = proc_text(pid, "limits");
        assert_string_equal(now, before);
        free(now);
        assert_int_equal(tee_probe(pid, err, sizeof(err)), N_FILES);
        assert_string_equal(err, "");
}

static void fd_once(unsigned limit) {
        int pid = main_pid(fd_c);
        char fault[96];
        char *before = proc_text(pid, "limits");
        unsigned long soft, hard;
        nofile(pid, &soft, &hard);
        assert_fd_baseline(pid, before);
        snprintf(fault, sizeof(fault), "{fault: fd.exhaust, duration: 4s, limit: %u}", limit);
        write_drill(fd_c, fault);
        double t0 = monotonic_ms();
        pid_t run = spawn_run();
        wait_in_force(run, limits_changed, pid, before);
        print_message("fd.exhaust limit %u in force %.0f ms after the start\n", limit, monotonic_ms() - t0);
        assert_exhausted(pid, limit, hard);
        int code = wait_run(run);
        if (code != 0)
                fail_with_log("fd.exhaust", code);
        assert_fd_baseline(pid, before);
        free(before);
}

static void test_fd_exhaust(void **state) {
        (void)state;
        fd_once(5);
        fd_once(40);
}

/* ---- fs.read_only ------------------------------------------------------- */

/* The per-mount options (field 6 of mountinfo) of the topmost mount at point
 * in pid's mount namespace, into buf ("" when none). */
static void mount_options(int pid, const char *point, char *buf, size_t size) {
        char *text = proc_text(pid, "mountinfo"), *save = NULL;
        buf[0] = '\0';
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char at[PATH_MAX], opts[256];
                if (sscanf(line, "%*s %*s %*s %*s %4095s %255s", at, opts) == 2 && strcmp(at, point) == 0)
                        snprintf(buf, size, "%s", opts);
        }
        free(text);
}

static void assert_mount_ro(int pid, const char *point) {
        char opts[256];
        mount_options(pid, point, opts, sizeof(opts));
        print_message("in the container, the mount at %s: %s\n", point, opts);
        if (strncmp(opts, "ro,", 3) != 0 && strcmp(opts, "ro") != 0)
                fail_msg("the mount at %s is '%s', not read-only", point, opts);
}

/* The overlay directory the engine mounted as name's root, on the host. */
static void merged_dir(const char *name, char *buf, size_t size) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "inspect", "-f", "{{.GraphDriver.Data.MergedDir}}",
                                             name, NULL });
        assert_int_equal(r.exit, 0);
        snprintf(buf, size, "%.*s", (int)strcspn(r.out, "\n"), r.out);
        cmd_result_done(&r);
        assert_true(buf[0] == '/');
}

/* The line of mountinfo text whose mount id is id, into buf (false: none). */
static bool mount_line(const char *text, unsigned long id, char *buf, size_t size) {
        for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
                char *end;
                if (strtoul(p, &end, 10) == id && end != p && *end == ' ') {
                        snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
                        return true;
                }
        }
        return false;
}

/* Whether a mount line is one mayhem could have made or changed on the
 * host: the host's root, anything in or under the container's root
 * (merged), or a mount at the fault's path itself. */
static bool could_be_ours(const char *line, const char *merged, const char *path) {
        char at[PATH_MAX];
        if (sscanf(line, "%*s %*s %*s %*s %4095s", at) != 1)
                return true;
        return strcmp(at, "/") == 0 || strncmp(at, merged, strlen(merged)) == 0 || strcmp(at, path) == 0;
}

/* One side's lines (by mount id) missing from or changed in the other. */
static void compare_side(
        const char *from, const char *to, const char *sign, const char *merged, const char *path) {
        char line[4096], other[4096];
        for (const char *p = from; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
                snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
                if (!mount_line(to, strtoul(line, NULL, 10), other, sizeof(other))) {
                        if (could_be_ours(line, merged, path))
                                fail_msg("the host's mountinfo %s: %s", sign, line);
                        print_message("host mount %s by another process (not ours): %.200s\n", sign, line);
                } else if (strcmp(line, other) != 0)
                        fail_msg("a host mount changed:\n  %s\n  %s", line, other);
        }
}

/* The host's mountinfo after the run is byte-identical to before; when
 * another process on this machine mounted or unmounted meanwhile, nothing
 * that could be ours differs and no mount changed (compared by mount id). */
static void assert_host_unchanged(const char *before, const char *path) {
        char merged[PATH_MAX];
        char *after = slurp("/proc/self/mountinfo");
        if (strcmp(before, after) != 0) {
                merged_dir(fs_c, merged, sizeof(merged));
                compare_side(before, after, "lost", merged, path);
                compare_side(after, before, "gained", merged, path);
        }
        free(after);
}

static void fs_once(const char *path, const char *file) {
        int pid = main_pid(fs_c);
        char fault[128];
        char *host = slurp("/proc/self/mountinfo"), *inside = proc_text(pid, "mountinfo");
        assert_writable(fs_c, file);
        snprintf(fault, sizeof(fault), "{fault: fs.read_only, duration: 4s, path: %s}", path);
        write_drill(fs_c, fault);
        pid_t run = spawn_run();
        wait_in_force(run, mounts_changed, pid, inside);
        assert_mount_ro(pid, path);
        assert_read_only(fs_c, file);
        print_message("fs.read_only %s: touch %s refused with EROFS\n", path, file);
        int code = wait_run(run);
        if (code != 0)
                fail_with_log("fs.read_only", code);
        assert_writable(fs_c, file);
        char *inside_after = proc_text(pid, "mountinfo");
        assert_string_equal(inside_after, inside);
        assert_host_unchanged(host, path);
        free(host), free(inside), free(inside_after);
}

static void test_fs_read_only(void **state) {
        (void)state;
        fs_once("/data", "/data/x");
        fs_once("/", "/x");
}

/* / while the container holds a file on it open for writing: refused with
 * EBUSY, nothing changed, and the run fails clean (exit 6, the lease
 * released, not dirty: the agent answers the undo of a lease it never
 * applied from its settled record). */
static void test_fs_root_busy(void **state) {
        (void)state;
        int pid = main_pid(held_c);
        char *inside = proc_text(pid, "mountinfo");
        write_drill(held_c, "{fault: fs.read_only, duration: 4s, path: /}");
        pid_t run = spawn_run();
        int code = wait_run(run);
        char *log = demo_spawn_log(&demo);
        print_message("fs.read_only / with a writer open: exit %d\n", code);
        if (code != 6 || !strstr(log, "open for writing") || strstr(log, "DIRTY"))
                fail_msg(
                        "want a clean refusal naming the open writer (exit 6), got exit %d:\n%s", code, log);
        free(log);
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 0);
        json_decref(open);
        char *after = proc_text(pid, "mountinfo");
        assert_string_equal(after, inside);
        assert_writable(held_c, "/x");
        free(inside), free(after);
}

/* ---- the agent SIGKILLed mid-fault -------------------------------------- */

static void kill_agent(pid_t run) {
        int agent = 0;
        assert_int_equal(demo_agents(run, &agent), 1);
        assert_int_equal(kill(agent, SIGKILL), 0);
        int code = wait_run(run);
        print_message("agent %d SIGKILLed: the run exited %d\n", agent, code);
        if (code != 7)
                fail_with_log("agent killed", code);
        sleep_ms(1000); /* anything that would undo on the agent's death has had its chance */
}

static void recover(void) {
        json_t *runs = INSPECT(&demo, "runs");
        const char *id = json_string_value(json_object_get(json_array_get(runs, 0), "id"));
        assert_non_null(id);
        struct cmd_result r = MAYHEM(&demo, "recover", "execute", id);
        print_message("recover execute %s: exit %d\n%s", id, r.exit, r.out);
        if (r.exit != 0)
                fail_msg("recover: %s%s", r.out, r.err);
        cmd_result_done(&r);
        json_decref(runs);
}

/* No agent of this case's left (waited for: a guardian ends after the agent
 * it watched), and no lease open. */
static void assert_no_residue(unsigned long long case_began) {
        double t0 = monotonic_ms();
        int left = 0, n;
        while ((n = demo_agents_since(case_began, &left)) > 0 && monotonic_ms() - t0 < LOG_MS)
                sleep_ms(20);
        if (n > 0)
                fail_msg(
                        "%d agents of this case still running %d ms after recover (pid %d)", n, LOG_MS,
                        left);
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 0);
        json_decref(open);
}

static void test_fd_agent_killed(void **state) {
        (void)state;
        int pid = main_pid(fd_c);
        char *before = proc_text(pid, "limits");
        unsigned long soft, hard;
        unsigned long long case_began = demo_clock_ticks();
        nofile(pid, &soft, &hard);
        write_drill(fd_c, "{fault: fd.exhaust, duration: 60s, limit: 12}");
        pid_t run = spawn_run();
        wait_in_force(run, limits_changed, pid, before);
        char *during = proc_text(pid, "limits");
        kill_agent(run);
        char *still = proc_text(pid, "limits");
        assert_string_equal(still, during);
        assert_exhausted(pid, 12, hard);
        recover();
        assert_fd_baseline(pid, before);
        assert_no_residue(case_began);
        free(before), free(during), free(still);
}

static void test_fs_agent_killed(void **state) {
        (void)state;
        int pid = main_pid(fs_c);
        char *host = slurp("/proc/self/mountinfo"), *inside = proc_text(pid, "mountinfo");
        unsigned long long case_began = demo_clock_ticks();
        write_drill(fs_c, "{fault: fs.read_only, duration: 60s, path: /data}");
        pid_t run = spawn_run();
        wait_in_force(run, mounts_changed, pid, inside);
        kill_agent(run);
        assert_mount_ro(pid, "/data");
        assert_read_only(fs_c, "/data/x");
        recover();
        assert_writable(fs_c, "/data/x");
        char *inside_after = proc_text(pid, "mountinfo");
        assert_string_equal(inside_after, inside);
        assert_host_unchanged(host, "/data");
        assert_no_residue(case_began);
        free(host), free(inside), free(inside_after);
}

/* ---- setup -------------------------------------------------------------- */

/* A failed case may leave its lease open: recovered so the next case (and the
 * agent's state directory) starts clean. */
static int recover_leftovers(void **state) {
        (void)state;
        json_t *leases = INSPECT(&demo, "leases");
        size_t i;
        json_t *l;
        json_array_foreach(leases, i, l) {
                struct cmd_result r =
                        MAYHEM(&demo, "recover", "execute", json_string_value(json_object_get(l, "run_id")));
                cmd_result_done(&r);
        }
        json_decref(leases);
        return 0;
}

/* The fd container's shell loop has made /f (its first command). */
static bool probe_ready(void) {
        struct engine_container c;
        char f[64];
        for (double t0 = monotonic_ms(); monotonic_ms() - t0 < 10000; sleep_ms(20)) {
                if (!demo_inspect_container(fd_c, &c) || !c.running)
                        continue;
                snprintf(f, sizeof(f), "/proc/%d/root/f", (int)c.pid);
                if (access(f, F_OK) == 0)
                        return true;
        }
        fprintf(stderr, "%s: no /f within 10 s\n", fd_c);
        return false;
}

static bool setup(void) {
        const char *root = getenv("MAYHEM_SOURCE_ROOT");
        char tool[600];
        snprintf(demo.root, sizeof(demo.root), "%s", root ? root : ".");
        snprintf(tool, sizeof(tool), "%s/tools/build-images", demo.root);
        remove_all();
        return write_compose(demo.root) && docker((const char *const[]){ tool, NULL }) &&
               start(fd_c, "fd", (const char *const[]){ "/busybox", "sh", "-c", probe_script(), NULL }) &&
               start(fs_c, "fs", NULL) &&
               /* a writer held open on / for as long as the container runs */
               start(held_c, "held",
                     (const char *const[]){ "/busybox", "sh", "-c",
                                            "exec 3>/held; exec /busybox sleep infinity", NULL }) &&
               docker((const char *const[]){ "docker", "exec", fs_c, "/busybox", "mkdir", "/data", NULL });
}

int main(void) {
        struct engine *e = NULL;
        if (demo_podman() || geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &e, NULL) < 0)
                return 77;
        engine_free(e);
        snprintf(drill, sizeof(drill), "/tmp/mayhem-resfs-%d.yaml", (int)getpid());
        snprintf(compose, sizeof(compose), "/tmp/mayhem-resfs-%d.compose.yaml", (int)getpid());
        snprintf(fd_c, sizeof(fd_c), "mayhem-resfs-fd-%d", (int)getpid());
        snprintf(fs_c, sizeof(fs_c), "mayhem-resfs-fs-%d", (int)getpid());
        snprintf(held_c, sizeof(held_c), "mayhem-resfs-held-%d", (int)getpid());
        demo_fresh_db(&demo);
        if (!setup() || !probe_ready()) {
                remove_all();
                unlink(compose);
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_fd_exhaust, recover_leftovers),
                cmocka_unit_test_teardown(test_fs_read_only, recover_leftovers),
                cmocka_unit_test_teardown(test_fs_root_busy, recover_leftovers),
                cmocka_unit_test_teardown(test_fd_agent_killed, recover_leftovers),
                cmocka_unit_test_teardown(test_fs_agent_killed, recover_leftovers),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        remove_all();
        unlink(drill);
        unlink(compose);
        demo_fresh_db(&demo); /* removes the last one */
        return failed;
}
