#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/proc-stat.h"
#include "basic/clock.h"
#include "basic/fileio.h"
#include "demo-harness.h"

/* The ssh transport for real: the test starts its own sshd on 127.0.0.1 (a
 * free high port, its own host key and authorized_keys in a temporary
 * directory, no system service involved) and runs the real mayhem with
 * `--agent ssh://root@127.0.0.1:PORT --ssh-config FILE --remote-agent PATH`.
 * It checks that the agent really ran under that sshd, that killing the
 * controller makes the agent undo through the ssh channel closing (the
 * dead-man's switch), and that a refused login or a host that never answers
 * fails with exit 8 before anything is touched. Needs root (sshd and the
 * faults), /usr/sbin/sshd and a Docker engine; exits 77 otherwise. */

#define SSHD        "/usr/sbin/sshd"
#define PRIVSEP_DIR "/run/sshd"
#define DEMO_DRILL  "examples/demo/drill.yaml"
#define HOLD_DRILL  "tests/data/drills/hold-pause.yaml"
#define COMPOSE     "examples/demo/compose.yaml"
/* The unpause after the controller's SIGKILL goes through ssh's stdin EOF,
 * sshd, the agent's stdin and its undo: a second on a quiet machine, a few
 * under the sanitizer on a loaded one. The hold is 60 s and a lease's TTL
 * 120 s at least: only the dead-man's switch unpauses within 10 s. */
#define UNDO_WITHIN_MS 10000.0
#define HANDSHAKE_MS   15000.0 /* the agent client's (src/agent/agent-client.c) */
#define FILE_MAX       (1u << 20)

struct sshd {
        char dir[64];
        char config[128], log[128], ssh_config[128], authorized[128], client_pub[128];
        char target[64];
        pid_t pid;
        int port;
};

static struct demo demo;
static struct sshd sshd;
static const char *agent_bin;
static pid_t controller = -1; /* a run a failed test left behind; killed in teardown */

static char *slurp(const char *path) {
        char *data = NULL;
        size_t len = 0;
        if (read_file_bounded(path, FILE_MAX, &data, &len, NULL) < 0)
                return strdup("");
        return data;
}

static bool write_text(const char *path, const char *text) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        size_t len = strlen(text);
        bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
        if (fd >= 0)
                close(fd);
        return ok;
}

static void path_in(char *buf, size_t size, const char *name) {
        snprintf(buf, size, "%s/%s", sshd.dir, name);
}

/* How often needle occurs in the file (0 when it cannot be read). */
static unsigned count_in_file(const char *path, const char *needle) {
        char *text = slurp(path);
        unsigned n = 0;
        for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        free(text);
        return n;
}

static unsigned logins(void) {
        return count_in_file(sshd.log, "Accepted publickey for root from 127.0.0.1");
}

static bool alive(int pid) {
        char state = proc_state_of(pid);
        return state != '-' && state != 'Z';
}

/* True when our sshd is pid's parent, grandparent, ... */
static bool under_sshd(int pid) {
        struct proc_stat st;
        for (int depth = 0; depth < 16 && pid > 1; depth++) {
                if (!proc_stat_read(pid, &st))
                        return false;
                if (st.ppid == sshd.pid)
                        return true;
                pid = st.ppid;
        }
        return false;
}

/* Live processes named comm (mayhem-agent, ssh, sshd) that belong to this
 * test: under our sshd, or (for the ssh client) pointed at our ssh config. */
static int ours(const char *comm, int *ret_pid) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        int n = 0;
        while (d && (de = readdir(d))) {
                char *end = NULL;
                long pid = strtol(de->d_name, &end, 10);
                if (!end || *end || pid <= 0 || pid == sshd.pid || !proc_comm_is((int)pid, comm) ||
                    !alive((int)pid))
                        continue;
                bool mine = under_sshd((int)pid);
                if (!mine) {
                        char path[64], *cmdline = NULL;
                        size_t len = 0;
                        snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
                        if (read_file_bounded(path, 8192, &cmdline, &len, NULL) >= 0) {
                                for (size_t i = 0; i + 1 < len; i++)
                                        cmdline[i] = cmdline[i] ? cmdline[i] : ' ';
                                mine = strstr(cmdline, sshd.ssh_config) != NULL;
                                free(cmdline);
                        }
                }
                if (mine) {
                        n++;
                        if (ret_pid)
                                *ret_pid = (int)pid;
                }
        }
        if (d)
                closedir(d);
        return n;
}

