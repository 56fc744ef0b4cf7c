#include "engine-internal.h"

#include <stdio.h>
#include <string.h>

#define NAME_CHARS                                                                                          \
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"                                    \
        "_.-"
#define COMPOSE_PROJECT_MAX 127 /* fits engine_container.compose_project */

/* Docker's rule for names, [a-zA-Z0-9][a-zA-Z0-9_.-]*, which hex ids also
 * follow. Every such string is safe in a URL path as it is. */
bool engine_name_valid(const char *s, size_t max) {
        size_t n = s ? strspn(s, NAME_CHARS) : 0;
        return n > 0 && n <= max && s[n] == '\0' && strchr("_.-", s[0]) == NULL;
}

static int invalid(const char *what, const char *s, struct mh_error *reterr) {
        char shown[64];

        http_one_line(shown, sizeof(shown), s ? s : "", s ? strlen(s) : 0);
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "engine_invalid_name",
                "invalid %s '%s': expected [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most %d characters", what, shown,
                ENGINE_NAME_MAX - 1);
}

int engine_check_name(const char *name_or_id, struct mh_error *reterr) {
        if (!engine_name_valid(name_or_id, ENGINE_NAME_MAX - 1))
                return invalid("container name or id", name_or_id, reterr);
        return 0;
}

int engine_check_project(const char *project, struct mh_error *reterr) {
        if (!engine_name_valid(project, COMPOSE_PROJECT_MAX))
                return invalid("compose project name", project, reterr);
        return 0;
}

int engine_signal_canonical(const char *signal, char *ret, struct mh_error *reterr) {
        static const char *const names[] = {
                "HUP",  "INT",  "QUIT", "ILL",  "TRAP", "ABRT", "BUS",  "FPE",  "KILL",  "USR1",
                "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STOP", "CONT", "TSTP", "WINCH",
        };
        const char *bare = signal ? signal : "KILL";
        char shown[32];

        if (strncmp(bare, "SIG", 3) == 0)
                bare += 3;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(bare, names[i])) {
                        snprintf(ret, ENGINE_SIGNAL_MAX, "SIG%s", names[i]);
                        return 0;
                }
        http_one_line(shown, sizeof(shown), signal, strlen(signal));
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "engine_invalid_signal",
                "invalid signal '%s': expected a name such as SIGTERM, SIGKILL, SIGSTOP or SIGHUP", shown);
}
