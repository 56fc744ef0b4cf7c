#include "rlimit-record.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "fault/rlimit-procs.h"

/* RLIM_INFINITY does not fit a JSON integer: -1 stands for it. */
static json_int_t lim_json(rlim_t v) {
        return v == RLIM_INFINITY ? -1 : (json_int_t)v;
}

static bool lim_of(const json_t *j, rlim_t *ret) {
        if (!json_is_integer(j) || json_integer_value(j) < -1)
                return false;
        *ret = json_integer_value(j) == -1 ? RLIM_INFINITY : (rlim_t)json_integer_value(j);
        return true;
}

static json_t *entry_json(const struct nofile_entry *e) {
        return json_pack(
                "{s:I, s:I, s:I, s:I, s:I, s:I}", "pid", (json_int_t)e->id.pid, "start",
                (json_int_t)e->id.start_time, "soft", lim_json(e->old.rlim_cur), "hard",
                lim_json(e->old.rlim_max), "set_soft", lim_json(e->set.rlim_cur), "set_hard",
                lim_json(e->set.rlim_max));
}

int rlimit_record_put(
        json_t *restore, const struct nofile_entry *e, size_t n, uint64_t since, struct mh_error *reterr) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                if (json_array_append_new(a, entry_json(&e[i])) < 0) {
                        json_decref(a);
                        a = NULL;
                }
        if (!a || json_object_set_new(restore, "nofile", a) < 0 ||
            json_object_set_new(restore, "nofile_since", json_integer((json_int_t)since)) < 0)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        return 0;
}

static bool entry_of(const json_t *j, struct nofile_entry *ret) {
        const json_t *pid = json_object_get(j, "pid"), *start = json_object_get(j, "start");
        if (!json_is_integer(pid) || json_integer_value(pid) <= 0 || json_integer_value(pid) > INT32_MAX ||
            !json_is_integer(start) || json_integer_value(start) < 0)
                return false;
        ret->id = (struct proc_identity){ (pid_t)json_integer_value(pid),
                                          (uint64_t)json_integer_value(start) };
        return lim_of(json_object_get(j, "soft"), &ret->old.rlim_cur) &&
               lim_of(json_object_get(j, "hard"), &ret->old.rlim_max) &&
               lim_of(json_object_get(j, "set_soft"), &ret->set.rlim_cur) &&
               lim_of(json_object_get(j, "set_hard"), &ret->set.rlim_max);
}

int rlimit_record_get(
        const json_t *restore, struct nofile_entry **ret, size_t *ret_n, uint64_t *ret_since,
        struct mh_error *reterr) {
        const json_t *a = json_object_get(restore, "nofile"), *s = json_object_get(restore, "nofile_since");
        size_t n = json_array_size(a);
        if (!a) {
                *ret = NULL;
                *ret_n = 0;
                *ret_since = 0;
                return 0;
        }
        if (!json_is_array(a) || n > RLIMIT_PIDS_MAX || !json_is_integer(s) || json_integer_value(s) < 0)
                return mh_error_fail(reterr, -EINVAL, "record", "the fd.exhaust record is out of shape");
        _cleanup_free_ struct nofile_entry *e = calloc(MAX(n, (size_t)1), sizeof(*e));
        if (!e)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        for (size_t i = 0; i < n; i++)
                if (!entry_of(json_array_get(a, i), &e[i]))
                        return mh_error_fail(
                                reterr, -EINVAL, "record",
                                "the fd.exhaust record: entry %zu is out of shape", i);
        *ret = TAKE_PTR(e);
        *ret_n = n;
        *ret_since = (uint64_t)json_integer_value(s);
        return 0;
}

uint64_t rlimit_ticks_now(void) {
        struct timespec ts;
        long hz = sysconf(_SC_CLK_TCK);
        if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0 || hz <= 0)
                return 0;
        return (uint64_t)ts.tv_sec * (uint64_t)hz + (uint64_t)ts.tv_nsec / (1000000000ull / (uint64_t)hz);
}
