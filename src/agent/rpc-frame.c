#include "rpc-frame.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* 64 KiB; relative, so a reader built with a smaller RPC_FRAME_MAX still grows. */
#define FRAME_BUF_MIN (RPC_FRAME_MAX / 16u)
/* The longest piece of one line ever kept: one byte more than a frame may
 * have, so frame_reader_next() still sees that the line is too long. */
#define LINE_KEEP_MAX ((size_t)RPC_FRAME_MAX + 1)

struct frame_reader {
        int fd;
        char *buf;
        size_t cap;
        size_t start;    /* first byte not yet handed out */
        size_t end;      /* one past the last buffered byte */
        size_t scanned;  /* bytes after start known to hold no '\n' */
        size_t tail;     /* bytes after the last '\n' in the buffer */
        bool eof;        /* read() returned 0, or frame_reader_feed_eof() */
        bool discarding; /* dropping the rest of a line reported as too long */
        bool truncating; /* feed: the current line passed LINE_KEEP_MAX */
};

struct frame_reader *frame_reader_new(int fd) {
        struct frame_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->buf = malloc(FRAME_BUF_MIN);
        if (!r->buf) {
                free(r);
                return NULL;
        }
        r->cap = FRAME_BUF_MIN;
        r->fd = fd;
        return r;
}

struct frame_reader *frame_reader_free(struct frame_reader *r) {
        if (!r)
                return NULL;
        free(r->buf);
        free(r);
        return NULL;
}

bool utf8_valid(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *)s, *e = p + len;

        if (len == 0)
                return true;
        while (p < e) {
                unsigned c = *p, lo = 0x80, hi = 0xBF;
                size_t n;

                if (c < 0x80) {
                        p++;
                        continue;
                }
                /* Unicode 15, table 3-7: the second byte's range is what
                 * rules out overlongs, surrogates and values past U+10FFFF. */
                if (c >= 0xC2 && c <= 0xDF) {
                        n = 1;
                } else if (c == 0xE0) {
                        n = 2;
                        lo = 0xA0;
                } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
                        n = 2;
                } else if (c == 0xED) {
                        n = 2;
                        hi = 0x9F;
                } else if (c == 0xF0) {
                        n = 3;
                        lo = 0x90;
                } else if (c >= 0xF1 && c <= 0xF3) {
                        n = 3;
                } else if (c == 0xF4) {
                        n = 3;
                        hi = 0x8F;
                } else {
                        return false; /* stray continuation, C0/C1, F5..FF */
                }
                if ((size_t)(e - p) <= n)
                        return false; /* truncated */
                if (p[1] < lo || p[1] > hi)
                        return false;
                for (size_t i = 2; i <= n; i++)
                        if ((p[i] & 0xC0) != 0x80)
                                return false;
                p += n + 1;
        }
        return true;
}

static bool blank(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
                        return false;
        return true;
}

static void compact(struct frame_reader *r) {
        if (r->start == 0)
                return;
        if (r->end > r->start)
                memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
}

static int reserve(struct frame_reader *r, size_t need) {
        size_t cap = r->cap;
        char *b;

        if (need <= r->cap)
                return 0;
        if (need > RPC_FRAME_BUF_MAX)
                return -ENOBUFS;
        while (cap < need)
                cap = cap > RPC_FRAME_BUF_MAX / 2 ? RPC_FRAME_BUF_MAX : cap * 2;
        b = realloc(r->buf, cap);
        if (!b)
                return -ENOMEM;
        r->buf = b;
        r->cap = cap;
        return 0;
}

/* Drops everything buffered: the rest of an over-long line or input past
 * the end. */
static void drop_all(struct frame_reader *r) {
        r->start = r->end = r->scanned = r->tail = 0;
}

/* Hands out [s, s + n) of the buffer, checked, once the caller has moved
 * r->start past it. */
static int emit(const char *s, size_t n, const char **ret_line, size_t *ret_len) {
        if (n > RPC_FRAME_MAX)
                return -EMSGSIZE;
        if (n > 0 && s[n - 1] == '\r')
                n--;
        if (blank(s, n))
                return 0;
        if (!utf8_valid(s, n))
                return -EILSEQ;
        *ret_line = s;
        *ret_len = n;
        return 1;
}

