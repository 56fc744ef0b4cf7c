#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/error.h"
#include "shaper/shaper-internal.h"
#include "shaper/shaper.h"

/* The shaper's parts that need no socket: the schedule and its batch release
 * rule, the due-time plan (delay, jitter, reorder, GCRA), the lateness
 * histogram and the config checks. tests/priv/test-priv-shaper.c proves the
 * effects on real traffic. */

#define MS    1000000ull
#define SEED  0x5eedull
#define DRAWS 10000u

/* ---- schedule ---- */

static void take_all_due(
        struct shaper_sched *s, uint64_t now, struct shaper_held *out, struct shaper_release *rel) {
        shaper_sched_take(s, now, false, out, 64, rel);
}

static void test_sched_order(void **state) {
        (void)state;
        struct shaper_sched s;
        struct shaper_held out[64];
        struct shaper_release rel;
        uint64_t due;

        assert_int_equal(shaper_sched_init(&s, 0, 0), 0);
        assert_false(shaper_sched_next_due(&s, &due));
        /* ids 1..5 with due times out of order; 3 and 4 tie. */
        assert_int_equal(shaper_sched_push(&s, 1, 100, 50), 0);
        assert_int_equal(shaper_sched_push(&s, 2, 100, 10), 0);
        assert_int_equal(shaper_sched_push(&s, 3, 100, 30), 0);
        assert_int_equal(shaper_sched_push(&s, 4, 100, 30), 0);
        assert_int_equal(shaper_sched_push(&s, 5, 100, 40), 0);
        assert_true(shaper_sched_next_due(&s, &due));
        assert_int_equal(due, 10);

        /* Nothing due before 10. */
        take_all_due(&s, 9, out, &rel);
        assert_int_equal(rel.n, 0);

        /* At 35: 2 (due 10), then 3 and 4 (due 30, arrival order). 1 is still
         * held and older than all three, so none may go by batch. */
        take_all_due(&s, 35, out, &rel);
        assert_int_equal(rel.n, 3);
        assert_int_equal(rel.batch_n, 0);
        assert_int_equal(out[0].id, 2);
        assert_int_equal(out[1].id, 3);
        assert_int_equal(out[2].id, 4);

        /* At 50: 5 then 1; with 1 gone every seq up to 5 is closed, so both go
         * by one batch verdict for id 5. */
        take_all_due(&s, 50, out, &rel);
        assert_int_equal(rel.n, 2);
        assert_int_equal(rel.batch_n, 2);
        assert_int_equal(rel.batch_id, 5);
        assert_int_equal(s.n, 0);
        assert_int_equal(s.bytes, 0);
        shaper_sched_done(&s);
}

static void test_sched_fifo_batch(void **state) {
        (void)state;
        struct shaper_sched s;
        struct shaper_held out[64];
        struct shaper_release rel;

        assert_int_equal(shaper_sched_init(&s, 0, 0), 0);
        for (uint32_t i = 0; i < 10; i++)
                assert_int_equal(shaper_sched_push(&s, 100 + i, 60, 1000 + i), 0);
        /* The first four in order: one batch verdict up to id 103. */
        take_all_due(&s, 1003, out, &rel);
        assert_int_equal(rel.n, 4);
        assert_int_equal(rel.batch_n, 4);
        assert_int_equal(rel.batch_id, 103);
        /* all: the rest at once, whatever their due time. */
        shaper_sched_take(&s, 0, true, out, 64, &rel);
        assert_int_equal(rel.n, 6);
        assert_int_equal(rel.batch_n, 6);
        assert_int_equal(rel.batch_id, 109);
        shaper_sched_done(&s);
}

static void test_sched_mixed_release(void **state) {
        (void)state;
        struct shaper_sched s;
        struct shaper_held out[64];
        struct shaper_release rel;

        assert_int_equal(shaper_sched_init(&s, 0, 0), 0);
        /* 1 due 10, 2 due 100 (held), 3 due 5 (overtakes 2). */
        assert_int_equal(shaper_sched_push(&s, 1, 1, 10), 0);
        assert_int_equal(shaper_sched_push(&s, 2, 1, 100), 0);
        assert_int_equal(shaper_sched_push(&s, 3, 1, 5), 0);
        take_all_due(&s, 20, out, &rel);
        assert_int_equal(rel.n, 2);
        /* 1 is older than the held 2: batch up to id 1; 3 needs its own. */
        assert_int_equal(rel.batch_n, 1);
        assert_int_equal(rel.batch_id, 1);
        assert_int_equal(out[0].id, 1);
        assert_int_equal(out[1].id, 3);
        take_all_due(&s, 100, out, &rel);
        assert_int_equal(rel.n, 1);
        assert_int_equal(rel.batch_n, 1);
        assert_int_equal(rel.batch_id, 2);
        shaper_sched_done(&s);
}

