#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "drill/drill.h"

/* Malformed drills: each row is a whole file, the line:col the error must
 * point at and its exact one-line message (mh_error.msg, what the CLI prints
 * after "error: "). Every failure is -EINVAL with exit class 4. */

struct bad {
        const char *yaml;
        unsigned line, col;
        const char *msg;
};

/* H: lines 1-2. F: lines 1-5, a fault entry starts on line 6, col 9. OK: a
 * whole valid drill, lines 1-8. S: lines 1-7, the step starts on line 8,
 * col 5. P: the probe mapping is on line 10, col 16. SIG: OK plus one
 * signal, lines 1-13. */
#define H   "kind: drill\nname: d\n"
#define F   H "containers:\n  api:\n    faults:\n"
#define X   "execution:\n  - parallel: [api]\n"
#define OK  F "      - fault: proc.pause\n" X
#define S   F "      - fault: proc.pause\nexecution:\n"
#define P   S "  - check_spec:\n      - execution: host\n        probe: "
#define SIG OK "steady_state:\n  signals:\n    - name: s\n      source_id: a\n      expect: {lte: 1}\n"
#define FLT "containers.api.faults[0]"

static const struct bad parse_errors[] = {
        /* the document */
        { "kind: [drill\n", 2, 1,
          "YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence" },
        { "- a\n- b\n", 1, 1, "a drill is a mapping with kind, name, containers and execution; got a list" },
        { "", 1, 1, "the file is empty" },
        { H "name: e\n", 3, 1, "duplicate key 'name'" },
        { H "\"a\\nb\": 1\n\"a\\nb\": 2\n", 4, 1, "duplicate key 'a?b'" },
        { F "      - fault: proc.pause\n        params: *nope\n" X, 7, 17,
          "alias '*nope' refers to no earlier anchor" },
        /* top level */
        { H "contianers: {}\n", 3, 1, "unknown key 'contianers' (did you mean 'containers'?)" },
        { H "runbook: {}\n", 3, 1, "unknown key 'runbook'" },
        { H "\"a\\nb\": 1\n", 3, 1, "unknown key 'a?b'" }, /* control characters never break the line */
        { "name: d\ncontainers: {}\n", 1, 1, "missing required key 'kind'" },
        { "kind: experiment\nname: d\n", 1, 7, "kind: must be 'drill', got 'experiment'" },
        { "kind: drill\n", 1, 1, "missing required key 'name'" },
        { "kind: drill\nname: ''\n", 2, 7, "name: must be 1 to 128 printable characters" },
        { H "containers: {a: {faults: [{fault: proc.pause}]}}\ntargets:\n  b: {}\n" X, 4, 1,
          "a drill declares its targets under exactly one of 'containers' or 'targets'" },
        { H X, 1, 1, "a drill declares its targets under exactly one of 'containers' or 'targets'" },
        { H "containers: {}\n" X, 3, 13, "containers: needs 1 to 1000 entries" },
        { F "      - fault: proc.pause\n", 1, 1, "missing required key 'execution'" },
        { S "  - {}\n", 8, 5,
          "execution[0]: a step has exactly one key "
          "(parallel, sequential, wait, check or check_spec), got 0" },
        /* targets: */
        { H "targets:\n  w:\n    runtime: docker\n    docker: {container_name: w}\n"
            "    kubernetes: {kind: pod, name: x}\n    faults: [{fault: proc.pause}]\n" X,
          5, 5, "targets.w: a target has one of 'docker', 'kubernetes' or 'process'" },
        { H "targets:\n  w:\n    runtime: process\n    faults: [{fault: proc.pause}]\n" X, 5, 5,
          "targets.w: runtime 'process' needs a 'process: {pid: N}' or 'process: {name: NAME}' block" },
        { H "targets:\n  w:\n    runtime: process\n    process: {pid: 1, name: x}\n    faults: [{fault: "
            "proc.pause}]\n" X,
          6, 14, "targets.w.process: a process target needs exactly one of 'pid' or 'name'" },
        { H "targets:\n  w:\n    runtime: process\n    process: {name: a-very-long-process-name}\n"
            "    faults: [{fault: proc.pause}]\n" X,
          6, 21,
          "targets.w.process: 'a-very-long-process-name' is longer than a process name can be (15 "
          "characters)" },
        { H "targets:\n  w:\n    runtime: process\n    process: {pid: 0}\n    faults: [{fault: "
            "proc.pause}]\n" X,
          6, 20, "targets.w.process.pid: 0 is out of range (1..2147483647)" },
        { H "targets:\n  w:\n    runtime: process\n    process: {pid: 7, include_containers: true}\n"
            "    faults: [{fault: proc.pause}]\n" X,
          6, 43,
          "targets.w.process: include_containers goes with 'name': a pid names one process wherever it "
          "runs" },
        { H "targets:\n  w:\n    runtime: process\n    process: {name: x, include_containers: maybe}\n"
            "    faults: [{fault: proc.pause}]\n" X,
          6, 44, "targets.w.process.include_containers: expected true or false, got 'maybe'" },
        { H "targets:\n  w:\n    runtime: process\n    process: {name: x, include_container: true}\n"
            "    faults: [{fault: proc.pause}]\n" X,
          6, 24, "targets.w.process: unknown key 'include_container' (did you mean 'include_containers'?)" },
        { H "targets:\n  w:\n    runtime: kubernetes\n    kubernetes: {kind: container, name: x}\n", 6, 24,
          "targets.w.kubernetes.kind: 'container' is not one of "
          "deployment, statefulset, daemonset, service, pod, k8s_node" },
        { H "targets:\n  w:\n    runtime: docker\n    docker: {container_name: w}\n"
            "    selection: {mode: all}\n",
          7, 23, "targets.w.selection: selection mode 'all' is reserved; only 'one' is supported" },
        /* faults */
        { F "      - duration: 10s\n" X, 6, 9, FLT ": missing required key 'fault'" },
        { F "      - fault: mem.exhuast\n" X, 6, 16,
          FLT ".fault: unknown fault 'mem.exhuast' (did you mean 'mem.exhaust'?)" },
        { F "      - fault: app.response_5xx\n" X, 6, 16,
          FLT ".fault: app.response_5xx is in the catalog but cannot run here: "
              "not implemented in this version: the proxy's canned status is offered as "
              "http.error_injection, not a second id; alternative: use http.error_injection with status 503 "
              "(not runnable in this build either)" },
        { F "      - fault: mem.exhaust\n        amont: 1G\n" X, 7, 9,
          FLT ": unknown parameter 'amont' for mem.exhaust (did you mean 'amount'?)" },
        { F "      - fault: mem.exhaust\n        zzzz: 1G\n" X, 7, 9,
          FLT ": unknown parameter 'zzzz' for mem.exhaust (parameters: percent, amount, mode)" },
        { F "      - fault: proc.pause\n        signal: SIGSTOP\n" X, 7, 9,
          FLT ": proc.pause takes no parameters, got 'signal'" },
        { F "      - fault: mem.exhaust\n        duraton: 10s\n" X, 7, 9,
          FLT ": unknown key 'duraton' (did you mean 'duration'?)" },
        { F "      - fault: mem.exhaust\n        amount: 1G\n        params:\n          amount: 2G\n" X, 9,
          11, FLT ".params: parameter 'amount' is given twice" },
        { F "      - fault: net.latency\n        seconds: 2s\n        delay_ms: 2000\n" X, 8, 9,
          FLT ": parameter 'delay_ms' is given twice ('seconds' is another name for it)" },
        { F "      - fault: mem.exhaust\n        params:\n          duration: 5s\n" X, 8, 11,
          FLT ".params: 'duration' is not a parameter; write it beside 'fault', not under 'params'" },
        { F "      - fault: net.bandwidth\n" X, 6, 9, FLT ": net.bandwidth needs parameter 'rate'" },
        /* parameter values, one of each type */
        { F "      - fault: net.latency\n        jitter_ms: 1.5\n" X, 7, 20,
          FLT ".jitter_ms: expected a whole number, got '1.5'" },
        { F "      - fault: cpu.saturate\n        percent: lots\n" X, 7, 18,
          FLT ".percent: expected a percentage such as 50 or 12.5%, got 'lots'" },
        { F "      - fault: process.crash_loop\n        interval: soon\n" X, 7, 19,
          FLT ".interval: expected a duration such as 500ms, 10s, 5m, got 'soon'" },
        { F "      - fault: mem.exhaust\n        amount: 1X\n" X, 7, 17,
          FLT ".amount: expected a size such as 64k, 256M, 1G, got '1X'" },
        { F "      - fault: net.bandwidth\n        rate: 10\n" X, 7, 15,
          FLT ".rate: expected a rate with a unit such as 10mbit, 512kbit, 2kbps, got '10'" },
        { F "      - fault: net.latency\n        direction: egres\n" X, 7, 20,
          FLT ".direction: 'egres' is not one of egress, ingress, both (did you mean 'egress'?)" },
        { F "      - fault: net.latency\n        direction: sideways\n" X, 7, 20,
          FLT ".direction: 'sideways' is not one of egress, ingress, both" },
        { F "      - fault: net.latency\n        jitter_ms: 99999999999999999999999\n" X, 7, 20,
          FLT ".jitter_ms: '99999999999999999999999' is too large" },
        { F "      - fault: net.latency\n        seconds: 0.5ms\n" X, 7, 18,
          FLT ".seconds: '0.5ms' is finer than the resolution of 1ms" },
        { F "      - fault: mem.exhaust\n        amount: 1.1T\n" X, 7, 17,
          FLT ".amount: '1.1T' is finer than the resolution of 1 byte" },
        /* out of range, in each type's own unit */
        { F "      - fault: net.latency\n        jitter_ms: 70000\n" X, 7, 20,
          FLT ".jitter_ms: 70000 is out of range (0..60000)" },
        { F "      - fault: cpu.saturate\n        percent: 150%\n" X, 7, 18,
          FLT ".percent: 150% is out of range (1%..100%)" },
        { F "      - fault: process.crash_loop\n        interval: 50ms\n" X, 7, 19,
          FLT ".interval: 50ms is out of range (100ms..1h)" },
        { F "      - fault: mem.exhaust\n        amount: 512k\n" X, 7, 17,
          FLT ".amount: 512k is out of range (1M..1T)" },
        { F "      - fault: net.bandwidth\n        rate: 1bit\n" X, 7, 15,
          FLT ".rate: 1bit is out of range (8bit..100gbit)" },
        { F "      - fault: net.latency\n        seconds: 2m\n" X, 7, 18,
          FLT ".seconds: 2m is out of range (1ms..1m)" },
        /* fault duration and the other reserved keys */
        { F "      - fault: proc.pause\n        duration: 1h\n" X, 7, 19,
          FLT ".duration: 1h exceeds the maximum of 600s for proc.pause" },
        { F "      - fault: proc.pause\n        duration: 50ms\n" X, 7, 19,
          FLT ".duration: 50ms is shorter than the minimum of 100ms" },
        { F "      - fault: proc.pause\n        duration: 1.0005s\n" X, 7, 19,
          FLT ".duration: '1.0005s' is finer than the 1ms resolution of durations" },
        { F "      - fault: proc.pause\n        on_failure: retry\n" X, 7, 21,
          FLT ".on_failure: 'retry' is not one of abort_and_recover, continue" },
        { F "      - fault: proc.pause\n        targets: web\n" X, 7, 18,
          FLT ".targets: expected a list, got a scalar" },
        /* config */
        { H "config:\n  risk_ceiling: extreme\n", 4, 17,
          "config.risk_ceiling: 'extreme' is not one of low, medium, high, critical" },
        { H "config:\n  recovery: maybe\n", 4, 13, "config.recovery: expected true or false, got 'maybe'" },
        { H "config:\n  timeout: forever\n", 4, 12,
          "config.timeout: invalid duration 'forever' (use e.g. 500ms, 10s, 5m, 1.5h, 2d)" },
        { H "config:\n  timeout: 500ms\n", 4, 12, "config.timeout: 500ms is out of range (1s..7d)" },
        { H "config:\n  maniac:\n    level: 6\n", 5, 12, "config.maniac.level: 6 is out of range (1..5)" },
        { H "config:\n  timeout: 99999999999999999999d\n", 4, 12,
          "config.timeout: '99999999999999999999d' is too long" },
        /* steps */
        { S "  - parallel: [api]\n    wait: 5s\n", 8, 5,
          "execution[0]: a step has exactly one key "
          "(parallel, sequential, wait, check or check_spec), got 2" },
        { S "  - paralel: [api]\n", 8, 5,
          "execution[0]: 'paralel' is not one of parallel, sequential, wait, check, check_spec "
          "(did you mean 'parallel'?)" },
        { S "  - parallel: api\n", 8, 15, "execution[0].parallel: expected a list, got a scalar" },
        { S "  - parallel: []\n", 8, 15, "execution[0].parallel: must not be empty" },
        { S "  - parallel: [{a: b}]\n", 8, 16,
          "execution[0].parallel[0]: expected a single value, got a mapping" },
        { S "  - wait: soon\n", 8, 11,
          "execution[0].wait: invalid duration 'soon' (use e.g. 500ms, 10s, 5m, 1.5h, 2d)" },
        { S "  - wait: {}\n", 8, 11, "execution[0].wait: missing required key 'duration'" },
        { S "  - wait: {duration: 5s, timeout: 1s}\n", 8, 26, "execution[0].wait: unknown key 'timeout'" },
        { S "  - wait: {until_check_passes: {type: ftp}}\n", 8, 39,
          "execution[0].wait.until_check_passes.type: 'ftp' is not one of "
          "http, exec, tcp, process, metric, file (did you mean 'http'?)" },
        { S "  - wait: {until_check_passes: ~, timeout: 3s}\n", 8, 32,
          "execution[0].wait: until_check_passes needs a check id or a probe" },
        { S "  - check_spec:\n      - {id: '', probe: {type: tcp, host: h, port: 1}}\n", 9, 14,
          "execution[0].check_spec[0].id: must not be empty" },
        { S "  - check_spec:\n      - {target: api, probe: {type: tcp, host: h, port: 1}}\n", 9, 18,
          "execution[0].check_spec[0]: 'target' goes with execution container, service or process, not "
          "host" },
        { S "  - check:\n      - http: ftp://x\n", 9, 15,
          "execution[0].check[0].http: 'ftp://x' is not an http:// or https:// URL" },
        { S "  - check_spec:\n      - id: a\n        execution: host\n", 9, 9,
          "execution[0].check_spec[0]: missing required key 'probe'" },
        { S "  - check_spec:\n      - execution: container\n        probe: {type: tcp, host: h, port: 1}\n",
          9, 9, "execution[0].check_spec[0]: execution 'container' needs a 'target'" },
        /* probes */
        { P "{type: tcp, host: h, port: 1, verbose: true}\n", 10, 46,
          "execution[0].check_spec[0].probe: unknown key 'verbose'" },
        { P "{type: http, url: ftp://x/}\n", 10, 34,
          "execution[0].check_spec[0].probe.url: 'ftp://x/' is not an http:// or https:// URL" },
        { P "{type: process, name: nginx, pid: 1}\n", 10, 16,
          "execution[0].check_spec[0].probe: a process probe needs exactly one of 'name' or 'pid'" },
        { P "{type: tcp, host: h, port: 70000}\n", 10, 43,
          "execution[0].check_spec[0].probe.port: 70000 is out of range (1..65535)" },
        { P "{type: exec, cmd: []}\n", 10, 34, "execution[0].check_spec[0].probe.cmd: must not be empty" },
        /* success */
        { OK "success:\n  criteria:\n    - type: status\n      expected: 200\n", 11, 7,
          "success.criteria[0]: missing required key 'source_id'" },
        { OK "success:\n  criteria:\n    - type: latency\n      source_id: a\n      lt_ms: 0\n", 13, 14,
          "success.criteria[0].lt_ms: must be greater than 0" },
        { OK "success:\n  criteria:\n    - {type: metric, source_id: a, gt: 5, lt: 5}\n", 11, 7,
          "success.criteria[0]: can never pass: no value is above gt 5 and below lt 5" },
        { OK "success:\n  criteria:\n    - {type: boolean, source_id: ''}\n", 11, 34,
          "success.criteria[0].source_id: must not be empty" },
        { OK "success:\n  criteria:\n    - type: metric\n      source_id: a\n", 11, 7,
          "success.criteria[0]: a metric criterion needs 'gt', 'lt' or both" },
        { OK "success:\n  criteria:\n    - {type: boolean, source_id: a, over: max}\n", 11, 43,
          "success.criteria[0].over: a boolean criterion takes last, all or any, not 'max'" },
        { OK "success:\n  criteria:\n    - {type: latency, source_id: a, lt_ms: 1, over: p90}\n", 11, 53,
          "success.criteria[0].over: 'p90' is not one of last, all, any, max, min, p50, p95, p99, mean (did "
          "you mean 'p50'?)" },
        { OK "success:\n  criteria:\n    - {type: latency, source_id: a, lt_ms: 1, window: before}\n", 11,
          55, "success.criteria[0].window: 'before' is not one of whole, baseline, during, after" },
        /* observability, slo */
        { OK "observability:\n  sources:\n    - kind: traces\n      source_id: a\n", 11, 13,
          "observability.sources[0].kind: 'traces' is not one of logs, inspection, probe, metrics" },
        { OK "observability:\n  sources:\n    - kind: logs\n      source_id: a\n"
             "      container: api\n      tail: 0\n",
          14, 13, "observability.sources[0].tail: 0 is out of range (1..10000)" },
        { OK
          "observability:\n  sources:\n    - {kind: logs, source_id: a, container: api, since: yesterday}\n",
          11, 57,
          "observability.sources[0].since: since 'yesterday' is not a duration ago (1s..366d, e.g. 10m), an "
          "RFC 3339 time (2026-12-03T17:00:00Z) or unix seconds" },
        { OK
          "observability:\n  sources:\n    - {kind: logs, source_id: a, container: api, pattern: 'a(b'}\n",
          11, 59,
          "observability.sources[0].pattern: pattern 'a(b' is not a POSIX extended regex: Unmatched ( or "
          "\\(" },
        { OK "observability:\n  sources:\n    - {kind: metrics, source_id: m, endpoint: not-a-url, metric: "
             "up}\n",
          11, 47, "observability.sources[0].endpoint: 'not-a-url' is not an http:// or https:// URL" },
        { OK "slo:\n  - metric: m\n    operator: le\n", 11, 15,
          "slo[0].operator: 'le' is not one of lt, lte, gt, gte, eq (did you mean 'lt'?)" },
        /* steady_state */
        { OK "steady_state:\n  signals:\n    - name: s\n      source_id: a\n      expect: {lte: 1}\n"
             "      tolerance: {at_most: 1}\n",
          11, 7, "steady_state.signals[0]: a signal needs exactly one of 'expect' or 'tolerance'" },
        { SIG "      baseline_window: 10s\n", 14, 24,
          "steady_state.signals[0]: 'baseline_window' only goes with 'tolerance'" },
        { SIG "  phases:\n    - mid: {assert_unchanged: [s]}\n", 15, 7,
          "steady_state.phases[0]: 'mid' is not one of pre, before, during, post, after" },
        { SIG "  phases:\n    - post: {assert_recovered: [s], within: 2}\n", 15, 45,
          "steady_state.phases[0].post: 'within' only goes with 'assert_degraded'" },
        { OK "steady_state:\n  signals:\n    - {name: s, source_id: a, expect: {lte: 1, gte: 2}}\n", 11, 39,
          "steady_state.signals[0].expect: can never hold: lte 1 is below gte 2" },
        { SIG "  phases:\n    - pre: {}\n", 15, 12,
          "steady_state.phases[0].pre: an empty phase asserts nothing" },
};