static int free_port(void) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int port = -1;
        if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
            getsockname(fd, (struct sockaddr *)&a, &len) == 0)
                port = ntohs(a.sin_port);
        if (fd >= 0)
                close(fd);
        return port;
}

static bool port_answers(int port) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET,
                                 .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

static bool keygen(const char *name) {
        char path[128];
        path_in(path, sizeof(path), name);
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path, NULL });
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "ssh-keygen %s failed (%d): %s\n", name, r.exit, r.err);
        cmd_result_done(&r);
        return ok;
}

static bool write_configs(void) {
        char text[2048], host_key[128], client_key[128], pid_file[128];
        path_in(host_key, sizeof(host_key), "host_key");
        path_in(client_key, sizeof(client_key), "client_key");
        path_in(pid_file, sizeof(pid_file), "sshd.pid");
        /* The remote agent gets sshd's environment, not ours: hand DOCKER_HOST on. */
        const char *docker_host = getenv("DOCKER_HOST");
        char set_env[600] = "";
        if (docker_host && *docker_host)
                snprintf(set_env, sizeof(set_env), "SetEnv DOCKER_HOST=%s\n", docker_host);
        snprintf(
                text, sizeof(text),
                "ListenAddress 127.0.0.1\n"
                "Port %d\n"
                "HostKey %s\n"
                "PidFile %s\n"
                "AuthorizedKeysFile %s\n"
                "PermitRootLogin prohibit-password\n"
                "PubkeyAuthentication yes\n"
                "PasswordAuthentication no\n"
                "KbdInteractiveAuthentication no\n"
                "UsePAM no\n"
                "StrictModes no\n"
                "%s",
                sshd.port, host_key, pid_file, sshd.authorized, set_env);
        if (!write_text(sshd.config, text))
                return false;
        snprintf(
                text, sizeof(text),
                "Host *\n"
                "    IdentityFile %s\n"
                "    IdentitiesOnly yes\n"
                "    StrictHostKeyChecking no\n"
                "    UserKnownHostsFile /dev/null\n"
                "    GlobalKnownHostsFile /dev/null\n"
                "    LogLevel ERROR\n"
                "    Port %d\n",
                client_key, sshd.port);
        return write_text(sshd.ssh_config, text);
}

static void sshd_stop(void) {
        if (sshd.pid <= 0)
                return;
        kill(sshd.pid, SIGTERM);
        waitpid(sshd.pid, NULL, 0);
        sshd.pid = -1;
}

/* sshd -D in the foreground as our child (argv, no shell); it dies with us. */
static bool sshd_start_once(void) {
        sshd.port = free_port();
        snprintf(sshd.target, sizeof(sshd.target), "ssh://root@127.0.0.1:%d", sshd.port);
        if (sshd.port <= 0 || !write_configs())
                return false;
        pid_t pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
                        _exit(127);
                execv(SSHD, (char *const[]){ SSHD, "-D", "-e", "-f", sshd.config, "-E", sshd.log, NULL });
                _exit(127);
        }
        if (pid < 0)
                return false;
        sshd.pid = pid;
        for (double until = monotonic_ms() + 5000; monotonic_ms() < until; sleep_ms(20)) {
                if (waitpid(pid, NULL, WNOHANG) == pid) {
                        sshd.pid = -1;
                        return false; /* the port was taken after all, or the config is wrong */
                }
                if (port_answers(sshd.port))
                        return true;
        }
        sshd_stop();
        return false;
}

