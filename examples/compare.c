/* compare.c — one model and KV budget under every engine's rules.
 *
 *   cc compare.c $(pkg-config --cflags --libs kvplan) -o compare && ./compare llama-3.1-8b
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
    kvp_fit_env env = {0};
    env.model = model;
    env.memory.kv_budget_bytes = budget_gib << 30;
    env.policy = kvp_policy_settings_default();
    kvp_fit_eval *e = malloc(sizeof *e);
    if (!e) {
        kvp_model_free(model);
        return 1;
    }
    printf("%-9s %8s %12s %10s  %s\n", "engine", "kv dtype", "KV tokens", "max seqs", "limited by");
    int rc = 0;
    for (int k = 0; k < KVP_ENGINE_COUNT; k++) {
        kvp_fit_point point = {0};
        point.engine = (kvp_engine)k;
        point.max_seq_len = max_seq_len;
        if (kvp_fit_evaluate(&env, &point, e, &err) != KVP_OK) {
            fprintf(stderr, "%s\n", err.message);
            rc = 1;
            break;
        }
        if (e->status != KVP_OK)
            printf("%-9s %s: %s\n", kvp_engine_name((kvp_engine)k), kvp_status_name(e->status),
                   e->message);
        else
            printf("%-9s %8s %12llu %10llu  %s\n", kvp_engine_name((kvp_engine)k), e->point.kv_dtype,
                   (unsigned long long)e->tokens, (unsigned long long)e->max_sequences, e->binding);
    }
    free(e);
    kvp_model_free(model);
    return rc;
}
