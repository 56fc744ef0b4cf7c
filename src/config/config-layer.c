#include "config-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"

/* The layers in order: defaults < file < profile < env < flags (reference
 * §9.1). Each document is applied onto the struct as it is read, so maps
 * merge key by key and lists replace; every value set records its origin. */

static int init_origins(struct config_loader *L) {
        for (size_t i = 0; i < config_n_keys; i++)
                if (config_key_is_leaf(&config_keys[i])) {
                        int r = cl_origin_set(L, config_keys[i].key, CONFIG_SOURCE_DEFAULT, NULL);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int set_document(struct config_loader *L, const char *path, enum config_source source) {
        const char *slash = strrchr(path, '/');
        L->path = arena_strdup(&L->c->arena, path);
        L->dir = slash ? arena_strndup(&L->c->arena, path, slash == path ? 1 : (size_t)(slash - path)) : ".";
        L->source = source;
        return L->path && L->dir ? 0 : cl_oom(L);
}

static int parse(struct config_loader *L, const char *data, size_t len, struct ydoc **ret) {
        int r = ydoc_parse(L->path, data, len, &YDOC_LIMITS_DEFAULT, ret, L->reterr);
        if (r < 0 && L->reterr && L->reterr->exit != MH_EXIT_GENERAL_FAILURE)
                mh_error_reclass(L->reterr, MH_EXIT_CONFIG_ERROR, "config_error");
        return r;
}

static const char *kind_of(const struct ynode *root) {
        const struct ynode *k = ynode_get(root, "kind");
        return k && k->kind == YNODE_SCALAR ? k->text : k ? "" : NULL;
}

/* A configuration document, or (the base only) a drill that is also the spec. */
static int read_text(struct config_loader *L, const char *data, size_t len, bool may_be_drill) {
        _cleanup_(ydoc_freep) struct ydoc *doc = NULL;
        int r = parse(L, data, len, &doc);
        if (r < 0)
                return r;
        const char *kind = kind_of(doc->root);
        if (!kind)
                return config_read_document(L, doc->root);
        const struct ynode *kn = ynode_get(doc->root, "kind");
        if (strcmp(kind, "drill") != 0 || !may_be_drill)
                return cl_fail(
                        L, kn, "kind '%s': %s", kind,
                        may_be_drill ? "a configuration document has no kind (kind: drill makes the file "
                                       "the spec as well)"
                                     : "a profile overlay is a configuration document, with no kind");
        _cleanup_(drill_spec_freep) struct drill_spec *spec = NULL;
        if ((r = drill_parse(L->path, data, len, &spec, L->reterr)) < 0)
                return r; /* it is the spec: its errors are the drill's (exit 4) */
        if (!(L->c->drill_path = arena_strdup(&L->c->arena, L->path)))
                return cl_oom(L);
        return config_read_drill(L, doc->root);
}

static int read_path(struct config_loader *L, const char *path, enum config_source s, bool may_be_drill) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        int r = set_document(L, path, s);
        if (r < 0)
                return r;
        if ((r = read_file_bounded(path, CONFIG_FILE_MAX, &data, &len, L->reterr)) < 0) {
                mh_error_reclass(L->reterr, MH_EXIT_CONFIG_ERROR, "config_error");
                return r;
        }
        return read_text(L, data, len, may_be_drill);
}

static int read_profile(struct config_loader *L, const char *profile) {
        char path[4096];
        if (!cl_name_valid(profile))
                return cl_fail_at(
                        L, NULL, 0, 0,
                        "--profile '%s': a profile name matches [a-zA-Z0-9][a-zA-Z0-9._-]{0,63}", profile);
        if (!L->dir || strcmp(L->dir, ".") == 0)
                snprintf(path, sizeof(path), "mayhem.%s.yaml", profile);
        else
                snprintf(path, sizeof(path), "%s/mayhem.%s.yaml", L->dir, profile);
        if (access(path, F_OK) < 0)
                return cl_fail_at(
                        L, NULL, 0, 0,
                        "--profile %s: %s does not exist (a profile overlays mayhem.NAME.yaml beside the "
                        "base configuration)",
                        profile, path);
        return read_path(L, path, CONFIG_SOURCE_PROFILE, false);
}

static int read_env(struct config_loader *L) {
        static const char *const vars[] = { "MAYHEM_STORAGE_PATH", "MAYHEM_ARTIFACTS_DIR",
                                            "MAYHEM_LOG_LEVEL" };
        static const char *const keys[] = { "storage.path", "storage.artifacts_dir", "log_level" };
        struct mayhem_config *c = L->c;
        for (size_t i = 0; i < 3; i++) {
                const char *v = getenv(vars[i]);
                if (!v || !*v)
                        continue;
                if (i == 2) {
                        int x = log_level_from_string(v);
                        if (x < 0)
                                return cl_fail_at(
                                        L, NULL, 0, 0,
                                        "MAYHEM_LOG_LEVEL: '%s' is not one of DEBUG, INFO, WARNING, ERROR",
                                        v);
                        c->log_level = (enum log_level)x;
                } else {
                        const char *copy = arena_strdup(&c->arena, v);
                        if (!copy)
                                return cl_oom(L);
                        *(i == 0 ? &c->storage_path : &c->artifacts_dir) = copy;
                }
                int r = cl_origin_set(L, keys[i], CONFIG_SOURCE_ENV, vars[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int read_flags(struct config_loader *L, const struct config_request *req) {
        struct mayhem_config *c = L->c;
        int r = 0;
        if (req->db_path && !(c->storage_path = arena_strdup(&c->arena, req->db_path)))
                return cl_oom(L);
        if (req->db_path)
                r = cl_origin_set(L, "storage.path", CONFIG_SOURCE_FLAG, "--db");
        if (r >= 0 && req->podman) {
                c->runtime = "podman";
                r = cl_origin_set(L, "runtime", CONFIG_SOURCE_FLAG, "--podman");
        }
        if (r >= 0 && req->profile) {
                if (!(c->profile = arena_strdup(&c->arena, req->profile)))
                        return cl_oom(L);
                r = cl_origin_set(L, "profile", CONFIG_SOURCE_FLAG, "--profile");
        }
        return r;
}

static int finish(struct config_loader *L, const struct config_request *req) {
        int r = read_env(L);
        if (r >= 0)
                r = read_flags(L, req);
        if (r >= 0)
                r = config_targets_finish(L, req->target);
        return r < 0 ? r : config_render(L);
}

static int load(struct config_loader *L, const struct config_request *req) {
        int r = init_origins(L);
        if (r < 0)
                return r;
        const char *base = req->config_path;
        if (!base && access("mayhem.yaml", F_OK) == 0)
                base = "mayhem.yaml";
        if (req->config_path && access(base, F_OK) < 0)
                return cl_fail_at(L, NULL, 0, 0, "--config %s: no such file", base);
        if (base && (r = read_path(L, base, CONFIG_SOURCE_FILE, true)) < 0)
                return r;
        if (base && !(L->c->path = arena_strdup(&L->c->arena, base)))
                return cl_oom(L);
        if (req->profile && (r = read_profile(L, req->profile)) < 0)
                return r;
        return finish(L, req);
}

static int run_loader(
        int (*fn)(struct config_loader *L, const void *arg), const void *arg, struct mayhem_config **ret,
        struct mh_error *reterr) {
        _cleanup_(config_freep) struct mayhem_config *c = NULL;
        int r = config_defaults(&c, reterr);
        if (r < 0)
                return r;
        struct config_loader *L = calloc(1, sizeof(*L));
        if (!L)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        *L = (struct config_loader){ .c = c, .reterr = reterr, .path = "", .dir = "." };
        r = fn(L, arg);
        free(L->origins);
        free(L);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

static int load_fn_request(struct config_loader *L, const void *arg) {
        return load(L, arg);
}

int config_load(const struct config_request *req, struct mayhem_config **ret, struct mh_error *reterr) {
        static const struct config_request none = { 0 };
        return run_loader(load_fn_request, req ? req : &none, ret, reterr);
}

struct text_arg {
        const char *path, *data;
        size_t len;
};

static int parse_fn(struct config_loader *L, const void *arg) {
        const struct text_arg *t = arg;
        int r = init_origins(L);
        if (r >= 0)
                r = set_document(L, t->path, CONFIG_SOURCE_FILE);
        if (r >= 0)
                r = read_text(L, t->data, t->len, true);
        if (r >= 0 && !(L->c->path = arena_strdup(&L->c->arena, t->path)))
                r = cl_oom(L);
        if (r >= 0)
                r = config_targets_finish(L, NULL);
        return r < 0 ? r : config_render(L);
}

int config_parse(
        const char *path, const char *data, size_t len, struct mayhem_config **ret,
        struct mh_error *reterr) {
        struct text_arg t = { path, data, len };
        return run_loader(parse_fn, &t, ret, reterr);
}