static bool set_authorized(bool with_key) {
        char *key = with_key ? slurp(sshd.client_pub) : strdup("");
        bool ok = key && (!with_key || *key) && write_text(sshd.authorized, key);
        free(key);
        return ok;
}

/* A plain `ssh ... true` through the same config: the transport works before mayhem uses it. */
static bool ssh_works(void) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "ssh", "-T", "-o", "BatchMode=yes", "-F", sshd.ssh_config,
                                             "root@127.0.0.1", "--", "true", NULL });
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "ssh to the test sshd failed (%d): %s\n", r.exit, r.err);
        cmd_result_done(&r);
        return ok;
}

static bool sshd_setup(void) {
        char tmpl[] = "/tmp/mayhem-ssh-XXXXXX";
        if (!mkdtemp(tmpl))
                return false;
        snprintf(sshd.dir, sizeof(sshd.dir), "%s", tmpl);
        path_in(sshd.config, sizeof(sshd.config), "sshd_config");
        path_in(sshd.log, sizeof(sshd.log), "sshd.log");
        path_in(sshd.ssh_config, sizeof(sshd.ssh_config), "ssh_config");
        path_in(sshd.authorized, sizeof(sshd.authorized), "authorized_keys");
        path_in(sshd.client_pub, sizeof(sshd.client_pub), "client_key.pub");
        /* sshd's privilege-separation directory; normally made by the service unit. */
        if (mkdir(PRIVSEP_DIR, 0755) < 0 && errno != EEXIST)
                return false;
        if (!keygen("host_key") || !keygen("client_key") || !set_authorized(true))
                return false;
        for (int attempt = 0; attempt < 5; attempt++)
                if (sshd_start_once())
                        return ssh_works();
        char *log = slurp(sshd.log);
        fprintf(stderr, "sshd did not start:\n%s\n", log);
        free(log);
        return false;
}

static void remove_dir(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        char path[512];
        while (d && (de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                unlink(path);
        }
        if (d)
                closedir(d);
        rmdir(dir);
}

static void sshd_teardown(void) {
        sshd_stop();
        if (sshd.dir[0])
                remove_dir(sshd.dir);
}

/* `mayhem --db DB run SPEC -c COMPOSE --execute` through the test's sshd,
 * started in the background with its output in OUT/ERR of the temp dir. */
static pid_t spawn_run(const char *spec) {
        char out[128], err[128];
        path_in(out, sizeof(out), "run.out");
        path_in(err, sizeof(err), "run.err");
        const char *argv[] = { getenv("MAYHEM_BIN"),
                               "--db",
                               demo.db,
                               "run",
                               spec,
                               "-c",
                               COMPOSE,
                               "--execute",
                               "--agent",
                               sshd.target,
                               "--ssh-config",
                               sshd.ssh_config,
                               "--remote-agent",
                               agent_bin,
                               NULL };
        pid_t pid = fork();
        if (pid == 0) {
                int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600),
                    e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (o < 0 || e < 0 || chdir(demo.root) < 0 || dup2(o, STDOUT_FILENO) < 0 ||
                    dup2(e, STDERR_FILENO) < 0)
                        _exit(127);
                execv(argv[0], (char *const *)argv);
                _exit(127);
        }
        assert_true(pid > 0);
        controller = pid;
        return pid;
}

/* The run's stdout or stderr; freed by the test's teardown, also when an assertion fails. */
static char *outputs[8];
static size_t n_outputs;

static const char *run_output(const char *name) {
        char path[128];
        path_in(path, sizeof(path), name);
        assert_true(n_outputs < ELEMENTSOF(outputs));
        return outputs[n_outputs++] = slurp(path);
}

/* The controller's exit code (128 + the signal that killed it), within
 * timeout_ms; past it, it is killed and the test fails with its stderr. */
static int wait_controller(double timeout_ms) {
        int code = demo_wait_exit(controller, timeout_ms);
        controller = -1;
        if (code < 0)
                fail_msg("the run did not end within %.0f s:\n%s", timeout_ms / 1000, run_output("run.err"));
        return code;
}

