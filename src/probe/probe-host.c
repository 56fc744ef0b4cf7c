#include "probe.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/parse-number.h"
#include "basic/procfs.h"
#include "basic/prom-text.h"
#include "http-client.h"

#define FILE_PROBE_MAX  (1u << 20)
#define METRIC_BODY_MAX (4u << 20)
#define EXEC_POLL_MS    5

static void child_exec(const struct drill_probe *p) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
                dup2(null, STDIN_FILENO);
                dup2(null, STDOUT_FILENO);
                dup2(null, STDERR_FILENO);
        }
        setpgid(0, 0);
        execvp(p->cmd[0], (char *const *)p->cmd);
        _exit(127);
}

/* Runs the argv (no shell); past the timeout the whole process group is killed. */
void probe_exec(const struct drill_probe *p, struct probe_result *ret) {
        double deadline = monotonic_ms() + (double)p->timeout_ms;
        int status = 0;
        pid_t pid = fork();
        if (pid < 0) {
                snprintf(ret->detail, sizeof(ret->detail), "fork: %s", strerror(errno));
                return;
        }
        if (pid == 0)
                child_exec(p);
        for (;;) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid)
                        break;
                if (monotonic_ms() >= deadline) {
                        kill(-pid, SIGKILL);
                        kill(pid, SIGKILL);
                        waitpid(pid, &status, 0);
                        snprintf(
                                ret->detail, sizeof(ret->detail), "%s: timed out after %" PRId64 "ms",
                                p->cmd[0], p->timeout_ms);
                        return;
                }
                sleep_ms(EXEC_POLL_MS);
        }
        ret->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        ret->ok = ret->exit_code == p->expected_exit_code;
        snprintf(
                ret->detail, sizeof(ret->detail), "%s exited %d, expected %" PRId64 "%s", p->cmd[0],
                ret->exit_code, p->expected_exit_code, ret->exit_code == 127 ? " (127: not found?)" : "");
}

/* The named process runs (several of that name count too), or the pid is alive. */
static bool process_runs(const struct drill_probe *p) {
        struct proc_identity id;
        struct mh_error why = { 0 };
        if (p->process_name)
                return proc_find_by_name(p->process_name, PROC_SCOPE_ANY, &id, &why) >= 0 ||
                       why.code == -ENOTUNIQ;
        return proc_identity_read((pid_t)p->pid, &id, NULL) >= 0 && proc_state(&id, NULL, NULL) >= 0;
}

void probe_process(const struct drill_probe *p, struct probe_result *ret) {
        ret->ok = process_runs(p);
        if (p->process_name)
                snprintf(
                        ret->detail, sizeof(ret->detail), "process '%s' %s", p->process_name,
                        ret->ok ? "is running" : "not found");
        else
                snprintf(
                        ret->detail, sizeof(ret->detail), "pid %d %s", (int)p->pid,
                        ret->ok ? "is running" : "is gone");
}

void probe_file(const struct drill_probe *p, struct probe_result *ret) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        struct stat st;
        if (stat(p->path, &st) < 0) {
                snprintf(ret->detail, sizeof(ret->detail), "%s: %s", p->path, strerror(errno));
                return;
        }
        if (!p->contains) {
                ret->ok = true;
                snprintf(ret->detail, sizeof(ret->detail), "%s exists", p->path);
                return;
        }
        if (read_file_bounded(p->path, FILE_PROBE_MAX, &data, &len, NULL) < 0) {
                snprintf(
                        ret->detail, sizeof(ret->detail), "%s: unreadable or over %u bytes", p->path,
                        FILE_PROBE_MAX);
                return;
        }
        ret->ok = memmem(data, len, p->contains, strlen(p->contains)) != NULL;
        snprintf(
                ret->detail, sizeof(ret->detail), "%s %s the text", p->path, ret->ok ? "contains" : "lacks");
}

/* The series query selects in Prometheus text (basic/prom-text.h), summed;
 * the detail says how many were summed, or why there is no value. */
static bool find_metric(
        const struct http_response *resp, const char *query, double *ret, char *detail, size_t size) {
        struct prom_selector *sel = malloc(sizeof(*sel));
        struct prom_match m;
        char why[256];
        bool ok = false;
        if (!sel)
                snprintf(detail, size, "out of memory");
        else if (prom_selector_parse(query, sel, why, sizeof(why)) < 0)
                snprintf(detail, size, "metric '%.60s': %.150s", query, why);
        else if (resp->truncated)
                snprintf(detail, size, "the body is over %u bytes: not read", METRIC_BODY_MAX);
        else if (prom_text_match(resp->body, resp->body_len, sel, &m, why, sizeof(why)) < 0)
                snprintf(detail, size, "not Prometheus text (%.180s): no value claimed", why);
        else if (m.series == 0)
                snprintf(detail, size, "%s not found among %zu samples", query, m.samples);
        else {
                *ret = m.sum;
                ok = true;
                if (m.series == 1)
                        snprintf(detail, size, "%s = %g", query, m.sum);
                else
                        snprintf(detail, size, "%s = %g (the sum of %zu series)", query, m.sum, m.series);
        }
        free(sel);
        return ok;
}

void probe_metric(const struct drill_probe *p, struct probe_result *ret) {
        struct http_request req = {
                .method = "GET", .url = p->endpoint, .timeout_ms = p->timeout_ms, .max_body = METRIC_BODY_MAX
        };
        struct http_response resp = { 0 };
        struct mh_error e = { 0 };
        if (http_request_run(&req, &resp, &e) < 0) {
                probe_set_detail(ret, e.msg);
                return;
        }
        ret->status = resp.status;
        if (resp.status != 200 || !resp.body)
                snprintf(ret->detail, sizeof(ret->detail), "%s: status %ld", p->endpoint, resp.status);
        else
                ret->has_value = find_metric(&resp, p->query, &ret->value, ret->detail, sizeof(ret->detail));
        ret->ok = ret->has_value && (!p->has_threshold || ret->value <= p->threshold);
        http_response_done(&resp);
}
