#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/macro.h"
#include "basic/strbuf.h"
#include "drill/ydoc.h"

#define PATH "t.yaml"

/* Parses exactly len bytes from a heap copy with no terminator after it, so
 * ASan catches any read past the end. */
static int parse_len(
        const char *yaml, size_t len, const struct ydoc_limits *lim, struct ydoc **ret, struct mh_error *e) {
        char *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, yaml, len);
        int r = ydoc_parse(PATH, copy, len, lim, ret, e);
        free(copy); /* the tree must not point into the input */
        return r;
}

static struct ydoc *parse_ok(const char *yaml) {
        struct ydoc *doc = NULL;
        struct mh_error e = { 0 };
        int r = parse_len(yaml, strlen(yaml), NULL, &doc, &e);
        if (r < 0)
                fail_msg("unexpected error %d %s:%u:%u: %s", r, e.path, e.line, e.col, e.msg);
        assert_non_null(doc);
        assert_non_null(doc->root);
        return doc;
}

static const struct ynode *get(const struct ynode *map, const char *key) {
        const struct ynode *n = ynode_get(map, key);
        if (!n)
                fail_msg("no key '%s'", key);
        return n;
}

static void assert_node(const struct ynode *n, enum ynode_kind kind, unsigned line, unsigned col) {
        assert_non_null(n);
        if (n->kind != kind || n->line != line || n->col != col)
                fail_msg(
                        "node kind=%d at %u:%u, want kind=%d at %u:%u", n->kind, n->line, n->col, kind, line,
                        col);
}

static void assert_scalar(
        const struct ynode *n, const char *text, bool quoted, unsigned line, unsigned col) {
        assert_node(n, YNODE_SCALAR, line, col);
        assert_string_equal(n->text, text);
        assert_int_equal(n->quoted, quoted);
}

/* ---- trees ---- */

static void test_positions(void **state) {
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok("name: demo\n"
                                                          "list:\n"
                                                          "  - one\n"
                                                          "  - two: 2\n"
                                                          "    three: 3\n"
                                                          "flow: [a, {b: c}]\n");
        const struct ynode *root = doc->root;

        assert_node(root, YNODE_MAP, 1, 1);
        assert_int_equal(root->n_pairs, 3);
        assert_scalar(root->pairs[0].key, "name", false, 1, 1);
        assert_scalar(root->pairs[0].value, "demo", false, 1, 7);
        assert_scalar(root->pairs[1].key, "list", false, 2, 1);
        assert_scalar(root->pairs[2].key, "flow", false, 6, 1);

        const struct ynode *list = get(root, "list");
        assert_node(list, YNODE_SEQ, 3, 3);
        assert_int_equal(list->n_items, 2);
        assert_scalar(list->items[0], "one", false, 3, 5);
        assert_node(list->items[1], YNODE_MAP, 4, 5);
        assert_int_equal(list->items[1]->n_pairs, 2);
        assert_scalar(list->items[1]->pairs[1].key, "three", false, 5, 5);
        assert_scalar(get(list->items[1], "two"), "2", false, 4, 10);

        const struct ynode *flow = get(root, "flow");
        assert_node(flow, YNODE_SEQ, 6, 7);
        assert_scalar(flow->items[0], "a", false, 6, 8);
        assert_node(flow->items[1], YNODE_MAP, 6, 11);
        assert_scalar(flow->items[1]->pairs[0].key, "b", false, 6, 12);
        assert_scalar(get(flow->items[1], "b"), "c", false, 6, 15);
}

static void test_scalar_root_and_empty_collections(void **state) {
        _cleanup_(ydoc_freep) struct ydoc *s = parse_ok("  hello\n");
        assert_scalar(s->root, "hello", false, 1, 3);

        _cleanup_(ydoc_freep) struct ydoc *d = parse_ok("--- {}\n");
        assert_node(d->root, YNODE_MAP, 1, 5);
        assert_int_equal(d->root->n_pairs, 0);

        _cleanup_(ydoc_freep) struct ydoc *l = parse_ok("[]");
        assert_node(l->root, YNODE_SEQ, 1, 1);
        assert_int_equal(l->root->n_items, 0);
}

