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

#include "basic/fileio.h"
#include "config/mayhem-config.h"

/* The loader reads ./mayhem.yaml: every test runs in a fresh directory. */
static char dir[] = "/tmp/mayhem-test-config-XXXXXX";

static void write_file(const char *name, const char *text) {
        FILE *f = fopen(name, "we");
        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

static void clear_env(void) {
        unsetenv("MAYHEM_STORAGE_PATH");
        unsetenv("MAYHEM_ARTIFACTS_DIR");
        unsetenv("MAYHEM_LOG_LEVEL");
}

static int setup(void **state) {
        static char fresh[sizeof(dir)];
        memcpy(fresh, "/tmp/mayhem-test-config-XXXXXX", sizeof(fresh));
        if (!mkdtemp(fresh) || chdir(fresh) < 0)
                return -1;
        memcpy(dir, fresh, sizeof(dir));
        clear_env();
        return 0;
}

static int teardown(void **state) {
        unlink("mayhem.yaml");
        unlink("mayhem.ci.yaml");
        unlink("drill.yaml");
        unlink("other.yaml");
        clear_env();
        return chdir("/") < 0 || rmdir(dir) < 0 ? -1 : 0;
}

static void expect_origin(
        const struct mayhem_config *c, const char *key, const char *value, enum config_source src,
        const char *where) {
        const struct config_origin *o = config_origin(c, key);
        if (!o)
                fail_msg("%s: no origin", key);
        if (strcmp(o->value, value) != 0 || o->source != src ||
            (where ? !o->where || strcmp(o->where, where) != 0 : o->where != NULL))
                fail_msg(
                        "%s: got %s (%s %s), want %s (%s %s)", key, o->value,
                        config_source_to_string(o->source), o->where ? o->where : "-", value,
                        config_source_to_string(src), where ? where : "-");
}

/* Each layer over the one before it: defaults < file < profile < env < flags. */
static const char base_yaml[] = "apiVersion: mayhem/v1\n"
                                "blast_radius:\n"
                                "  max_hosts: 3\n"
                                "  max_concurrent_faults: 4\n"
                                "policy:\n"
                                "  deny_faults: [net., container.kill]\n"
                                "storage:\n"
                                "  path: file.db\n"
                                "  artifacts_dir: file-art\n"
                                "log_level: WARNING\n"
                                "runtime: docker\n"
                                "targets:\n"
                                "  api: {containers: [api]}\n"
                                "  web: {engine: docker, containers: [web]}\n";
static const char ci_yaml[] = "apiVersion: mayhem/v1\n"
                              "blast_radius:\n"
                              "  max_concurrent_faults: 5\n"
                              "policy:\n"
                              "  deny_faults: [cpu.]\n"
                              "storage:\n"
                              "  path: profile.db\n"
                              "  artifacts_dir: profile-art\n"
                              "log_level: ERROR\n"
                              "targets:\n"
                              "  api: {containers: [api, worker]}\n";

enum {
        L_FILE = 1,
        L_PROFILE = 2,
        L_ENV = 4,
        L_FLAGS = 8
};

struct row {
        unsigned layers;
        const char *key, *value;
        enum config_source source;
        const char *where;
};

static const struct row rows[] = {
        /* storage.path is set by every layer: the highest one wins. */
        { 0, "storage.path", "\"mayhem.db\"", CONFIG_SOURCE_DEFAULT, NULL },
        { L_FILE, "storage.path", "\"file.db\"", CONFIG_SOURCE_FILE, "mayhem.yaml:8:9" },
        { L_FILE | L_PROFILE, "storage.path", "\"profile.db\"", CONFIG_SOURCE_PROFILE,
          "mayhem.ci.yaml:7:9" },
        { L_FILE | L_PROFILE | L_ENV, "storage.path", "\"env.db\"", CONFIG_SOURCE_ENV,
          "MAYHEM_STORAGE_PATH" },
        { L_FILE | L_PROFILE | L_ENV | L_FLAGS, "storage.path", "\"flag.db\"", CONFIG_SOURCE_FLAG, "--db" },
        /* log_level has no flag: env is the top. */
        { 0, "log_level", "\"INFO\"", CONFIG_SOURCE_DEFAULT, NULL },
        { L_FILE, "log_level", "\"WARNING\"", CONFIG_SOURCE_FILE, "mayhem.yaml:10:12" },
        { L_FILE | L_PROFILE, "log_level", "\"ERROR\"", CONFIG_SOURCE_PROFILE, "mayhem.ci.yaml:9:12" },
        { L_FILE | L_PROFILE | L_ENV | L_FLAGS, "log_level", "\"DEBUG\"", CONFIG_SOURCE_ENV,
          "MAYHEM_LOG_LEVEL" },
        /* runtime: file, then -p. */
        { L_FILE | L_PROFILE | L_ENV, "runtime", "\"docker\"", CONFIG_SOURCE_FILE, "mayhem.yaml:11:10" },
        { L_FILE | L_PROFILE | L_ENV | L_FLAGS, "runtime", "\"podman\"", CONFIG_SOURCE_FLAG, "--podman" },
        /* Maps merge key by key: the profile's max_concurrent_faults leaves the file's max_hosts. */
        { L_FILE | L_PROFILE | L_ENV | L_FLAGS, "blast_radius.max_hosts", "3", CONFIG_SOURCE_FILE,
          "mayhem.yaml:3:14" },
        { L_FILE | L_PROFILE, "blast_radius.max_concurrent_faults", "5", CONFIG_SOURCE_PROFILE,
          "mayhem.ci.yaml:3:26" },
        { L_FILE | L_PROFILE | L_ENV | L_FLAGS, "blast_radius.max_services_pct", "50", CONFIG_SOURCE_DEFAULT,
          NULL },
        /* Lists replace. */
        { L_FILE, "policy.deny_faults", "[\"net.\", \"container.kill\"]", CONFIG_SOURCE_FILE,
          "mayhem.yaml:6:16" },
        { L_FILE | L_PROFILE, "policy.deny_faults", "[\"cpu.\"]", CONFIG_SOURCE_PROFILE,
          "mayhem.ci.yaml:5:16" },
        /* targets merge per profile name: api replaced by the overlay, web kept. */
        { L_FILE, "targets.api.containers", "[\"api\"]", CONFIG_SOURCE_FILE, "mayhem.yaml:13:21" },
        { L_FILE | L_PROFILE, "targets.api.containers", "[\"api\", \"worker\"]", CONFIG_SOURCE_PROFILE,
          "mayhem.ci.yaml:11:21" },
        { L_FILE | L_PROFILE, "targets.web.containers", "[\"web\"]", CONFIG_SOURCE_FILE,
          "mayhem.yaml:14:37" },
        { L_FILE | L_PROFILE, "targets.api.engine", "\"docker\"", CONFIG_SOURCE_DEFAULT, NULL },
        { L_FILE | L_PROFILE | L_FLAGS, "target_profile", "\"web\"", CONFIG_SOURCE_FLAG, "--target" },
        { L_FILE | L_PROFILE | L_FLAGS, "profile", "\"ci\"", CONFIG_SOURCE_FLAG, "--profile" },
};

static void load_layers(unsigned layers, struct mayhem_config **ret) {
        struct mh_error e = { 0 };
        struct config_request req = { 0 };
        unlink("mayhem.yaml");
        unlink("mayhem.ci.yaml");
        clear_env();
        if (layers & L_FILE)
                write_file("mayhem.yaml", base_yaml);
        if (layers & L_PROFILE) {
                write_file("mayhem.ci.yaml", ci_yaml);
                req.profile = "ci";
        }
        if (layers & L_ENV) {
                setenv("MAYHEM_STORAGE_PATH", "env.db", 1);
                setenv("MAYHEM_ARTIFACTS_DIR", "env-art", 1);
                setenv("MAYHEM_LOG_LEVEL", "DEBUG", 1);
        }
        if (layers & L_FLAGS) {
                req.db_path = "flag.db";
                req.podman = true;
                req.target = "web";
        }
        if (config_load(&req, ret, &e) < 0)
                fail_msg("layers %u: %s:%u:%u: %s", layers, e.path, e.line, e.col, e.msg);
}

static void test_layering_table(void **state) {
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct mayhem_config *c = NULL;
                load_layers(rows[i].layers, &c);
                expect_origin(c, rows[i].key, rows[i].value, rows[i].source, rows[i].where);
                config_free(c);
        }
}

