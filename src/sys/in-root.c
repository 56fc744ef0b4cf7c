#include "in-root.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/macro.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int open_in_root(int root, const char *path, int flags) {
        struct open_how how = {
                .flags = (uint64_t)flags | O_CLOEXEC,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        while (*path == '/')
                path++;
        const char *rel = *path ? path : ".";
        int fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
        if (fd < 0 && errno == ENOSYS)
                fd = openat(root, rel, flags | O_CLOEXEC | O_NOFOLLOW);
        return fd < 0 ? negative_errno() : fd;
}

int open_in_own_root(const char *path, int flags) {
        _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return root < 0 ? negative_errno() : open_in_root(root, path, flags);
}
