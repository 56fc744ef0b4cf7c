#include "ops.h"

#include "basic/string-table.h"

static const char *const comp_op_table[_COMP_OP_MAX] = {
        [COMP_OP_SIGNAL_CONT] = "signal.cont",
        [COMP_OP_ENGINE_START] = "engine.start",
        [COMP_OP_ENGINE_UNPAUSE] = "engine.unpause",
        [COMP_OP_CRASH_LOOP_STOP] = "crash_loop.stop",
        [COMP_OP_CGROUP_RESTORE_CPU] = "cgroup.restore_cpu",
        [COMP_OP_PAYLOAD_KILL] = "payload.kill",
        [COMP_OP_FILES_REMOVE] = "files.remove",
        [COMP_OP_NET_UNSHAPE] = "net.unshape",
        [COMP_OP_NFT_TABLE_DELETE] = "nft.table_delete",
        [COMP_OP_PROXY_STOP] = "proxy.stop",
        [COMP_OP_DNS_STOP] = "dns.stop",
        [COMP_OP_MOUNT_REMOUNT_RW] = "mount.remount_rw",
        [COMP_OP_LOADGEN_STOP] = "loadgen.stop",
        [COMP_OP_NONE] = "none",
};
DEFINE_STRING_TABLE_LOOKUP(comp_op, enum comp_op)

static const char *const verify_probe_table[_VERIFY_PROBE_MAX] = {
        [VERIFY_PROCESS_NOT_STOPPED] = "process.not_stopped",
        [VERIFY_CONTAINER_RUNNING] = "container.running",
        [VERIFY_CPU_RESTORED] = "cgroup.cpu_restored",
        [VERIFY_PAYLOAD_GONE] = "payload.gone",
        [VERIFY_FILES_GONE] = "files.gone",
        [VERIFY_NET_CLEAN] = "net.clean",
        [VERIFY_PROXY_GONE] = "proxy.gone",
        [VERIFY_DNS_GONE] = "dns.gone",
        [VERIFY_MOUNT_WRITABLE] = "mount.writable",
        [VERIFY_LOADGEN_GONE] = "loadgen.gone",
        [VERIFY_PROCESS_RUNNING] = "process.running",
};
DEFINE_STRING_TABLE_LOOKUP(verify_probe, enum verify_probe)

static const char *const effect_check_table[_EFFECT_CHECK_MAX] = {
        [EFFECT_PROCESS_STOPPED] = "process.stopped",
        [EFFECT_PROCESS_GONE] = "process.gone",
        [EFFECT_CONTAINER_PAUSED] = "container.paused",
        [EFFECT_CONTAINER_EXITED] = "container.exited",
        [EFFECT_CONTAINER_RESTARTED] = "container.restarted",
        [EFFECT_CPU_LIMITED] = "cgroup.cpu_limited",
        [EFFECT_PAYLOAD_RUNNING] = "payload.running",
        [EFFECT_NET_SHAPED] = "net.shaped",
        [EFFECT_NFT_RULES_PRESENT] = "nft.rules_present",
        [EFFECT_PROXY_LISTENING] = "proxy.listening",
        [EFFECT_DNS_ANSWERING] = "dns.answering",
        [EFFECT_MOUNT_READ_ONLY] = "mount.read_only",
        [EFFECT_LOADGEN_RUNNING] = "loadgen.running",
};
DEFINE_STRING_TABLE_LOOKUP(effect_check, enum effect_check)

static const char *const net_delivery_table[_NET_DELIVERY_MAX] = {
        [NET_DELIVERY_NFT] = "nft",
        [NET_DELIVERY_SHAPER] = "shaper",
        [NET_DELIVERY_NETEM] = "netem",
        [NET_DELIVERY_TBF] = "tbf",
};
DEFINE_STRING_TABLE_LOOKUP(net_delivery, enum net_delivery)