/* Drills that parse but whose cross references do not hold. TWO: lines 1-7. */
#define TWO                                                                                                 \
        H "containers:\n  api:\n    faults: [{fault: proc.pause}]\n"                                        \
          "  web:\n    faults: [{fault: proc.pause}]\n"
#define CHECK_A "  - check_spec: [{id: a, execution: host, probe: {type: tcp, host: h, port: 1}}]\n"
#define SIGNAL  "steady_state:\n  signals:\n    - {name: s, source_id: a, expect: {lte: 1}}\n"
#define OBS     "observability:\n  sources:\n"

static const struct bad check_errors[] = {
        { TWO "execution:\n  - parallel: [api, wbe]\n", 9, 21,
          "execution[0].parallel[1]: 'wbe' is not a declared target (did you mean 'web'?)" },
        { TWO "execution:\n  - sequential: [zzzzzz]\n", 9, 18,
          "execution[0].sequential[0]: 'zzzzzz' is not a declared target (declared: api, web)" },
        { TWO "execution:\n  - parallel: [\"a\\tpi\"]\n", 9, 16,
          "execution[0].parallel[0]: 'a?pi' is not a declared target (did you mean 'api'?)" },
        { TWO "execution:\n  - parallel: [api, web, api]\n", 9, 26,
          "execution[0].parallel[2]: 'api' is listed twice" },
        { TWO "execution:\n" CHECK_A CHECK_A, 10, 18,
          "execution[1]: check id 'a' is already used on line 9" },
        { TWO "execution:\n  - wait: {until_check_passes: nope}\n", 9, 32,
          "execution[0].wait.until_check_passes: no check has id 'nope'" },
        { TWO "execution:\n  - wait: 1s\n" OBS "    - {kind: inspection, source_id: x, container: api}\n"
              "    - {kind: inspection, source_id: x, container: api}\n",
          13, 7, "observability.sources[1]: source_id 'x' is already used on line 12" },
        { TWO "execution:\n" CHECK_A OBS "    - {kind: inspection, source_id: a, container: api}\n", 12, 7,
          "observability.sources[0]: source_id 'a' is already a check id (line 9)" },
        { TWO "execution:\n  - wait: 1s\n" SIGNAL
              "  phases:\n    - during: {assert_degraded: [t], within: 2}\n",
          14, 34, "steady_state.phases[0]: no signal named 't'" },
        { TWO "execution:\n  - wait: 1s\n" SIGNAL "    - {name: s, source_id: b, expect: {lte: 1}}\n", 13, 7,
          "steady_state.signals[1]: signal 's' is already declared on line 12" },
        { TWO "execution:\n  - wait: 1s\n" SIGNAL, 12, 7,
          "steady_state.signals[0]: source_id 'a' names no observability source of the drill (nor "
          "<id>.<name> of one)" },
        { TWO "execution:\n" CHECK_A "slo:\n  - {metric: b.latency_ms}\n", 11, 14,
          "slo[0]: metric 'b.latency_ms' names no observability source or check of the drill (nor "
          "<id>.<name> of one)" },
        { TWO "execution:\n" CHECK_A "slo:\n  - {metric: a.latency_ms, kind: recovery_time}\n", 11, 14,
          "slo[0]: recovery_time reads a boolean source or check; 'a.latency_ms' is not the id of one" },
};

