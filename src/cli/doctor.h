#pragma once

/* `mayhem doctor`: one check per line, each measured the way the code that
 * uses the thing measures it (the engine client, the local or --agent
 * agent's capabilities.query, the impact gate, the evidence store), with
 * what its absence disables and how to fix it. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

enum doctor_status {
        DOCTOR_OK,
        DOCTOR_WARN,
        DOCTOR_MISSING,
        _DOCTOR_STATUS_MAX,
};

const char *doctor_status_to_string(enum doctor_status s); /* "ok", "warn", "missing" */
int doctor_status_from_string(const char *s);

#define DOCTOR_CHECKS_MAX 48
#define DOCTOR_TEXT_MAX   1024

struct doctor_check {
        char check[64];
        enum doctor_status status;
        /* Missing, and something the catalog or a run needs goes with it
         * (a fault bypassed, no run possible): the exit is then 3. */
        bool blocking;
        char detail[DOCTOR_TEXT_MAX];
        char disables[DOCTOR_TEXT_MAX]; /* "" when nothing */
        char fix[DOCTOR_TEXT_MAX];      /* "" when nothing to do */
};

struct doctor_report {
        struct doctor_check checks[DOCTOR_CHECKS_MAX];
        size_t n;
};

/* A new check named name (printf-style), its texts empty; a report already
 * full gives its last slot again, so a check is never written past the end. */
struct doctor_check *doctor_add(struct doctor_report *r, enum doctor_status status, const char *fmt, ...)
        _printf_(3, 4);
void doctor_detail(struct doctor_check *c, const char *fmt, ...) _printf_(2, 3);
void doctor_disables(struct doctor_check *c, const char *fmt, ...) _printf_(2, 3);
void doctor_fix(struct doctor_check *c, const char *fmt, ...) _printf_(2, 3);
/* Appends "sep text" to buf (size DOCTOR_TEXT_MAX), cut at the end with "...". */
void doctor_append(char *buf, const char *sep, const char *fmt, ...) _printf_(3, 4);

/* [{check, status, detail, disables, fix, blocking}] */
json_t *doctor_report_json(const struct doctor_report *r);
bool doctor_report_blocking(const struct doctor_report *r);

/* The ids of the runnable catalog faults whose needs (NEED_* bits) meet
 * need_bits, joined with ", " into buf (DOCTOR_TEXT_MAX); how many. */
size_t doctor_faults_needing(unsigned need_bits, char *buf);

/* The agent's capabilities.query with {"host": true} (NULL when no agent
 * answered): the host checks (privileges, cgroups, time namespaces, htb) and
 * the kernel checks (every KERNEL_FEATURES entry, through the impact gate). */
void doctor_check_host(struct doctor_report *r, const json_t *caps, const char *where);
void doctor_check_kernel(struct doctor_report *r, const json_t *caps, const char *where);
