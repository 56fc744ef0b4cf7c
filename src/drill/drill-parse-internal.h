#pragma once

/* Shared by the drill-*.c parser files: a parser context that knows where in
 * the document it is ("containers.api.faults[0].percent"), and typed field
 * readers that report errors as FILE:LINE:COL pointing at the offending node.
 *
 * Conventions: a reader leaves *ret untouched when the key is absent or null,
 * so callers set defaults first; it fails at the value for a bad value, at the
 * key for an unknown key, and at the mapping for a missing required key. */

#include "drill.h"
#include "ydoc.h"

#define DP_WHERE_MAX 512

struct dparser {
        struct drill_spec *spec;
        struct arena *arena;
        const char *path;
        struct mh_error *reterr;
        char where[DP_WHERE_MAX];
        size_t where_len;
};

size_t dp_enter_key(struct dparser *p, const char *key);
size_t dp_enter_index(struct dparser *p, size_t i);
void dp_leave(struct dparser *p, size_t mark);

int dp_fail(struct dparser *p, const struct ynode *n, const char *fmt, ...) _printf_(3, 4);
int dp_fail_pos(struct dparser *p, struct srcpos pos, const char *fmt, ...) _printf_(3, 4);
int dp_oom(struct dparser *p);
/* Messages quote the document (keys, names, values); a control character
 * there would break the one-line error, so each becomes '?'. */
void dp_error_oneline(struct mh_error *e);
struct srcpos dp_pos(const struct ynode *n);

/* The value of key if present and not null. */
const struct ynode *dp_get(const struct ynode *map, const char *key);
int dp_want(struct dparser *p, const struct ynode *n, enum ynode_kind kind);
/* A list of at most max items (and at least min). */
int dp_want_list(struct dparser *p, const struct ynode *n, size_t min, size_t max);
int dp_check_keys(struct dparser *p, const struct ynode *map, const char *const *allowed);
int dp_require(struct dparser *p, const struct ynode *map, const char *key);

int dp_scalar(struct dparser *p, const struct ynode *n, const char **ret_text);
/* Node readers: the value itself, already located. */
int dp_str_node(struct dparser *p, const struct ynode *v, const char **ret);
int dp_int_node(struct dparser *p, const struct ynode *v, int64_t min, int64_t max, int64_t *ret);
int dp_dur_node(struct dparser *p, const struct ynode *v, int64_t min_ms, int64_t max_ms, int64_t *ret);
int dp_num_node(struct dparser *p, const struct ynode *v, double min, double max, double *ret);
int dp_bool_node(struct dparser *p, const struct ynode *v, bool *ret);
/* Keyed readers: look up key in map; absent or null leaves *ret alone. */
int dp_str(struct dparser *p, const struct ynode *map, const char *key, const char **ret);
/* dp_str for names and ids: an empty string is an error. */
int dp_id(struct dparser *p, const struct ynode *map, const char *key, const char **ret);
int dp_int(
        struct dparser *p, const struct ynode *map, const char *key, int64_t min, int64_t max, int64_t *ret);
int dp_dur(
        struct dparser *p, const struct ynode *map, const char *key, int64_t min_ms, int64_t max_ms,
        int64_t *ret);
int dp_num(
        struct dparser *p, const struct ynode *map, const char *key, double min, double max, bool *ret_has,
        double *ret);
int dp_bool(struct dparser *p, const struct ynode *map, const char *key, bool *ret);
/* names: the enum's string table, n entries. */
int dp_enum(
        struct dparser *p, const struct ynode *map, const char *key, const char *const *names, size_t n,
        int *ret);
int dp_enum_node(struct dparser *p, const struct ynode *v, const char *const *names, size_t n, int *ret);
/* A required http:// or https:// URL under key. */
int dp_url(struct dparser *p, const struct ynode *map, const char *key, const char **ret);
/* A list of strings; min..DRILL_LIST_MAX items. */
int dp_names(struct dparser *p, const struct ynode *list, size_t min, struct drill_names *ret);

/* Parsers of the drill's parts, one file each. */
int dp_parse_fault(struct dparser *p, const struct ynode *n, struct drill_fault *ret);
int dp_parse_probe(struct dparser *p, const struct ynode *n, struct drill_probe *ret);
int dp_parse_steps(struct dparser *p, const struct ynode *list);
int dp_parse_success(struct dparser *p, const struct ynode *n);
int dp_parse_observability(struct dparser *p, const struct ynode *n);
/* drill-logs.c: tail, since and pattern of a logs source. */
int dp_parse_logs_keys(struct dparser *p, const struct ynode *n, struct drill_obs_source *s);
/* drill-logs.c: a metrics source's metric (a metric probe's query) is a
 * selector basic/prom-text.h reads; key names it for the error. */
int dp_check_metric_selector(struct dparser *p, const struct ynode *n, const char *key, const char *metric);
int dp_parse_slo(struct dparser *p, const struct ynode *n);
int dp_parse_steady_state(struct dparser *p, const struct ynode *n);

extern const char *const on_failure_table[_ON_FAILURE_MAX];
extern const char *const log_level_table[_LOG_LEVEL_MAX];
extern const char *const target_runtime_table[_TARGET_RUNTIME_MAX];
extern const char *const probe_type_table[_PROBE_TYPE_MAX];
extern const char *const check_locus_table[_CHECK_LOCUS_MAX];
extern const char *const step_kind_table[_STEP_KIND_MAX];
extern const char *const criterion_type_table[_CRITERION_TYPE_MAX];
extern const char *const criterion_over_table[_CRITERION_OVER_MAX];
extern const char *const criterion_window_table[_CRITERION_WINDOW_MAX];
extern const char *const obs_kind_table[_OBS_KIND_MAX];
extern const char *const slo_kind_table[_SLO_KIND_MAX];
extern const char *const slo_operator_table[_SLO_OPERATOR_MAX];
extern const char *const severity_table[_SEVERITY_MAX];
extern const char *const ss_phase_table[_SS_PHASE_MAX];

/* Parses a non-empty list node into a new arena array, calling
 * parse_one(p, item, &arr[i]) with "[i]" entered in the where path. */
#define DP_PARSE_LIST(p, list, arr, count, parse_one)                                                       \
        __extension__({                                                                                     \
                int _r_ = dp_want_list((p), (list), 1, DRILL_LIST_MAX);                                     \
                if (_r_ >= 0) {                                                                             \
                        (count) = (list)->n_items;                                                          \
                        (arr) = arena_alloc_array((p)->arena, (count), sizeof(*(arr)));                     \
                        _r_ = (arr) ? 0 : dp_oom(p);                                                        \
                }                                                                                           \
                for (size_t _i_ = 0; _r_ >= 0 && _i_ < (count); _i_++) {                                    \
                        size_t _m_ = dp_enter_index((p), _i_);                                              \
                        _r_ = parse_one((p), (list)->items[_i_], &(arr)[_i_]);                              \
                        if (_r_ >= 0)                                                                       \
                                dp_leave((p), _m_);                                                         \
                }                                                                                           \
                _r_;                                                                                        \
        })

#define DP_ENUM(p, map, key, name, retp)                                                                    \
        __extension__({                                                                                     \
                int _v_ = (int)*(retp);                                                                     \
                int _r_ = dp_enum((p), (map), (key), name##_table, ELEMENTSOF(name##_table), &_v_);         \
                if (_r_ >= 0)                                                                               \
                        *(retp) = (__typeof__(*(retp)))_v_;                                                 \
                _r_;                                                                                        \
        })
