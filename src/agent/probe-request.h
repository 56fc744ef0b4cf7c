#pragma once

/* probe.run's "probe" object as the agent accepts it: every field from the
 * controller re-checked (type, lengths, ranges, URL form) before anything
 * is resolved or entered. No I/O, so a unit test and fuzz/fuzz-probe-request.c
 * drive it with hostile input. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe-dns.h"

#define PROBE_TIMEOUT_MAX_MS 60000
#define PROBE_PATH_MAX       1024 /* an http path and query, as sent */
#define PROBE_URL_MAX        2048
#define PROBE_FILE_PATH_MAX  4096
#define PROBE_CONTAINS_MAX   4096
#define PROBE_COMM_MAX       15      /* TASK_COMM_LEN - 1: what /proc/PID/comm holds */
#define PROBE_PID_MAX        4194304 /* PID_MAX_LIMIT */
#define PROBE_ARGV_MAX       64
#define PROBE_ARG_MAX        4096

enum agent_probe_kind {
        AGENT_PROBE_HTTP,
        AGENT_PROBE_TCP,
        AGENT_PROBE_FILE,
        AGENT_PROBE_PROCESS,
        AGENT_PROBE_EXEC,
        _AGENT_PROBE_KIND_MAX,
};

struct agent_probe_req {
        enum agent_probe_kind kind;
        int64_t timeout_ms;          /* 1..PROBE_TIMEOUT_MAX_MS */
        char host[DNS_NAME_MAX + 1]; /* a name, or an IPv4 / IPv6 literal (no brackets) */
        uint16_t port;
        /* http */
        char method[8]; /* GET or HEAD */
        char path[PROBE_PATH_MAX + 1];
        int64_t expected_status;
        /* file: an absolute path in the target's root; contains "" when not asked */
        char file_path[PROBE_FILE_PATH_MAX + 1];
        char contains[PROBE_CONTAINS_MAX + 1];
        /* process: a comm (at most 15 bytes, as the kernel keeps it) or a pid as the target numbers it */
        char name[PROBE_COMM_MAX + 1];
        int64_t pid;
        /* exec: the argv, pointing into the request's JSON (valid while it lives) */
        const char *cmd[PROBE_ARGV_MAX + 1];
        size_t n_cmd;
        int64_t expected_exit_code;
};

/* 0, or -EINVAL with a one-line message in msg naming the bad field. */
int agent_probe_req_from_json(const json_t *j, struct agent_probe_req *ret, char *msg, size_t size);

/* "http://HOST[:PORT][/PATH]" into req (host, port, path): -EINVAL with msg
 * for any other form (https, user info, a fragment, a control byte, a bad
 * host or port). */
int agent_probe_url_parse(const char *url, struct agent_probe_req *req, char *msg, size_t size);
