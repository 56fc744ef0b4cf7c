#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "cli/cli.h"
#include "common/run-command.h"

/* The bash script `mayhem completion bash` prints, sourced into a real bash,
 * asked what it completes; the answers are compared with the command table. */

static char *complete_in_bash(const char *words, int cword) {
        char script[128], driver[128];
        snprintf(script, sizeof(script), "/tmp/in15-completion-%d.bash", (int)getpid());
        snprintf(driver, sizeof(driver), "/tmp/in15-driver-%d.bash", (int)getpid());
        const char *gen[] = { getenv("MAYHEM_BIN"), "completion", "bash", NULL };
        struct cmd_result r = run_command(NULL, gen);
        assert_int_equal(r.exit, 0);
        FILE *f = fopen(script, "w");
        assert_non_null(f);
        fputs(r.out, f);
        assert_int_equal(fclose(f), 0);
        cmd_result_done(&r);
        f = fopen(driver, "w");
        assert_non_null(f);
        fprintf(f,
                "source %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_mayhem\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n",
                script, words, cword);
        assert_int_equal(fclose(f), 0);
        const char *bash[] = { "bash", "--norc", "--noprofile", driver, NULL };
        r = run_command("/", bash);
        unlink(script);
        unlink(driver);
        if (r.exit != 0)
                fprintf(stderr, "bash: %s", r.err);
        assert_int_equal(r.exit, 0);
        free(r.err);
        return r.out;
}

static size_t count_lines(const char *s) {
        size_t n = 0;
        for (; *s; s++)
                n += *s == '\n';
        return n;
}

static void test_command_words(void **state) {
        _cleanup_free_ char *got = complete_in_bash("mayhem r", 1);
        assert_string_equal(got, "run\nrecover\n");
        free(got);
        got = complete_in_bash("mayhem --db x.db prepare v", 4);
        assert_string_equal(got, "validate\n");
}

/* `mayhem run --`: every long option of run, as its table has them. */
static void test_run_options(void **state) {
        _cleanup_free_ char *got = complete_in_bash("mayhem run --", 2);
        size_t n = 0;
        for (const struct cli_opt *o = cli_run.opts; o->name; o++, n++) {
                char line[64];
                snprintf(line, sizeof(line), "--%s\n", o->name);
                if (!strstr(got, line))
                        fail_msg("run option --%s not completed; got:\n%s", o->name, got);
        }
        assert_int_equal(count_lines(got), n);
}

/* After an option that takes a value the word is a file name. */
static void test_option_value_is_a_file(void **state) {
        _cleanup_free_ char *got = complete_in_bash("mayhem run -c /etc/host", 3);
        assert_non_null(strstr(got, "/etc/hostname\n"));
}

/* Runs shell with the script of `mayhem completion NAME` in a file and the
 * lines of prelude before it and of driver_text after it; NULL when the shell is not installed. */
static char *run_shell(
        const char *shell, const char *const *shell_argv, const char *prelude, const char *driver_text) {
        char script[128], path[64];
        snprintf(path, sizeof(path), "/usr/bin/%s", shell);
        if (access(path, X_OK) != 0)
                return NULL;
        snprintf(script, sizeof(script), "/tmp/in15-script-%d.%s", (int)getpid(), shell);
        const char *gen[] = { getenv("MAYHEM_BIN"), "completion", shell, NULL };
        struct cmd_result r = run_command(NULL, gen);
        assert_int_equal(r.exit, 0);
        FILE *f = fopen(script, "w");
        assert_non_null(f);
        fprintf(f, "%s\n%s\n%s", prelude, r.out, driver_text);
        assert_int_equal(fclose(f), 0);
        cmd_result_done(&r);
        const char *argv[8];
        size_t n = 0;
        for (; shell_argv[n]; n++)
                argv[n] = shell_argv[n];
        argv[n++] = script;
        argv[n] = NULL;
        r = run_command("/", argv);
        unlink(script);
        if (r.exit != 0)
                fprintf(stderr, "%s: %s", shell, r.err);
        assert_int_equal(r.exit, 0);
        free(r.err);
        return r.out;
}

/* fish's own completion engine, through `complete -C`. */
static void test_fish(void **state) {
        const char *argv[] = { "fish", "--no-config", NULL };
        _cleanup_free_ char *got = run_shell(
                "fish", argv, "",
                "complete -C 'mayhem r'\necho ---\ncomplete -C 'mayhem --db x prepare v'\n");
        if (!got)
                skip();
        assert_string_equal(got, "recover\nrun\n---\nvalidate\n");
}

/* zsh: the function with compadd and _files standing in for the completion
 * system (compadd's own matching filters by prefix). */
static void test_zsh(void **state) {
        const char *argv[] = { "zsh", "-f", NULL };
        _cleanup_free_ char *got = run_shell(
                "zsh", argv, "compdef() { echo \"compdef $*\" >&2; }",
                "compadd() { shift; print -l -- \"$@\" | grep -- \"^${words[CURRENT]}\"; }\n"
                "_files() { echo FILES; }\n"
                "words=(mayhem r); CURRENT=2; _mayhem\n"
                "words=(mayhem run -c x); CURRENT=4; _mayhem\n");
        if (!got)
                skip();
        assert_string_equal(got, "run\nrecover\nFILES\n");
}

static void test_other_shells(void **state) {
        const char *zsh[] = { getenv("MAYHEM_BIN"), "completion", "zsh", NULL };
        struct cmd_result r = run_command(NULL, zsh);
        assert_int_equal(r.exit, 0);
        assert_int_equal(strncmp(r.out, "#compdef mayhem\n", 16), 0);
        cmd_result_done(&r);
        const char *fish[] = { getenv("MAYHEM_BIN"), "completion", "fish", NULL };
        r = run_command(NULL, fish);
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "complete -c mayhem -f -a '(_mayhem_complete)'"));
        cmd_result_done(&r);
        const char *bad[] = { getenv("MAYHEM_BIN"), "completion", "tcsh", NULL };
        r = run_command(NULL, bad);
        assert_int_equal(r.exit, 2);
        assert_non_null(strstr(r.err, "completion takes bash, zsh or fish, not 'tcsh'"));
        cmd_result_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_command_words),
                cmocka_unit_test(test_run_options),
                cmocka_unit_test(test_option_value_is_a_file),
                cmocka_unit_test(test_fish),
                cmocka_unit_test(test_zsh),
                cmocka_unit_test(test_other_shells),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
