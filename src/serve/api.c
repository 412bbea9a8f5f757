/* api.c — what `kvplan serve` answers: the page (GET /, /app.js, /app.css)
 * and API v1. Every POST goes through the library's one JSON entry point
 * (kvp_json_call, under the server's rule that a model string names the
 * catalogue only), so an answer is byte for byte `kvplan COMMAND --json`
 * without its final newline. No I/O here: http.c feeds requests in. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "json_call_opts.h"
#include "kvplan/json.h"
#include "kvplan/policy.h"
#include "kvplan/version.h"
#include "page.h"
#include "serve.h"

#define JSON_TYPE "application/json"
/* Laid out as every kvplan JSON document (render_internal.h: KVP__JSON_FLAGS). */
#define SERVE_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

static void set_static(kvp__serve_reply *r, unsigned status, const char *type, const char *body,
                       size_t len) {
    r->status = status;
    r->content_type = type;
    r->allow = NULL;
    r->body = (char *)body;
    r->len = len;
    r->owned = false;
}

static void set_owned(kvp__serve_reply *r, unsigned status, char *body) {
    set_static(r, status, JSON_TYPE, body, strlen(body));
    r->owned = true;
}

void kvp__serve_reply_free(kvp__serve_reply *r) {
    if (r && r->owned) free(r->body);
    if (r) {
        r->body = NULL;
        r->owned = false;
    }
}

/* Out of memory while writing an error: a fixed text, still JSON. */
static const char k_nomem[] =
    "{\"error\": {\"status\": 503, \"key\": null, \"message\": \"out of memory\"}}";

void kvp__serve_error(unsigned status, const char *key, const char *message,
                      kvp__serve_reply *r) {
    json_t *e = json_object(), *root = json_object();
    json_object_set_new(e, "status", json_integer(status));
    json_object_set_new(e, "key", key && *key ? json_string(key) : json_null());
    json_object_set_new(e, "message", json_string(message));
    json_object_set_new(root, "error", e);
    char *text = json_dumps(root, SERVE_JSON_FLAGS);
    json_decref(root);
    if (!text) {
        set_static(r, 503, JSON_TYPE, k_nomem, sizeof k_nomem - 1);
        return;
    }
    set_owned(r, status, text);
}

/* The HTTP status of a library refusal. The body was read, so a refusal is
 * the request's fault: 400 when it is not JSON, 422 when it is JSON the
 * library cannot answer (unknown or contradictory keys, absurd sizes, a
 * config that is not a model, a model not in the catalogue). Out of memory
 * is the server's state, 503; nothing maps to 500. */
static unsigned http_status_of(kvp_status st) {
    switch (st) {
    case KVP_SYNTAX: return 400;
    case KVP_NOMEM: return 503;
    default: return 422;
    }
}

static void library_error(const kvp_error *err, kvp__serve_reply *r) {
    char msg[KVP_ERROR_MESSAGE_MAX + 80];
    if (err->code == KVP_SYNTAX && err->line > 0)
        snprintf(msg, sizeof msg, "the request body is not JSON: %s", err->message);
    else
        snprintf(msg, sizeof msg, "%s", err->message);
    kvp__serve_error(http_status_of(err->code), err->key, msg, r);
}

static void call(const char *command, const char *request, kvp__serve_reply *r) {
    static const kvp__json_call_opts opts = {.catalog_only = true};
    kvp_error err;
    kvp_error_clear(&err);
    char *out = NULL;
    kvp_status st = kvp__json_call_with(command, request, &opts, &out, &err);
    if (st != KVP_OK) {
        library_error(&err, r);
        return;
    }
    set_owned(r, 200, out);
}

/* Is `command` one kvp_json_call answers in this build? */
static bool answered(const char *command) {
    const char *list = kvp_json_commands();
    size_t n = strlen(command);
    for (const char *p = list; (p = strstr(p, command)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

/* 200 with document `o` (consumed), laid out as every kvplan JSON. */
static void reply_json(json_t *o, kvp__serve_reply *r) {
    char *text = json_dumps(o, SERVE_JSON_FLAGS);
    json_decref(o);
    if (!text) {
        kvp__serve_error(503, NULL, "out of memory", r);
        return;
    }
    set_owned(r, 200, text);
}

static void health(kvp__serve_reply *r) {
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string("ok"));
    json_object_set_new(o, "kvplan_version", json_string(kvp_version()));
    json_object_set_new(o, "api", json_string("v1"));
    json_object_set_new(o, "commands", json_string(kvp_json_commands()));
    reply_json(o, r);
}

static void policies(kvp__serve_reply *r) {
    json_t *root = json_object(), *a = json_array();
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(kvp_engine_name((kvp_engine)e)));
        json_object_set_new(o, "default", json_boolean(e == KVP_ENGINE_TRTLLM));
        /* The record of docs/accuracy.md: "vLLM: N of M real start-up figures ..." */
        json_object_set_new(o, "accuracy", json_string(kvp__engine_accuracy_line((kvp_engine)e)));
        json_array_append_new(a, o);
    }
    json_object_set_new(root, "policies", a);
    reply_json(root, r);
}

