#pragma once

/* Order statistics over a series of doubles, for criteria and benches. */

#include <stddef.h>

/* Sorts v ascending. */
void doubles_sort(double *v, size_t n);
/* The nearest-rank p-th percentile (0 < p <= 100) of v sorted, n > 0: the
 * smallest value with at least p % of the series at or below it. */
double sorted_percentile(const double *v, size_t n, unsigned p);
/* The median of v sorted, n > 0: the middle value, or the mean of the two. */
double sorted_median(const double *v, size_t n);
