#pragma once

/* The body of GET /containers/{id}/logs split into lines. A container
 * without a TTY answers with the multiplexed stream: frames of an 8-byte
 * header (stream 0|1|2, three zero bytes, a big-endian 32-bit size) and
 * that many bytes; one with a TTY with the raw text (everything stdout).
 * With timestamps=1 each line starts with the engine's RFC 3339 time and a
 * space. Lines end at '\n' (a trailing '\r' is dropped); a last line
 * without one is still a line. The body is hostile: a header that is not
 * one stops the parse (garbage), a frame that runs past the body is cut
 * there (the body was capped), a line longer than line_max is cut to it. */

#include <stdbool.h>
#include <stddef.h>

enum log_stream_kind {
        LOG_STREAM_STDOUT = 1,
        LOG_STREAM_STDERR = 2,
};

struct log_line {
        enum log_stream_kind stream;
        const char *ts;   /* the engine's timestamp, NUL-terminated, "" when none */
        const char *text; /* NUL-terminated, control bytes left as sent */
        size_t len;
        bool cut; /* longer than line_max: the rest was dropped */
};

/* Returns < 0 to stop the parse (that value is returned). */
typedef int (*log_line_fn)(const struct log_line *line, void *userdata);

struct log_stream_stats {
        size_t lines, cut;
        bool garbage;     /* a frame header that was not one: the rest is ignored */
        bool short_frame; /* the last frame ran past the body */
};

#define LOG_TS_MAX 48

/* line_max: 1.. bytes kept of a line. Returns 0, -ENOMEM, or fn's value. */
int log_stream_parse(
        const char *body, size_t len, bool multiplexed, size_t line_max, bool timestamps, log_line_fn fn,
        void *userdata, struct log_stream_stats *ret_stats);
