#pragma once

/* SHA-256 (FIPS 180-4), for plan fingerprints. Small enough to own rather
 * than pull in a crypto library for one digest. */

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE    (SHA256_DIGEST_SIZE * 2 + 1)

struct sha256_ctx {
        uint32_t state[8];
        uint64_t bytes;
        uint8_t block[64];
        size_t fill;
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_SIZE]);
/* One-shot digest as 64 lowercase hex characters plus NUL. */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_SIZE]);
