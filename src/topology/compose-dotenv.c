/* The .env file of a compose project: KEY=VALUE lines that supply variables
 * for interpolation (the environment wins over them, as in docker compose).
 * The file is outside input: its size, its line length and the number of
 * variables are bounded, and every refusal names FILE:LINE:COL.
 *
 * Accepted per line: blank, "# comment", "[export ]KEY=VALUE" where KEY is
 * [A-Za-z_][A-Za-z0-9_.-]* and VALUE is unquoted (surrounding blanks dropped,
 * a " #" starts a comment), 'single quoted' (literal) or "double quoted"
 * (\n, \t, \r, \\, \", \$ escapes). A quoted value ends on its own line;
 * after the closing quote only blanks or a comment may follow. A later KEY
 * replaces an earlier one. Values are taken as written: ${VAR} inside
 * .env is not expanded. */

#include "topology.h"

#include <stdlib.h>
#include <string.h>

#include "basic/arena.h"
#include "basic/fileio.h"
#include "basic/strbuf.h"

struct dotenv_var {
        const char *name, *value;
        size_t line; /* the later of two equal names wins */
};

struct compose_dotenv {
        struct arena arena;
        struct dotenv_var *vars; /* sorted by name, one per name */
        size_t n_vars;
};

struct dotenv_reader {
        const char *path;
        struct compose_dotenv *env;
        struct strbuf value;
        size_t cap;
        struct mh_error *reterr;
};

static int fail(const struct dotenv_reader *d, size_t line, size_t col, const char *msg) {
        return mh_error_at(d->reterr, d->path, (unsigned)line, (unsigned)col, "%s", msg);
}

static int fail_limit(
        const struct dotenv_reader *d, size_t line, size_t col, const char *what, unsigned max) {
        return mh_error_at(d->reterr, d->path, (unsigned)line, (unsigned)col, "%s %u", what, max);
}

