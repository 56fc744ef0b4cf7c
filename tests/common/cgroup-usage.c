#include "common/cgroup-usage.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/clock.h"

static bool slurp(const char *path, char *buf, size_t size) {
        FILE *f = fopen(path, "re");
        if (!f)
                return false;
        size_t n = fread(buf, 1, size - 1, f);
        fclose(f);
        buf[n] = '\0';
        return n > 0;
}

bool cgroup_usage_find(pid_t pid, struct cgroup_usage *ret) {
        char path[64], text[4096], v1[400] = "", v2[400] = "", file[600];
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        if (!slurp(path, text, sizeof(text)))
                return false;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
                char *ctrl = strchr(line, ':'), *p = ctrl ? strchr(ctrl + 1, ':') : NULL;
                if (!p)
                        continue;
                *p++ = '\0';
                if (ctrl[1] == '\0')
                        snprintf(v2, sizeof(v2), "%s", p);
                else if (strstr(ctrl + 1, "cpuacct"))
                        snprintf(v1, sizeof(v1), "%s", p);
        }
        const char *v1_mounts[] = { "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpu,cpuacct" };
        for (size_t i = 0; v1[0] && i < 2; i++) {
                snprintf(file, sizeof(file), "%s%s/cpuacct.usage", v1_mounts[i], v1);
                if (access(file, R_OK) == 0) {
                        snprintf(ret->dir, sizeof(ret->dir), "%s%s", v1_mounts[i], v1);
                        ret->v2 = false;
                        return true;
                }
        }
        snprintf(file, sizeof(file), "/sys/fs/cgroup%s/cpu.stat", v2);
        if (access(file, R_OK) < 0)
                return false;
        snprintf(ret->dir, sizeof(ret->dir), "/sys/fs/cgroup%s", v2);
        ret->v2 = true;
        return true;
}

bool cgroup_usage_read(const struct cgroup_usage *c, double *ret_s) {
        char file[600], buf[2048];
        unsigned long long v = 0;
        snprintf(file, sizeof(file), "%s/%s", c->dir, c->v2 ? "cpu.stat" : "cpuacct.usage");
        if (!slurp(file, buf, sizeof(buf)))
                return false;
        const char *num = c->v2 ? strstr(buf, "usage_usec ") : buf;
        if (!num || sscanf(num + (c->v2 ? 11 : 0), "%llu", &v) != 1)
                return false;
        *ret_s = (double)v / (c->v2 ? 1e6 : 1e9);
        return true;
}

double cgroup_usage_share(const struct cgroup_usage *c, double allowance, int ms) {
        double u0 = 0, u1 = 0, t0 = monotonic_ms();
        if (!cgroup_usage_read(c, &u0))
                return NAN;
        sleep_ms(ms);
        if (!cgroup_usage_read(c, &u1))
                return NAN;
        return 100.0 * (u1 - u0) / ((monotonic_ms() - t0) / 1000.0 * allowance);
}

static long rss_kb(int pid) {
        char path[64], buf[4096];
        long kb = 0;
        snprintf(path, sizeof(path), "/proc/%d/status", pid);
        const char *p = slurp(path, buf, sizeof(buf)) ? strstr(buf, "VmRSS:") : NULL;
        return p && sscanf(p + 6, "%ld", &kb) == 1 ? kb : 0;
}

long cgroup_usage_rss_kb(const struct cgroup_usage *c, const char *prefix, int *ret_n) {
        char file[600], comm_path[64], comm[256];
        long sum = 0;
        int pid, n = 0;
        snprintf(file, sizeof(file), "%s/cgroup.procs", c->dir);
        FILE *f = fopen(file, "re");
        while (f && fscanf(f, "%d", &pid) == 1) {
                snprintf(comm_path, sizeof(comm_path), "/proc/%d/cmdline", pid);
                if (slurp(comm_path, comm, sizeof(comm)) && strncmp(comm, prefix, strlen(prefix)) == 0) {
                        sum += rss_kb(pid);
                        n++;
                }
        }
        if (f)
                fclose(f);
        *ret_n = n;
        return sum;
}