/* What the struct holds agrees with what the provenance shows. */
static void test_layered_struct(void **state) {
        struct mayhem_config *c = NULL;
        load_layers(L_FILE | L_PROFILE | L_ENV | L_FLAGS, &c);
        assert_string_equal(c->storage_path, "flag.db");
        assert_string_equal(c->artifacts_dir, "env-art");
        assert_int_equal(c->log_level, LOG_LEVEL_DEBUG);
        assert_string_equal(c->runtime, "podman");
        assert_int_equal(c->blast_radius.max_hosts, 3);
        assert_int_equal(c->blast_radius.max_concurrent_faults, 5);
        assert_int_equal(c->policy.n_deny_faults, 1);
        assert_string_equal(c->policy.deny_faults[0], "cpu.");
        assert_int_equal(c->n_targets, 2);
        assert_non_null(c->target);
        assert_string_equal(c->target->name, "web");
        size_t n = 0;
        const char *const *scope = config_scope(c, &n);
        assert_int_equal(n, 1);
        assert_string_equal(scope[0], "web");
        assert_string_equal(c->path, "mayhem.yaml");
        assert_string_equal(c->profile, "ci");
        for (size_t i = 1; i < c->n_origins; i++)
                assert_true(strcmp(c->origins[i - 1].key, c->origins[i].key) < 0);
        config_free(c);
}

