#include "drill.h"

#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "drill-parse-internal.h"

static int parse_maniac(struct dparser *p, const struct ynode *n, struct drill_config *c) {
        static const char *const keys[] = { "level", "run_level", "seed", NULL };
        size_t mark = dp_enter_key(p, "maniac");
        int r;

        c->has_maniac = true;
        c->maniac_level = 2;
        c->maniac_run_level = 10;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_int(p, n, "level", 1, 5, &c->maniac_level)) < 0 ||
            (r = dp_int(p, n, "run_level", 1, 500, &c->maniac_run_level)) < 0 ||
            (r = dp_int(p, n, "seed", INT64_MIN, INT64_MAX, &c->maniac_seed)) < 0)
                return r;
        c->has_maniac_seed = dp_get(n, "seed");
        dp_leave(p, mark);
        return 0;
}

static int parse_config(struct dparser *p, const struct ynode *n) {
        static const char *const keys[] = { "risk_ceiling", "max_faults", "timeout", "log_level",
                                            "recovery",     "on_failure", "maniac",  NULL };
        const char *risks[_RISK_MAX];
        struct drill_config *c = &p->spec->config;
        int risk = RISK_HIGH, r;

        for (size_t i = 0; i < _RISK_MAX; i++)
                risks[i] = risk_to_string((enum risk)i);
        if (!n)
                return 0;
        size_t mark = dp_enter_key(p, "config");
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_enum(p, n, "risk_ceiling", risks, _RISK_MAX, &risk)) < 0 ||
            (r = dp_int(p, n, "max_faults", 0, 10000, &c->max_faults)) < 0 ||
            (r = dp_dur(p, n, "timeout", 1000, 7 * 24LL * 3600 * 1000, &c->timeout_ms)) < 0 ||
            (r = DP_ENUM(p, n, "log_level", log_level, &c->log_level)) < 0 ||
            (r = dp_bool(p, n, "recovery", &c->recovery)) < 0 ||
            (r = DP_ENUM(p, n, "on_failure", on_failure, &c->on_failure)) < 0)
                return r;
        c->risk_ceiling = (enum risk)risk;
        c->timeout_pos = dp_pos(dp_get(n, "timeout"));
        c->max_faults_pos = dp_pos(dp_get(n, "max_faults"));
        if (dp_get(n, "maniac") && (r = parse_maniac(p, dp_get(n, "maniac"), c)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

static int parse_faults(struct dparser *p, const struct ynode *n, struct drill_target *t) {
        int r = dp_require(p, n, "faults");
        if (r < 0)
                return r;
        size_t mark = dp_enter_key(p, "faults");
        if ((r = DP_PARSE_LIST(p, dp_get(n, "faults"), t->faults, t->n_faults, dp_parse_fault)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

static int parse_k8s(struct dparser *p, const struct ynode *n, struct drill_target *t) {
        static const char *const keys[] = { "kind", "namespace", "name", "container", NULL };
        static const char *const kinds[] = { "deployment", "statefulset", "daemonset",
                                             "service",    "pod",         "k8s_node" };
        size_t mark = dp_enter_key(p, "kubernetes");
        int kind = 0, r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "kind")) < 0 || (r = dp_require(p, n, "name")) < 0 ||
            (r = dp_enum(p, n, "kind", kinds, ELEMENTSOF(kinds), &kind)) < 0 ||
            (r = dp_str(p, n, "namespace", &t->k8s.namespace)) < 0 ||
            (r = dp_id(p, n, "name", &t->k8s.name)) < 0 ||
            (r = dp_id(p, n, "container", &t->k8s.container)) < 0)
                return r;
        t->k8s.kind = kinds[kind];
        dp_leave(p, mark);
        return 0;
}

static int parse_docker(struct dparser *p, const struct ynode *n, struct drill_target *t) {
        static const char *const keys[] = { "container_name", NULL };
        size_t mark = dp_enter_key(p, "docker");
        int r;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "container_name")) < 0 ||
            (r = dp_id(p, n, "container_name", &t->container_name)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

static int parse_selection(struct dparser *p, const struct ynode *n) {
        static const char *const keys[] = { "mode", NULL };
        static const char *const modes[] = { "one", "all", "count", "percentage", "random" };
        size_t mark = dp_enter_key(p, "selection");
        int mode = 0, r;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_enum(p, n, "mode", modes, ELEMENTSOF(modes), &mode)) < 0)
                return r;
        if (mode != 0)
                return dp_fail(
                        p, dp_get(n, "mode"), "selection mode '%s' is reserved; only 'one' is supported",
                        modes[mode]);
        dp_leave(p, mark);
        return 0;
}

