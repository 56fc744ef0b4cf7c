/* Feeds arbitrary bytes to the mountinfo parser (src/sys/mountinfo.h):
 * the agent reads a target's /proc/PID/mountinfo to find the mount
 * fs.read_only made and to verify its undo, and the target decides what is
 * mounted where, mount points included: hostile.
 *
 * Checks: a parsed line has an absolute, NUL-terminated mount point shorter
 * than PATH_MAX; finding a mount is deterministic and agrees with parsing
 * that line on its own. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sys/mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mountinfo_entry a, b;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *text = (const char *)data, *end = text + size;
        for (const char *p = text; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
                if (mountinfo_parse_line(p, (size_t)(eol - p), &a) == 0) {
                        size_t n = strnlen(a.point, sizeof(a.point));
                        assert(n > 0 && n < sizeof(a.point) && a.point[0] == '/');
                        assert(mountinfo_find(text, size, a.id, &b) == 1 && b.id == a.id);
                }
                p = eol + 1;
        }
        int r1 = mountinfo_find(text, size, 27, &a), r2 = mountinfo_find(text, size, 27, &b);
        assert(r1 == r2 && (r1 == 0 || (a.id == 27 && strcmp(a.point, b.point) == 0)));
        return 0;
}
