#include "proc-stat.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool proc_stat_read(pid_t pid, struct proc_stat *ret) {
        char path[64], buf[1024];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
        if (fd >= 0)
                close(fd);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        /* The command name may hold spaces and ')': count from the last ')'. */
        const char *p = strrchr(buf, ')');
        if (!p || sscanf(p + 2, "%c %d", &ret->state, &ret->ppid) != 2)
                return false;
        for (int field = 2; p && field < 22; field++)
                p = strchr(p + 1, ' ');
        ret->start_time = 0;
        return p && sscanf(p + 1, "%llu", &ret->start_time) == 1;
}

char proc_state_of(pid_t pid) {
        struct proc_stat st;
        return proc_stat_read(pid, &st) ? st.state : '-';
}

bool proc_comm_is(pid_t pid, const char *name) {
        char path[64], comm[64];
        snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, comm, sizeof(comm) - 1);
        if (fd >= 0)
                close(fd);
        if (n <= 0)
                return false;
        comm[n] = '\0';
        comm[strcspn(comm, "\n")] = '\0';
        return strcmp(comm, name) == 0;
}

static bool first_line(const char *path, char *buf, size_t size) {
        FILE *f = fopen(path, "re");
        bool ok = f && fgets(buf, (int)size, f);
        if (f)
                fclose(f);
        if (ok)
                buf[strcspn(buf, "\n")] = '\0';
        return ok;
}

void proc_cpu_quota_text(pid_t pid, char *buf, size_t size) {
        char path[512], line[512], v1[300] = "", v2[300] = "", quota[64], period[64];
        buf[0] = '\0';
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        FILE *f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "%*d:cpu,cpuacct:%299s", v1) != 1 && sscanf(line, "%*d:cpu:%299s", v1) != 1)
                        (void)sscanf(line, "0::%299s", v2);
        if (f)
                fclose(f);
        if (v1[0]) {
                snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s/cpu.cfs_quota_us", v1);
                bool ok = first_line(path, quota, sizeof(quota));
                snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s/cpu.cfs_period_us", v1);
                if (ok && first_line(path, period, sizeof(period)))
                        snprintf(buf, size, "%s/%s", quota, period);
        } else if (v2[0]) {
                snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", v2);
                if (first_line(path, line, sizeof(line)) && sscanf(line, "%63s %63s", quota, period) == 2)
                        snprintf(buf, size, "%s/%s", strcmp(quota, "max") == 0 ? "-1" : quota, period);
        }
}
