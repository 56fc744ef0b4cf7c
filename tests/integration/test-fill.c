/* fs.fill and fs.inode_exhaust on a real dockerd with the real agent, on
 * filesystems made for the test so the host's disk is never filled: a
 * 64 MiB ext4 image loop-mounted on the host and bound into the container
 * at /data, and a 64 MiB tmpfs at /scratch. The test measures the effect
 * itself with statvfs from the host (the image's mount point, and
 * /proc/PID/root/scratch): used reaches the target within 1% of the size,
 * and is back once undo is done and verified, and after the agent's
 * SIGKILL, with no payload process and no file left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "basic/macro.h"
#include "common/agent-lease.h"
#include "common/run-command.h"
#include "common/victim.h"
#include "engine/engine.h"

#define IMAGE  "mayhem-test-busybox:latest"
#define FS_MIB 64
/* The space and inodes come back as the payload's last descriptor closes:
 * at once once undo is done (the agent has reaped its payload), or down a
 * chain of PDEATHSIGs after its SIGKILL; read from there for up to BACK_MS,
 * the time said. A payload that still held its file would hold it until the
 * container goes, far past this; a loaded machine, an ASan chain of exits
 * and ext4's eviction of the unlinked inodes take well under it. */
#define BACK_MS 5000

static char victim[64], img[128], mnt[128], scratch[128], many[128], memory_knob[256];
static struct agent_client *agent;
static struct engine *engine;
static json_t *identity;
static unsigned next_lease;
static int main_pid;

struct usage {
        double used_pct; /* (f_blocks - f_bavail) / f_blocks, as the payload counts it */
        double files, ifree;
};

static struct usage usage_of(const char *path) {
        struct statvfs v;
        if (statvfs(path, &v) < 0)
                fail_msg("statvfs %s: %s", path, strerror(errno));
        return (struct usage){ .used_pct = 100.0 * (double)(v.f_blocks - v.f_bavail) / (double)v.f_blocks,
                               .files = (double)v.f_files,
                               .ifree = (double)v.f_ffree };
}

static json_t *lease(const char *fault, const char *params) {
        char id[32];
        snprintf(id, sizeof(id), "l-%08x%08x", (unsigned)getpid(), ++next_lease);
        json_t *l = agent_lease_new(id, fault, identity, params, NULL);
        assert_non_null(l);
        return l;
}

static json_t *call(struct agent_client *a, json_t *l, const char *phase) {
        json_t *reply = NULL;
        victim_call(a, l, phase, &reply);
        return reply;
}

/* The effect check says in force, and that it measured it. */
static void effect_seen(json_t *l) {
        json_t *r = call(agent, l, "effect");
        const char *detail = json_string_value(json_object_get(r, "detail"));
        printf("  effect: %s\n", detail ? detail : "?");
        assert_true(json_is_true(json_object_get(r, "in_force")));
        assert_true(json_is_true(json_object_get(r, "observed")));
        json_decref(r);
}

/* A payload of one of this process's leases (another test binary's are not ours to judge). */
static bool payload_left(void) {
        char pattern[64];
        pid_t pids[1];
        snprintf(pattern, sizeof(pattern), "--fault fs\\.[a-z_]+ --lease l-%08x", (unsigned)getpid());
        return victim_payloads(pattern, pids, 1) > 0;
}

/* No payload of ours left, waited for up to BACK_MS (a body dies after the
 * process that started it). */
static bool payload_gone(void) {
        for (double t0 = monotonic_ms(); payload_left(); sleep_ms(20))
                if (monotonic_ms() - t0 > BACK_MS)
                        return false;
        return true;
}

/* Only lost+found (and . ..) in the image's root. */
static size_t files_in(const char *dir) {
        size_t n = 0;
        DIR *d = opendir(dir);
        assert_non_null(d);
        for (struct dirent *e; (e = readdir(d));)
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "lost+found"))
                        n++;
        closedir(d);
        return n;
}

/* ms until path's used share is back within 0.2 points of base (or -1 after BACK_MS). */
static double back_after(const char *path, double base, double start) {
        while (monotonic_ms() - start < BACK_MS) {
                if (usage_of(path).used_pct <= base + 0.2)
                        return monotonic_ms() - start;
                sleep_ms(5);
        }
        return -1;
}

