#include "fileio.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

int read_file_bounded(
        const char *path, size_t max, char **ret_data, size_t *ret_len, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        struct strbuf b = STRBUF_INIT(max);
        struct stat st;
        char chunk[16384];
        int r;

        assert(max > 0); /* a strbuf limit of 0 would mean "unlimited" */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = negative_errno();
                return mh_error_set(
                        reterr, r, MH_EXIT_VALIDATION_ERROR, "validation", "%s: cannot open: %s", path,
                        strerror(-r));
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                return mh_error_set(
                        reterr, r, MH_EXIT_VALIDATION_ERROR, "validation", "%s: %s", path, strerror(-r));
        }
        if (S_ISDIR(st.st_mode))
                return mh_error_set(
                        reterr, -EISDIR, MH_EXIT_VALIDATION_ERROR, "validation",
                        "%s: is a directory, expected a file", path);
        for (;;) {
                ssize_t n = read(fd, chunk, sizeof(chunk));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = negative_errno();
                        strbuf_done(&b);
                        return mh_error_set(
                                reterr, r, MH_EXIT_VALIDATION_ERROR, "validation", "%s: read: %s", path,
                                strerror(-r));
                }
                if (n == 0)
                        break;
                r = strbuf_append(&b, chunk, (size_t)n);
                if (r < 0) {
                        strbuf_done(&b);
                        if (r == -E2BIG)
                                return mh_error_set(
                                        reterr, -EFBIG, MH_EXIT_VALIDATION_ERROR, "validation",
                                        "%s: larger than the %zu byte limit", path, max);
                        return mh_error_set(
                                reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", path);
                }
        }
        *ret_len = b.len;
        *ret_data = strbuf_steal(&b);
        return 0;
}

int read_text_at(int dirfd, const char *name, char *buf, size_t size) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
        size_t used = 0;
        if (fd < 0)
                return negative_errno();
        while (used + 1 < size) {
                ssize_t n = read(fd, buf + used, size - 1 - used);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        break;
                used += (size_t)n;
        }
        buf[used] = '\0';
        return 0;
}
