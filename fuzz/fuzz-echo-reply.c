/* Feeds arbitrary bytes through doctor --fidelity's reader of ICMP echo
 * replies (src/cli/doctor-measure.h), as a raw socket would hand them
 * over: an IPv4 header, then ICMP, from a container that may answer
 * anything.
 *
 * Input layout: the whole input is the datagram; the id looked for is
 * 0x6d68 and 4000 echoes were sent.
 *
 * Checks: an answer of ours has a sequence number below what was sent, an
 * IP length equal to the datagram's and a finite send time; nothing is
 * read beyond the datagram (ASan). */

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doctor-measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct doctor_reply_info r = { .seq = 99999 };
        uint8_t *copy = malloc(size ? size : 1); /* exactly size bytes: ASan sees any overread */
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        enum doctor_reply kind = doctor_echo_reply_parse(copy, size, 0x6d68, 4000, &r);
        assert(kind == DOCTOR_REPLY_OTHER || kind == DOCTOR_REPLY_OURS || kind == DOCTOR_REPLY_CORRUPTED);
        if (kind == DOCTOR_REPLY_OURS)
                assert(r.seq < 4000 && r.ip_len == size && isfinite(r.sent_ms));
        else
                assert(r.seq == 99999);
        free(copy);
        return 0;
}
