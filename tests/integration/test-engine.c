#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/tar-write.h"
#include "common/run-command.h"
#include "engine/engine.h"

/* The engine client against a real engine: dockerd, or with
 * MAYHEM_TEST_ENGINE=podman Podman's Docker-compatible service on its default
 * socket (tools/engine-up --podman; meson runs both, as 'engine' and
 * 'engine-podman'). The same tests run against both: where the engines
 * answer differently, the client hides it, and the few places where it does
 * not (the image name) say so. The test builds its own image (FROM scratch +
 * a static busybox), runs one container labelled as a compose project and
 * drives it through our client only; the engine's CLI (an argv, no shell) is
 * used just to set up and clean up. Everything it creates is named
 * mayhemtest-<pid>... and removed in the group teardown, also when a test
 * fails. Exits 77 (skipped) when the engine does not answer or busybox is
 * missing (apt-get install busybox-static). */

#define BUSYBOX     "/bin/busybox"
#define BUSYBOX_MAX (16u << 20)
#define WAIT_MS     10000

/* Podman raises a container's nofile and nproc limits beyond what a host
 * without CAP_SYS_RESOURCE may grant; these fit everywhere. */
#define PODMAN_ULIMITS "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"

struct ctx {
        enum engine_kind kind;
        const char *cli; /* "docker" or "podman" */
        struct engine *e;
        char prefix[32], image[64], name[64], dir[64];
        bool image_built, container_made;
};

static struct ctx ctx;

/* Runs the engine's CLI with argv[1...] (argv[0] is replaced). */
static bool cli(const char **argv) {
        argv[0] = ctx.cli;
        struct cmd_result r = run_command(NULL, argv);
        bool ok = r.exit == 0;
        if (!ok)
                print_message("%s %s: exit %d: %s\n", argv[0], argv[1], r.exit, r.err);
        cmd_result_done(&r);
        return ok;
}

static bool write_file(const char *dir, const char *name, const char *data, size_t len, mode_t mode) {
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        return fd >= 0 && write(fd, data, len) == (ssize_t)len;
}

/* A build context with busybox and a Dockerfile that runs `sleep 3600` as PID 1. */
static bool make_context(void) {
        static const char dockerfile[] =
                "FROM scratch\nCOPY busybox /busybox\nCMD [\"/busybox\",\"sleep\",\"3600\"]\n";
        _cleanup_free_ char *bb = NULL;
        size_t len = 0;

        snprintf(ctx.dir, sizeof(ctx.dir), "/tmp/%s-XXXXXX", ctx.prefix);
        if (!mkdtemp(ctx.dir) || read_file_bounded(BUSYBOX, BUSYBOX_MAX, &bb, &len, NULL) < 0)
                return false;
        return write_file(ctx.dir, "busybox", bb, len, 0755) &&
               write_file(ctx.dir, "Dockerfile", dockerfile, sizeof(dockerfile) - 1, 0644);
}

static void remove_context(void) {
        char path[128];
        if (!ctx.dir[0])
                return;
        snprintf(path, sizeof(path), "%s/busybox", ctx.dir);
        unlink(path);
        snprintf(path, sizeof(path), "%s/Dockerfile", ctx.dir);
        unlink(path);
        rmdir(ctx.dir);
}

static int group_teardown(void **state) {
        /* podman rm -f would wait 10 s for the SIGTERM busybox sleep ignores as PID 1. */
        if (ctx.container_made && ctx.kind == ENGINE_PODMAN)
                cli((const char *[]){ "", "rm", "-f", "-v", "-t", "0", ctx.name, NULL });
        else if (ctx.container_made)
                cli((const char *[]){ "", "rm", "-f", "-v", ctx.name, NULL });
        if (ctx.image_built)
                cli((const char *[]){ "", "rmi", "-f", ctx.image, NULL });
        remove_context();
        ctx.e = engine_free(ctx.e);
        ctx.container_made = ctx.image_built = false;
        ctx.dir[0] = '\0';
        return 0;
}

