#include "ydoc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "basic/macro.h"

#define MERGE_KEY "<<"

struct frame {
        struct ynode *node;
        char *anchor;
        struct ynode **children; /* for a mapping: key, value, key, value, ... */
        size_t n, cap;
};

struct anchor {
        char *name;
        const struct ynode *node;
};

struct builder {
        struct ydoc *doc;
        const struct ydoc_limits *limits;
        struct frame *stack;
        size_t depth, stack_cap;
        struct anchor *anchors;
        size_t n_anchors, anchors_cap;
        size_t n_nodes;
        const struct ynode *root;
        unsigned n_documents;
        int error; /* code of the last failure */
        struct mh_error *reterr;
};

/* Both failure paths remember their code so callers of NULL-returning helpers can pass it on. */
#define fail_at(b, line, col, ...)                                                                          \
        ((b)->error = mh_error_at((b)->reterr, (b)->doc->path, (line), (col), __VA_ARGS__))

static int out_of_memory(struct builder *b) {
        return b->error = mh_error_set(
                       b->reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory",
                       b->doc->path);
}

static struct ynode *new_node(struct builder *b, enum ynode_kind kind, const yaml_mark_t *mark) {
        if (b->n_nodes >= b->limits->max_nodes) {
                fail_at(b, (unsigned)mark->line + 1, (unsigned)mark->column + 1,
                        "document has more than %zu nodes (aliases count once per use)",
                        b->limits->max_nodes);
                return NULL;
        }
        struct ynode *n = arena_alloc(&b->doc->arena, sizeof(*n));
        if (!n) {
                out_of_memory(b);
                return NULL;
        }
        b->n_nodes++;
        n->kind = kind;
        n->line = (unsigned)mark->line + 1;
        n->col = (unsigned)mark->column + 1;
        return n;
}

static int push_child(struct builder *b, struct frame *f, struct ynode *child) {
        if (f->n == f->cap) {
                size_t cap = f->cap ? f->cap * 2 : 8;
                struct ynode **p = realloc(f->children, cap * sizeof(*p));
                if (!p)
                        return out_of_memory(b);
                f->children = p;
                f->cap = cap;
        }
        f->children[f->n++] = child;
        return 0;
}

static int remember_anchor(struct builder *b, const char *name, const struct ynode *node) {
        if (!name)
                return 0;
        for (size_t i = 0; i < b->n_anchors; i++)
                if (strcmp(b->anchors[i].name, name) == 0) {
                        b->anchors[i].node = node; /* YAML lets an anchor be redefined */
                        return 0;
                }
        if (b->n_anchors == b->anchors_cap) {
                size_t cap = b->anchors_cap ? b->anchors_cap * 2 : 8;
                struct anchor *p = realloc(b->anchors, cap * sizeof(*p));
                if (!p)
                        return out_of_memory(b);
                b->anchors = p;
                b->anchors_cap = cap;
        }
        char *copy = strdup(name);
        if (!copy)
                return out_of_memory(b);
        b->anchors[b->n_anchors++] = (struct anchor){ .name = copy, .node = node };
        return 0;
}

/* Attaches a finished node to the open collection, or makes it the root. */
static int attach(struct builder *b, struct ynode *node) {
        if (b->depth == 0) {
                b->root = node;
                return 0;
        }
        struct frame *parent = &b->stack[b->depth - 1];
        if (parent->node->kind == YNODE_MAP && parent->n % 2 == 0 && node->kind != YNODE_SCALAR)
                return fail_at(
                        b, node->line, node->col, "mapping keys must be plain strings, not %s",
                        ynode_describe(node));
        return push_child(b, parent, node);
}

static struct ynode *copy_tree(struct builder *b, const struct ynode *src, unsigned line, unsigned col) {
        if (b->n_nodes >= b->limits->max_nodes) {
                fail_at(b, line, col, "alias expansion makes the document larger than %zu nodes",
                        b->limits->max_nodes);
                return NULL;
        }
        struct ynode *n = arena_memdup(&b->doc->arena, src, sizeof(*src));
        if (!n) {
                out_of_memory(b);
                return NULL;
        }
        b->n_nodes++;
        if (src->kind == YNODE_MAP) {
                n->pairs = arena_alloc_array(&b->doc->arena, src->n_pairs, sizeof(struct ypair));
                if (src->n_pairs && !n->pairs) {
                        out_of_memory(b);
                        return NULL;
                }
                for (size_t i = 0; i < src->n_pairs; i++) {
                        n->pairs[i].key = src->pairs[i].key; /* scalars are immutable: share */
                        n->pairs[i].value = copy_tree(b, src->pairs[i].value, line, col);
                        if (!n->pairs[i].value)
                                return NULL;
                }
        } else if (src->kind == YNODE_SEQ) {
                n->items = arena_alloc_array(&b->doc->arena, src->n_items, sizeof(struct ynode *));
                if (src->n_items && !n->items) {
                        out_of_memory(b);
                        return NULL;
                }
                for (size_t i = 0; i < src->n_items; i++) {
                        n->items[i] = copy_tree(b, src->items[i], line, col);
                        if (!n->items[i])
                                return NULL;
                }
        }
        return n;
}

