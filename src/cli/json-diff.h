#pragma once

/* A small structural diff of two JSON documents, for `run --diff`: every
 * leaf path only in the new one (added), only in the old one (removed), or
 * with another value (changed). Paths read "faults[0].params.delay_ms";
 * objects are walked in sorted key order, arrays by index, so the same two
 * documents always give the same diff. */

#include <jansson.h>
#include <stdio.h>

/* {"added": [PATH], "removed": [PATH], "changed": [{path, old, new}]}; a
 * new reference, NULL when out of memory. At most JSON_DIFF_MAX entries in
 * all; "truncated": true when there were more. */
#define JSON_DIFF_MAX 1000
json_t *json_diff(const json_t *old, const json_t *new);
size_t json_diff_count(const json_t *diff);
/* "+ PATH: VALUE", "- PATH: VALUE", "~ PATH: OLD -> NEW", one line each. */
void json_diff_print(FILE *out, const json_t *diff, const json_t *old, const json_t *new);
/* The first n paths that differ, comma-separated, into buf: for messages. */
void json_diff_paths(const json_t *diff, size_t n, char *buf, size_t size);
