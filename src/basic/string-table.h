#pragma once

/* Enum <-> string tables as in systemd's string-table.h: one array indexed by
 * the enum, two generated functions. from_string returns -EINVAL when the
 * string names no member. */

#include <errno.h>
#include <stddef.h>
#include <string.h>

static inline int string_table_lookup(const char *const *table, size_t n, const char *key) {
        if (!key)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && strcmp(table[i], key) == 0)
                        return (int)i;
        return -EINVAL;
}

#define DEFINE_STRING_TABLE_LOOKUP(name, type)                                                              \
        const char *name##_to_string(type i) {                                                              \
                if ((size_t)i >= sizeof(name##_table) / sizeof(name##_table[0]))                            \
                        return NULL;                                                                        \
                return name##_table[i];                                                                     \
        }                                                                                                   \
        int name##_from_string(const char *s) {                                                             \
                return string_table_lookup(                                                                 \
                        name##_table, sizeof(name##_table) / sizeof(name##_table[0]), s);                   \
        }
