#include "http-server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void serve(int fd) {
        static const char reply[] = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
        char buf[2048];
        for (;;) {
                int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        continue;
                if (read(c, buf, sizeof(buf)) > 0 && write(c, reply, sizeof(reply) - 1) < 0)
                        _exit(1);
                close(c);
        }
}

pid_t http_server_start(const char *name, int *ret_port) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 64) < 0 ||
            getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
                if (fd >= 0)
                        close(fd);
                return -1;
        }
        *ret_port = ntohs(a.sin_port);
        pid_t pid = fork();
        if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (name)
                        prctl(PR_SET_NAME, name);
                serve(fd);
        }
        close(fd);
        return pid > 0 ? pid : -1;
}
