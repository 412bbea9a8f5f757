/* http.c — the HTTP side of `kvplan serve` on libmicrohttpd: a fixed thread
 * pool (epoll), a connection limit, an idle timeout per connection, bodies
 * capped at 1 MiB, the Host header checked against the listening address
 * (a DNS-rebinding page cannot reach the API), a Content-Security-Policy on
 * every answer and no cross-origin access. Answers come from api.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve.h"
#include "util.h"

#define KVP__MAX_HOSTS 16

struct kvp__server {
    struct MHD_Daemon *daemon;
    uint16_t port;
    /* "NAME:PORT" values a Host header may carry, and "http://NAME:PORT"
     * values an Origin header may carry. */
    char hosts[KVP__MAX_HOSTS][300];
    char origins[KVP__MAX_HOSTS][310];
    size_t host_count;
};

/* The page's and the API's resources come from this origin only; nothing
 * may frame the page. */
static const char k_csp[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

kvp_status kvp__serve_host_is_loopback(const char *host, bool *loopback, kvp_error *err) {
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1) {
        *loopback = (ntohl(a4.s_addr) >> 24) == 127;
        return KVP_OK;
    }
    if (inet_pton(AF_INET6, host, &a6) == 1) {
        *loopback = IN6_IS_ADDR_LOOPBACK(&a6);
        return KVP_OK;
    }
    return kvp__fail(err, KVP_INVALID_ARG, NULL, "--host",
                     "--host: expected a numeric IPv4 or IPv6 address (127.0.0.1, ::1, 0.0.0.0), "
                     "found '%.200s'",
                     host);
}

/* Per-request state: the body read so far. */
typedef struct conn_state {
    char *body;
    size_t len, cap;
    bool too_big;
} conn_state;

static enum MHD_Result send_reply(struct MHD_Connection *c, const kvp__serve_reply *r) {
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        r->len, r->body, r->owned ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
    if (!resp) return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", r->content_type);
    MHD_add_response_header(resp, "Content-Security-Policy", k_csp);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
    if (r->allow) MHD_add_response_header(resp, "Allow", r->allow);
    enum MHD_Result ok = MHD_queue_response(c, r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *key,
                                  const char *message) {
    kvp__serve_reply r;
    kvp__serve_error(status, key, message, &r);
    enum MHD_Result ok = send_reply(c, &r);
    kvp__serve_reply_free(&r);
    return ok;
}

/* Is `v` one of the n strings at base, base + stride, ... (any case)? */
static bool allowed(const char *base, size_t n, size_t stride, const char *v) {
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(base + i * stride, v) == 0) return true;
    return false;
}

/* The first query argument an endpoint does not take (the API takes only
 * q, on /api/v1/models). */
typedef struct arg_scan {
    const char *bad;
    bool models;
} arg_scan;

static enum MHD_Result scan_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value) {
    (void)kind;
    (void)value;
    arg_scan *s = cls;
    if (s->bad) return MHD_NO;
    if (!(s->models && !strcmp(key, "q"))) s->bad = key;
    return s->bad ? MHD_NO : MHD_YES;
}

/* The checks that need only the headers: the Host (and Origin) header, the
 * announced body size. Returns true when an answer was queued. */