/* targets: NAME: {runtime, docker | kubernetes, selection, faults} */
/* process: {pid: N} or {name: COMM, include_containers: BOOL} — a plain host
 * process; by name only outside containers unless include_containers. */
static int parse_process(struct dparser *p, const struct ynode *n, struct drill_target *t) {
        static const char *const keys[] = { "pid", "name", "include_containers", NULL };
        size_t mark = dp_enter_key(p, "process");
        int r;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0)
                return r;
        if (!dp_get(n, "pid") == !dp_get(n, "name"))
                return dp_fail(p, n, "a process target needs exactly one of 'pid' or 'name'");
        if ((r = dp_int(p, n, "pid", 1, INT32_MAX, &t->process_pid)) < 0 ||
            (r = dp_id(p, n, "name", &t->process_name)) < 0 ||
            (r = dp_bool(p, n, "include_containers", &t->process_include_containers)) < 0)
                return r;
        if (dp_get(n, "pid") && dp_get(n, "include_containers"))
                return dp_fail(
                        p, dp_get(n, "include_containers"),
                        "include_containers goes with 'name': a pid names one process wherever it runs");
        t->process_pos = dp_pos(dp_get(n, "pid") ? dp_get(n, "pid") : dp_get(n, "name"));
        if (t->process_name && strlen(t->process_name) > 15)
                return dp_fail(
                        p, dp_get(n, "name"), "'%s' is longer than a process name can be (15 characters)",
                        t->process_name);
        dp_leave(p, mark);
        return 0;
}

static int parse_runtime_target(struct dparser *p, const struct ynode *n, struct drill_target *t) {
        static const char *const keys[] = { "runtime",   "docker", "kubernetes", "process",
                                            "selection", "faults", NULL };
        const struct ynode *docker = dp_get(n, "docker"), *k8s = dp_get(n, "kubernetes"),
                           *proc = dp_get(n, "process");
        int r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "runtime")) < 0 ||
            (r = DP_ENUM(p, n, "runtime", target_runtime, &t->runtime)) < 0)
                return r;
        if (!!docker + !!k8s + !!proc > 1)
                return dp_fail(p, n, "a target has one of 'docker', 'kubernetes' or 'process'");
        if (t->runtime == TARGET_RUNTIME_PROCESS && !proc)
                return dp_fail(
                        p, n,
                        "runtime 'process' needs a 'process: {pid: N}' or 'process: {name: NAME}' block");
        if (proc && (r = parse_process(p, proc, t)) < 0)
                return r;
        if (t->runtime == TARGET_RUNTIME_DOCKER && !docker)
                return dp_fail(p, n, "runtime 'docker' needs a 'docker: {container_name: ...}' block");
        if (t->runtime == TARGET_RUNTIME_KUBERNETES && !k8s)
                return dp_fail(p, n, "runtime 'kubernetes' needs a 'kubernetes: {kind, name}' block");
        if ((docker && (r = parse_docker(p, docker, t)) < 0) || (k8s && (r = parse_k8s(p, k8s, t)) < 0))
                return r;
        if (dp_get(n, "selection") && (r = parse_selection(p, dp_get(n, "selection"))) < 0)
                return r;
        return parse_faults(p, n, t);
}