static void test_no_file_is_defaults(void **state) {
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(config_load(NULL, &c, &e), 0);
        assert_null(c->path);
        assert_string_equal(c->storage_path, "mayhem.db");
        assert_true(c->blast_radius.damage_quota.budget_s == 14400.0);
        assert_null(c->policy.allow_faults);
        assert_false(c->policy.has_risk_ceiling);
        for (size_t i = 0; i < c->n_origins; i++)
                assert_int_equal(c->origins[i].source, CONFIG_SOURCE_DEFAULT);
        config_free(c);
}

struct bad {
        const char *yaml;
        unsigned line, col;
        const char *msg;
};

static const struct bad bads[] = {
        { "policy: {}\n", 1, 1, "missing apiVersion: mayhem/v1" },
        { "apiVersion: v1\n", 1, 13, "apiVersion must be mayhem/v1, got 'v1'" },
        { "apiVersion: mayhem/v1\nblast_radus: {}\n", 2, 1,
          "unknown key 'blast_radus' (did you mean 'blast_radius'?)" },
        { "apiVersion: mayhem/v1\npolicy:\n  risk_celing: low\n", 3, 3,
          "unknown key 'risk_celing' (did you mean 'risk_ceiling'?)" },
        { "apiVersion: mayhem/v1\nstorage: {path: x, password: hunter2}\n", 2, 20,
          "key 'password' looks like a secret" },
        { "apiVersion: mayhem/v1\ntargets:\n  prod: {api_key: k}\n", 3, 10,
          "key 'api_key' looks like a secret" },
        { "apiVersion: mayhem/v1\nblast_radius: {max_services_pct: 0}\n", 2, 34,
          "blast_radius.max_services_pct: 0 is out of range (must be > 0)" },
        { "apiVersion: mayhem/v1\nblast_radius: {max_services_pct: 101}\n", 2, 34,
          "blast_radius.max_services_pct: 101 is out of range (at most 100)" },
        { "apiVersion: mayhem/v1\nblast_radius: {max_hosts: 0}\n", 2, 27,
          "blast_radius.max_hosts: 0 is out of range" },
        { "apiVersion: mayhem/v1\nblast_radius: {max_concurrent_faults: 0}\n", 2, 39,
          "blast_radius.max_concurrent_faults: 0 is out of range" },
        { "apiVersion: mayhem/v1\nmaniac: {level: 0}\n", 2, 17, "maniac.level: 0 is out of range (1..5)" },
        { "apiVersion: mayhem/v1\nmaniac: {run_level: 501}\n", 2, 21,
          "maniac.run_level: 501 is out of range (1..500)" },
        { "apiVersion: mayhem/v1\npolicy: {risk_ceiling: hihg}\n", 2, 24,
          "policy.risk_ceiling: 'hihg' is not one of low, medium, high, critical (did you mean 'high'?)" },
        { "apiVersion: mayhem/v1\nruntime: kubernetes\n", 2, 10,
          "runtime: 'kubernetes' is not supported by this build" },
        { "apiVersion: mayhem/v1\nruntime: lxc\n", 2, 10, "runtime: 'lxc' is not one of docker, podman" },
        { "apiVersion: mayhem/v1\nlog_level: LOUD\n", 2, 12,
          "log_level: 'LOUD' is not one of DEBUG, INFO, WARNING, ERROR" },
        { "apiVersion: mayhem/v1\npolicy: {allow_faults: [net.latncy]}\n", 2, 25,
          "policy.allow_faults: unknown fault id 'net.latncy' (did you mean 'net.latency'?)" },
        { "apiVersion: mayhem/v1\npolicy: {critical_fault_acks: [nett.]}\n", 2, 32,
          "policy.critical_fault_acks: unknown fault prefix 'nett.' (did you mean 'net.'?)" },
        { "apiVersion: mayhem/v1\nblast_radius: {forbidden_fault_pairs: [[net.partition]]}\n", 2, 40,
          "blast_radius.forbidden_fault_pairs: each pair is a list of two fault ids" },
        { "apiVersion: mayhem/v1\ntargets: {\"bad name\": {}}\n", 2, 11,
          "target profile name 'bad name' must match" },
        { "apiVersion: mayhem/v1\ntargets: {k: {namespace: prod}}\n", 2, 15,
          "targets.k.namespace: not supported: a Kubernetes field" },
        { "apiVersion: mayhem/v1\ntargets: {k: {engine: kubernetes}}\n", 2, 23,
          "targets.k.engine: 'kubernetes' is not supported by this build" },
        { "apiVersion: mayhem/v1\ntargets: {a: {extends: b}, b: {extends: c}, c: {}}\n", 2, 24,
          "targets.a.extends: 'b' extends another profile itself; extends is one level" },
        { "apiVersion: mayhem/v1\ntargets: {a: {extends: zz}}\n", 2, 24,
          "targets.a.extends: no profile 'zz' (known: a)" },
        { "apiVersion: mayhem/v1\ntargets: {a: {}}\nprofiles: {b: {}}\n", 3, 11,
          "profiles: is an alias of targets:" },
        { "apiVersion: mayhem/v1\nkubernetes: {namespace: prod}\n", 2, 25,
          "kubernetes.namespace: Kubernetes is not supported" },
        { "apiVersion: mayhem/v1\nstorage: {path: null}\n", 2, 17,
          "storage.path: null is not allowed here" },
        { "apiVersion: mayhem/v1\nrecovery_grace: -1\n", 2, 17,
          "recovery_grace: -1 is out of range (must be >= 0)" },
        { "apiVersion: mayhem/v1\nkind: scenario\n", 2, 7,
          "kind 'scenario': a configuration document has no kind" },
};

