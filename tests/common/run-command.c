#include "run-command.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"

#define CAPTURE_MAX (8u << 20)

static int temp_fd(void) {
        char path[] = "/tmp/mayhem-test-out-XXXXXX";
        int fd = mkstemp(path);
        if (fd >= 0)
                unlink(path);
        return fd;
}

static char *slurp(int fd) {
        char path[64], *data = NULL;
        size_t len = 0;
        lseek(fd, 0, SEEK_SET);
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (read_file_bounded(path, CAPTURE_MAX, &data, &len, NULL) < 0)
                data = calloc(1, 1);
        close(fd);
        return data;
}

static void exec_child(const char *dir, const char *const *argv, int out, int err) {
        if ((dir && chdir(dir) < 0) || dup2(out, 1) < 0 || dup2(err, 2) < 0)
                _exit(127);
        execv(argv[0], (char *const *)argv);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
}

struct cmd_result run_command(const char *dir, const char *const *argv) {
        int out = temp_fd(), err = temp_fd(), status = 0;
        pid_t pid = fork();
        if (pid == 0)
                exec_child(dir, argv, out, err);
        if (pid < 0 || waitpid(pid, &status, 0) != pid)
                status = -1;
        int code = status < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return (struct cmd_result){ .exit = code, .out = slurp(out), .err = slurp(err) };
}

pid_t spawn_command(const char *dir, const char *const *argv) {
        return spawn_command_log(dir, argv, "/dev/null");
}

pid_t spawn_command_log(const char *dir, const char *const *argv, const char *log) {
        int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        pid_t pid = fork();
        if (pid == 0)
                exec_child(dir, argv, out, out);
        close(out);
        return pid;
}

void cmd_result_done(struct cmd_result *r) {
        free(r->out);
        free(r->err);
        r->out = r->err = NULL;
}
