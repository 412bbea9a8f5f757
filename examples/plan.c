/* plan.c — plan one deployment: the KV cache TensorRT-LLM builds from a KV
 * budget, and how many sequences of a given length it holds.
 *
 *   cc plan.c $(pkg-config --cflags --libs kvplan) -o plan && ./plan llama-3.1-8b 40 32768
 *
 * Arguments: MODEL, the KV budget in GiB (default 40), max_seq_len (default 32768). */
#include <stdio.h>
#include <stdlib.h>

#include <kvplan/kvplan.h>

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "llama-3.1-8b";
    uint64_t budget_gib = argc > 2 ? strtoull(argv[2], NULL, 10) : 40;
    uint64_t max_seq_len = argc > 3 ? strtoull(argv[3], NULL, 10) : 32768;
    kvp_error err;
    kvp_model *model = NULL;
    if (kvp_model_open(name, NULL, &model, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    /* One deployment: the model, the engine, the memory (here a KV budget), the length. */
    kvp_deployment d = kvp_deployment_default();
    d.model = model;
    d.point.engine = KVP_ENGINE_TRTLLM;
    d.point.max_seq_len = max_seq_len;
    d.memory.kv_budget_bytes = budget_gib << 30;
    /* The result holds the whole plan: large, so on the heap. */
    kvp_deploy_result *e = kvp_deploy_result_new();
    if (!e || kvp_deploy_plan(&d, e, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", e ? err.message : "out of memory");
        kvp_deploy_result_free(e);
        kvp_model_free(model);
        return 1;
    }
    int rc = 0;
    if (e->status != KVP_OK) {
        fprintf(stderr, "%s: %s\n", kvp_status_name(e->status), e->message);
        rc = 1;
    } else {
        printf("%s, %s, KV budget %llu GiB, max_seq_len %llu\n", kvp_model_name(model),
               kvp_engine_name(e->point.engine), (unsigned long long)budget_gib,
               (unsigned long long)e->point.max_seq_len);
        printf("KV cache: %llu bytes, %llu tokens in %llu blocks of %u\n",
               (unsigned long long)e->kv_bytes, (unsigned long long)e->tokens,
               (unsigned long long)e->blocks, e->block_tokens);
        printf("max concurrent sequences: %llu (limited by %s)\n",
               (unsigned long long)e->max_sequences, e->binding);
        if (!e->starts) {
            printf("the engine would not start: %s\n", e->refusal);
            rc = 1;
        }
    }
    kvp_deploy_result_free(e);
    kvp_model_free(model);
    return rc;
}