static int group_setup(void **state) {
        char project[96];

        snprintf(project, sizeof(project), "com.docker.compose.project=%s", ctx.prefix);
        snprintf(ctx.image, sizeof(ctx.image), "%s:latest", ctx.prefix);
        snprintf(ctx.name, sizeof(ctx.name), "%s-c", ctx.prefix);
        ctx.image_built =
                make_context() && cli((const char *[]){ "", "build", "-q", "-t", ctx.image, ctx.dir, NULL });
        if (ctx.image_built && ctx.kind == ENGINE_PODMAN)
                ctx.container_made = cli((const char *[]){
                        "", "run", "-d", "--name", ctx.name, "--label", project, "--label",
                        "com.docker.compose.service=app", PODMAN_ULIMITS, ctx.image, NULL });
        else if (ctx.image_built)
                ctx.container_made = cli(
                        (const char *[]){ "", "run", "-d", "--name", ctx.name, "--label", project, "--label",
                                          "com.docker.compose.service=app", ctx.image, NULL });
        if (ctx.container_made)
                return 0;
        group_teardown(state);
        return -1;
}

static struct engine_container inspect_ok(void) {
        struct engine_container c;
        struct mh_error err = { 0 };
        int r = engine_container_inspect(ctx.e, ctx.name, &c, &err);
        if (r < 0)
                print_message("inspect: %s\n", err.msg);
        assert_int_equal(r, 0);
        return c;
}

static void call_ok(int r, const struct mh_error *err) {
        if (r < 0)
                print_message("%s (%s)\n", err->msg, err->id);
        assert_int_equal(r, 0);
}

static struct engine_container wait_running(bool running) {
        struct engine_container c = inspect_ok();
        for (double end = monotonic_ms() + WAIT_MS; c.running != running && monotonic_ms() < end;
             c = inspect_ok())
                sleep_ms(20);
        assert_int_equal(c.running, running);
        return c;
}

static bool file_has(const char *path, const char *needle) {
        _cleanup_free_ char *data = NULL;
        size_t len;
        return read_file_bounded(path, 1 << 16, &data, &len, NULL) >= 0 && strstr(data, needle);
}

/* The cgroup path of pid for a v1 controller ("freezer"), or the v2 one with controller "". */
static bool cgroup_of(int pid, const char *controller, char *buf, size_t size) {
        _cleanup_free_ char *data = NULL;
        char path[64], key[32];
        size_t len;

        snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
        snprintf(key, sizeof(key), ":%s:", controller);
        if (read_file_bounded(path, 1 << 16, &data, &len, NULL) < 0)
                return false;
        for (char *line = strtok(data, "\n"); line; line = strtok(NULL, "\n")) {
                char *at = strstr(line, key);
                if (at && (controller[0] || strncmp(line, "0::", 3) == 0)) {
                        snprintf(buf, size, "%s", at + strlen(key));
                        return true;
                }
        }
        return false;
}

/* SIGSTOPped, or frozen by the cgroup freezer (v1 shows frozen tasks as 'D'). */
static bool is_frozen(int pid) {
        char path[128], cg[512], file[700];

        snprintf(path, sizeof(path), "/proc/%d/status", pid);
        if (file_has(path, "State:\tT (stopped)"))
                return true;
        if (cgroup_of(pid, "freezer", cg, sizeof(cg))) {
                snprintf(file, sizeof(file), "/sys/fs/cgroup/freezer%s/freezer.state", cg);
                if (file_has(file, "FROZEN"))
                        return true;
        }
        if (cgroup_of(pid, "", cg, sizeof(cg))) {
                snprintf(file, sizeof(file), "/sys/fs/cgroup%s/cgroup.freeze", cg);
                return file_has(file, "1");
        }
        return false;
}

/* The engine that answered is the one asked for, and it runs as root here. */
static void test_server(void **state) {
        assert_string_equal(engine_server_name(ctx.e), engine_kind_to_string(ctx.kind));
        assert_int_equal(engine_kind_of(ctx.e), ctx.kind);
        assert_true(engine_server_version(ctx.e)[0] != '\0');
        assert_true(strncmp(engine_api_version(ctx.e), "1.", 2) == 0);
        if (geteuid() == 0)
                assert_false(engine_is_rootless(ctx.e));
}

static void test_inspect(void **state) {
        struct engine_container c = inspect_ok(), by_id;
        char path[64], image[80];

        /* Podman reports the name it resolved the image to: localhost/ for a local build. */
        snprintf(image, sizeof(image), "%s%s", ctx.kind == ENGINE_PODMAN ? "localhost/" : "", ctx.image);
        assert_string_equal(c.name, ctx.name);
        assert_string_equal(c.image, image);
        assert_int_equal(strlen(c.id), 64);
        assert_true(c.running);
        assert_false(c.paused);
        assert_string_equal(c.status, "running");
        assert_true(c.pid > 0);
        assert_true(c.started_at[0] != '\0' && strncmp(c.started_at, "0001-", 5) != 0);
        assert_string_equal(c.compose_project, ctx.prefix);
        assert_string_equal(c.compose_service, "app");
        assert_true(c.n_networks >= 1);
        snprintf(path, sizeof(path), "/proc/%d/status", c.pid);
        assert_true(file_has(path, "Name:\tbusybox") || file_has(path, "Name:\tsleep"));
        assert_int_equal(engine_container_inspect(ctx.e, c.id, &by_id, NULL), 0);
        assert_string_equal(by_id.name, c.name);
}

