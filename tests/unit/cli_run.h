/* cli_run.h — run one kvplan subcommand in-process and take its stdout (the
 * tests that link the CLI's objects: test_deploy_property, test_options_help).
 * Needs <fcntl.h>, <stdio.h>, <stdlib.h>, <unistd.h> and cmocka. */
#ifndef KVP_TEST_CLI_RUN_H
#define KVP_TEST_CLI_RUN_H

typedef int (*cmd_fn)(int, char **);

/* Run one subcommand in-process; its stdout is returned (heap, caller frees). */
static char *run(cmd_fn fn, char **argv, int argc, int *rc) {
    fflush(stdout);
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved_out = dup(1), saved_err = dup(2);
    int devnull = open("/dev/null", O_WRONLY);
    assert_true(saved_out >= 0 && saved_err >= 0 && devnull >= 0);
    dup2(fileno(tmp), 1);
    dup2(devnull, 2);
    *rc = fn(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    close(devnull);
    long n = ftell(tmp);
    assert_true(n >= 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(tmp);
    size_t got = fread(buf, 1, (size_t)n, tmp);
    buf[got] = '\0';
    fclose(tmp);
    return buf;
}

#endif
