/* Feeds arbitrary bytes to the .env reader. On success every name written on
 * a line is looked up (found or not, the answer must be a string of the
 * file's own variables), and a compose file that interpolates from it must
 * parse or fail with a complete error; on failure the error must be complete
 * and point into the file. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topology/topology.h"

/* Larger inputs only repeat what small ones reach, more slowly. */
#define FUZZ_INPUT_MAX (64u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char compose[] = "name: ${COMPOSE_PROJECT_NAME:-fuzz}\n"
                              "services:\n"
                              "  a: {image: '${A}${B:-x}', container_name: '${NAME:-a-1}', profiles: [p1]}\n"
                              "  b: {image: '$A', ports: ['${PORT:-80}']}\n";

static void check_error(const struct mh_error *e) {
        assert(e->code < 0);
        assert(e->msg[0] != '\0');
        assert(memchr(e->msg, '\0', sizeof(e->msg)));
        if (e->line > 0)
                assert(e->path[0] != '\0' && e->col > 0);
}

static void lookup_every_line(const struct compose_dotenv *env, const char *s, size_t n) {
        for (size_t at = 0; at < n;) {
                const char *nl = memchr(s + at, '\n', n - at), *eq = memchr(s + at, '=', n - at);
                size_t end = nl ? (size_t)(nl - s) : n;
                if (eq && (size_t)(eq - s) < end) {
                        const char *v = compose_dotenv_get(env, s + at, (size_t)(eq - (s + at)));
                        assert(!v || strlen(v) <= COMPOSE_DOTENV_VALUE_MAX);
                }
                at = end + 1;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct compose_dotenv *env = NULL;
        struct topology *t = NULL;
        struct mh_error e = { 0 };

        if (size > FUZZ_INPUT_MAX)
                return 0;
        if (compose_dotenv_parse("fuzz/.env", (const char *)data, size, &env, &e) < 0) {
                assert(!env);
                check_error(&e);
                assert(e.line >= 1);
                return 0;
        }
        assert(compose_dotenv_size(env) <= COMPOSE_DOTENV_VARS_MAX);
        lookup_every_line(env, (const char *)data, size);
        if (compose_parse_with("fuzz/compose.yaml", compose, strlen(compose), env, &t, &e) < 0)
                check_error(&e);
        else
                topology_free(t);
        compose_dotenv_free(env);
        return 0;
}