static int parse_container_target(struct dparser *p, const struct ynode *n, struct drill_target *t) {
        static const char *const keys[] = { "faults", NULL };
        int r;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0)
                return r;
        t->runtime = TARGET_RUNTIME_DOCKER;
        t->container_name = t->name;
        return parse_faults(p, n, t);
}

static int parse_targets(struct dparser *p, const struct ynode *root) {
        const struct ynode *containers = dp_get(root, "containers"), *targets = dp_get(root, "targets");
        struct drill_spec *s = p->spec;
        int r;

        if (!!containers == !!targets) {
                /* Point at the `targets:` key itself: its value may start lines further down. */
                const struct ynode *at = root;
                for (size_t i = 0; containers && targets && i < root->n_pairs; i++)
                        if (strcmp(root->pairs[i].key->text, "targets") == 0)
                                at = root->pairs[i].key;
                return dp_fail(
                        p, at,
                        "a drill declares its targets under exactly one of 'containers' or 'targets'");
        }
        const struct ynode *map = containers ? containers : targets;
        s->declared_as_targets = targets;
        size_t mark = dp_enter_key(p, containers ? "containers" : "targets");
        if ((r = dp_want(p, map, YNODE_MAP)) < 0)
                return r;
        if (map->n_pairs == 0 || map->n_pairs > DRILL_LIST_MAX)
                return dp_fail(p, map, "needs 1 to %d entries", DRILL_LIST_MAX);
        s->n_targets = map->n_pairs;
        if (!(s->targets = arena_alloc_array(p->arena, map->n_pairs, sizeof(*s->targets))))
                return dp_oom(p);
        for (size_t i = 0; i < map->n_pairs; i++) {
                struct drill_target *t = &s->targets[i];
                const struct ypair *pair = &map->pairs[i];
                if (!(t->name = arena_strdup(p->arena, pair->key->text)))
                        return dp_oom(p);
                t->pos = dp_pos(pair->key);
                if (!*t->name)
                        return dp_fail(p, pair->key, "a target name must not be empty");
                size_t m = dp_enter_key(p, t->name);
                r = containers ? parse_container_target(p, pair->value, t)
                               : parse_runtime_target(p, pair->value, t);
                if (r < 0)
                        return r;
                dp_leave(p, m);
        }
        dp_leave(p, mark);
        return 0;
}

static int parse_header(struct dparser *p, const struct ynode *root) {
        struct drill_spec *s = p->spec;
        const char *kind = NULL;
        int r;

        if ((r = dp_require(p, root, "kind")) < 0 || (r = dp_str(p, root, "kind", &kind)) < 0)
                return r;
        if (strcmp(kind, "drill") != 0) {
                size_t mark = dp_enter_key(p, "kind");
                r = dp_fail(p, dp_get(root, "kind"), "must be 'drill', got '%s'", kind);
                dp_leave(p, mark);
                return r;
        }
        if ((r = dp_require(p, root, "name")) < 0 || (r = dp_str(p, root, "name", &s->name)) < 0 ||
            (r = dp_str(p, root, "apiVersion", &s->api_version)) < 0 ||
            (r = dp_str(p, root, "hypothesis", &s->hypothesis)) < 0)
                return r;
        size_t len = strlen(s->name);
        bool printable = true;
        for (size_t i = 0; i < len; i++)
                printable = printable && (unsigned char)s->name[i] >= 0x20 && s->name[i] != 0x7f;
        if (len == 0 || len > DRILL_NAME_MAX || !printable) {
                size_t mark = dp_enter_key(p, "name");
                r = dp_fail(p, dp_get(root, "name"), "must be 1 to %d printable characters", DRILL_NAME_MAX);
                dp_leave(p, mark);
                return r;
        }
        if (!s->hypothesis)
                s->hypothesis = "";
        return 0;
}

