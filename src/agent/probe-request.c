#include "probe-request.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

static int bad(char *msg, size_t size, const char *what) {
        snprintf(msg, size, "probe.run: %s", what);
        return -EINVAL;
}

static bool host_ok(const char *h) {
        uint8_t buf[16];
        return dns_name_valid(h) || inet_pton(AF_INET6, h, buf) == 1;
}

static bool printable(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
                        return false;
        return true;
}

static int parse_port(const char *p, size_t n, uint16_t *ret) {
        unsigned v = 0;
        if (n == 0 || n > 5)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (p[i] < '0' || p[i] > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned)(p[i] - '0');
        }
        if (v == 0 || v > 65535)
                return -EINVAL;
        *ret = (uint16_t)v;
        return 0;
}

int agent_probe_url_parse(const char *url, struct agent_probe_req *req, char *msg, size_t size) {
        static const char scheme[] = "http://";
        size_t len = strnlen(url, PROBE_URL_MAX + 1);
        if (len > PROBE_URL_MAX || !printable(url, len))
                return bad(msg, size, "url: over 2048 bytes, or a blank or control byte in it");
        if (strncmp(url, scheme, sizeof(scheme) - 1) != 0)
                return bad(msg, size, "url: only http:// is probed from the target's side");
        const char *h = url + sizeof(scheme) - 1, *end = url + len;
        const char *slash = memchr(h, '/', (size_t)(end - h)), *auth_end = slash ? slash : end;
        if (memchr(h, '@', (size_t)(auth_end - h)) || memchr(url, '#', len))
                return bad(msg, size, "url: user info and fragments are refused");
        const char *host_end = auth_end, *colon = NULL;
        if (*h == '[') {
                const char *close = memchr(h, ']', (size_t)(auth_end - h));
                if (!close)
                        return bad(msg, size, "url: an IPv6 host needs its closing ']'");
                colon = close + 1 < auth_end && close[1] == ':' ? close + 1 : NULL;
                if (close + 1 != auth_end && !colon)
                        return bad(msg, size, "url: junk after the IPv6 host");
                host_end = close;
                h++;
        } else {
                colon = memchr(h, ':', (size_t)(auth_end - h));
                host_end = colon ? colon : auth_end;
        }
        size_t hl = (size_t)(host_end - h);
        if (hl == 0 || hl > DNS_NAME_MAX)
                return bad(msg, size, "url: the host must be 1..253 bytes");
        memcpy(req->host, h, hl);
        req->host[hl] = '\0';
        if (!host_ok(req->host))
                return bad(msg, size, "url: the host is not a DNS name or an address");
        req->port = 80;
        if (colon && parse_port(colon + 1, (size_t)(auth_end - colon - 1), &req->port) < 0)
                return bad(msg, size, "url: the port must be 1..65535");
        size_t pl = slash ? (size_t)(end - slash) : 1;
        if (pl > PROBE_PATH_MAX)
                return bad(msg, size, "url: the path is over 1024 bytes");
        memcpy(req->path, slash ? slash : "/", pl);
        req->path[pl] = '\0';
        return 0;
}

static const char *kind_names[_AGENT_PROBE_KIND_MAX] = {
        [AGENT_PROBE_HTTP] = "http",       [AGENT_PROBE_TCP] = "tcp",   [AGENT_PROBE_FILE] = "file",
        [AGENT_PROBE_PROCESS] = "process", [AGENT_PROBE_EXEC] = "exec",
};

static int parse_kind(const char *type, enum agent_probe_kind *ret) {
        for (int k = 0; type && k < _AGENT_PROBE_KIND_MAX; k++)
                if (strcmp(type, kind_names[k]) == 0) {
                        *ret = (enum agent_probe_kind)k;
                        return 0;
                }
        return -EINVAL;
}

static int parse_http(const json_t *j, struct agent_probe_req *r, char *msg, size_t size) {
        const char *url = json_string_value(json_object_get(j, "url"));
        const char *method = json_string_value(json_object_get(j, "method"));
        const json_t *status = json_object_get(j, "expected_status");
        if (!url)
                return bad(msg, size, "an http probe needs a string url");
        if (!method)
                method = "GET";
        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
                return bad(msg, size, "method: only GET and HEAD (a probe never mutates the target)");
        snprintf(r->method, sizeof(r->method), "%s", method);
        r->expected_status = status ? json_integer_value(status) : 200;
        if ((status && !json_is_integer(status)) || r->expected_status < 100 || r->expected_status > 599)
                return bad(msg, size, "expected_status must be an integer 100..599");
        return agent_probe_url_parse(url, r, msg, size);
}

static int parse_tcp(const json_t *j, struct agent_probe_req *r, char *msg, size_t size) {
        const char *host = json_string_value(json_object_get(j, "host"));
        const json_t *port = json_object_get(j, "port");
        json_int_t p = json_integer_value(port);
        if (!host || strlen(host) > DNS_NAME_MAX || !host_ok(host))
                return bad(msg, size, "host: a DNS name or an address of at most 253 bytes");
        if (!json_is_integer(port) || p < 1 || p > 65535)
                return bad(msg, size, "port must be an integer 1..65535");
        snprintf(r->host, sizeof(r->host), "%s", host);
        r->port = (uint16_t)p;
        return 0;
}

