#include "agent-journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"

#define RECORD_MAX (256 * 1024) /* a device record with its addresses and routes is ~20 KiB */

struct agent_journal {
        int dirfd;
        char dir[PATH_MAX];
};

static void forget_old_settled(struct agent_journal *j);

int agent_journal_open(const char *dir, struct agent_journal **ret, char *msg, size_t size) {
        struct agent_journal *j = calloc(1, sizeof(*j));
        if (!j || strlen(dir) >= sizeof(j->dir)) {
                free(j);
                snprintf(
                        msg, size, "state directory '%.200s': %s", dir,
                        j ? "path too long" : "out of memory");
                return j ? -ENAMETOOLONG : -ENOMEM;
        }
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
                int r = -errno;
                snprintf(msg, size, "state directory '%.200s': %s", dir, strerror(errno));
                free(j);
                return r;
        }
        j->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (j->dirfd < 0) {
                int r = -errno;
                snprintf(msg, size, "state directory '%.200s': %s", dir, strerror(errno));
                free(j);
                return r;
        }
        memcpy(j->dir, dir, strlen(dir) + 1);
        forget_old_settled(j);
        *ret = j;
        return 0;
}

struct agent_journal *agent_journal_close(struct agent_journal *j) {
        if (j) {
                close(j->dirfd);
                free(j);
        }
        return NULL;
}

const char *agent_journal_dir(const struct agent_journal *j) {
        return j->dir;
}

/* "<lease_id>.json": a lease id names a file only when it cannot climb out. */
static int file_name(const char *lease_id, char *buf, size_t size) {
        size_t n = strlen(lease_id);
        if (n == 0 || n > 64 ||
            strspn(lease_id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != n)
                return -EINVAL;
        snprintf(buf, size, "%s.json", lease_id);
        return 0;
}

static int write_all(int fd, const char *data, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, data, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EIO;
                data += n;
                len -= (size_t)n;
        }
        return 0;
}

/* text into name, durably: a reader sees the old file or the whole new one. */
static int write_durably(struct agent_journal *j, const char *name, const char *text) {
        char tmp[96];
        snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
        int fd = openat(j->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        int r = write_all(fd, text, strlen(text));
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r >= 0 && renameat(j->dirfd, tmp, j->dirfd, name) < 0)
                r = -errno;
        if (r >= 0 && fsync(j->dirfd) < 0)
                r = -errno;
        if (r < 0)
                unlinkat(j->dirfd, tmp, 0);
        return r;
}

int agent_journal_put(
        struct agent_journal *j, const char *lease_id, const struct fault_def *def,
        const struct target_identity *target, const json_t *restore, struct mh_error *reterr) {
        char name[80];
        if (file_name(lease_id, name, sizeof(name)) < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "agent_journal", "lease id '%.64s' cannot name a record", lease_id);
        json_t *rec = json_pack(
                "{s:s, s:s, s:o, s:O, s:i}", "lease_id", lease_id, "fault_id", def->id, "target",
                target_identity_json(target), "restore", restore, "agent_pid", (int)getpid());
        char *text = rec ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(rec);
        int r = text ? write_durably(j, name, text) : -ENOMEM;
        free(text);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "agent_journal", "cannot record lease %s in %s: %s; nothing was changed",
                        lease_id, j->dir, strerror(-r));
        return 0;
}

