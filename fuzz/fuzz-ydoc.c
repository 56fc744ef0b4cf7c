/* Feeds arbitrary bytes to the YAML reader. Small limits keep every input
 * fast, so time goes into new paths rather than into expanding aliases. On
 * success the tree is walked to check what ydoc.h promises; on failure the
 * error must be complete. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basic/error.h"
#include "drill/ydoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_node(const struct ynode *n, size_t depth, const struct ydoc_limits *lim) {
        assert(n);
        assert(n->line >= 1 && n->col >= 1);
        assert(depth <= lim->max_depth + 1);
        switch (n->kind) {
        case YNODE_SCALAR:
                assert(n->text);
                (void)strlen(n->text);
                break;
        case YNODE_MAP:
                for (size_t i = 0; i < n->n_pairs; i++) {
                        const struct ynode *k = n->pairs[i].key;
                        assert(k && k->kind == YNODE_SCALAR);
                        assert(k->quoted || strcmp(k->text, "<<") != 0);    /* merges are applied */
                        assert(ynode_get(n, k->text) == n->pairs[i].value); /* keys are unique */
                        check_node(n->pairs[i].value, depth + 1, lim);
                }
                break;
        case YNODE_SEQ:
                for (size_t i = 0; i < n->n_items; i++)
                        check_node(n->items[i], depth + 1, lim);
                break;
        default: assert(!"unknown node kind");
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const struct ydoc_limits lim = { .max_depth = 32, .max_nodes = 20000 };
        struct ydoc *doc = NULL;
        struct mh_error e;

        memset(&e, 0x5a, sizeof(e)); /* garbage, to catch a message left unterminated */
        int r = ydoc_parse("fuzz.yaml", (const char *)data, size, &lim, &doc, &e);
        if (r >= 0) {
                assert(doc && doc->root);
                assert(!ynode_is_null(doc->root));
                check_node(doc->root, 1, &lim);
        } else {
                assert(!doc);
                assert(e.code == r);
                assert(memchr(e.msg, '\0', sizeof(e.msg)));
                assert(e.msg[0] != '\0');
                if (e.exit == MH_EXIT_VALIDATION_ERROR)
                        assert(streq(e.path, "fuzz.yaml") && e.line >= 1 && e.col >= 1);
        }
        ydoc_free(doc);
        return 0;
}
