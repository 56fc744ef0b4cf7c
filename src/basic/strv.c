#include "strv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "parse-number.h"

_printf_(4, 5) static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
        va_list ap;
        if (*len >= size - 1)
                return;
        va_start(ap, fmt);
        int w = vsnprintf(buf + *len, size - *len, fmt, ap);
        va_end(ap);
        if (w > 0)
                *len = MIN(*len + (size_t)w, size - 1);
}

void strv_join(char *buf, size_t size, const char *const *v, size_t n, size_t max_shown) {
        size_t len = 0, shown = max_shown && max_shown < n ? max_shown : n;
        if (size == 0)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i < shown; i++)
                append(buf, size, &len, "%s%s", i ? ", " : "", v[i]);
        if (shown < n)
                append(buf, size, &len, ", and %zu more", n - shown);
}

void str_copy(char *dst, size_t size, const char *src) {
        if (size == 0)
                return;
        size_t n = src ? strnlen(src, size - 1) : 0;
        if (n)
                memcpy(dst, src, n);
        dst[n] = '\0';
}

const char *argv_option(int argc, char *const *argv, const char *key) {
        for (int i = 0; i + 1 < argc; i += 2)
                if (strcmp(argv[i], key) == 0)
                        return argv[i + 1];
        return NULL;
}

int argv_option_int64(int argc, char *const *argv, const char *key, int64_t *ret) {
        const char *v = argv_option(argc, argv, key);
        return !v ? -ENOENT : parse_int64(v, ret) < 0 ? -EINVAL : 0;
}

bool strv_contains(const char *const *v, const char *s) {
        for (; v && *v; v++)
                if (strcmp(*v, s) == 0)
                        return true;
        return false;
}
