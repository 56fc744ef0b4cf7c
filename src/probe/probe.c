#include "probe.h"

#include <string.h>
#include <time.h>

void probe_set_detail(struct probe_result *ret, const char *msg) {
        size_t n = strnlen(msg, sizeof(ret->detail) - 1);
        memcpy(ret->detail, msg, n);
        ret->detail[n] = '\0';
}

void probe_run(const struct drill_probe *p, struct probe_result *ret) {
        static void (*const run[_PROBE_TYPE_MAX])(const struct drill_probe *, struct probe_result *) = {
                [PROBE_HTTP] = probe_http,       [PROBE_TCP] = probe_tcp,   [PROBE_EXEC] = probe_exec,
                [PROBE_PROCESS] = probe_process, [PROBE_FILE] = probe_file, [PROBE_METRIC] = probe_metric,
        };
        double t0 = monotonic_ms();
        *ret = (struct probe_result){ 0 };
        run[p->type](p, ret);
        if (ret->latency_ms == 0)
                ret->latency_ms = monotonic_ms() - t0;
}