static void test_errors(void **state) {
        for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
                struct mayhem_config *c = NULL;
                struct mh_error e = { 0 };
                int r = config_parse("mayhem.yaml", bads[i].yaml, strlen(bads[i].yaml), &c, &e);
                if (r >= 0 || c)
                        fail_msg("case %zu: accepted", i);
                if (e.exit != MH_EXIT_CONFIG_ERROR || strcmp(e.id, "config_error") != 0 ||
                    strcmp(e.path, "mayhem.yaml") != 0 || e.line != bads[i].line || e.col != bads[i].col ||
                    strncmp(e.msg, bads[i].msg, strlen(bads[i].msg)) != 0)
                        fail_msg("case %zu: exit %d %s:%u:%u: %s", i, e.exit, e.path, e.line, e.col, e.msg);
        }
}

static void expect_load_error(const struct config_request *req, const char *msg) {
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        assert_true(config_load(req, &c, &e) < 0);
        assert_null(c);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        if (strncmp(e.msg, msg, strlen(msg)) != 0)
                fail_msg("got: %s", e.msg);
}

static void test_files_and_selection_errors(void **state) {
        expect_load_error(
                &(struct config_request){ .config_path = "nope.yaml" }, "--config nope.yaml: no such file");
        write_file("mayhem.yaml", "apiVersion: mayhem/v1\ntargets: {api: {}, web: {}}\n");
        expect_load_error(
                &(struct config_request){ .profile = "ci" },
                "--profile ci: mayhem.ci.yaml does not exist (a profile overlays mayhem.NAME.yaml beside");
        expect_load_error(
                &(struct config_request){ .profile = "../x" }, "--profile '../x': a profile name matches");
        write_file("mayhem.ci.yaml", "log_level: DEBUG\n");
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        assert_true(config_load(&(struct config_request){ .profile = "ci" }, &c, &e) < 0);
        assert_string_equal(e.path, "mayhem.ci.yaml");
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_non_null(strstr(e.msg, "missing apiVersion"));
        expect_load_error(
                &(struct config_request){ .target = "wbe" },
                "unknown target profile 'wbe' (did you mean 'web'? known: api, web)");
        expect_load_error(
                &(struct config_request){ .target = "zzzzzz" },
                "unknown target profile 'zzzzzz' (known: api, web)");
        setenv("MAYHEM_LOG_LEVEL", "loud", 1);
        expect_load_error(NULL, "MAYHEM_LOG_LEVEL: 'loud' is not one of DEBUG, INFO, WARNING, ERROR");
}