static bool is_merge_key(const struct ynode *key) {
        return !key->quoted && strcmp(key->text, MERGE_KEY) == 0;
}

static size_t merge_source_pairs(const struct ynode *v) {
        size_t n = 0;
        if (v->kind == YNODE_MAP)
                return v->n_pairs;
        if (v->kind == YNODE_SEQ)
                for (size_t i = 0; i < v->n_items; i++)
                        if (v->items[i]->kind == YNODE_MAP)
                                n += v->items[i]->n_pairs;
        return n;
}

static void append_pairs(struct ypair *pairs, size_t *n, const struct ynode *src) {
        memcpy(pairs + *n, src->pairs, src->n_pairs * sizeof(*pairs));
        *n += src->n_pairs;
}

struct key_ref {
        const char *key;
        size_t order;
};

static int key_ref_cmp(const void *a, const void *b) {
        const struct key_ref *x = a, *y = b;
        int c = strcmp(x->key, y->key);
        return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Keeps the first of each key, in order, so explicit keys beat merged ones and
 * earlier merges beat later ones; two explicit keys alike are an error. Sorting
 * keeps this O(n log n) for mappings with many keys. */
static int dedupe_pairs(struct builder *b, struct ypair *pairs, size_t *n, size_t n_explicit) {
        _cleanup_free_ struct key_ref *refs = malloc(MAX(*n, (size_t)1) * sizeof(*refs));
        _cleanup_free_ bool *drop = calloc(MAX(*n, (size_t)1), sizeof(*drop));
        if (!refs || !drop)
                return out_of_memory(b);
        for (size_t i = 0; i < *n; i++)
                refs[i] = (struct key_ref){ .key = pairs[i].key->text, .order = i };
        qsort(refs, *n, sizeof(*refs), key_ref_cmp);
        for (size_t i = 1; i < *n; i++) {
                if (strcmp(refs[i].key, refs[i - 1].key) != 0)
                        continue;
                if (refs[i].order < n_explicit) {
                        const struct ynode *k = pairs[refs[i].order].key;
                        return fail_at(b, k->line, k->col, "duplicate key '%s'", k->text);
                }
                drop[refs[i].order] = true;
        }
        size_t kept = 0;
        for (size_t i = 0; i < *n; i++)
                if (!drop[i])
                        pairs[kept++] = pairs[i];
        *n = kept;
        return 0;
}

/* Builds the pair array: explicit keys first (duplicates are errors), then
 * keys pulled in by "<<" that are not already there, earlier merges winning. */
static int finish_map(struct builder *b, struct frame *f) {
        size_t n_explicit = 0, n_merged = 0;

        for (size_t i = 0; i + 1 < f->n; i += 2) {
                const struct ynode *k = f->children[i], *v = f->children[i + 1];
                if (!is_merge_key(k)) {
                        n_explicit++;
                        continue;
                }
                /* Point at the offending item of a list, not at the list, which is allowed. */
                const struct ynode *bad = v->kind == YNODE_SCALAR ? v : NULL;
                for (size_t j = 0; !bad && v->kind == YNODE_SEQ && j < v->n_items; j++)
                        if (v->items[j]->kind != YNODE_MAP)
                                bad = v->items[j];
                if (bad)
                        return fail_at(
                                b, bad->line, bad->col,
                                "merge key '<<' needs a mapping or a list of mappings, not %s",
                                ynode_describe(bad));
                n_merged += merge_source_pairs(v);
        }

        struct ypair *pairs = arena_alloc_array(&b->doc->arena, n_explicit + n_merged, sizeof(*pairs));
        if (!pairs)
                return out_of_memory(b);
        size_t n = 0;
        for (size_t i = 0; i + 1 < f->n; i += 2)
                if (!is_merge_key(f->children[i]))
                        pairs[n++] = (struct ypair){ .key = f->children[i], .value = f->children[i + 1] };
        for (size_t i = 0; i + 1 < f->n; i += 2) {
                const struct ynode *k = f->children[i], *v = f->children[i + 1];
                if (!is_merge_key(k))
                        continue;
                if (v->kind == YNODE_MAP)
                        append_pairs(pairs, &n, v);
                else
                        for (size_t j = 0; j < v->n_items; j++)
                                append_pairs(pairs, &n, v->items[j]);
        }
        int r = dedupe_pairs(b, pairs, &n, n_explicit);
        if (r < 0)
                return r;
        f->node->pairs = pairs;
        f->node->n_pairs = n;
        return 0;
}

static int finish_seq(struct builder *b, struct frame *f) {
        f->node->items = arena_memdup(&b->doc->arena, f->children, f->n * sizeof(struct ynode *));
        if (f->n && !f->node->items)
                return out_of_memory(b);
        f->node->n_items = f->n;
        return 0;
}

static int open_collection(
        struct builder *b, enum ynode_kind kind, const yaml_event_t *ev, const yaml_char_t *anchor) {
        if (b->depth >= b->limits->max_depth)
                return fail_at(
                        b, (unsigned)ev->start_mark.line + 1, (unsigned)ev->start_mark.column + 1,
                        "nesting deeper than %zu levels", b->limits->max_depth);
        if (b->depth == b->stack_cap) {
                size_t cap = b->stack_cap ? b->stack_cap * 2 : 16;
                struct frame *p = realloc(b->stack, cap * sizeof(*p));
                if (!p)
                        return out_of_memory(b);
                b->stack = p;
                b->stack_cap = cap;
        }
        struct ynode *node = new_node(b, kind, &ev->start_mark);
        if (!node)
                return b->error;
        char *anchor_copy = NULL;
        if (anchor && !(anchor_copy = strdup((const char *)anchor)))
                return out_of_memory(b);
        b->stack[b->depth++] = (struct frame){ .node = node, .anchor = anchor_copy };
        return 0;
}

static int close_collection(struct builder *b) {
        struct frame *f = &b->stack[b->depth - 1];
        int r = f->node->kind == YNODE_MAP ? finish_map(b, f) : finish_seq(b, f);
        if (r >= 0)
                r = remember_anchor(b, f->anchor, f->node);
        struct ynode *node = f->node;
        free(f->children);
        free(f->anchor);
        b->depth--;
        if (r < 0)
                return r;
        return attach(b, node);
}

static int add_scalar(struct builder *b, const yaml_event_t *ev) {
        const char *text = (const char *)ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        unsigned line = (unsigned)ev->start_mark.line + 1, col = (unsigned)ev->start_mark.column + 1;

        if (memchr(text, '\0', len))
                return fail_at(b, line, col, "string contains a NUL byte");
        struct ynode *n = new_node(b, YNODE_SCALAR, &ev->start_mark);
        if (!n)
                return b->error;
        n->text = arena_strndup(&b->doc->arena, text, len);
        if (!n->text)
                return out_of_memory(b);
        const char *tag = (const char *)ev->data.scalar.tag;
        n->quoted =
                ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || (tag && strcmp(tag, YAML_STR_TAG) == 0);
        int r = remember_anchor(b, (const char *)ev->data.scalar.anchor, n);
        return r < 0 ? r : attach(b, n);
}

static int add_alias(struct builder *b, const yaml_event_t *ev) {
        const char *name = (const char *)ev->data.alias.anchor;
        unsigned line = (unsigned)ev->start_mark.line + 1, col = (unsigned)ev->start_mark.column + 1;

        for (size_t i = b->n_anchors; i-- > 0;)
                if (strcmp(b->anchors[i].name, name) == 0) {
                        struct ynode *copy = copy_tree(b, b->anchors[i].node, line, col);
                        if (!copy)
                                return b->error;
                        return attach(b, copy);
                }
        return fail_at(b, line, col, "alias '*%s' refers to no earlier anchor", name);
}

static int handle_event(struct builder *b, const yaml_event_t *ev) {
        switch (ev->type) {
        case YAML_DOCUMENT_START_EVENT:
                if (++b->n_documents > 1)
                        return fail_at(
                                b, (unsigned)ev->start_mark.line + 1, (unsigned)ev->start_mark.column + 1,
                                "only one YAML document is allowed per file");
                return 0;
        case YAML_MAPPING_START_EVENT:
                return open_collection(b, YNODE_MAP, ev, ev->data.mapping_start.anchor);
        case YAML_SEQUENCE_START_EVENT:
                return open_collection(b, YNODE_SEQ, ev, ev->data.sequence_start.anchor);
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT: return close_collection(b);
        case YAML_SCALAR_EVENT: return add_scalar(b, ev);
        case YAML_ALIAS_EVENT: return add_alias(b, ev);
        default: return 0;
        }
}

/* libyaml reports a reader error (bad UTF-8, a control character) as a byte
 * offset and leaves problem_mark zeroed: turn the offset into the 0-based
 * line and column (in characters) the scanner would have given, with its
 * line breaks: LF, CR, CRLF, NEL, LS and PS. */
static yaml_mark_t offset_to_mark(const char *data, size_t len, size_t offset) {
        yaml_mark_t m = { .index = offset };

        for (size_t i = 0; i < offset && i < len; i++) {
                const unsigned char *c = (const unsigned char *)data + i;
                size_t left = len - i;
                bool crlf = left >= 2 && c[0] == '\r' && c[1] == '\n';
                bool brk = c[0] == '\n' || (c[0] == '\r' && !crlf) ||
                           (left >= 2 && c[0] == 0xc2 && c[1] == 0x85) ||
                           (left >= 3 && c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9));
                if (brk) {
                        m.line++;
                        m.column = 0;
                } else if ((c[0] & 0xc0) != 0x80 && !crlf)
                        m.column++;
        }
        return m;
}

