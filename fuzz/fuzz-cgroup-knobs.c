/* Feeds arbitrary bytes to the parsers of cgroup knobs and /proc/meminfo
 * (src/sys/cgroup-memory.h, cgroup-cpu.h, cgroup-pids.h) that the resource
 * faults' payloads and effect checks read: a container whose cgroupfs is
 * writable to it (a privileged one, a delegated v2 subtree) decides what
 * they say, so they are outside input.
 *
 * Checks: no crash or overrun on unterminated or odd text; every parse is
 * deterministic; a pids.max is a count or "max". */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cgroup-cpu.h"
#include "sys/cgroup-memory.h"
#include "sys/cgroup-pids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void keyed(const char *text) {
        static const char *const keys[] = { "oom_kill", "oom", "max", "anon", "MemTotal", "MemAvailable" };
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
                uint64_t a = 0, b = 0;
                int r1 = cgroup_keyed_value_parse(text, keys[i], &a),
                    r2 = cgroup_keyed_value_parse(text, keys[i], &b);
                assert(r1 == r2 && (r1 < 0 || a == b));
                r1 = meminfo_value_parse(text, keys[i], &a);
                r2 = meminfo_value_parse(text, keys[i], &b);
                assert(r1 == r2 && (r1 < 0 || a == b));
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        keyed(text);
        bool limited = false, limited2 = false;
        uint64_t bytes = 0, bytes2 = 0, usec = 0, again = 0;
        int64_t pids = 0;
        if (cgroup_memory_limit_parse(text, &limited, &bytes) == 0)
                assert(cgroup_memory_limit_parse(text, &limited2, &bytes2) == 0 && limited2 == limited &&
                       bytes2 == bytes);
        if (cgroup_cpu_stat_usage_parse(text, &usec) == 0) {
                assert(cgroup_cpu_stat_usage_parse(text, &again) == 0 && again == usec);
        }
        if (cgroup_pids_max_parse(text, &pids) == 0)
                assert(pids >= 0 || pids == CGROUP_PIDS_UNLIMITED);
        free(text);
        return 0;
}
