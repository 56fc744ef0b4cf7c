/* The keys only a `logs` source has: tail, since (checked here, sent to the
 * engine as unix seconds) and pattern (a POSIX extended regex, compiled
 * here to prove it compiles; the run compiles it again). */
#include "drill-parse-internal.h"

#include <regex.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/prom-text.h"
#include "basic/units.h"

#define SINCE_MAX_S   253402300799LL /* 9999-12-31T23:59:59Z */
#define PATTERN_MAX   1024
#define SINCE_AGO_MAX (366LL * 86400 * 1000)

static bool all_digits(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

/* "2026-12-03T17:00:00Z", "...:00.5Z", "...:00+02:00": seconds, or -1. */
static int64_t parse_rfc3339(const char *s) {
        struct tm tm = { 0 };
        int n = 0, oh = 0, om = 0;
        char sign = 0;
        if (sscanf(s, "%4d-%2d-%2d%*[Tt ]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec, &n) != 6 ||
            n < 19)
                return -1;
        s += n;
        if (*s == '.') {
                size_t d = strspn(s + 1, "0123456789");
                if (d == 0 || d > 9)
                        return -1;
                s += 1 + d;
        }
        if ((*s == 'Z' || *s == 'z') && !s[1])
                oh = 0;
        else if (
                (*s == '+' || *s == '-') && strlen(s) == 6 && sscanf(s, "%c%2d:%2d", &sign, &oh, &om) == 3 &&
                s[3] == ':' && oh < 24 && om < 60)
                oh = (sign == '-' ? -1 : 1) * (oh * 60 + om);
        else
                return -1;
        if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
            tm.tm_min > 59 || tm.tm_sec > 60 || tm.tm_year < 1970)
                return -1;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        int64_t t = (int64_t)timegm(&tm) - (int64_t)oh * 60;
        return t > 0 ? t : -1;
}

static int parse_since(struct dparser *p, const struct ynode *n, struct drill_obs_source *s) {
        const struct ynode *v = dp_get(n, "since");
        const char *text;
        int64_t x;
        int r;
        if (!v)
                return 0;
        size_t mark = dp_enter_key(p, "since");
        if ((r = dp_str_node(p, v, &s->since)) < 0)
                return r;
        text = s->since;
        if (all_digits(text) && strlen(text) <= 12 && (x = strtoll(text, NULL, 10)) >= 1 && x <= SINCE_MAX_S)
                s->since_unix_s = x;
        else if ((x = parse_rfc3339(text)) > 0 && x <= SINCE_MAX_S)
                s->since_unix_s = x;
        else if (!all_digits(text) && parse_duration_ms(text, &x) >= 0 && x >= 1000 && x <= SINCE_AGO_MAX)
                s->since_ago_ms = x;
        else
                return dp_fail(
                        p, v,
                        "since '%s' is not a duration ago (1s..366d, e.g. 10m), an RFC 3339 time "
                        "(2026-12-03T17:00:00Z) or unix seconds",
                        text);
        dp_leave(p, mark);
        return 0;
}

static int check_pattern(struct dparser *p, const struct ynode *n, struct drill_obs_source *s) {
        const struct ynode *v = dp_get(n, "pattern");
        char why[160];
        regex_t re;
        int r;
        s->pattern = DRILL_LOGS_PATTERN_DEFAULT;
        if (!v)
                return 0;
        size_t mark = dp_enter_key(p, "pattern");
        if ((r = dp_str_node(p, v, &s->pattern)) < 0)
                return r;
        if (!s->pattern[0] || strlen(s->pattern) > PATTERN_MAX)
                return dp_fail(p, v, "pattern must be 1..%d bytes", PATTERN_MAX);
        if ((r = regcomp(&re, s->pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB)) != 0) {
                regerror(r, &re, why, sizeof(why));
                return dp_fail(p, v, "pattern '%s' is not a POSIX extended regex: %s", s->pattern, why);
        }
        regfree(&re);
        dp_leave(p, mark);
        return 0;
}

int dp_parse_logs_keys(struct dparser *p, const struct ynode *n, struct drill_obs_source *s) {
        int r;
        if ((r = dp_int(p, n, "tail", 1, 10000, &s->tail)) < 0 || (r = parse_since(p, n, s)) < 0)
                return r;
        return check_pattern(p, n, s);
}

int dp_check_metric_selector(struct dparser *p, const struct ynode *n, const char *key, const char *metric) {
        struct prom_selector *sel = malloc(sizeof(*sel));
        char why[200];
        if (!sel)
                return dp_oom(p);
        int r = prom_selector_parse(metric, sel, why, sizeof(why));
        free(sel);
        if (r >= 0)
                return 0;
        dp_enter_key(p, key);
        return dp_fail(
                p, dp_get(n, key), "'%s' is not a metric selector (name{label=\"value\",...}): %s", metric,
                why);
}
