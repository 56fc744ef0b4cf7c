/* Feeds arbitrary bytes, as JSON, to probe.run's request checks
 * (src/agent/probe-request.h): the fields come from the controller and are
 * hostile to the agent.
 *
 * Checks: a request is accepted only with a known kind, a timeout in
 * 1..PROBE_TIMEOUT_MAX_MS; http/tcp: a port in 1..65535, a NUL-terminated
 * host; file: an absolute path; process: a comm of <= 15 bytes or a pid; an http path that starts with '/'
 * and holds no blank or control byte, a GET or HEAD; a refusal names probe.run. */

#include <assert.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/probe-request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
        struct agent_probe_req r;
        char msg[256] = "";
        if (!j)
                return 0;
        if (agent_probe_req_from_json(j, &r, msg, sizeof(msg)) < 0) {
                assert(strncmp(msg, "probe.run: ", 11) == 0);
                json_decref(j);
                return 0;
        }
        assert(r.kind < _AGENT_PROBE_KIND_MAX);
        assert(r.timeout_ms >= 1 && r.timeout_ms <= PROBE_TIMEOUT_MAX_MS);
        if (r.kind == AGENT_PROBE_HTTP || r.kind == AGENT_PROBE_TCP)
                assert(r.port >= 1 && strnlen(r.host, sizeof(r.host)) < sizeof(r.host) && r.host[0]);
        if (r.kind == AGENT_PROBE_FILE)
                assert(r.file_path[0] == '/' &&
                       strnlen(r.file_path, sizeof(r.file_path)) < sizeof(r.file_path));
        if (r.kind == AGENT_PROBE_EXEC) {
                assert(r.n_cmd >= 1 && r.n_cmd <= PROBE_ARGV_MAX && r.cmd[r.n_cmd] == NULL && r.cmd[0][0]);
                assert(r.expected_exit_code >= 0 && r.expected_exit_code <= 255);
        }
        if (r.kind == AGENT_PROBE_PROCESS)
                assert(r.name[0] ? strlen(r.name) <= PROBE_COMM_MAX : r.pid >= 1 && r.pid <= PROBE_PID_MAX);
        if (r.kind == AGENT_PROBE_HTTP) {
                assert(r.path[0] == '/');
                for (const char *p = r.path; *p; p++)
                        assert((unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f);
                assert(strcmp(r.method, "GET") == 0 || strcmp(r.method, "HEAD") == 0);
        }
        json_decref(j);
        return 0;
}
