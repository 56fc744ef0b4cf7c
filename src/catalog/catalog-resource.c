/* Resources: cpu, mem, fs and fd faults. Sorted by id. */
#include "catalog-entries.h"

static const char *const mem_mode_choices[] = { "allocate", NULL };
static const char *const io_op_choices[] = { "read", "write", "both", NULL };
/* The reference also has "leak" (descriptors taken gradually): not built, so
 * the drill parser refuses it at FILE:LINE:COL with the choices. */
static const char *const fd_mode_choices[] = { "exhaust", NULL };

const struct fault_def catalog_resource[] = {
        {
                .id = "cpu.burst",
                .category = FAULT_CATEGORY_CPU,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_CPU,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_CPU_QUOTA,
                REFUSED("needs cgroup v2 cpu.max.burst (Linux 5.14) with its previous value journalled",
                        "use cpu.throttle to cap the CPU instead"),
        },
        {
                .id = "cpu.saturate",
                .category = FAULT_CATEGORY_CPU,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_CPU,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_CPU_LOAD,
                .mechanism = "payload.cpu",
                .comp = C_CPU_SATURATE,
                PARAMS(
                        P_PCT("percent", 80, 1, 100,
                              "CPU to add, as a share of the target's allowance: its cgroup's quota "
                              "(cpu.max / cfs quota), else the CPUs it may run on")),
                .effect = "burner threads in the target's cgroups and pid namespace add percent of its CPU "
                          "allowance (the cgroup's cfs quota / cpu.max; the CPUs it may run on when "
                          "unlimited), closed-loop on their own CPU time; the check measures their run "
                          "time and the cgroup's usage counter over 1 s (+-10 points); when the app "
                          "itself uses CPU and the quota binds, they get what is left, and say so",
                .undo = PAYLOAD_UNDO,
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "cpu.throttle",
                .category = FAULT_CATEGORY_CPU,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_ENGINE | NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_CPU,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_CPU_QUOTA,
                .mechanism = "cgroup.cpu",
                .comp = C_CPU,
                PARAMS(P_PCT(
                        "percent", 50, 1, 100, "CPU quota as a share of the target's current allowance")),
                .effect = "the target's CPU quota is cut to percent of its allowance (Engine API update of "
                          "the "
                          "CPU limit, or cpu.max / cpu.cfs_quota_us in its cgroup)",
                .undo = "write back the quota read and journalled before the fault, not a default",
                .verify = "the engine's CPU limit or the cgroup quota equals the journalled previous value",
        },
        {
                .id = "fd.exhaust",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_PROCESS,
                .conflict = CONFLICT_DESCRIPTORS,
                .mechanism = "rlimit.nofile",
                .comp = C_NOFILE,
                PARAMS(P_INT("limit", 64, 1, 1048576, "descriptors each process can still open"),
                       P_ENUM("mode", "exhaust", fd_mode_choices,
                              "exhaust: the limit lowered at once (the reference's leak is not built)")),
                .effect =
                        "RLIMIT_NOFILE of every process of the target lowered with prlimit (the hard limit "
                        "too when the agent holds CAP_SYS_RESOURCE, to raise it back) so that only limit "
                        "more descriptors can be opened; the next open fails with EMFILE",
                .undo = "put back each process's recorded RLIMIT_NOFILE, and the old limits on processes "
                        "forked during the fault that inherited the lowered ones",
                .verify = "every recorded process still running has its RLIMIT_NOFILE of before",
        },
        {
                .id = "fs.corrupt",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_MOUNT,
                REFUSED("needs a journalled backup of the overwritten byte range in the target's mount "
                        "namespace",
                        "use fs.read_only to make the path fail writes instead"),
        },
        {
                .id = "fs.fill",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_FS_SPACE,
                .mechanism = "payload.fill",
                .comp = C_PAYLOAD_FILL,
                PARAMS(P_PCT("percent", 45, 1, 99,
                             "used share of the filesystem's size to fill to (adding at most 1 GiB)"),
                       P_PATH("path", "/",
                              "a directory on the filesystem to fill, in the target's mount namespace")),
                .effect =
                        "a payload in the target's mount namespace writes random data into an unnamed file "
                        "(O_TMPFILE) "
                        "on the filesystem of path until percent of its size is used, adding at most 1 GiB, "
                        "and holds it open",
                .undo = "stop the payload: the kernel frees the space with its last descriptor",
                .verify = "no payload of the lease is left in the target's cgroup",
        },
        {
                .id = "fs.inode_exhaust",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_FS_SPACE,
                .mechanism = "payload.inodes",
                .comp = C_PAYLOAD_INODES,
                PARAMS(P_PCT("percent", 50, 1, 99, "share of the free inodes to use"),
                       P_PATH("path", "/",
                              "a directory on the filesystem whose inodes to use, in the target's mount "
                              "namespace")),
                .effect =
                        "a payload in the target's mount namespace creates empty unnamed files (O_TMPFILE) "
                        "on "
                        "the filesystem of path until percent of its free inodes (at most 200000) are used, "
                        "and holds a descriptor on each",
                .undo = "stop the payload: the kernel frees the inodes with its descriptors",
                .verify = "no payload of the lease is left in the target's cgroup",
        },
        {
                .id = "fs.io_stress",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_FS_SPACE,
                .mechanism = "payload.io",
                .comp = C_IO,
                PARAMS(P_INT("workers", 1, 1, 8, "parallel I/O workers"),
                       P_BYTES("io_bytes", 64 * MIB, MIB, GIB, "bytes each worker moves per pass"),
                       P_INT_OPT("read_mb_s", 1, 512, "read pace per worker, MiB/s; unpaced when absent"),
                       P_INT_OPT("write_mb_s", 1, 512, "write pace per worker, MiB/s; unpaced when absent"),
                       P_BYTES("block_size", 64 * KIB, 4 * KIB, 16 * MIB, "size of one read or write"),
                       P_ENUM("op", "both", io_op_choices, "read, write or both"),
                       P_DUR_OPT(
                               "seconds", 1000, 120000,
                               "how long the workers run; the fault's duration when absent")),
                .effect = "workers writer and reader threads of a payload in the target's cgroups and mount "
                          "namespace move io_bytes files (unlinked O_TMPFILE under /tmp, else /; O_DIRECT "
                          "where the filesystem takes it) in block_size blocks, each paced to write_mb_s / "
                          "read_mb_s",
                .undo = PAYLOAD_UNDO "; the kernel frees the unlinked files with it",
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "fs.permission_failure",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_MOUNT,
                REFUSED("needs a chmod in the target's mount namespace with the previous mode journalled",
                        "use fs.read_only on the path"),
        },
        {
                .id = "fs.quota",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_MOUNT,
                REFUSED("needs project quotas on the filesystem backing the target",
                        "use fs.fill to run the filesystem short of space"),
        },
        {
                .id = "fs.read_only",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_MOUNT,
                .mechanism = "mount",
                .comp = C_MOUNT,
                PARAMS(P_PATH("path", "/", "path whose mount is made read-only")),
                .effect =
                        "path is made read-only in the target's mount namespace only (a private read-only "
                        "bind over it; for / the root mount's own read-only flag), so new opens for writing "
                        "fail with EROFS; below /, files open for writing before keep writing",
                .undo = "unmount that bind, or clear the flag, on the mount id recorded before the fault",
                .verify = "the target's /proc/PID/mountinfo no longer has the recorded bind, or shows the "
                          "root mount rw",
        },
        {
                .id = "fs.write_delay",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_FS,
                .resource = RESOURCE_MOUNT,
                .conflict = CONFLICT_MOUNT,
                REFUSED("needs a FUSE overlay or the io.latency cgroup controller to delay writes",
                        "use fs.io_stress to slow the target's disk"),
        },
        {
                .id = "mem.exhaust",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_MEMORY,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_MEMORY,
                .mechanism = "payload.mem",
                .comp = COMP("payload.kill", "payload.gone", "mem.resident"),
                PARAMS(P_PCT("percent", 60, 1, 99, "share of the memory limit to allocate"),
                       P_BYTES_OPT("amount", MIB, TIB, "bytes to allocate; overrides percent"),
                       P_ENUM("mode", "allocate", mem_mode_choices, "how memory is taken: allocate")),
                .effect =
                        "a payload in the target's memory cgroup writes random data over amount (or percent "
                        "of the cgroup's limit; of the host's MemTotal when it has none), capped below the "
                        "limit minus a margin and the app's usage; checked as the cgroup's usage growth",
                .undo = PAYLOAD_UNDO,
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "mem.freeze",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_MEMORY,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_MEMORY,
                REFUSED("needs memory.high pinning in the target's cgroup with the previous value "
                        "journalled",
                        "use mem.exhaust with a high percent, or container.pause"),
        },
        {
                .id = "mem.leak",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_MEMORY,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_MEMORY,
                .mechanism = "payload.leak",
                .comp = COMP("payload.kill", "payload.gone", "mem.growing"),
                PARAMS(P_INT("rate_mb", 8, 1, 512, "MiB allocated per second")),
                .effect = "a payload in the target's memory cgroup writes random data over rate_mb MiB more "
                          "every second up to the cap of mem.exhaust, then holds; checked as the cgroup's "
                          "usage growth rate",
                .undo = PAYLOAD_UNDO,
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "mem.swap_pressure",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_MEMORY,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_MEMORY,
                REFUSED("needs memory.swap.max tuning in the target's cgroup and swap on the host",
                        "use mem.exhaust to press on the memory limit"),
        },
};

const size_t catalog_resource_count = sizeof(catalog_resource) / sizeof(catalog_resource[0]);
