#pragma once

/* Runs a program (an argv, never a shell) in a directory and captures what it
 * prints, for tests that exercise the real binaries. */

#include <sys/types.h>

struct cmd_result {
        int exit;  /* exit status, or 128 + signal, or -1 */
        char *out; /* malloc()ed, NUL-terminated */
        char *err;
};

struct cmd_result run_command(const char *dir, const char *const *argv);
/* Starts argv in the background with output to /dev/null; returns its pid. */
pid_t spawn_command(const char *dir, const char *const *argv);
/* The same with stdout and stderr into the file log (truncated first). */
pid_t spawn_command_log(const char *dir, const char *const *argv, const char *log);
void cmd_result_done(struct cmd_result *r);
