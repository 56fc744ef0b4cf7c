/* The throwaway image of doctor --fidelity, built from mayhem's own static
 * target (mayhem-target: the demo's HTTP service, linked statically by the
 * build) in a FROM-scratch context sent to the engine's builder, and
 * removed with the container when the table is done. */

#include "doctor-fidelity-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/tar-write.h"
#include "config.h"

#define TARGET_NAME       "mayhem-target"
#define TARGET_MAX        (32u << 20)
#define BUILD_CONTEXT_MAX (TARGET_MAX + (64u << 10))

static const char dockerfile[] = "FROM scratch\n"
                                 "COPY " TARGET_NAME " /" TARGET_NAME "\n"
                                 "EXPOSE 8080\n"
                                 "ENTRYPOINT [\"/" TARGET_NAME "\"]\n";

/* Beside this binary (the build tree), else where `meson install` put it. */
static void find_target(char *buf, size_t size) {
        char self[PATH_MAX - 64];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
        if (slash) {
                *slash = '\0';
                snprintf(buf, size, "%s/" TARGET_NAME, self);
                if (access(buf, X_OK) == 0)
                        return;
        }
        snprintf(buf, size, "%s/" TARGET_NAME, MAYHEM_LIBEXECDIR);
}

int fidelity_image_build(struct engine *e, const char *name, const char *label, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf tar = STRBUF_INIT(BUILD_CONTEXT_MAX);
        _cleanup_free_ char *target = NULL;
        char path[PATH_MAX];
        size_t len = 0;
        find_target(path, sizeof(path));
        int r = read_file_bounded(path, TARGET_MAX, &target, &len, reterr);
        if (r < 0) {
                mh_error_prefix(reterr, "mayhem's static target, which the fidelity image runs: ");
                mh_error_reclass(reterr, MH_EXIT_CONFIG_ERROR, "fidelity");
                mh_error_remedy(reterr, "build mayhem (ninja) or install it (meson install)");
                return r;
        }
        if ((r = tar_append_file(&tar, "Dockerfile", 0644, dockerfile, strlen(dockerfile))) < 0 ||
            (r = tar_append_file(&tar, TARGET_NAME, 0755, target, len)) < 0 || (r = tar_finish(&tar)) < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "fidelity", "the build context of %s: %s", name,
                        strerror(-r));
        return engine_image_build(e, name, label, tar.data, tar.len, reterr);
}
