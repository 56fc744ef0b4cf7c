#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "common/run-command.h"

/* `meson install` of this build into a DESTDIR lays out the binaries, the
 * man pages and the three completion scripts, and the man page renders. */

static char root[128];

static void rm_root(void) {
        const char *rm[] = { "rm", "-rf", root, NULL };
        struct cmd_result r = run_command("/", rm);
        cmd_result_done(&r);
}

static void assert_installed(const char *rel) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof(path), "%s%s/%s", root, getenv("MAYHEM_PREFIX"), rel);
        if (stat(path, &st) != 0 || st.st_size == 0)
                fail_msg("not installed: %s", path);
}

static void test_install_layout(void **state) {
        snprintf(root, sizeof(root), "/tmp/in15-root-%d", (int)getpid());
        rm_root();
        char destdir[160];
        snprintf(destdir, sizeof(destdir), "--destdir=%s", root);
        const char *install[] = { "meson",   "install", "--no-rebuild",
                                  "--quiet", "-C",      getenv("MAYHEM_BUILD_ROOT"),
                                  destdir,   NULL };
        struct cmd_result r = run_command("/", install);
        if (r.exit != 0)
                fprintf(stderr, "meson install: %s%s", r.out, r.err);
        assert_int_equal(r.exit, 0);
        cmd_result_done(&r);

        assert_installed("bin/mayhem");
        assert_installed("bin/mayhem-agent");
        assert_installed("libexec/mayhem/mayhem-target");
        assert_installed("share/bash-completion/completions/mayhem");
        assert_installed("share/zsh/site-functions/_mayhem");
        assert_installed("share/fish/vendor_completions.d/mayhem.fish");
        if (strcmp(getenv("MAYHEM_MAN"), "1") != 0) {
                rm_root();
                skip(); /* no scdoc at configure time */
        }
        assert_installed("share/man/man1/mayhem.1");
        assert_installed("share/man/man5/mayhem-drill.5");
        assert_installed("share/man/man8/mayhem-agent.8");

        char page[512];
        snprintf(page, sizeof(page), "%s%s/share/man/man1/mayhem.1", root, getenv("MAYHEM_PREFIX"));
        const char *groff[] = { "groff", "-man", "-Tutf8", "-P", "-cbou", page, NULL };
        r = run_command("/", groff);
        rm_root();
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "NAME"));
        assert_non_null(strstr(r.out, "mayhem - plan, run and judge chaos drills"));
        assert_non_null(strstr(r.out, "EXIT STATUS"));
        assert_null(strstr(r.err, "warning"));
        cmd_result_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_install_layout),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
