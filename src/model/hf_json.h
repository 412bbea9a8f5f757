/*
 * hf_json.h — typed, bounded access to a Hugging Face config.json for the
 * readers in src/model/. Every getter reports a wrong type, a negative or
 * out-of-range value with the file name and the JSON pointer of the key.
 */
#ifndef KVP_HF_JSON_H
#define KVP_HF_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "model_internal.h"

/* One config object being read: its JSON and the pointer that reaches it. */
typedef struct hf_obj {
    json_t *json;      /* borrowed */
    char pointer[128]; /* "" for the root, "/text_config" for a nested one */
} hf_obj;

typedef struct hf_reader {
    const char *file;  /* name used in messages */
    hf_obj root;       /* outer config */
    hf_obj lm;         /* the language model's config (root or nested) */
    kvp_error *err;
} hf_reader;

/* Key present with a non-null value? */
bool kvp__hf_has(const hf_obj *o, const char *key);
/* JSON pointer of a key inside o, into buf. */
const char *kvp__hf_ptr(const hf_obj *o, const char *key, char *buf, size_t size);

/* Unsigned integer in [min, max]. Absent or null: *found = false, *out untouched
 * (found may be NULL: then absence is an error "missing"). Integral reals are
 * accepted; strings, booleans, fractions and negatives are errors. */
kvp_status kvp__hf_uint(hf_reader *r, const hf_obj *o, const char *key, uint64_t min,
                        uint64_t max, uint64_t *out, bool *found);
/* uint32 variant with the same rules. */
kvp_status kvp__hf_u32(hf_reader *r, const hf_obj *o, const char *key, uint32_t min, uint32_t max,
                       uint32_t *out, bool *found);
/* Boolean; absent/null leaves *out and sets *found=false. */
kvp_status kvp__hf_bool(hf_reader *r, const hf_obj *o, const char *key, bool *out, bool *found);
/* String (borrowed); absent/null -> NULL. Wrong type is an error. */
kvp_status kvp__hf_str(hf_reader *r, const hf_obj *o, const char *key, const char **out);
/* Object child; absent/null -> *out.json = NULL. Wrong type is an error. */
kvp_status kvp__hf_child(hf_reader *r, const hf_obj *o, const char *key, hf_obj *out);
/* Array (borrowed); absent/null -> NULL. */
kvp_status kvp__hf_array(hf_reader *r, const hf_obj *o, const char *key, json_t **out);

/* An error about key `key` of `o`. */
kvp_status kvp__hf_fail(hf_reader *r, const hf_obj *o, const char *key, kvp_status code,
                        const char *fmt, ...) KVP_PRINTF(5, 6);


#endif
