#pragma once

/* file and process probes as the target sees them, read by the agent from
 * the host without entering anything: a file in the target's root
 * (/proc/PID/root with open_in_root, no symlink leaves it), a process in
 * the target's pid namespace (same /proc/N/ns/pid inode; a pid as the
 * target numbers it, the last NSpid field). Both only read. */

#include "engine/engine.h"
#include "fault/fault.h"
#include "probe-netns.h"

void probe_target_file(
        const struct proc_identity *id, const struct agent_probe_req *req, struct probe_outcome *out);
void probe_target_process(
        const struct proc_identity *id, const struct agent_probe_req *req, struct probe_outcome *out);
/* exec through the engine's exec API (engine_container_exec): the binary
 * must be in the image; an absolute cmd[0] missing from the target's root
 * is said so ("the image has no /bin/cat") before anything is run. */
void probe_target_exec(
        struct engine *e, const struct target_identity *t, const struct agent_probe_req *req,
        struct probe_outcome *out);
