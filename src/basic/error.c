#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void copy_bounded(char *dst, size_t size, const char *src) {
        size_t n = src ? strnlen(src, size - 1) : 0;
        memcpy(dst, src ? src : "", n);
        dst[n] = '\0';
}

_printf_(5, 0) static int fill(
        struct mh_error *e, int code, enum mh_exit exit, const char *id, const char *fmt, va_list ap) {
        if (code >= 0)
                code = -EINVAL;
        if (!e)
                return code;
        e->code = code;
        e->exit = exit;
        copy_bounded(e->id, sizeof(e->id), id);
        e->path[0] = '\0';
        e->line = e->col = 0;
        e->remediation[0] = '\0';
        vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        return code;
}

int mh_error_set(struct mh_error *e, int code, enum mh_exit exit, const char *id, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fill(e, code, exit, id, fmt, ap);
        va_end(ap);
        return r;
}

int mh_error_fail(struct mh_error *e, int code, const char *id, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fill(e, code, MH_EXIT_GENERAL_FAILURE, id, fmt, ap);
        va_end(ap);
        return r;
}

int mh_error_at(struct mh_error *e, const char *path, unsigned line, unsigned col, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fill(e, -EINVAL, MH_EXIT_VALIDATION_ERROR, "validation", fmt, ap);
        va_end(ap);
        if (e) {
                copy_bounded(e->path, sizeof(e->path), path);
                e->line = line;
                e->col = col;
        }
        return r;
}

void mh_error_prefix(struct mh_error *e, const char *fmt, ...) {
        char prefix[MH_ERROR_MSG_MAX], joined[MH_ERROR_MSG_MAX];
        va_list ap;

        if (!e)
                return;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);
        size_t lp = strnlen(prefix, sizeof(joined) - 1);
        size_t lm = strnlen(e->msg, sizeof(joined) - 1 - lp);
        memcpy(joined, prefix, lp);
        memcpy(joined + lp, e->msg, lm);
        joined[lp + lm] = '\0';
        memcpy(e->msg, joined, sizeof(e->msg));
}

void mh_error_remedy(struct mh_error *e, const char *fmt, ...) {
        va_list ap;
        if (!e)
                return;
        va_start(ap, fmt);
        vsnprintf(e->remediation, sizeof(e->remediation), fmt, ap);
        va_end(ap);
}

void mh_error_reclass(struct mh_error *e, enum mh_exit exit, const char *id) {
        if (!e)
                return;
        e->exit = exit;
        copy_bounded(e->id, sizeof(e->id), id);
}

bool mh_error_has_location(const struct mh_error *e) {
        return e && e->path[0] != '\0' && e->line > 0;
}