static int syntax_error(struct builder *b, const yaml_parser_t *p, const char *data, size_t len) {
        yaml_mark_t reader_mark;
        const yaml_mark_t *m = &p->problem_mark;
        char msg[MH_ERROR_MSG_MAX];

        if (p->error == YAML_MEMORY_ERROR)
                return out_of_memory(b);
        if (p->error == YAML_READER_ERROR) {
                reader_mark = offset_to_mark(data, len, p->problem_offset);
                m = &reader_mark;
        }
        if (p->context)
                snprintf(
                        msg, sizeof(msg), "YAML syntax error: %s %s",
                        p->problem ? p->problem : "invalid input", p->context);
        else
                snprintf(
                        msg, sizeof(msg), "YAML syntax error: %s",
                        p->problem ? p->problem : "invalid input");
        return fail_at(b, (unsigned)m->line + 1, (unsigned)m->column + 1, "%s", msg);
}

static void builder_done(struct builder *b) {
        for (size_t i = 0; i < b->depth; i++) {
                free(b->stack[i].children);
                free(b->stack[i].anchor);
        }
        free(b->stack);
        for (size_t i = 0; i < b->n_anchors; i++)
                free(b->anchors[i].name);
        free(b->anchors);
}

static int run_parser(struct builder *b, const char *data, size_t len) {
        yaml_parser_t parser;
        yaml_event_t ev;
        int r = 0;

        if (!yaml_parser_initialize(&parser))
                return out_of_memory(b);
        yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
        for (bool done = false; !done && r >= 0;) {
                if (!yaml_parser_parse(&parser, &ev)) {
                        r = syntax_error(b, &parser, data, len);
                        break;
                }
                done = ev.type == YAML_STREAM_END_EVENT;
                r = handle_event(b, &ev);
                yaml_event_delete(&ev);
        }
        yaml_parser_delete(&parser);
        return r;
}

