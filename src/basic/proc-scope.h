#pragma once

/* Whether a process of this host runs inside a container. Two tests, either
 * one enough:
 *
 *   - its pid namespace is not the reference one: init's (/proc/1/ns/pid),
 *     or the caller's own when init's cannot be read (not root). Every
 *     Docker, Podman, containerd or LXC container gets a pid namespace of its
 *     own unless it is started with --pid=host;
 *   - its cgroup path has a segment a container engine makes (docker-ID.scope
 *     or /docker/ID, libpod-ID, cri-containerd-ID, crio-ID, kubepods*,
 *     lxc.payload*, /lxc/NAME): this catches --pid=host containers, which
 *     share the host's pid namespace but not its cgroup. The engines' own
 *     daemons (docker.service, containerd.service) do not match.
 *
 * The mount namespace is deliberately not compared: systemd gives services
 * one of their own (PrivateTmp=, ProtectSystem=), and those are host
 * processes. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 1 when pid runs in a container, 0 when it is a host process, -errno when
 * that cannot be read (-ESRCH gone, -EACCES not ours to look at). */
int proc_in_container(pid_t pid);

/* /proc/PID/cgroup into buf (size > 0, NUL-terminated, cut at size - 1):
 * -ESRCH when pid is gone. */
int proc_cgroup_text(pid_t pid, char *buf, size_t size);

/* The cgroup test alone, on the text of /proc/PID/cgroup: whether a line's
 * path has a container engine's segment. */
bool proc_cgroup_is_container(const char *cgroup_text);
