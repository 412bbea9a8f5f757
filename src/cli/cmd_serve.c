/* cmd_serve.c — `kvplan serve`: the local web calculator and JSON API
 * (src/serve/, docs/serve.md). Parses the options, starts the server,
 * prints the URL on stdout and waits for SIGINT or SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "command_help.h"
#include "serve.h"

/* The help text is the options room's (command_help.c). */
#define k_usage (kvp__command_help("serve"))

#define KVP__MAX_ALLOW 8

int kvp_cmd_serve(int argc, char **argv) {
    kvp__serve_config cfg = {.host = "127.0.0.1", .port = 8080, .threads = 4,
                             .max_connections = 64, .timeout_s = 30};
    static char allow_buf[1024];
    const char *allow[KVP__MAX_ALLOW];
    size_t allow_n = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        bool bad = false;
        uint32_t u;
        if (kvp_cli_flag(argv[i], "--help") || kvp_cli_flag(argv[i], "-h")) {
            puts(k_usage);
            return KVP_EXIT_OK;
        } else if (kvp_cli_opt(argc, argv, &i, "--host", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            cfg.host = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--port", &v, &bad)) {
            if (bad || !kvp_cli_u32("--port", v, 0, 65535, &u)) return KVP_EXIT_BAD_INPUT;
            cfg.port = (uint16_t)u;
        } else if (kvp_cli_opt(argc, argv, &i, "--threads", &v, &bad)) {
            if (bad || !kvp_cli_u32("--threads", v, 1, 64, &u)) return KVP_EXIT_BAD_INPUT;
            cfg.threads = u;
        } else if (kvp_cli_opt(argc, argv, &i, "--max-connections", &v, &bad)) {
            if (bad || !kvp_cli_u32("--max-connections", v, 1, 4096, &u))
                return KVP_EXIT_BAD_INPUT;
            cfg.max_connections = u;
        } else if (kvp_cli_opt(argc, argv, &i, "--timeout", &v, &bad)) {
            if (bad || !kvp_cli_u32("--timeout", v, 1, 3600, &u)) return KVP_EXIT_BAD_INPUT;
            cfg.timeout_s = u;
        } else if (kvp_cli_opt(argc, argv, &i, "--allow-host", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            if (strlen(v) >= sizeof allow_buf)
                return kvp_cli_fail("--allow-host: the list is over %zu characters",
                                    sizeof allow_buf - 1);
            strcpy(allow_buf, v);
            for (char *save = NULL, *t = strtok_r(allow_buf, ",", &save); t;
                 t = strtok_r(NULL, ",", &save)) {
                if (allow_n == KVP__MAX_ALLOW)
                    return kvp_cli_fail("--allow-host: at most %d names", KVP__MAX_ALLOW);
                if (strcspn(t, " \t\r\n/@") != strlen(t))
                    return kvp_cli_fail("--allow-host: '%s' is not a host name", t);
                allow[allow_n++] = t;
            }
            if (!allow_n) return kvp_cli_fail("--allow-host: expected NAME[,NAME...]");
        } else {
            static const char *const known[] = {"--host", "--port", "--threads",
                                                "--max-connections", "--timeout",
                                                "--allow-host", "--help", NULL};
            return kvp_cli_unknown_option(argv[i], known);
        }
    }
    cfg.allow_hosts = allow;
    cfg.allow_host_count = allow_n;
    kvp_error err;
    bool loopback = false;
    if (kvp__serve_host_is_loopback(cfg.host, &loopback, &err) != KVP_OK)
        return kvp_cli_report_error(&err, false);
    if (!loopback)
        kvp_cli_warn("--host %s is not a loopback address: anyone who can reach this machine "
                     "can use the server",
                     cfg.host);
    /* The server's threads inherit this mask: the signals reach sigwait only. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGPIPE);
    if (pthread_sigmask(SIG_BLOCK, &stop, NULL) != 0)
        return kvp_cli_fail("cannot block SIGINT/SIGTERM");
    kvp__server *s = NULL;
    if (kvp__serve_start(&cfg, &s, &err) != KVP_OK) return kvp_cli_report_error(&err, false);
    bool v6 = strchr(cfg.host, ':') != NULL;
    printf(v6 ? "http://[%s]:%u/\n" : "http://%s:%u/\n", cfg.host, kvp__serve_port(s));
    fflush(stdout);
    sigdelset(&stop, SIGPIPE);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {
    }
    kvp__serve_stop(s);
    fprintf(stderr, "kvplan serve: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return KVP_EXIT_OK;
}