int ydoc_parse(
        const char *path, const char *data, size_t len, const struct ydoc_limits *limits,
        struct ydoc **ret_doc, struct mh_error *reterr) {
        _cleanup_(ydoc_freep) struct ydoc *doc = NULL;
        struct ydoc_limits lim = limits ? *limits : YDOC_LIMITS_DEFAULT;

        doc = calloc(1, sizeof(*doc));
        if (!doc || !(doc->path = strdup(path ? path : "<input>")))
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        arena_init(&doc->arena, 0);

        struct builder b = { .doc = doc, .limits = &lim, .reterr = reterr };
        int r = run_parser(&b, data, len);
        builder_done(&b);
        if (r < 0)
                return r;
        if (!b.root || ynode_is_null(b.root))
                return mh_error_at(reterr, doc->path, 1, 1, "the file is empty");
        doc->root = b.root;
        *ret_doc = TAKE_PTR(doc);
        return 0;
}

struct ydoc *ydoc_free(struct ydoc *doc) {
        if (!doc)
                return NULL;
        arena_free(&doc->arena);
        free(doc->path);
        free(doc);
        return NULL;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key) {
        if (!map || map->kind != YNODE_MAP)
                return NULL;
        for (size_t i = 0; i < map->n_pairs; i++)
                if (strcmp(map->pairs[i].key->text, key) == 0)
                        return map->pairs[i].value;
        return NULL;
}

bool ynode_is_null(const struct ynode *n) {
        if (!n || n->kind != YNODE_SCALAR || n->quoted)
                return false;
        return n->text[0] == '\0' || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
               strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0;
}

const char *ynode_describe(const struct ynode *n) {
        if (!n)
                return "nothing";
        switch (n->kind) {
        case YNODE_MAP: return "a mapping";
        case YNODE_SEQ: return "a list";
        default: return ynode_is_null(n) ? "null" : "a scalar";
        }
}
