/* synthetic.c — --synthetic SPEC: a workload drawn from length
 * distributions with a seed. PRNG: xoshiro256** (Blackman & Vigna) seeded
 * through splitmix64, normal deviates by Box-Muller; written here, so the
 * same seed gives the same workload on every platform with IEEE doubles. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

typedef kvp__rng rng;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng *r) {
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in [0, 1) with 53 random bits. */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static double rng_normal(rng *r) {
    double u1 = rng_unit(r), u2 = rng_unit(r);
    if (u1 < 0x1.0p-60) u1 = 0x1.0p-60;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static uint32_t clamp_len(double x) {
    if (!(x >= 1.0)) return 1; /* also NaN */
    if (x >= (double)KVP_WORKLOAD_MAX_TOKENS) return KVP_WORKLOAD_MAX_TOKENS;
    return (uint32_t)llround(x);
}

static uint32_t draw(rng *r, const kvp_dist *d) {
    switch (d->kind) {
    case KVP_DIST_FIXED:
        return clamp_len(d->a);
    case KVP_DIST_UNIFORM: {
        uint64_t lo = clamp_len(d->a), hi = clamp_len(d->b);
        return (uint32_t)(lo + rng_next(r) % (hi - lo + 1));
    }
    case KVP_DIST_LOGNORMAL: {
        /* Mean of exp(N(mu, s^2)) is exp(mu + s^2/2): mu = ln(mean) - s^2/2. */
        double mu = log(d->a) - d->b * d->b / 2.0;
        return clamp_len(exp(mu + d->b * rng_normal(r)));
    }
    }
    return 1;
}

/* ------------------------------------------------------------------ spec parser */
/* A macro, so the format stays a literal the compiler checks. */
#define bad(e, key, fmt, value) kvp__fail(e, KVP_INVALID_ARG, NULL, key, fmt, value)

static bool parse_double(const char *s, double *out) {
    char *end;
    if (!*s) return false;
    double v = strtod(s, &end);
    if (*end || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* A decimal in [0, 2^64 - 1] (2^64 - 1 itself is a valid seed; past it,
 * strtoull's ERANGE). */
static bool parse_u64(const char *s, uint64_t *out) {
    char *end;
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) return false;
    *out = v;
    return true;
}

/* "fixed:N", "uniform:A:B", "lognormal:MEAN:SIGMA" (value is modified). */
static kvp_status parse_dist(char *value, const char *key, kvp_dist *out, kvp_error *err) {
    char copy[128];
    kvp__strlcpy(copy, value, sizeof copy);
    char *a = strchr(value, ':');
    if (!a) goto fail;
    *a++ = '\0';
    char *b = strchr(a, ':');
    if (b) *b++ = '\0';
    double x, y = 0;
    if (!parse_double(a, &x) || (b && !parse_double(b, &y))) goto fail;
    /* A fixed length and uniform bounds are token counts: 1.5 would be rounded. */
    if ((strcmp(value, "fixed") == 0 || strcmp(value, "uniform") == 0) &&
        (x != floor(x) || y != floor(y)))
        return bad(err, key, "'%s': lengths of fixed: and uniform: are whole token counts",
                   copy);
    if (strcmp(value, "fixed") == 0 && !b && x >= 1 && x <= KVP_WORKLOAD_MAX_TOKENS) {
        *out = (kvp_dist){KVP_DIST_FIXED, x, 0};
        return KVP_OK;
    }
    if (strcmp(value, "uniform") == 0 && b && x >= 1 && y >= x && y <= KVP_WORKLOAD_MAX_TOKENS) {
        *out = (kvp_dist){KVP_DIST_UNIFORM, x, y};
        return KVP_OK;
    }
    if (strcmp(value, "lognormal") == 0 && b && x >= 1 && x <= KVP_WORKLOAD_MAX_TOKENS && y >= 0 &&
        y <= 4) {
        *out = (kvp_dist){KVP_DIST_LOGNORMAL, x, y};
        return KVP_OK;
    }
fail:
    return kvp__fail(err, KVP_INVALID_ARG, NULL, key,
               "'%s' is not a length distribution: expected fixed:N (1 <= N <= %u), "
               "uniform:A:B (1 <= A <= B <= %u) or lognormal:MEAN:SIGMA (1 <= MEAN <= %u, "
               "0 <= SIGMA <= 4)",
               copy, KVP_WORKLOAD_MAX_TOKENS, KVP_WORKLOAD_MAX_TOKENS, KVP_WORKLOAD_MAX_TOKENS);
}

kvp_status kvp_synthetic_parse(const char *text, kvp_synthetic_spec *out, kvp_error *err) {
    if (!text || !out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "synthetic", "NULL argument");
    memset(out, 0, sizeof *out);
    out->requests = 1000;
    out->prefixes = 1;
    bool have_prompt = false, have_output = false;
    unsigned seen = 0;
    char buf[1024];
    if (strlen(text) >= sizeof buf)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "synthetic", "spec longer than %zu bytes",
                         sizeof buf - 1);
    kvp__strlcpy(buf, text, sizeof buf);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) return bad(err, "synthetic", "'%s' is not key=value", item);
        *eq = '\0';
        char *key = item, *val = eq + 1;
        kvp_status st = KVP_OK;
        /* A key given twice: which one was meant is a guess (the last would win). */
        static const char *const k_keys[] = {"requests", "prompt",   "output", "shared_prefix",
                                             "prefixes", "rate",     "seed"};
        for (unsigned k = 0; k < sizeof k_keys / sizeof k_keys[0]; k++)
            if (strcmp(key, k_keys[k]) == 0) {
                if (seen & (1u << k))
                    return bad(err, key, "'%s' is given twice in --synthetic", key);
                seen |= 1u << k;
            }
        if (strcmp(key, "requests") == 0) {
            if (!parse_u64(val, &out->requests) || out->requests == 0 ||
                out->requests > KVP_SYNTHETIC_MAX_REQUESTS)
                return kvp__fail(err, KVP_INVALID_ARG, NULL, "requests",
                                 "'%s': expected 1 to %llu requests (the limit of a "
                                 "simulation's time: they are drawn as it runs)",
                                 val, (unsigned long long)KVP_SYNTHETIC_MAX_REQUESTS);
        } else if (strcmp(key, "prompt") == 0) {
            st = parse_dist(val, "prompt", &out->prompt, err);
            have_prompt = true;
        } else if (strcmp(key, "output") == 0) {
            st = parse_dist(val, "output", &out->output, err);
            have_output = true;
        } else if (strcmp(key, "shared_prefix") == 0) {
            char copy[128];
            kvp__strlcpy(copy, val, sizeof copy);
            char *colon = strchr(val, ':');
            uint64_t len;
            double frac;
            if (!colon) return bad(err, "shared_prefix", "'%s': expected LEN:FRACTION", copy);
            *colon = '\0';
            if (!parse_u64(val, &len) || len == 0 || len >= KVP_WORKLOAD_MAX_TOKENS ||
                !parse_double(colon + 1, &frac) || frac < 0 || frac > 1)
                return bad(err, "shared_prefix",
                           "'%s': expected LEN:FRACTION with LEN >= 1 and FRACTION in [0, 1]",
                           copy);
            out->shared_prefix_tokens = (uint32_t)len;
            out->shared_fraction = frac;
        } else if (strcmp(key, "prefixes") == 0) {
            uint64_t n;
            if (!parse_u64(val, &n) || n == 0 || n > 1000000)
                return bad(err, "prefixes", "'%s': expected 1 to 1000000 distinct prefixes", val);
            out->prefixes = (uint32_t)n;
        } else if (strcmp(key, "rate") == 0) {
            if (!parse_double(val, &out->rate) || out->rate < 0)
                return bad(err, "rate", "'%s': expected arrivals per step >= 0 (0 = all at once)",
                           val);
        } else if (strcmp(key, "seed") == 0) {
            if (!parse_u64(val, &out->seed)) return bad(err, "seed", "'%s': expected an integer", val);
        } else {
            return bad(err, key,
                       "unknown key '%s' (expected requests, prompt, output, shared_prefix, "
                       "prefixes, rate, seed)",
                       key);
        }
        if (st) return st;
    }
    if (!have_prompt) return bad(err, "prompt", "%smissing: give prompt=DIST", "");
    if (!have_output) return bad(err, "output", "%smissing: give output=DIST", "");
    return KVP_OK;
}

