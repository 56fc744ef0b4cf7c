#pragma once

/* Shell completion scripts generated from the command table itself
 * (cli-main.c's root and every command's options), so they cannot drift
 * from what the parser takes. */

#include <stdio.h>

#include "cli.h"

enum completion_shell {
        COMPLETION_BASH,
        COMPLETION_ZSH,
        COMPLETION_FISH,
        _COMPLETION_SHELL_MAX,
};

const char *completion_shell_to_string(enum completion_shell s);
int completion_shell_from_string(const char *s);

/* The root command of `mayhem` (cli-main.c). */
const struct cli_command *cli_root_command(void);

/* Writes the script for shell, completing the command words and options of
 * root and below; a word after an option that takes a value, and a
 * positional, complete as file names. */
void completion_write(FILE *out, const struct cli_command *root, enum completion_shell shell);
