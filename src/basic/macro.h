#pragma once

/* Cleanup helpers in the manner of systemd's macro.h: a variable declared with
 * one of the _cleanup_ attributes releases what it holds when it leaves scope,
 * unless ownership was handed out with TAKE_PTR() / TAKE_FD(). */

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)    __attribute__((cleanup(f)))
#define _cleanup_free_  _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _printf_(a, b)  __attribute__((format(printf, a, b)))
#define _unused_        __attribute__((unused))
#define _noreturn_      __attribute__((noreturn))
#define _fallthrough_   __attribute__((fallthrough))
#define _warn_unused_   __attribute__((warn_unused_result))
#define _likely_(x)     __builtin_expect(!!(x), 1)
#define _unlikely_(x)   __builtin_expect(!!(x), 0)

#define ELEMENTSOF(a)                                                                                       \
        (__builtin_choose_expr(                                                                             \
                !__builtin_types_compatible_p(__typeof__(a), __typeof__(&*(a))),                            \
                sizeof(a) / sizeof((a)[0]), (void)0))

#define TAKE_PTR(p)                                                                                         \
        __extension__({                                                                                     \
                __typeof__(p) _ptr_ = (p);                                                                  \
                (p) = NULL;                                                                                 \
                _ptr_;                                                                                      \
        })

#define TAKE_FD(fd)                                                                                         \
        __extension__({                                                                                     \
                int _fd_ = (fd);                                                                            \
                (fd) = -EBADF;                                                                              \
                _fd_;                                                                                       \
        })

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static inline void freep(void *p) {
        free(*(void **)p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

/* Defines foo_freep() for a type whose foo_free() accepts NULL and returns NULL. */
#define DEFINE_FREEP(type, func)                                                                            \
        static inline void func##p(type **p) {                                                              \
                if (*p)                                                                                     \
                        (void)func(*p);                                                                     \
        }

static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}
#define streq(a, b) (strcmp((a), (b)) == 0)
