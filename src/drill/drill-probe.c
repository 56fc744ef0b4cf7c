#include "drill-parse-internal.h"

#include <string.h>

#include "basic/text-kind.h"

#define PROBE_TIMEOUT_MAX_MS (10 * 60 * 1000)

static const char *const http_methods[] = { "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS" };

static const char *const *probe_keys[_PROBE_TYPE_MAX] = {
        [PROBE_HTTP] = (const char *const[]){ "type", "url", "method", "timeout", "expected_status", NULL },
        [PROBE_EXEC] = (const char *const[]){ "type", "cmd", "timeout", "expected_exit_code", NULL },
        [PROBE_TCP] = (const char *const[]){ "type", "host", "port", "timeout", NULL },
        [PROBE_PROCESS] = (const char *const[]){ "type", "name", "pid", "timeout", NULL },
        [PROBE_METRIC] = (const char *const[]){ "type", "endpoint", "query", "threshold", "timeout", NULL },
        [PROBE_FILE] = (const char *const[]){ "type", "path", "contains", "timeout", NULL },
};

static const int64_t probe_default_timeout_ms[_PROBE_TYPE_MAX] = {
        [PROBE_HTTP] = 5000,    [PROBE_EXEC] = 10000,  [PROBE_TCP] = 3000,
        [PROBE_PROCESS] = 5000, [PROBE_METRIC] = 5000, [PROBE_FILE] = 5000,
};

int dp_url(struct dparser *p, const struct ynode *map, const char *key, const char **ret) {
        int r = dp_require(p, map, key);
        if (r < 0 || (r = dp_str(p, map, key, ret)) < 0)
                return r;
        char why[128];
        if (url_check_http(*ret, why, sizeof(why)) < 0) {
                size_t mark = dp_enter_key(p, key);
                r = dp_fail(p, dp_get(map, key), "'%s' %s", *ret, why);
                dp_leave(p, mark);
        }
        return r;
}

static int parse_http(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        int method = 0;
        int r = dp_url(p, n, "url", &pr->url);
        if (r < 0 || (r = dp_enum(p, n, "method", http_methods, ELEMENTSOF(http_methods), &method)) < 0)
                return r;
        pr->method = http_methods[method];
        pr->expected_status = 200;
        return dp_int(p, n, "expected_status", 100, 599, &pr->expected_status);
}

static int parse_exec(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        struct drill_names argv = { 0 };
        int r = dp_require(p, n, "cmd");
        if (r < 0)
                return r;
        size_t mark = dp_enter_key(p, "cmd");
        if ((r = dp_names(p, dp_get(n, "cmd"), 1, &argv)) < 0)
                return r;
        dp_leave(p, mark);
        /* execvp() needs the argv NULL-terminated; a list of names is not. */
        const char **cmd = arena_alloc_array(p->arena, argv.n + 1, sizeof(*cmd));
        if (!cmd)
                return dp_oom(p);
        memcpy(cmd, argv.v, argv.n * sizeof(*cmd));
        cmd[argv.n] = NULL;
        pr->cmd = cmd;
        pr->n_cmd = argv.n;
        return dp_int(p, n, "expected_exit_code", 0, 255, &pr->expected_exit_code);
}

static int parse_tcp(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        int r = dp_require(p, n, "host");
        if (r < 0 || (r = dp_require(p, n, "port")) < 0 || (r = dp_id(p, n, "host", &pr->host)) < 0)
                return r;
        return dp_int(p, n, "port", 1, 65535, &pr->port);
}

static int parse_process(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        bool has_name = dp_get(n, "name"), has_pid = dp_get(n, "pid");
        if (has_name == has_pid)
                return dp_fail(p, n, "a process probe needs exactly one of 'name' or 'pid'");
        int r = dp_id(p, n, "name", &pr->process_name);
        return r < 0 ? r : dp_int(p, n, "pid", 1, INT32_MAX, &pr->pid);
}

static int parse_metric(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        int r = dp_url(p, n, "endpoint", &pr->endpoint);
        if (r < 0 || (r = dp_require(p, n, "query")) < 0 || (r = dp_id(p, n, "query", &pr->query)) < 0 ||
            (r = dp_check_metric_selector(p, n, "query", pr->query)) < 0)
                return r;
        return dp_num(p, n, "threshold", -1e300, 1e300, &pr->has_threshold, &pr->threshold);
}

static int parse_file(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        int r = dp_require(p, n, "path");
        if (r < 0 || (r = dp_id(p, n, "path", &pr->path)) < 0)
                return r;
        return dp_str(p, n, "contains", &pr->contains);
}

int dp_parse_probe(struct dparser *p, const struct ynode *n, struct drill_probe *pr) {
        static int (*const parsers[_PROBE_TYPE_MAX])(
                struct dparser *, const struct ynode *, struct drill_probe *) = {
                [PROBE_HTTP] = parse_http,       [PROBE_EXEC] = parse_exec,     [PROBE_TCP] = parse_tcp,
                [PROBE_PROCESS] = parse_process, [PROBE_METRIC] = parse_metric, [PROBE_FILE] = parse_file,
        };
        int type = 0, r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_require(p, n, "type")) < 0 ||
            (r = DP_ENUM(p, n, "type", probe_type, &type)) < 0)
                return r;
        *pr = (struct drill_probe){ .type = (enum probe_type)type, .pos = dp_pos(n) };
        pr->timeout_ms = probe_default_timeout_ms[type];
        if ((r = dp_check_keys(p, n, probe_keys[type])) < 0 ||
            (r = dp_dur(p, n, "timeout", 1, PROBE_TIMEOUT_MAX_MS, &pr->timeout_ms)) < 0)
                return r;
        return parsers[type](p, n, pr);
}
