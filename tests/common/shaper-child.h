#pragma once

/* The NFQUEUE shaper run in a forked child entered into a network namespace
 * (a netlink socket belongs to the netns it was made in), for the root test
 * and the bench. The child dies with its parent (PR_SET_PDEATHSIG). */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shaper/shaper.h"

struct shaper_child {
        pid_t pid;
        int cmd_fd, out_fd;
};

#define SHAPER_CHILD_NULL ((struct shaper_child){ .pid = -1, .cmd_fd = -1, .out_fd = -1 })

/* Forks, opens the queue in netns and starts the shaper; returns once it runs.
 * 0, or -1 with the child's words in err. */
int shaper_child_start(
        struct shaper_child *c, const char *netns, uint16_t queue, const struct shaper_config *config,
        char *err, size_t err_size);
/* shaper_update() in the child. 0, or -1. */
int shaper_child_update(struct shaper_child *c, const struct shaper_config *config);
/* shaper_stop() in the child; out gets its stats line ("stopped R held N seen
 * N ..."; held is before the stop). The child's exit code, or -1. */
int shaper_child_stop(struct shaper_child *c, char *out, size_t size);
/* SIGKILL and reap (nothing when not running); closes the pipes. */
void shaper_child_kill(struct shaper_child *c);
/* The number after key in a stats line; UINT64_MAX when absent. */
uint64_t shaper_child_stat(const char *line, const char *key);
/* The same for the floating-point ones (late_p50, late_p99, late_max). */
double shaper_child_statf(const char *line, const char *key);
