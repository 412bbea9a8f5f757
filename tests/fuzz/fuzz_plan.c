/* fuzz_plan.c — libFuzzer harness for the planner (include/kvplan/plan.h) over
 * arbitrary option combinations: the input bytes choose a catalogue model (and
 * maybe a draft model), every kvp_deploy_settings and kvp_kv_config field, the
 * measured memory, and which lifecycle path runs (prepare the estimation pass,
 * configure from measured memory, from a budget or the helix path, build for
 * estimation or for real). Any combination must end in KVP_OK or a clean error;
 * a built plan must add up (each manager's bytes are its pools' bytes, the
 * plan's allocated bytes the managers'). Models are read once and shared
 * read-only across runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvplan/kvplan.h"
#include "kvplan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct bytes {
    const uint8_t *p;
    size_t n;
} bytes;

static uint64_t take(bytes *b, unsigned width) {
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++) {
        v = (v << 8) | (b->n ? *b->p : 0);
        if (b->n) {
            b->p++;
            b->n--;
        }
    }
    return v;
}
static bool flag(bytes *b) { return take(b, 1) & 1; }
static uint32_t small(bytes *b, uint32_t max) { return (uint32_t)(take(b, 1) % (max + 1)); }
/* Mostly realistic sizes, sometimes anything: the top bits of a selector pick. */
static uint64_t quantity(bytes *b, uint64_t typical) {
    switch (take(b, 1) & 3) {
    case 0: return 0;
    case 1: return typical;
    case 2: return take(b, 2) * (typical / 1024 + 1);
    default: return take(b, 8);
    }
}

#define MAX_MODELS 256
static kvp_model *g_models[MAX_MODELS];
static size_t g_count;

static void load_models(void) {
    if (g_count) return;
    size_t n = kvp_catalog_count();
    for (size_t i = 0; i < n && g_count < MAX_MODELS; i++) {
        kvp_error err;
        kvp_model *m = NULL;
        if (kvp_model_from_catalog(kvp_catalog_name(i), NULL, &m, &err) == KVP_OK)
            g_models[g_count++] = m;
    }
}