static void test_values(void **state) {
        static const char yaml[] =
                "apiVersion: mayhem/v1\n"
                "policy:\n"
                "  allow_faults: []\n"
                "  risk_ceiling: medium\n"
                "  allow_critical: true\n"
                "  critical_fault_acks: [container.kill]\n"
                "blast_radius:\n"
                "  max_services_pct: 100\n"
                "  forbidden_fault_pairs: [[net.latency, net.], [cpu.throttle, mem.exhaust]]\n"
                "  damage_quota: {budget_s: 100, window_s: 3600}\n"
                "target: {containers: [api]}\n"
                "targets:\n"
                "  base: {engine: podman, compose: stack/compose.yaml}\n"
                "toolkit: {binaries: {tc: /sbin/tc}}\n"
                "kubernetes: {context: null, namespace: null}\n"
                "maniac: {level: 5, run_level: 500, seed: 42}\n"
                "recovery_grace: 0\n";
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        if (config_parse("conf/mayhem.yaml", yaml, strlen(yaml), &c, &e) < 0)
                fail_msg("%s:%u:%u: %s", e.path, e.line, e.col, e.msg);
        assert_non_null(c->policy.allow_faults); /* [] is an empty allowlist, not "no allowlist" */
        assert_int_equal(c->policy.n_allow_faults, 0);
        assert_true(c->policy.has_risk_ceiling);
        assert_int_equal(c->policy.risk_ceiling, RISK_MEDIUM);
        assert_true(c->policy.allow_critical);
        assert_int_equal(c->blast_radius.n_forbidden_fault_pairs, 2);
        assert_string_equal(c->blast_radius.forbidden_fault_pairs[0].b, "net.");
        assert_true(c->blast_radius.damage_quota.budget_s == 100.0);
        assert_true(c->blast_radius.damage_quota.per_fault_ceiling_s == 3600.0);
        assert_true(c->blast_radius.damage_quota.window_s == 3600.0);
        assert_int_equal(c->maniac.level, 5);
        assert_true(c->maniac.has_seed);
        assert_int_equal(c->maniac.seed, 42);
        /* The only profile is selected; its engine is the runtime; compose is relative to the file. */
        assert_non_null(c->target);
        assert_string_equal(c->target->compose, "conf/stack/compose.yaml");
        assert_string_equal(c->runtime, "podman");
        expect_origin(c, "runtime", "\"podman\"", CONFIG_SOURCE_FILE, "conf/mayhem.yaml:13:18");
        expect_origin(c, "target_profile", "\"base\"", CONFIG_SOURCE_DEFAULT, "the only profile");
        size_t n = 0;
        const char *const *scope = config_scope(c, &n); /* the profile has none: target.containers */
        assert_int_equal(n, 1);
        assert_string_equal(scope[0], "api");
        assert_int_equal(c->n_warnings, 1);
        assert_non_null(strstr(c->warnings[0], "conf/mayhem.yaml:14:21: toolkit.binaries is ignored"));
        char *json = NULL;
        assert_int_equal(config_to_json_text(c, &json, &e), 0);
        assert_non_null(
                strstr(json, "\"policy.risk_ceiling\": {\"value\": \"medium\", \"source\": \"file\", "
                             "\"where\": \"conf/mayhem.yaml:4:17\"}"));
        assert_non_null(
                strstr(json, "\"blast_radius.forbidden_fault_pairs\": {\"value\": [[\"net.latency\", "
                             "\"net.\"], [\"cpu.throttle\", \"mem.exhaust\"]]"));
        assert_memory_equal(
                json,
                "{\"file\": \"conf/mayhem.yaml\", \"drill\": null, \"profile\": null, "
                "\"target\": \"base\", \"keys\": {",
                82);
        free(json);
        config_free(c);
}

/* null for damage_quota means the defaults, not "no quota". */
static void test_null_quota_is_defaults(void **state) {
        write_file("mayhem.yaml", "apiVersion: mayhem/v1\nblast_radius:\n  damage_quota: {budget_s: 10}\n");
        write_file("mayhem.ci.yaml", "apiVersion: mayhem/v1\nblast_radius:\n  damage_quota: null\n");
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(config_load(&(struct config_request){ .profile = "ci" }, &c, &e), 0);
        assert_true(c->blast_radius.damage_quota.budget_s == 14400.0);
        expect_origin(
                c, "blast_radius.damage_quota.budget_s", "14400", CONFIG_SOURCE_PROFILE,
                "mayhem.ci.yaml:3:17");
        config_free(c);
}

