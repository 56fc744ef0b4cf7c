/* fs.io_stress on a real dockerd, with the real agent, at two settings:
 * one worker writing and reading at 20 MiB/s each, and two workers writing
 * at 8 MiB/s each. The test measures the rates itself over 6 s from the
 * kernel's task I/O accounting of the payload's processes (/proc/PID/io,
 * found by their argv), checks that the device saw at least those bytes
 * (/sys/block/DEV/stat: O_DIRECT I/O reaches the disk; other I/O of the
 * host can only add to it), that the payload's unlinked files take their
 * space meanwhile, and after undo that no payload is left and no process
 * holds those files (so the kernel has freed their space); with the agent
 * SIGKILLed, the same with no undo. The files are followed by inode, not by
 * the filesystem's free space: the container's root is the host's disk, on
 * which anything else running may write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/run-command.h"
#include "common/victim.h"
#include "engine/engine.h"

#define IMAGE "mayhem-test-busybox:latest"
/* The rates are judged over 6 s: each pacer keeps to its schedule within a
 * 64 KiB block, and a stall of the test or the disk at a window's end moves
 * half as much of the figure as over 3 s. A pacer only ever catches up to
 * its schedule, never runs ahead of it: the upper bound holds on any window
 * that starts on schedule (the first, SETTLE_MS after the reader started,
 * when any catch-up after the unpaced fill is over) and is judged there
 * strictly; a first window short of the lower bound (a stall) is measured
 * again, and a pacer too slow misses both. */
#define WINDOW_MS 6000
#define SETTLE_MS 1000
/* For the payload to move data (a reader's unpaced 32 MiB fill comes first),
 * and for it and its files to go (an ASan chain of PDEATHSIGs, a loaded
 * machine): bounds, not figures. */
#define START_MS 15000
#define GONE_MS  5000
#define MIB      1048576.0

static struct engine *engine;
static char container[64];
static struct agent_client *agent;
static unsigned next_id;

/* The pids whose argv names lease (the payload process and its body). */
static size_t payload_pids(const char *lease, pid_t *pids, size_t max) {
        char pattern[96];
        snprintf(pattern, sizeof(pattern), ".*--lease %s", lease);
        return victim_payloads(pattern, pids, max);
}

static void io_sum(const pid_t *pids, size_t n, double *rd, double *wr) {
        *rd = *wr = 0;
        for (size_t i = 0; i < n; i++) {
                char path[64], line[128];
                unsigned long long v;
                snprintf(path, sizeof(path), "/proc/%d/io", (int)pids[i]);
                FILE *f = fopen(path, "re");
                while (f && fgets(line, sizeof(line), f))
                        if (sscanf(line, "read_bytes: %llu", &v) == 1)
                                *rd += (double)v;
                        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
                                *wr += (double)v;
                if (f)
                        fclose(f);
        }
}

/* Sectors read and written of the block device holding path (its whole
 * disk's stat when path is on a partition). */
static void dev_sectors(const char *path, double *rd, double *wr) {
        struct stat st;
        char sys[128], line[256];
        *rd = *wr = 0;
        if (stat(path, &st) < 0)
                return;
        snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat", major(st.st_dev), minor(st.st_dev));
        FILE *f = fopen(sys, "re");
        unsigned long long v[8];
        if (f && fgets(line, sizeof(line), f) &&
            sscanf(line, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6]) == 7) {
                *rd = (double)v[2] * 512;
                *wr = (double)v[6] * 512;
        }
        if (f)
                fclose(f);
}

/* The unlinked files the payload holds open (its O_TMPFILE scratch files),
 * by inode. */
#define MAX_FILES 64
struct files {
        size_t n;
        dev_t dev[MAX_FILES];
        ino_t ino[MAX_FILES];
        double bytes; /* the space they take */
};

static bool files_has(const struct files *f, const struct stat *st) {
        for (size_t i = 0; i < f->n; i++)
                if (f->dev[i] == st->st_dev && f->ino[i] == st->st_ino)
                        return true;
        return false;
}

