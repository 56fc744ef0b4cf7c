/* Stands in for mayhem-agent (test-runopts sets $MAYHEM_AGENT to it): runs
 * the real agent ($MAYHEM_REAL_AGENT, same arguments) behind two pipes and
 * relays every line both ways, except that the kernel it reports in
 * capabilities.query has no sch_netem and no NFQUEUE, as many VM kernels
 * do. The impact gate then has no way to deliver a delay; everything else
 * the agent does is real. */
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

static bool pump(int fd, struct line_buf *b, bool (*relay)(char *line, size_t len)) {
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

static bool to_agent(char *line, size_t len) {
        return write_all(agent_in, line, len);
}

/* "KEY":true -> "KEY":false, in place: the line gets one byte longer per hit. */
static size_t mask(char *line, size_t len, size_t cap, const char *key_true) {
        char *p = strstr(line, key_true);
        if (!p || len + 1 >= cap)
                return len;
        p += strlen(key_true) - 4; /* at "true" */
        memmove(p + 5, p + 4, len - (size_t)(p + 4 - line) + 1);
        memcpy(p, "false", 5);
        return len + 1;
}

static bool to_controller(char *line, size_t len) {
        static char buf[1 << 20];
        if (!strstr(line, "\"kernel\":{") || len + 8 >= sizeof(buf))
                return write_all(STDOUT_FILENO, line, len);
        memcpy(buf, line, len + 1);
        len = mask(buf, len, sizeof(buf), "\"netem\":true");
        len = mask(buf, len, sizeof(buf), "\"xt_nfqueue\":true");
        len = mask(buf, len, sizeof(buf), "\"nft_queue\":true");
        return write_all(STDOUT_FILENO, buf, len);
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