static int fill(struct frame_reader *r) {
        ssize_t n;
        int k;

        if (r->fd < 0)
                return -EAGAIN;
        compact(r);
        /* Reached only with no '\n' buffered and at most RPC_FRAME_MAX bytes,
         * so the buffer can always grow to take at least one more byte. */
        assert(r->end <= RPC_FRAME_MAX);
        if (r->end == r->cap) {
                k = reserve(r, r->cap + 1);
                if (k < 0)
                        return k;
        }
        do
                n = read(r->fd, r->buf + r->end, r->cap - r->end);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        if (n == 0) {
                r->eof = true;
                return 0;
        }
        const char *nl = memrchr(r->buf + r->end, '\n', (size_t)n);
        r->tail = nl ? (size_t)(r->buf + r->end + n - nl - 1) : r->tail + (size_t)n;
        r->end += (size_t)n;
        return 0;
}

int frame_reader_next(struct frame_reader *r, const char **ret_line, size_t *ret_len) {
        int k;

        assert(r && ret_line && ret_len);
        if (r->start == r->end)
                r->start = r->end = r->scanned = 0;
        for (;;) {
                char *s = r->buf + r->start;
                size_t avail = r->end - r->start;
                char *nl = memchr(s + r->scanned, '\n', avail - r->scanned);

                if (nl) {
                        size_t n = (size_t)(nl - s);

                        r->start += n + 1;
                        r->scanned = 0;
                        if (r->discarding) {
                                r->discarding = false;
                                continue;
                        }
                        k = emit(s, n, ret_line, ret_len);
                        if (k != 0)
                                return k;
                        continue;
                }
                r->scanned = avail;
                if (r->discarding) {
                        drop_all(r);
                        avail = 0;
                } else if (avail > RPC_FRAME_MAX) {
                        drop_all(r);
                        r->discarding = true;
                        return -EMSGSIZE;
                }
                if (r->eof) {
                        r->discarding = false;
                        if (avail == 0)
                                return 0;
                        /* The bytes stay where they are until the next call. */
                        drop_all(r);
                        return emit(s, avail, ret_line, ret_len); /* blank: 0, EOF */
                }
                k = fill(r);
                if (k < 0)
                        return k;
        }
}

/* Copies data to dst (or only counts, with dst NULL), keeping at most
 * LINE_KEEP_MAX bytes of each line. Returns the number of bytes kept and
 * updates *tail and *truncating as the reader's fields. */
static size_t ingest(const char *p, size_t len, char *dst, size_t *tail, bool *truncating) {
        size_t kept = 0;

        while (len > 0) {
                const char *nl = memchr(p, '\n', len);
                size_t seg = nl ? (size_t)(nl - p) : len, keep = 0;

                if (!*truncating) {
                        keep = *tail >= LINE_KEEP_MAX ? 0 : MIN(seg, LINE_KEEP_MAX - *tail);
                        if (keep < seg)
                                *truncating = true;
                        if (dst && keep > 0)
                                memcpy(dst + kept, p, keep);
                        kept += keep;
                        *tail += keep;
                }
                if (!nl)
                        break;
                if (dst)
                        dst[kept] = '\n';
                kept++;
                *tail = 0;
                *truncating = false;
                p = nl + 1;
                len -= seg + 1;
        }
        return kept;
}

int frame_reader_feed(struct frame_reader *r, const void *data, size_t len) {
        size_t tail, need;
        bool truncating;
        int k;

        assert(r);
        assert(data || len == 0);
        if (r->eof)
                return -EPIPE;
        if (len == 0)
                return 0;

        tail = r->tail;
        truncating = r->truncating;
        need = ingest(data, len, NULL, &tail, &truncating);
        if (r->end + need > r->cap)
                compact(r);
        k = reserve(r, r->end + need);
        if (k < 0)
                return k;
        (void)ingest(data, len, r->buf + r->end, &r->tail, &r->truncating);
        r->end += need;
        return 0;
}

void frame_reader_feed_eof(struct frame_reader *r) {
        assert(r);
        r->eof = true;
}
