#pragma once

/* The one error contract (shared/STYLE.md): a fallible function returns
 * -errno and, where a person needs to know why, fills a caller-owned
 * struct mh_error. The message lives in a fixed buffer so failing never
 * allocates. Only cli/ and agent/ print it. */

#include <stdbool.h>

#include "exit-code.h"
#include "macro.h"

#define MH_ERROR_MSG_MAX    1024
#define MH_ERROR_PATH_MAX   512
#define MH_ERROR_ID_MAX     64
#define MH_ERROR_REMEDY_MAX 256

struct mh_error {
        int code;                     /* negative errno */
        enum mh_exit exit;            /* what the CLI should exit with */
        char id[MH_ERROR_ID_MAX];     /* reference-style code, e.g. "plan_uncompensated_fault" */
        char path[MH_ERROR_PATH_MAX]; /* source file, when the error points into one */
        unsigned line, col;           /* 1-based; 0 when unknown */
        char msg[MH_ERROR_MSG_MAX];
        char remediation[MH_ERROR_REMEDY_MAX]; /* what to change, for a refusal; "" when none */
};

/* Each setter returns the negative code, so failing is one line:
 *     return mh_error_set(reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "usage", "bad %s", x);
 * reterr may be NULL (the caller does not want the text). */
int mh_error_set(struct mh_error *e, int code, enum mh_exit exit, const char *id, const char *fmt, ...)
        _printf_(5, 6);

/* For the layers below the ones that decide what a failure means to the
 * person running mayhem (sys/, shaper/, fault/): the code, the id and the
 * text, with no exit class of its own (MH_EXIT_GENERAL_FAILURE until cli/,
 * run/, plan/ or the agent reclassifies it). */
int mh_error_fail(struct mh_error *e, int code, const char *id, const char *fmt, ...) _printf_(4, 5);

/* A validation error pointing into a file: exit 4, id "validation". */
int mh_error_at(struct mh_error *e, const char *path, unsigned line, unsigned col, const char *fmt, ...)
        _printf_(5, 6);

/* Adds context in front of the message as the error rises ("step 3: ..."). */
void mh_error_prefix(struct mh_error *e, const char *fmt, ...) _printf_(2, 3);

/* Changes the exit class and id of an error set lower down, keeping its text. */
void mh_error_reclass(struct mh_error *e, enum mh_exit exit, const char *id);

/* What the person should change (a safety refusal's remediation); the CLI
 * prints it on its own line. Every setter above clears it. */
void mh_error_remedy(struct mh_error *e, const char *fmt, ...) _printf_(2, 3);

bool mh_error_has_location(const struct mh_error *e);
