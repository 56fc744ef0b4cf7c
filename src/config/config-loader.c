#include "config-internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages quote the document; a control character would break the one-line
 * error, so each becomes '?'. */
static void oneline(struct mh_error *e) {
        for (char *c = e ? e->msg : NULL; c && *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        *c = '?';
}

_printf_(5, 0) static int fail_va(
        struct config_loader *L, const char *path, unsigned line, unsigned col, const char *fmt,
        va_list ap) {
        char msg[MH_ERROR_MSG_MAX];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        int r = path ? mh_error_at(L->reterr, path, line, col, "%s", msg)
                     : mh_error_set(L->reterr, -EINVAL, MH_EXIT_CONFIG_ERROR, "config_error", "%s", msg);
        mh_error_reclass(L->reterr, MH_EXIT_CONFIG_ERROR, "config_error");
        oneline(L->reterr);
        return r;
}

int cl_fail(struct config_loader *L, const struct ynode *n, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fail_va(L, L->path, n ? n->line : 0, n ? n->col : 0, fmt, ap);
        va_end(ap);
        return r;
}

int cl_fail_at(
        struct config_loader *L, const char *path, unsigned line, unsigned col, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fail_va(L, path, line, col, fmt, ap);
        va_end(ap);
        return r;
}

int cl_oom(struct config_loader *L) {
        return mh_error_set(L->reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
}

const char *cl_where(struct config_loader *L, const struct ynode *n) {
        char buf[MH_ERROR_PATH_MAX + 32];
        snprintf(buf, sizeof(buf), "%s:%u:%u", L->path, n->line, n->col);
        return arena_strdup(&L->c->arena, buf);
}

static struct config_origin *find(const struct config_loader *L, const char *key) {
        for (size_t i = 0; i < L->n_origins; i++)
                if (strcmp(L->origins[i].key, key) == 0)
                        return &L->origins[i];
        return NULL;
}

const struct config_origin *cl_origin_get(const struct config_loader *L, const char *key) {
        return find(L, key);
}

int cl_origin_set(struct config_loader *L, const char *key, enum config_source source, const char *where) {
        struct config_origin *o = find(L, key);
        if (!o) {
                if (L->n_origins >= CONFIG_ORIGINS_MAX)
                        return cl_fail(
                                L, NULL, "%s: more than %u configuration keys", L->path, CONFIG_ORIGINS_MAX);
                struct config_origin *grown = realloc(L->origins, (L->n_origins + 1) * sizeof(*grown));
                const char *k = arena_strdup(&L->c->arena, key);
                if (!grown || !k) {
                        if (grown)
                                L->origins = grown;
                        return cl_oom(L);
                }
                L->origins = grown;
                o = &L->origins[L->n_origins++];
                *o = (struct config_origin){ .key = k };
        }
        o->source = source;
        o->where = where;
        return 0;
}

void cl_origin_drop_prefix(struct config_loader *L, const char *prefix) {
        size_t len = strlen(prefix), kept = 0;
        for (size_t i = 0; i < L->n_origins; i++)
                if (strncmp(L->origins[i].key, prefix, len) != 0)
                        L->origins[kept++] = L->origins[i];
        L->n_origins = kept;
}

int cl_warn(struct config_loader *L, const char *fmt, ...) {
        char buf[MH_ERROR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        if (L->n_warnings >= CONFIG_WARNINGS_MAX)
                return 0;
        const char *w = arena_strdup(&L->c->arena, buf);
        if (!w)
                return cl_oom(L);
        L->warnings[L->n_warnings++] = w;
        return 0;
}
