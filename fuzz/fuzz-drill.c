/* Feeds arbitrary bytes to the drill parser and, when they parse, to the
 * cross-reference check. Either way the spec is freed (ASan/LSan catch what
 * is left behind) and a failure must leave a complete, one-line error that
 * points into the file when it is a validation error. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basic/error.h"
#include "drill/drill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const struct mh_error *e, int r) {
        assert(r < 0 && e->code == r);
        assert(memchr(e->msg, '\0', sizeof(e->msg)));
        assert(e->msg[0] != '\0');
        assert(!strchr(e->msg, '\n'));
        if (e->exit == MH_EXIT_VALIDATION_ERROR)
                assert(streq(e->path, "fuzz.yaml") && e->line >= 1 && e->col >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct drill_spec *spec = NULL;
        struct mh_error e;

        memset(&e, 0x5a, sizeof(e)); /* garbage, to catch a message left unterminated */
        int r = drill_parse("fuzz.yaml", (const char *)data, size, &spec, &e);
        if (r < 0) {
                assert(!spec);
                check_error(&e, r);
                return 0;
        }
        assert(spec && spec->name && spec->n_targets >= 1 && spec->n_steps >= 1);
        memset(&e, 0x5a, sizeof(e));
        r = drill_spec_check(spec, &e);
        if (r < 0)
                check_error(&e, r);
        drill_spec_free(spec);
        return 0;
}