static void test_extends(void **state) {
        static const char yaml[] = "apiVersion: mayhem/v1\n"
                                   "profiles:\n"
                                   "  base: {engine: podman, compose: c.yaml, containers: [a, b]}\n"
                                   "  ci: {extends: base, containers: [a]}\n"
                                   "  dev: {}\n";
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(config_parse("mayhem.yaml", yaml, strlen(yaml), &c, &e), 0);
        assert_int_equal(c->n_targets, 3);
        assert_null(c->target); /* three profiles and no --target: none */
        const struct config_target *ci = &c->targets[1];
        assert_string_equal(ci->name, "ci");
        assert_string_equal(ci->engine, "podman");
        assert_string_equal(ci->compose, "c.yaml");
        assert_int_equal(ci->n_containers, 1);
        assert_string_equal(c->runtime, "docker"); /* nothing selected */
        expect_origin(c, "targets.ci.engine", "\"podman\"", CONFIG_SOURCE_FILE, "mayhem.yaml:3:18");
        expect_origin(c, "targets.ci.containers", "[\"a\"]", CONFIG_SOURCE_FILE, "mayhem.yaml:4:35");
        config_free(c);
}

/* --config naming a drill: it is the spec, and gives only log_level and risk_ceiling. */
static void test_drill_as_config(void **state) {
        write_file(
                "drill.yaml", "kind: drill\nname: d\nconfig:\n  risk_ceiling: low\n  log_level: DEBUG\n"
                              "containers:\n  web:\n    faults:\n      - fault: container.pause\n"
                              "execution:\n  - sequential: [web]\n");
        write_file("mayhem.yaml", "apiVersion: mayhem/v1\nlog_level: ERROR\n"); /* not read: no search */
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        if (config_load(&(struct config_request){ .config_path = "drill.yaml" }, &c, &e) < 0)
                fail_msg("%s:%u:%u: %s", e.path, e.line, e.col, e.msg);
        assert_string_equal(c->drill_path, "drill.yaml");
        assert_int_equal(c->log_level, LOG_LEVEL_DEBUG);
        assert_true(c->policy.has_risk_ceiling);
        assert_int_equal(c->policy.risk_ceiling, RISK_LOW);
        expect_origin(c, "policy.risk_ceiling", "\"low\"", CONFIG_SOURCE_FILE, "drill.yaml:4:17");
        expect_origin(c, "storage.path", "\"mayhem.db\"", CONFIG_SOURCE_DEFAULT, NULL);
        config_free(c);
        /* A broken drill is the drill's error (exit 4), since it is the spec. */
        write_file("drill.yaml", "kind: drill\nname: d\n");
        assert_true(config_load(&(struct config_request){ .config_path = "drill.yaml" }, &c, &e) < 0);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
}

/* Every block after <!-- config --> in docs/configuration.md is a valid document. */
static void test_doc_examples(void **state) {
        char path[512], *doc = NULL;
        size_t len = 0, n = 0;
        snprintf(path, sizeof(path), "%s/docs/configuration.md", getenv("MAYHEM_SOURCE_ROOT"));
        assert_int_equal(read_file_bounded(path, 1 << 20, &doc, &len, NULL), 0);
        for (char *p = strstr(doc, "<!-- config -->\n```yaml\n"); p;
             p = strstr(p, "<!-- config -->\n```yaml\n")) {
                p += strlen("<!-- config -->\n```yaml\n");
                char *end = strstr(p, "\n```");
                assert_non_null(end);
                struct mayhem_config *c = NULL;
                struct mh_error e = { 0 };
                if (config_parse("docs/configuration.md", p, (size_t)(end - p) + 1, &c, &e) < 0)
                        fail_msg("example %zu: %u:%u: %s", n, e.line, e.col, e.msg);
                config_free(c);
                n++;
        }
        assert_int_equal(n, 2);
        free(doc);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_layering_table, setup, teardown),
                cmocka_unit_test_setup_teardown(test_layered_struct, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_file_is_defaults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_files_and_selection_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_values, setup, teardown),
                cmocka_unit_test_setup_teardown(test_null_quota_is_defaults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_extends, setup, teardown),
                cmocka_unit_test_setup_teardown(test_drill_as_config, setup, teardown),
                cmocka_unit_test(test_doc_examples),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