static bool row_ok(const struct bad *t, size_t i, bool check) {
        _cleanup_(drill_spec_freep) struct drill_spec *spec = NULL;
        struct mh_error e = { 0 };
        int r = drill_parse("t.yaml", t->yaml, strlen(t->yaml), &spec, &e);

        if (check && r < 0) {
                print_error("row %zu: parse failed at %u:%u: %s\n", i, e.line, e.col, e.msg);
                return false;
        }
        if (check)
                r = drill_spec_check(spec, &e);
        if (r >= 0) {
                print_error("row %zu: accepted\n%s\n", i, t->yaml);
                return false;
        }
        if (r == -EINVAL && e.exit == MH_EXIT_VALIDATION_ERROR && streq(e.path, "t.yaml") &&
            e.line == t->line && e.col == t->col && streq(e.msg, t->msg) && (check || !spec))
                return true;
        print_error(
                "row %zu: got %d exit %d %u:%u: %s\n        want %u:%u: %s\n", i, r, e.exit, e.line, e.col,
                e.msg, t->line, t->col, t->msg);
        return false;
}

/* Reports every row that differs, then fails once, so one run shows them all. */
static void run_table(const struct bad *rows, size_t n, bool check) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
                bad += !row_ok(&rows[i], i, check);
        assert_int_equal(bad, 0);
}

static void test_parse_errors(void **state) {
        run_table(parse_errors, ELEMENTSOF(parse_errors), false);
}

static void test_check_errors(void **state) {
        run_table(check_errors, ELEMENTSOF(check_errors), true);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_errors),
                cmocka_unit_test(test_check_errors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