static int parse_root(struct dparser *p, const struct ynode *root) {
        static const char *const keys[] = { "apiVersion", "kind",          "name",    "hypothesis",
                                            "config",     "containers",    "targets", "execution",
                                            "success",    "observability", "slo",     "steady_state",
                                            NULL };
        int r;

        if (root->kind != YNODE_MAP)
                return dp_fail(
                        p, root, "a drill is a mapping with kind, name, containers and execution; got %s",
                        ynode_describe(root));
        if ((r = dp_check_keys(p, root, keys)) < 0 || (r = parse_header(p, root)) < 0 ||
            (r = parse_config(p, dp_get(root, "config"))) < 0 || (r = parse_targets(p, root)) < 0 ||
            (r = dp_require(p, root, "execution")) < 0 ||
            (r = dp_parse_steps(p, dp_get(root, "execution"))) < 0)
                return r;
        if (dp_get(root, "success") && (r = dp_parse_success(p, dp_get(root, "success"))) < 0)
                return r;
        if (dp_get(root, "observability") &&
            (r = dp_parse_observability(p, dp_get(root, "observability"))) < 0)
                return r;
        if (dp_get(root, "slo") && (r = dp_parse_slo(p, dp_get(root, "slo"))) < 0)
                return r;
        if (dp_get(root, "steady_state") && (r = dp_parse_steady_state(p, dp_get(root, "steady_state"))) < 0)
                return r;
        return 0;
}

static void config_defaults(struct drill_config *c) {
        *c = (struct drill_config){
                .risk_ceiling = RISK_HIGH,
                .max_faults = 1,
                .timeout_ms = 30 * 60 * 1000,
                .log_level = LOG_LEVEL_INFO,
                .recovery = true,
                .on_failure = ON_FAILURE_ABORT_AND_RECOVER,
        };
}

int drill_parse(
        const char *path, const char *data, size_t len, struct drill_spec **ret, struct mh_error *reterr) {
        _cleanup_(ydoc_freep) struct ydoc *doc = NULL;
        _cleanup_(drill_spec_freep) struct drill_spec *spec = NULL;
        int r;

        if (len > DRILL_FILE_MAX)
                return mh_error_at(reterr, path, 1, 1, "drill file is larger than %u bytes", DRILL_FILE_MAX);
        r = ydoc_parse(path, data, len, NULL, &doc, reterr);
        if (r < 0) {
                dp_error_oneline(reterr); /* "duplicate key 'a\nb'" */
                return r;
        }
        spec = calloc(1, sizeof(*spec));
        if (!spec)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        arena_init(&spec->arena, 0);
        config_defaults(&spec->config);
        struct dparser p = { .spec = spec, .arena = &spec->arena, .path = doc->path, .reterr = reterr };
        spec->path = arena_strdup(&spec->arena, doc->path);
        if (!spec->path)
                return dp_oom(&p);
        r = parse_root(&p, doc->root);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(spec);
        return 0;
}

int drill_load(const char *path, struct drill_spec **ret, struct mh_error *reterr) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        int r = read_file_bounded(path, DRILL_FILE_MAX, &data, &len, reterr);
        if (r < 0)
                return r;
        return drill_parse(path, data, len, ret, reterr);
}

struct drill_spec *drill_spec_free(struct drill_spec *spec) {
        if (!spec)
                return NULL;
        arena_free(&spec->arena);
        free(spec);
        return NULL;
}

const struct drill_target *drill_spec_find_target(const struct drill_spec *spec, const char *name) {
        for (size_t i = 0; i < spec->n_targets; i++)
                if (strcmp(spec->targets[i].name, name) == 0)
                        return &spec->targets[i];
        return NULL;
}

const struct drill_param *drill_fault_param(const struct drill_fault *f, const char *name) {
        for (size_t i = 0; i < f->n_params; i++)
                if (strcmp(f->params[i].spec->name, name) == 0)
                        return &f->params[i];
        return NULL;
}