void kvp__synthetic_start(kvp__cursor *c) {
    rng r;
    rng_seed(&r, c->w->spec.seed);
    memcpy(c->rng, r.s, sizeof c->rng);
}

/* Request c->next: arrival, prompt, output, then whether it shares a prefix (the
 * draws in this order, so a seed gives the workload it always gave). Prefixes are
 * used round robin and are ranges (index, length): nothing is stored per prefix. */
void kvp__synthetic_draw(kvp__cursor *c, kvp_request *q) {
    const kvp_synthetic_spec *spec = &c->w->spec;
    rng g;
    memcpy(g.s, c->rng, sizeof g.s);
    uint32_t prefixes = spec->prefixes ? spec->prefixes : 1;
    bool sharing = spec->shared_prefix_tokens > 0 && spec->shared_fraction > 0;
    memset(q, 0, sizeof *q);
    if (spec->rate > 0) {
        /* Poisson arrivals: exponential gaps of mean 1/rate steps. */
        c->t += -log(1.0 - rng_unit(&g)) / spec->rate;
        q->arrival_step = c->t < 1e15 ? (uint64_t)c->t : (uint64_t)1e15;
    }
    q->prompt_tokens = draw(&g, &spec->prompt);
    q->output_tokens = draw(&g, &spec->output);
    if (sharing && rng_unit(&g) < spec->shared_fraction) {
        uint32_t idx = (uint32_t)(c->shared++ % prefixes);
        uint32_t len = spec->shared_prefix_tokens;
        if (q->prompt_tokens <= len) q->prompt_tokens = len + 1;
        q->prefix_index = idx + 1;
        q->explicit_tokens = len;
    }
    memcpy(c->rng, g.s, sizeof c->rng);
}

kvp_status kvp_workload_synthetic(const kvp_synthetic_spec *spec, const kvp_allocator *alc,
                                  kvp_workload **out, kvp_error *err) {
    if (!spec || !out) return kvp__fail(err, KVP_INVALID_ARG, NULL, "synthetic", "NULL argument");
    *out = NULL;
    if (spec->requests == 0 || spec->requests > KVP_SYNTHETIC_MAX_REQUESTS)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "requests", "expected 1 to %llu requests",
                         (unsigned long long)KVP_SYNTHETIC_MAX_REQUESTS);
    kvp_workload *w = kvp__workload_new(alc);
    if (!w) return kvp__fail(err, KVP_NOMEM, NULL, "synthetic", "out of memory");
    w->synthetic = true;
    w->spec = *spec;
    if (!w->spec.prefixes) w->spec.prefixes = 1;
    *out = w;
    return KVP_OK;
}
