#include "tar-write.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TAR_BLOCK    512
#define TAR_SIZE_MAX 077777777777ULL

/* The ustar header fields this writer fills, at their offsets. */
struct ustar_header {
        char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], typeflag;
        char linkname[100], magic[6], version[2], uname[32], gname[32];
        char devmajor[8], devminor[8], prefix[155], pad[12];
};
_Static_assert(sizeof(struct ustar_header) == TAR_BLOCK, "a ustar header is one block");

static int pad_to_block(struct strbuf *out, size_t len) {
        static const char zeros[TAR_BLOCK];
        size_t rest = len % TAR_BLOCK;
        return rest ? strbuf_append(out, zeros, TAR_BLOCK - rest) : 0;
}

static void header_checksum(struct ustar_header *h) {
        const unsigned char *p = (const unsigned char *)h;
        unsigned sum = 0;
        memset(h->chksum, ' ', sizeof(h->chksum));
        for (size_t i = 0; i < sizeof(*h); i++)
                sum += p[i];
        snprintf(h->chksum, sizeof(h->chksum), "%06o", sum); /* six digits, NUL, the space kept */
        h->chksum[7] = ' ';
}

int tar_append_file(struct strbuf *out, const char *name, unsigned mode, const char *data, size_t len) {
        size_t name_len = strlen(name);
        if (name_len == 0 || name_len > TAR_NAME_MAX || name[0] == '/' || strstr(name, ".."))
                return -EINVAL;
        if ((unsigned long long)len > TAR_SIZE_MAX)
                return -E2BIG;
        struct ustar_header h = { .typeflag = '0', .magic = "ustar", .version = { '0', '0' } };
        memcpy(h.name, name, name_len);
        snprintf(h.mode, sizeof(h.mode), "%07o", mode & 07777);
        snprintf(h.uid, sizeof(h.uid), "%07o", 0);
        snprintf(h.gid, sizeof(h.gid), "%07o", 0);
        snprintf(h.size, sizeof(h.size), "%011llo", (unsigned long long)len);
        snprintf(h.mtime, sizeof(h.mtime), "%011o", 0);
        memcpy(h.uname, "root", 4);
        memcpy(h.gname, "root", 4);
        header_checksum(&h);
        int r = strbuf_append(out, (const char *)&h, sizeof(h));
        if (r >= 0)
                r = strbuf_append(out, data, len);
        return r < 0 ? r : pad_to_block(out, len);
}

int tar_finish(struct strbuf *out) {
        static const char zeros[2 * TAR_BLOCK];
        return strbuf_append(out, zeros, sizeof(zeros));
}
