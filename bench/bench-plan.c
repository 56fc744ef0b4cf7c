/* Compiles a drill against a generated compose file of N services with the
 * real CLI (`mayhem prepare validate` and `prepare plan`), and prints wall
 * time and peak RSS of the child process, for a small and a large stack side
 * by side in one run, plus the in-process time of each phase.
 *
 * usage: bench-plan MAYHEM_BIN [SERVICES] [RUNS]   (defaults 1000, 15) */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/stats.h"
#include "basic/clock.h"
#include "basic/strbuf.h"
#include "plan/plan.h"

#define SMALL_SERVICES 10
#define TARGET_EVERY   10 /* one drill target per this many services */

static void gen_compose(struct strbuf *b, size_t n) {
        strbuf_puts(
                b, "name: bench\nx-common: &common\n  restart: unless-stopped\n  labels: {team: bench}\n"
                   "networks: {front: {}, back: {}}\nservices:\n");
        for (size_t i = 0; i < n; i++) {
                strbuf_printf(
                        b, "  svc%zu:\n    <<: *common\n    image: registry.local/svc%zu:${TAG:-1.0}\n", i,
                        i);
                strbuf_printf(
                        b, "    ports: [\"%zu:8080\", \"127.0.0.1:%zu:9090/udp\"]\n", 20000 + i, 40000 + i);
                strbuf_printf(b, "    networks: [%s]\n", i % 2 ? "front, back" : "back");
                /* chains of TARGET_EVERY: a target's dependents stay in its chain */
                if (i % TARGET_EVERY > 0)
                        strbuf_printf(
                                b, "    depends_on:\n      svc%zu: {condition: service_healthy}\n", i - 1);
                strbuf_puts(
                        b,
                        "    cap_add: [NET_ADMIN]\n    healthcheck:\n      test: [\"CMD\", \"/bin/true\"]\n"
                        "      interval: 5s\n      timeout: 1s\n      retries: 3\n");
        }
}

static void gen_drill(struct strbuf *b, size_t n) {
        /* The last service of each chain (no dependents: the blast-radius gate
         * passes), 100 targets held 25s each, one after another: a run of about 45 minutes. */
        strbuf_puts(
                b, "kind: drill\nname: bench\nhypothesis: every service survives\nconfig: {timeout: 2h}\n"
                   "containers:\n");
        for (size_t i = TARGET_EVERY - 1; i < n; i += TARGET_EVERY)
                strbuf_printf(
                        b,
                        "  bench-svc%zu-1:\n    faults:\n      - {fault: net.latency, delay_ms: 100, "
                        "jitter_ms: 5, duration: 20s}\n      - {fault: container.pause, duration: 5s}\n",
                        i);
        strbuf_puts(b, "execution:\n");
        for (size_t i = TARGET_EVERY - 1; i < n; i += TARGET_EVERY)
                strbuf_printf(b, "  - parallel: [bench-svc%zu-1]\n  - wait: 1s\n", i);
        strbuf_puts(
                b,
                "  - check_spec:\n      - {id: up, probe: {type: http, url: \"http://127.0.0.1:20000/\"}}\n"
                "success:\n  criteria: [{type: status, source_id: up.status, expected: 200}]\n");
}

static void write_file(const char *path, const struct strbuf *b) {
        FILE *f = fopen(path, "we");
        if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
                fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
                exit(1);
        }
}

struct sample {
        double ms;
        long maxrss_kib;
};

static struct sample run_cli(const char *bin, const char *cmd, const char *drill, const char *compose) {
        struct rusage ru;
        int status = 0;
        double t0 = monotonic_ms();
        pid_t pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                dup2(null, 1);
                execl(bin, bin, "prepare", cmd, drill, "-c", compose, (char *)NULL);
                _exit(127);
        }
        if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
                fprintf(stderr, "bench: mayhem prepare %s failed (status %d)\n", cmd, status);
                exit(1);
        }
        return (struct sample){ .ms = monotonic_ms() - t0, .maxrss_kib = ru.ru_maxrss };
}

/* Median time and largest peak RSS over runs. */
static struct sample measure(
        const char *bin, const char *cmd, const char *drill, const char *compose, int runs) {
        double times[64];
        long rss = 0;
        runs = runs > 64 ? 64 : runs;
        for (int i = 0; i < runs; i++) {
                struct sample s = run_cli(bin, cmd, drill, compose);
                times[i] = s.ms;
                rss = s.maxrss_kib > rss ? s.maxrss_kib : rss;
        }
        doubles_sort(times, (size_t)runs);
        return (struct sample){ .ms = sorted_median(times, (size_t)runs), .maxrss_kib = rss };
}

