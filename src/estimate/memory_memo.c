/* memory_memo.c — the last estimate kept for the same inputs (estimate_memo.h). */
#include <string.h>

#include "estimate_memo.h"
#include "memory_internal.h"

void kvp__estimate_memo_clear(kvp__estimate_memo *memo) {
    if (memo) memo->valid = false;
}

/* The settings as the estimate reads them: every field by value, the strings
 * beside it, and max_seq_len replaced by the dummy request length it decides.
 * Compared bytewise: equal bytes are equal settings, so a hit is never wrong
 * (padding that differs would only cost a miss), and a field added to
 * kvp_estimate_settings is part of the key without a change here. False when
 * a string is too long to keep. */
static bool key_of(const kvp_estimate_settings *s, kvp_estimate_settings *key, char *dir,
                   char *quant) {
    const char *d = s->model_dir ? s->model_dir : "", *q = s->quantization ? s->quantization : "";
    size_t nd = strlen(d), nq = strlen(q);
    if (nd >= KVP__MEMO_TEXT_MAX || nq >= KVP__MEMO_TEXT_MAX) return false;
    memcpy(key, s, sizeof *key);
    key->model_dir = NULL;
    key->quantization = NULL;
    key->alc = NULL; /* where the scratch comes from changes no figure */
    key->max_seq_len = kvp__dummy_request_tokens(s, kvp__estimate_tokens(s));
    memcpy(dir, d, nd + 1);
    memcpy(quant, q, nq + 1);
    return true;
}

kvp_status kvp__memory_estimate_memo(kvp__estimate_memo *memo, const kvp_model *model,
                                     const kvp_estimate_settings *s, kvp_memory_facts *out,
                                     kvp_error *err) {
    if (!memo || !model || !s || !out) return kvp_memory_estimate(model, s, out, err);
    kvp_estimate_settings key;
    char dir[KVP__MEMO_TEXT_MAX], quant[KVP__MEMO_TEXT_MAX];
    if (!key_of(s, &key, dir, quant)) {
        memo->valid = false;
        return kvp_memory_estimate(model, s, out, err);
    }
    if (memo->valid && memo->model == model && !memcmp(&memo->key, &key, sizeof key) &&
        !strcmp(memo->model_dir, dir) && !strcmp(memo->quantization, quant)) {
        *out = memo->facts;
        return KVP_OK;
    }
    memo->valid = false;
    kvp_status st = kvp_memory_estimate(model, s, out, err);
    if (st != KVP_OK) return st;
    memo->model = model;
    memo->key = key;
    kvp__strlcpy(memo->model_dir, dir, sizeof memo->model_dir);
    kvp__strlcpy(memo->quantization, quant, sizeof memo->quantization);
    memo->facts = *out;
    memo->valid = true;
    return KVP_OK;
}
