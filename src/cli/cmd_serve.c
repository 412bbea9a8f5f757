/* cmd_serve.c — `kvplan serve`: the local web calculator and JSON API
 * (src/serve/, docs/serve.md). Parses the options, starts the server,
 * prints the URL on stdout and waits for SIGINT or SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "command_help.h"
#include "serve.h"

#define KVP__MAX_ALLOW 8

/* --allow-host NAME[,NAME...]: the names, in place in `buf`. */
typedef struct {
    char buf[1024];
    const char *name[KVP__MAX_ALLOW];
    size_t n;
} allow_list;

static kvp_status allow_host(void *out, const char *v, kvp_error *err) {
    allow_list *l = out;
    kvp_error_clear(err);
    err->code = KVP_INVALID_ARG;
    if (strlen(v) >= sizeof l->buf) {
        snprintf(err->message, sizeof err->message, "--allow-host: the list is over %zu characters",
                 sizeof l->buf - 1);
        return err->code;
    }
    strcpy(l->buf, v);
    for (char *save = NULL, *t = strtok_r(l->buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (l->n == KVP__MAX_ALLOW) {
            snprintf(err->message, sizeof err->message, "--allow-host: at most %d names",
                     KVP__MAX_ALLOW);
            return err->code;
        }
        if (strcspn(t, " \t\r\n/@") != strlen(t)) {
            snprintf(err->message, sizeof err->message, "--allow-host: '%s' is not a host name", t);
            return err->code;
        }
        l->name[l->n++] = t;
    }
    if (l->n) return KVP_OK;
    snprintf(err->message, sizeof err->message, "--allow-host: expected NAME[,NAME...]");
    return err->code;
}

int kvp_cmd_serve(int argc, char **argv) {
    kvp__serve_config cfg = {.host = "127.0.0.1", .port = 8080, .threads = 4,
                             .max_connections = 64, .timeout_s = 30};
    static allow_list allow;
    uint32_t port = cfg.port;
    const kvp__argv_own own[] = {{"--host", KVP__OWN_TEXT, &cfg.host, 0, 0, NULL},
                                 {"--port", KVP__OWN_U32, &port, 0, 65535, NULL},
                                 {"--threads", KVP__OWN_U32, &cfg.threads, 1, 64, NULL},
                                 {"--max-connections", KVP__OWN_U32, &cfg.max_connections, 1, 4096,
                                  NULL},
                                 {"--timeout", KVP__OWN_U32, &cfg.timeout_s, 1, 3600, NULL},
                                 {"--allow-host", KVP__OWN_CALL, &allow, 0, 0, allow_host},
                                 {"--help", KVP__OWN_HELP, NULL, 0, 0, NULL},
                                 {NULL, 0, NULL, 0, 0, NULL}};
    const kvp_cli_argv c = {.argv = {.own = own}, .help = "serve", .help_puts = true};
    int rc = kvp_cli_read_argv(&c, NULL, argc, argv);
    if (rc >= 0) return rc;
    cfg.port = (uint16_t)port;
    cfg.allow_hosts = allow.name;
    cfg.allow_host_count = allow.n;
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
