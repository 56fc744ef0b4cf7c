#pragma once

/* Checked number parsing: the whole string must be the number, no leading
 * blanks, no trailing junk, no overflow. Returns 0, -EINVAL (not a number),
 * or -ERANGE (does not fit). Outputs are written only on success. */

#include <stddef.h>
#include <stdint.h>

int parse_int64(const char *s, int64_t *ret);
int parse_double(const char *s, double *ret); /* finite decimal only: no hex, inf, nan */

/* A non-negative decimal "12", "1.25" scaled exactly by mult (integer
 * arithmetic): "1.5" * 1000 = 1500. -EDOM when the result is not a whole
 * number (finer than the unit's resolution). len bounds the digits read. */
int parse_decimal_scaled(const char *s, size_t len, uint64_t mult, uint64_t *ret);