static int read_record(struct agent_journal *j, const char *name, json_t **ret, struct mh_error *reterr) {
        int fd = openat(j->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? -ENOENT
                                       : mh_error_fail(
                                                 reterr, -errno, "agent_journal", "%s/%s: %s", j->dir, name,
                                                 strerror(errno));
        json_error_t je = { .text = "too big" };
        struct stat st;
        bool too_big = fstat(fd, &st) < 0 || st.st_size > RECORD_MAX;
        *ret = too_big ? NULL : json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
        close(fd);
        if (!*ret) {
                return mh_error_fail(reterr, -EINVAL, "agent_journal", "%s/%s: %s", j->dir, name, je.text);
        }
        return 0;
}

int agent_journal_get(
        struct agent_journal *j, const char *lease_id, const struct fault_def *def,
        struct target_identity *ret_target, json_t **ret_restore, bool *ret_settled,
        struct mh_error *reterr) {
        char name[80];
        json_t *rec = NULL;
        if (file_name(lease_id, name, sizeof(name)) < 0)
                return -ENOENT;
        int r = read_record(j, name, &rec, reterr);
        if (r < 0)
                return r;
        const char *fault = json_string_value(json_object_get(rec, "fault_id"));
        json_t *restore = json_object_get(rec, "restore");
        if (!fault || strcmp(fault, def->id) != 0 || !json_is_object(restore))
                r = mh_error_fail(
                        reterr, -EINVAL, "agent_journal", "%s/%s: not a record of %s", j->dir, name,
                        def->id);
        else if ((r = target_identity_from_json(json_object_get(rec, "target"), ret_target, reterr)) >= 0) {
                *ret_restore = json_incref(restore);
                *ret_settled = json_is_true(json_object_get(rec, "settled"));
        }
        json_decref(rec);
        return r;
}

/* Sets key to value (taken) in lease_id's record, durably; none: 0. */
static int record_set(struct agent_journal *j, const char *lease_id, const char *key, json_t *value) {
        char name[80];
        json_t *rec = NULL;
        if (file_name(lease_id, name, sizeof(name)) < 0) {
                json_decref(value);
                return 0;
        }
        int r = read_record(j, name, &rec, NULL);
        if (r < 0) {
                json_decref(value);
                return r == -ENOENT ? 0 : r;
        }
        char *text = json_object_set_new(rec, key, value) == 0
                             ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS)
                             : NULL;
        r = text ? write_durably(j, name, text) : -ENOMEM;
        free(text);
        json_decref(rec);
        return r;
}

int agent_journal_settle(struct agent_journal *j, const char *lease_id) {
        return record_set(j, lease_id, "settled", json_true());
}

int agent_journal_keep(
        struct agent_journal *j, const char *lease_id, const struct fault_def *def,
        const struct target_identity *target, const json_t *restore, const struct proc_identity *keeper,
        struct mh_error *reterr) {
        char name[80];
        json_t *rec = NULL;
        int r = file_name(lease_id, name, sizeof(name)) < 0 ? -EINVAL : read_record(j, name, &rec, NULL);
        json_decref(rec);
        if (r == -ENOENT && (r = agent_journal_put(j, lease_id, def, target, restore, reterr)) < 0)
                return r;
        json_t *k = keeper ? json_pack(
                                     "{s:i, s:I}", "pid", (int)keeper->pid, "start_time",
                                     (json_int_t)keeper->start_time)
                           : json_null();
        if (r >= 0 && (r = record_set(j, lease_id, "keeper", k)) >= 0)
                r = record_set(j, lease_id, "kept", json_true());
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "agent_journal", "cannot record lease %s as kept in %s: %s", lease_id,
                        j->dir, strerror(-r));
        return 0;
}

int agent_journal_keeper(struct agent_journal *j, const char *lease_id, struct proc_identity *ret) {
        char name[80];
        json_t *rec = NULL;
        if (file_name(lease_id, name, sizeof(name)) < 0 || read_record(j, name, &rec, NULL) < 0)
                return 0;
        const json_t *k = json_object_get(rec, "keeper");
        json_int_t pid = json_integer_value(json_object_get(k, "pid")),
                   start = json_integer_value(json_object_get(k, "start_time"));
        bool found =
                !json_is_true(json_object_get(rec, "settled")) && pid > 0 && pid <= INT_MAX && start > 0;
        if (found)
                *ret = (struct proc_identity){ .pid = (pid_t)pid, .start_time = (uint64_t)start };
        json_decref(rec);
        return found;
}

/* Settled records older than AGENT_JOURNAL_KEEP_DAYS, at open. */
static void forget_old_settled(struct agent_journal *j) {
        int fd = dup(j->dirfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        time_t oldest = time(NULL) - (time_t)AGENT_JOURNAL_KEEP_DAYS * 24 * 3600;
        struct dirent *de;
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        rewinddir(d);
        while ((de = readdir(d))) {
                struct stat st;
                json_t *rec = NULL;
                size_t n = strlen(de->d_name);
                if (de->d_name[0] == '.' || n < 6 || strcmp(de->d_name + n - 5, ".json") != 0 ||
                    fstatat(j->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_mtime > oldest ||
                    read_record(j, de->d_name, &rec, NULL) < 0)
                        continue;
                if (json_is_true(json_object_get(rec, "settled")))
                        unlinkat(j->dirfd, de->d_name, 0);
                json_decref(rec);
        }
        closedir(d);
}

int agent_journal_drop(struct agent_journal *j, const char *lease_id) {
        char name[80];
        if (file_name(lease_id, name, sizeof(name)) < 0)
                return 0;
        if (unlinkat(j->dirfd, name, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        return fsync(j->dirfd) < 0 ? -errno : 0;
}