static void fill_at(const char *host_path, const char *path, double percent) {
        char params[128];
        double base = usage_of(host_path).used_pct;
        snprintf(params, sizeof(params), "{\"percent\": %g, \"path\": \"%s\"}", percent, path);
        json_t *l = lease("fs.fill", params);
        double t0 = monotonic_ms();
        json_decref(call(agent, l, "inject"));
        double used = usage_of(host_path).used_pct, took = monotonic_ms() - t0;
        printf("fs.fill %g%% on %s: used %.2f%% (was %.2f%%) after %.0f ms\n", percent, path, used, base,
               took);
        assert_true(fabs(used - percent) <= 1.0);
        effect_seen(l);
        json_decref(call(agent, l, "undo"));
        json_t *v = call(agent, l, "verify");
        assert_true(json_is_true(json_object_get(v, "verified")));
        json_decref(v);
        double back = back_after(host_path, base, monotonic_ms());
        printf("  back to %.2f%% %.0f ms after undo and verify\n", usage_of(host_path).used_pct, back);
        if (back < 0)
                fail_msg(
                        "%s: used %.2f%% %d ms after undo, was %.2f%%", path, usage_of(host_path).used_pct,
                        BACK_MS, base);
        assert_false(payload_left());
        json_decref(l);
}

static void test_fill_ext4(void **state) {
        (void)state;
        fill_at(mnt, "/data", 30);
        fill_at(mnt, "/data", 70);
        assert_int_equal(files_in(mnt), 0);
}

static void test_fill_tmpfs(void **state) {
        (void)state;
        fill_at(scratch, "/scratch", 20);
        fill_at(scratch, "/scratch", 50);
}

static void inodes_at(double percent) {
        char params[128];
        struct usage u0 = usage_of(mnt);
        double want = floor(u0.ifree * percent / 100.0);
        snprintf(params, sizeof(params), "{\"percent\": %g, \"path\": \"/data\"}", percent);
        json_t *l = lease("fs.inode_exhaust", params);
        json_decref(call(agent, l, "inject"));
        struct usage u = usage_of(mnt);
        double added = u0.ifree - u.ifree;
        printf("fs.inode_exhaust %g%%: %.0f inodes used more (wanted %.0f of %.0f free; %.0f in all)\n",
               percent, added, want, u0.ifree, u.files);
        assert_true(fabs(added - want) <= u.files / 100.0);
        effect_seen(l);
        json_decref(call(agent, l, "undo"));
        double t0 = monotonic_ms(), back = -1;
        while (monotonic_ms() - t0 < BACK_MS && back < 0)
                if (usage_of(mnt).ifree >= u0.ifree)
                        back = monotonic_ms() - t0;
                else
                        sleep_ms(5);
        printf("  inodes back %.0f ms after undo\n", back);
        if (back < 0)
                fail_msg(
                        "%.0f inodes free %d ms after undo, %.0f before", usage_of(mnt).ifree, BACK_MS,
                        u0.ifree);
        assert_false(payload_left());
        assert_int_equal(files_in(mnt), 0);
        json_decref(l);
}

static void test_inodes_ext4(void **state) {
        (void)state;
        inodes_at(50);
        inodes_at(25);
}

static double memory_used(void) {
        double v = 0;
        FILE *f = fopen(memory_knob, "re");
        if (f && fscanf(f, "%lf", &v) != 1)
                v = 0;
        if (f)
                fclose(f);
        return v;
}

/* 30% of a tmpfs's 40000 inodes: 12000 descriptors held, within a 20000
 * hard limit; the kernel memory they cost is charged to the container. */
static void test_inodes_many(void **state) {
        (void)state;
        struct usage u0 = usage_of(many);
        double want = floor(u0.ifree * 0.30), mem0 = memory_used();
        json_t *l = lease("fs.inode_exhaust", "{\"percent\": 30, \"path\": \"/many\"}");
        double t0 = monotonic_ms();
        json_decref(call(agent, l, "inject"));
        double took = monotonic_ms() - t0, added = u0.ifree - usage_of(many).ifree;
        double per = (memory_used() - mem0) / MAX(added, 1);
        printf("fs.inode_exhaust 30%% of a tmpfs: %.0f inodes (wanted %.0f) in %.0f ms, %.0f bytes of the "
               "container's memory each\n",
               added, want, took, per);
        assert_true(fabs(added - want) <= u0.files / 100.0);
        effect_seen(l);
        json_decref(call(agent, l, "undo"));
        t0 = monotonic_ms();
        double back = -1;
        while (monotonic_ms() - t0 < BACK_MS && back < 0)
                if (usage_of(many).ifree >= u0.ifree)
                        back = monotonic_ms() - t0;
                else
                        sleep_ms(5);
        printf("  inodes back %.0f ms after undo\n", back);
        if (back < 0)
                fail_msg(
                        "%.0f inodes free %d ms after undo, %.0f before", usage_of(many).ifree, BACK_MS,
                        u0.ifree);
        json_decref(l);
}

