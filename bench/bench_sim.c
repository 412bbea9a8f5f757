/* bench_sim.c — simulated requests per second.
 *
 *   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel --target bench_sim
 *   ./build-rel/bench/bench_sim [SPEC [TOKENS_PER_BLOCK]]
 *
 * Default: a million requests, prompt lognormal mean 1000, output lognormal
 * mean 200, 30% sharing a 512-token prefix, over the pool a Llama-3.1-8B
 * plan gives on an 80 GB GPU (128 KiB per token, 60 GiB of KV cache:
 * 491,520 tokens, in blocks of 32 tokens by default (kvplan's and
 * TensorRT-LLM's default; 16 is vLLM's), batch 256, 8192 tokens per step.
 * Target: under 10 s on one core. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kvplan/sim.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: the honest single-core figure on a shared machine. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    uint32_t tpb = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 32;
    if (tpb == 0 || tpb > 4096) tpb = 32;
    const char *spec = argc > 1 ? argv[1]
                                : "requests=1000000,prompt=lognormal:1000:0.8,"
                                  "output=lognormal:200:0.5,shared_prefix=512:0.3,seed=7";
    kvp_synthetic_spec s;
    kvp_error err;
    if (kvp_synthetic_parse(spec, &s, &err) != KVP_OK) {
        fprintf(stderr, "bench_sim: %s\n", err.message);
        return 2;
    }
    double t0 = now();
    kvp_workload *w = NULL;
    if (kvp_workload_synthetic(&s, NULL, &w, &err) != KVP_OK) {
        fprintf(stderr, "bench_sim: %s\n", err.message);
        return 1;
    }
    double gen = now() - t0;
    for (int reuse = 1; reuse >= 0; reuse--) {
        kvp_sim_config c;
        memset(&c, 0, sizeof c);
        c.pool.pool_count = 1;
        c.pool.pools[0] = (kvp_pool_spec){.kind = KVP_CACHE_FULL, .tokens_per_block = tpb,
                                          .page_bytes = (uint64_t)tpb * 131072,
                                          .blocks = 491520u / tpb};
        c.pool.prefix_reuse = reuse != 0;
        c.max_batch_size = 256;
        c.max_num_tokens = 8192;
        c.max_model_len = 131072;
        kvp_sim_result r;
        double c0 = cpu_now();
        kvp_status st = kvp_sim_run(&c, w, NULL, &r, &err);
        double cpu = cpu_now() - c0;
        if (st != KVP_OK) {
            fprintf(stderr, "bench_sim: %s\n", err.message);
            return 1;
        }
        printf("sim (%u tokens/block, prefix reuse %s): %llu requests, %llu steps in %.2f s wall, %.2f s CPU: "
               "%.0f requests/s, %.0f steps/s (CPU); peak running %u, mean %.1f, preemptions "
               "%llu, hit rate %.1f%%, %llu tokens computed\n",
               tpb, reuse ? "on" : "off", (unsigned long long)r.requests,
               (unsigned long long)r.steps, r.elapsed_seconds, cpu, (double)r.requests / cpu,
               (double)r.steps / cpu, r.peak_running,
               r.mean_running, (unsigned long long)r.preemptions, 100.0 * r.prefix_hit_rate,
               (unsigned long long)r.computed_tokens);
    }
    printf("workload generation: %.2f s\n", gen);
    kvp_workload_free(w);
    return 0;
}
