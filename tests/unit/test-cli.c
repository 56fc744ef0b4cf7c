#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "catalog/catalog.h"
#include "common/run-command.h"
#include "cli/cli-internal.h"
#include "config.h"

/* Runs the real mayhem binary, as a user would, and captures what it says. */
struct result {
        int exit;
        char *out, *err;
};

static struct result run_in(const char *dir, const char *const *args) {
        const char *argv[32] = { getenv("MAYHEM_BIN") };
        size_t n = 1;
        for (; args[n - 1] && n < ELEMENTSOF(argv) - 1; n++)
                argv[n] = args[n - 1];
        argv[n] = NULL;
        struct cmd_result r = run_command(dir ? dir : getenv("MAYHEM_SOURCE_ROOT"), argv);
        return (struct result){ .exit = r.exit, .out = r.out, .err = r.err };
}

#define RUN(...) run_in(NULL, (const char *const[]){ __VA_ARGS__, NULL })

static void result_done(struct result *r) {
        free(r->out);
        free(r->err);
}

#define DEMO "examples/demo/drill.yaml", "-c", "examples/demo/compose.yaml"

static void test_version_and_help(void **state) {
        struct result r = RUN("--version");
        assert_int_equal(r.exit, 0);
        assert_string_equal(r.out, "mayhem " MAYHEM_VERSION "\n");
        result_done(&r);
        static const char *const helps[][4] = {
                { "--help" },
                { "discover", "--help" },
                { "discover", "faults", "--help" },
                { "discover", "topology", "--help" },
                { "prepare", "--help" },
                { "prepare", "validate", "--help" },
                { "prepare", "plan", "-h" },
                { "run", "--help" },
                { "inspect", "--help" },
                { "inspect", "runs", "--help" },
                { "inspect", "history", "--help" },
                { "inspect", "leases", "--help" },
        };
        for (size_t i = 0; i < ELEMENTSOF(helps); i++) {
                r = run_in(NULL, helps[i]);
                if (r.exit != 0 || strncmp(r.out, "Usage: mayhem", 13) != 0)
                        fail_msg("help %zu: exit %d: %s%s", i, r.exit, r.out, r.err);
                result_done(&r);
        }
}

static void test_validate_demo_with_prefixes(void **state) {
        struct result a = RUN("prepare", "validate", DEMO), b = RUN("prep", "val", DEMO);
        assert_int_equal(a.exit, 0);
        assert_int_equal(b.exit, 0);
        assert_string_equal(a.out, b.out);
        assert_memory_equal(a.out, "validated r-demo-", 17);
        assert_non_null(strstr(a.out, ": 4 step(s), fingerprint "));
        result_done(&a);
        result_done(&b);
}

static void test_plan_json_is_stable(void **state) {
        struct result a = RUN("prepare", "plan", DEMO), b = RUN("prepare", "plan", DEMO);
        assert_int_equal(a.exit, 0);
        assert_string_equal(a.out, b.out);
        assert_non_null(strstr(a.out, "\"fingerprint\": \""));
        result_done(&a);
        result_done(&b);
        a = RUN("prepare", "plan", "--json", DEMO);
        assert_int_equal(a.exit, 0);
        assert_non_null(strstr(a.out, "\"decisions\""));
        result_done(&a);
}

struct failure {
        const char *args[8];
        int exit;
        const char *err; /* expected prefix of stderr */
};

static const struct failure failures[] = {
        { { "prepare", "validate" },
          2,
          "error: [usage] missing argument: usage: mayhem prepare validate SPEC" },
        { { "prepre" }, 2, "error: [usage] unknown command 'prepre' (did you mean 'prepare'?)" },
        { { "prepare", "validate", "--jsn", DEMO }, 2, "error: [usage] unknown option '--jsn'" },
        { { "--format", "xml", "discover", "faults" },
          2,
          "error: [usage] --format takes text or json, not 'xml'" },
        { { "prepare", "validate", "nope.yaml", "-c", "examples/demo/compose.yaml" },
          4,
          "error: nope.yaml: cannot open: No such file or directory" },
        { { "prepare", "validate", "tests/data/drills/reference-example.yaml", "-c",
            "examples/demo/compose.yaml" },
          4,
          "tests/data/drills/reference-example.yaml:37:18: error: execution[3].sequential[0]: 'testcase-lb' "
          "is not a "
          "declared target" },
        { { "--format", "json", "prepare", "validate", "tests/data/drills/reference-example.yaml", "-c",
            "examples/demo/compose.yaml" },
          4,
          "{\"error\":{\"code\":\"validation\",\"col\":18,\"exit\":4,\"file\":" },
        { { "prepare", "validate", "tests/data/drills/not-runnable.yaml", "-c",
            "examples/demo/compose.yaml" },
          4,
          "tests/data/drills/not-runnable.yaml:8:16: error: mem.exhaust cannot be injected by this build: "
          "its "
          "mechanism (payload) is not implemented yet" },
        { { "run", "tests/data/drills/not-runnable.yaml", "-c", "examples/demo/compose.yaml" },
          4,
          "tests/data/drills/not-runnable.yaml:8:16: error: mem.exhaust cannot be injected by this build" },
        { { "discover", "faults", "-e", "net.latncy" },
          4,
          "error: unknown fault 'net.latncy' (did you mean 'net.latency'?)" },
};

static void test_failures(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(failures); i++) {
                struct result r = run_in(NULL, failures[i].args);
                if (r.exit != failures[i].exit ||
                    strncmp(r.err, failures[i].err, strlen(failures[i].err)) != 0)
                        fail_msg("case %zu: exit %d, stderr: %s", i, r.exit, r.err);
                assert_string_equal(r.out, "");
                result_done(&r);
        }
}

