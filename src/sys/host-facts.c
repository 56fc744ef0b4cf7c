#include "host-facts.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "sys/cgroup.h"
#include "sys/rtnl.h"

#define STATUS_TEXT_MAX    8192
#define MOUNTINFO_TEXT_MAX (1024 * 1024)

static void read_caps(struct host_facts *f) {
        char text[STATUS_TEXT_MAX];
        if (read_text_at(AT_FDCWD, "/proc/self/status", text, sizeof(text)) < 0)
                return;
        const char *line = strstr(text, "\nCapEff:");
        if (!line)
                return;
        char *end = NULL;
        unsigned long long v = strtoull(line + strlen("\nCapEff:"), &end, 16);
        if (end && (*end == '\n' || *end == '\0')) {
                f->cap_eff = v;
                f->caps_known = true;
        }
}

static void read_cgroups(struct host_facts *f) {
        _cleanup_free_ char *mountinfo = NULL;
        char dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];
        size_t len = 0;
        if (read_file_bounded("/proc/self/mountinfo", MOUNTINFO_TEXT_MAX, &mountinfo, &len, NULL) < 0)
                return;
        unsigned bit = 0;
#define PROBE_V1(c)                                                                                         \
        if (cgroup_mount_parse(mountinfo, #c, dir, sizeof(dir), root, sizeof(root)) == 0)                   \
                f->v1_mounted |= 1u << bit;                                                                 \
        bit++;
        HOST_CGROUP_CONTROLLERS(PROBE_V1)
#undef PROBE_V1
        if (cgroup_mount_parse(mountinfo, NULL, dir, sizeof(dir), root, sizeof(root)) != 0)
                return;
        f->cgroup_v2 = true;
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 &&
            read_text_at(fd, "cgroup.controllers", f->v2_controllers, sizeof(f->v2_controllers)) >= 0)
                f->v2_controllers[strcspn(f->v2_controllers, "\n")] = '\0';
}

void host_facts_detect(struct host_facts *ret) {
        struct host_facts f = { .euid = geteuid() };
        read_caps(&f);
        read_cgroups(&f);
        f.time_ns = access("/proc/self/ns/time", F_OK) == 0;
        f.htb = rtnl_qdisc_kind_supported("htb", NULL);
        *ret = f;
}
