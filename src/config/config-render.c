#include "config-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strbuf.h"

/* Every origin gets the effective value as JSON text, so `config show`
 * prints the struct's truth (not the documents') in text and JSON alike. */

#define AT(c, off, type) ((type const *)(const void *)((const char *)(c) + (off)))

int config_json_put_str(struct strbuf *b, const char *s) {
        int r = strbuf_putc(b, '"');
        for (; r >= 0 && s && *s; s++) {
                unsigned char ch = (unsigned char)*s;
                if (ch == '"' || ch == '\\')
                        r = strbuf_printf(b, "\\%c", ch);
                else if (ch < 0x20 || ch == 0x7f)
                        r = strbuf_printf(b, "\\u%04x", ch);
                else
                        r = strbuf_putc(b, (char)ch);
        }
        return r < 0 ? r : strbuf_putc(b, '"');
}

static int put_strs(struct strbuf *b, const char *const *v, size_t n) {
        int r = strbuf_putc(b, '[');
        for (size_t i = 0; r >= 0 && i < n; i++)
                if ((r = i ? strbuf_puts(b, ", ") : 0) >= 0)
                        r = config_json_put_str(b, v[i]);
        return r < 0 ? r : strbuf_putc(b, ']');
}

static int put_pairs(struct strbuf *b, const struct config_fault_pair *p, size_t n) {
        int r = strbuf_putc(b, '[');
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const char *ab[2] = { p[i].a, p[i].b };
                if ((r = i ? strbuf_puts(b, ", ") : 0) >= 0)
                        r = put_strs(b, ab, 2);
        }
        return r < 0 ? r : strbuf_putc(b, ']');
}

static int put_key(struct strbuf *b, const struct mayhem_config *c, const struct ckey *k) {
        switch (k->kind) {
        case CK_NUM: return strbuf_printf(b, "%.17g", *AT(c, k->off, double));
        case CK_INT: return strbuf_printf(b, "%lld", (long long)*AT(c, k->off, int64_t));
        case CK_SEED:
                return *AT(c, k->aux, bool) ? strbuf_printf(b, "%lld", (long long)*AT(c, k->off, int64_t))
                                            : strbuf_puts(b, "null");
        case CK_BOOL: return strbuf_puts(b, *AT(c, k->off, bool) ? "true" : "false");
        case CK_STR:
        case CK_RUNTIME: return config_json_put_str(b, *AT(c, k->off, const char *));
        case CK_RISK_OPT:
                return *AT(c, k->aux, bool)
                               ? config_json_put_str(b, risk_to_string(*AT(c, k->off, enum risk)))
                               : strbuf_puts(b, "null");
        case CK_LOG_LEVEL:
                return config_json_put_str(b, log_level_to_string(*AT(c, k->off, enum log_level)));
        case CK_FAULTS_OPT:
                if (!*AT(c, k->off, const char *const *))
                        return strbuf_puts(b, "null");
                _fallthrough_;
        case CK_FAULTS:
        case CK_STRS: return put_strs(b, *AT(c, k->off, const char *const *), *AT(c, k->aux, size_t));
        case CK_PAIRS:
                return put_pairs(
                        b, *AT(c, k->off, const struct config_fault_pair *), *AT(c, k->aux, size_t));
        default: return strbuf_puts(b, "null");
        }
}

/* "targets.NAME.FIELD" */
static int put_target(struct strbuf *b, const struct mayhem_config *c, const char *rest) {
        for (size_t i = 0; i < c->n_targets; i++) {
                const struct config_target *t = &c->targets[i];
                size_t n = strlen(t->name);
                if (strncmp(rest, t->name, n) != 0 || rest[n] != '.')
                        continue;
                const char *f = rest + n + 1;
                if (strcmp(f, "engine") == 0)
                        return config_json_put_str(b, t->engine);
                if (strcmp(f, "compose") == 0)
                        return config_json_put_str(b, t->compose);
                if (strcmp(f, "extends") == 0)
                        return config_json_put_str(b, t->extends);
                return put_strs(b, t->containers, t->n_containers);
        }
        return strbuf_puts(b, "null");
}

static int put_value(struct strbuf *b, const struct mayhem_config *c, const char *key) {
        const struct ckey *k = config_key_find(key);
        if (k)
                return put_key(b, c, k);
        if (strncmp(key, "targets.", 8) == 0)
                return put_target(b, c, key + 8);
        if (strcmp(key, "target_profile") == 0)
                return c->target ? config_json_put_str(b, c->target->name) : strbuf_puts(b, "null");
        if (strcmp(key, "profile") == 0)
                return c->profile ? config_json_put_str(b, c->profile) : strbuf_puts(b, "null");
        return strbuf_puts(b, "null");
}

static int by_key(const void *a, const void *b) {
        return strcmp(((const struct config_origin *)a)->key, ((const struct config_origin *)b)->key);
}

int config_render(struct config_loader *L) {
        struct mayhem_config *c = L->c;
        struct config_origin *o = arena_alloc_array(&c->arena, L->n_origins + 1, sizeof(*o));
        const char **w = arena_alloc_array(&c->arena, L->n_warnings + 1, sizeof(*w));
        if (!o || !w)
                return cl_oom(L);
        for (size_t i = 0; i < L->n_origins; i++) {
                struct strbuf b = STRBUF_INIT(64 * 1024);
                int r = put_value(&b, c, L->origins[i].key);
                o[i] = L->origins[i];
                o[i].value = r >= 0 ? arena_strdup(&c->arena, b.data ? b.data : "null") : NULL;
                strbuf_done(&b);
                if (!o[i].value)
                        return cl_oom(L);
        }
        qsort(o, L->n_origins, sizeof(*o), by_key);
        memcpy(w, L->warnings, L->n_warnings * sizeof(*w));
        c->origins = o;
        c->n_origins = L->n_origins;
        c->warnings = w;
        c->n_warnings = L->n_warnings;
        return 0;
}
