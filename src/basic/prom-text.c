#include "prom-text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

/* A cursor over one line [p, end). */
struct cur {
        const char *p, *end;
        char *why;
        size_t why_size;
};

static int fail(struct cur *c, const char *fmt, ...) _printf_(2, 3);
static int fail(struct cur *c, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_size, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static void skip_blank(struct cur *c) {
        while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
                c->p++;
}

static bool name_char(char ch, bool first, bool colon) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (colon && ch == ':') ||
               (!first && ch >= '0' && ch <= '9');
}

static int read_name(struct cur *c, bool colon, char *out, const char *what) {
        size_t n = 0;
        while (c->p < c->end && name_char(*c->p, n == 0, colon)) {
                if (n + 1 >= PROM_NAME_MAX)
                        return fail(c, "%s longer than %d bytes", what, PROM_NAME_MAX - 1);
                out[n++] = *c->p++;
        }
        out[n] = 0;
        return n ? 0 : fail(c, "expected a %s", what);
}

/* "value" with \\ \" \n; out holds PROM_LABEL_VALUE_MAX bytes. */
static int read_quoted(struct cur *c, char *out) {
        size_t n = 0;
        if (c->p >= c->end || *c->p != '"')
                return fail(c, "expected '\"'");
        for (c->p++; c->p < c->end && *c->p != '"'; c->p++) {
                char ch = *c->p;
                if (ch == '\\') {
                        if (++c->p >= c->end)
                                break;
                        ch = *c->p == 'n' ? '\n' : *c->p;
                        if (*c->p != 'n' && *c->p != '\\' && *c->p != '"')
                                return fail(c, "unknown escape '\\%c' in a label value", *c->p);
                }
                if (n + 1 >= PROM_LABEL_VALUE_MAX)
                        return fail(c, "label value longer than %d bytes", PROM_LABEL_VALUE_MAX - 1);
                out[n++] = ch;
        }
        if (c->p >= c->end)
                return fail(c, "unterminated label value");
        c->p++;
        out[n] = 0;
        return 0;
}

/* {a="1",b="2",} into sel's matchers (max: how many fit). */
static int read_labels(struct cur *c, struct prom_selector *sel, size_t max) {
        sel->n = 0;
        if (c->p >= c->end || *c->p != '{')
                return 0;
        c->p++;
        for (;;) {
                skip_blank(c);
                if (c->p < c->end && *c->p == '}')
                        break;
                if (sel->n >= max)
                        return fail(c, "more than %zu labels", max);
                int r = read_name(c, false, sel->m[sel->n].name, "label name");
                if (r < 0)
                        return r;
                skip_blank(c);
                if (c->p >= c->end || *c->p != '=')
                        return fail(c, "expected '=' after label %s", sel->m[sel->n].name);
                c->p++;
                skip_blank(c);
                if ((r = read_quoted(c, sel->m[sel->n].value)) < 0)
                        return r;
                sel->n++;
                skip_blank(c);
                if (c->p < c->end && *c->p == ',') {
                        c->p++;
                        continue;
                }
                if (c->p >= c->end || *c->p != '}')
                        return fail(c, "expected ',' or '}'");
                break;
        }
        c->p++;
        return 0;
}

