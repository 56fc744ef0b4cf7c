#pragma once

/* file and process probes as the target sees them, read by the agent from
 * the host without entering anything: a file in the target's root
 * (/proc/PID/root with open_in_root, no symlink leaves it), a process in
 * the target's pid namespace (same /proc/N/ns/pid inode; a pid as the
 * target numbers it, the last NSpid field). Both only read. */

#include "probe-netns.h"

void probe_target_file(
        const struct proc_identity *id, const struct agent_probe_req *req, struct probe_outcome *out);
void probe_target_process(
        const struct proc_identity *id, const struct agent_probe_req *req, struct probe_outcome *out);
