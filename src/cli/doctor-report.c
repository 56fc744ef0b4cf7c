#include "doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/string-table.h"
#include "catalog/catalog.h"

static const char *const doctor_status_table[_DOCTOR_STATUS_MAX] = {
        [DOCTOR_OK] = "ok",
        [DOCTOR_WARN] = "warn",
        [DOCTOR_MISSING] = "missing",
};
DEFINE_STRING_TABLE_LOOKUP(doctor_status, enum doctor_status)

/* Whatever does not fit is cut, and the text then ends with "...". */
_printf_(3, 0) static void vappend(char *buf, const char *sep, const char *fmt, va_list ap) {
        size_t used = strlen(buf);
        char piece[DOCTOR_TEXT_MAX];
        int n = vsnprintf(piece, sizeof(piece), fmt, ap);
        if (n < 0 || used >= DOCTOR_TEXT_MAX - 1)
                return; /* full: only a cut (marked) text fills it */
        int m = snprintf(buf + used, DOCTOR_TEXT_MAX - used, "%s%s", used > 0 && sep ? sep : "", piece);
        if (m < 0 || used + (size_t)m >= DOCTOR_TEXT_MAX || (size_t)n >= sizeof(piece))
                memcpy(buf + DOCTOR_TEXT_MAX - 4, "...", 4);
}

void doctor_append(char *buf, const char *sep, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vappend(buf, sep, fmt, ap);
        va_end(ap);
}

struct doctor_check *doctor_add(struct doctor_report *r, enum doctor_status status, const char *fmt, ...) {
        struct doctor_check *c = &r->checks[r->n < DOCTOR_CHECKS_MAX ? r->n++ : DOCTOR_CHECKS_MAX - 1];
        va_list ap;
        *c = (struct doctor_check){ .status = status, .blocking = false };
        va_start(ap, fmt);
        (void)vsnprintf(c->check, sizeof(c->check), fmt, ap);
        va_end(ap);
        return c;
}

#define SETTER(field)                                                                                       \
        void doctor_##field(struct doctor_check *c, const char *fmt, ...) {                                 \
                va_list ap;                                                                                 \
                c->field[0] = '\0';                                                                         \
                va_start(ap, fmt);                                                                          \
                vappend(c->field, NULL, fmt, ap);                                                           \
                va_end(ap);                                                                                 \
        }
SETTER(detail)
SETTER(disables)
SETTER(fix)
#undef SETTER

json_t *doctor_report_json(const struct doctor_report *r) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < r->n; i++) {
                const struct doctor_check *c = &r->checks[i];
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:s, s:s, s:s, s:s, s:b}", "check", c->check, "status",
                                   doctor_status_to_string(c->status), "detail", c->detail, "disables",
                                   c->disables, "fix", c->fix, "blocking", c->blocking));
        }
        return a;
}

bool doctor_report_blocking(const struct doctor_report *r) {
        for (size_t i = 0; i < r->n; i++)
                if (r->checks[i].blocking)
                        return true;
        return false;
}

size_t doctor_faults_needing(unsigned need_bits, char *buf) {
        size_t n = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                if (fault_status_of(f) == FAULT_STATUS_RUNNABLE && (f->needs & need_bits)) {
                        doctor_append(buf, ", ", "%s", f->id);
                        n++;
                }
        }
        return n;
}