static void assert_container_healthy(void) {
        bool running = false, paused = true;
        assert_true(demo_container(&running, &paused));
        assert_true(running);
        assert_false(paused);
}

/* owner_agent is the id of the agent process pid: "ag-HOST-PID". */
static void assert_owner_is(const char *owner, int pid) {
        char suffix[32];
        snprintf(suffix, sizeof(suffix), "-%d", pid);
        assert_non_null(owner);
        if (strncmp(owner, "ag-", 3) != 0 || strlen(owner) <= strlen(suffix) ||
            strcmp(owner + strlen(owner) - strlen(suffix), suffix) != 0)
                fail_msg("owner_agent %s is not the agent under sshd (pid %d)", owner, pid);
}

static json_t *only_run(void) {
        json_t *runs = INSPECT(&demo, "runs");
        assert_non_null(runs);
        assert_int_equal(json_array_size(runs), 1);
        json_t *h =
                INSPECT(&demo, "history", json_string_value(json_object_get(json_array_get(runs, 0), "id")));
        json_decref(runs);
        assert_non_null(h);
        return h;
}

/* (a) The demo drill with its faults injected by the agent that sshd started. */
static void test_demo_drill_over_ssh(void **state) {
        unsigned before = logins();
        int agent = 0;
        pid_t pid = spawn_run(DEMO_DRILL);
        /* The agent lives for the whole run: note which one sshd started. */
        for (double until = monotonic_ms() + 20000; agent == 0 && monotonic_ms() < until && alive(pid);
             sleep_ms(10))
                ours("mayhem-agent", &agent);
        int code = wait_controller(300000); /* the demo drill: half a minute, more under the sanitizer */
        const char *out = run_output("run.out"), *err = run_output("run.err");
        if (code != 0)
                fail_msg("exit %d\n%s%s", code, out, err);
        if (agent == 0)
                fail_msg("no mayhem-agent ran under the test's sshd\n%s", err);
        assert_non_null(strstr(out, "**verdict**: pass"));
        assert_null(strstr(err, "Sanitizer")); /* the remote agent's stderr comes back through ssh */
        assert_true(logins() > before);

        json_t *h = only_run();
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(h, "run"), "verdict")), "pass");
        size_t i;
        json_t *l;
        assert_true(json_array_size(json_object_get(h, "leases")) == 2);
        json_array_foreach(json_object_get(h, "leases"), i, l) {
                assert_string_equal(json_string_value(json_object_get(l, "state")), "released");
                assert_owner_is(json_string_value(json_object_get(l, "owner_agent")), agent);
        }
        assert_container_healthy();
        print_message(
                "demo drill over ssh: pass, agent pid %d under sshd pid %d, %u publickey login(s)\n", agent,
                sshd.pid, logins() - before);
        json_decref(h);
}

/* Polls `inspect leases` until a lease is active; returns it (a new reference). */
static json_t *wait_active_lease(pid_t run) {
        for (double until = monotonic_ms() + 20000; monotonic_ms() < until && alive(run); sleep_ms(50)) {
                json_t *leases = INSPECT(&demo, "leases");
                size_t k;
                json_t *l;
                json_array_foreach(leases, k, l) {
                        if (strcmp(json_string_value(json_object_get(l, "state")), "active") != 0)
                                continue;
                        json_incref(l);
                        json_decref(leases);
                        return l;
                }
                json_decref(leases);
        }
        return NULL;
}

/* (b) The controller is SIGKILLed mid-fault. Its ssh client sees stdin EOF and
 * closes the channel, sshd closes the remote agent's stdin, and the agent
 * undoes what it holds: the container is back within UNDO_WITHIN_MS and
 * nothing of the transport lingers. */
