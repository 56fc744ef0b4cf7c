#include "demo-harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/fileio.h"
#include "common/proc-stat.h"
#include "engine/engine.h"

static const char *root(void) {
        const char *r = getenv("MAYHEM_SOURCE_ROOT");
        return r ? r : ".";
}

/* MAYHEM_TEST_ENGINE=podman runs the same tests against Podman's service. */
bool demo_podman(void) {
        const char *e = getenv("MAYHEM_TEST_ENGINE");
        return e && strcmp(e, "podman") == 0;
}

const char *demo_engine_cli(void) {
        return demo_podman() ? "podman" : "docker";
}

static struct engine *open_engine(void) {
        struct engine *e = NULL;
        return engine_open(demo_podman() ? ENGINE_PODMAN : ENGINE_DOCKER, NULL, &e, NULL) >= 0 ? e : NULL;
}

static bool engine_answers(void) {
        struct engine *e = open_engine();
        engine_free(e);
        return e != NULL;
}

static int tool(const char *name, const char *arg) {
        char path[600];
        snprintf(path, sizeof(path), "%s/tools/%s", root(), name);
        const char *argv[] = { path, demo_podman() ? "--podman" : arg, demo_podman() ? arg : NULL, NULL };
        struct cmd_result r = run_command(root(), argv);
        if (r.exit != 0)
                fprintf(stderr, "%s %s failed (%d): %s%s\n", name, arg ? arg : "", r.exit, r.out, r.err);
        int code = r.exit;
        cmd_result_done(&r);
        return code;
}

static void remove_db(const char *db) {
        static const char *const suffixes[] = { "", "-wal", "-shm", ".log" };
        char path[128];
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
}

void demo_fresh_db(struct demo *d) {
        remove_db(d->db);
        snprintf(d->db, sizeof(d->db), "/tmp/mayhem-itest-%d-%u.db", (int)getpid(), ++d->n_db);
}

int demo_up(struct demo *d) {
        demo_fresh_db(d);
        snprintf(d->root, sizeof(d->root), "%s", root());
        if (!engine_answers())
                return 77;
        if (tool("build-images", NULL) != 0 || tool("demo-stack", "up") != 0)
                return -1;
        return 0;
}

void demo_down(struct demo *d) {
        demo_unpause();
        tool("demo-stack", "down");
        remove_db(d->db);
}

static void fill_argv(const struct demo *d, const char *const *args, const char **argv, size_t max) {
        size_t n = 0;
        argv[n++] = getenv("MAYHEM_BIN");
        if (demo_podman())
                argv[n++] = "--podman";
        argv[n++] = "--db";
        argv[n++] = d->db;
        for (size_t i = 0; args[i] && n < max - 1; i++)
                argv[n++] = args[i];
        argv[n] = NULL;
}

struct cmd_result demo_mayhem(const struct demo *d, const char *const *args) {
        const char *argv[32];
        fill_argv(d, args, argv, 32);
        return run_command(d->root, argv);
}

/* Its output goes to <db>.log, for demo_spawn_log() when a test fails. */
pid_t demo_mayhem_spawn(const struct demo *d, const char *const *args) {
        const char *argv[32];
        char log[96];
        fill_argv(d, args, argv, 32);
        snprintf(log, sizeof(log), "%s.log", d->db);
        return spawn_command_log(d->root, argv, log);
}

char *demo_spawn_log(const struct demo *d) {
        char path[96], *data = NULL;
        size_t len = 0;
        snprintf(path, sizeof(path), "%s.log", d->db);
        if (read_file_bounded(path, 1 << 20, &data, &len, NULL) < 0)
                return strdup("(no log)");
        return data;
}

json_t *demo_inspect(const struct demo *d, const char *const *args) {
        struct cmd_result r = demo_mayhem(d, args);
        json_t *j = r.exit == 0 ? json_loads(r.out, 0, NULL) : NULL;
        if (!j)
                fprintf(stderr, "inspect failed (%d): %s\n", r.exit, r.err);
        cmd_result_done(&r);
        return j;
}

bool demo_inspect_container(const char *name, struct engine_container *c) {
        struct engine *e = open_engine();
        bool ok = e && engine_container_inspect(e, name, c, NULL) >= 0;
        engine_free(e);
        return ok;
}

bool demo_run_service(const char *name, const char *project, const char *service) {
        char project_label[96], service_label[96];
        snprintf(project_label, sizeof(project_label), "com.docker.compose.project=%s", project);
        snprintf(service_label, sizeof(service_label), "com.docker.compose.service=%s", service);
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "run", "-d", "--name", name, "--label", project_label,
                                             "--label", service_label, "mayhem-test-net:latest", NULL });
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "docker run %s: %s", name, r.err);
        cmd_result_done(&r);
        return ok;
}

bool demo_container(bool *ret_running, bool *ret_paused) {
        struct engine_container c;
        bool ok = demo_inspect_container("demo-api", &c);
        if (ok) {
                *ret_running = c.running;
                *ret_paused = c.paused;
        }
        return ok;
}

void demo_unpause(void) {
        struct engine *e = open_engine();
        if (e)
                engine_container_unpause(e, "demo-api", NULL);
        engine_free(e);
}

