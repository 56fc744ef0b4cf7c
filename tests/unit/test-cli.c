#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "catalog/catalog.h"
#include "common/run-command.h"
#include "cli/cli-internal.h"
#include "config.h"
#include "evidence/evidence.h"

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
        assert_memory_equal(a.out, "validated plan r-demo-", 22);
        assert_non_null(strstr(a.out, ": 4 step(s), fingerprint "));
        assert_non_null(strstr(a.out, "; each run of it gets its own id, r-demo-<6 random hex digits>\n"));
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
          "error: [usage] SPEC is missing: name a drill file, or give --config a file with kind: drill" },
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
          "tests/data/drills/not-runnable.yaml:8:16: error: tls.certificate_expired cannot be injected by "
          "this build: its mechanism (proxy) is not implemented yet" },
        { { "run", "tests/data/drills/not-runnable.yaml", "-c", "examples/demo/compose.yaml" },
          4,
          "tests/data/drills/not-runnable.yaml:8:16: error: tls.certificate_expired cannot be "
          "injected by this build" },
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

static void write_file(const char *dir, const char *name, const char *text) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *name) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        assert_int_equal(unlink(path), 0);
}

#define SMALL_DRILL                                                                                         \
        "kind: drill\nname: small\ncontainers:\n  web-1:\n    faults:\n      - fault: container.pause\n"    \
        "        duration: 1s\nexecution:\n  - sequential: [web-1]\n"

/* Without -c: compose.yaml & co. in the working directory, else next to the drill. */
static void test_compose_next_to_drill(void **state) {
        char top[] = "/tmp/mayhem-test-cli-XXXXXX", stack[64];
        assert_non_null(mkdtemp(top));
        snprintf(stack, sizeof(stack), "%s/stack", top);
        assert_int_equal(mkdir(stack, 0700), 0);
        write_file(stack, "drill.yaml", SMALL_DRILL);
        write_file(stack, "compose.yaml", "services:\n  web:\n    image: x\n    container_name: web-1\n");
        const char *const validate[] = { "prepare", "validate", "stack/drill.yaml", NULL };

        struct result r = run_in(top, validate);
        if (r.exit != 0)
                fail_msg("exit %d: %s", r.exit, r.err);
        assert_memory_equal(r.out, "validated plan r-small-", 23);
        result_done(&r);

        /* The working directory's compose file comes first: it has no web-1. */
        write_file(top, "docker-compose.yml", "services:\n  other:\n    image: x\n");
        r = run_in(top, validate);
        assert_int_equal(r.exit, 4);
        assert_non_null(strstr(r.err, "web-1"));
        result_done(&r);
        remove_file(top, "docker-compose.yml");

        /* What the compose file says that we do not follow is a warning, with its place. */
        write_file(
                stack, "compose.yaml",
                "include: [more.yaml]\nservices:\n  web:\n    image: x\n    imagee: y\n"
                "    container_name: web-1\n");
        r = run_in(top, validate);
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.err, "warning: stack/compose.yaml:1:1: include: not supported"));
        assert_non_null(strstr(
                r.err, "warning: stack/compose.yaml:5:5: services.web.imagee: not a compose service key; "
                       "ignored (did you mean 'image'?)\n"));
        result_done(&r);
        r = run_in(top, (const char *const[]){ "prepare", "validate", "--json", "stack/drill.yaml", NULL });
        assert_int_equal(r.exit, 0);
        assert_string_equal(r.err, "");
        assert_non_null(strstr(r.out, "\"stack/compose.yaml:5:5: services.web.imagee: not a compose"));
        assert_non_null(strstr(r.out, "\"plan_id\": \"r-small-"));
        result_done(&r);

        remove_file(stack, "compose.yaml");
        r = run_in(top, validate);
        assert_int_equal(r.exit, 4);
        assert_string_equal(
                r.err, "error: [compose_not_found] no compose file in the current directory nor in stack, "
                       "next to the drill (looked for compose.yaml, compose.yml, docker-compose.yml and "
                       "docker-compose.yaml); name one with -c FILE\n");
        result_done(&r);
        remove_file(stack, "drill.yaml");
        assert_int_equal(rmdir(stack), 0);
        assert_int_equal(rmdir(top), 0);
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
                r.out,
                "fs.fill                        filesystem  medium    300s  runnable     payload.fill"));
        check_fault_counts(r.out);
        result_done(&r);
        r = RUN("di", "f", "-e", "net.latency"); /* "d" is discover or doctor */
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
        assert_memory_equal(r.out, "validated plan r-demo-", 22);
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

