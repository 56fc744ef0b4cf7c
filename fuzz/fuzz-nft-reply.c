/* Feeds arbitrary bytes through the reader of the kernel's answers to an
 * nfnetlink batch (sys/nft-reply.h), as they would arrive in one datagram.
 *
 * Input layout: bytes 0-3 and 4-7 are the first acked sequence number and the
 * batch-begin's (little endian), byte 8 the number of acked messages (mod
 * NFT_REPLY_MSGS_MAX + 1), byte 9 bit 0 whether handles are awaited; the rest
 * is the datagram.
 *
 * Checks: the reader never reads outside the bytes (ASan); its answer is 1, 0
 * or -EPROTO; the counts stay within the batch; an error is negative and names
 * a message of the batch or the batch itself; a second feed of the same bytes
 * into a fresh reader gives the same state. */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sys/nft-reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 10

static uint32_t le32(const uint8_t *p) {
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void setup(struct nft_reply *r, const uint8_t *data) {
        memset(r, 0, sizeof(*r));
        r->seq_first = le32(data);
        r->batch_seq = le32(data + 4);
        r->n = data[8] % (NFT_REPLY_MSGS_MAX + 1);
        r->want_handles = data[9] & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct nft_reply a, b;

        if (size < HEADER)
                return 0;
        setup(&a, data);
        setup(&b, data);
        int ra = nft_reply_feed(&a, data + HEADER, size - HEADER);
        assert(ra == 0 || ra == 1 || ra == -EPROTO);
        assert(a.acked <= a.n);
        assert(a.error <= 0);
        assert(a.error == 0 || a.error_index <= a.n);
        if (ra == 1)
                assert(a.acked == a.n);
        int rb = nft_reply_feed(&b, data + HEADER, size - HEADER);
        assert(ra == rb);
        assert(memcmp(&a, &b, sizeof(a)) == 0);
        return 0;
}
