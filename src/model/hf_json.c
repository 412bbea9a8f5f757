/* hf_json.c — typed getters over jansson values that name the key on every error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hf_json.h"
#include "json_error.h"


const char *kvp__hf_ptr(const hf_obj *o, const char *key, char *buf, size_t size) {
    snprintf(buf, size, "%s/%s", o->pointer, key);
    return buf;
}

bool kvp__hf_has(const hf_obj *o, const char *key) {
    if (!o->json) return false;
    json_t *v = json_object_get(o->json, key);
    return v && !json_is_null(v);
}

kvp_status kvp__hf_fail(hf_reader *r, const hf_obj *o, const char *key, kvp_status code,
                        const char *fmt, ...) {
    char ptr[256];
    kvp__hf_ptr(o, key, ptr, sizeof ptr);
    va_list ap;
    va_start(ap, fmt);
    kvp_status s = kvp__vfail(r->err, code, r->file, ptr, fmt, ap);
    va_end(ap);
    return s;
}

static kvp_status literal_fail(hf_reader *r, const hf_obj *o, const char *key, const json_t *v) {
    char ptr[256];
    return kvp__config_literal_fail(r->err, r->file, kvp__hf_ptr(o, key, ptr, sizeof ptr), v);
}

kvp_status kvp__hf_uint(hf_reader *r, const hf_obj *o, const char *key, uint64_t min,
                        uint64_t max, uint64_t *out, bool *found) {
    json_t *v = o->json ? json_object_get(o->json, key) : NULL;
    if (!v || json_is_null(v)) {
        if (found) {
            *found = false;
            return KVP_OK;
        }
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "missing, expected an integer");
    }
    if (kvp__json_is_python_literal(v)) return literal_fail(r, o, key, v);
    uint64_t u;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0)
            return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected a non-negative integer, found %lld",
                                (long long)i);
        u = (uint64_t)i;
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!isfinite(d) || d != floor(d))
            return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected an integer, found %g", d);
        if (d < 0)
            return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected a non-negative integer, found %g",
                                d);
        if (d >= 18446744073709551616.0)
            return kvp__hf_fail(r, o, key, KVP_OVERFLOW, "%g does not fit in 64 bits", d);
        u = (uint64_t)d;
    } else {
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected an integer, found %s",
                            kvp__json_type_name(v));
    }
    if (u < min || u > max)
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected an integer in [%llu, %llu], found %llu",
                            (unsigned long long)min, (unsigned long long)max,
                            (unsigned long long)u);
    *out = u;
    if (found) *found = true;
    return KVP_OK;
}

kvp_status kvp__hf_u32(hf_reader *r, const hf_obj *o, const char *key, uint32_t min, uint32_t max,
                       uint32_t *out, bool *found) {
    uint64_t v = 0; /* set on KVP_OK; initialised for -Wmaybe-uninitialized once inlined */
    bool f = false;
    kvp_status s = kvp__hf_uint(r, o, key, min, max, &v, found ? &f : NULL);
    if (s) return s;
    if (found) {
        *found = f;
        if (!f) return KVP_OK;
    }
    *out = (uint32_t)v;
    return KVP_OK;
}

kvp_status kvp__hf_bool(hf_reader *r, const hf_obj *o, const char *key, bool *out, bool *found) {
    json_t *v = o->json ? json_object_get(o->json, key) : NULL;
    if (found) *found = false;
    if (!v || json_is_null(v)) return KVP_OK;
    if (kvp__json_is_python_literal(v)) return literal_fail(r, o, key, v);
    if (!json_is_boolean(v))
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected true or false, found %s",
                            kvp__json_type_name(v));
    *out = json_is_true(v);
    if (found) *found = true;
    return KVP_OK;
}

kvp_status kvp__hf_str(hf_reader *r, const hf_obj *o, const char *key, const char **out) {
    json_t *v = o->json ? json_object_get(o->json, key) : NULL;
    *out = NULL;
    if (!v || json_is_null(v)) return KVP_OK;
    if (!json_is_string(v))
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected a string, found %s",
                            kvp__json_type_name(v));
    *out = json_string_value(v);
    return KVP_OK;
}

kvp_status kvp__hf_child(hf_reader *r, const hf_obj *o, const char *key, hf_obj *out) {
    json_t *v = o->json ? json_object_get(o->json, key) : NULL;
    out->json = NULL;
    kvp__hf_ptr(o, key, out->pointer, sizeof out->pointer);
    if (!v || json_is_null(v)) return KVP_OK;
    if (!json_is_object(v))
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected an object, found %s",
                            kvp__json_type_name(v));
    out->json = v;
    return KVP_OK;
}

kvp_status kvp__hf_array(hf_reader *r, const hf_obj *o, const char *key, json_t **out) {
    json_t *v = o->json ? json_object_get(o->json, key) : NULL;
    *out = NULL;
    if (!v || json_is_null(v)) return KVP_OK;
    if (!json_is_array(v))
        return kvp__hf_fail(r, o, key, KVP_CONFIG, "expected an array, found %s",
                            kvp__json_type_name(v));
    *out = v;
    return KVP_OK;
}