/* Refused with why: no fixed inode count (tmpfs nr_inodes=0), a filesystem
 * already above percent, a path that is no directory. Nothing held after. */
static void refused(const char *fault, const char *params, const char *why) {
        struct mh_error e = { 0 };
        json_t *l = lease(fault, params);
        if (agent_lease_call(agent, l, "inject", NULL, &e) >= 0)
                fail_msg("%s %s was not refused", fault, params);
        printf("%s %s refused: %s\n", fault, params, e.msg);
        if (!strstr(e.msg, why))
                fail_msg("refusal says \"%s\", not \"%s\"", e.msg, why);
        assert_false(payload_left());
        json_decref(l);
}

/* This process may raise its hard RLIMIT_NOFILE (CAP_SYS_RESOURCE): so may the agent's payload. */
static bool can_raise_nofile(void) {
        struct rlimit l;
        if (getrlimit(RLIMIT_NOFILE, &l) < 0)
                return false;
        struct rlimit more = { l.rlim_cur, l.rlim_max + 1 };
        if (setrlimit(RLIMIT_NOFILE, &more) < 0)
                return false;
        setrlimit(RLIMIT_NOFILE, &l);
        return true;
}

static void test_refusals(void **state) {
        (void)state;
        refused("fs.inode_exhaust", "{\"path\": \"/noinodes\"}", "no fixed inode count");
        refused("fs.fill", "{\"percent\": 1, \"path\": \"/data\"}", "already used");
        refused("fs.fill", "{\"path\": \"/busybox\"}", "Not a directory");
        /* The cap, 200000 descriptors, past a hard limit the agent cannot raise. */
        struct rlimit l;
        if (getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_max < 200064 && !can_raise_nofile())
                refused("fs.inode_exhaust", "{\"path\": \"/scratch\"}", "needs 200064 descriptors");
}

/* Opt-in (MAYHEM_TEST_FILL_OVERLAY=1: it writes 1 GiB to the disk under
 * Docker's data root, freed at once): 99% of the container's overlay root
 * is the used space now plus the 1 GiB cap, taken from the upper dir. */
static void test_overlay_cap(void **state) {
        (void)state;
        if (!getenv("MAYHEM_TEST_FILL_OVERLAY"))
                skip();
        char root[128];
        struct statvfs a, b;
        snprintf(root, sizeof(root), "/proc/%d/root/", main_pid);
        assert_int_equal(statvfs(root, &a), 0);
        json_t *l = lease("fs.fill", "{\"percent\": 99}");
        double t0 = monotonic_ms();
        json_decref(call(agent, l, "inject"));
        double took = monotonic_ms() - t0;
        assert_int_equal(statvfs(root, &b), 0);
        double added = ((double)a.f_bavail - (double)b.f_bavail) * (double)a.f_frsize / (1 << 30);
        printf("fs.fill 99%% of the overlay root: %.3f GiB taken in %.0f ms\n", added, took);
        assert_true(added > 0.99 && added < 1.01);
        effect_seen(l);
        json_decref(call(agent, l, "undo"));
        assert_int_equal(statvfs(root, &b), 0);
        printf("  %.3f GiB still taken after undo\n",
               ((double)a.f_bavail - (double)b.f_bavail) * (double)a.f_frsize / (1 << 30));
        json_decref(l);
}

/* The agent SIGKILLed mid-fault: the kernel frees what the payload held. */
static void killed_mid(const char *fault, double percent) {
        struct agent_client *a = victim_agent("fs", "fill-killed");
        char params[128];
        struct usage u0 = usage_of(mnt);
        snprintf(params, sizeof(params), "{\"percent\": %g, \"path\": \"/data\"}", percent);
        json_t *l = lease(fault, params);
        json_decref(call(a, l, "inject"));
        struct usage u = usage_of(mnt);
        printf("%s %g%%, agent killed: used %.2f%%, %.0f inodes free (were %.2f%%, %.0f)\n", fault, percent,
               u.used_pct, u.ifree, u0.used_pct, u0.ifree);
        assert_true(u.used_pct > u0.used_pct + 5 || u.ifree < u0.ifree - 1000);
        double t0 = monotonic_ms(), back = -1;
        kill(agent_client_pid(a), SIGKILL);
        while (monotonic_ms() - t0 < BACK_MS && back < 0) {
                u = usage_of(mnt);
                if (u.used_pct <= u0.used_pct + 0.2 && u.ifree >= u0.ifree)
                        back = monotonic_ms() - t0;
                else
                        sleep_ms(5);
        }
        a = agent_client_stop(a);
        printf("  back %.0f ms after the SIGKILL\n", back);
        if (back < 0)
                fail_msg("%s: not back %d ms after the SIGKILL", fault, BACK_MS);
        assert_true(payload_gone());
        assert_int_equal(files_in(mnt), 0);
        json_decref(l);
}

