/* Feeds arbitrary bytes through the Prometheus text parser
 * (basic/prom-text.h), as a metrics endpoint would send them.
 *
 * Input layout: up to the first NUL byte is the selector (a drill's
 * metric: key), the rest the body; without a NUL the whole input is the
 * body and the selector "up".
 *
 * Checks: a selector that parses has a non-empty name and at most
 * PROM_MATCHERS_MAX matchers; a body either parses (series <= samples <=
 * lines) or fails with -EINVAL and a reason that names its line. */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/prom-text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct prom_selector sel;
        char why[256], selector[512] = "up";
        const uint8_t *nul = memchr(data, 0, size);
        const char *body = (const char *)data;
        size_t len = size;
        if (nul) {
                size_t n = (size_t)(nul - data);
                if (n >= sizeof(selector))
                        return 0;
                memcpy(selector, data, n);
                selector[n] = 0;
                body = (const char *)nul + 1;
                len = size - n - 1;
        }
        if (prom_selector_parse(selector, &sel, why, sizeof(why)) < 0)
                return 0;
        assert(sel.name[0] && sel.n <= PROM_MATCHERS_MAX);
        struct prom_match m;
        int r = prom_text_match(body, len, &sel, &m, why, sizeof(why));
        if (r == 0) {
                size_t lines = 1;
                for (size_t i = 0; i < len; i++)
                        lines += body[i] == '\n';
                assert(m.series <= m.samples && m.samples <= lines);
        } else {
                assert(r == -EINVAL && strncmp(why, "line ", 5) == 0);
        }
        return 0;
}