char *demo_in_netns(int pid, const char *const *argv) {
        const char *full[16] = { "nsenter", "-t", NULL, "-n" };
        char pid_text[16];
        snprintf(pid_text, sizeof(pid_text), "%d", pid);
        full[2] = pid_text;
        size_t n = 4;
        for (size_t i = 0; argv[i] && n < 15; i++)
                full[n++] = argv[i];
        full[n] = NULL;
        struct cmd_result r = run_command(NULL, full);
        char *out = strdup(r.out ? r.out : "");
        cmd_result_done(&r);
        return out;
}

bool demo_net_residue(int pid, char *why, size_t size) {
        char *tables = demo_in_netns(pid, (const char *const[]){ "nft", "list", "tables", NULL });
        char *qdiscs = demo_in_netns(pid, (const char *const[]){ "tc", "qdisc", "show", NULL });
        char *links =
                demo_in_netns(pid, (const char *const[]){ "ip", "-o", "link", "show", "type", "ifb", NULL });
        bool found = strstr(tables, "mayhem-") || strstr(qdiscs, "6d68:") || strstr(qdiscs, "ingress") ||
                     links[0];
        snprintf(why, size, "tables: %.200s qdiscs: %.300s ifb: %.100s", tables, qdiscs, links);
        free(tables), free(qdiscs), free(links);
        return found;
}

/* Whether pid runs this build's agent ($MAYHEM_AGENT_BIN): agents of other
 * checkouts on the same machine are not ours to count. Without the variable,
 * every mayhem-agent is. */
static bool our_agent(int pid) {
        static char want[PATH_MAX];
        char path[64], exe[PATH_MAX];
        const char *bin = getenv("MAYHEM_AGENT_BIN");
        if (!bin || (!want[0] && !realpath(bin, want)))
                return true;
        snprintf(path, sizeof(path), "/proc/%d/exe", pid);
        ssize_t n = readlink(path, exe, sizeof(exe) - 1);
        if (n < 0)
                return false;
        exe[n] = '\0';
        return strcmp(exe, want) == 0;
}

/* parent > 0: its children only; since > 0: only those started at that
 * boot-relative clock tick or later. */
static int count_agents(int parent, unsigned long long since, int *ret_pid) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        int n = 0;
        while (d && (de = readdir(d))) {
                int pid = (int)strtol(de->d_name, NULL, 10);
                struct proc_stat st;
                if (pid <= 0 || !proc_comm_is(pid, "mayhem-agent") || !proc_stat_read(pid, &st) ||
                    st.state == 'Z' || !our_agent(pid))
                        continue;
                if ((parent > 0 && st.ppid != parent) || st.start_time < since)
                        continue;
                n++;
                if (ret_pid)
                        *ret_pid = pid;
        }
        if (d)
                closedir(d);
        return n;
}

int demo_agents(int parent, int *ret_pid) {
        return count_agents(parent, 0, ret_pid);
}

int demo_agents_since(unsigned long long since, int *ret_pid) {
        return count_agents(0, since, ret_pid);
}

int demo_agents_new(int *ret_pid) {
        static unsigned long long self_started;
        struct proc_stat self;
        if (!self_started && proc_stat_read(getpid(), &self))
                self_started = self.start_time;
        return demo_agents_since(self_started, ret_pid);
}

unsigned long long demo_clock_ticks(void) {
        double up = 0;
        FILE *f = fopen("/proc/uptime", "re");
        if (!f || fscanf(f, "%lf", &up) != 1)
                up = 0;
        if (f)
                fclose(f);
        return (unsigned long long)(up * (double)sysconf(_SC_CLK_TCK));
}

int demo_wait_run(const struct demo *d, pid_t pid, double timeout_ms) {
        int code = demo_wait_exit(pid, timeout_ms);
        if (code < 0) {
                char *log = demo_spawn_log(d);
                fprintf(stderr, "mayhem (pid %d) still ran after %.0f s: SIGKILLed. It printed:\n%s\n",
                        (int)pid, timeout_ms / 1000, log);
                free(log);
        }
        return code;
}

/* One GET: whether the answer's status line says 200. */
static bool http_get_ok(const char *ip, int port, const char *path) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        struct timeval tv = { .tv_sec = 1 };
        char req[256], reply[64] = "";
        if (inet_pton(AF_INET, ip, &a.sin_addr) != 1)
                return false;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return false;
        /* connect() too is bounded by SO_SNDTIMEO on Linux */
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        int n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, ip);
        ssize_t got = -1;
        if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && write(fd, req, (size_t)n) == n)
                got = read(fd, reply, sizeof(reply) - 1);
        close(fd);
        if (got <= 0)
                return false;
        reply[got] = '\0';
        return strncmp(reply, "HTTP/1.", 7) == 0 && strncmp(reply + 8, " 200", 4) == 0;
}

bool demo_wait_http(const char *ip, int port, const char *path, double timeout_ms) {
        for (double until = monotonic_ms() + timeout_ms; monotonic_ms() < until; sleep_ms(50))
                if (http_get_ok(ip, port, path))
                        return true;
        return false;
}
