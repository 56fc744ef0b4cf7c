#include "compose-internal.h"

#include <unistd.h>

#include "basic/strbuf.h"

/* Compose's variable syntax (compose-spec "Interpolation"), applied to the
 * values we read, never to keys. A '$' not followed by '$', '{' or a name
 * stays as it is, as in docker compose; "${" must be closed and name a
 * variable. Defaults may nest ("${A:-${B}}") up to COMPOSE_INTERPOLATE_DEPTH. */

struct expander {
        const struct compose_ctx *c;
        const struct ynode *at;
        const char *where;
        const char *value; /* the whole scalar, for messages */
        struct strbuf out;
};

/* "${NAME<colon><op>ARG}" */
struct braced {
        const char *name, *arg;
        size_t name_len, arg_len;
        bool colon; /* ":-" treats an empty variable like an unset one */
        char op;    /* '\0', '-', '?' or '+' */
};

static bool is_name_start(char ch) {
        return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static size_t name_length(const char *s, size_t n) {
        size_t k = 0;
        if (n == 0 || !is_name_start(s[0]))
                return 0;
        while (++k < n && (is_name_start(s[k]) || (s[k] >= '0' && s[k] <= '9')))
                ;
        return k;
}

/* The environment wins over .env, as in docker compose. */
const char *compose_getenv(const struct compose_ctx *c, const char *name, size_t len) {
        for (char **e = environ; e && *e; e++)
                if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
                        return *e + len + 1;
        return compose_dotenv_get(c->dotenv, name, len);
}

static int emit(struct expander *x, const char *s, size_t n) {
        int r = strbuf_append(&x->out, s, n);
        if (r == -E2BIG)
                return compose_fail(
                        x->c, x->at, x->where, "longer than %u bytes after interpolation",
                        COMPOSE_VALUE_MAX);
        return r < 0 ? compose_oom(x->c) : 0;
}

static int emit_string(struct expander *x, const char *s) {
        return emit(x, s, strlen(s));
}

/* Offset of the '}' that closes a "${" whose body is s, skipping nested
 * "${...}" and "$$"; n when nothing closes it. */
static size_t find_close(const char *s, size_t n) {
        size_t depth = 1;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '$' && i + 1 < n && (s[i + 1] == '$' || s[i + 1] == '{')) {
                        depth += s[i + 1] == '{';
                        i++;
                } else if (s[i] == '}' && --depth == 0)
                        return i;
        }
        return n;
}

/* s starts with "${"; *used is the length through its closing brace. */
static int parse_braced(struct expander *x, const char *s, size_t n, struct braced *b, size_t *used) {
        const char *body = s + 2;
        size_t close = find_close(body, n - 2);

        if (close == n - 2)
                return compose_fail(x->c, x->at, x->where, "unterminated '${' in '%s'", x->value);
        *b = (struct braced){ .name = body, .name_len = name_length(body, close) };
        size_t k = b->name_len;
        b->colon = k < close && body[k] == ':';
        k += b->colon;
        b->op = k < close ? body[k] : '\0';
        if (b->name_len == 0 || (b->colon && !b->op) || (b->op && !strchr("-?+", b->op)))
                return compose_fail(
                        x->c, x->at, x->where, "invalid interpolation '%.*s' in '%s'", (int)close + 3, s,
                        x->value);
        k += b->op != '\0';
        b->arg = body + k;
        b->arg_len = close - k;
        *used = close + 3;
        return 0;
}

static int expand(struct expander *x, const char *s, size_t n, unsigned depth);

static int apply_braced(struct expander *x, const struct braced *b, unsigned depth) {
        const char *v = compose_getenv(x->c, b->name, b->name_len);
        bool set = v && (!b->colon || *v);

        switch (b->op) {
        case '-': return set ? emit_string(x, v) : expand(x, b->arg, b->arg_len, depth + 1);
        case '+': return set ? expand(x, b->arg, b->arg_len, depth + 1) : 0;
        case '?':
                if (set)
                        return emit_string(x, v);
                return compose_fail(
                        x->c, x->at, x->where, "required variable %.*s is missing a value%s%.*s",
                        (int)b->name_len, b->name, b->arg_len ? ": " : "", (int)b->arg_len, b->arg);
        default: return v ? emit_string(x, v) : 0;
        }
}

/* s starts with '$'. */
static int expand_dollar(struct expander *x, const char *s, size_t n, unsigned depth, size_t *used) {
        if (n >= 2 && s[1] == '$') {
                *used = 2;
                return emit(x, "$", 1);
        }
        if (n >= 2 && s[1] == '{') {
                struct braced b = { 0 };
                int r = parse_braced(x, s, n, &b, used);
                return r < 0 ? r : apply_braced(x, &b, depth);
        }
        size_t len = name_length(s + 1, n - 1);
        *used = 1 + len;
        if (len == 0)
                return emit(x, "$", 1);
        const char *v = compose_getenv(x->c, s + 1, len);
        return v ? emit_string(x, v) : 0;
}

static int expand(struct expander *x, const char *s, size_t n, unsigned depth) {
        if (depth > COMPOSE_INTERPOLATE_DEPTH)
                return compose_fail(
                        x->c, x->at, x->where, "interpolation nested deeper than %u levels in '%s'",
                        COMPOSE_INTERPOLATE_DEPTH, x->value);
        for (size_t i = 0; i < n;) {
                const char *dollar = memchr(s + i, '$', n - i);
                size_t run = dollar ? (size_t)(dollar - (s + i)) : n - i, used = 0;
                int r = emit(x, s + i, run);
                if (r < 0)
                        return r;
                i += run;
                if (i == n)
                        break;
                r = expand_dollar(x, s + i, n - i, depth, &used);
                if (r < 0)
                        return r;
                i += used;
        }
        return 0;
}

int compose_interpolate(
        const struct compose_ctx *c, const struct ynode *at, const char *where, const char *s,
        const char **ret) {
        if (!strchr(s, '$')) {
                *ret = s;
                return 0;
        }
        struct expander x = {
                .c = c, .at = at, .where = where, .value = s, .out = STRBUF_INIT(COMPOSE_VALUE_MAX)
        };
        int r = expand(&x, s, strlen(s), 0);
        if (r >= 0) {
                const char *copy = arena_strndup(c->scratch, x.out.data ? x.out.data : "", x.out.len);
                r = copy ? 0 : compose_oom(c);
                if (copy)
                        *ret = copy;
        }
        strbuf_done(&x.out);
        return r;
}
