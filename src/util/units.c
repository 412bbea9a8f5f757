/* units.c — byte sizes and counts as people type them ("80GiB", "128k", "1.5e9"). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/units.h"
#include "util.h"

typedef struct unit_suffix {
    const char *name;
    uint64_t mult;
} unit_suffix;

/* Binary for IEC names ("GiB"), their Kubernetes spelling ("Gi") and bare
 * letters ("G", what nvidia-smi and most GPU tools mean); decimal only for
 * the SI names ("GB" = 10^9, as disk and cloud vendors write it). Case is
 * ignored. README "Units" and kvplan(1) document this table. */
static const unit_suffix k_byte_units[] = {
    {"", 1},
    {"b", 1},
    {"k", 1ull << 10},
    {"kib", 1ull << 10},
    {"ki", 1ull << 10},
    {"kb", 1000ull},
    {"m", 1ull << 20},
    {"mib", 1ull << 20},
    {"mi", 1ull << 20},
    {"mb", 1000000ull},
    {"g", 1ull << 30},
    {"gib", 1ull << 30},
    {"gi", 1ull << 30},
    {"gb", 1000000000ull},
    {"t", 1ull << 40},
    {"tib", 1ull << 40},
    {"ti", 1ull << 40},
    {"tb", 1000000000000ull},
};

static const unit_suffix k_count_units[] = {
    {"", 1}, {"k", 1ull << 10}, {"m", 1ull << 20}, {"g", 1ull << 30},
};

static bool lookup_suffix(const unit_suffix *tab, size_t n, const char *s, uint64_t *mult) {
    for (size_t i = 0; i < n; i++) {
        if (kvp__strcasecmp(tab[i].name, s) == 0) {
            *mult = tab[i].mult;
            return true;
        }
    }
    return false;
}

/* Split "  1.5 GiB " into the number text and the lower-cased suffix. */
static kvp_status split_number(const char *text, char *num, size_t num_sz, char *suf, size_t suf_sz,
                               kvp_error *err, const char *what) {
    if (!text) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "missing %s", what);
    while (isspace((unsigned char)*text)) text++;
    size_t n = 0;
    const char *p = text;
    while (*p && (isdigit((unsigned char)*p) || *p == '.' || *p == '+' || *p == '-' ||
                  ((*p == 'e' || *p == 'E') && p != text && isdigit((unsigned char)p[1])) ||
                  ((*p == 'e' || *p == 'E') && p != text && (p[1] == '+' || p[1] == '-')))) {
        if (n + 1 >= num_sz)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' is too long", what, text);
        num[n++] = *p++;
    }
    num[n] = '\0';
    while (isspace((unsigned char)*p)) p++;
    size_t m = 0;
    while (*p && !isspace((unsigned char)*p)) {
        if (m + 1 >= suf_sz)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' has an unknown unit", what,
                             text);
        suf[m++] = (char)tolower((unsigned char)*p++);
    }
    suf[m] = '\0';
    while (isspace((unsigned char)*p)) p++;
    if (*p || n == 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' is not a number", what, text);
    return KVP_OK;
}

static kvp_status scale(const char *text, const char *num, uint64_t mult, uint64_t *out,
                        kvp_error *err, const char *what) {
    if (num[0] == '-')
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' is negative", what, text);
    bool integral = strpbrk(num, ".eE") == NULL;
    if (integral) {
        errno = 0;
        char *end;
        unsigned long long v = strtoull(num, &end, 10);
        if (*end)
            return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' is not a number", what,
                             text);
        if (errno == ERANGE || !kvp__mul_u64(v, mult, out))
            return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "%s '%s' does not fit in 64 bits",
                             what, text);
        return KVP_OK;
    }
    char *end;
    errno = 0;
    double v = strtod(num, &end);
    if (*end || isnan(v))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' is not a number", what, text);
    long double scaled = (long double)v * (long double)mult;
    if (isinf(v) || errno == ERANGE || scaled >= 18446744073709551616.0L)
        return kvp__fail(err, KVP_OVERFLOW, NULL, NULL, "%s '%s' does not fit in 64 bits", what,
                         text);
    if (scaled < 0)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "%s '%s' is negative", what, text);
    *out = (uint64_t)scaled;
    return KVP_OK;
}

kvp_status kvp_parse_bytes(const char *text, uint64_t *out, kvp_error *err) {
    char num[64], suf[16];
    kvp_status s = split_number(text, num, sizeof num, suf, sizeof suf, err, "byte size");
    if (s) return s;
    uint64_t mult;
    if (!lookup_suffix(k_byte_units, sizeof k_byte_units / sizeof k_byte_units[0], suf, &mult))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "byte size '%s' has unknown unit '%s' (expected B, KiB, MiB, GiB, TiB, "
                         "Ki, Mi, Gi, Ti, K, M, G, T, KB, MB, GB, TB)",
                         text, suf);
    return scale(text, num, mult, out, err, "byte size");
}

kvp_status kvp_parse_count(const char *text, uint64_t *out, kvp_error *err) {
    char num[64], suf[16];
    kvp_status s = split_number(text, num, sizeof num, suf, sizeof suf, err, "count");
    if (s) return s;
    uint64_t mult;
    if (!lookup_suffix(k_count_units, sizeof k_count_units / sizeof k_count_units[0], suf, &mult))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "count '%s' has unknown suffix '%s' (expected k, M or G)", text, suf);
    if (strpbrk(num, ".eE"))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "count '%s' must be a whole number",
                         text);
    return scale(text, num, mult, out, err, "count");
}

kvp_status kvp_parse_fraction(const char *text, double *out, kvp_error *err) {
    if (!text) return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "missing fraction");
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    while (isspace((unsigned char)*end)) end++;
    if (end == text || *end || isnan(v) || errno == ERANGE)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL, "fraction '%s' is not a number", text);
    if (!(v > 0.0 && v <= 1.0))
        return kvp__fail(err, KVP_INVALID_ARG, NULL, NULL,
                         "fraction '%s' is outside (0, 1]", text);
    *out = v;
    return KVP_OK;
}

const char *kvp__fmt_count(uint64_t n, char *buf, size_t size) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n);
    size_t len = strlen(tmp), o = 0;
    for (size_t i = 0; i < len && o + 2 < size; i++) {
        if (i && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    if (size) buf[o] = '\0';
    return buf;
}

const char *kvp__fmt_bytes(uint64_t bytes, char *buf, size_t size) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, size, "%.2f %s", v, units[u]);
    return buf;
}
