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
