/*
 * bench_json_call.c — issue 27 item 8: a plan through kvp_json_call (what
 * Python and `kvplan serve` use) against the same plan through the C API, in
 * one run, reported as a ratio (goal: within 5x).
 *
 *   C API:     the model opened once, the deployment settled once (the GPU
 *              looked up, the start-up settings), then kvp_deploy_plan per plan
 *              (a caller of the C API plans many points of one model).
 *   JSON call: kvp_json_call("plan", request) per plan: the request parsed, the
 *              option table applied, the model found (a repeated request reuses
 *              the parsed model: bind/request_model.c), the GPU looked up, the
 *              same kvp_deploy_plan, and the document rendered.
 *
 * Each side is timed as the median of R rounds of N plans (one core). Printed:
 * microseconds per plan each way and the ratio json / C, per engine.
 * Run: cmake --build build --target bench_json_call && ./build/bench/bench_json_call [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "kvplan/kvplan.h"
#include "kvplan/json.h"

#define ROUNDS 7

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n < 1) n = 1;
    static const struct {
        kvp_engine engine;
        const char *name;
    } engines[] = {{KVP_ENGINE_VLLM, "vllm"},
                   {KVP_ENGINE_SGLANG, "sglang"},
                   {KVP_ENGINE_TRTLLM, "trtllm"},
                   {KVP_ENGINE_LLAMACPP, "llamacpp"}};
    const char *model_name = "llama-3.1-8b";
    kvp_error err;
    kvp_model *m = NULL;
    if (kvp_model_open(model_name, NULL, &m, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    kvp_gpu_info gpu;
    if (kvp_gpu_lookup_in(NULL, "h100", &gpu, &err) != KVP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    kvp_deploy_result *r = kvp_deploy_result_new();
    if (!r) return 1;
    printf("plan %s on an H100, max_seq_len 8192, %d plans x %d rounds (median round)\n",
           model_name, n, ROUNDS);
    printf("%-9s %12s %14s %8s\n", "engine", "C API us", "json call us", "ratio");
    double worst = 0;
    unsigned long long checksum = 0;
    for (size_t k = 0; k < sizeof engines / sizeof *engines; k++) {
        kvp_deployment d = kvp_deployment_default();
        d.model = m;
        d.point.engine = engines[k].engine;
        d.point.max_seq_len = 8192;
        kvp_startup_settings ss = kvp_startup_settings_default();
        kvp_deployment_settle(&d, &ss, &gpu, false);
        char req[256];
        snprintf(req, sizeof req,
                 "{\"model\": \"%s\", \"gpu\": \"h100\", \"policy\": \"%s\", \"max_seq_len\": 8192}",
                 model_name, engines[k].name);
        double c_round[ROUNDS], j_round[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double t0 = now_s();
            for (int i = 0; i < n; i++) {
                if (kvp_deploy_plan(&d, r, &err) != KVP_OK || r->status != KVP_OK) {
                    fprintf(stderr, "%s: C plan: %s %s\n", engines[k].name, err.message, r->message);
                    return 1;
                }
                checksum += r->tokens;
            }
            double t1 = now_s();
            for (int i = 0; i < n; i++) {
                char *out = NULL;
                if (kvp_json_call("plan", req, &out, &err) != KVP_OK) {
                    fprintf(stderr, "%s: json call: %s\n", engines[k].name, err.message);
                    return 1;
                }
                checksum += strlen(out);
                kvp_json_free(out);
            }
            double t2 = now_s();
            c_round[round] = (t1 - t0) / n;
            j_round[round] = (t2 - t1) / n;
        }
        qsort(c_round, ROUNDS, sizeof *c_round, cmp_double);
        qsort(j_round, ROUNDS, sizeof *j_round, cmp_double);
        double c = c_round[ROUNDS / 2], j = j_round[ROUNDS / 2];
        double ratio = c > 0 ? j / c : 0;
        if (ratio > worst) worst = ratio;
        printf("%-9s %12.1f %14.1f %7.2fx\n", engines[k].name, c * 1e6, j * 1e6, ratio);
    }
    printf("worst ratio %.2fx (goal: within 5x); checksum %llu\n", worst, checksum);
    kvp_deploy_result_free(r);
    kvp_model_free(m);
    return 0;
}