static void test_sched_limits(void **state) {
        (void)state;
        struct shaper_sched s;
        struct shaper_held out[8];
        struct shaper_release rel;

        assert_int_equal(shaper_sched_init(&s, 3, 0), 0);
        for (uint32_t i = 0; i < 3; i++)
                assert_int_equal(shaper_sched_push(&s, i, 10, 100), 0);
        assert_int_equal(shaper_sched_push(&s, 9, 10, 100), -ENOBUFS);
        shaper_sched_take(&s, 0, true, out, 8, &rel);
        assert_int_equal(rel.n, 3);

        /* Bytes: 250 fit, the next 100 do not. */
        shaper_sched_set_limits(&s, 0, 300);
        assert_int_equal(s.limit, SHAPER_LIMIT_MAX);
        assert_int_equal(shaper_sched_push(&s, 1, 250, 100), 0);
        assert_int_equal(shaper_sched_push(&s, 2, 100, 100), -ENOBUFS);
        assert_int_equal(shaper_sched_push(&s, 3, 50, 100), 0);
        assert_int_equal(s.bytes, 300);

        /* take stops at max. */
        shaper_sched_set_limits(&s, 0, 0);
        for (uint32_t i = 0; i < 10; i++)
                assert_int_equal(shaper_sched_push(&s, 10 + i, 1, 1), 0);
        shaper_sched_take(&s, 1000, false, out, 8, &rel);
        assert_int_equal(rel.n, 8);
        shaper_sched_done(&s);
}

/* The span rule: one packet held long keeps the window open; the others
 * cycle through behind it until SHAPER_SPAN seqs separate them. */
static void test_sched_span(void **state) {
        (void)state;
        struct shaper_sched s;
        struct shaper_held out[1];
        struct shaper_release rel;

        assert_int_equal(shaper_sched_init(&s, 0, 0), 0);
        assert_int_equal(shaper_sched_push(&s, 0, 1, UINT64_MAX), 0);
        uint64_t pushed = 1;
        for (uint64_t i = 1; i < SHAPER_SPAN; i++) {
                assert_int_equal(shaper_sched_push(&s, (uint32_t)i, 1, 1), 0);
                shaper_sched_take(&s, 1, false, out, 1, &rel);
                assert_int_equal(rel.n, 1);
                assert_int_equal(rel.batch_n, 0);
                pushed++;
        }
        assert_int_equal(pushed, SHAPER_SPAN);
        assert_int_equal(shaper_sched_push(&s, 1, 1, 1), -ENOBUFS);
        shaper_sched_done(&s);
}

/* ---- plan ---- */

static void test_plan_delay_exact(void **state) {
        (void)state;
        struct shaper_plan p;
        struct shaper_config c = { .delay_ms = 50 };
        bool reordered = true;

        shaper_plan_init(&p, SEED);
        for (uint64_t now = 0; now < 100 * MS; now += 7 * MS) {
                assert_int_equal(shaper_plan_due(&p, &c, now, 1500, &reordered), now + 50 * MS);
                assert_false(reordered);
        }
        c.delay_ms = 0;
        assert_int_equal(shaper_plan_due(&p, &c, 123, 1500, NULL), 123);
}

static void draws(const struct shaper_config *c, double *mean, double *sd, double *min, double *max) {
        struct shaper_plan p;
        double sum = 0, sq = 0;
        *min = INFINITY;
        *max = -INFINITY;
        shaper_plan_init(&p, SEED);
        for (unsigned i = 0; i < DRAWS; i++) {
                double d = (double)(shaper_plan_due(&p, c, 1000 * MS, 100, NULL) - 1000 * MS) / MS;
                sum += d;
                sq += d * d;
                *min = fmin(*min, d);
                *max = fmax(*max, d);
        }
        *mean = sum / DRAWS;
        *sd = sqrt(sq / DRAWS - *mean * *mean);
}

