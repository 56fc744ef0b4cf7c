/* Feeds arbitrary bytes through the reader of an image build's reply
 * stream (src/engine/engine-image.c): the JSON objects an engine's builder
 * sends, one of which may carry "error".
 *
 * Input layout: the whole input is the reply body.
 *
 * Checks: what it returns is one NUL-terminated printable line that fits
 * its buffer; nothing is read beyond the body (ASan). */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char error[64];
        char *copy = malloc(size ? size : 1); /* exactly size bytes: ASan sees any overread */
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        engine_build_stream_error(copy, size, error, sizeof(error));
        size_t len = strnlen(error, sizeof(error));
        assert(len < sizeof(error));
        for (size_t i = 0; i < len; i++)
                assert((unsigned char)error[i] >= 0x20 && error[i] != 0x7f);
        free(copy);
        return 0;
}
