#pragma once

/* Probes from the host: http, tcp, exec (an argv, never a shell), process,
 * file, metric (Prometheus text). A probe never fails the caller: it returns
 * a result that says whether the check passed, what it measured and why not. */

#include <stdbool.h>

#include "basic/clock.h"
#include "drill/drill.h"

#define PROBE_DETAIL_MAX 256

struct probe_result {
        bool ok;
        double latency_ms;
        long status;    /* http: status code, 0 when no reply */
        int exit_code;  /* exec */
        bool has_value; /* metric */
        double value;
        char detail[PROBE_DETAIL_MAX]; /* why it failed, or what it saw */
};

void probe_run(const struct drill_probe *p, struct probe_result *ret);

/* One probe per file; each fills ret and returns nothing. */
void probe_http(const struct drill_probe *p, struct probe_result *ret);
void probe_tcp(const struct drill_probe *p, struct probe_result *ret);
void probe_exec(const struct drill_probe *p, struct probe_result *ret);
void probe_process(const struct drill_probe *p, struct probe_result *ret);
void probe_file(const struct drill_probe *p, struct probe_result *ret);
void probe_metric(const struct drill_probe *p, struct probe_result *ret);

/* Copies msg into ret->detail, cut to fit. */
void probe_set_detail(struct probe_result *ret, const char *msg);
