#include "parse-number.h"

__extension__ typedef unsigned __int128 u128;

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int parse_int64(const char *s, int64_t *ret) {
        const char *p = s;
        bool neg = false;
        uint64_t v = 0;

        if (!s || !*s)
                return -EINVAL;
        if (*p == '+' || *p == '-')
                neg = *p++ == '-';
        if (!isdigit((unsigned char)*p))
                return -EINVAL;
        for (; *p; p++) {
                if (!isdigit((unsigned char)*p))
                        return -EINVAL;
                unsigned d = (unsigned)(*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
                return -ERANGE;
        *ret = neg ? (int64_t)(0 - v) : (int64_t)v;
        return 0;
}

/* [+-]digits[.digits][(e|E)[+-]digits], or [+-].digits[...] */
static bool is_plain_decimal(const char *p) {
        bool digits = false;
        if (*p == '+' || *p == '-')
                p++;
        for (; isdigit((unsigned char)*p); p++)
                digits = true;
        if (*p == '.')
                for (p++; isdigit((unsigned char)*p); p++)
                        digits = true;
        if (!digits)
                return false;
        if (*p == 'e' || *p == 'E') {
                p++;
                if (*p == '+' || *p == '-')
                        p++;
                if (!isdigit((unsigned char)*p))
                        return false;
                while (isdigit((unsigned char)*p))
                        p++;
        }
        return *p == '\0';
}

int parse_double(const char *s, double *ret) {
        if (!s || !is_plain_decimal(s))
                return -EINVAL;
        errno = 0;
        char *end = NULL;
        double v = strtod(s, &end);
        if (!end || *end != '\0')
                return -EINVAL;
        if (errno == ERANGE || !isfinite(v))
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_decimal_scaled(const char *s, size_t len, uint64_t mult, uint64_t *ret) {
        u128 ip = 0, fp = 0, scale = 1;
        size_t i = 0;
        bool digits = false;

        for (; i < len && isdigit((unsigned char)s[i]); i++) {
                ip = ip * 10 + (unsigned)(s[i] - '0');
                if (ip > UINT64_MAX)
                        return -ERANGE;
                digits = true;
        }
        if (i < len && s[i] == '.') {
                for (i++; i < len && isdigit((unsigned char)s[i]); i++) {
                        if (scale > UINT64_MAX)
                                return -ERANGE; /* absurdly many decimals */
                        fp = fp * 10 + (unsigned)(s[i] - '0');
                        scale *= 10;
                        digits = true;
                }
        }
        if (!digits || i != len)
                return -EINVAL;

        u128 whole = ip * mult;
        u128 frac = fp * mult;
        if (whole > UINT64_MAX)
                return -ERANGE;
        if (frac % scale != 0)
                return -EDOM;
        whole += frac / scale;
        if (whole > UINT64_MAX)
                return -ERANGE;
        *ret = (uint64_t)whole;
        return 0;
}
