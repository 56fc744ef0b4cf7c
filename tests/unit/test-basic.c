#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/arena.h"
#include "basic/error.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/sha256.h"
#include "basic/stats.h"
#include "basic/strbuf.h"
#include "basic/strv.h"
#include "basic/suggest.h"
#include "basic/tar-write.h"
#include "basic/text-kind.h"
#include "common/run-command.h"

/* ---- sha256 (FIPS 180-2 appendix B vectors) ---- */

static void test_sha256_empty(void **state) {
        char hex[SHA256_HEX_SIZE];
        sha256_hex("", 0, hex);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_sha256_vectors(void **state) {
        static const struct {
                const char *in, *hex;
        } cases[] = {
                { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
                { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
                { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
                  "mnopqrsmnopqrstnopqrstu",
                  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char hex[SHA256_HEX_SIZE];
                sha256_hex(cases[i].in, strlen(cases[i].in), hex);
                assert_string_equal(hex, cases[i].hex);
        }
}

static void test_sha256_million_a_chunked(void **state) {
        /* Chunk sizes straddle the 64-byte block edge in every way. */
        static const size_t chunks[] = { 1, 63, 64, 65, 127, 3, 1000, 55, 56, 57, 4096 };
        static char a[4096];
        struct sha256_ctx c;
        uint8_t d[SHA256_DIGEST_SIZE];
        char hex[SHA256_HEX_SIZE];
        size_t left = 1000000;

        memset(a, 'a', sizeof(a));
        sha256_init(&c);
        for (size_t i = 0; left > 0; i++) {
                size_t n = MIN(chunks[i % ELEMENTSOF(chunks)], left);
                sha256_update(&c, a, n);
                left -= n;
        }
        sha256_final(&c, d);
        for (size_t i = 0; i < sizeof(d); i++)
                snprintf(hex + 2 * i, 3, "%02x", d[i]);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* ---- strbuf ---- */

static void test_strbuf_limit(void **state) {
        struct strbuf b = STRBUF_INIT(8);

        assert_int_equal(strbuf_puts(&b, "hello"), 0);
        assert_int_equal(strbuf_puts(&b, "world"), -E2BIG);
        assert_int_equal(strbuf_printf(&b, "%d", 1234), -E2BIG);
        assert_string_equal(b.data, "hello");
        assert_int_equal(b.len, 5);
        assert_int_equal(strbuf_puts(&b, "abc"), 0); /* exactly at the limit */
        assert_int_equal(strbuf_putc(&b, 'x'), -E2BIG);
        assert_int_equal(strbuf_append(&b, "x", SIZE_MAX), -E2BIG);
        assert_string_equal(b.data, "helloabc");
        assert_int_equal(b.len, 8);
        strbuf_done(&b);
        assert_null(b.data);
}

static void test_strbuf_huge_append(void **state) {
        /* len + SIZE_MAX + 1 wraps back to len: must be refused, not memcpy'd. */
        struct strbuf unlimited = STRBUF_INIT(0), max = STRBUF_INIT(SIZE_MAX);

        assert_int_equal(strbuf_append(&unlimited, "x", SIZE_MAX), -E2BIG);
        assert_int_equal(strbuf_puts(&unlimited, "ab"), 0);
        assert_int_equal(strbuf_append(&unlimited, "x", SIZE_MAX), -E2BIG);
        assert_int_equal(strbuf_append(&unlimited, "x", SIZE_MAX - 2), -E2BIG);
        assert_string_equal(unlimited.data, "ab");
        /* A limit of SIZE_MAX is as good as none. */
        assert_int_equal(strbuf_puts(&max, "ok"), 0);
        assert_string_equal(max.data, "ok");
        strbuf_done(&unlimited);
        strbuf_done(&max);
}

static void test_strbuf_printf_growth(void **state) {
        struct strbuf b = STRBUF_INIT(0);
        size_t expect = 0;

        for (int i = 0; i < 2000; i++) {
                assert_int_equal(strbuf_printf(&b, "<%d:%s>", i, i % 2 ? "odd" : "even"), 0);
                expect += (size_t)snprintf(NULL, 0, "<%d:%s>", i, i % 2 ? "odd" : "even");
        }
        assert_int_equal(b.len, expect);
        assert_int_equal(strlen(b.data), expect);
        assert_true(b.cap > b.len);
        assert_memory_equal(b.data, "<0:even><1:odd>", 15);
        assert_string_equal(b.data + b.len - 10, "<1999:odd>");
        assert_int_equal(strbuf_printf(&b, "%s", ""), 0);
        assert_int_equal(b.len, expect);
        strbuf_done(&b);
}

static void test_strbuf_steal(void **state) {
        struct strbuf b = STRBUF_INIT(0);

        char *empty = strbuf_steal(&b);
        assert_non_null(empty);
        assert_string_equal(empty, "");
        free(empty);

        assert_int_equal(strbuf_append(&b, "abc", 2), 0);
        assert_int_equal(strbuf_putc(&b, '!'), 0);
        char *s = strbuf_steal(&b);
        assert_string_equal(s, "ab!");
        assert_null(b.data);
        assert_int_equal(b.len, 0);
        assert_int_equal(b.cap, 0);
        free(s);

        /* Usable again after a steal. */
        assert_int_equal(strbuf_puts(&b, "again"), 0);
        assert_string_equal(b.data, "again");
        strbuf_done(&b);
}

/* ---- arena ---- */

static void test_arena_alignment(void **state) {
        struct arena a;

        arena_init(&a, 0);
        for (size_t size = 0; size < 200; size += 7) {
                unsigned char *p = arena_alloc(&a, size);
                assert_non_null(p);
                assert_int_equal((uintptr_t)p % alignof(max_align_t), 0);
                for (size_t i = 0; i < size; i++)
                        assert_int_equal(p[i], 0);
                memset(p, 0xff, size);
        }
        /* Larger than a chunk: gets its own. */
        unsigned char *big = arena_alloc(&a, 200000);
        assert_non_null(big);
        assert_int_equal((uintptr_t)big % alignof(max_align_t), 0);
        assert_int_equal(big[199999], 0);
        arena_free(&a);
        assert_int_equal(a.used, 0);
        assert_null(a.head);
}

static void test_arena_limit(void **state) {
        const size_t al = alignof(max_align_t);
        struct arena a;

        arena_init(&a, 256);
        assert_non_null(arena_alloc(&a, 200));
        assert_int_equal(a.used, (200 + al - 1) / al * al);
        assert_null(arena_alloc(&a, 64));
        assert_non_null(arena_alloc(&a, 256 - a.used));
        assert_int_equal(a.used, 256);
        assert_null(arena_alloc(&a, 1));
        assert_null(arena_alloc(&a, SIZE_MAX));
        assert_null(arena_alloc_array(&a, SIZE_MAX / 2, 4));
        arena_free(&a);

        arena_init(&a, 0);
        assert_null(arena_alloc(&a, SIZE_MAX));
        assert_null(arena_alloc_array(&a, SIZE_MAX / 2, 4));
        arena_free(&a);
}

static void test_arena_strndup(void **state) {
        struct arena a;

        arena_init(&a, 0);
        assert_string_equal(arena_strndup(&a, "hello world", 5), "hello");
        assert_string_equal(arena_strndup(&a, "", 0), "");
        assert_string_equal(arena_strndup(&a, "ab", 10), "ab"); /* stops at the NUL */
        assert_string_equal(arena_strndup(&a, "ab", SIZE_MAX), "ab");
        assert_string_equal(arena_strdup(&a, "xyz"), "xyz");
        assert_null(arena_strdup(&a, NULL));
        int v[3] = { 1, 2, 3 };
        int *c = arena_memdup(&a, v, sizeof(v));
        assert_non_null(c);
        assert_ptr_not_equal(c, v);
        assert_memory_equal(c, v, sizeof(v));
        arena_free(&a);

        arena_init(&a, 16);
        assert_null(arena_strndup(&a, "0123456789abcdefg", 17));
        assert_string_equal(arena_strndup(&a, "0123456789abcdefg", 15), "0123456789abcde");
        arena_free(&a);
}

/* ---- suggest ---- */

static void test_suggest_closest(void **state) {
        static const char *const words[] = { "hypothesis", "steps", NULL, "rollback", "target", "title" };
        static const struct {
                const char *word, *want;
        } cases[] = {
                { "hypotesis", "hypothesis" },
                { "hypothesis", "hypothesis" },
                { "stpes", "steps" },
                { "rolback", "rollback" },
                { "titel", "title" },
                { "qqqqqqq", NULL },
                { "banana", NULL },
                { "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *got = suggest_closest(cases[i].word, words, ELEMENTSOF(words));
                if (!streq_ptr(got, cases[i].want))
                        fail_msg(
                                "'%s': got %s, want %s", cases[i].word, got ? got : "NULL",
                                cases[i].want ? cases[i].want : "NULL");
        }
        assert_null(suggest_closest("steps", words, 0));
}

/* ---- mh_error ---- */

static void test_error_set(void **state) {
        struct mh_error e = { 0 };

        assert_int_equal(mh_error_at(&e, "old.yaml", 9, 9, "old"), -EINVAL);
        assert_int_equal(
                mh_error_set(&e, -ENOENT, MH_EXIT_CONFIG_ERROR, "config", "no %s here", "file"), -ENOENT);
        assert_int_equal(e.code, -ENOENT);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_string_equal(e.id, "config");
        assert_string_equal(e.msg, "no file here");
        assert_string_equal(e.path, ""); /* a fresh error forgets the old location */
        assert_int_equal(e.line, 0);
        assert_false(mh_error_has_location(&e));

        /* A non-negative code is a programming slip; it must still read as a failure. */
        assert_int_equal(mh_error_set(&e, 0, MH_EXIT_GENERAL_FAILURE, "x", "zero"), -EINVAL);
        assert_int_equal(mh_error_set(&e, EPERM, MH_EXIT_GENERAL_FAILURE, "x", "positive"), -EINVAL);
        assert_int_equal(e.code, -EINVAL);
}

static void test_error_at_prefix_reclass(void **state) {
        struct mh_error e = { 0 };

        assert_int_equal(mh_error_at(&e, "drill.yaml", 3, 7, "unknown key '%s'", "hypotesis"), -EINVAL);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_string_equal(e.id, "validation");
        assert_string_equal(e.path, "drill.yaml");
        assert_int_equal(e.line, 3);
        assert_int_equal(e.col, 7);
        assert_true(mh_error_has_location(&e));

        mh_error_prefix(&e, "step %d: ", 3);
        assert_string_equal(e.msg, "step 3: unknown key 'hypotesis'");
        mh_error_prefix(&e, "drill '%s' ", "x");
        assert_string_equal(e.msg, "drill 'x' step 3: unknown key 'hypotesis'");

        mh_error_reclass(&e, MH_EXIT_SAFETY_REFUSAL, "safety");
        assert_int_equal(e.exit, MH_EXIT_SAFETY_REFUSAL);
        assert_string_equal(e.id, "safety");
        assert_int_equal(e.code, -EINVAL);
        assert_string_equal(e.msg, "drill 'x' step 3: unknown key 'hypotesis'");
        assert_string_equal(e.path, "drill.yaml");
}

static void test_error_null(void **state) {
        assert_int_equal(mh_error_set(NULL, -ENOENT, MH_EXIT_GENERAL_FAILURE, "x", "%s", "gone"), -ENOENT);
        assert_int_equal(mh_error_at(NULL, "p", 1, 2, "bad"), -EINVAL);
        mh_error_prefix(NULL, "ctx: ");
        mh_error_reclass(NULL, MH_EXIT_USAGE_ERROR, "usage");
        assert_false(mh_error_has_location(NULL));

        struct mh_error e = { 0 };
        assert_int_equal(mh_error_at(&e, NULL, 1, 1, "no path"), -EINVAL);
        assert_string_equal(e.path, "");
        assert_false(mh_error_has_location(&e));
        mh_error_reclass(&e, MH_EXIT_USAGE_ERROR, NULL);
        assert_string_equal(e.id, "");
}

static void test_error_truncation(void **state) {
        char long_text[3 * MH_ERROR_MSG_MAX];
        struct mh_error e;

        memset(long_text, 'm', sizeof(long_text) - 1);
        long_text[sizeof(long_text) - 1] = '\0';
        memset(&e, 0x7f, sizeof(e)); /* no stray NUL to hide a missing terminator */

        mh_error_at(&e, long_text, 1, 1, "%s", long_text);
        assert_int_equal(strlen(e.msg), MH_ERROR_MSG_MAX - 1);
        assert_int_equal(strlen(e.path), MH_ERROR_PATH_MAX - 1);

        mh_error_reclass(&e, MH_EXIT_GENERAL_FAILURE, long_text);
        assert_int_equal(strlen(e.id), MH_ERROR_ID_MAX - 1);

        /* The prefix wins over the tail of the message. */
        mh_error_prefix(&e, "ctx: ");
        assert_int_equal(strlen(e.msg), MH_ERROR_MSG_MAX - 1);
        assert_memory_equal(e.msg, "ctx: mmm", 8);

        mh_error_prefix(&e, "%s", long_text);
        assert_int_equal(strlen(e.msg), MH_ERROR_MSG_MAX - 1);
        assert_int_equal(e.msg[0], 'm');
}

/* ---- read_file_bounded ---- */

struct tmpfiles {
        char file[64];
        char dir[64];
};

static int tmp_setup(void **state) {
        struct tmpfiles *t = calloc(1, sizeof(*t));
        if (!t)
                return -1;
        snprintf(t->file, sizeof(t->file), "/tmp/mayhem-test-basic-XXXXXX");
        snprintf(t->dir, sizeof(t->dir), "/tmp/mayhem-test-basic-d-XXXXXX");
        int fd = mkstemp(t->file);
        if (fd < 0 || !mkdtemp(t->dir)) {
                free(t);
                return -1;
        }
        close(fd);
        *state = t;
        return 0;
}

static int tmp_teardown(void **state) {
        struct tmpfiles *t = *state;
        unlink(t->file);
        rmdir(t->dir);
        free(t);
        return 0;
}

static void write_file(const char *path, const char *data, size_t len) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, len, f), len);
        assert_int_equal(fclose(f), 0);
}

static void test_read_file_missing(void **state) {
        struct tmpfiles *t = *state;
        char path[128], *data = (char *)0x1;
        size_t len = 77;
        struct mh_error e = { 0 };

        snprintf(path, sizeof(path), "%s/no-such-file.yaml", t->dir);
        assert_int_equal(read_file_bounded(path, 1024, &data, &len, &e), -ENOENT);
        assert_int_equal(e.code, -ENOENT);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_non_null(strstr(e.msg, path));
        assert_ptr_equal(data, (char *)0x1);
        assert_int_equal(len, 77);
        assert_int_equal(read_file_bounded(path, 1024, &data, &len, NULL), -ENOENT);
}

static void test_read_file_directory(void **state) {
        struct tmpfiles *t = *state;
        char *data = NULL;
        size_t len = 0;
        struct mh_error e = { 0 };

        assert_int_equal(read_file_bounded(t->dir, 1024, &data, &len, &e), -EISDIR);
        assert_non_null(strstr(e.msg, t->dir));
        assert_null(data);
}

static void test_read_file_limit(void **state) {
        struct tmpfiles *t = *state;
        static char content[40000]; /* several read() chunks */
        char *data = NULL;
        size_t len = 0;
        struct mh_error e = { 0 };

        for (size_t i = 0; i < sizeof(content); i++)
                content[i] = (char)('a' + i % 26);
        write_file(t->file, content, sizeof(content));

        assert_int_equal(read_file_bounded(t->file, sizeof(content) - 1, &data, &len, &e), -EFBIG);
        assert_non_null(strstr(e.msg, t->file));
        assert_null(data);

        assert_int_equal(read_file_bounded(t->file, sizeof(content), &data, &len, &e), 0);
        assert_int_equal(len, sizeof(content));
        assert_memory_equal(data, content, sizeof(content));
        assert_int_equal(data[len], '\0');
        free(data);
}

static void test_read_file_empty(void **state) {
        struct tmpfiles *t = *state;
        char *data = NULL;
        size_t len = 99;

        assert_int_equal(read_file_bounded(t->file, 16, &data, &len, NULL), 0);
        assert_non_null(data);
        assert_int_equal(len, 0);
        assert_string_equal(data, "");
        free(data);
}

static void test_strv_join(void **state) {
        static const char *const v[] = { "a", "bb", "ccc", "dddd" };
        char buf[64], tiny[6];
        strv_join(buf, sizeof(buf), v, 4, 0);
        assert_string_equal(buf, "a, bb, ccc, dddd");
        strv_join(buf, sizeof(buf), v, 4, 2);
        assert_string_equal(buf, "a, bb, and 2 more");
        strv_join(buf, sizeof(buf), v, 0, 0);
        assert_string_equal(buf, "");
        strv_join(tiny, sizeof(tiny), v, 4, 0);
        assert_string_equal(tiny, "a, bb");
}

/* The text kinds, at their edges: what is accepted and what each refusal says. */
static void test_text_kinds(void **state) {
        static const struct {
                int (*check)(const char *, char *, size_t);
                const char *s, *why; /* why NULL: accepted */
        } rows[] = {
                { dns_name_check, "a", NULL },
                { dns_name_check, "Example-1.COM.", NULL },
                { dns_name_check, "xn--bcher-kva.example", NULL },
                { dns_name_check, "", "is empty" },
                { dns_name_check, ".", "has an empty label" },
                { dns_name_check, "a..b", "has an empty label" },
                { dns_name_check, "a.com..", "has an empty label" },
                { dns_name_check, "a-.com", "has a label that starts or ends with a hyphen" },
                { dns_name_check, "a_b.com", "holds '_' (a label is letters, digits and hyphens)" },
                { dns_name_check, "a\tb", "holds byte 0x09 (a label is letters, digits and hyphens)" },
                { path_check_absolute, "/", NULL },
                { path_check_absolute, "/a/..b/c../.../.", NULL },
                { path_check_absolute, "", "is not an absolute path (it must start with '/')" },
                { path_check_absolute, "/..", "holds a '..' component" },
                { path_check_absolute, "/a/../", "holds a '..' component" },
                { path_check_absolute, "/a\nb", "holds byte 0x0a" },
                { url_check_http, "http://h", NULL },
                { url_check_http, "https://u:p@h:1/a:99999", NULL },
                { url_check_http, "http://[fe80::1%25eth0]:65535/", NULL },
                { url_check_http, "ftp://h/", "is not an http:// or https:// URL" },
                { url_check_http, "http:///x", "has no host" },
                { url_check_http, "http://u@:80/", "has no host" },
                { url_check_http, "http://h:8o/", "has a port that is not a number" },
                { url_check_http, "http://h:000000000000000000001/", NULL },
                { url_check_http, "http://h:99999999999999999999/",
                  "has port 9999999999999999..., outside 1..65535" },
                { url_check_http, "http://[::1/", "has an IPv6 address without its closing ']'" },
                { url_check_http, "http://[::1]x/", "has text after its IPv6 address" },
        };
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                char why[128] = "";
                int r = rows[i].check(rows[i].s, why, sizeof(why));
                if (rows[i].why ? r != -EINVAL || strcmp(why, rows[i].why) != 0 : r != 0)
                        fail_msg(
                                "'%s': %d '%s', want '%s'", rows[i].s, r, why,
                                rows[i].why ? rows[i].why : "accepted");
        }
        char long_name[300];
        memset(long_name, 'a', sizeof(long_name));
        for (size_t i = 63; i < 253; i += 64)
                long_name[i] = '.';
        long_name[253] = '\0';
        assert_int_equal(dns_name_check(long_name, NULL, 0), 0); /* 253: the most */
        long_name[253] = '.';
        long_name[254] = '\0';
        assert_int_equal(dns_name_check(long_name, NULL, 0), 0); /* and the root's dot */
        long_name[253] = 'a';
        assert_int_equal(dns_name_check(long_name, NULL, 0), -EINVAL);
}

/* Nearest rank: the p95 of 20 values is the 19th, of 8 the 8th; medians of
 * odd and even counts. */
static void test_order_statistics(void **state) {
        (void)state;
        double v[20], w[] = { 4, 411, 404, 408, 404, 407, 408, 85 };
        for (int i = 0; i < 20; i++)
                v[i] = 20 - i;
        doubles_sort(v, 20);
        assert_true(v[0] == 1 && v[19] == 20);
        assert_true(sorted_percentile(v, 20, 95) == 19);
        assert_true(sorted_percentile(v, 20, 100) == 20);
        assert_true(sorted_percentile(v, 20, 1) == 1);
        assert_true(sorted_median(v, 20) == 10.5);
        assert_true(sorted_median(v, 19) == 10);
        doubles_sort(w, 8);
        assert_true(sorted_percentile(w, 8, 95) == 411 && sorted_percentile(w, 8, 50) == 404);
        assert_true(sorted_median(w, 8) == 405.5);
}

/* "--key value" pairs: a value, a number, an absent key, a key in a value's place. */
static void test_argv_options(void **state) {
        (void)state;
        char *argv[] = { "--lease", "l-1", "--pid", "42", "--start", "x1", "--fault", NULL };
        int64_t n = 0;
        assert_string_equal(argv_option(7, argv, "--lease"), "l-1");
        assert_null(argv_option(7, argv, "--fault")); /* no value after it */
        assert_null(argv_option(7, argv, "l-1"));     /* values are not keys */
        assert_int_equal(argv_option_int64(7, argv, "--pid", &n), 0);
        assert_int_equal(n, 42);
        assert_int_equal(argv_option_int64(7, argv, "--start", &n), -EINVAL);
        assert_int_equal(argv_option_int64(7, argv, "--parent", &n), -ENOENT);
}

/* ---- tar-write: GNU tar is the reader ---- */

static void test_tar_read_by_tar(void **state) {
        struct tmpfiles *t = *state;
        struct strbuf tar = STRBUF_INIT(1u << 20);
        char big[1000];
        memset(big, 'x', sizeof(big));
        assert_int_equal(tar_append_file(&tar, "Dockerfile", 0644, "FROM scratch\n", 13), 0);
        assert_int_equal(tar_append_file(&tar, "bin/target", 0755, big, sizeof(big)), 0);
        assert_int_equal(tar_append_file(&tar, "empty", 0600, "", 0), 0);
        assert_int_equal(tar_finish(&tar), 0);
        assert_int_equal(tar.len, 512 * (1 + 1 + 1 + 2 + 1 + 2));
        write_file(t->file, tar.data, tar.len);
        struct cmd_result r = run_command(NULL, (const char *const[]){ "tar", "-tvf", t->file, NULL });
        if (r.exit != 0 || !strstr(r.out, "-rw-r--r-- root/root        13 1970-01-01 00:00 Dockerfile\n") ||
            !strstr(r.out, "-rwxr-xr-x root/root      1000 1970-01-01 00:00 bin/target\n") ||
            !strstr(r.out, "-rw------- root/root         0 1970-01-01 00:00 empty\n"))
                fail_msg("tar -tvf: exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        strbuf_done(&tar);
}

static void test_tar_refuses_bad_names(void **state) {
        struct strbuf tar = STRBUF_INIT(1000);
        char long_name[TAR_NAME_MAX + 2];
        memset(long_name, 'n', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0';
        assert_int_equal(tar_append_file(&tar, "", 0644, "", 0), -EINVAL);
        assert_int_equal(tar_append_file(&tar, "/etc/passwd", 0644, "", 0), -EINVAL);
        assert_int_equal(tar_append_file(&tar, "a/../../b", 0644, "", 0), -EINVAL);
        assert_int_equal(tar_append_file(&tar, long_name, 0644, "", 0), -EINVAL);
        assert_int_equal(tar.len, 0);
        assert_int_equal(tar_append_file(&tar, "f", 0644, "x", 1), -E2BIG); /* 1000 < a header and a block */
        strbuf_done(&tar);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sha256_empty),
                cmocka_unit_test(test_sha256_vectors),
                cmocka_unit_test(test_sha256_million_a_chunked),
                cmocka_unit_test(test_strbuf_limit),
                cmocka_unit_test(test_strbuf_huge_append),
                cmocka_unit_test(test_strbuf_printf_growth),
                cmocka_unit_test(test_strbuf_steal),
                cmocka_unit_test(test_arena_alignment),
                cmocka_unit_test(test_arena_limit),
                cmocka_unit_test(test_arena_strndup),
                cmocka_unit_test(test_suggest_closest),
                cmocka_unit_test(test_error_set),
                cmocka_unit_test(test_error_at_prefix_reclass),
                cmocka_unit_test(test_error_null),
                cmocka_unit_test(test_error_truncation),
                cmocka_unit_test(test_strv_join),
                cmocka_unit_test_setup_teardown(test_read_file_missing, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_read_file_directory, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_read_file_limit, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_read_file_empty, tmp_setup, tmp_teardown),
                cmocka_unit_test(test_text_kinds),
                cmocka_unit_test(test_order_statistics),
                cmocka_unit_test(test_argv_options),
                cmocka_unit_test_setup_teardown(test_tar_read_by_tar, tmp_setup, tmp_teardown),
                cmocka_unit_test(test_tar_refuses_bad_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
