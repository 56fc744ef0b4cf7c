#pragma once

/* A process's descriptor limit (RLIMIT_NOFILE, through prlimit) and the
 * descriptors it has open (/proc/PID/fd), for fd.exhaust. The caller checks
 * the process is still the one it meant (a pidfd taken with a start-time
 * check) around these calls. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "basic/error.h"

/* More open descriptors than this in one process is refused (a listing is
 * kept in memory). */
#define PROC_FDS_MAX (1u << 20)

int proc_nofile_get(pid_t pid, struct rlimit *ret, struct mh_error *reterr);
/* Sets both limits; raising the hard one needs CAP_SYS_RESOURCE. */
int proc_nofile_set(pid_t pid, const struct rlimit *lim, struct mh_error *reterr);

/* Whether this process may raise a hard limit again (CAP_SYS_RESOURCE in
 * its effective set): without it, a lowered hard limit cannot be put back. */
bool nofile_can_raise_hard(void);

/* The descriptor numbers pid has open, ascending (malloc()ed; free them). */
int proc_fd_list(pid_t pid, int **ret_fds, size_t *ret_n, struct mh_error *reterr);

/* open() takes the lowest free number and fails with EMFILE when that is not
 * below the soft limit: the soft limit that leaves exactly headroom free
 * numbers below it, given the open ones (ascending). */
uint64_t nofile_soft_for(const int *fds, size_t n, uint64_t headroom);
/* How many more descriptors open() can give under soft. */
uint64_t nofile_headroom(const int *fds, size_t n, uint64_t soft);
