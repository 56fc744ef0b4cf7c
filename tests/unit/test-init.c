#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "common/run-command.h"

/* `mayhem init` as a user runs it, then `mayhem prepare validate` on what it
 * wrote: the starter drill must validate as written. */

static struct cmd_result mayhem(const char *dir, const char *const *args) {
        const char *argv[16] = { getenv("MAYHEM_BIN") };
        size_t n = 1;
        for (; args[n - 1] && n < ELEMENTSOF(argv) - 1; n++)
                argv[n] = args[n - 1];
        argv[n] = NULL;
        return run_command(dir ? dir : getenv("MAYHEM_SOURCE_ROOT"), argv);
}

#define MAYHEM(dir, ...) mayhem(dir, (const char *const[]){ __VA_ARGS__, NULL })

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

/* init -c COMPOSE -o FILE, then validate FILE -c COMPOSE; returns the drill text. */
static char *init_and_validate(const char *dir, const char *compose) {
        char drill[128];
        snprintf(drill, sizeof(drill), "/tmp/in15-drill-%d.yaml", (int)getpid());
        unlink(drill);
        struct cmd_result r = MAYHEM(dir, "init", "-c", compose, "-o", drill);
        if (r.exit != 0)
                fprintf(stderr, "init: %s", r.err);
        assert_int_equal(r.exit, 0);
        cmd_result_done(&r);
        r = MAYHEM(dir, "prepare", "validate", drill, "-c", compose);
        if (r.exit != 0)
                fprintf(stderr, "validate: %s%s", r.out, r.err);
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "validated plan"));
        cmd_result_done(&r);
        r = (struct cmd_result){ 0 };
        const char *cat[] = { "cat", drill, NULL };
        r = run_command(NULL, cat);
        unlink(drill);
        free(r.err);
        return r.out;
}

static void test_demo(void **state) {
        _cleanup_free_ char *d = init_and_validate(NULL, "examples/demo/compose.yaml");
        assert_non_null(strstr(d, "\"demo-api\":"));
        assert_non_null(strstr(d, "fault: proc.pause"));
        assert_non_null(strstr(d, "{type: tcp, host: \"127.0.0.1\", port: 18080"));
        assert_non_null(strstr(d, "source_id: port1-after"));
}

/* No published port: faults and no checks, and still valid. */
static void test_reference_no_ports(void **state) {
        _cleanup_free_ char *d = init_and_validate(NULL, "examples/reference/compose.yaml");
        assert_non_null(strstr(d, "\"testcase-download-1\":"));
        assert_null(strstr(d, "- check_spec:"));
        assert_null(strstr(d, "\nsuccess:"));
}

/* Names YAML would read as booleans, nulls and numbers, found without -c
 * in the working directory; a service whose dependents put a fault there
 * above the blast radius is left out, and the drill still validates. */
static void test_hostile_names_and_blast_radius(void **state) {
        char dir[64], path[128];
        snprintf(dir, sizeof(dir), "/tmp/in15-init-%d", (int)getpid());
        mkdir(dir, 0755);
        snprintf(path, sizeof(path), "%s/compose.yaml", dir);
        write_text(
                path, "name: \"null\"\n"
                      "services:\n"
                      "  \"true\": {image: busybox, ports: [\"8081:80\", \"9000:9000/udp\", \"80\"], "
                      "depends_on: [db]}\n"
                      "  \"1e3\": {image: busybox, container_name: \"yes\", depends_on: [db]}\n"
                      "  db: {image: busybox}\n"
                      "  \"a.b\": {image: busybox, deploy: {replicas: 2}, ports: [\"127.0.0.1:8082:80\"]}\n"
                      "  \"off\": {image: busybox, scale: 0}\n");
        char *d = init_and_validate(dir, "compose.yaml");
        assert_non_null(strstr(d, "\"null-true-1\":"));
        assert_non_null(strstr(d, "\"yes\": # service \"1e3\""));
        assert_non_null(strstr(d, "\"null-a.b-1\":"));
        assert_non_null(strstr(d, "service \"db\" left out"));
        assert_non_null(strstr(d, "service \"off\" has no container"));
        assert_non_null(strstr(d, "port: 8081"));
        assert_null(strstr(d, "port: 9000")); /* udp: no tcp check */
        free(d);

        /* Without -c: the compose file of the working directory. */
        struct cmd_result r = MAYHEM(dir, "init");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "\"null-true-1\":"));
        cmd_result_done(&r);
        /* -o never replaces a file. */
        r = MAYHEM(dir, "init", "-o", "compose.yaml");
        assert_int_equal(r.exit, 1);
        assert_non_null(strstr(r.err, "compose.yaml exists; not overwritten"));
        cmd_result_done(&r);
        unlink(path);
        rmdir(dir);
}

static void test_no_compose_file(void **state) {
        struct cmd_result r = MAYHEM("/", "init");
        assert_int_equal(r.exit, 4);
        assert_non_null(strstr(r.err, "no compose file in the current directory"));
        cmd_result_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_demo),
                cmocka_unit_test(test_reference_no_ports),
                cmocka_unit_test(test_hostile_names_and_blast_radius),
                cmocka_unit_test(test_no_compose_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