static int oom(const struct dotenv_reader *d) {
        return mh_error_set(
                d->reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", d->path);
}

static bool is_blank(char ch) {
        return ch == ' ' || ch == '\t';
}

static bool is_name_char(char ch, bool first) {
        bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
        return alpha || (!first && ((ch >= '0' && ch <= '9') || ch == '.' || ch == '-'));
}

static size_t skip_blanks(const char *s, size_t i, size_t n) {
        while (i < n && is_blank(s[i]))
                i++;
        return i;
}

static int put(struct dotenv_reader *d, char ch) {
        int r = strbuf_putc(&d->value, ch);
        return r == -E2BIG ? -E2BIG : r < 0 ? oom(d) : 0;
}

/* After a closing quote: blanks, then nothing or a comment. */
static int check_rest(const struct dotenv_reader *d, const char *s, size_t i, size_t n, size_t line) {
        i = skip_blanks(s, i, n);
        if (i < n && s[i] != '#')
                return fail(d, line, i + 1, "unexpected text after the closing quote");
        return 0;
}

static char unescape(char ch) {
        switch (ch) {
        case 'n': return '\n';
        case 't': return '\t';
        case 'r': return '\r';
        default: return ch; /* \\ \" \$ and any other: the character itself */
        }
}

static int read_quoted(struct dotenv_reader *d, const char *s, size_t i, size_t n, size_t line) {
        char quote = s[i++];
        for (; i < n && s[i] != quote; i++) {
                char ch = s[i];
                if (quote == '"' && ch == '\\' && i + 1 < n)
                        ch = unescape(s[++i]);
                int r = put(d, ch);
                if (r < 0)
                        return r;
        }
        if (i == n)
                return fail(d, line, n + 1, "unterminated quoted value (a value must end on its own line)");
        return check_rest(d, s, i + 1, n, line);
}

static int read_plain(struct dotenv_reader *d, const char *s, size_t i, size_t n) {
        size_t end = i;
        for (size_t k = i; k < n && !(s[k] == '#' && k > i && is_blank(s[k - 1])); k++)
                if (!is_blank(s[k]))
                        end = k + 1;
        for (size_t k = i; k < end; k++) {
                int r = put(d, s[k]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int add_var(struct dotenv_reader *d, const char *name, size_t len, size_t line) {
        struct compose_dotenv *e = d->env;
        if (e->n_vars == d->cap) {
                size_t cap = d->cap ? d->cap * 2 : 16;
                struct dotenv_var *v = arena_alloc_array(&e->arena, cap, sizeof(*v));
                if (!v)
                        return oom(d);
                if (e->n_vars)
                        memcpy(v, e->vars, e->n_vars * sizeof(*v));
                e->vars = v;
                d->cap = cap;
        }
        const char *n = arena_strndup(&e->arena, name, len);
        const char *v = arena_strndup(&e->arena, d->value.data ? d->value.data : "", d->value.len);
        if (!n || !v)
                return oom(d);
        e->vars[e->n_vars++] = (struct dotenv_var){ .name = n, .value = v, .line = line };
        return 0;
}

static int read_line(struct dotenv_reader *d, const char *s, size_t n, size_t line) {
        size_t i = skip_blanks(s, 0, n);
        if (i == n || s[i] == '#')
                return 0;
        if (n - i > 7 && strncmp(s + i, "export", 6) == 0 && is_blank(s[i + 6]))
                i = skip_blanks(s, i + 7, n);
        size_t name = i;
        while (i < n && is_name_char(s[i], i == name))
                i++;
        size_t name_len = i - name;
        i = skip_blanks(s, i, n);
        if (name_len == 0 || i == n || s[i] != '=')
                return fail(
                        d, line, i + 1,
                        name_len ? "expected '=' after the variable name"
                                 : "expected KEY=VALUE (a name of letters, digits, '_', '.', '-')");
        if (d->env->n_vars >= COMPOSE_DOTENV_VARS_MAX)
                return fail_limit(
                        d, line, name + 1, "more variables than the limit of", COMPOSE_DOTENV_VARS_MAX);
        i = skip_blanks(s, i + 1, n);
        d->value.len = 0;
        int r = i < n && (s[i] == '"' || s[i] == '\'') ? read_quoted(d, s, i, n, line)
                                                       : read_plain(d, s, i, n);
        if (r == -E2BIG)
                return fail_limit(
                        d, line, i + 1, "value longer than the limit in bytes of", COMPOSE_DOTENV_VALUE_MAX);
        return r < 0 ? r : add_var(d, s + name, name_len, line);
}

static int cmp_var(const void *a, const void *b) {
        const struct dotenv_var *x = a, *y = b;
        int r = strcmp(x->name, y->name);
        return r ? r : (x->line > y->line) - (x->line < y->line);
}

/* Sorted, and of equal names only the last one written. */
static void settle(struct compose_dotenv *e) {
        size_t k = 0;
        if (e->n_vars == 0)
                return; /* no array at all: qsort() must not see NULL */
        qsort(e->vars, e->n_vars, sizeof(*e->vars), cmp_var);
        for (size_t i = 0; i < e->n_vars; i++) {
                if (k > 0 && strcmp(e->vars[k - 1].name, e->vars[i].name) == 0)
                        k--;
                e->vars[k++] = e->vars[i];
        }
        e->n_vars = k;
}

static int read_lines(struct dotenv_reader *d, const char *data, size_t len) {
        size_t line = 1;
        for (size_t at = 0; at < len; line++) {
                const char *nl = memchr(data + at, '\n', len - at);
                size_t n = nl ? (size_t)(nl - (data + at)) : len - at;
                if (n > 0 && data[at + n - 1] == '\r')
                        n--;
                if (memchr(data + at, '\0', n))
                        return fail(d, line, 1, "NUL byte in the line");
                int r = read_line(d, data + at, n, line);
                if (r < 0)
                        return r;
                at += (nl ? (size_t)(nl - (data + at)) + 1 : len - at);
        }
        return 0;
}

int compose_dotenv_parse(
        const char *path, const char *data, size_t len, struct compose_dotenv **ret,
        struct mh_error *reterr) {
        struct dotenv_reader d = { .path = path ? path : "<input>",
                                   .value = STRBUF_INIT(COMPOSE_DOTENV_VALUE_MAX),
                                   .reterr = reterr };
        if (len > COMPOSE_DOTENV_MAX)
                return mh_error_set(
                        reterr, -EFBIG, MH_EXIT_VALIDATION_ERROR, "validation",
                        "%s: larger than the %u byte limit", d.path, COMPOSE_DOTENV_MAX);
        if (!(d.env = calloc(1, sizeof(*d.env))))
                return oom(&d);
        arena_init(&d.env->arena, 0);
        int r = read_lines(&d, data, len);
        strbuf_done(&d.value);
        if (r < 0) {
                compose_dotenv_free(d.env);
                return r;
        }
        settle(d.env);
        *ret = d.env;
        return 0;
}

int compose_dotenv_load(const char *path, struct compose_dotenv **ret, struct mh_error *reterr) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        int r = read_file_bounded(path, COMPOSE_DOTENV_MAX, &data, &len, reterr);
        if (r < 0)
                return r;
        return compose_dotenv_parse(path, data, len, ret, reterr);
}

struct name_key {
        const char *s;
        size_t n;
};

static int cmp_name(const void *key, const void *elem) {
        const struct name_key *k = key;
        const char *name = ((const struct dotenv_var *)elem)->name;
        int r = strncmp(k->s, name, k->n);
        return r ? r : name[k->n] ? -1 : 0;
}

const char *compose_dotenv_get(const struct compose_dotenv *e, const char *name, size_t len) {
        if (!e || e->n_vars == 0)
                return NULL;
        struct name_key key = { name, len };
        const struct dotenv_var *v = bsearch(&key, e->vars, e->n_vars, sizeof(*v), cmp_name);
        return v ? v->value : NULL;
}

size_t compose_dotenv_size(const struct compose_dotenv *e) {
        return e ? e->n_vars : 0;
}

struct compose_dotenv *compose_dotenv_free(struct compose_dotenv *e) {
        if (e) {
                arena_free(&e->arena);
                free(e);
        }
        return NULL;
}