static bool refuse_early(kvp__server *s, struct MHD_Connection *c, enum MHD_Result *ret) {
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    char msg[400];
    if (!host || !allowed(s->hosts[0], s->host_count, sizeof s->hosts[0], host)) {
        snprintf(msg, sizeof msg,
                 "Host '%.200s' is not this server's address (%s): refused (DNS rebinding); "
                 "kvplan serve --allow-host NAME accepts another name",
                 host ? host : "(none)", s->hosts[0]);
        *ret = send_error(c, 400, "Host", msg);
        return true;
    }
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (origin && strcmp(origin, "null") != 0 &&
        !allowed(s->origins[0], s->host_count, sizeof s->origins[0], origin)) {
        snprintf(msg, sizeof msg, "Origin '%.200s' is not this server: no cross-origin access",
                 origin);
        *ret = send_error(c, 400, "Origin", msg);
        return true;
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > KVP_SERVE_MAX_BODY) {
        snprintf(msg, sizeof msg, "the request body (%.30s bytes) is over the limit of %zu bytes",
                 cl, KVP_SERVE_MAX_BODY);
        *ret = send_error(c, 413, NULL, msg);
        return true;
    }
    return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    kvp__server *s = cls;
    conn_state *st = *con_cls;
    if (!st) {
        enum MHD_Result ret;
        if (refuse_early(s, c, &ret)) return ret;
        st = calloc(1, sizeof *st);
        if (!st) return MHD_NO;
        *con_cls = st;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (st->too_big || n > KVP_SERVE_MAX_BODY - st->len) {
            st->too_big = true; /* read on and drop, then answer 413 */
            return MHD_YES;
        }
        if (st->len + n + 1 > st->cap) {
            size_t cap = st->cap ? st->cap : 4096;
            while (cap < st->len + n + 1) cap *= 2;
            char *b = realloc(st->body, cap);
            if (!b) return MHD_NO;
            st->body = b;
            st->cap = cap;
        }
        memcpy(st->body + st->len, upload_data, n);
        st->len += n;
        return MHD_YES;
    }
    if (st->too_big) {
        char msg[120];
        snprintf(msg, sizeof msg, "the request body is over the limit of %zu bytes",
                 KVP_SERVE_MAX_BODY);
        return send_error(c, 413, NULL, msg);
    }
    arg_scan scan = {NULL, strcmp(url, "/api/v1/models") == 0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, scan_arg, &scan);
    kvp__serve_request req = {
        .method = method,
        .path = url,
        .q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "q"),
        .bad_arg = scan.bad,
        .body = st->body ? st->body : "",
        .len = st->len,
    };
    if (st->body) st->body[st->len] = '\0';
    kvp__serve_reply r;
    kvp__serve_answer(&req, &r);
    enum MHD_Result ok = send_reply(c, &r);
    kvp__serve_reply_free(&r);
    return ok;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)c;
    (void)toe;
    conn_state *st = *con_cls;
    if (!st) return;
    free(st->body);
    free(st);
    *con_cls = NULL;
}

static void add_host(kvp__server *s, const char *name, bool v6, uint16_t port) {
    if (s->host_count >= KVP__MAX_HOSTS) return;
    char h[300];
    snprintf(h, sizeof h, v6 ? "[%.260s]:%u" : "%.260s:%u", name, port);
    kvp__strlcpy(s->hosts[s->host_count], h, sizeof s->hosts[0]);
    snprintf(s->origins[s->host_count], sizeof s->origins[0], "http://%s", h);
    s->host_count++;
}

kvp_status kvp__serve_start(const kvp__serve_config *cfg, kvp__server **out, kvp_error *err) {
    *out = NULL;
    bool loopback;
    kvp_status st = kvp__serve_host_is_loopback(cfg->host, &loopback, err);
    if (st) return st;
    if (cfg->allow_host_count > KVP__MAX_HOSTS - 3)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "--allow-host",
                         "--allow-host: at most %d names", KVP__MAX_HOSTS - 3);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    bool v6 = strchr(cfg->host, ':') != NULL;
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(cfg->port);
        if (inet_pton(AF_INET6, cfg->host, &a->sin6_addr) != 1)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "--host", "--host: bad address");
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(cfg->port);
        if (inet_pton(AF_INET, cfg->host, &a->sin_addr) != 1)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, "--host", "--host: bad address");
    }
    /* The socket is bound here, before the threads start, so that the port
     * (chosen by the kernel under --port 0) and the Host names built from it
     * are set before any request can read them. */
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    socklen_t len = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return kvp__fail(err, KVP_IO, NULL, "--port", "cannot listen on %.200s port %u: %s",
                         cfg->host, cfg->port, strerror(e));
    }
    kvp__server *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return kvp__fail(err, KVP_NOMEM, NULL, NULL, "out of memory");
    }
    s->port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                       : ((struct sockaddr_in *)&ss)->sin_port);
    add_host(s, cfg->host, v6, s->port);
    if (loopback) {
        add_host(s, "localhost", false, s->port);
        if (strcmp(cfg->host, "127.0.0.1") != 0) add_host(s, "127.0.0.1", false, s->port);
    }
    for (size_t i = 0; i < cfg->allow_host_count; i++)
        add_host(s, cfg->allow_hosts[i], strchr(cfg->allow_hosts[i], ':') != NULL, s->port);
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0);
    s->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)cfg->threads, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned int)cfg->max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned int)cfg->timeout_s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_END);
    if (!s->daemon) {
        unsigned port = s->port;
        close(fd);
        free(s);
        return kvp__fail(err, KVP_IO, NULL, "--port", "cannot start the server on %.200s port %u",
                         cfg->host, port);
    }
    *out = s;
    return KVP_OK;
}

uint16_t kvp__serve_port(const kvp__server *s) { return s->port; }

void kvp__serve_stop(kvp__server *s) {
    if (!s) return;
    MHD_stop_daemon(s->daemon);
    free(s);
}