/* In-process phases, best of runs, to see where the time goes. */
static void phases(const struct strbuf *compose, const struct strbuf *drill, int runs, double out[3]) {
        out[0] = out[1] = out[2] = 1e18;
        for (int i = 0; i < runs; i++) {
                struct topology *t = NULL;
                struct drill_spec *s = NULL;
                struct plan *p = NULL;
                double t0 = monotonic_ms();
                int r = compose_parse("compose.yaml", compose->data, compose->len, &t, NULL);
                double t1 = monotonic_ms();
                r = r < 0 ? r : drill_parse("drill.yaml", drill->data, drill->len, &s, NULL);
                double t2 = monotonic_ms();
                r = r < 0 ? r : plan_build(s, t, &p, NULL);
                double t3 = monotonic_ms();
                if (r < 0) {
                        fprintf(stderr, "bench: in-process compile failed\n");
                        exit(1);
                }
                out[0] = t1 - t0 < out[0] ? t1 - t0 : out[0];
                out[1] = t2 - t1 < out[1] ? t2 - t1 : out[1];
                out[2] = t3 - t2 < out[2] ? t3 - t2 : out[2];
                plan_free(p);
                drill_spec_free(s);
                topology_free(t);
        }
}

struct row {
        size_t services, bytes;
        struct sample validate, plan;
        double phase[3];
};

static struct row bench_size(const char *bin, const char *dir, size_t n, int runs) {
        struct strbuf compose = STRBUF_INIT(0), drill = STRBUF_INIT(0);
        char cpath[512], dpath[512];
        struct row row = { .services = n };

        gen_compose(&compose, n);
        gen_drill(&drill, n);
        snprintf(cpath, sizeof(cpath), "%s/compose-%zu.yaml", dir, n);
        snprintf(dpath, sizeof(dpath), "%s/drill-%zu.yaml", dir, n);
        write_file(cpath, &compose);
        write_file(dpath, &drill);
        row.bytes = compose.len;
        row.validate = measure(bin, "validate", dpath, cpath, runs);
        row.plan = measure(bin, "plan", dpath, cpath, runs);
        phases(&compose, &drill, runs, row.phase);
        unlink(cpath);
        unlink(dpath);
        strbuf_done(&compose);
        strbuf_done(&drill);
        return row;
}

static void print_row(const struct row *r) {
        printf("%8zu %9zu %7zu | %9.2f %9.1f | %9.2f %9.1f | %8.2f %8.2f %8.2f\n", r->services,
               r->services / TARGET_EVERY * 2, r->bytes / 1024, r->validate.ms,
               (double)r->validate.maxrss_kib / 1024, r->plan.ms, (double)r->plan.maxrss_kib / 1024,
               r->phase[0], r->phase[1], r->phase[2]);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: bench-plan MAYHEM_BIN [SERVICES] [RUNS]\n");
                return 2;
        }
        size_t services = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 1000;
        int runs = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 15;
        char dir[] = "/tmp/mayhem-bench-XXXXXX";
        if (!mkdtemp(dir) || services < SMALL_SERVICES || runs < 1)
                return 2;

        struct row small = bench_size(argv[1], dir, SMALL_SERVICES, runs);
        struct row large = bench_size(argv[1], dir, services, runs);
        rmdir(dir);

        printf("mayhem prepare validate / plan on a generated compose file; median of %d runs, peak RSS of "
               "the process\n",
               runs);
        printf("%8s %9s %7s | %9s %9s | %9s %9s | %8s %8s %8s\n", "services", "faults", "KiB", "valid ms",
               "valid MiB", "plan ms", "plan MiB", "compose", "drill", "plan");
        print_row(&small);
        print_row(&large);
        printf("ratio %zux services: validate time x%.2f, RSS x%.2f; plan time x%.2f, RSS x%.2f\n",
               services / SMALL_SERVICES, large.validate.ms / small.validate.ms,
               (double)large.validate.maxrss_kib / (double)small.validate.maxrss_kib,
               large.plan.ms / small.plan.ms, (double)large.plan.maxrss_kib / (double)small.plan.maxrss_kib);
        printf("aim for %zu services: under 100 ms and 20 MiB -> validate %s (%.1f ms, %.1f MiB)\n",
               services, large.validate.ms < 100 && large.validate.maxrss_kib < 20 * 1024 ? "MET" : "MISSED",
               large.validate.ms, (double)large.validate.maxrss_kib / 1024);
        return 0;
}
