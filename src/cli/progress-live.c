#include "progress-live.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"

#define LIVE_FAULTS_MAX 64
#define REDRAW_MS       500

struct live_fault {
        char fault_id[16], fault[48], target[96];
        enum run_fault_phase phase;
        double hold_until_ms;
};

struct progress_live {
        FILE *out;
        bool live;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        pthread_t ticker;
        bool ticking, stop;
        struct live_fault faults[LIVE_FAULTS_MAX];
        size_t n_faults;
        char probe[400]; /* the last probe's line, "" before the first */
        size_t drawn;    /* lines of the block now on the screen */
};

/* Names, details and agents' words may hold escape sequences: never sent
 * raw to a terminal. keep: the one control character left as it is ('\n'
 * in a plain line, which may span lines; none in the block's). */
static void copy_kept(char *dst, size_t size, const char *src, char keep) {
        size_t n = 0;
        for (; src && *src && n + 1 < size; src++) {
                bool control = (unsigned char)*src < 0x20 || *src == 0x7f;
                dst[n++] = control && *src != keep ? '?' : *src;
        }
        dst[n] = '\0';
}

static void copy_printable(char *dst, size_t size, const char *src) {
        copy_kept(dst, size, src, '\0');
}

static size_t columns(FILE *out) {
        struct winsize w;
        if (ioctl(fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col >= 20)
                return w.ws_col - 1;
        return 99;
}

static void erase_block(struct progress_live *p) {
        for (; p->drawn > 0; p->drawn--)
                fputs("\033[1A\033[2K", p->out);
        fputc('\r', p->out);
}

static void fault_line(const struct live_fault *f, char *buf, size_t size) {
        static const char *const what[] = {
                [RUN_FAULT_INJECTING] = "injecting", [RUN_FAULT_UNDOING] = "undoing and verifying"
        };
        if (f->phase == RUN_FAULT_HOLDING) {
                double left = MAX(0.0, f->hold_until_ms - monotonic_ms()) / 1000.0;
                snprintf(
                        buf, size, "  ~ %s %s on %s: in force, %.0fs left of the hold", f->fault_id,
                        f->fault, f->target, left);
        } else
                snprintf(
                        buf, size, "  ~ %s %s on %s: %s", f->fault_id, f->fault, f->target,
                        what[f->phase] ? what[f->phase] : "");
}

static void put_cut(struct progress_live *p, const char *line, size_t width) {
        fprintf(p->out, "%.*s\n", (int)MIN(strlen(line), width), line);
        p->drawn++;
}

static void draw_block(struct progress_live *p) {
        char line[400];
        size_t width = columns(p->out);
        for (size_t i = 0; i < p->n_faults; i++) {
                fault_line(&p->faults[i], line, sizeof(line));
                put_cut(p, line, width);
        }
        if (p->n_faults && p->probe[0])
                put_cut(p, p->probe, width);
        fflush(p->out);
}

static void redraw(struct progress_live *p) {
        erase_block(p);
        draw_block(p);
}

static void *tick(void *userdata) {
        struct progress_live *p = userdata;
        pthread_mutex_lock(&p->lock);
        while (!p->stop) {
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_nsec += REDRAW_MS * 1000000L;
                until.tv_sec += until.tv_nsec / 1000000000L;
                until.tv_nsec %= 1000000000L;
                pthread_cond_timedwait(&p->wake, &p->lock, &until);
                if (!p->stop && p->n_faults)
                        redraw(p);
        }
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

struct progress_live *progress_live_new(FILE *out, bool live) {
        struct progress_live *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        p->out = out;
        p->live = live;
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->wake, NULL);
        p->ticking = live && pthread_create(&p->ticker, NULL, tick, p) == 0;
        return p;
}

void progress_live_free(struct progress_live *p) {
        if (!p)
                return;
        pthread_mutex_lock(&p->lock);
        p->stop = true;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        if (p->ticking)
                pthread_join(p->ticker, NULL);
        if (p->live)
                erase_block(p);
        fflush(p->out);
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
}

void progress_live_line(void *userdata, const char *line) {
        struct progress_live *p = userdata;
        char stamp[16], text[1024];
        time_t now = time(NULL);
        strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
        copy_kept(text, sizeof(text), line, '\n');
        pthread_mutex_lock(&p->lock);
        if (p->live)
                erase_block(p);
        fprintf(p->out, "%s %s\n", stamp, text);
        if (p->live)
                draw_block(p);
        fflush(p->out);
        pthread_mutex_unlock(&p->lock);
}

static struct live_fault *find_fault(struct progress_live *p, const char *fault_id) {
        for (size_t i = 0; i < p->n_faults; i++)
                if (strcmp(p->faults[i].fault_id, fault_id) == 0)
                        return &p->faults[i];
        if (p->n_faults == LIVE_FAULTS_MAX)
                return NULL;
        struct live_fault *f = &p->faults[p->n_faults++];
        copy_printable(f->fault_id, sizeof(f->fault_id), fault_id);
        return f;
}

void progress_live_fault(void *userdata, const struct run_fault_status *s) {
        struct progress_live *p = userdata;
        if (!p->live)
                return; /* the plain lines say it */
        pthread_mutex_lock(&p->lock);
        struct live_fault *f = find_fault(p, s->fault_id);
        if (f && s->phase == RUN_FAULT_ENDED) {
                size_t i = (size_t)(f - p->faults);
                memmove(f, f + 1, (p->n_faults - i - 1) * sizeof(*f));
                p->n_faults--;
        } else if (f) {
                copy_printable(f->fault, sizeof(f->fault), s->fault);
                copy_printable(f->target, sizeof(f->target), s->target);
                f->phase = s->phase;
                f->hold_until_ms = s->hold_until_ms;
        }
        redraw(p);
        pthread_mutex_unlock(&p->lock);
}

void progress_live_probe(void *userdata, const struct run_probe_status *s) {
        struct progress_live *p = userdata;
        char source[96], detail[200];
        if (!p->live)
                return;
        copy_printable(source, sizeof(source), s->source);
        copy_printable(detail, sizeof(detail), s->detail);
        pthread_mutex_lock(&p->lock);
        snprintf(
                p->probe, sizeof(p->probe), "  last probe: %s %s, %.1f ms: %s", source,
                s->ok ? "ok" : "FAIL", s->latency_ms, detail);
        if (p->n_faults)
                redraw(p);
        pthread_mutex_unlock(&p->lock);
}
