#pragma once

/* "did you mean …?" for unknown keys, fault ids and target names: the
 * candidate nearest by edit distance, or NULL when none is near enough
 * (distance above a third of the word, minimum 2). */

#include <stddef.h>

const char *suggest_closest(const char *word, const char *const *candidates, size_t n);
