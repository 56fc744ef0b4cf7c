#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_MIN (64u * 1024u)

struct arena_chunk {
        struct arena_chunk *next;
        size_t size, pos;
        alignas(max_align_t) unsigned char data[];
};

void arena_init(struct arena *a, size_t limit) {
        *a = (struct arena){ .limit = limit };
}

void arena_free(struct arena *a) {
        struct arena_chunk *c = a->head;
        while (c) {
                struct arena_chunk *next = c->next;
                free(c);
                c = next;
        }
        a->head = NULL;
        a->used = 0;
}

void *arena_alloc(struct arena *a, size_t size) {
        const size_t align = alignof(max_align_t);
        struct arena_chunk *c = a->head;

        if (size == 0)
                size = 1;
        if (size > SIZE_MAX / 2)
                return NULL;
        size = (size + align - 1) & ~(align - 1);
        if (a->limit && (a->used + size > a->limit || a->used + size < a->used))
                return NULL;

        if (!c || c->size - c->pos < size) {
                size_t chunk = size > ARENA_CHUNK_MIN ? size : ARENA_CHUNK_MIN;
                c = malloc(sizeof(*c) + chunk);
                if (!c)
                        return NULL;
                c->size = chunk;
                c->pos = 0;
                c->next = a->head;
                a->head = c;
        }
        void *p = c->data + c->pos;
        c->pos += size;
        a->used += size;
        memset(p, 0, size);
        return p;
}

void *arena_alloc_array(struct arena *a, size_t n, size_t size) {
        if (size && n > SIZE_MAX / size)
                return NULL;
        return arena_alloc(a, n * size);
}

char *arena_strndup(struct arena *a, const char *s, size_t n) {
        n = strnlen(s, n); /* strndup()'s contract: stop at a NUL, never read past it */
        char *p = arena_alloc(a, n + 1);
        if (!p)
                return NULL;
        memcpy(p, s, n);
        p[n] = '\0';
        return p;
}

char *arena_strdup(struct arena *a, const char *s) {
        return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

void *arena_memdup(struct arena *a, const void *p, size_t size) {
        void *q = arena_alloc(a, size);
        if (q && size)
                memcpy(q, p, size);
        return q;
}