static void test_length_bounds_input(void **state) {
        const char *yaml = "a: 1\nb: 2\n";
        struct ydoc *doc = NULL;
        struct mh_error e = { 0 };

        assert_int_equal(parse_len(yaml, 4, NULL, &doc, &e), 0);
        assert_int_equal(doc->root->n_pairs, 1);
        assert_null(ynode_get(doc->root, "b"));
        assert_string_equal(doc->path, PATH);
        ydoc_free(doc);
        assert_null(ydoc_free(NULL));
}

static void test_quoted(void **state) {
        static const struct {
                const char *key, *text;
                bool quoted;
        } cases[] = {
                { "plain", "word", false },   { "single", "word", true },   { "double", "word", true },
                { "literal", "lit\n", true }, { "folded", "fold\n", true }, { "str_tag", "5", true },
                { "number", "5", false },     { "empty_str", "", true },    { "int_tag", "5", true },
                { "escaped", "a\tb", true },
        };
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok("plain: word\n"
                                                          "single: 'word'\n"
                                                          "double: \"word\"\n"
                                                          "literal: |\n  lit\n"
                                                          "folded: >\n  fold\n"
                                                          "str_tag: !!str 5\n"
                                                          "number: 5\n"
                                                          "empty_str: !!str\n"
                                                          "int_tag: !!int \"5\"\n"
                                                          "escaped: \"a\\tb\"\n");
        assert_int_equal(doc->root->n_pairs, ELEMENTSOF(cases));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct ynode *n = get(doc->root, cases[i].key);
                assert_int_equal(n->kind, YNODE_SCALAR);
                assert_string_equal(n->text, cases[i].text);
                if (n->quoted != cases[i].quoted)
                        fail_msg("%s: quoted=%d", cases[i].key, n->quoted);
                assert_false(ynode_is_null(n));
        }
}

static void test_null_forms(void **state) {
        static const struct {
                const char *key;
                bool null;
        } cases[] = {
                { "tilde", true },    { "nothing", true },  { "lower", true },   { "title", true },
                { "upper", true },    { "quoted", false },  { "single", false }, { "mixed", false },
                { "empty_q", false }, { "str_tag", false }, { "word", false },
        };
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok("tilde: ~\n"
                                                          "nothing:\n"
                                                          "lower: null\n"
                                                          "title: Null\n"
                                                          "upper: NULL\n"
                                                          "quoted: \"null\"\n"
                                                          "single: '~'\n"
                                                          "mixed: nULL\n"
                                                          "empty_q: ''\n"
                                                          "str_tag: !!str ~\n"
                                                          "word: nil\n");
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                if (ynode_is_null(get(doc->root, cases[i].key)) != cases[i].null)
                        fail_msg("%s: is_null should be %d", cases[i].key, cases[i].null);
        assert_false(ynode_is_null(NULL));
        assert_false(ynode_is_null(doc->root));
        assert_string_equal(ynode_describe(get(doc->root, "tilde")), "null");
        assert_string_equal(ynode_describe(get(doc->root, "word")), "a scalar");
        assert_string_equal(ynode_describe(doc->root), "a mapping");
        assert_string_equal(ynode_describe(NULL), "nothing");
}

static void test_ynode_get(void **state) {
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok("a: [1]\n\"<<\": quoted merge key is a key\n");

        assert_null(ynode_get(doc->root, "missing"));
        assert_null(ynode_get(NULL, "a"));
        assert_null(ynode_get(get(doc->root, "a"), "0"));
        assert_null(ynode_get(get(doc->root, "a")->items[0], "1"));
        assert_string_equal(get(doc->root, "<<")->text, "quoted merge key is a key");
        assert_string_equal(ynode_describe(get(doc->root, "a")), "a list");
}

