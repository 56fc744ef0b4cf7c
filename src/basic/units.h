#pragma once

/* The units a drill speaks (docs/drill-format.md "Units"). Each parser reads
 * a whole string, returns 0, -EINVAL (not of this form), -ERANGE (too big) or
 * -EDOM (finer than the resolution), and writes its output only on success.
 *
 *   duration  "500ms" "10s" "5m" "1.5h" "2d", bare number = seconds  -> milliseconds
 *   bytes     "64k" "256M" "1G" "1.5GiB" "512" (powers of 1024)     -> bytes
 *   rate      "10mbit" "2kbps" "1gbit" (tc's units: bit = bits/s,    -> bits per second
 *             bps = bytes/s; k/m/g/t = 1000, ki/mi/gi/ti = 1024)
 *   percent   "50" "12.5" "50%"                                      -> double
 */

#include <stddef.h>
#include <stdint.h>

int parse_duration_ms(const char *s, int64_t *ret_ms);
int parse_bytes(const char *s, uint64_t *ret);
int parse_rate_bps(const char *s, uint64_t *ret);
int parse_percent(const char *s, double *ret);
/* Go/compose durations: "1m30s", "500ms", "2h45m", "10s", "0". Sub-ms parts are truncated. */
int parse_go_duration_ms(const char *s, int64_t *ret_ms);

/* Shortest exact spelling that the parsers above read back to the same value. */
void format_duration_ms(char *buf, size_t size, int64_t ms);
void format_bytes(char *buf, size_t size, uint64_t bytes);
void format_rate_bps(char *buf, size_t size, uint64_t bps);
