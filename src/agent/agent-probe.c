/* probe.run: a check of the drill run from the target's side (http, tcp
 * from its netns; file, process as its root and pid namespace show them). The request
 * is hostile: the probe's fields are re-checked (probe-request.c), the
 * target is resolved by the agent itself through its own engine socket, and
 * only then is its network namespace entered. The probe only connects and
 * reads, so it needs no lease and no fault role; a host process target needs
 * role host, as target.resolve does. */
#include "server-internal.h"

#include <stdio.h>

#include "agent/probe-netns.h"
#include "agent/probe-target.h"
#include "agent/rpc.h"

int agent_probe_run(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        struct agent_probe_req req;
        struct target_identity t;
        struct probe_view view;
        struct probe_outcome out;
        if (agent_probe_req_from_json(json_object_get(params, "probe"), &req, msg, size) < 0)
                return RPC_INVALID_PARAMS;
        int r = agent_target_of(s, json_object_get(params, "target"), &t, msg, size);
        if (r < 0)
                return r;
        if (t.main.pid <= 0) {
                snprintf(msg, size, "target %s is not running: nothing to probe from", t.container_name);
                return RPC_TARGET_MISSING;
        }
        if (req.kind == AGENT_PROBE_EXEC) {
                int kind = engine_kind_from_string(t.engine);
                struct engine *e = kind >= 0 ? agent_engine(s, (enum engine_kind)kind, msg, size) : NULL;
                if (!e) {
                        if (kind < 0)
                                snprintf(msg, size, "probe.run: an exec probe needs a container target");
                        return RPC_TASK_FAILED;
                }
                probe_target_exec(e, &t, &req, &out);
        } else if (req.kind == AGENT_PROBE_FILE)
                probe_target_file(&t.main, &req, &out);
        else if (req.kind == AGENT_PROBE_PROCESS)
                probe_target_process(&t.main, &req, &out);
        else if (probe_view_read(&t.main, &view) < 0) {
                snprintf(msg, size, "target %s (pid %d) is gone", t.container_name, (int)t.main.pid);
                return RPC_TARGET_MISSING;
        } else
                probe_netns_run(&t.main, &view, &req, &out);
        *ret = json_pack(
                "{s:b, s:f, s:I, s:s, s:s}", "ok", out.ok, "latency_ms", out.latency_ms, "status",
                (json_int_t)out.status, "detail", out.detail, "container", t.container_name);
        return 0;
}