static void check_plan(const kvp_plan *plan) {
    uint64_t sum = 0;
    for (int r = 0; r < KVP_ROLE_COUNT; r++) {
        const kvp_manager_plan *mp = &plan->managers[r];
        if (!mp->present) continue;
        if (mp->pool_count > KVP_PLAN_MAX_POOLS) abort();
        uint64_t pools = 0;
        for (uint32_t k = 0; k < mp->pool_count; k++) pools += mp->pools[k].bytes;
        if (pools != mp->bytes) abort();
        sum += mp->bytes;
    }
    if (sum != plan->allocated_bytes) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load_models();
    if (!g_count) return 0;
    bytes b = {data, size};
    const uint64_t gib = 1ull << 30;
    const kvp_model *target = g_models[take(&b, 1) % g_count];
    const kvp_model *draft = flag(&b) ? g_models[take(&b, 1) % g_count] : NULL;

    kvp_deploy_settings d;
    memset(&d, 0, sizeof d);
    d.tp = small(&b, 64);
    d.pp = small(&b, 16);
    d.cp = small(&b, 4);
    d.pp_rank = (int32_t)small(&b, 20) - 1;
    d.attention_dp = flag(&b);
    d.helix_cp = flag(&b);
    d.max_batch_size = quantity(&b, 256);
    d.max_num_tokens = quantity(&b, 8192);
    d.max_seq_len = quantity(&b, 32768);
    d.max_input_len = quantity(&b, 1500);
    d.max_beam_width = small(&b, 8);
    d.max_cuda_graph_batch_size = quantity(&b, 128);
    d.kv_dtype = (kvp_dtype)small(&b, KVP_DTYPE_COUNT - 1);
    d.disable_overlap_scheduler = flag(&b);
    d.enable_chunked_prefill = flag(&b);
    d.chunk_size = quantity(&b, 2048);
    d.chunked_prefill_buffer_batch_size = quantity(&b, 4);
    static const char *const backends[] = {NULL, "TRTLLM", "VANILLA", "FLASHINFER", ""};
    d.attn_backend = backends[small(&b, 4)];
    d.sm_version = small(&b, 3) * 10 + 80;
    d.spec_mode = (kvp_spec_mode)small(&b, KVP_SPEC_MODE_COUNT - 1);
    d.max_draft_len = small(&b, 16);
    d.num_draft_layers = small(&b, 4);
    d.separate_draft_kv_cache = (int32_t)small(&b, 2) - 1;
    static const char *const sparse[] = {NULL, "skip_softmax", "rocket", "dsa", ""};
    d.sparse_algorithm = sparse[small(&b, 4)];
    d.is_disagg = flag(&b);
    static const char *const xb[] = {NULL, "NIXL", "UCX", "MPI", "DEFAULT"};
    d.transceiver_backend = xb[small(&b, 4)];
    d.transceiver_runtime = flag(&b) ? "python" : NULL;
    d.force_mixed_hybrid = flag(&b);
    d.mamba_preference = (kvp_mamba_preference)small(&b, 3);
    d.skip_estimation = flag(&b);
    d.has_kv_connector = flag(&b);
    d.attention_workspace_bytes_per_token = quantity(&b, 4096);
    d.workspace_not_chunked_prefill_bounded = flag(&b);
    d.hybrid_dummy_slots = small(&b, 4);

    kvp_kv_config kv;
    memset(&kv, 0, sizeof kv);
    kv.free_gpu_memory_fraction = (double)take(&b, 1) / 200.0; /* 0 .. 1.275: out of range too */
    kv.has_max_tokens = flag(&b);
    kv.max_tokens = quantity(&b, 100000);
    kv.max_gpu_total_bytes = quantity(&b, 40 * gib);
    kv.host_cache_size = quantity(&b, 8 * gib);
    kv.disk_cache_size = quantity(&b, 8 * gib);
    kv.tokens_per_block = small(&b, 255);
    kv.enable_block_reuse = flag(&b);
    kv.enable_kv_pool_rebalance = flag(&b);
    kv.use_v2 = (int32_t)small(&b, 2) - 1;
    uint64_t windows[4];
    kv.max_attention_window_count = small(&b, 4);
    for (size_t i = 0; i < kv.max_attention_window_count; i++) windows[i] = quantity(&b, 4096);
    kv.max_attention_window = kv.max_attention_window_count ? windows : NULL;
    double ratios[4];
    kv.pool_ratio_count = small(&b, 4);
    for (size_t i = 0; i < kv.pool_ratio_count; i++) ratios[i] = (double)take(&b, 1) / 100.0;
    kv.pool_ratio = kv.pool_ratio_count ? ratios : NULL;
    kv.has_cross_kv_cache_fraction = flag(&b);
    kv.cross_kv_cache_fraction = (double)take(&b, 1) / 200.0;
    kv.has_fp8_context_mla_kv_len_cap = flag(&b);
    kv.fp8_context_mla_kv_len_cap = quantity(&b, 65536);
    kv.mamba_additional_snapshots = flag(&b);

    kvp_error err;
    kvp_creator *c = NULL;
    if (kvp_creator_new(target, draft, &d, &kv, NULL, &c, &err) != KVP_OK) {
        if (c != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    kvp_estimation_plan est;
    kvp_capacity cap;
    kvp_plan plan;
    uint64_t free_bytes = quantity(&b, 70 * gib);
    unsigned path = small(&b, 3);
    kvp_status s = KVP_OK;
    if (flag(&b)) {
        s = kvp_creator_prepare_estimation(c, free_bytes, &est, &err);
        if (s == KVP_OK && est.estimating && kvp_creator_build(c, true, &plan, &err) == KVP_OK)
            check_plan(&plan);
    }
    if (s == KVP_OK) {
        if (path == 0) {
            s = kvp_creator_configure_budget(c, quantity(&b, 40 * gib), &cap, &err);
        } else if (path == 1) {
            s = kvp_creator_configure_helix(c, free_bytes, &cap, &err);
        } else {
            kvp_measured_memory mm;
            memset(&mm, 0, sizeof mm);
            mm.total_bytes = quantity(&b, 80 * gib);
            mm.profiled = flag(&b);
            mm.allocator_peak_bytes = quantity(&b, 30 * gib);
            mm.non_allocator_bytes = quantity(&b, gib);
            mm.allocated_during_estimation_bytes = quantity(&b, 4 * gib);
            mm.weights_bytes = quantity(&b, 16 * gib);
            mm.used_bytes = quantity(&b, 20 * gib);
            mm.mm_output_budget_bytes = quantity(&b, gib);
            mm.mm_profiled_output_bytes = quantity(&b, gib);
            mm.mm_encoder_cache_max_bytes = quantity(&b, gib);
            mm.mm_encoder_cache_active = flag(&b);
            s = kvp_creator_configure(c, &mm, &cap, &err);
        }
    }
    if (s == KVP_OK && kvp_creator_build(c, false, &plan, &err) == KVP_OK) {
        check_plan(&plan);
        uint64_t count;
        if (kvp_plan_max_sequences(&plan, quantity(&b, 8192), small(&b, 4), &count, &err) != KVP_OK &&
            err.message[0] == '\0')
            abort();
        (void)kvp_plan_longest_sequence(&plan, small(&b, 4));
    } else if (s != KVP_OK && err.message[0] == '\0') {
        abort();
    }
    kvp_creator_free(c);
    return 0;
}
