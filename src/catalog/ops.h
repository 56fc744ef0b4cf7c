#pragma once

/* The vocabulary of compensation: undo ops, verify probes and effect checks.
 * The planner decides which a fault gets (src/plan/compensation.c); the
 * executors carry them out, from a lease's undo_json alone when recovering.
 * Names are stable: they are written into plans and the lease journal. */

enum comp_op {
        COMP_OP_SIGNAL_CONT,        /* SIGCONT the frozen process through its pidfd */
        COMP_OP_ENGINE_START,       /* start the container if it is not running */
        COMP_OP_ENGINE_UNPAUSE,     /* unpause the container if it is paused */
        COMP_OP_CRASH_LOOP_STOP,    /* stop the stop/start cadence */
        COMP_OP_CGROUP_RESTORE_CPU, /* put back the CPU quota recorded before the fault */
        COMP_OP_PAYLOAD_KILL,       /* SIGKILL our payload process group */
        COMP_OP_FILES_REMOVE,       /* delete the files our payload created */
        COMP_OP_NET_UNSHAPE,        /* delete our qdiscs, IFB device, shaper queue rules */
        COMP_OP_NFT_TABLE_DELETE,   /* delete our nftables table */
        COMP_OP_PROXY_STOP,         /* stop the transparent proxy */
        COMP_OP_DNS_STOP,           /* stop the DNS responder */
        COMP_OP_MOUNT_REMOUNT_RW,   /* remount read-write */
        COMP_OP_LOADGEN_STOP,       /* stop the load generator */
        COMP_OP_NONE,               /* nothing of ours to take back: a supervisor restarts the process */
        _COMP_OP_MAX,
};

enum verify_probe {
        VERIFY_PROCESS_NOT_STOPPED, /* target process state is not T */
        VERIFY_CONTAINER_RUNNING,   /* engine: running, not paused */
        VERIFY_CPU_RESTORED,        /* quota equals the recorded one */
        VERIFY_PAYLOAD_GONE,        /* no process of ours in the target's cgroup */
        VERIFY_FILES_GONE,          /* no file of ours left */
        VERIFY_NET_CLEAN,           /* no qdisc, IFB, nft table or queue of ours in the netns */
        VERIFY_PROXY_GONE,
        VERIFY_DNS_GONE,
        VERIFY_MOUNT_WRITABLE, /* a write probe succeeds */
        VERIFY_LOADGEN_GONE,
        VERIFY_PROCESS_RUNNING, /* a process of that name runs (again) */
        _VERIFY_PROBE_MAX,
};

enum effect_check {
        EFFECT_PROCESS_STOPPED, /* state T */
        EFFECT_PROCESS_GONE,    /* the pid we signalled exited */
        EFFECT_CONTAINER_PAUSED,
        EFFECT_CONTAINER_EXITED,
        EFFECT_CONTAINER_RESTARTED, /* start time moved */
        EFFECT_CPU_LIMITED,         /* quota set to the requested share */
        EFFECT_PAYLOAD_RUNNING,
        EFFECT_NET_SHAPED, /* qdisc or shaper queue rule present */
        EFFECT_NFT_RULES_PRESENT,
        EFFECT_PROXY_LISTENING,
        EFFECT_DNS_ANSWERING,
        EFFECT_MOUNT_READ_ONLY,
        EFFECT_LOADGEN_RUNNING,
        _EFFECT_CHECK_MAX,
};

/* How a network fault is delivered on the target's kernel: the impact gate's
 * choice (src/plan/impact.c), carried in the lease so the agent applies it. */
enum net_delivery {
        NET_DELIVERY_NFT,    /* rules in an nftables owner table (drop, reject, numgen, dup, mangle) */
        NET_DELIVERY_SHAPER, /* the agent's NFQUEUE shaper, fed by an owner table's queue rule */
        NET_DELIVERY_NETEM,  /* a netem qdisc (ingress through an IFB device) */
        NET_DELIVERY_TBF,    /* a tbf qdisc (ingress through an IFB device) */
        _NET_DELIVERY_MAX,
};

const char *comp_op_to_string(enum comp_op op);
int comp_op_from_string(const char *s);
const char *verify_probe_to_string(enum verify_probe p);
int verify_probe_from_string(const char *s);
const char *effect_check_to_string(enum effect_check e);
int effect_check_from_string(const char *s);
const char *net_delivery_to_string(enum net_delivery d);
int net_delivery_from_string(const char *s);