static void test_list_compose(void **state) {
        _cleanup_free_ struct engine_container *list = NULL;
        struct mh_error err = { 0 };
        size_t n = 0;
        bool seen = false;

        call_ok(engine_container_list(ctx.e, ctx.prefix, true, &list, &n, &err), &err);
        assert_int_equal(n, 1);
        assert_string_equal(list[0].name, ctx.name);
        assert_string_equal(list[0].compose_service, "app");
        assert_string_equal(list[0].status, "running");
        assert_true(list[0].running);
        free(TAKE_PTR(list));
        call_ok(engine_container_list(ctx.e, NULL, false, &list, &n, &err), &err);
        for (size_t i = 0; i < n; i++)
                seen = seen || streq(list[i].name, ctx.name);
        assert_true(seen);
}

static void test_pause_unpause(void **state) {
        struct mh_error err = { 0 };
        int pid = inspect_ok().pid;

        call_ok(engine_container_pause(ctx.e, ctx.name, &err), &err);
        struct engine_container c = inspect_ok();
        assert_true(c.paused && c.running);
        assert_string_equal(c.status, "paused");
        assert_true(is_frozen(pid));
        assert_int_equal(engine_container_pause(ctx.e, ctx.name, &err), -EBUSY);

        call_ok(engine_container_unpause(ctx.e, ctx.name, &err), &err);
        c = inspect_ok();
        assert_false(c.paused);
        assert_string_equal(c.status, "running");
        assert_false(is_frozen(pid));
        assert_int_equal(engine_container_unpause(ctx.e, ctx.name, &err), -EALREADY);
        assert_string_equal(err.id, "engine_not_paused");
        assert_non_null(strstr(err.msg, "is not paused"));
}

static void test_kill_start(void **state) {
        struct mh_error err = { 0 };
        int pid = inspect_ok().pid;

        call_ok(engine_container_kill(ctx.e, ctx.name, "SIGKILL", &err), &err);
        struct engine_container c = wait_running(false);
        assert_string_equal(c.status, "exited");
        assert_int_equal(c.exit_code, 137);
        assert_int_equal(c.pid, 0);
        assert_int_equal(engine_container_kill(ctx.e, ctx.name, "SIGKILL", &err), -EBUSY);

        call_ok(engine_container_start(ctx.e, ctx.name, &err), &err);
        c = inspect_ok();
        assert_true(c.running);
        assert_true(c.pid > 0 && c.pid != pid);
        call_ok(engine_container_start(ctx.e, ctx.name, &err), &err); /* 304: already running */
}

static void test_restart(void **state) {
        struct mh_error err = { 0 };
        struct engine_container before = inspect_ok();

        call_ok(engine_container_restart(ctx.e, ctx.name, 1, &err), &err);
        struct engine_container after = inspect_ok();
        assert_true(after.running);
        assert_string_not_equal(after.started_at, before.started_at);
        assert_int_not_equal(after.pid, before.pid);
}

static void test_stop_start(void **state) {
        struct mh_error err = { 0 };

        call_ok(engine_container_stop(ctx.e, ctx.name, 1, &err), &err);
        struct engine_container c = inspect_ok();
        assert_false(c.running);
        assert_string_equal(c.status, "exited");
        call_ok(engine_container_stop(ctx.e, ctx.name, 1, &err), &err); /* 304: already stopped */
        call_ok(engine_container_start(ctx.e, ctx.name, &err), &err);
        assert_true(inspect_ok().running);
}

static void test_missing(void **state) {
        char name[128];
        struct engine_container c;
        struct mh_error err = { 0 };

        snprintf(name, sizeof(name), "%s-missing", ctx.prefix);
        assert_int_equal(engine_container_inspect(ctx.e, name, &c, &err), -ENOENT);
        assert_string_equal(err.id, "engine_not_found");
        /* dockerd: "No such container: x"; Podman: "no container with name or ID ...: no such container" */
        assert_non_null(strcasestr(err.msg, "No such container"));
        assert_int_equal(engine_container_pause(ctx.e, name, &err), -ENOENT);
        assert_int_equal(engine_container_kill(ctx.e, name, NULL, &err), -ENOENT);
}