static void test_plan_jitter_uniform(void **state) {
        (void)state;
        struct shaper_config c = { .delay_ms = 100, .jitter_ms = 20 };
        double mean, sd, min, max;

        draws(&c, &mean, &sd, &min, &max);
        print_message("uniform 100±20 ms: mean %.2f sd %.2f [%.2f, %.2f]\n", mean, sd, min, max);
        assert_true(min >= 80 && max < 120);
        assert_true(min < 81 && max > 119);
        assert_true(fabs(mean - 100) < 0.5);
        /* sd of U[-j, j) is j / sqrt(3). */
        assert_true(fabs(sd - 20 / sqrt(3)) < 0.5);
}

static void test_plan_jitter_normal(void **state) {
        (void)state;
        struct shaper_config c = { .delay_ms = 100, .jitter_ms = 10, .jitter_dist = SHAPER_JITTER_NORMAL };
        double mean, sd, min, max;

        draws(&c, &mean, &sd, &min, &max);
        print_message("normal 100 sd 10 ms: mean %.2f sd %.2f [%.2f, %.2f]\n", mean, sd, min, max);
        assert_true(fabs(mean - 100) < 0.5);
        assert_true(fabs(sd - 10) < 0.5);
        /* Cut at 0: a jitter far above the delay never makes a negative delay. */
        c.delay_ms = 1;
        c.jitter_ms = 50;
        draws(&c, &mean, &sd, &min, &max);
        assert_true(min >= 0);
}

static void test_plan_reorder(void **state) {
        (void)state;
        struct shaper_plan p;
        struct shaper_config c = { .delay_ms = 0, .reorder_percent = 25, .reorder_delay_ms = 10 };
        unsigned picked = 0;

        shaper_plan_init(&p, SEED);
        for (unsigned i = 0; i < DRAWS; i++) {
                bool reordered;
                uint64_t due = shaper_plan_due(&p, &c, 5 * MS, 100, &reordered);
                /* The share goes at once; the rest waits reorder_delay_ms. */
                assert_int_equal(due, reordered ? 5 * MS : 15 * MS);
                picked += reordered;
        }
        print_message("reorder 25%%: %u of %u picked\n", picked, DRAWS);
        assert_true(picked > DRAWS * 0.23 && picked < DRAWS * 0.27);
}

/* N packets of L bytes at R bit/s arriving at once: the first burst/L go at
 * once, packet k (1-based) after that at L*k/R (in its bits). */
static void test_plan_gcra(void **state) {
        (void)state;
        struct shaper_plan p;
        const uint64_t rate = 8000000, len = 1000, burst = 10000;
        struct shaper_config c = { .rate_bps = rate, .burst_bytes = (uint32_t)burst };
        const uint64_t t0 = 1000 * MS, per = len * 8 * 1000000000ull / rate; /* 1 ms */

        shaper_plan_init(&p, SEED);
        for (uint64_t k = 1; k <= 50; k++) {
                uint64_t due = shaper_plan_due(&p, &c, t0, (uint32_t)len, NULL);
                uint64_t want = k * len <= burst ? t0 : t0 + (k * len - burst) * per / len;
                assert_int_equal(due, want);
        }
        /* A long idle time refills the bucket: the next burst goes at once. */
        for (unsigned k = 0; k < burst / len; k++)
                assert_int_equal(
                        shaper_plan_due(&p, &c, t0 + 10000 * MS, (uint32_t)len, NULL), t0 + 10000 * MS);
        /* A steady stream at the rate passes without delay. */
        shaper_plan_init(&p, SEED);
        for (uint64_t k = 0; k < 100; k++)
                assert_int_equal(shaper_plan_due(&p, &c, t0 + k * per, (uint32_t)len, NULL), t0 + k * per);
        /* With the delay on top. */
        c.delay_ms = 20;
        c.burst_bytes = (uint32_t)len;
        shaper_plan_init(&p, SEED);
        assert_int_equal(shaper_plan_due(&p, &c, t0, (uint32_t)len, NULL), t0 + 20 * MS);
        assert_int_equal(shaper_plan_due(&p, &c, t0, (uint32_t)len, NULL), t0 + per + 20 * MS);
}

static void test_plan_uniform_range(void **state) {
        (void)state;
        struct shaper_plan p, q;
        shaper_plan_init(&p, SEED);
        shaper_plan_init(&q, SEED);
        for (unsigned i = 0; i < DRAWS; i++) {
                double u = shaper_plan_uniform(&p);
                assert_true(u >= 0 && u < 1);
                /* The same seed draws the same numbers. */
                assert_true(u == shaper_plan_uniform(&q));
        }
}

/* ---- histogram ---- */