static void test_controller_sigkill_over_ssh(void **state) {
        int agent = 0;
        pid_t pid = spawn_run(HOLD_DRILL);
        json_t *lease = wait_active_lease(pid);
        if (!lease)
                fail_msg("no active lease:\n%s", run_output("run.err"));
        bool running = false, paused = false;
        assert_true(demo_container(&running, &paused) && paused);
        assert_int_equal(ours("mayhem-agent", &agent), 1);
        assert_owner_is(json_string_value(json_object_get(lease, "owner_agent")), agent);
        json_decref(lease);

        kill(pid, SIGKILL);
        double t0 = monotonic_ms();
        assert_int_equal(wait_controller(10000), 128 + SIGKILL);
        while (demo_container(&running, &paused) && paused && monotonic_ms() - t0 < UNDO_WITHIN_MS)
                sleep_ms(10);
        double took = monotonic_ms() - t0;
        if (paused || !running)
                fail_msg("demo-api not restored within %.0f ms of the controller's SIGKILL", UNDO_WITHIN_MS);

        /* The agent, sshd's session process and the ssh client all exit (the agent once
         * LeakSanitizer, under the sanitizer, has had its look: seconds). */
        double until = monotonic_ms() + 15000;
        while ((ours("mayhem-agent", NULL) || ours("ssh", NULL) || ours("sshd", NULL)) &&
               monotonic_ms() < until)
                sleep_ms(20);
        assert_int_equal(ours("mayhem-agent", NULL), 0);
        assert_int_equal(ours("ssh", NULL), 0);
        assert_int_equal(ours("sshd", NULL), 0);
        assert_false(alive(agent));
        double gone = monotonic_ms() - t0;
        const char *err = run_output("run.err"); /* the agent's undo, logged through ssh */
        if (!strstr(err, "because stdin closed") || strstr(err, "Sanitizer"))
                fail_msg("the agent did not log its undo cleanly:\n%s", err);

        struct cmd_result r = MAYHEM(&demo, "janitor", "--execute");
        if (r.exit != 0)
                fail_msg("janitor exit %d: %s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 0);
        json_decref(open);
        assert_container_healthy();
        print_message(
                "controller SIGKILLed over ssh: demo-api unpaused after %.0f ms, agent/sshd session/ssh "
                "gone "
                "after %.0f ms\n",
                took, gone);
}

/* Nothing was touched: no lease at all in the db, the container as it was. */
static void assert_untouched(void) {
        json_t *runs = INSPECT(&demo, "runs");
        size_t i;
        json_t *run;
        assert_non_null(runs);
        json_array_foreach(runs, i, run) {
                json_t *h = INSPECT(&demo, "history", json_string_value(json_object_get(run, "id")));
                assert_int_equal(json_array_size(json_object_get(h, "leases")), 0);
                json_decref(h);
        }
        json_decref(runs);
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 0);
        json_decref(open);
        assert_container_healthy();
}

/* stderr has exactly one "error:" line, it names the agent handshake and has want in it. */
static void assert_one_error_line(const char *err, const char *want) {
        unsigned n = 0;
        const char *line = NULL;
        for (const char *p = err; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, "error: ", 7) == 0)
                        n++, line = p;
        if (n != 1 || !line)
                fail_msg("want one error line, got %u:\n%s", n, err);
        size_t len = strcspn(line, "\n");
        char *text = strndup(line, len);
        if (!strstr(text, "agent handshake") || !strstr(text, want))
                fail_msg("error line does not name the agent handshake (%s): %s", want, text);
        /* A failed start is not a lost agent: no "faults stay applied" alarm. */
        assert_null(strstr(err, "the agent died"));
        free(text);
}

/* (c) sshd refuses the key: exit 8 at once, one error line, nothing touched. */
static void test_wrong_key(void **state) {
        unsigned before = logins();
        assert_true(set_authorized(false));
        double t0 = monotonic_ms();
        struct cmd_result r =
                MAYHEM(&demo, "run", HOLD_DRILL, "-c", COMPOSE, "--execute", "--agent", sshd.target,
                       "--ssh-config", sshd.ssh_config, "--remote-agent", agent_bin);
        double took = monotonic_ms() - t0;
        assert_true(set_authorized(true));
        if (r.exit != 8)
                fail_msg("exit %d, want 8\n%s%s", r.exit, r.out, r.err);
        assert_one_error_line(r.err, "exited with status 255");
        assert_non_null(strstr(r.err, "Permission denied (publickey)")); /* ssh's own reason */
        assert_true(took < HANDSHAKE_MS);
        assert_int_equal(logins(), before);
        assert_untouched();
        print_message("refused key: exit 8 after %.0f ms: %s", took, strstr(r.err, "error: "));
        cmd_result_done(&r);
}

