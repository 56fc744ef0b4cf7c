#include "suggest.h"

#include <string.h>

#define SUGGEST_WORD_MAX 64

static size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        size_t row[SUGGEST_WORD_MAX + 1];

        if (la > SUGGEST_WORD_MAX || lb > SUGGEST_WORD_MAX)
                return (size_t)-1;
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j];
                        size_t best = diag + (a[i - 1] != b[j - 1]);
                        if (up + 1 < best)
                                best = up + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[lb];
}

const char *suggest_closest(const char *word, const char *const *candidates, size_t n) {
        size_t limit = strlen(word) / 3, best_d = (size_t)-1;
        const char *best = NULL;

        if (limit < 2)
                limit = 2;
        for (size_t i = 0; i < n; i++) {
                if (!candidates[i])
                        continue;
                size_t d = edit_distance(word, candidates[i]);
                if (d < best_d) {
                        best_d = d;
                        best = candidates[i];
                }
        }
        return best_d <= limit ? best : NULL;
}
