/* The `logs` sources, collected once after the steps end and before the
 * criteria are judged: each container's lines since the run started (or
 * the source's since), at most tail, into log_lines and three
 * observations. The whole collection is bounded by total_timeout; a source
 * that fails is an observability.source_failed event, never fatal. */
#include "run-internal.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/units.h"
#include "engine/log-stream.h"

#define LOGS_LINE_MAX (4u << 10) /* bytes kept of one line */
#define LOGS_BODY_MAX (4u << 20) /* bytes read of the engine's reply */

struct collected {
        struct evidence_log_line *lines;
        size_t n, cap, tail, cut, dropped_before;
        regex_t re;
        int64_t from_ns; /* lines stamped before this are not the run's (0: keep all) */
        bool oom;
};

/* "2026-12-03T17:00:00.123456789Z" (or +hh:mm) as ns since the epoch; 0 when not. */
static int64_t ts_ns(const char *ts) {
        struct tm tm = { 0 };
        int n = 0, oh = 0, om = 0;
        int64_t frac = 0, scale = 1000000000;
        if (sscanf(ts, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec, &n) != 6)
                return 0;
        ts += n;
        if (*ts == '.')
                for (ts++; *ts >= '0' && *ts <= '9'; ts++)
                        if (scale > 1) {
                                scale /= 10;
                                frac += (*ts - '0') * scale;
                        }
        if ((*ts == '+' || *ts == '-') && sscanf(ts + 1, "%2d:%2d", &oh, &om) == 2)
                oh = (*ts == '-' ? -1 : 1) * (oh * 60 + om);
        else if (*ts != 'Z')
                return 0;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        return ((int64_t)timegm(&tm) - (int64_t)oh * 60) * 1000000000 + frac;
}

static int keep_line(const struct log_line *l, void *userdata) {
        struct collected *c = userdata;
        int64_t t = ts_ns(l->ts);
        if (c->from_ns && t && t < c->from_ns) {
                c->dropped_before++;
                return 0;
        }
        if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 64;
                struct evidence_log_line *p = realloc(c->lines, cap * sizeof(*p));
                if (!p)
                        return c->oom = true, -ENOMEM;
                c->lines = p;
                c->cap = cap;
        }
        char *text = strdup(l->text), *ts = strdup(l->ts);
        if (!text || !ts) {
                free(text);
                free(ts);
                return c->oom = true, -ENOMEM;
        }
        c->lines[c->n] = (struct evidence_log_line){
                .seq = (int64_t)c->n,
                .ts = ts,
                .stream = l->stream == LOG_STREAM_STDERR ? "stderr" : "stdout",
                .line = text,
                .matched = regexec(&c->re, text, 0, NULL, 0) == 0,
        };
        c->n++;
        c->cut += l->cut;
        return 0;
}

/* The last tail lines are kept: an engine that sent more is not believed. */
static void keep_tail(struct collected *c) {
        if (c->n <= c->tail)
                return;
        size_t drop = c->n - c->tail;
        for (size_t i = 0; i < drop; i++) {
                free((char *)c->lines[i].ts);
                free((char *)c->lines[i].line);
        }
        memmove(c->lines, c->lines + drop, c->tail * sizeof(*c->lines));
        c->n = c->tail;
        for (size_t i = 0; i < c->n; i++)
                c->lines[i].seq = (int64_t)i;
}

static void collected_done(struct collected *c) {
        for (size_t i = 0; i < c->n; i++) {
                free((char *)c->lines[i].ts);
                free((char *)c->lines[i].line);
        }
        free(c->lines);
}

static void source_failed(
        struct runner *r, const struct drill_obs_source *s, double began, const char *why) {
        runner_event(
                r, EVENT_OBSERVABILITY_SOURCE_FAILED,
                json_pack(
                        "{s:s, s:s, s:s}", "source", s->source_id, "container", s->container, "reason",
                        why));
        runner_observe_at(r, began, s->source_id, OBS_VALUE_BOOLEAN, 0, why);
        runner_progress(r, "observability source '%s' failed: %s", s->source_id, why);
}

/* Seconds since the epoch the engine is asked from; *from_ns filters the
 * lines of that second that came before the run. */
static int64_t since_for(const struct runner *r, const struct drill_obs_source *s, int64_t *from_ns) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
        *from_ns = 0;
        if (s->since_unix_s)
                return s->since_unix_s;
        if (s->since_ago_ms)
                return (now_ns / 1000000 - s->since_ago_ms) / 1000;
        *from_ns = now_ns - (int64_t)((monotonic_ms() - r->t0_ms) * 1e6);
        return *from_ns / 1000000000;
}

