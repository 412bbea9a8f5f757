/* cost.c — what one token of context costs a model, pool by pool.
 *
 *   cc cost.c $(pkg-config --cflags --libs kvplan) -o cost && ./cost llama-3.1-8b 2
 *
 * MODEL is a catalogue name, a Hugging Face id, a config.json or a folder;
 * TP (default 1) divides the KV heads between ranks. */
#include <stdio.h>
#include <stdlib.h>

#include <kvplan/kvplan.h>

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "llama-3.1-8b";
    /* Built against one release, run against another: say so, refuse a major mismatch. */
    if (kvp_version_number() / 10000 != KVP_VERSION_MAJOR) {
        fprintf(stderr, "built against kvplan %s, loaded %s\n", KVP_VERSION_STRING, kvp_version());
        return 1;
    }
    kvp_error err;
    kvp_model *model = NULL;
    if (kvp_model_open(name, NULL, &model, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    kvp_cost_settings settings = kvp_cost_settings_default();
    settings.tp = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1;
    kvp_cost cost; /* a plain value: no heap memory */
    if (kvp_cost_compute(model, &settings, &cost, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", err.message);
        kvp_model_free(model);
        return 1;
    }
    printf("%s at tp %u (kvplan %s)\n", kvp_model_name(model), cost.tp, kvp_version());
    for (uint32_t i = 0; i < cost.pool_count; i++)
        printf("  pool %-10s %3u layers  %llu bytes/token\n", kvp_cache_kind_name(cost.pools[i].kind),
               cost.pools[i].layers, (unsigned long long)cost.pools[i].bytes_per_token);
    printf("total: %llu bytes per token, %llu bytes per sequence, per rank\n",
           (unsigned long long)cost.bytes_per_token, (unsigned long long)cost.bytes_per_sequence);
    kvp_model_free(model); /* NULL is a no-op */
    return 0;
}
