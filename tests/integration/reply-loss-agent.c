/* Stands in for mayhem-agent (test-host sets $MAYHEM_AGENT to it): runs the
 * real agent ($MAYHEM_REAL_AGENT, same arguments) behind two pipes and relays
 * lines both ways until the agent answers a task.execute inject. Then it
 * SIGKILLs the agent and exits without passing the answer on: the fault is
 * applied and the controller never hears so, as when an agent dies between
 * the mutation and its reply. */
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct line_buf {
        char data[1 << 20];
        size_t len;
};

static pid_t start_agent(char **argv, int *to, int *from) {
        int in[2], out[2];
        if (pipe(in) < 0 || pipe(out) < 0)
                return -1;
        pid_t pid = fork();
        if (pid == 0) {
                dup2(in[0], STDIN_FILENO);
                dup2(out[1], STDOUT_FILENO);
                close(in[1]);
                close(out[0]);
                execv(getenv("MAYHEM_REAL_AGENT"), argv);
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        *to = in[1];
        *from = out[0];
        return pid;
}

/* The numeric JSON-RPC id of a frame (ids in params are strings), or -1. */
static long frame_id(const char *line) {
        for (const char *p = strstr(line, "\"id\":"); p; p = strstr(p + 1, "\"id\":")) {
                char *end;
                long id = strtol(p + 5, &end, 10);
                if (end != p + 5)
                        return id;
        }
        return -1;
}

static bool write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n <= 0)
                        return false;
                buf += n;
                len -= (size_t)n;
        }
        return true;
}

/* Reads what fd has into b and hands each complete line to relay(); false at EOF. */
static bool pump(int fd, struct line_buf *b, bool (*relay)(const char *line, size_t len)) {
        ssize_t n = read(fd, b->data + b->len, sizeof(b->data) - 1 - b->len);
        if (n <= 0)
                return false;
        b->len += (size_t)n;
        char *nl;
        while ((nl = memchr(b->data, '\n', b->len))) {
                size_t len = (size_t)(nl - b->data) + 1;
                char saved = b->data[len];
                b->data[len] = '\0';
                bool go_on = relay(b->data, len);
                b->data[len] = saved;
                if (!go_on)
                        return false;
                memmove(b->data, b->data + len, b->len - len);
                b->len -= len;
        }
        return b->len < sizeof(b->data) - 1;
}

static int agent_in = -1;
static long inject_id = -1;

static bool to_agent(const char *line, size_t len) {
        if (strstr(line, "\"phase\":\"inject\""))
                inject_id = frame_id(line);
        return write_all(agent_in, line, len);
}

static bool to_controller(const char *line, size_t len) {
        if (inject_id >= 0 && frame_id(line) == inject_id)
                return false; /* the answer to the inject: lost with the agent */
        return write_all(STDOUT_FILENO, line, len);
}

int main(int argc, char **argv) {
        static struct line_buf from_controller, from_agent;
        int agent_out;
        (void)argc;
        pid_t agent = start_agent(argv, &agent_in, &agent_out);
        if (agent < 0)
                return 1;
        for (;;) {
                struct pollfd p[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
                                       { .fd = agent_out, .events = POLLIN } };
                if (poll(p, 2, -1) < 0)
                        break;
                if (p[0].revents && !pump(STDIN_FILENO, &from_controller, to_agent)) {
                        close(agent_in); /* the controller went: the agent's own dead-man's switch acts */
                        waitpid(agent, NULL, 0);
                        return 0;
                }
                if (p[1].revents && !pump(agent_out, &from_agent, to_controller))
                        break;
        }
        kill(agent, SIGKILL);
        waitpid(agent, NULL, 0);
        return 0;
}
