#include "stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

void doubles_sort(double *v, size_t n) {
        if (n > 1)
                qsort(v, n, sizeof(*v), cmp_double);
}

double sorted_percentile(const double *v, size_t n, unsigned p) {
        size_t rank = ((size_t)p * n + 99) / 100;
        return v[rank ? rank - 1 : 0];
}

double sorted_median(const double *v, size_t n) {
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
