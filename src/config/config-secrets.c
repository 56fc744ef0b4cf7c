#include "config-internal.h"

#include <ctype.h>
#include <string.h>

/* A configuration file is shared and committed: a key that looks like a
 * secret is refused wherever it is, before anything else is read, so the
 * error names the secret and not "unknown key" (reference §9.1). */
static const char *const forbidden[] = { "password", "secret", "token", "credentials", "api_key", "apikey" };

static const char *secret_word(const char *key) {
        char low[128];
        size_t n = 0;
        for (; key[n] && n < sizeof(low) - 1; n++)
                low[n] = key[n] == '-' ? '_' : (char)tolower((unsigned char)key[n]);
        low[n] = '\0';
        for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++)
                if (strstr(low, forbidden[i]))
                        return forbidden[i];
        return NULL;
}

static int walk(struct config_loader *L, const struct ynode *n, unsigned depth) {
        if (depth > 64)
                return 0; /* ydoc already bounds the depth */
        if (n->kind == YNODE_SEQ) {
                for (size_t i = 0; i < n->n_items; i++) {
                        int r = walk(L, n->items[i], depth + 1);
                        if (r < 0)
                                return r;
                }
        } else if (n->kind == YNODE_MAP) {
                for (size_t i = 0; i < n->n_pairs; i++) {
                        const struct ynode *k = n->pairs[i].key;
                        const char *w = secret_word(k->text);
                        if (w)
                                return cl_fail(
                                        L, k,
                                        "key '%s' looks like a secret (%s): a configuration file must not "
                                        "hold secrets; pass them through the environment of the service",
                                        k->text, w);
                        int r = walk(L, n->pairs[i].value, depth + 1);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int config_check_secrets(struct config_loader *L, const struct ynode *root) {
        return walk(L, root, 0);
}