static void test_no_compose_in_cwd(void **state) {
        char drill[512];
        snprintf(drill, sizeof(drill), "%s/examples/demo/drill.yaml", getenv("MAYHEM_SOURCE_ROOT"));
        struct result r = run_in("/", (const char *const[]){ "prepare", "validate", drill, NULL });
        assert_int_equal(r.exit, 4);
        assert_non_null(strstr(r.err, "-c"));
        result_done(&r);
}

/* The counts `discover faults` prints are the catalog's, and README.md says the same. */
static void check_fault_counts(const char *out) {
        size_t run = catalog_count_status(FAULT_STATUS_RUNNABLE),
               planned = catalog_count_status(FAULT_STATUS_PLANNED_ONLY),
               only = catalog_count_status(FAULT_STATUS_CATALOG_ONLY);
        char line[128], readme_line[128], path[512];
        char *readme = NULL;
        assert_int_equal(run + planned + only, catalog_size());
        snprintf(
                line, sizeof(line), "%zu faults: %zu runnable, %zu planned-only (", catalog_size(), run,
                planned);
        assert_non_null(strstr(out, line));
        snprintf(
                readme_line, sizeof(readme_line),
                "%zu fault ids: %zu runnable, %zu planned-only, %zu catalog-only", catalog_size(), run,
                planned, only);
        snprintf(path, sizeof(path), "%s/README.md", getenv("MAYHEM_SOURCE_ROOT"));
        size_t len = 0;
        assert_int_equal(read_file_bounded(path, 1 << 20, &readme, &len, NULL), 0);
        if (!strstr(readme, readme_line))
                fail_msg("README.md does not say \"%s\"", readme_line);
        free(readme);
}

static void test_discover(void **state) {
        struct result r = RUN("discover", "faults");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "net.latency "));
        assert_non_null(strstr(
                r.out, "fs.fill                        filesystem  medium    300s  planned-only payload"));
        check_fault_counts(r.out);
        result_done(&r);
        r = RUN("d", "f", "-e", "net.latency");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "delay_ms"));
        assert_non_null(strstr(r.out, "(also accepted as 'seconds', a duration)"));
        assert_non_null(strstr(r.out, "undo ops:      net.unshape, nft.table_delete"));
        result_done(&r);
        r = RUN("discover", "topology", "-c", "examples/demo/compose.yaml");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "api -> demo-api"));
        result_done(&r);
}

static void test_run_needs_execute(void **state) {
        char db[64];
        snprintf(db, sizeof(db), "/tmp/mayhem-test-cli-%d.db", (int)getpid());
        struct result r = RUN("--db", db, "run", DEMO);
        assert_int_equal(r.exit, 0);
        assert_memory_equal(r.out, "validated r-demo-", 17);
        assert_string_equal(r.err, "plan ready; pass --execute to run\n");
        assert_int_equal(access(db, F_OK), -1); /* nothing touched, not even the database */
        result_done(&r);
}

static void test_run_engine_unreachable(void **state) {
        setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock", 1);
        struct result r = RUN("--db", "/tmp/mayhem-test-cli-unreachable.db", "run", DEMO, "--execute");
        unsetenv("DOCKER_HOST");
        assert_int_equal(r.exit, 3);
        assert_non_null(
                strstr(r.err, "error: [engine_unreachable] cannot reach the Docker engine at "
                              "/nonexistent/docker.sock: No such file or directory; start it"));
        assert_int_equal(access("/tmp/mayhem-test-cli-unreachable.db", F_OK), -1);
        result_done(&r);
}

/* The tree has no ambiguous prefix today; the rule is tested on a fake tree. */
static int never_run(struct cli_ctx *ctx, const struct cli_args *a, struct mh_error *e) {
        return 0;
}

static void test_ambiguous_prefix_is_exit_10(void **state) {
        static const struct cli_command pack = { .name = "pack", .run = never_run };
        static const struct cli_command prepare = { .name = "prepare", .run = never_run };
        static const struct cli_command *const subs[] = { &pack, &prepare, NULL };
        static const struct cli_command root = { .name = "mayhem", .subcommands = subs };
        struct cli_ctx ctx = { .command_path = "mayhem" };
        const struct cli_command *hit = NULL;
        struct mh_error e = { 0 };

        assert_true(cli_command_resolve(&ctx, &root, "p", &hit, &e) < 0);
        assert_int_equal(e.exit, MH_EXIT_AMBIGUOUS_COMMAND);
        assert_string_equal(e.msg, "'p' is ambiguous in 'mayhem': it matches pack, prepare");
        assert_int_equal(cli_command_resolve(&ctx, &root, "pr", &hit, &e), 0);
        assert_ptr_equal(hit, &prepare);
        assert_int_equal(cli_command_resolve(&ctx, &root, "pack", &hit, &e), 0);
        assert_ptr_equal(hit, &pack);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_version_and_help),
                cmocka_unit_test(test_validate_demo_with_prefixes),
                cmocka_unit_test(test_plan_json_is_stable),
                cmocka_unit_test(test_failures),
                cmocka_unit_test(test_no_compose_in_cwd),
                cmocka_unit_test(test_discover),
                cmocka_unit_test(test_ambiguous_prefix_is_exit_10),
                cmocka_unit_test(test_run_needs_execute),
                cmocka_unit_test(test_run_engine_unreachable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
