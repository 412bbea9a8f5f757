/*
 * fault_alloc.h — allocation-failure injection for the tests/unit/test_faults_*.c
 * files, the SQLite way (STYLE.md "Failure paths are tested"): a kvp_allocator
 * that fails its Nth call, driven for N = 0, 1, 2, ... until the operation
 * succeeds. Every failing run must return KVP_NOMEM with a message, hand back
 * nothing, and leave no allocation live.
 *
 * jansson allocates through a process-global hook. With json_too the tests
 * route it into the same counter with json_set_alloc_funcs (tests only: the
 * library itself keeps no global state), so failures inside json_loadb are
 * injected too. jansson 2.14 does not survive that everywhere: at some points it
 * frees a wild pointer or crashes inside json_loadb (found by this harness;
 * jansson's bug, not kvplan's), so the CI tests inject into kvplan's own
 * allocator only, and json_too is for jansson versions that have fixed it.
 *
 * Header-only and static: each test file is its own executable.
 */
#ifndef KVP_TEST_FAULT_ALLOC_H
#define KVP_TEST_FAULT_ALLOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/kvplan.h"

typedef struct fault_alloc {
    long fail_at;  /* 0-based index of the call that fails; -1 = never */
    long calls;    /* malloc + realloc calls so far */
    long live;     /* allocations not yet freed */
    long injected; /* failures handed out */
    bool in_json;  /* the failure hit one of jansson's allocations */
} fault_alloc;

static inline void *fault_malloc(void *ctx, size_t size) {
    fault_alloc *f = ctx;
    if (f->calls++ == f->fail_at) {
        f->injected++;
        return NULL;
    }
    void *p = malloc(size);
    if (p) f->live++;
    return p;
}

static inline void *fault_realloc(void *ctx, void *ptr, size_t size) {
    fault_alloc *f = ctx;
    if (f->calls++ == f->fail_at) {
        f->injected++;
        return NULL; /* the old block stays live, as realloc leaves it */
    }
    void *p = realloc(ptr, size);
    if (p && !ptr) f->live++;
    return p;
}

static inline void fault_free(void *ctx, void *ptr) {
    fault_alloc *f = ctx;
    if (!ptr) return;
    f->live--;
    free(ptr);
}

/* The run in progress, for jansson's global hooks. */
static fault_alloc *g_fault_active;

static inline void *fault_json_malloc(size_t size) {
    if (!g_fault_active) return malloc(size);
    long before = g_fault_active->injected;
    void *p = fault_malloc(g_fault_active, size);
    if (g_fault_active->injected != before) g_fault_active->in_json = true;
    return p;
}
static inline void fault_json_free(void *ptr) {
    if (g_fault_active)
        fault_free(g_fault_active, ptr);
    else
        free(ptr);
}

/* An operation under test: builds its result with `alc`, checks it, frees it. */
typedef kvp_status (*fault_op)(const kvp_allocator *alc, const void *arg, kvp_error *err);

typedef struct fault_result {
    long points;   /* allocation calls of the successful run = injection points */
    long json_syntax; /* failures inside jansson reported as KVP_SYNTAX */
    long json_swallowed; /* failures inside jansson that jansson ignored */
    bool ok;
    char why[512]; /* first violation, when !ok */
} fault_result;

/* Run `op` with the Nth allocation failing for N = 0, 1, ... until it succeeds.
 * Every jansson object must be created and destroyed inside `op`. */
static inline fault_result fault_drive(fault_op op, const void *arg, long max_points,
                                       bool json_too) {
    fault_result r = {0, 0, 0, false, ""};
    if (json_too) json_set_alloc_funcs(fault_json_malloc, fault_json_free);
    for (long n = 0; n <= max_points; n++) {
        fault_alloc f = {n, 0, 0, 0, false};
        kvp_allocator alc = {fault_malloc, fault_realloc, fault_free, &f};
        kvp_error err;
        memset(&err, 0x5a, sizeof err); /* poisoned: the callee must fill it */
        g_fault_active = &f;
        kvp_status s = op(&alc, arg, &err);
        g_fault_active = NULL;
        if (f.live != 0) {
            snprintf(r.why, sizeof r.why, "fail_at=%ld: %ld allocation(s) leaked (status %s)", n,
                     f.live, kvp_status_name(s));
            goto done;
        }
        if (s == KVP_OK && f.injected && f.in_json) {
            /* jansson 2.14 ignores a failed growth of its token buffer (lex_save):
             * the parse goes on with a shortened token. Not kvplan's to see. */
            r.json_swallowed++;
            continue;
        }
        if (s == KVP_OK) {
            if (f.injected) {
                snprintf(r.why, sizeof r.why,
                         "fail_at=%ld: an allocation failed and the call still succeeded", n);
                goto done;
            }
            r.points = f.calls;
            r.ok = true;
            goto done;
        }
        if (!f.injected) {
            snprintf(r.why, sizeof r.why, "fail_at=%ld: failed without an injected failure: %s",
                     n, memchr(err.message, 0, sizeof err.message) ? err.message : "(poisoned)");
            goto done;
        }
        /* jansson turns some of its own allocation failures into a parse error
         * (a string it copies while lexing), or ignores them and hands back a
         * shortened token that a reader then refuses: kvplan cannot tell those
         * from bad input, so there any refusal with a message is accepted.
         * kvplan's own allocations and jansson's first buffer (json_error.c)
         * must give KVP_NOMEM. */
        bool json_syntax = f.in_json; /* any refusal: jansson may have cut a token */
        if (json_syntax) r.json_syntax++;
        if ((s != KVP_NOMEM && !json_syntax) || err.code != s ||
            !memchr(err.message, 0, sizeof err.message) || err.message[0] == '\0') {
            snprintf(r.why, sizeof r.why,
                     "fail_at=%ld: status %s (err.code %d), expected KVP_NOMEM with a message: "
                     "%.300s",
                     n, kvp_status_name(s), (int)err.code,
                     memchr(err.message, 0, sizeof err.message) ? err.message : "(poisoned)");
            goto done;
        }
    }
    snprintf(r.why, sizeof r.why, "still failing after %ld injection points", max_points);
done:
    if (json_too) json_set_alloc_funcs(malloc, free);
    return r;
}

/* Whole file into a malloc'd NUL-terminated buffer (test input, not under test). */
static inline char *fault_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

#endif