/* Calls fn on every open descriptor of process pid that is a regular file. */
static void each_file(const char *pid, void (*fn)(const struct stat *st, void *arg), void *arg) {
        char path[300];
        struct stat st;
        snprintf(path, sizeof(path), "/proc/%s/fd", pid);
        DIR *d = opendir(path);
        for (struct dirent *de; d && (de = readdir(d));) {
                snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
                if (de->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
                        fn(&st, arg);
        }
        if (d)
                closedir(d);
}

static void add_unlinked(const struct stat *st, void *arg) {
        struct files *f = arg;
        if (st->st_nlink != 0 || files_has(f, st) || f->n == MAX_FILES)
                return;
        f->dev[f->n] = st->st_dev;
        f->ino[f->n++] = st->st_ino;
        f->bytes += (double)st->st_blocks * 512;
}

static struct files payload_files(const pid_t *pids, size_t n) {
        struct files f = { 0 };
        char pid[16];
        for (size_t i = 0; i < n; i++) {
                snprintf(pid, sizeof(pid), "%d", (int)pids[i]);
                each_file(pid, add_unlinked, &f);
        }
        return f;
}

struct holders {
        const struct files *files;
        size_t n;
};

static void count_held(const struct stat *st, void *arg) {
        struct holders *h = arg;
        h->n += files_has(h->files, st);
}

/* How many descriptors of any process on the host still hold one of f's files. */
static size_t still_held(const struct files *f) {
        struct holders h = { f, 0 };
        DIR *proc = opendir("/proc");
        for (struct dirent *de; proc && (de = readdir(proc));)
                if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
                        each_file(de->d_name, count_held, &h);
        if (proc)
                closedir(proc);
        return h.n;
}

static void call(json_t *l, const char *phase, json_t **ret) {
        victim_call(agent, l, phase, ret);
}

/* The payload's processes once it moves data in every direction asked: a
 * reader reads only after its file is written once, unpaced; their count. */
static size_t started(const char *lease, bool reads, pid_t *pids, size_t max) {
        double t0 = monotonic_ms(), rd = 0, wr = 0;
        size_t n = 0;
        for (; monotonic_ms() - t0 < START_MS; sleep_ms(20)) {
                n = payload_pids(lease, pids, max);
                io_sum(pids, n, &rd, &wr);
                if (n > 0 && wr > 0 && (!reads || rd > 0))
                        break;
        }
        print_message(
                "payload: %zu processes, %.1f MiB written, %.1f MiB read %.0f ms after ready\n", n, wr / MIB,
                rd / MIB, monotonic_ms() - t0);
        if (n == 0 || wr == 0 || (reads && rd == 0))
                fail_msg("the payload of %s moved no data within %d ms", lease, START_MS);
        return n;
}

struct window {
        double wr, rd;          /* MiB/s of the payload's processes */
        double task_wr, dev_wr; /* bytes written by them, and to the device */
};

static struct window measure(const pid_t *pids, size_t n) {
        double r0, w0, r1, w1, dr0, dw0, dr1, dw1, t0 = monotonic_ms();
        io_sum(pids, n, &r0, &w0);
        dev_sectors("/var/lib/docker", &dr0, &dw0);
        sleep_ms(WINDOW_MS);
        io_sum(pids, n, &r1, &w1);
        dev_sectors("/var/lib/docker", &dr1, &dw1);
        double s = (monotonic_ms() - t0) / 1000.0;
        print_message(
                "write %.2f MiB/s, read %.2f MiB/s over %.1f s; the device: write %.2f, read %.2f MiB/s\n",
                (w1 - w0) / MIB / s, (r1 - r0) / MIB / s, s, (dw1 - dw0) / MIB / s, (dr1 - dr0) / MIB / s);
        return (struct window){
                .wr = (w1 - w0) / MIB / s, .rd = (r1 - r0) / MIB / s, .task_wr = w1 - w0, .dev_wr = dw1 - dw0
        };
}

/* The rates over WINDOW_MS within 15% of want (MiB/s, all workers); files
 * the MiB the payload's unlinked files take meanwhile. */
static void stress(const char *params, double want_wr, double want_rd, double files) {
        json_t *res = NULL;
        char lease[48];
        pid_t pids[8];
        snprintf(lease, sizeof(lease), "l-io-%08x%04x", (unsigned)getpid(), ++next_id);
        json_t *l = victim_lease(agent, container, "fs.io_stress", lease, params);
        call(l, "inject", NULL);
        size_t n = started(lease, want_rd > 0, pids, 8);
        sleep_ms(SETTLE_MS);
        print_message("%s: asked write %.0f MiB/s, read %.0f MiB/s\n", params, want_wr, want_rd);
        struct window w = measure(pids, n);
        assert_true(w.wr <= want_wr * 1.15 + 0.01);
        assert_true(w.rd <= want_rd * 1.15 + 0.01);
        assert_true(w.dev_wr >= w.task_wr * 0.9);
        if (w.wr < want_wr * 0.85 || w.rd < want_rd * 0.85) {
                print_message("below the lower bound: a second window\n");
                w = measure(pids, n);
        }
        assert_true(w.wr >= want_wr * 0.85);
        assert_true(w.rd >= want_rd * 0.85);
        struct files held = payload_files(pids, n);
        call(l, "effect", &res);
        print_message("effect: %s\n", json_string_value(json_object_get(res, "detail")));
        assert_true(json_is_true(json_object_get(res, "in_force")));
        json_decref(res);
        call(l, "undo", NULL);
        call(l, "verify", &res);
        assert_true(json_is_true(json_object_get(res, "verified")));
        assert_int_equal(payload_pids(lease, pids, 8), 0);
        /* The payload is gone (verified): its unlinked files go as their last
         * descriptor closes; read until no process holds one, up to GONE_MS. */
        double t0 = monotonic_ms();
        size_t left = still_held(&held);
        while (left > 0 && monotonic_ms() - t0 < GONE_MS) {
                sleep_ms(20);
                left = still_held(&held);
        }
        print_message(
                "the payload's unlinked files: %zu taking %.1f MiB during the fault (asked: %.0f MiB), "
                "%zu descriptors holding them %.0f ms after undo\n",
                held.n, held.bytes / MIB, files, left, monotonic_ms() - t0);
        assert_true(held.bytes >= files * MIB * 0.9);
        assert_int_equal(left, 0);
        json_decref(res);
        json_decref(l);
}

static void test_one_worker_both(void **state) {
        (void)state;
        stress("{\"write_mb_s\": 20, \"read_mb_s\": 20, \"io_bytes\": 33554432}", 20, 20, 64);
}

static void test_two_writers(void **state) {
        (void)state;
        stress("{\"workers\": 2, \"op\": \"write\", \"write_mb_s\": 8, \"io_bytes\": 16777216}", 16, 0, 32);
}

/* The agent SIGKILLed mid-fault: the payload is gone (PDEATHSIG), and the
 * space of its unlinked files with it, with no undo; within GONE_MS, the
 * time said. */
static void test_agent_killed(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("fs", "io-kill");
        char lease[48];
        pid_t pids[8];
        snprintf(lease, sizeof(lease), "l-io-%08x%04x", (unsigned)getpid(), ++next_id);
        json_t *l = victim_lease(
                a, container, "fs.io_stress", lease,
                "{\"op\": \"write\", \"write_mb_s\": 20, \"io_bytes\": 33554432}");
        victim_call(a, l, "inject", NULL);
        /* Its one 32 MiB file written (1.6 s at 20 MiB/s, later on a slow disk). */
        struct files held = { 0 };
        for (double t = monotonic_ms(); held.bytes < 30 * MIB && monotonic_ms() - t < START_MS; sleep_ms(20))
                held = payload_files(pids, payload_pids(lease, pids, 8));
        kill(agent_client_pid(a), SIGKILL);
        double t0 = monotonic_ms(), gone = -1;
        while (monotonic_ms() - t0 < GONE_MS && gone < 0)
                if (payload_pids(lease, pids, 8) == 0 && still_held(&held) == 0)
                        gone = monotonic_ms() - t0;
                else
                        sleep_ms(10);
        print_message(
                "agent SIGKILLed with %.1f MiB of files held: payload and files gone after %.0f ms\n",
                held.bytes / MIB, gone);
        assert_true(held.bytes >= 30 * MIB); /* its one 32 MiB file */
        if (gone < 0)
                fail_msg("payload or its files still there %d ms after the agent's SIGKILL", GONE_MS);
        agent_client_stop(a);
        json_decref(l);
}

int main(void) {
        struct mh_error e = { 0 };
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        snprintf(container, sizeof(container), "mayhem-io-%d", (int)getpid());
        if (!victim_run((const char *const[]){ "docker", "run", "-d", "--name", container, IMAGE, NULL }))
                return 1;
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = "fs",
                                          .run_id = "io" };
        int failed = 1;
        if (agent_client_start(&o, &agent, &e) < 0)
                fprintf(stderr, "agent: %s\n", e.msg);
        else {
                const struct CMUnitTest tests[] = {
                        cmocka_unit_test(test_one_worker_both),
                        cmocka_unit_test(test_two_writers),
                        cmocka_unit_test(test_agent_killed),
                };
                failed = cmocka_run_group_tests(tests, NULL, NULL);
                agent = agent_client_stop(agent);
        }
        victim_run((const char *const[]){ "docker", "rm", "-f", container, NULL });
        engine_free(engine);
        return failed;
}
