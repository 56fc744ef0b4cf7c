#include "config-internal.h"

#include "basic/strbuf.h"

/* The shape of `prepare config show --json`, without jansson: the values are
 * JSON text already (config-render.c). */

static int put_opt(struct strbuf *b, const char *name, const char *s) {
        int r = strbuf_printf(b, "\"%s\": ", name);
        if (r >= 0)
                r = s ? config_json_put_str(b, s) : strbuf_puts(b, "null");
        return r < 0 ? r : strbuf_puts(b, ", ");
}

static int put_origin(struct strbuf *b, const struct config_origin *o, bool first) {
        int r = strbuf_puts(b, first ? "" : ", ");
        if (r >= 0)
                r = config_json_put_str(b, o->key);
        if (r >= 0)
                r = strbuf_printf(
                        b, ": {\"value\": %s, \"source\": \"%s\", \"where\": ", o->value,
                        config_source_to_string(o->source));
        if (r >= 0)
                r = o->where ? config_json_put_str(b, o->where) : strbuf_puts(b, "null");
        return r < 0 ? r : strbuf_putc(b, '}');
}

int config_to_json_text(const struct mayhem_config *c, char **ret, struct mh_error *reterr) {
        struct strbuf b = STRBUF_INIT(4u * 1024u * 1024u);
        int r = strbuf_putc(&b, '{');
        if (r >= 0)
                r = put_opt(&b, "file", c->path);
        if (r >= 0)
                r = put_opt(&b, "drill", c->drill_path);
        if (r >= 0)
                r = put_opt(&b, "profile", c->profile);
        if (r >= 0)
                r = put_opt(&b, "target", c->target ? c->target->name : NULL);
        if (r >= 0)
                r = strbuf_puts(&b, "\"keys\": {");
        for (size_t i = 0; r >= 0 && i < c->n_origins; i++)
                r = put_origin(&b, &c->origins[i], i == 0);
        if (r >= 0)
                r = strbuf_puts(&b, "}, \"warnings\": [");
        for (size_t i = 0; r >= 0 && i < c->n_warnings; i++)
                if ((r = strbuf_puts(&b, i ? ", " : "")) >= 0)
                        r = config_json_put_str(&b, c->warnings[i]);
        if (r >= 0)
                r = strbuf_puts(&b, "]}");
        if (r < 0) {
                strbuf_done(&b);
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "configuration too large for JSON");
        }
        *ret = strbuf_steal(&b);
        return 0;
}
