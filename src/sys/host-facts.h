#pragma once

/* What the agent's host gives it besides the network features
 * (kernel-features.h): the privileges it runs with, the cgroup hierarchies
 * mounted (cgroup.h's way: /proc/self/mountinfo, never a guessed path) and
 * whether the kernel has time namespaces. Read once for `mayhem doctor`;
 * nothing here changes the host. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define HOST_CGROUP_CONTROLLERS(X)     X(cpu) X(cpuacct) X(memory) X(freezer) X(pids) X(blkio)
#define HOST_CGROUP_V2_CONTROLLERS_MAX 256

struct host_facts {
        uid_t euid;
        bool caps_known; /* CapEff read from /proc/self/status */
        uint64_t cap_eff;
        bool cgroup_v2;                                      /* a cgroup2 mount */
        char v2_controllers[HOST_CGROUP_V2_CONTROLLERS_MAX]; /* its root's cgroup.controllers */
        unsigned v1_mounted;                                 /* bit i: HOST_CGROUP_CONTROLLERS' i-th as v1 */
        bool time_ns;                                        /* /proc/self/ns/time (Linux >= 5.6) */
        int htb; /* sch_htb: 1 yes, 0 no, < 0 could not probe (rtnl_qdisc_kind_supported()) */
};

/* Fills ret; a fact that cannot be read stays false / empty. */
void host_facts_detect(struct host_facts *ret);
