#pragma once

/* A POSIX ustar archive written into a strbuf, for a build context sent to
 * a container engine: regular files only, owned by root, mtime 0. */

#include <stddef.h>

#include "strbuf.h"

#define TAR_NAME_MAX 99 /* the ustar name field without a prefix, NUL excluded */

/* Appends one regular file: a name of 1..TAR_NAME_MAX bytes without "..",
 * mode the permission bits (0644, 0755). -EINVAL for a bad name, -E2BIG
 * past out's limit or len over 8 GiB - 1 (the 11 octal digits of size). */
int tar_append_file(struct strbuf *out, const char *name, unsigned mode, const char *data, size_t len);

/* The two zero blocks that end an archive. */
int tar_finish(struct strbuf *out);
