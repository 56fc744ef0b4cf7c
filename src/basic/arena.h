#pragma once

/* A bump allocator for data that lives and dies together (a parsed YAML
 * document, a drill spec, a plan). Everything is released by arena_free();
 * there is no per-object free. */

#include <stddef.h>

struct arena_chunk;

struct arena {
        struct arena_chunk *head;
        size_t used;  /* bytes handed out, for accounting */
        size_t limit; /* 0 = unlimited; allocations past it fail */
};

void arena_init(struct arena *a, size_t limit);
void arena_free(struct arena *a);

/* Zeroed memory aligned for any type, or NULL when out of memory or over the limit. */
void *arena_alloc(struct arena *a, size_t size);
void *arena_alloc_array(struct arena *a, size_t n, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
void *arena_memdup(struct arena *a, const void *p, size_t size);