/* ---- aliases and merges ---- */

static void test_aliases_copied(void **state) {
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok("base: &b\n"
                                                          "  x: 1\n"
                                                          "  y: [1, 2]\n"
                                                          "use: *b\n"
                                                          "s: &s hello\n"
                                                          "t: *s\n"
                                                          "r: &r first\n"
                                                          "r2: &r second\n"
                                                          "u: *r\n");
        const struct ynode *base = get(doc->root, "base"), *use = get(doc->root, "use");

        assert_node(use, YNODE_MAP, base->line, base->col);
        assert_ptr_not_equal(use, base);
        assert_int_equal(use->n_pairs, 2);
        assert_string_equal(get(use, "x")->text, "1");
        const struct ynode *y = get(use, "y");
        assert_ptr_not_equal(y, get(base, "y"));
        assert_int_equal(y->n_items, 2);
        assert_string_equal(y->items[1]->text, "2");

        assert_string_equal(get(doc->root, "t")->text, "hello");
        assert_false(get(doc->root, "t")->quoted);
        assert_string_equal(get(doc->root, "u")->text, "second"); /* a redefined anchor: the latest wins */
}

static void test_merge_keys(void **state) {
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok("base: &base {a: 1, b: 2}\n"
                                                          "other: &other {b: 20, c: 30}\n"
                                                          "one:\n"
                                                          "  <<: *base\n"
                                                          "  b: 3\n"
                                                          "two:\n"
                                                          "  <<: [*base, *other]\n"
                                                          "  d: 4\n"
                                                          "three: &three\n"
                                                          "  a: 9\n"
                                                          "  <<: *base\n"
                                                          "four: {<<: *three, e: 5}\n");
        static const struct {
                const char *map, *key, *value;
        } cases[] = {
                { "one", "a", "1" },  { "one", "b", "3" }, /* explicit keys win */
                { "two", "a", "1" },  { "two", "b", "2" }, /* the earlier merge wins */
                { "two", "c", "30" }, { "two", "d", "4" },  { "three", "a", "9" }, { "three", "b", "2" },
                { "four", "a", "9" }, { "four", "b", "2" }, { "four", "e", "5" },
        };
        static const struct {
                const char *map;
                size_t n;
        } sizes[] = { { "one", 2 }, { "two", 4 }, { "three", 2 }, { "four", 3 } };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const struct ynode *v = get(get(doc->root, cases[i].map), cases[i].key);
                if (!streq(v->text, cases[i].value))
                        fail_msg("%s.%s = %s, want %s", cases[i].map, cases[i].key, v->text, cases[i].value);
        }
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                const struct ynode *m = get(doc->root, sizes[i].map);
                assert_int_equal(m->n_pairs, sizes[i].n);
                assert_null(ynode_get(m, "<<"));
        }
        /* Explicit keys come first, merged ones after in merge order. */
        const struct ynode *two = get(doc->root, "two");
        assert_string_equal(two->pairs[0].key->text, "d");
        assert_string_equal(two->pairs[1].key->text, "a");
        assert_string_equal(two->pairs[3].key->text, "c");
}

/* ---- errors ---- */

struct error_case {
        const char *name, *yaml;
        size_t len; /* 0: strlen(yaml) */
        unsigned line, col;
        const char *msg;
};

static void check_error(const struct error_case *c, const struct ydoc_limits *lim) {
        struct ydoc *doc = (struct ydoc *)0x1;
        struct mh_error e = { 0 };
        size_t len = c->len ? c->len : strlen(c->yaml);

        int r = parse_len(c->yaml, len, lim, &doc, &e);
        if (r != -EINVAL || e.line != c->line || e.col != c->col || !streq(e.msg, c->msg))
                fail_msg(
                        "%s: got %d %s:%u:%u: %s\n  want %s:%u:%u: %s", c->name, r, e.path, e.line, e.col,
                        e.msg, PATH, c->line, c->col, c->msg);
        assert_int_equal(e.code, -EINVAL);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_string_equal(e.id, "validation");
        assert_string_equal(e.path, PATH);
        assert_ptr_equal(doc, (struct ydoc *)0x1);
        /* The same failure without anyone to tell. */
        assert_int_equal(parse_len(c->yaml, len, lim, &doc, NULL), -EINVAL);
        assert_ptr_equal(doc, (struct ydoc *)0x1);
}

