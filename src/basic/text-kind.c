#include "text-kind.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"

_printf_(3, 4) static int fail(char *why, size_t size, const char *fmt, ...) {
        va_list ap;
        if (why && size) {
                va_start(ap, fmt);
                (void)vsnprintf(why, size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static bool is_alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A character as a message may quote it: printable, or its code. */
static void show_char(char c, char *buf, size_t size) {
        unsigned char u = (unsigned char)c;
        if (u > 0x20 && u < 0x7f)
                snprintf(buf, size, "'%c'", c);
        else
                snprintf(buf, size, "byte 0x%02x", u);
}

static int label_check(const char *l, size_t len, char *why, size_t size) {
        char c[16];
        if (len == 0)
                return fail(why, size, "has an empty label");
        if (len > DNS_LABEL_MAX)
                return fail(why, size, "has a label of %zu characters (at most %d)", len, DNS_LABEL_MAX);
        for (size_t i = 0; i < len; i++)
                if (!is_alnum(l[i]) && l[i] != '-') {
                        show_char(l[i], c, sizeof(c));
                        return fail(why, size, "holds %s (a label is letters, digits and hyphens)", c);
                }
        if (l[0] == '-' || l[len - 1] == '-')
                return fail(why, size, "has a label that starts or ends with a hyphen");
        return 0;
}

int dns_name_check(const char *s, char *why, size_t size) {
        size_t n = strlen(s);
        if (n == 0)
                return fail(why, size, "is empty");
        if (n > 1 && s[n - 1] == '.')
                n--; /* the root */
        if (n > DNS_NAME_MAX)
                return fail(why, size, "is %zu characters long (at most %d)", n, DNS_NAME_MAX);
        for (size_t start = 0; start <= n;) {
                const char *dot = memchr(s + start, '.', n - start);
                size_t end = dot ? (size_t)(dot - s) : n;
                int r = label_check(s + start, end - start, why, size);
                if (r < 0)
                        return r;
                start = end + 1;
        }
        return 0;
}

int path_check_absolute(const char *s, char *why, size_t size) {
        size_t n = strlen(s);
        char c[16];
        if (s[0] != '/')
                return fail(why, size, "is not an absolute path (it must start with '/')");
        if (n > TEXT_PATH_MAX)
                return fail(why, size, "is %zu characters long (at most %d)", n, TEXT_PATH_MAX);
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
                        show_char(s[i], c, sizeof(c));
                        return fail(why, size, "holds %s", c);
                }
        for (const char *p = s; (p = strstr(p, "..")); p += 2)
                if (p[-1] == '/' && (p[2] == '/' || p[2] == '\0'))
                        return fail(why, size, "holds a '..' component");
        return 0;
}

static int port_check(const char *p, size_t len, char *why, size_t size) {
        unsigned long v = 0;
        if (len == 0)
                return fail(why, size, "has an empty port");
        for (size_t i = 0; i < len; i++) {
                if (p[i] < '0' || p[i] > '9')
                        return fail(why, size, "has a port that is not a number");
                if (v <= 65535)
                        v = v * 10 + (unsigned long)(p[i] - '0');
        }
        if (v < 1 || v > 65535)
                return fail(
                        why, size, "has port %.*s%s, outside 1..65535", (int)MIN(len, (size_t)16), p,
                        len > 16 ? "..." : "");
        return 0;
}

int url_check_http(const char *s, char *why, size_t size) {
        const char *host;
        if (strncmp(s, "http://", 7) == 0)
                host = s + 7;
        else if (strncmp(s, "https://", 8) == 0)
                host = s + 8;
        else
                return fail(why, size, "is not an http:// or https:// URL");
        size_t len = strcspn(host, "/?#");
        const char *at = memchr(host, '@', len);
        if (at) { /* user:password@ */
                len -= (size_t)(at + 1 - host);
                host = at + 1;
        }
        const char *end = host + len, *colon = NULL;
        if (host < end && host[0] == '[') { /* [v6]:port */
                const char *close = memchr(host, ']', len);
                if (!close)
                        return fail(why, size, "has an IPv6 address without its closing ']'");
                colon = close + 1 < end ? close + 1 : NULL;
                if (colon && *colon != ':')
                        return fail(why, size, "has text after its IPv6 address");
        } else
                colon = memchr(host, ':', len);
        size_t host_len = colon ? (size_t)(colon - host) : len;
        if (host_len == 0)
                return fail(why, size, "has no host");
        return colon ? port_check(colon + 1, (size_t)(end - colon - 1), why, size) : 0;
}
