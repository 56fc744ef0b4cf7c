/* Feeds arbitrary bytes to the configuration reader as a base mayhem.yaml
 * (or, with kind: drill, a drill that doubles as it). A failure must leave a
 * complete one-line error; a success a config whose every key has a value and
 * a provenance, sorted. ASan/LSan catch what is left behind. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basic/error.h"
#include "config/mayhem-config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct mayhem_config *c = NULL;
        struct mh_error e;

        memset(&e, 0x5a, sizeof(e)); /* garbage, to catch a message left unterminated */
        int r = config_parse("fuzz.yaml", (const char *)data, size, &c, &e);
        if (r < 0) {
                assert(!c && e.code == r);
                assert(memchr(e.msg, '\0', sizeof(e.msg)) && e.msg[0] != '\0' && !strchr(e.msg, '\n'));
                if (e.exit == MH_EXIT_CONFIG_ERROR && e.path[0])
                        assert(strcmp(e.path, "fuzz.yaml") == 0 && e.line >= 1 && e.col >= 1);
                return 0;
        }
        assert(c && c->n_origins > 0);
        for (size_t i = 0; i < c->n_origins; i++) {
                assert(c->origins[i].key && c->origins[i].value);
                assert(i == 0 || strcmp(c->origins[i - 1].key, c->origins[i].key) < 0);
        }
        assert(c->blast_radius.max_hosts >= 1 && c->maniac.level >= 1 && c->maniac.level <= 5);
        config_free(c);
        return 0;
}
