#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct strbuf *b, size_t extra) {
        /* Checked before adding: len + extra + 1 wraps to exactly len when extra is SIZE_MAX. */
        if (extra >= SIZE_MAX - b->len || (b->max && b->len + extra > b->max))
                return -E2BIG;
        size_t need = b->len + extra + 1;
        if (need <= b->cap)
                return 0;
        size_t cap = b->cap ? b->cap : 64;
        while (cap < need)
                cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        if (b->max && cap - 1 > b->max)
                cap = b->max + 1;
        char *p = realloc(b->data, cap);
        if (!p)
                return -ENOMEM;
        b->data = p;
        b->cap = cap;
        return 0;
}

int strbuf_append(struct strbuf *b, const char *s, size_t n) {
        int r = reserve(b, n);
        if (r < 0)
                return r;
        if (n)
                memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = '\0';
        return 0;
}

int strbuf_puts(struct strbuf *b, const char *s) {
        return strbuf_append(b, s, strlen(s));
}

int strbuf_putc(struct strbuf *b, char c) {
        return strbuf_append(b, &c, 1);
}

int strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap) {
        va_list copy;
        va_copy(copy, ap);
        int n = vsnprintf(NULL, 0, fmt, copy);
        va_end(copy);
        if (n < 0)
                return -EINVAL;
        int r = reserve(b, (size_t)n);
        if (r < 0)
                return r;
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
        return 0;
}

int strbuf_printf(struct strbuf *b, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = strbuf_vprintf(b, fmt, ap);
        va_end(ap);
        return r;
}

char *strbuf_steal(struct strbuf *b) {
        char *p = b->data;
        if (!p)
                p = calloc(1, 1);
        b->data = NULL;
        b->len = b->cap = 0;
        return p;
}

void strbuf_done(struct strbuf *b) {
        free(b->data);
        b->data = NULL;
        b->len = b->cap = 0;
}
