#pragma once

/* Paths that come from a drill or from inside a target, opened so that they
 * cannot leave the root they name: every symlink (absolute ones included)
 * resolves inside it and "/proc/.../fd" magic links are refused (openat2
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS, Linux >= 5.6). */

/* path (leading slashes or not: from root either way; "" is root itself)
 * below the directory fd root, with flags (O_CLOEXEC is added). On a kernel
 * without openat2 (ENOSYS) only the last component is opened O_NOFOLLOW.
 * The descriptor, or -errno. */
int open_in_root(int root, const char *path, int flags);
/* The same below "/" of the calling process: for code running inside a
 * target's mount namespace, where "/" is the target's root. */
int open_in_own_root(const char *path, int flags);