static void test_agent_killed(void **state) {
        (void)state;
        killed_mid("fs.fill", 60);
        killed_mid("fs.inode_exhaust", 50);
}

static void cleanup(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "docker", "rm", "-f", victim, NULL });
        cmd_result_done(&r);
        r = run_command(NULL, (const char *const[]){ "umount", mnt, NULL });
        if (r.exit != 0) { /* a payload of a failed test still going: detach it */
                cmd_result_done(&r);
                r = run_command(NULL, (const char *const[]){ "umount", "-l", mnt, NULL });
        }
        cmd_result_done(&r);
        rmdir(mnt);
        unlink(img);
}

/* A 64 MiB ext4 image with 4096 inodes and the usual 5% reserve, mounted at mnt. */
static bool make_fs(void) {
        char size[16];
        snprintf(size, sizeof(size), "%dM", FS_MIB);
        return victim_run((const char *const[]){ "truncate", "-s", size, img, NULL }) &&
               victim_run((const char *const[]){ "mkfs.ext4", "-q", "-F", "-N", "4096", "-m", "5", img,
                                                 NULL }) &&
               mkdir(mnt, 0755) == 0 &&
               victim_run((const char *const[]){ "mount", "-o", "loop", img, mnt, NULL });
}

static bool start_victim(void) {
        char bind[160];
        snprintf(bind, sizeof(bind), "%s:/data", mnt);
        return victim_run((const char *const[]){
                "docker", "run", "-d", "--name", victim, "-v", bind, "--tmpfs", "/scratch:size=64m",
                "--tmpfs", "/noinodes:size=8m,nr_inodes=0", "--tmpfs", "/many:size=8m,nr_inodes=40000",
                "--memory", "512m", IMAGE, NULL });
}

int main(void) {
        struct mh_error e = { 0 };
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        snprintf(victim, sizeof(victim), "mayhem-fsfill-%d", (int)getpid());
        snprintf(img, sizeof(img), "/tmp/mayhem-fsfill-%d.img", (int)getpid());
        snprintf(mnt, sizeof(mnt), "/tmp/mayhem-fsfill-%d.mnt", (int)getpid());
        struct engine_container c;
        if (!make_fs() || !start_victim() || engine_container_inspect(engine, victim, &c, NULL) < 0) {
                cleanup();
                return 1;
        }
        main_pid = c.pid;
        snprintf(scratch, sizeof(scratch), "/proc/%d/root/scratch", (int)c.pid);
        snprintf(many, sizeof(many), "/proc/%d/root/many", (int)c.pid);
        /* cgroup v1 (this CI's dockerd), else v2 */
        snprintf(
                memory_knob, sizeof(memory_knob), "/sys/fs/cgroup/memory/docker/%s/memory.usage_in_bytes",
                c.id);
        if (access(memory_knob, R_OK) < 0)
                snprintf(
                        memory_knob, sizeof(memory_knob),
                        "/sys/fs/cgroup/system.slice/docker-%s.scope/memory.current", c.id);
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = "fs",
                                          .run_id = "fill" };
        if (agent_client_start(&o, &agent, &e) < 0 ||
            agent_lease_resolve(agent, "docker", victim, &identity, &e) < 0) {
                fprintf(stderr, "agent: %s\n", e.msg);
                agent = agent_client_stop(agent);
                cleanup();
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fill_ext4),   cmocka_unit_test(test_fill_tmpfs),
                cmocka_unit_test(test_inodes_ext4), cmocka_unit_test(test_inodes_many),
                cmocka_unit_test(test_refusals),    cmocka_unit_test(test_agent_killed),
                cmocka_unit_test(test_overlay_cap),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        json_decref(identity);
        agent_client_stop(agent);
        cleanup();
        return r;
}
