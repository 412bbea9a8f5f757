/* options.c — settings read the way `kvplan plan` reads them: (name, value)
 * pairs through the one option table, each engine's own spellings included,
 * then the settled deployment read back through the accessors (kvp_options is
 * opaque). The usage example of kvplan/options.h, compiled and run by the tests.
 *
 *   cc options.c $(pkg-config --cflags --libs kvplan) -o options && ./options
 */
#include <stdio.h>

#include <kvplan/kvplan.h>
#include <kvplan/options.h>

int main(void) {
    kvp_error err;
    kvp_options *o = kvp_options_new(KVP_COMMAND_PLAN);
    if (!o) return 1;
    if (kvp_options_set(o, "--max-model-len", "8192", &err) != KVP_OK || /* vLLM's spelling */
        kvp_options_set(o, "gpu-mem", "80GiB", &err) != KVP_OK ||
        kvp_options_set(o, "--tp", "2", &err) != KVP_OK ||
        kvp_options_set(o, "--gpu", "H100", &err) != KVP_OK ||
        kvp_options_finish(o, &err) != KVP_OK) {
        /* --gpu with --gpu-mem is a contradiction: finish refuses it, naming both */
        printf("refused: %s\n", err.message);
    }
    kvp_options_free(o);

    o = kvp_options_new(KVP_COMMAND_PLAN);
    if (!o) return 1;
    if (kvp_options_set(o, "--max-model-len", "8192", &err) != KVP_OK ||
        kvp_options_set(o, "gpu-mem", "80GiB", &err) != KVP_OK ||
        kvp_options_set(o, "--tp", "2", &err) != KVP_OK ||
        kvp_options_finish(o, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", err.message);
        kvp_options_free(o);
        return 1;
    }
    /* Borrowed: valid while `o` lives. */
    const kvp_deployment *d = kvp_options_deployment(o);
    const kvp_notes *notes = kvp_options_notes(o);
    printf("engine %s, tp %u, max_seq_len %llu, device %llu bytes, --max-model-len %s\n",
           kvp_engine_name(d->point.engine), d->point.tp,
           (unsigned long long)d->point.max_seq_len, (unsigned long long)d->memory.total_bytes,
           kvp_options_typed(o, "--max-seq-len"));
    printf("gpu %s, gpus %u, start-up engine %s\n", kvp_options_gpu(o) ? kvp_options_gpu(o) : "-",
           kvp_options_gpus(o), kvp_engine_name(kvp_options_startup(o)->policy.engine));
    for (uint32_t i = 0; i < notes->count; i++) printf("note: %s\n", notes->text[i]);
    printf("warnings: %u\n", kvp_options_warnings(o)->count);
    kvp_options_free(o); /* d and notes dangle now */
    return 0;
}