static void test_errors(void **state) {
        static const struct error_case cases[] = {
                { "duplicate", "a: 1\nb: 2\na: 3\n", 0, 3, 1, "duplicate key 'a'" },
                { "duplicate flow", "{x: 1, x: 2}", 0, 1, 8, "duplicate key 'x'" },
                { "duplicate nested", "top:\n  k: 1\n  k: 2\n", 0, 3, 3, "duplicate key 'k'" },
                { "duplicate quoted", "k: 1\n'k': 2\n", 0, 2, 1, "duplicate key 'k'" },
                { "unknown alias", "a: 1\nb: *nope\n", 0, 2, 4,
                  "alias '*nope' refers to no earlier anchor" },
                { "self alias", "a: &r [*r]\n", 0, 1, 8, "alias '*r' refers to no earlier anchor" },
                { "list key", "? [a, b]\n: 1\n", 0, 1, 3, "mapping keys must be plain strings, not a list" },
                { "map key", "x: 1\n? {a: 1}\n: 2\n", 0, 2, 3,
                  "mapping keys must be plain strings, not a mapping" },
                { "merge scalar", "m:\n  <<: 1\n", 0, 2, 7,
                  "merge key '<<' needs a mapping or a list of mappings, not a scalar" },
                { "merge null", "m:\n  <<:\n", 0, 2, 6,
                  "merge key '<<' needs a mapping or a list of mappings, not null" },
                { "merge list item", "a: &a {x: 1}\nb:\n  <<: [*a, 2]\n", 0, 3, 12,
                  "merge key '<<' needs a mapping or a list of mappings, not a scalar" },
                { "merge nested list", "b:\n  <<: [[{x: 1}]]\n", 0, 2, 8,
                  "merge key '<<' needs a mapping or a list of mappings, not a list" },
                { "two documents", "a: 1\n---\nb: 2\n", 0, 2, 1,
                  "only one YAML document is allowed per file" },
                { "two documents ended", "a: 1\n...\n---\nb: 2\n", 0, 3, 1,
                  "only one YAML document is allowed per file" },
                { "empty", "", 0, 1, 1, "the file is empty" },
                { "comment only", "# nothing\n\n", 0, 1, 1, "the file is empty" },
                { "null document", "--- ~\n", 0, 1, 1, "the file is empty" },
                { "bare markers", "---\n...\n", 0, 1, 1, "the file is empty" },
                { "unclosed flow", "a: 1\nb: [1, 2\nc: 3\n", 0, 3, 2,
                  "YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence" },
                { "bad indent", "a: 1\n  b: 2\n", 0, 2, 4,
                  "YAML syntax error: mapping values are not allowed in this context" },
                { "bad token", "a: 1\nb: @x\n", 0, 2, 4,
                  "YAML syntax error: found character that cannot start any token while scanning for the "
                  "next token" },
                { "unterminated quote", "key: \"open\n", 0, 2, 1,
                  "YAML syntax error: found unexpected end of stream while scanning a quoted scalar" },
                { "escaped NUL", "a: ok\nb: \"x\\0y\"\n", 0, 2, 4, "string contains a NUL byte" },
                { "escaped NUL key", "\"\\0\": 1\n", 0, 1, 1, "string contains a NUL byte" },
                { "raw NUL", "a: 1\nb: x\0y\n", 12, 2, 5,
                  "YAML syntax error: control characters are not allowed" },
                { "control char", "a: 1\nbb: \"\x01\"\n", 0, 2, 6,
                  "YAML syntax error: control characters are not allowed" },
                { "control after UTF-8", "a: 1\r\nb: \"\xc3\xa9\xc3\xa9\x02\"\n", 0, 2, 7,
                  "YAML syntax error: control characters are not allowed" },
                { "bad UTF-8", "a: 1\n\nb: \xff\n", 0, 3, 4,
                  "YAML syntax error: invalid leading UTF-8 octet" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                check_error(&cases[i], NULL);
}

static void test_depth_limit(void **state) {
        static const struct error_case custom = {
                "depth 3", "a:\n  b:\n    c:\n      d: 1\n", 0, 4, 7, "nesting deeper than 3 levels",
        };
        const struct ydoc_limits lim = { .max_depth = 3, .max_nodes = 100 };
        char deep[2 * 70 + 1] = "", ok[2 * 64 + 1] = "";

        check_error(&custom, &lim);

        /* The default allows 64 levels and refuses the 65th. */
        memset(ok, '[', 64);
        memset(ok + 64, ']', 64);
        _cleanup_(ydoc_freep) struct ydoc *doc = parse_ok(ok);
        assert_node(doc->root, YNODE_SEQ, 1, 1);
        memset(deep, '[', 70);
        memset(deep + 70, ']', 70);
        const struct error_case dflt = { "depth 64", deep, 0, 1, 65, "nesting deeper than 64 levels" };
        check_error(&dflt, NULL);
}

static void test_node_limit(void **state) {
        static const struct error_case c = {
                "nodes", "[1, 2, 3, 4]",
                0,       1,
                8,       "document has more than 3 nodes (aliases count once per use)",
        };
        const struct ydoc_limits lim = { .max_depth = 8, .max_nodes = 3 };
        check_error(&c, &lim);
}

/* Nine levels of nine aliases each: 9^9 nodes if expanded. */
static char *billion_laughs(void) {
        struct strbuf b = STRBUF_INIT(4096);
        assert_int_equal(strbuf_puts(&b, "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"), 0);
        for (char c = 'b'; c <= 'i'; c++)
                assert_int_equal(
                        strbuf_printf(
                                &b, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", c, c, c - 1, c - 1,
                                c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1),
                        0);
        return strbuf_steal(&b);
}

static double seconds_since(const struct timespec *t0) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void test_billion_laughs(void **state) {
        _cleanup_free_ char *yaml = billion_laughs();
        const struct ydoc_limits lim = { .max_depth = 16, .max_nodes = 10000 };
        /* Lines 1-4 make 11 + 92 + 821 + 7382 = 8306 nodes (each with its key);
         * on line 5 the first copy of d's 7381 nodes overflows. */
        const struct error_case c = {
                "laughs", yaml, 0, 5, 8, "alias expansion makes the document larger than 10000 nodes"
        };
        struct timespec t0;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        check_error(&c, &lim);
        assert_true(seconds_since(&t0) < 1.0);

        /* The default budget of a million nodes also stops it, still quickly. */
        struct ydoc *doc = NULL;
        struct mh_error e = { 0 };
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(ydoc_parse(PATH, yaml, strlen(yaml), NULL, &doc, &e), -EINVAL);
        assert_string_equal(e.msg, "alias expansion makes the document larger than 1000000 nodes");
        assert_null(doc);
        assert_true(seconds_since(&t0) < 5.0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_positions),
                cmocka_unit_test(test_scalar_root_and_empty_collections),
                cmocka_unit_test(test_length_bounds_input),
                cmocka_unit_test(test_quoted),
                cmocka_unit_test(test_null_forms),
                cmocka_unit_test(test_ynode_get),
                cmocka_unit_test(test_aliases_copied),
                cmocka_unit_test(test_merge_keys),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_depth_limit),
                cmocka_unit_test(test_node_limit),
                cmocka_unit_test(test_billion_laughs),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
