/* Evidence timestamps to seconds, and the span of a run's timeline. */

#include "report-html-internal.h"

#include <math.h>
#include <string.h>
#include <time.h>

static bool digits(const char *s, size_t n, int *ret) {
        int v = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (s[i] - '0');
        }
        *ret = v;
        return true;
}

double report_time_parse(const char *s) {
        struct tm tm = { 0 };
        int year, mon, day, hour, min, sec;
        if (!s || strlen(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
            s[16] != ':' || !digits(s, 4, &year) || !digits(s + 5, 2, &mon) || !digits(s + 8, 2, &day) ||
            !digits(s + 11, 2, &hour) || !digits(s + 14, 2, &min) || !digits(s + 17, 2, &sec) || mon < 1 ||
            mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
                return NAN;
        double frac = 0, scale = 0.1;
        const char *p = s + 19;
        if (*p == '.')
                for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
                        frac += (*p - '0') * scale;
        if (strcmp(p, "Z") != 0)
                return NAN;
        tm.tm_year = year - 1900, tm.tm_mon = mon - 1, tm.tm_mday = day;
        tm.tm_hour = hour, tm.tm_min = min, tm.tm_sec = sec;
        return (double)timegm(&tm) + frac;
}

static void widen(double *lo, double *hi, double t) {
        if (!isfinite(t))
                return;
        if (!isfinite(*lo) || t < *lo)
                *lo = t;
        if (!isfinite(*hi) || t > *hi)
                *hi = t;
}

/* Every timestamp under key in each element of the array member. */
static void widen_by(
        const json_t *record, const char *array, const char *const *keys, double *lo, double *hi) {
        size_t i;
        const json_t *row;
        json_array_foreach(json_object_get(record, array), i, row) for (const char *const *k = keys; *k; k++)
                widen(lo, hi, report_time_parse(html_str(row, *k)));
}

struct report_span report_span_of(const json_t *record) {
        const json_t *run = json_object_get(record, "run");
        double lo = report_time_parse(html_str(run, "started_at"));
        double hi = report_time_parse(html_str(run, "ended_at"));
        widen(&lo, &hi, lo);
        widen_by(record, "steps", (const char *const[]){ "started_at", "ended_at", NULL }, &lo, &hi);
        widen_by(record, "leases", (const char *const[]){ "injected_at", "released_at", NULL }, &lo, &hi);
        widen_by(record, "observations", (const char *const[]){ "timestamp", NULL }, &lo, &hi);
        widen_by(record, "events", (const char *const[]){ "ts", NULL }, &lo, &hi);
        double start = report_time_parse(html_str(run, "started_at"));
        if (!isfinite(lo))
                return (struct report_span){ .t0 = 0, .end = 1 };
        if (!isfinite(start))
                start = lo; /* x is time from the run's start; without one, from its first record */
        return (struct report_span){ .t0 = start, .end = hi - start > 0.001 ? hi - start : 1 };
}