/* A float token: Go's ParseFloat accepts what strtod does, and +Inf etc. */
static int read_float(struct cur *c, double *ret) {
        char tok[64];
        size_t n = 0;
        while (c->p + n < c->end && c->p[n] != ' ' && c->p[n] != '\t')
                n++;
        if (n == 0 || n >= sizeof(tok))
                return fail(c, "expected a value");
        memcpy(tok, c->p, n);
        tok[n] = 0;
        char *e = NULL;
        errno = 0;
        double x = strtod(tok, &e);
        if (e != tok + n || (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')))
                return fail(c, "'%s' is not a value", tok);
        c->p += n;
        *ret = x;
        return 0;
}

static int read_timestamp(struct cur *c) {
        skip_blank(c);
        if (c->p >= c->end)
                return 0;
        const char *s = c->p + (*c->p == '-');
        size_t n = 0;
        while (s + n < c->end && s[n] >= '0' && s[n] <= '9')
                n++;
        if (n == 0 || n > 19)
                return fail(c, "expected an integer timestamp");
        c->p = s + n;
        skip_blank(c);
        return c->p == c->end ? 0 : fail(c, "unexpected text after the timestamp");
}

static int read_comment(struct cur *c) {
        char word[8], name[PROM_NAME_MAX];
        c->p++;
        skip_blank(c);
        size_t n = 0;
        while (c->p + n < c->end && n < 5 && c->p[n] >= 'A' && c->p[n] <= 'Z')
                n++;
        memcpy(word, c->p, n);
        word[n] = 0;
        bool help = strcmp(word, "HELP") == 0, type = strcmp(word, "TYPE") == 0;
        if ((!help && !type) || c->p + n >= c->end || (c->p[n] != ' ' && c->p[n] != '\t'))
                return 0; /* a plain comment */
        c->p += n;
        skip_blank(c);
        int r = read_name(c, true, name, "metric name");
        if (r < 0 || help)
                return r;
        skip_blank(c);
        static const char *const types[] = { "counter", "gauge", "histogram", "summary", "untyped" };
        size_t len = (size_t)(c->end - c->p);
        while (len > 0 && (c->p[len - 1] == ' ' || c->p[len - 1] == '\t'))
                len--;
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
                if (strlen(types[i]) == len && memcmp(c->p, types[i], len) == 0)
                        return 0;
        return fail(c, "TYPE %s: '%.*s' is not a metric type", name, (int)(len > 32 ? 32 : len), c->p);
}

static bool selected(const struct prom_selector *want, const struct prom_selector *got) {
        if (strcmp(want->name, got->name) != 0)
                return false;
        for (size_t i = 0; i < want->n; i++) {
                bool found = false;
                for (size_t j = 0; j < got->n && !found; j++)
                        found = strcmp(want->m[i].name, got->m[j].name) == 0 &&
                                strcmp(want->m[i].value, got->m[j].value) == 0;
                if (!found)
                        return false;
        }
        return true;
}

/* One sample line; *series is scratch (a selector holds a series' labels). */
static int read_sample(struct cur *c, struct prom_selector *series, double *ret) {
        int r = read_name(c, true, series->name, "metric name");
        if (r < 0 || (r = read_labels(c, series, PROM_MATCHERS_MAX)) < 0)
                return r;
        skip_blank(c);
        if ((r = read_float(c, ret)) < 0)
                return r;
        return read_timestamp(c);
}

int prom_text_match(
        const char *body, size_t len, const struct prom_selector *sel, struct prom_match *ret, char *why,
        size_t why_size) {
        struct prom_selector *series = malloc(sizeof(*series));
        struct prom_match m = { 0 };
        const char *p = body, *end = body + len;
        size_t line = 0;
        int r = series ? 0 : -ENOMEM;
        while (r >= 0 && p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                struct cur c = { .p = p, .end = nl ? nl : end, .why = why, .why_size = why_size };
                double v = 0;
                p = nl ? nl + 1 : end;
                if (++line > PROM_LINES_MAX) {
                        r = fail(&c, "more than %d lines", PROM_LINES_MAX);
                        break;
                }
                skip_blank(&c);
                if (c.p == c.end)
                        continue;
                if (*c.p == '#') {
                        r = read_comment(&c);
                } else if ((r = read_sample(&c, series, &v)) >= 0) {
                        m.samples++;
                        if (selected(sel, series)) {
                                m.series++;
                                m.sum += v;
                        }
                }
        }
        if (r == -EINVAL) {
                char inner[200];
                snprintf(inner, sizeof(inner), "%s", why);
                snprintf(why, why_size, "line %zu: %s", line, inner);
        }
        free(series);
        if (r >= 0)
                *ret = m;
        return r;
}

int prom_selector_parse(const char *text, struct prom_selector *ret, char *why, size_t why_size) {
        struct cur c = { .p = text, .end = text + strlen(text), .why = why, .why_size = why_size };
        int r = read_name(&c, true, ret->name, "metric name");
        if (r >= 0 && c.p < c.end && *c.p == '{')
                r = read_labels(&c, ret, PROM_MATCHERS_MAX);
        else
                ret->n = 0;
        if (r >= 0 && c.p != c.end)
                r = fail(&c, "unexpected '%c' at byte %zu", *c.p, (size_t)(c.p - text));
        return r;
}