/* A host that accepts the TCP connection and never speaks: the handshake
 * times out and ssh is ended at once, not after the agent's stop grace. */
static void test_silent_host(void **state) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        assert_int_equal(listen(fd, 4), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
        char target[64];
        snprintf(target, sizeof(target), "ssh://root@127.0.0.1:%d", ntohs(a.sin_port));
        double t0 = monotonic_ms();
        struct cmd_result r =
                MAYHEM(&demo, "run", HOLD_DRILL, "-c", COMPOSE, "--execute", "--agent", target,
                       "--ssh-config", sshd.ssh_config, "--remote-agent", agent_bin);
        double took = monotonic_ms() - t0;
        close(fd);
        if (r.exit != 8)
                fail_msg("exit %d, want 8\n%s%s", r.exit, r.out, r.err);
        assert_one_error_line(r.err, "no answer within");
        /* The handshake's 15 s and the exit: ssh held for the agent's 30 s stop grace
         * would take 45 s; 15 s more leave room for a slow sanitizer build. */
        assert_true(took < HANDSHAKE_MS + 15000);
        assert_int_equal(ours("ssh", NULL), 0);
        assert_untouched();
        print_message("silent host: exit 8 after %.0f ms\n", took);
        cmd_result_done(&r);
}

static int fresh_db(void **state) {
        demo_fresh_db(&demo);
        return 0;
}

/* A failed test may leave its run behind: kill it (its agent undoes), put the key back. */
static int cleanup(void **state) {
        if (controller > 0) {
                kill(controller, SIGKILL);
                waitpid(controller, NULL, 0);
                controller = -1;
        }
        set_authorized(true);
        while (n_outputs > 0)
                free(outputs[--n_outputs]);
        return 0;
}

/* The demo stack is shared with other tests (and other users of this
 * machine): when bringing it up fails (127.0.0.1:18080 taken, say), wait and
 * try again for a while rather than fail. */
static int demo_up_patiently(void) {
        int r = -1;
        for (int attempt = 0; attempt < 40; attempt++) {
                r = demo_up(&demo);
                if (r >= 0)
                        return r;
                fprintf(stderr, "demo stack not available (attempt %d); retrying in 5 s\n", attempt + 1);
                sleep_ms(5000);
        }
        return r;
}

int main(void) {
        agent_bin = getenv("MAYHEM_AGENT_BIN");
        if (geteuid() != 0) {
                fprintf(stderr, "not root (sshd and the faults need it): skipped\n");
                return 77;
        }
        if (access(SSHD, X_OK) != 0) {
                fprintf(stderr, "%s is not installed (openssh-server): skipped\n", SSHD);
                return 77;
        }
        if (!agent_bin || access(agent_bin, X_OK) != 0) {
                fprintf(stderr, "MAYHEM_AGENT_BIN (%s) is not an executable mayhem-agent\n",
                        agent_bin ? agent_bin : "unset");
                return 1;
        }
        int r = demo_up_patiently();
        if (r == 77) {
                fprintf(stderr, "no Docker engine answers: skipped\n");
                return 77;
        }
        if (r < 0 || !sshd_setup()) {
                sshd_teardown();
                demo_down(&demo);
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_demo_drill_over_ssh, fresh_db, cleanup),
                cmocka_unit_test_setup_teardown(test_controller_sigkill_over_ssh, fresh_db, cleanup),
                cmocka_unit_test_setup_teardown(test_wrong_key, fresh_db, cleanup),
                cmocka_unit_test_setup_teardown(test_silent_host, fresh_db, cleanup),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        sshd_teardown();
        demo_down(&demo);
        return failed;
}