static void test_hist(void **state) {
        (void)state;
        struct shaper_hist *h = calloc(1, sizeof(*h));
        assert_non_null(h);

        assert_true(shaper_hist_percentile(h, 50) == 0);
        for (uint64_t v = 1; v <= 1000; v++)
                shaper_hist_add(h, v);
        assert_true(shaper_hist_percentile(h, 50) == 500);
        assert_true(shaper_hist_percentile(h, 99) == 990);
        assert_true(shaper_hist_percentile(h, 0) == 1);
        assert_true(shaper_hist_percentile(h, 100) == 1000);

        memset(h, 0, sizeof(*h));
        /* Beyond the linear range: within 1/64 below the true value. */
        const uint64_t vals[] = { 1024, 5000, 123456, 10000000, UINT64_MAX / 3 };
        for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
                memset(h, 0, sizeof(*h));
                shaper_hist_add(h, vals[i]);
                double got = shaper_hist_percentile(h, 50);
                assert_true(got <= (double)vals[i]);
                assert_true(got >= (double)vals[i] * (1 - 1.0 / 64));
                assert_int_equal(h->max_us, vals[i]);
        }
        /* 90 fast, 10 slow: p50 fast, p99 slow. */
        memset(h, 0, sizeof(*h));
        for (unsigned i = 0; i < 90; i++)
                shaper_hist_add(h, 20);
        for (unsigned i = 0; i < 10; i++)
                shaper_hist_add(h, 70000);
        assert_true(shaper_hist_percentile(h, 50) == 20);
        assert_true(shaper_hist_percentile(h, 90) == 20);
        assert_true(shaper_hist_percentile(h, 99) >= 70000 * (1 - 1.0 / 64));
        free(h);
}

/* ---- netlink messages ---- */

static int count_kinds(const struct shaper_msg *m, void *data) {
        unsigned *kinds = data;
        kinds[m->kind]++;
        if (m->kind == SHAPER_MSG_ERROR || m->kind == SHAPER_MSG_ACK)
                kinds[SHAPER_MSG_OTHER + 1] = m->seq;
        return m->kind == SHAPER_MSG_ERROR ? m->error : 0;
}

/* Verdicts gather in the buffer and go in one send(); what comes back is
 * sorted into acks, errors (stopping the walk) and the rest. */
static void test_netlink_messages(void **state) {
        (void)state;
        struct shaper_vbuf *v = calloc(1, sizeof(*v));
        int sp[2];
        char buf[4096];
        unsigned kinds[SHAPER_MSG_OTHER + 2] = { 0 };

        assert_non_null(v);
        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp), 0);
        v->queue_num = 7;
        assert_int_equal(shaper_vbuf_accept(v, sp[0], 10, false), 0);
        assert_int_equal(shaper_vbuf_accept(v, sp[0], 11, false), 0);
        assert_int_equal(shaper_vbuf_accept(v, sp[0], 12, true), 0);
        assert_int_equal(v->len, 3 * 32);
        assert_int_equal(shaper_vbuf_flush(v, sp[0]), 0);
        assert_int_equal(shaper_vbuf_flush(v, sp[0]), 0); /* nothing left */
        assert_int_equal(v->msgs, 3);
        assert_int_equal(v->sends, 1);
        ssize_t n = recv(sp[1], buf, sizeof(buf), 0);
        assert_int_equal(n, 3 * 32);
        assert_int_equal(shaper_msg_walk(buf, (size_t)n, count_kinds, kinds), 0);
        assert_int_equal(kinds[SHAPER_MSG_OTHER], 3);

        /* A full buffer is sent before the next verdict goes in. */
        for (uint32_t i = 0; i < SHAPER_VBUF_SIZE / 32; i++)
                assert_int_equal(shaper_vbuf_accept(v, sp[0], i, false), 0);
        assert_int_equal(v->sends, 2);

        /* An ACK, then an error: the walk stops at the error and returns it. */
        struct {
                struct nlmsghdr h;
                struct nlmsgerr e;
        } msgs[3] = { 0 };
        for (int i = 0; i < 3; i++) {
                msgs[i].h = (struct nlmsghdr){ .nlmsg_len = sizeof(msgs[i]),
                                               .nlmsg_type = NLMSG_ERROR,
                                               .nlmsg_seq = 100u + (uint32_t)i };
                msgs[i].e.error = i == 1 ? -ENOENT : 0;
        }
        memset(kinds, 0, sizeof(kinds));
        assert_int_equal(shaper_msg_walk(msgs, sizeof(msgs), count_kinds, kinds), -ENOENT);
        assert_int_equal(kinds[SHAPER_MSG_ACK], 1);
        assert_int_equal(kinds[SHAPER_MSG_ERROR], 1);
        assert_int_equal(kinds[SHAPER_MSG_OTHER + 1], 101);
        /* A cut message is not walked into. */
        memset(kinds, 0, sizeof(kinds));
        assert_int_equal(shaper_msg_walk(msgs, sizeof(msgs[0]) - 1, count_kinds, kinds), 0);
        assert_int_equal(kinds[SHAPER_MSG_ACK], 0);
        close(sp[0]);
        close(sp[1]);
        free(v);
}

