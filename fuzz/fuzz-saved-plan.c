/* Feeds arbitrary bytes to `mayhem run --from-plan FILE`'s reader
 * (src/cli/saved-plan.h) and to the plan diff (src/cli/json-diff.h) that
 * `--diff` and the fingerprint refusal print: the file is whatever a user
 * or an attacker left there.
 *
 * Checks: a document read as a plan names its fingerprint and drill; its
 * body differs from itself in nothing; the diff against the whole document
 * counts what it lists, and its paths and lines print without overflow. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/json-diff.h"
#include "cli/saved-plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char path[64], paths[256];
        int fd = memfd_create("saved-plan", MFD_CLOEXEC);
        if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
                if (fd >= 0)
                        close(fd);
                return 0;
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        struct saved_plan p = { 0 };
        if (saved_plan_from_file(path, &p, NULL) == 0) {
                assert(p.fingerprint && p.drill && p.body);
                json_t *same = json_diff(p.body, p.body), *diff = json_diff(p.body, p.root);
                assert(same && json_diff_count(same) == 0);
                if (diff) {
                        json_diff_paths(diff, 8, paths, sizeof(paths));
                        FILE *out = fopen("/dev/null", "we");
                        if (out) {
                                json_diff_print(out, diff, p.body, p.root);
                                fclose(out);
                        }
                }
                json_decref(same);
                json_decref(diff);
                saved_plan_done(&p);
        }
        close(fd);
        return 0;
}
