/* serve.h — `kvplan serve`: the JSON API and the page over libmicrohttpd.
 * The room answers requests and never prints; src/cli/cmd_serve.c parses
 * the options, prints the URL and waits for SIGINT/SIGTERM. docs/serve.md. */
#ifndef KVP_SERVE_H
#define KVP_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvplan/error.h"

/* Request bodies above this are refused with 413 (issue 19: 1 MiB). */
#define KVP_SERVE_MAX_BODY ((size_t)1 << 20)

typedef struct kvp__serve_config {
    const char *host;            /* numeric address to listen on ("127.0.0.1", "::1", ...) */
    uint16_t port;               /* 0: a free port chosen by the kernel */
    unsigned threads;            /* size of the fixed thread pool, >= 1 */
    unsigned max_connections;    /* open connections at once, >= 1 */
    unsigned timeout_s;          /* a connection idle this long is closed, >= 1 */
    const char *const *allow_hosts; /* more names a Host header may carry (with the port) */
    size_t allow_host_count;
} kvp__serve_config;

typedef struct kvp__server kvp__server;

/* Is `host` a numeric loopback address (127.0.0.0/8, ::1)? KVP_INVALID_ARG
 * (key "--host") when it is not a numeric address at all: the server never
 * resolves names. */
kvp_status kvp__serve_host_is_loopback(const char *host, bool *loopback, kvp_error *err);

/* Start listening. *out: a running server freed by kvp__serve_stop. */
kvp_status kvp__serve_start(const kvp__serve_config *cfg, kvp__server **out, kvp_error *err);
/* The port the server listens on (the chosen one under port 0). */
uint16_t kvp__serve_port(const kvp__server *s);
/* Stop accepting, finish the threads, free. NULL is a no-op. */
void kvp__serve_stop(kvp__server *s);

/* One HTTP answer. */
typedef struct kvp__serve_reply {
    unsigned status;          /* HTTP status */
    const char *content_type; /* static */
    const char *allow;        /* the Allow header of a 405, else NULL (static) */
    char *body;               /* malloc'd when `owned`, else static */
    size_t len;
    bool owned;
} kvp__serve_reply;

/* A request taken apart by the HTTP layer: what the API answers from. */
typedef struct kvp__serve_request {
    const char *method;
    const char *path;         /* without the query string */
    const char *q;            /* GET /api/v1/models?q=, NULL when absent */
    const char *bad_arg;      /* a query argument the endpoint does not take, or NULL */
    const char *body;         /* NUL-terminated, len bytes before the NUL */
    size_t len;
} kvp__serve_request;

/* Answer `req` (no I/O; the page and the JSON API). `reply` is filled always;
 * free it with kvp__serve_reply_free. */
void kvp__serve_answer(const kvp__serve_request *req, kvp__serve_reply *reply);
/* A JSON error {"error": {"status", "key", "message"}} (key may be NULL). */
void kvp__serve_error(unsigned status, const char *key, const char *message,
                      kvp__serve_reply *reply);
void kvp__serve_reply_free(kvp__serve_reply *reply);

#endif
