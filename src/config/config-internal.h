#pragma once

/* Shared by the config-*.c files: the schema of mayhem.yaml (one table of
 * keys, config-schema.c), the loader that applies one document after
 * another onto the struct and remembers where each value came from, and the
 * typed readers that report FILE:LINE:COL errors with exit 3. */

#include "drill/ydoc.h"
#include "mayhem-config.h"

#define CONFIG_FILE_MAX     (1u * 1024u * 1024u)
#define CONFIG_LIST_MAX     256u
#define CONFIG_TARGETS_MAX  64u
#define CONFIG_WARNINGS_MAX 16u
#define CONFIG_ORIGINS_MAX  1024u

enum ckind {
        CK_SECTION, /* a mapping of further keys; null = nothing set */
        CK_QUOTA,   /* blast_radius.damage_quota: a section whose null means "the defaults" */
        CK_API,     /* apiVersion */
        CK_TARGETS, /* targets / profiles */
        CK_NUM,     /* double in [min, max], (min, max] with open_min */
        CK_INT,     /* int64 in [min, max] */
        CK_BOOL,
        CK_STR,        /* a non-empty string */
        CK_RISK_OPT,   /* low|medium|high|critical or null; aux: the has_ flag */
        CK_LOG_LEVEL,  /* DEBUG|INFO|WARNING|ERROR */
        CK_RUNTIME,    /* docker|podman */
        CK_SEED,       /* an integer or null; aux: the has_ flag */
        CK_FAULTS_OPT, /* fault ids or prefixes, or null (no list); aux: the count */
        CK_FAULTS,     /* fault ids or prefixes; null = []; aux: the count */
        CK_PAIRS,      /* [[a, b], ...]; aux: the count */
        CK_STRS,       /* names; aux: the count */
        CK_K8S,        /* kubernetes.*: null only in this build */
        CK_BINARIES,   /* toolkit.binaries: accepted, warned about when not empty */
};

struct ckey {
        const char *key; /* dotted path */
        enum ckind kind;
        size_t off, aux; /* offsets into struct mayhem_config */
        double min, max;
        bool open_min;
};

extern const struct ckey config_keys[];
extern const size_t config_n_keys;
const struct ckey *config_key_find(const char *key);
/* A leaf key has a value config show prints. */
bool config_key_is_leaf(const struct ckey *k);

/* A target profile while the layers are read. */
struct config_stage_target {
        struct config_target t;
        bool engine_given;
        const char *path;                   /* the document that defined it, for errors */
        unsigned line, col;                 /* its name */
        unsigned extends_line, extends_col; /* its extends: value */
};

struct config_loader {
        struct mayhem_config *c;
        const char *path; /* the document being read */
        const char *dir;  /* its directory, for compose paths */
        enum config_source source;
        struct config_origin *origins; /* malloc()ed while loading; copied into the arena at the end */
        size_t n_origins;
        struct config_stage_target targets[CONFIG_TARGETS_MAX];
        size_t n_targets;
        const char *warnings[CONFIG_WARNINGS_MAX];
        size_t n_warnings;
        struct mh_error *reterr;
};

/* Errors: exit 3 (config_error), at the node when there is one. */
int cl_fail(struct config_loader *L, const struct ynode *n, const char *fmt, ...) _printf_(3, 4);
int cl_fail_at(struct config_loader *L, const char *path, unsigned line, unsigned col, const char *fmt, ...)
        _printf_(5, 6);
int cl_oom(struct config_loader *L);
/* "FILE:LINE:COL" of n in the document being read, in the config's arena. */
const char *cl_where(struct config_loader *L, const struct ynode *n);
/* Records that key now comes from source at where (replacing what it had). */
int cl_origin_set(struct config_loader *L, const char *key, enum config_source source, const char *where);
const struct config_origin *cl_origin_get(const struct config_loader *L, const char *key);
/* Forgets every key under prefix ("targets.api."), when a profile is replaced. */
void cl_origin_drop_prefix(struct config_loader *L, const char *prefix);
int cl_warn(struct config_loader *L, const char *fmt, ...) _printf_(2, 3);

/* config-values.c: the typed readers. */
int cl_check_keys(struct config_loader *L, const struct ynode *map, const char *const *allowed, size_t n);
int cl_read_leaf(struct config_loader *L, const struct ckey *k, const struct ynode *v);
/* config-lists.c: fault-id lists, forbidden pairs, name lists (k->kind). */
int config_read_list(struct config_loader *L, const struct ckey *k, const struct ynode *v);
int cl_strs(
        struct config_loader *L, const char *key, const struct ynode *v, const char *const **ret,
        size_t *ret_n);
bool cl_name_valid(const char *s);

/* config-secrets.c */
int config_check_secrets(struct config_loader *L, const struct ynode *root);

/* config-read.c: one document onto the struct, with L->path, L->source set. */
int config_read_document(struct config_loader *L, const struct ynode *root);
/* A kind: drill file: its config.log_level and config.risk_ceiling only. */
int config_read_drill(struct config_loader *L, const struct ynode *root);

/* config-targets.c */
int config_read_targets(struct config_loader *L, const struct ynode *map);
int config_targets_finish(struct config_loader *L, const char *selected);

/* config-render.c: every origin's value, sorted, into the config. */
int config_render(struct config_loader *L);
struct strbuf;
/* s as a JSON string ("null" for NULL is the caller's business). */
int config_json_put_str(struct strbuf *b, const char *s);