static void models(const char *q, kvp__serve_reply *r) {
    json_t *req = json_object();
    if (q) json_object_set_new(req, "filter", json_string(q));
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!text) {
        kvp__serve_error(503, NULL, "out of memory", r);
        return;
    }
    call("models", text, r);
    free(text);
}

typedef enum { GET_ONLY, POST_ONLY } route_method;

typedef struct route {
    const char *path;
    route_method method;
    const char *command; /* POST: the kvp_json_call command */
} route;

static const route k_routes[] = {
    {"/", GET_ONLY, NULL},
    {"/app.js", GET_ONLY, NULL},
    {"/app.css", GET_ONLY, NULL},
    {"/api/v1/health", GET_ONLY, NULL},
    {"/api/v1/models", GET_ONLY, NULL},
    {"/api/v1/gpus", GET_ONLY, NULL},
    {"/api/v1/policies", GET_ONLY, NULL},
    {"/api/v1/cost", POST_ONLY, "cost"},
    {"/api/v1/plan", POST_ONLY, "plan"},
    {"/api/v1/compare", POST_ONLY, "compare"},
    {"/api/v1/fit", POST_ONLY, "fit"},
    {"/api/v1/sweep", POST_ONLY, "sweep"},
    {"/api/v1/why", POST_ONLY, "why"},
};

static void page_file(const char *name, const char *type, kvp__serve_reply *r) {
    const kvp__embedded_file *f = kvp__page_find(name);
    if (!f) {
        kvp__serve_error(404, NULL, "the page is not in this build", r);
        return;
    }
    set_static(r, 200, type, f->data, f->size);
}

static void get(const char *path, const kvp__serve_request *req, kvp__serve_reply *r) {
    if (!strcmp(path, "/"))
        page_file("index.html", "text/html; charset=utf-8", r);
    else if (!strcmp(path, "/app.js"))
        page_file("app.js", "text/javascript; charset=utf-8", r);
    else if (!strcmp(path, "/app.css"))
        page_file("app.css", "text/css; charset=utf-8", r);
    else if (!strcmp(path, "/api/v1/health"))
        health(r);
    else if (!strcmp(path, "/api/v1/models"))
        models(req->q, r);
    else if (!strcmp(path, "/api/v1/gpus"))
        call("gpus", NULL, r);
    else
        policies(r);
}

void kvp__serve_answer(const kvp__serve_request *req, kvp__serve_reply *r) {
    const route *hit = NULL;
    for (size_t i = 0; i < sizeof k_routes / sizeof k_routes[0]; i++)
        if (!strcmp(req->path, k_routes[i].path)) hit = &k_routes[i];
    char msg[300];
    if (!hit) {
        snprintf(msg, sizeof msg, "no endpoint %.200s (API v1: GET /api/v1/models, gpus, policies, "
                                  "health; POST /api/v1/cost, plan, compare, fit, sweep, why)",
                 req->path);
        kvp__serve_error(404, NULL, msg, r);
        return;
    }
    bool is_get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if ((hit->method == GET_ONLY && !is_get) ||
        (hit->method == POST_ONLY && strcmp(req->method, "POST") != 0)) {
        snprintf(msg, sizeof msg, "%.200s takes %s, not %.20s", req->path,
                 hit->method == GET_ONLY ? "GET" : "POST", req->method);
        kvp__serve_error(405, NULL, msg, r);
        r->allow = hit->method == GET_ONLY ? "GET, HEAD" : "POST";
        return;
    }
    if (req->bad_arg && strncmp(req->path, "/api/", 5) == 0) {
        snprintf(msg, sizeof msg, "%.200s takes no query argument '%.40s'%s", req->path,
                 req->bad_arg, !strcmp(req->path, "/api/v1/models") ? " (only q)" : "");
        kvp__serve_error(400, req->bad_arg, msg, r);
        return;
    }
    if (hit->method == GET_ONLY) {
        get(req->path, req, r);
        return;
    }
    if (memchr(req->body, '\0', req->len)) {
        kvp__serve_error(400, NULL, "the request body holds a NUL byte: not JSON text", r);
        return;
    }
    if (!answered(hit->command)) {
        snprintf(msg, sizeof msg, "%.200s is not answered by this build: the library's JSON entry "
                                  "point answers %s",
                 req->path, kvp_json_commands());
        kvp__serve_error(404, NULL, msg, r);
        return;
    }
    call(hit->command, req->body, r);
}

const kvp__embedded_file *kvp__page_find(const char *name) {
    return kvp__embedded_find_in(kvp__page_files, name);
}
