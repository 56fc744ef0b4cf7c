#pragma once

/* A YAML document as a tree of scalars, mappings and sequences, each node
 * carrying its 1-based line and column. This is the only seam to libyaml:
 * nothing else in the tree sees a yaml_* type.
 *
 * Aliases are expanded (copied) under a node budget, so a "billion laughs"
 * document fails instead of exhausting memory; merge keys ("<<: *base") are
 * applied; duplicate keys, multiple documents, non-scalar keys and NUL bytes
 * are errors pointing at the offending node. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/arena.h"
#include "basic/error.h"

enum ynode_kind {
        YNODE_SCALAR,
        YNODE_MAP,
        YNODE_SEQ,
};

struct ynode;

struct ypair {
        struct ynode *key; /* always a scalar */
        struct ynode *value;
};

struct ynode {
        enum ynode_kind kind;
        bool quoted; /* scalar written quoted, as a block, or tagged !!str: never null/bool/number by form */
        unsigned line, col;
        union {
                const char *text; /* YNODE_SCALAR, NUL-terminated */
                struct {
                        struct ypair *pairs;
                        size_t n_pairs;
                };
                struct {
                        struct ynode **items;
                        size_t n_items;
                };
        };
};

struct ydoc_limits {
        size_t max_depth;
        size_t max_nodes; /* counts alias copies too */
};

#define YDOC_LIMITS_DEFAULT ((struct ydoc_limits){ .max_depth = 64, .max_nodes = 1000000 })

struct ydoc {
        struct arena arena;
        const struct ynode *root; /* never NULL after a successful parse */
        char *path;               /* for error messages */
};

/* Parses len bytes of YAML. An empty document is an error. path names the
 * source in errors (FILE:LINE:COL). */
int ydoc_parse(
        const char *path, const char *data, size_t len, const struct ydoc_limits *limits,
        struct ydoc **ret_doc, struct mh_error *reterr);
struct ydoc *ydoc_free(struct ydoc *doc);
DEFINE_FREEP(struct ydoc, ydoc_free)

/* Value of key in a mapping, NULL if absent or if map is not a mapping. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* A plain scalar spelled ~, null, Null, NULL or nothing. */
bool ynode_is_null(const struct ynode *n);
/* "a string", "a mapping", "a list" — for messages. */
const char *ynode_describe(const struct ynode *n);