/* ---- config ---- */

static void refused(const struct shaper_config *c, const char *needle) {
        struct mh_error e = { 0 };
        assert_int_equal(shaper_config_validate(c, &e), -EINVAL);
        if (!strstr(e.msg, needle))
                fail_msg("\"%s\" does not mention \"%s\"", e.msg, needle);
}

static void test_config_validate(void **state) {
        (void)state;
        struct shaper_config ok = { .delay_ms = 100,
                                    .jitter_ms = 10,
                                    .reorder_percent = 25,
                                    .reorder_delay_ms = 10,
                                    .rate_bps = 8000000 };
        assert_int_equal(shaper_config_validate(&ok, NULL), 0);
        assert_int_equal(shaper_config_validate(&(struct shaper_config){ 0 }, NULL), 0);

        struct shaper_config c = ok;
        c.delay_ms = SHAPER_DELAY_MAX_MS + 1;
        refused(&c, "delay_ms");
        c = ok;
        c.jitter_ms = SHAPER_DELAY_MAX_MS + 1;
        refused(&c, "jitter_ms");
        c = ok;
        c.jitter_dist = _SHAPER_JITTER_DIST_MAX;
        refused(&c, "distribution");
        c = ok;
        c.reorder_percent = 101;
        refused(&c, "reorder_percent");
        c = ok;
        c.reorder_delay_ms = 0;
        refused(&c, "needs reorder_delay_ms");
        c = ok;
        c.delay_ms = SHAPER_DELAY_MAX_MS;
        refused(&c, "delay_ms + reorder_delay_ms");
        c = ok;
        c.rate_bps = SHAPER_RATE_MIN_BPS - 1;
        refused(&c, "rate_bps");
        c = ok;
        c.rate_bps = SHAPER_RATE_MAX_BPS + 1;
        refused(&c, "rate_bps");
        c = ok;
        c.burst_bytes = SHAPER_BURST_MAX + 1;
        refused(&c, "burst_bytes");
        c = ok;
        c.limit_packets = SHAPER_LIMIT_MAX + 1;
        refused(&c, "limit_packets");
        c = ok;
        c.limit_bytes = SHAPER_LIMIT_BYTES_MAX + 1;
        refused(&c, "limit_bytes");
        assert_int_equal(shaper_config_validate(NULL, NULL), -EINVAL);

        assert_string_equal(shaper_jitter_dist_to_string(SHAPER_JITTER_NORMAL), "normal");
        assert_int_equal(shaper_jitter_dist_from_string("uniform"), SHAPER_JITTER_UNIFORM);
        assert_int_equal(shaper_jitter_dist_from_string("pareto"), -EINVAL);
}

/* shaper_start refuses a bad config and still closes the fd it was given. */
static void test_start_refuses(void **state) {
        (void)state;
        struct shaper_config c = { .reorder_percent = 10 };
        struct shaper *s = NULL;
        struct mh_error e = { 0 };
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        assert_int_equal(shaper_start(fds[0], 1, &c, &s, &e), -EINVAL);
        assert_null(s);
        assert_int_equal(close(fds[0]), -1);
        assert_int_equal(errno, EBADF);
        close(fds[1]);
        assert_null(shaper_free(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sched_order),         cmocka_unit_test(test_sched_fifo_batch),
                cmocka_unit_test(test_sched_mixed_release), cmocka_unit_test(test_sched_limits),
                cmocka_unit_test(test_sched_span),          cmocka_unit_test(test_plan_delay_exact),
                cmocka_unit_test(test_plan_jitter_uniform), cmocka_unit_test(test_plan_jitter_normal),
                cmocka_unit_test(test_plan_reorder),        cmocka_unit_test(test_plan_gcra),
                cmocka_unit_test(test_plan_uniform_range),  cmocka_unit_test(test_hist),
                cmocka_unit_test(test_config_validate),     cmocka_unit_test(test_netlink_messages),
                cmocka_unit_test(test_start_refuses),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
