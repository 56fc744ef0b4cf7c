#include "mountinfo.h"

#include <errno.h>
#include <string.h>

/* The next space-separated field of [*p, end): its start and length. */
static bool field(const char **p, const char *end, const char **ret, size_t *ret_len) {
        while (*p < end && **p == ' ')
                (*p)++;
        const char *s = *p;
        while (*p < end && **p != ' ')
                (*p)++;
        *ret = s;
        *ret_len = (size_t)(*p - s);
        return *ret_len > 0;
}

static bool number(const char *s, size_t n, uint64_t *ret) {
        uint64_t v = 0;
        if (n == 0 || n > 19)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (uint64_t)(s[i] - '0');
        }
        *ret = v;
        return true;
}

static bool is_octal(char c) {
        return c >= '0' && c <= '7';
}

/* The kernel's seq_file escapes (show_mountinfo(), mangle()): "\ooo". */
static bool unescape(const char *s, size_t n, char *out, size_t size) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (c == '\\') {
                        if (i + 3 >= n || !is_octal(s[i + 1]) || !is_octal(s[i + 2]) || !is_octal(s[i + 3]))
                                return false;
                        unsigned v = (unsigned)(s[i + 1] - '0') * 64 + (unsigned)(s[i + 2] - '0') * 8 +
                                     (unsigned)(s[i + 3] - '0');
                        if (v == 0 || v > 255)
                                return false;
                        c = (char)v;
                        i += 3;
                }
                if (o + 1 >= size)
                        return false;
                out[o++] = c;
        }
        out[o] = '\0';
        return o > 0;
}

static bool has_option(const char *s, size_t n, const char *opt) {
        size_t k = strlen(opt);
        for (const char *p = s, *end = s + n; p < end;) {
                const char *comma = memchr(p, ',', (size_t)(end - p)), *e = comma ? comma : end;
                if ((size_t)(e - p) == k && memcmp(p, opt, k) == 0)
                        return true;
                p = e + 1;
        }
        return false;
}

int mountinfo_parse_line(const char *line, size_t len, struct mountinfo_entry *ret) {
        const char *p = line, *end = line + len, *f[6];
        size_t n[6];
        struct mountinfo_entry e = { 0 };

        for (size_t i = 0; i < 6; i++)
                if (!field(&p, end, &f[i], &n[i]))
                        return -EINVAL;
        if (!number(f[0], n[0], &e.id) || !number(f[1], n[1], &e.parent) ||
            !unescape(f[4], n[4], e.point, sizeof(e.point)) || e.point[0] != '/')
                return -EINVAL;
        e.read_only = has_option(f[5], n[5], "ro");
        if (!e.read_only && !has_option(f[5], n[5], "rw"))
                return -EINVAL;
        /* Optional fields up to "-"; a line without the separator is none. */
        for (;;) {
                const char *o;
                size_t k;
                if (!field(&p, end, &o, &k))
                        return -EINVAL;
                if (k == 1 && o[0] == '-')
                        break;
                if (k > 7 && memcmp(o, "shared:", 7) == 0)
                        e.shared = true;
        }
        *ret = e;
        return 0;
}

int mountinfo_find(const char *text, size_t len, uint64_t id, struct mountinfo_entry *ret) {
        struct mountinfo_entry e;
        const char *end = text + len;
        for (const char *p = text; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
                if (mountinfo_parse_line(p, (size_t)(eol - p), &e) == 0 && e.id == id) {
                        *ret = e;
                        return 1;
                }
                p = eol + 1;
        }
        return 0;
}
