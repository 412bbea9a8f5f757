/* test_options_help.c — issue 16 item 6: the help texts, and so the man page
 * (cmake/manpage.cmake prints them) and the bash completion (it reads them;
 * tests/cli/man_completion.sh), match the one option table: every row a command
 * takes is named in that command's --help, with each engine spelling where the
 * help is generated from the table (fit, sweep, compare, check). TensorRT-LLM's
 * snake_case spellings are read as the dashed names and not listed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>

#include "cli/commands.h"
#include "kvplan/options.h"

#include "cli_run.h"

/* `name` stands in `help` as a whole option word (not a prefix of a longer one). */
static bool names(const char *help, const char *name) {
    size_t n = strlen(name);
    for (const char *p = strstr(help, name); p; p = strstr(p + 1, name)) {
        char after = p[n];
        bool word_end = !((after >= 'a' && after <= 'z') || (after >= '0' && after <= '9') ||
                          after == '-' || after == '_');
        bool word_start = p == help || p[-1] == ' ' || p[-1] == ',' || p[-1] == '/' ||
                          p[-1] == '[' || p[-1] == '(' || p[-1] == '|' || p[-1] == '\n';
        if (word_end && word_start) return true;
    }
    return false;
}

static void check_command(cmd_fn fn, const char *cmd, unsigned bit, bool spellings,
                          size_t min_rows) {
    char *argv[] = {(char *)cmd, "--help", NULL};
    int rc = -1;
    char *help = run(fn, argv, 2, &rc);
    assert_int_equal(rc, 0);
    size_t rows = 0;
    for (size_t i = 0; i < kvp_option_count(); i++) {
        const kvp_option *r = kvp_option_at(i);
        if (!(r->commands & bit)) continue;
        rows++;
        if (!names(help, r->name)) fail_msg("'%s --help' does not name %s", cmd, r->name);
        for (size_t k = 0; spellings && k < KVP_OPTION_SPELLINGS_MAX && r->spellings[k].name; k++)
            if (!strchr(r->spellings[k].name, '_') && !names(help, r->spellings[k].name))
                fail_msg("'%s --help' does not name %s (a spelling of %s)", cmd,
                         r->spellings[k].name, r->name);
    }
    assert_true(rows >= min_rows); /* the deployment settings (sim: its pool and scheduler) */
    free(help);
}

static void test_fit_sweep_compare(void **state) {
    (void)state;
    check_command(kvp_cmd_fit, "fit", KVP_COMMAND_FIT, true, 50);
    check_command(kvp_cmd_sweep, "sweep", KVP_COMMAND_SWEEP, true, 50);
    check_command(kvp_cmd_compare, "compare", KVP_COMMAND_COMPARE, true, 50);
}

static void test_check(void **state) {
    (void)state;
    check_command(kvp_cmd_check, "check", KVP_COMMAND_CHECK, true, 50);
}

static void test_plan(void **state) {
    (void)state;
    /* plan's and sim's help are generated from the table too (issue 27 item 6),
     * every engine spelling with them. */
    check_command(kvp_cmd_plan, "plan", KVP_COMMAND_PLAN, true, 50);
    check_command(kvp_cmd_sim, "sim", KVP_COMMAND_SIM, true, 19);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_sweep_compare),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
