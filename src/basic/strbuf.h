#pragma once

/* A growable, always NUL-terminated byte buffer with a hard size limit, for
 * building output and reading bounded input. Appends fail with -E2BIG past
 * the limit and leave the buffer as it was. */

#include <stdarg.h>
#include <stddef.h>

#include "macro.h"

struct strbuf {
        char *data;
        size_t len, cap, max;
};

#define STRBUF_INIT(limit) ((struct strbuf){ .max = (limit) })

int strbuf_append(struct strbuf *b, const char *s, size_t n);
int strbuf_puts(struct strbuf *b, const char *s);
int strbuf_putc(struct strbuf *b, char c);
int strbuf_printf(struct strbuf *b, const char *fmt, ...) _printf_(2, 3);
int strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap) _printf_(2, 0);
/* Hands the buffer to the caller (free()); the strbuf is empty afterwards. */
char *strbuf_steal(struct strbuf *b);
void strbuf_done(struct strbuf *b);