static void record(
        struct runner *r, const struct drill_obs_source *s, double began, struct collected *c,
        const struct engine_logs *got, const struct log_stream_stats *st) {
        char name[256], detail[RUN_DETAIL_MAX];
        struct mh_error e = { 0 };
        size_t errors = 0;
        for (size_t i = 0; i < c->n; i++)
                errors += c->lines[i].matched;
        if (!runner_evidence_lost(r) &&
            evidence_log_lines(r->opt->evidence, r->run_id, s->source_id, s->container, c->lines, c->n, &e) <
                    0)
                runner_evidence_failed(r, "log lines", &e);
        snprintf(
                detail, sizeof(detail), "%zu lines of %s (%s), %zu matching /%s/%s%s%s%s", c->n,
                s->container, got->tty ? "tty" : "stdout and stderr", errors, s->pattern,
                c->cut ? "; lines over 4096 bytes cut" : "",
                got->truncated ? "; the reply was cut at 4 MiB" : "",
                st->garbage ? "; a malformed frame ended the stream" : "",
                c->n == c->tail ? "; tail reached" : "");
        runner_observe_at(r, began, s->source_id, OBS_VALUE_BOOLEAN, 1, detail);
        snprintf(name, sizeof(name), "%s.lines", s->source_id);
        runner_observe_at(r, began, name, OBS_VALUE_COUNT, (double)c->n, NULL);
        snprintf(name, sizeof(name), "%s.errors", s->source_id);
        runner_observe_at(r, began, name, OBS_VALUE_COUNT, (double)errors, NULL);
        runner_event(
                r, EVENT_OBSERVABILITY_COLLECTED,
                json_pack(
                        "{s:s, s:s, s:I, s:I, s:I, s:b}", "source", s->source_id, "container", s->container,
                        "lines", (json_int_t)c->n, "errors", (json_int_t)errors, "cut", (json_int_t)c->cut,
                        "truncated", got->truncated));
}

/* cut_by_total: timeout_ms is what total_timeout left, less than the source's own. */
static void collect_one(
        struct runner *r, const struct drill_obs_source *s, int64_t timeout_ms, bool cut_by_total,
        const char *total_text) {
        struct collected c = { .tail = (size_t)s->tail };
        struct engine_logs got = { 0 };
        struct log_stream_stats st = { 0 };
        struct mh_error e = { 0 };
        double began = monotonic_ms();
        struct engine_logs_query q = { .tail = s->tail,
                                       .timeout_ms = timeout_ms,
                                       .max_bytes = LOGS_BODY_MAX };
        q.since_s = since_for(r, s, &c.from_ns);
        if (regcomp(&c.re, s->pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0) {
                source_failed(r, s, began, "the pattern does not compile");
                return;
        }
        int k = !r->opt->engine ? -ENODEV
                                : engine_container_logs(r->opt->engine, s->container, &q, &got, &e);
        if (k >= 0)
                k = log_stream_parse(got.body, got.len, !got.tty, LOGS_LINE_MAX, true, keep_line, &c, &st);
        if (k >= 0) {
                keep_tail(&c);
                record(r, s, began, &c, &got, &st);
        } else if (k == -ETIMEDOUT && cut_by_total)
                source_failed(r, s, began, total_text);
        else
                source_failed(
                        r, s, began,
                        k == -ENODEV   ? "no engine"
                        : k == -ENOMEM ? "out of memory"
                                       : e.msg);
        regfree(&c.re);
        collected_done(&c);
        engine_logs_done(&got);
}

void runner_collect_logs(struct runner *r) {
        const struct drill_observability *o = &r->plan->spec->observability;
        char total_text[64], d[32];
        double deadline = monotonic_ms() + (double)o->total_timeout_ms;
        format_duration_ms(d, sizeof(d), o->total_timeout_ms);
        snprintf(total_text, sizeof(total_text), "total_timeout (%s) reached", d);
        for (size_t i = 0; i < o->n_sources; i++) {
                const struct drill_obs_source *s = &o->sources[i];
                if (s->kind != OBS_LOGS)
                        continue;
                int64_t left = (int64_t)(deadline - monotonic_ms());
                if (left < 1) {
                        source_failed(r, s, monotonic_ms(), total_text);
                        continue;
                }
                collect_one(r, s, MIN(s->timeout_ms, left), left < s->timeout_ms, total_text);
        }
}
