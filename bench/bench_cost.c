/*
 * bench_cost.c — configs read and costed per second over the embedded catalogue.
 * Run: cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
 *      --target bench_cost && ./build-rel/bench/bench_cost [seconds]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "embedded.h"
#include "kvplan/kvplan.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double budget = argc > 1 ? atof(argv[1]) : 2.0;
    size_t n = kvp_catalog_count();
    unsigned long long parsed = 0, costed = 0, checksum = 0;
    double t0 = now_s(), t = t0;
    while (t - t0 < budget) {
        for (size_t i = 0; i < n; i++) {
            kvp_model *m = NULL;
            kvp_error err;
            if (kvp_model_from_catalog(kvp_catalog_hf_id(i), NULL, &m, &err) != KVP_OK) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            parsed++;
            kvp_cost c;
            kvp_cost_settings s = kvp_cost_settings_default();
            s.tp = 2;
            if (kvp_cost_compute(m, &s, &c, &err) == KVP_OK) {
                costed++;
                checksum += c.bytes_per_token;
            }
            kvp_model_free(m);
        }
        t = now_s();
    }
    double el = t - t0;
    printf("configs read+costed: %llu in %.2f s = %.0f configs/s (%llu costed, checksum %llu)\n",
           parsed, el, (double)parsed / el, costed, checksum);
    return 0;
}
