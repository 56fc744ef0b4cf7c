#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Joins v[0..n) with ", " into buf (always NUL-terminated, truncated to fit).
 * With max_shown > 0, at most that many are listed, then ", and N more". */
void strv_join(char *buf, size_t size, const char *const *v, size_t n, size_t max_shown);
/* Whether the NULL-terminated v holds s. */
bool strv_contains(const char *const *v, const char *s);

/* Copies src into dst (size bytes, always NUL-terminated), cut to fit; NULL copies "". */
void str_copy(char *dst, size_t size, const char *src);

/* In argv[0..argc) read as "--key value" pairs: the value of key, NULL when
 * it is not there. */
const char *argv_option(int argc, char *const *argv, const char *key);
/* The same as a whole number; -ENOENT when absent, -EINVAL when not one. */
int argv_option_int64(int argc, char *const *argv, const char *key, int64_t *ret);