static int parse_file(const json_t *j, struct agent_probe_req *r, char *msg, size_t size) {
        const char *path = json_string_value(json_object_get(j, "path"));
        const json_t *contains = json_object_get(j, "contains");
        size_t n = path ? strnlen(path, PROBE_FILE_PATH_MAX + 1) : 0;
        if (!path || path[0] != '/' || n > PROBE_FILE_PATH_MAX)
                return bad(msg, size, "path: an absolute path of at most 4096 bytes");
        memcpy(r->file_path, path, n + 1);
        if (!contains)
                return 0;
        const char *text = json_string_value(contains);
        n = text ? strnlen(text, PROBE_CONTAINS_MAX + 1) : 0;
        if (!text || n == 0 || n > PROBE_CONTAINS_MAX || json_string_length(contains) != n)
                return bad(msg, size, "contains: a string of 1..4096 bytes without NUL");
        memcpy(r->contains, text, n + 1);
        return 0;
}

static int parse_process(const json_t *j, struct agent_probe_req *r, char *msg, size_t size) {
        const char *name = json_string_value(json_object_get(j, "name"));
        const json_t *pid = json_object_get(j, "pid");
        if (!name == !pid)
                return bad(msg, size, "a process probe needs a name or a pid, not both");
        if (pid) {
                r->pid = json_integer_value(pid);
                if (!json_is_integer(pid) || r->pid < 1 || r->pid > PROBE_PID_MAX)
                        return bad(msg, size, "pid must be an integer 1..4194304");
                return 0;
        }
        size_t n = strnlen(name, 256);
        if (n == 0 || n > 255 || !printable(name, n))
                return bad(msg, size, "name: 1..255 printable bytes");
        /* the kernel keeps 15 bytes of a comm: a longer name is matched on them */
        memcpy(r->name, name, MIN(n, (size_t)PROBE_COMM_MAX));
        r->name[MIN(n, (size_t)PROBE_COMM_MAX)] = '\0';
        return 0;
}

static int parse_exec(const json_t *j, struct agent_probe_req *r, char *msg, size_t size) {
        const json_t *cmd = json_object_get(j, "cmd"), *code = json_object_get(j, "expected_exit_code");
        size_t n = json_array_size(cmd);
        if (!json_is_array(cmd) || n == 0 || n > PROBE_ARGV_MAX)
                return bad(msg, size, "cmd: an array of 1..64 strings");
        for (size_t i = 0; i < n; i++) {
                const json_t *a = json_array_get(cmd, i);
                const char *v = json_string_value(a);
                size_t len = v ? strnlen(v, PROBE_ARG_MAX + 1) : 0;
                if (!v || len > PROBE_ARG_MAX || json_string_length(a) != len || (i == 0 && len == 0))
                        return bad(
                                msg, size, "cmd: each argument a string of at most 4096 bytes without NUL");
                r->cmd[i] = v;
        }
        r->cmd[n] = NULL;
        r->n_cmd = n;
        r->expected_exit_code = code ? json_integer_value(code) : 0;
        if ((code && !json_is_integer(code)) || r->expected_exit_code < 0 || r->expected_exit_code > 255)
                return bad(msg, size, "expected_exit_code must be an integer 0..255");
        return 0;
}

int agent_probe_req_from_json(const json_t *j, struct agent_probe_req *ret, char *msg, size_t size) {
        struct agent_probe_req r = { 0 };
        if (!json_is_object(j))
                return bad(msg, size, "the request needs a \"probe\" object");
        const char *type = json_string_value(json_object_get(j, "type"));
        const json_t *timeout = json_object_get(j, "timeout_ms");
        if (parse_kind(type, &r.kind) < 0)
                return bad(
                        msg, size,
                        "type: http, tcp, file, process or exec (the agent probes no other kind in this "
                        "version)");
        r.timeout_ms = json_integer_value(timeout);
        if (!json_is_integer(timeout) || r.timeout_ms < 1 || r.timeout_ms > PROBE_TIMEOUT_MAX_MS)
                return bad(msg, size, "timeout_ms must be an integer 1..60000");
        static int (*const parsers[_AGENT_PROBE_KIND_MAX])(
                const json_t *, struct agent_probe_req *, char *, size_t) = {
                [AGENT_PROBE_HTTP] = parse_http, [AGENT_PROBE_TCP] = parse_tcp,
                [AGENT_PROBE_FILE] = parse_file, [AGENT_PROBE_PROCESS] = parse_process,
                [AGENT_PROBE_EXEC] = parse_exec,
        };
        int x = parsers[r.kind](j, &r, msg, size);
        if (x < 0)
                return x;
        *ret = r;
        return 0;
}
