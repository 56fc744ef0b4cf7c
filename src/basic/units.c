#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-number.h"

__extension__ typedef unsigned __int128 u128;

struct unit {
        const char *suffix;
        uint64_t mult;
};

/* Splits "12.5abc" into the number part and the suffix. */
static size_t number_length(const char *s) {
        size_t n = 0;
        while (isdigit((unsigned char)s[n]) || s[n] == '.')
                n++;
        return n;
}

static int parse_with_units(
        const char *s, const struct unit *units, size_t n_units, uint64_t bare_mult, uint64_t *ret) {
        if (!s || !*s)
                return -EINVAL;
        size_t len = number_length(s);
        const char *suffix = s + len;
        uint64_t mult = 0;

        if (len == 0)
                return -EINVAL;
        if (*suffix == '\0')
                mult = bare_mult;
        else
                for (size_t i = 0; i < n_units; i++)
                        if (strcasecmp(suffix, units[i].suffix) == 0) {
                                mult = units[i].mult;
                                break;
                        }
        if (mult == 0)
                return -EINVAL;
        return parse_decimal_scaled(s, len, mult, ret);
}

static const struct unit duration_units[] = {
        { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
};

int parse_duration_ms(const char *s, int64_t *ret_ms) {
        uint64_t v;
        int r = parse_with_units(s, duration_units, ELEMENTSOF(duration_units), 1000, &v);
        if (r < 0)
                return r;
        if (v > INT64_MAX)
                return -ERANGE;
        *ret_ms = (int64_t)v;
        return 0;
}

#define KIB 1024ull
static const struct unit byte_units[] = {
        { "b", 1 },
        { "k", KIB },
        { "kb", KIB },
        { "kib", KIB },
        { "m", KIB *KIB },
        { "mb", KIB *KIB },
        { "mib", KIB *KIB },
        { "g", KIB *KIB *KIB },
        { "gb", KIB *KIB *KIB },
        { "gib", KIB *KIB *KIB },
        { "t", KIB *KIB *KIB *KIB },
        { "tb", KIB *KIB *KIB *KIB },
        { "tib", KIB *KIB *KIB *KIB },
};

int parse_bytes(const char *s, uint64_t *ret) {
        return parse_with_units(s, byte_units, ELEMENTSOF(byte_units), 1, ret);
}

static const struct unit rate_units[] = {
        { "bit", 1 },
        { "kbit", 1000ull },
        { "mbit", 1000000ull },
        { "gbit", 1000000000ull },
        { "tbit", 1000000000000ull },
        { "kibit", KIB },
        { "mibit", KIB *KIB },
        { "gibit", KIB *KIB *KIB },
        { "tibit", KIB *KIB *KIB *KIB },
        { "bps", 8 },
        { "kbps", 8000ull },
        { "mbps", 8000000ull },
        { "gbps", 8000000000ull },
        { "tbps", 8000000000000ull },
        { "kibps", 8 * KIB },
        { "mibps", 8 * KIB *KIB },
        { "gibps", 8 * KIB *KIB *KIB },
        { "tibps", 8 * KIB *KIB *KIB *KIB },
};

int parse_rate_bps(const char *s, uint64_t *ret) {
        /* A bare number is refused: tc reads it as bytes/s, most people as bits/s. */
        return parse_with_units(s, rate_units, ELEMENTSOF(rate_units), 0, ret);
}

int parse_percent(const char *s, double *ret) {
        char tmp[64];
        size_t n;

        if (!s)
                return -EINVAL;
        n = strlen(s);
        if (n > 0 && s[n - 1] == '%')
                n--;
        if (n == 0 || n >= sizeof(tmp))
                return -EINVAL;
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        return parse_double(tmp, ret);
}

static const struct unit go_units[] = {
        { "ns", 1 },
        { "us", 1000 },
        { "µs", 1000 },
        { "ms", 1000000 },
        { "s", 1000000000ull },
        { "m", 60000000000ull },
        { "h", 3600000000000ull },
};

static size_t unit_length(const char *s) {
        size_t n = 0;
        while (s[n] && !isdigit((unsigned char)s[n]) && s[n] != '.')
                n++;
        return n;
}

int parse_go_duration_ms(const char *s, int64_t *ret_ms) {
        u128 total_ns = 0;

        if (!s || !*s)
                return -EINVAL;
        if (strcmp(s, "0") == 0) {
                *ret_ms = 0;
                return 0;
        }
        while (*s) {
                size_t nlen = number_length(s), ulen = unit_length(s + nlen);
                uint64_t mult = 0, part;
                if (nlen == 0 || ulen == 0)
                        return -EINVAL;
                for (size_t i = 0; i < ELEMENTSOF(go_units); i++)
                        if (strlen(go_units[i].suffix) == ulen &&
                            strncmp(s + nlen, go_units[i].suffix, ulen) == 0)
                                mult = go_units[i].mult;
                if (mult == 0)
                        return -EINVAL;
                int r = parse_decimal_scaled(s, nlen, mult, &part);
                if (r == -EDOM)
                        return -EINVAL; /* below a nanosecond */
                if (r < 0)
                        return r;
                total_ns += part;
                if (total_ns / 1000000 > INT64_MAX)
                        return -ERANGE;
                s += nlen + ulen;
        }
        *ret_ms = (int64_t)(total_ns / 1000000);
        return 0;
}

void format_duration_ms(char *buf, size_t size, int64_t ms) {
        static const struct unit order[] = {
                { "d", 86400000 },
                { "h", 3600000 },
                { "m", 60000 },
                { "s", 1000 },
        };
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                if (ms != 0 && ms % (int64_t)order[i].mult == 0) {
                        snprintf(buf, size, "%" PRId64 "%s", ms / (int64_t)order[i].mult, order[i].suffix);
                        return;
                }
        snprintf(buf, size, "%" PRId64 "ms", ms);
}

static void format_scaled(
        char *buf, size_t size, uint64_t v, const struct unit *order, size_t n, const char *base) {
        for (size_t i = 0; i < n; i++)
                if (v != 0 && v % order[i].mult == 0) {
                        snprintf(buf, size, "%" PRIu64 "%s", v / order[i].mult, order[i].suffix);
                        return;
                }
        snprintf(buf, size, "%" PRIu64 "%s", v, base);
}

void format_bytes(char *buf, size_t size, uint64_t bytes) {
        static const struct unit order[] = {
                { "T", KIB * KIB * KIB * KIB },
                { "G", KIB * KIB * KIB },
                { "M", KIB * KIB },
                { "k", KIB },
        };
        format_scaled(buf, size, bytes, order, ELEMENTSOF(order), "");
}

void format_rate_bps(char *buf, size_t size, uint64_t bps) {
        static const struct unit order[] = {
                { "tbit", 1000000000000ull },
                { "gbit", 1000000000ull },
                { "mbit", 1000000ull },
                { "kbit", 1000ull },
        };
        format_scaled(buf, size, bps, order, ELEMENTSOF(order), "bit");
}
