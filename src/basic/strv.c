#include "strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"

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
