#include "agent-relay.h"

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct line_buf {
        char data[1 << 20];
        size_t len;
};

static int agent_in = -1;

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

bool agent_relay_write(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n <= 0)
                        return false;
                buf += n;
                len -= (size_t)n;
        }
        return true;
}

bool agent_relay_to_agent(const char *line, size_t len) {
        return agent_relay_write(agent_in, line, len);
}

/* Reads what fd has into b and hands each complete line to relay(); false at EOF. */
static bool pump(int fd, struct line_buf *b, agent_relay_fn relay) {
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

int agent_relay_main(char **argv, agent_relay_fn to_agent, agent_relay_fn to_controller) {
        static struct line_buf from_controller, from_agent;
        int agent_out;
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
