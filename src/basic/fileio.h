#pragma once

#include <stddef.h>

#include "error.h"

/* Reads a whole regular file of at most max (> 0) bytes into a NUL-terminated
 * malloc()ed buffer. Errors name the path: -ENOENT, -EFBIG (over max),
 * -EISDIR, ... with exit class VALIDATION (a missing drill is a bad input). */
int read_file_bounded(
        const char *path, size_t max, char **ret_data, size_t *ret_len, struct mh_error *reterr);

/* The text of the small file name relative to dirfd, NUL-terminated in buf
 * (size > 0), cut at size - 1 bytes: for kernel files (cgroup knobs, /proc)
 * whose size stat() does not tell. -errno from open or read. */
int read_text_at(int dirfd, const char *name, char *buf, size_t size);
