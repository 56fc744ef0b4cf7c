#pragma once

#include "catalog.h"

/* Helpers to keep the entries (catalog-FAMILY.c) one line per parameter. Bounds are inclusive
 * and in the stored unit (milliseconds, bytes, bits per second). */
#define P_INT(n, d, lo, hi, h)                                                                              \
        {                                                                                                   \
                .name = n, .type = PARAM_INTEGER, .has_default = true,                                      \
                .def = { .type = PARAM_INTEGER, .i = d }, .has_min = true, .min = lo, .has_max = true,      \
                .max = hi, .help = h                                                                        \
        }
#define P_INT_REQ(n, lo, hi, h)                                                                             \
        {                                                                                                   \
                .name = n, .type = PARAM_INTEGER, .required = true, .has_min = true, .min = lo,             \
                .has_max = true, .max = hi, .help = h                                                       \
        }
#define P_INT_OPT(n, lo, hi, h)                                                                             \
        {                                                                                                   \
                .name = n, .type = PARAM_INTEGER, .has_min = true, .min = lo, .has_max = true, .max = hi,   \
                .help = h                                                                                   \
        }
#define P_MS_ALIAS(n, d, lo, hi, al, h)                                                                     \
        {                                                                                                   \
                .name = n, .type = PARAM_INTEGER, .has_default = true,                                      \
                .def = { .type = PARAM_INTEGER, .i = d }, .has_min = true, .min = lo, .has_max = true,      \
                .max = hi, .alias = al, .help = h                                                           \
        }
#define P_PCT(n, d, lo, hi, h)                                                                              \
        {                                                                                                   \
                .name = n, .type = PARAM_PERCENT, .has_default = true,                                      \
                .def = { .type = PARAM_PERCENT, .f = d }, .has_min = true, .min = lo, .has_max = true,      \
                .max = hi, .help = h                                                                        \
        }
#define P_PCT_OPT(n, lo, hi, h)                                                                             \
        {                                                                                                   \
                .name = n, .type = PARAM_PERCENT, .has_min = true, .min = lo, .has_max = true, .max = hi,   \
                .help = h                                                                                   \
        }
#define P_DUR(n, d_ms, lo_ms, hi_ms, h)                                                                     \
        {                                                                                                   \
                .name = n, .type = PARAM_DURATION, .has_default = true,                                     \
                .def = { .type = PARAM_DURATION, .i = d_ms }, .has_min = true, .min = lo_ms,                \
                .has_max = true, .max = hi_ms, .help = h                                                    \
        }
#define P_DUR_OPT(n, lo_ms, hi_ms, h)                                                                       \
        {                                                                                                   \
                .name = n, .type = PARAM_DURATION, .has_min = true, .min = lo_ms, .has_max = true,          \
                .max = hi_ms, .help = h                                                                     \
        }
#define P_BYTES(n, d, lo, hi, h)                                                                            \
        {                                                                                                   \
                .name = n, .type = PARAM_BYTES, .has_default = true,                                        \
                .def = { .type = PARAM_BYTES, .u = d }, .has_min = true, .min = lo, .has_max = true,        \
                .max = hi, .help = h                                                                        \
        }
#define P_BYTES_OPT(n, lo, hi, h)                                                                           \
        { .name = n, .type = PARAM_BYTES, .has_min = true, .min = lo, .has_max = true, .max = hi, .help = h }
#define P_RATE_REQ(n, lo, hi, h)                                                                            \
        {                                                                                                   \
                .name = n, .type = PARAM_RATE, .required = true, .has_min = true, .min = lo,                \
                .has_max = true, .max = hi, .help = h                                                       \
        }
#define P_STR(n, d, h)                                                                                      \
        {                                                                                                   \
                .name = n, .type = PARAM_STRING, .has_default = true,                                       \
                .def = { .type = PARAM_STRING, .s = d }, .help = h                                          \
        }
#define P_STR_OPT(n, h)                                                                                     \
        { .name = n, .type = PARAM_STRING, .help = h }
/* Text of a kind (catalog.h): checked at validation and again by the agent. */
#define P_PATH(n, d, h)                                                                                     \
        {                                                                                                   \
                .name = n, .type = PARAM_PATH, .has_default = true, .def = { .type = PARAM_PATH, .s = d },  \
                .help = h                                                                                   \
        }
#define P_DNS_OPT(n, h)                                                                                     \
        { .name = n, .type = PARAM_DNS_NAME, .help = h }
#define P_URL_OPT(n, h)                                                                                     \
        { .name = n, .type = PARAM_URL, .help = h }
#define P_STR_REQ(n, h)                                                                                     \
        { .name = n, .type = PARAM_STRING, .required = true, .help = h }
#define P_ENUM(n, d, ch, h)                                                                                 \
        {                                                                                                   \
                .name = n, .type = PARAM_ENUM, .has_default = true, .def = { .type = PARAM_ENUM, .s = d },  \
                .choices = ch, .help = h                                                                    \
        }

#define PARAMS(...)                                                                                         \
        .params = (const struct param_spec[]){ __VA_ARGS__ },                                               \
        .n_params = sizeof((const struct param_spec[]){ __VA_ARGS__ }) / sizeof(struct param_spec)

/* The entries, one array per family (catalog-FAMILY.c), each sorted by id;
 * catalog.c indexes them all by id. */
extern const struct fault_def catalog_process[], catalog_resource[], catalog_network[], catalog_app[];
extern const size_t catalog_process_count, catalog_resource_count, catalog_network_count, catalog_app_count;