/* engine_image_build(): a context sent as a tar through our client only,
 * the image labelled, a container made from it running; removed, nothing
 * left. A context whose COPY names a missing file fails with the
 * builder's own message and leaves no image. */
#define TEST_LABEL "org.mayhem.test"
static void build_context(struct strbuf *tar, const char *dockerfile, bool with_busybox) {
        _cleanup_free_ char *bb = NULL;
        size_t len = 0;
        assert_int_equal(tar_append_file(tar, "Dockerfile", 0644, dockerfile, strlen(dockerfile)), 0);
        if (with_busybox) {
                assert_int_equal(read_file_bounded(BUSYBOX, BUSYBOX_MAX, &bb, &len, NULL), 0);
                assert_int_equal(tar_append_file(tar, "busybox", 0755, bb, len), 0);
        }
        assert_int_equal(tar_finish(tar), 0);
}

static void test_image_build(void **state) {
        struct strbuf tar = STRBUF_INIT(BUSYBOX_MAX + 65536);
        struct mh_error err = { 0 };
        char name[64], id[ENGINE_ID_MAX], image[80], label[64] = "";
        snprintf(name, sizeof(name), "%s-built", ctx.prefix);
        snprintf(image, sizeof(image), "%s:latest", name);
        build_context(
                &tar, "FROM scratch\nCOPY busybox /busybox\nCMD [\"/busybox\",\"sleep\",\"60\"]\n", true);
        call_ok(engine_image_build(ctx.e, name, TEST_LABEL, tar.data, tar.len, &err), &err);
        strbuf_done(&tar);
        call_ok(engine_image_present(ctx.e, name, &err), &err);
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ ctx.cli, "image", "inspect", "--format",
                                             "{{index .Config.Labels \"" TEST_LABEL "\"}}", image, NULL });
        snprintf(label, sizeof(label), "%s", r.out ? r.out : "");
        cmd_result_done(&r);
        assert_string_equal(label, "1\n");
        struct engine_limits none = { 0 };
        call_ok(engine_container_create(ctx.e, image, name, TEST_LABEL, &none, id, &err), &err);
        int started = engine_container_start(ctx.e, id, &err);
        struct engine_container c = { 0 };
        int inspected = engine_container_inspect(ctx.e, id, &c, &err);
        call_ok(engine_container_remove(ctx.e, id, &err), &err);
        call_ok(engine_image_remove(ctx.e, name, &err), &err);
        assert_int_equal(started, 0);
        assert_int_equal(inspected, 0);
        assert_true(c.running);
        assert_int_equal(engine_image_present(ctx.e, name, &err), -ENOENT);

        tar = STRBUF_INIT(65536);
        build_context(&tar, "FROM scratch\nCOPY missing /missing\n", false);
        int r2 = engine_image_build(ctx.e, name, TEST_LABEL, tar.data, tar.len, &err);
        strbuf_done(&tar);
        print_message("a build of a missing file: %s\n", err.msg);
        assert_int_equal(r2, -EIO);
        assert_string_equal(err.id, "engine_build");
        assert_non_null(strstr(err.msg, "missing"));
        assert_int_equal(engine_image_present(ctx.e, name, &err), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_server),       cmocka_unit_test(test_inspect),
                cmocka_unit_test(test_list_compose), cmocka_unit_test(test_pause_unpause),
                cmocka_unit_test(test_kill_start),   cmocka_unit_test(test_restart),
                cmocka_unit_test(test_stop_start),   cmocka_unit_test(test_missing),
                cmocka_unit_test(test_image_build),
        };
        const char *which = getenv("MAYHEM_TEST_ENGINE");
        struct mh_error err = { 0 };
        int kind = engine_kind_from_string(which && which[0] ? which : "docker");

        if (kind < 0) {
                printf("MAYHEM_TEST_ENGINE=%s: expected docker or podman\n", which);
                return 1;
        }
        ctx.kind = (enum engine_kind)kind;
        ctx.cli = engine_kind_to_string(ctx.kind);
        if (access(BUSYBOX, X_OK) < 0) {
                printf("skipped: no %s (apt-get install busybox-static)\n", BUSYBOX);
                return 77;
        }
        if (engine_open(ctx.kind, NULL, &ctx.e, &err) < 0) {
                printf("skipped: %s\n", err.msg);
                return 77;
        }
        snprintf(ctx.prefix, sizeof(ctx.prefix), "mayhemtest-%d", (int)getpid());
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