/* 41 runs: the listing shows 20 and says so; --limit and --all change that. */
static void test_inspect_runs_says_what_it_hides(void **state) {
        static const char *const db_files[] = { "", "-wal", "-shm" };
        char db[64], id[80];
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        snprintf(db, sizeof(db), "/tmp/mayhem-test-cli-runs-%d.db", (int)getpid());
        unlink(db);
        assert_int_equal(evidence_open(db, &ev, &e), 0);
        for (int i = 0; i < 41; i++) {
                snprintf(id, sizeof(id), "r-many-%06d", i);
                struct evidence_run run = { .id = id,
                                            .name = "many",
                                            .kind = "drill",
                                            .spec_json = "{}",
                                            .plan_json = "{}",
                                            .plan_fingerprint = "00",
                                            .engine = "docker" };
                assert_int_equal(evidence_run_begin(ev, &run, &e), 0);
        }
        evidence_close(ev);
        static const struct {
                const char *opt[3];
                int exit;
                size_t rows;
                const char *tail;
        } cases[] = {
                { { NULL }, 0, 20, "20 of 41 runs shown (--all or --limit N for more)\n" },
                { { "--limit", "5" }, 0, 5, "5 of 41 runs shown (--all or --limit N for more)\n" },
                { { "--all" }, 0, 41, NULL },
                { { "--limit", "41" }, 0, 41, NULL },
                { { "--limit", "0" }, 2, 0, NULL },
                { { "--limit", "5", "--all" }, 2, 0, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *args[8] = { "--db", db, "inspect", "runs" };
                for (size_t k = 0; k < 3 && cases[i].opt[k]; k++)
                        args[4 + k] = cases[i].opt[k];
                struct result r = run_in(NULL, args);
                if (r.exit != cases[i].exit)
                        fail_msg("case %zu: exit %d: %s", i, r.exit, r.err);
                size_t rows = 0;
                for (const char *p = r.out; (p = strstr(p, "r-many-")); p++)
                        rows++;
                assert_int_equal(rows, cases[i].rows);
                const char *tail = strstr(r.out, " runs shown");
                if (cases[i].tail)
                        assert_string_equal(strrchr(r.out, '\n') - strlen(cases[i].tail) + 1, cases[i].tail);
                else
                        assert_null(tail);
                result_done(&r);
        }
        struct result r =
                run_in(NULL, (const char *const[]){ "--db", db, "inspect", "runs", "--json", NULL });
        assert_int_equal(r.exit, 0);
        assert_string_equal(r.err, "20 of 41 runs shown (--all or --limit N for more)\n");
        result_done(&r);
        r = run_in(NULL, (const char *const[]){ "--db", db, "inspect", "history", "r-ghost", NULL });
        assert_int_equal(r.exit, 4);
        assert_string_equal(
                r.err, "error: [no_such_run] reading a run's history: no run 'r-ghost' in the evidence "
                       "database\n");
        result_done(&r);
        for (size_t i = 0; i < ELEMENTSOF(db_files); i++) {
                snprintf(id, sizeof(id), "%s%s", db, db_files[i]);
                unlink(id);
        }
}

/* The tree has no ambiguous prefix today; the rule is tested on a fake tree. */
static int never_run(struct cli_ctx *ctx, const struct cli_args *a, struct mh_error *e) {
        return 0;
}

/* prepare config show --json: each key's value and where it came from; a bad
 * file is exit 3 with FILE:LINE:COL for every command; a --config drill is the SPEC. */
static void test_config_show(void **state) {
        char top[] = "/tmp/mayhem-test-cli-XXXXXX";
        assert_non_null(mkdtemp(top));
        write_file(
                top, "mayhem.yaml",
                "apiVersion: mayhem/v1\nblast_radius:\n  max_hosts: 4\nstorage: {path: ev.db}\n");
        const char *const show[] = { "--db", "flag.db", "prepare", "config", "show", "--json", NULL };
        struct result r = run_in(top, show);
        if (r.exit != 0)
                fail_msg("exit %d: %s", r.exit, r.err);
        json_t *j = json_loads(r.out, 0, NULL);
        assert_non_null(j);
        json_t *hosts = json_object_get(json_object_get(j, "keys"), "blast_radius.max_hosts");
        assert_int_equal(json_integer_value(json_object_get(hosts, "value")), 4);
        assert_string_equal(json_string_value(json_object_get(hosts, "source")), "file");
        assert_string_equal(json_string_value(json_object_get(hosts, "where")), "mayhem.yaml:3:14");
        json_t *path = json_object_get(json_object_get(j, "keys"), "storage.path");
        assert_string_equal(json_string_value(json_object_get(path, "value")), "flag.db");
        assert_string_equal(json_string_value(json_object_get(path, "source")), "flag");
        json_t *pct = json_object_get(json_object_get(j, "keys"), "blast_radius.max_services_pct");
        assert_true(json_is_null(json_object_get(pct, "where")));
        assert_string_equal(json_string_value(json_object_get(j, "file")), "mayhem.yaml");
        json_decref(j);
        result_done(&r);

        r = run_in(top, (const char *const[]){ "prepare", "config", "show", NULL });
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "\nblast_radius.max_hosts = 4  (file mayhem.yaml:3:14)\n"));
        assert_non_null(strstr(r.out, "\nstorage.path = \"ev.db\"  (file mayhem.yaml:4:17)\n"));
        result_done(&r);
        r = run_in(top, (const char *const[]){ "prep", "c", "val", NULL });
        assert_int_equal(r.exit, 0);
        assert_string_equal(r.out, "config ok: mayhem.yaml\n");
        result_done(&r);

        write_file(top, "mayhem.yaml", "apiVersion: mayhem/v1\nblast_radius:\n  max_hostz: 4\n");
        r = run_in(top, (const char *const[]){ "inspect", "runs", NULL });
        assert_int_equal(r.exit, 3);
        assert_string_equal(
                r.err, "mayhem.yaml:3:3: error: unknown key 'max_hostz' (did you mean 'max_hosts'?)\n");
        result_done(&r);
        remove_file(top, "mayhem.yaml");

        write_file(top, "drill.yaml", SMALL_DRILL);
        write_file(top, "compose.yaml", "services:\n  web:\n    image: x\n    container_name: web-1\n");
        r = run_in(top, (const char *const[]){ "--config", "drill.yaml", "prepare", "validate", NULL });
        if (r.exit != 0)
                fail_msg("exit %d: %s", r.exit, r.err);
        assert_memory_equal(r.out, "validated plan r-small-", 23);
        result_done(&r);
        remove_file(top, "drill.yaml");
        remove_file(top, "compose.yaml");
        assert_int_equal(rmdir(top), 0);
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
                cmocka_unit_test(test_compose_next_to_drill),
                cmocka_unit_test(test_discover),
                cmocka_unit_test(test_ambiguous_prefix_is_exit_10),
                cmocka_unit_test(test_config_show),
                cmocka_unit_test(test_run_needs_execute),
                cmocka_unit_test(test_run_engine_unreachable),
                cmocka_unit_test(test_inspect_runs_says_what_it_hides),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
