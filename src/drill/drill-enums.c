#include "drill.h"

#include "basic/string-table.h"
#include "drill-parse-internal.h"

const char *const on_failure_table[_ON_FAILURE_MAX] = {
        [ON_FAILURE_ABORT_AND_RECOVER] = "abort_and_recover",
        [ON_FAILURE_CONTINUE] = "continue",
};
DEFINE_STRING_TABLE_LOOKUP(on_failure, enum on_failure)

const char *const log_level_table[_LOG_LEVEL_MAX] = {
        [LOG_LEVEL_DEBUG] = "DEBUG",
        [LOG_LEVEL_INFO] = "INFO",
        [LOG_LEVEL_WARNING] = "WARNING",
        [LOG_LEVEL_ERROR] = "ERROR",
};
DEFINE_STRING_TABLE_LOOKUP(log_level, enum log_level)

const char *const target_runtime_table[_TARGET_RUNTIME_MAX] = {
        [TARGET_RUNTIME_DOCKER] = "docker",
        [TARGET_RUNTIME_KUBERNETES] = "kubernetes",
        [TARGET_RUNTIME_PROCESS] = "process",
};
DEFINE_STRING_TABLE_LOOKUP(target_runtime, enum target_runtime)

const char *const probe_type_table[_PROBE_TYPE_MAX] = {
        [PROBE_HTTP] = "http",       [PROBE_EXEC] = "exec",     [PROBE_TCP] = "tcp",
        [PROBE_PROCESS] = "process", [PROBE_METRIC] = "metric", [PROBE_FILE] = "file",
};
DEFINE_STRING_TABLE_LOOKUP(probe_type, enum probe_type)

const char *const check_locus_table[_CHECK_LOCUS_MAX] = {
        [CHECK_LOCUS_HOST] = "host",
        [CHECK_LOCUS_CONTAINER] = "container",
        [CHECK_LOCUS_SERVICE] = "service",
        [CHECK_LOCUS_PROCESS] = "process",
};
DEFINE_STRING_TABLE_LOOKUP(check_locus, enum check_locus)

const char *const step_kind_table[_STEP_KIND_MAX] = {
        [STEP_PARALLEL] = "parallel", [STEP_SEQUENTIAL] = "sequential", [STEP_WAIT] = "wait",
        [STEP_CHECK] = "check",       [STEP_CHECK_SPEC] = "check_spec",
};
DEFINE_STRING_TABLE_LOOKUP(step_kind, enum step_kind)

const char *const criterion_type_table[_CRITERION_TYPE_MAX] = {
        [CRITERION_STATUS] = "status", [CRITERION_LATENCY] = "latency", [CRITERION_METRIC] = "metric",
        [CRITERION_COUNT] = "count",   [CRITERION_BOOLEAN] = "boolean",
};
DEFINE_STRING_TABLE_LOOKUP(criterion_type, enum criterion_type)

const char *const criterion_over_table[_CRITERION_OVER_MAX] = {
        [CRITERION_OVER_LAST] = "last", [CRITERION_OVER_ALL] = "all", [CRITERION_OVER_ANY] = "any",
        [CRITERION_OVER_MAX] = "max",   [CRITERION_OVER_MIN] = "min", [CRITERION_OVER_P50] = "p50",
        [CRITERION_OVER_P95] = "p95",   [CRITERION_OVER_P99] = "p99", [CRITERION_OVER_MEAN] = "mean",
};
DEFINE_STRING_TABLE_LOOKUP(criterion_over, enum criterion_over)

const char *const criterion_window_table[_CRITERION_WINDOW_MAX] = {
        [CRITERION_WINDOW_BASELINE] = "baseline",
        [CRITERION_WINDOW_DURING] = "during",
        [CRITERION_WINDOW_AFTER] = "after",
        [CRITERION_WINDOW_WHOLE] = "whole",
};
DEFINE_STRING_TABLE_LOOKUP(criterion_window, enum criterion_window)

const char *const obs_kind_table[_OBS_KIND_MAX] = {
        [OBS_LOGS] = "logs",
        [OBS_INSPECTION] = "inspection",
        [OBS_PROBE] = "probe",
        [OBS_METRICS] = "metrics",
};
DEFINE_STRING_TABLE_LOOKUP(obs_kind, enum obs_kind)

const char *const slo_kind_table[_SLO_KIND_MAX] = {
        [SLO_LATENCY] = "latency",
        [SLO_ERROR_BUDGET] = "error_budget",
        [SLO_RECOVERY_TIME] = "recovery_time",
        [SLO_SATURATION] = "saturation",
        [SLO_ABSENCE] = "absence",
};
DEFINE_STRING_TABLE_LOOKUP(slo_kind, enum slo_kind)

const char *const slo_operator_table[_SLO_OPERATOR_MAX] = {
        [SLO_OP_LT] = "lt",   [SLO_OP_LTE] = "lte", [SLO_OP_GT] = "gt",
        [SLO_OP_GTE] = "gte", [SLO_OP_EQ] = "eq",
};
DEFINE_STRING_TABLE_LOOKUP(slo_operator, enum slo_operator)

const char *const severity_table[_SEVERITY_MAX] = {
        [SEVERITY_CRITICAL] = "critical",
        [SEVERITY_WARNING] = "warning",
        [SEVERITY_INFO] = "info",
};
DEFINE_STRING_TABLE_LOOKUP(severity, enum severity)

const char *const ss_phase_table[_SS_PHASE_MAX] = {
        [SS_PHASE_PRE] = "pre",
        [SS_PHASE_DURING] = "during",
        [SS_PHASE_POST] = "post",
};
DEFINE_STRING_TABLE_LOOKUP(ss_phase, enum ss_phase)
