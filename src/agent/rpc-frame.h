#pragma once

/* Newline-delimited frames for the agent's JSON-RPC channel (shared/DESIGN.md
 * "Agent protocol"). The reader is bounded: whatever arrives, it never holds
 * more than RPC_FRAME_BUF_MAX bytes, and a line longer than RPC_FRAME_MAX is
 * reported once and skipped rather than buffered. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

/* 1 MiB, newline excluded. The fuzz target compiles the reader with a smaller
 * limit (fuzz/meson.build), so inputs of a few KiB reach every boundary; all
 * other code, the unit tests included, uses this one. */
#ifndef RPC_FRAME_MAX
#define RPC_FRAME_MAX (1u << 20)
#endif
#define RPC_FRAME_BUF_MAX (2u * RPC_FRAME_MAX)

struct frame_reader;

/* Reads frames from fd (not owned: frame_reader_free() does not close it).
 * fd < 0 makes a reader fed only through frame_reader_feed(). NULL on ENOMEM. */
struct frame_reader *frame_reader_new(int fd);
struct frame_reader *frame_reader_free(struct frame_reader *r);
DEFINE_FREEP(struct frame_reader, frame_reader_free)

/* The next complete frame. Returns 1 with *ret_line and *ret_len pointing into the
 * reader's buffer (valid until the next call on the reader; not NUL-terminated;
 * the newline and one trailing '\r' are stripped). Returns 0 at end of input,
 * after returning a final unterminated line as a frame. Lines holding only
 * spaces, tabs and '\r' are skipped.
 *
 * Errors, after each of which the reader stays usable:
 *   -EAGAIN    no complete frame yet: the fd is non-blocking and empty, or a
 *              memory-fed reader has used up what was fed;
 *   -EMSGSIZE  a line over RPC_FRAME_MAX bytes; reported as soon as that many
 *              bytes are seen, and the rest of the line is discarded;
 *   -EILSEQ    a line that is not valid UTF-8 (see utf8_valid());
 *   -errno     read(2) failed (EINTR is retried). */
int frame_reader_next(struct frame_reader *r, const char **ret_line, size_t *ret_len);

/* Appends bytes, for the fuzzer, tests and callers that do their own I/O. The
 * data is copied. Bytes of a line beyond RPC_FRAME_MAX + 1 are dropped on the
 * spot (the line is reported as -EMSGSIZE later), so one long line of any
 * size can be fed at once. Returns 0, -ENOBUFS (nothing taken) when the
 * complete frames not yet taken by frame_reader_next() plus the new data would
 * pass RPC_FRAME_BUF_MAX — after frame_reader_next() returned -EAGAIN, at
 * least RPC_FRAME_MAX bytes always fit — -EPIPE after frame_reader_feed_eof(),
 * or -ENOMEM. */
int frame_reader_feed(struct frame_reader *r, const void *data, size_t len);

/* Marks the end of fed input: frame_reader_next() then returns a final
 * unterminated line and 0, as at EOF on the fd. */
void frame_reader_feed_eof(struct frame_reader *r);

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates (U+D800..DFFF),
 * nothing above U+10FFFF, no truncated sequences or stray continuation
 * bytes. NUL is valid. */
bool utf8_valid(const char *s, size_t len);
