#include "evidence-dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"

static int fail(struct mh_error *reterr, int code, const char *what, const char *path) {
        return mh_error_set(
                reterr, code, MH_EXIT_CONFIG_ERROR, "evidence_dir", "--evidence-dir: cannot %s %s: %s", what,
                path, strerror(-code));
}

static bool safe_id(const char *id) {
        return id[0] && id[0] != '.' &&
               strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(id);
}

int evidence_dir_write(
        const char *dir, const char *id, const json_t *doc, char *ret_path, size_t size,
        struct mh_error *reterr) {
        char path[1024], tmp[1100];
        if (!safe_id(id))
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_dir",
                        "--evidence-dir: bad id '%s'", id);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return fail(reterr, -errno, "create", dir);
        if ((size_t)snprintf(path, sizeof(path), "%s/%s.json", dir, id) >= sizeof(path))
                return fail(reterr, -ENAMETOOLONG, "write", dir);
        snprintf(tmp, sizeof(tmp), "%s/.%s.json.tmp", dir, id);
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return fail(reterr, -errno, "write", tmp);
        if (json_dumpfd(doc, fd, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 || write(fd, "\n", 1) != 1 ||
            fsync(fd) < 0) {
                int e = errno ? -errno : -EIO;
                unlink(tmp);
                return fail(reterr, e, "write", tmp);
        }
        if (rename(tmp, path) < 0) {
                int e = -errno;
                unlink(tmp);
                return fail(reterr, e, "rename into", path);
        }
        snprintf(ret_path, size, "%s", path);
        return 0;
}
