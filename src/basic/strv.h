#pragma once

#include <stddef.h>

/* Joins v[0..n) with ", " into buf (always NUL-terminated, truncated to fit).
 * With max_shown > 0, at most that many are listed, then ", and N more". */
void strv_join(char *buf, size_t size, const char *const *v, size_t n, size_t max_shown);

/* Copies src into dst (size bytes, always NUL-terminated), cut to fit; NULL copies "". */
void str_copy(char *dst, size_t size, const char *src);
