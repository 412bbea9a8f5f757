/* cmd_sim.c — `kvplan sim MODEL --workload FILE|--synthetic SPEC`: replay a
 * workload through continuous batching over the pool a KV budget buys, and
 * set the concurrency a plan promises beside what the mix achieves. */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render_internal.h" /* kvp__json_document: the envelope */
#include "cli.h"
#include "cli_options.h"
#include "progress.h"
#include "startup_cli.h"
#include "kvplan/deploy.h"
#include "kvplan/report.h"
#include "kvplan/sim.h"
#include "util.h"

static void usage(FILE *out) {
    fputs("usage: kvplan sim MODEL (--gpu NAME | --gpu-mem BYTES | --kv-budget BYTES |\n"
          "                         --blocks N) (--workload FILE | --synthetic SPEC) [options]\n"
          "  MODEL                  config.json, a folder holding one, or a catalogue name\n"
          "the pool, as `kvplan plan` sizes it (TensorRT-LLM's creator) from:\n"
          "  --gpu NAME             a GPU from the catalogue (memory terms estimated)\n"
          "  --gpu-mem BYTES        device memory (\"80GiB\")\n"
          "  --kv-budget BYTES      the KV budget directly (after the fraction)\n"
          "  --free-gpu-memory-fraction F   (default 0.9)\n"
          "  --cross-kv-cache-fraction F    encoder-decoder models: the cross pool's share\n"
          "or, bypassing the plan:\n"
          "  --blocks N             N blocks in every block pool (recurrent pools get\n"
          "                         --recurrent-slots state slots)\n"
          "the workload:\n"
          "  --workload FILE        JSON lines: {\"arrival\": 0, \"prompt_len\": 1000,\n"
          "                         \"output_len\": 200, \"prefix_id\": \"sys\", \"prefix_len\": 512}\n"
          "  --synthetic SPEC       requests=N,prompt=DIST,output=DIST[,shared_prefix=LEN:FRAC]\n"
          "                         [,prefixes=K][,rate=R][,seed=S]; DIST = fixed:N,\n"
          "                         uniform:A:B or lognormal:MEAN:SIGMA\n"
          "  --tp N, --pp N         parallelism of the costed rank (default 1)\n"
          "  --kv-dtype T           auto|fp32|fp16|bf16|fp8|int8|nvfp4 (default auto)\n"
          "  --block-size N         tokens per block (default 32; alias --tokens-per-block)\n"
          "  --max-model-len N      longest sequence (default: the model's max positions)\n"
          "  --max-batch-size N     running requests at most (default 256)\n"
          "  --max-num-tokens N     tokens per step (default 8192)\n"
          "  --recurrent-slots N    with --blocks: state slots per recurrent pool (default:\n"
          "                         batch size, twice that with prefix reuse for snapshots)\n"
          "  --no-chunked-prefill   schedule each prompt whole\n"
          "  --policy ENGINE        admission and preemption to replay: vllm (default;\n"
          "                         recompute the newest), sglang (decode reserve,\n"
          "                         retraction) or trtllm (reservation to completion)\n"
          "  --capacity-scheduler-policy P  trtllm: GUARANTEED_NO_EVICT (default) or\n"
          "                         MAX_UTILIZATION\n"
          "  --max-new-tokens N     each request's max_new_tokens (outputs cut there; default\n"
          "                         max_model_len - prompt, the OpenAI servers' default)\n"
          "  --no-prefix-reuse      no prefix caching\n"
          "  --arrival-unit U       steps|seconds: unit of \"arrival\" (default steps)\n"
          "  --step-time S          seconds per step for --arrival-unit seconds (default 0.02)\n"
          "  --no-timing            leave out wall-clock figures (reproducible output)\n"
          "  --quiet                no progress line on stderr (shown on a terminal after 1 s)\n"
          "  --json                 machine-readable output\n"
          "  --svg FILE             chart of utilization and running requests per step\n"
          "                         (written to a temporary file, then renamed)\n",
          out);
}

static json_t *juint(uint64_t v) { return json_integer((json_int_t)v); }

/* A bad-input line on stderr, and with --json the error object on stdout. */
static int fail_input(bool json, kvp_status code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_input(bool json, kvp_status code, const char *key, const char *fmt, ...) {
    kvp_error err;
    va_list ap;
    va_start(ap, fmt);
    kvp__vfail(&err, code, NULL, key, fmt, ap);
    va_end(ap);
    return kvp_cli_report_error(&err, json);
}

/* The progress line (progress.h): on a terminal, after a second, not with --quiet. */
static void on_progress(void *ctx, uint64_t done, uint64_t total) {
    kvp_cli_progress_update(ctx, done, total);
}

typedef struct options {
    const char *model, *workload, *synthetic, *gpu;
    uint64_t budget_bytes, blocks, max_model_len, recurrent_slots, gpu_mem;
    uint32_t max_batch, max_tokens;
    double fraction, cross_fraction;
    bool have_cross_fraction;
    bool have_budget, have_blocks, have_slots, have_gpu_mem, have_fraction;
    bool no_chunked, no_reuse, json, no_timing, quiet;
    kvp_cost_settings cost;
    kvp_workload_options wl;
    const char *svg; /* --svg FILE: utilization and running requests over steps */
    kvp_sim_policy policy;      /* --policy (+ --capacity-scheduler-policy) */
    uint64_t max_new_tokens;    /* --max-new-tokens; 0 = the servers' default */
} options;

/* --policy ENGINE and TensorRT-LLM's --capacity-scheduler-policy: the scheduler
 * replayed (vLLM's unless --policy says otherwise; an engine's spelling chooses
 * none here, since every spelling sim takes is one of its own flags). */
static int sim_policy(options *o, const kvp_options *t) {
    kvp_engine e = t->engine_given ? t->deployment.point.engine : KVP_ENGINE_VLLM;
    if (e == KVP_ENGINE_LLAMACPP)
        return kvp_cli_fail("%s: '%s' has no continuous-batching scheduler to replay; "
                            "expected vllm, sglang or trtllm",
                            kvp_options_typed(t, "--policy"), kvp_engine_name(e));
    kvp_capacity_policy cap = t->deployment.admission.policy;
    if (kvp_options_given(t, "--capacity-scheduler-policy") && e != KVP_ENGINE_TRTLLM)
        return kvp_cli_fail("%s is TensorRT-LLM's; give --policy trtllm (the replayed scheduler "
                            "is %s's)",
                            kvp_options_typed(t, "--capacity-scheduler-policy"), kvp_engine_name(e));
    o->policy = e == KVP_ENGINE_SGLANG                 ? KVP_SIM_SGLANG
                : e != KVP_ENGINE_TRTLLM               ? KVP_SIM_VLLM
                : cap == KVP_CAPACITY_MAX_UTILIZATION ? KVP_SIM_TRTLLM_MAX_UTILIZATION
                                                       : KVP_SIM_TRTLLM;
    return 0;
}

/* The simulator's own bounds, tighter than the table's (its token counts are
 * 32-bit, KVP_WORKLOAD_MAX_TOKENS per prompt or output): the table's message. */
static int too_big(const kvp_options *t, const char *name, uint64_t v, uint64_t max, bool json) {
    const char *typed = kvp_options_typed(t, name);
    char text[24];
    if (v == UINT64_MAX) snprintf(text, sizeof text, "-1"); /* vLLM's "the longest that fits" */
    else snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    /* kvp__vfail writes "<key>: " before the message. */
    return fail_input(json, KVP_INVALID_ARG, typed, "%s is out of range, expected 1 to %llu", text,
                      (unsigned long long)max);
}

/* The table's settings as the replay reads them. 0 to go on, else an exit status. */
static int from_table(options *o, const kvp_options *t) {
    const kvp_deployment *d = &t->deployment;
    const uint64_t max_len = 2ull * KVP_WORKLOAD_MAX_TOKENS;
    if (d->policy.auto_fit_max_model_len)
        return too_big(t, "--max-seq-len", UINT64_MAX, max_len, o->json);
    if (d->point.max_seq_len > max_len)
        return too_big(t, "--max-seq-len", d->point.max_seq_len, max_len, o->json);
    if (d->trtllm.max_batch_size > (1u << 20))
        return too_big(t, "--max-batch-size", d->trtllm.max_batch_size, 1u << 20, o->json);
    if (d->trtllm.max_num_tokens > (1u << 30))
        return too_big(t, "--max-num-tokens", d->trtllm.max_num_tokens, 1u << 30, o->json);
    if (d->admission.max_new_tokens > max_len)
        return too_big(t, "--max-new-tokens", d->admission.max_new_tokens, max_len, o->json);
    o->gpu = t->gpu;
    o->have_gpu_mem = kvp_options_given(t, "--gpu-mem");
    o->gpu_mem = d->memory.total_bytes;
    o->have_budget = kvp_options_given(t, "--kv-budget");
    o->budget_bytes = d->memory.kv_budget_bytes;
    o->have_blocks = t->sim.blocks > 0;
    o->blocks = t->sim.blocks;
    o->have_slots = t->sim.recurrent_slots > 0;
    o->recurrent_slots = t->sim.recurrent_slots;
    if (d->point.tp) o->cost.tp = d->point.tp;
    if (d->point.pp) o->cost.pp = d->point.pp;
    if (d->point.kv_dtype[0] &&
        !kvp_cli_dtype(kvp_options_typed(t, "--kv-dtype"), d->point.kv_dtype, &o->cost.kv_dtype))
        return KVP_EXIT_BAD_INPUT;
    if (d->kv.tokens_per_block) o->cost.tokens_per_block = d->kv.tokens_per_block;
    o->max_model_len = d->point.max_seq_len;
    o->max_batch = (uint32_t)d->trtllm.max_batch_size;
    o->max_tokens = (uint32_t)d->trtllm.max_num_tokens;
    o->max_new_tokens = d->admission.max_new_tokens;
    o->have_fraction = kvp_options_given(t, "--free-gpu-memory-fraction");
    o->fraction = d->kv.free_gpu_memory_fraction;
    o->have_cross_fraction = d->kv.has_cross_kv_cache_fraction;
    o->cross_fraction = d->kv.cross_kv_cache_fraction;
    /* Reuse and chunked prefill are on unless turned off (--no-prefix-reuse,
     * --no-chunked-prefill, or the positive flags with false). */
    o->no_reuse = kvp_options_given(t, "--enable-block-reuse") && !d->kv.enable_block_reuse;
    o->no_chunked = t->startup.enable_chunked_prefill == 0;
    return 0;
}

static int parse_args(int argc, char **argv, options *o, kvp_options *t) {
    /* This command's own flags (what is replayed and how it is shown); the
     * deployment's come through the option table. */
    static const char *const own[] = {"--workload", "--synthetic", "--arrival-unit", "--step-time",
                                      "--no-timing", "--quiet", "--json", "--help", "--svg", NULL};
    bool bad = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) o->json = true; /* the first error already as JSON */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            usage(stdout);
            return -1;
        } else if (kvp_cli_flag(a, "--json")) {
            o->json = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--svg", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->svg = v;
        } else if (kvp_cli_flag(a, "--quiet")) {
            o->quiet = true;
        } else if (kvp_cli_flag(a, "--no-timing")) {
            o->no_timing = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--workload", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->workload = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--synthetic", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            o->synthetic = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--arrival-unit", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            if (strcmp(v, "steps") == 0) o->wl.arrival_unit = KVP_ARRIVAL_STEPS;
            else if (strcmp(v, "seconds") == 0) o->wl.arrival_unit = KVP_ARRIVAL_SECONDS;
            else return kvp_cli_fail("--arrival-unit: expected steps or seconds, found '%s'", v);
        } else if (kvp_cli_opt(argc, argv, &i, "--step-time", &v, &bad)) {
            if (bad) return KVP_EXIT_BAD_INPUT;
            char *end;
            double st = strtod(v, &end);
            if (*end || !(st > 0 && st < 3600))
                return kvp_cli_fail("--step-time: expected seconds in (0, 3600), found '%s'", v);
            o->wl.step_seconds = st;
        } else {
            int rc = kvp_cli_table_option(t, argc, argv, &i, o->json);
            if (rc > 0) return rc;
            if (rc < 0) continue;
            if (a[0] == '-' && a[1] != '\0') return kvp_cli_table_unknown(a, KVP_COMMAND_SIM, own, NULL);
            if (o->model) return kvp_cli_fail("sim takes one MODEL, got a second: '%s'", a);
            o->model = a;
        }
    }
    int rc = from_table(o, t);
    if (rc) return rc;
    if (!o->model)
        return kvp_cli_fail("sim needs a MODEL (a config.json, a folder, or a name from "
                            "'kvplan models'); see 'kvplan sim --help'");
    if (!o->workload == !o->synthetic)
        return kvp_cli_fail("sim needs exactly one of --workload FILE and --synthetic SPEC");
    int frc = kvp_cli_one_file("--svg", o->svg, "the --workload file", o->workload);
    if (!frc) frc = kvp_cli_one_file("--svg", o->svg, "the MODEL file", o->model);
    if (frc) return frc;
    int sources = o->have_budget + o->have_blocks + (o->gpu != NULL) + o->have_gpu_mem;
    if (sources != 1)
        return kvp_cli_fail("sim needs exactly one of --gpu NAME, --gpu-mem BYTES, --kv-budget "
                            "BYTES and --blocks N");
    if (o->have_slots && !o->have_blocks)
        return kvp_cli_fail("--recurrent-slots goes with --blocks; a plan sizes its own slots");
    if (o->have_fraction && (o->have_blocks || o->have_budget))
        return kvp_cli_fail("--free-gpu-memory-fraction goes with --gpu or --gpu-mem");
    return sim_policy(o, t);
}

/* --blocks: the same block count in every block pool, `slots` state slots
 * in every recurrent pool (the uniform layout of vLLM's hybrid allocator). */
static int pool_uniform(const options *o, const kvp_cost *c, kvp_pool_config *pc, kvp_error *err) {
    uint32_t slots = o->have_slots ? (uint32_t)o->recurrent_slots
                                   : (o->no_reuse ? o->max_batch : 2 * o->max_batch);
    if (kvp_pool_config_from_cost(c, o->blocks, slots, o->max_batch, o->max_model_len,
                                  !o->no_reuse, pc, err) != KVP_OK)
        return kvp_cli_report_error(err, o->json);
    return 0;
}

/* --gpu / --gpu-mem / --kv-budget: the pools `kvplan plan` gives (the
 * TensorRT-LLM creator, include/kvplan/plan.h), for this deployment's
 * batch size, token budget and max_model_len. Memory terms not measured
 * are estimated from the config, as `kvplan plan` does. *promised gets the
 * plan's own count of max_model_len sequences. */
static int pool_from_plan(const options *o, const kvp_model *m, kvp_pool_config *pc,
                          uint64_t *promised, kvp_error *err) {
    kvp_deployment dep = kvp_deployment_default();
    dep.model = m;
    kvp_deploy_settings *d = &dep.trtllm;
    d->tp = o->cost.tp;
    d->pp = o->cost.pp;
    d->pp_rank = -1;
    d->kv_dtype = o->cost.kv_dtype;
    d->max_batch_size = o->max_batch;
    d->max_num_tokens = o->max_tokens;
    d->max_seq_len = o->max_model_len;
    d->enable_chunked_prefill = !o->no_chunked;
    d->max_cuda_graph_batch_size = 128; /* `kvplan plan`'s default, so both size the same pool */
    kvp_kv_config *kv = &dep.kv;
    kv->tokens_per_block = o->cost.tokens_per_block;
    kv->enable_block_reuse = !o->no_reuse;
    if (o->have_fraction) kv->free_gpu_memory_fraction = o->fraction;
    kv->has_cross_kv_cache_fraction = o->have_cross_fraction;
    kv->cross_kv_cache_fraction = o->cross_fraction;
    char dir[4096];
    if (o->have_budget) {
        dep.memory.kv_budget_bytes = o->budget_bytes;
    } else {
        dep.memory.total_bytes = o->gpu_mem;
        if (o->gpu) {
            kvp_gpu_info g;
            if (kvp_gpu_lookup_in(kvp_cli_gpu_catalog(), o->gpu, &g, err) != KVP_OK)
                return kvp_cli_report_error(err, o->json);
            /* Its memory, and its compute capability for the start-up rules the
             * pipeline runs: the one step every command takes (deploy.h). */
            kvp_deployment_settle(&dep, NULL, &g, false);
        }
        /* Exact weights from safetensors headers when MODEL is a checkpoint
         * folder (or a config.json inside one), as `kvplan plan` does. */
        dep.memory.model_dir = kvp_cli_model_dir(o->model, dir, sizeof dir);
    }
    int rc = 0;
    kvp_deploy_result *res = kvp_deploy_result_new();
    kvp_startup_report *rep = malloc(sizeof *rep); /* the rules of this plan */
    if (!res || !rep) {
        kvp_deploy_result_free(res);
        free(rep);
        return fail_input(o->json, KVP_NOMEM, NULL, "out of memory");
    }
    if (kvp_deploy_plan_report(&dep, res, rep, err) != KVP_OK) goto fail;
    if ((rc = kvp_cli_startup_result(&dep, res, rep, kvp_model_name(m), o->json,
                                     KVP_CLI_STARTUP_VERDICT)) != 0) goto done;
    if (res->status != KVP_OK) {
        err->code = res->status;
        kvp__strlcpy(err->message, res->message, sizeof err->message);
        kvp__strlcpy(err->key, kvp_cli_field_flag(res->key), sizeof err->key);
        goto fail;
    }
    const kvp_plan *planp = &res->plan;
    memset(pc, 0, sizeof *pc);
    /* Target pools, then the cross pools of an encoder-decoder model (the
     * draft's pools belong to speculative decoding, which sim does not model). */
    static const kvp_manager_role roles[] = {KVP_ROLE_TARGET, KVP_ROLE_CROSS};
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++) {
        const kvp_manager_plan *mp = &planp->managers[roles[r]];
        if (!mp->present) continue;
        for (uint32_t k = 0; k < mp->pool_count && pc->pool_count < KVP_MAX_POOLS; k++) {
            const kvp_plan_pool *pp = &mp->pools[k];
            if (pp->blocks == 0 || pp->blocks > KVP_POOL_MAX_BLOCKS) {
                char b1[32];
                rc = fail_input(o->json, KVP_INFEASIBLE, "budget",
                                "the plan gives pool %u (%s) %llu blocks of %s: %s", k,
                                kvp_cache_kind_name(pp->kind), (unsigned long long)pp->blocks,
                                kvp_cli_fmt_bytes(pp->page_bytes, b1, sizeof b1),
                                pp->blocks ? "more than a pool indexes"
                                           : "the budget does not buy one block");
                goto done;
            }
            kvp_pool_spec *sp = &pc->pools[pc->pool_count++];
            sp->kind = roles[r] == KVP_ROLE_CROSS ? KVP_CACHE_CROSS : pp->kind;
            sp->window_tokens = roles[r] == KVP_ROLE_CROSS ? mp->max_seq_len : pp->window_tokens;
            sp->tokens_per_block = pp->tokens_per_block;
            sp->page_bytes = pp->page_bytes;
            sp->blocks = (uint32_t)pp->blocks;
        }
    }
    if (pc->pool_count == 0) {
        rc = fail_input(o->json, KVP_INFEASIBLE, "budget", "the plan has no pools to simulate");
        goto done;
    }
    pc->max_sequences = o->max_batch;
    /* The length the engine runs with: the plan's, after its caps (TensorRT-LLM
     * caps max_seq_len at the model's length, T-LEN-1), not the one asked. */
    pc->max_seq_tokens = res->point.max_seq_len && res->point.max_seq_len < o->max_model_len
                             ? res->point.max_seq_len
                             : o->max_model_len;
    pc->prefix_reuse = !o->no_reuse;
    *promised = res->max_sequences;
    if (*promised == UINT64_MAX) *promised = o->max_batch; /* no pool limits: the slot cap */
    goto done;
fail:
    rc = kvp_cli_report_error(err, o->json);
done:
    kvp_deploy_result_free(res);
    free(rep);
    return rc;
}

/* What kept waiting requests out in most of the steps they waited. */
static const char *limit_name(const kvp_sim_result *r) {
    if (!r->waiting_steps) return "nothing";
    if (r->cap_bound_steps >= r->kv_bound_steps && r->cap_bound_steps >= r->budget_bound_steps)
        return "max_batch_size";
    return r->kv_bound_steps >= r->budget_bound_steps ? "kv_cache" : "max_num_tokens";
}

static const char *policy_text(kvp_sim_policy p) {
    switch (p) {
    case KVP_SIM_TRTLLM:
        return "trtllm GUARANTEED_NO_EVICT: a request waits until prompt + max_new_tokens fit "
               "beside the running requests' reservations; first come, first served";
    case KVP_SIM_TRTLLM_MAX_UTILIZATION:
        return "trtllm MAX_UTILIZATION: no reservation, the newest request paused (recomputed) "
               "when a step does not fit";
    case KVP_SIM_SGLANG:
        return "sglang: admitted while free tokens cover prompt + max_new_tokens and the running "
               "requests' decode reserve (new_token_ratio); retraction when decoding runs out";
    default:
        return "vllm: no reservation, the newest running request preempted by recomputation";
    }
}

static void print_json(const options *o, const kvp_model *m, const kvp_pool_config *pc,
                       const kvp_workload *w, const kvp_sim_result *r) {
    json_t *j = kvp__json_document();
    json_object_set_new(j, "model", json_string(kvp_model_name(m)));
    json_object_set_new(j, "workload", json_string(o->workload ? o->workload : o->synthetic));
    json_t *pools = json_array();
    for (uint32_t k = 0; k < pc->pool_count; k++) {
        const kvp_pool_spec *p = &pc->pools[k];
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(kvp_cache_kind_name(p->kind)));
        json_object_set_new(e, "blocks", juint(p->blocks));
        json_object_set_new(e, "tokens_per_block",
                            p->kind == KVP_CACHE_RECURRENT ? json_null() : juint(p->tokens_per_block));
        json_object_set_new(e, "window_tokens", p->window_tokens ? juint(p->window_tokens) : json_null());
        json_object_set_new(e, "page_bytes", juint(p->page_bytes));
        json_array_append_new(pools, e);
    }
    json_object_set_new(j, "pools", pools);
    json_object_set_new(j, "max_model_len", juint(o->max_model_len));
    json_object_set_new(j, "max_batch_size", juint(o->max_batch));
    json_object_set_new(j, "max_num_tokens", juint(o->max_tokens));
    json_object_set_new(j, "chunked_prefill", json_boolean(!o->no_chunked));
    json_object_set_new(j, "prefix_reuse", json_boolean(!o->no_reuse));
    json_object_set_new(j, "policy", json_string(kvp_sim_policy_name(o->policy)));
    json_object_set_new(j, "max_new_tokens", o->max_new_tokens ? juint(o->max_new_tokens) : json_null());
    json_object_set_new(j, "requests", juint(r->requests));
    json_object_set_new(j, "finished", juint(r->finished));
    json_object_set_new(j, "rejected_too_long", juint(r->rejected_too_long));
    json_object_set_new(j, "rejected_never_fit", juint(r->rejected_never_fit));
    json_object_set_new(j, "steps", juint(r->steps));
    json_object_set_new(j, "peak_running", juint(r->peak_running));
    json_object_set_new(j, "mean_running", json_real(r->mean_running));
    json_object_set_new(j, "promised_max_sequences", juint(r->promised_max_sequences));
    json_object_set_new(j, "preemptions", juint(r->preemptions));
    json_object_set_new(j, "waiting_steps", juint(r->waiting_steps));
    json_object_set_new(j, "cap_bound_steps", juint(r->cap_bound_steps));
    json_object_set_new(j, "budget_bound_steps", juint(r->budget_bound_steps));
    json_object_set_new(j, "kv_bound_steps", juint(r->kv_bound_steps));
    json_object_set_new(j, "limited_by", json_string(limit_name(r)));
    json_object_set_new(j, "prefix_hit_rate", json_real(r->prefix_hit_rate));
    json_object_set_new(j, "prefix_hit_tokens", juint(r->prefix_hit_tokens));
    json_object_set_new(j, "prefix_query_tokens", juint(r->prefix_query_tokens));
    json_object_set_new(j, "peak_blocks_used", juint(r->peak_blocks_used));
    json_object_set_new(j, "total_blocks", juint(r->total_blocks));
    json_object_set_new(j, "prompt_tokens", juint(r->prompt_tokens));
    json_object_set_new(j, "output_tokens", juint(r->output_tokens));
    json_object_set_new(j, "computed_tokens", juint(r->computed_tokens));
    json_t *u = json_array();
    for (uint32_t i = 0; i < r->samples; i++) json_array_append_new(u, json_real(r->utilization[i]));
    json_object_set_new(j, "utilization", u);
    json_object_set_new(j, "utilization_stride_steps", juint(r->sample_stride_steps));
    json_object_set_new(j, "elapsed_seconds", json_real(o->no_timing ? 0.0 : r->elapsed_seconds));
    json_object_set_new(j, "steps_per_second", json_real(o->no_timing ? 0.0 : r->steps_per_second));
    json_t *warn = json_array();
    for (size_t i = 0; i < kvp_workload_warning_count(w); i++)
        json_array_append_new(warn, json_string(kvp_workload_warning(w, i)));
    json_object_set_new(j, "warnings", warn);
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (s) {
        puts(s);
        free(s);
    }
    json_decref(j);
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_text(const options *o, const kvp_model *m, const kvp_pool_config *pc,
                       const kvp_sim_result *r) {
    char b1[32], b2[32], b3[32], b4[32];
    printf("model              %s\n", kvp_model_name(m));
    printf("workload           %s %s\n", o->workload ? "file" : "synthetic",
           o->workload ? o->workload : o->synthetic);
    for (uint32_t k = 0; k < pc->pool_count; k++) {
        const kvp_pool_spec *p = &pc->pools[k];
        printf("pool %-14u%s", k, kvp_cache_kind_name(p->kind));
        if (p->window_tokens) printf(" (window %s)", kvp_cli_fmt_count(p->window_tokens, b1, sizeof b1));
        if (p->kind == KVP_CACHE_RECURRENT)
            printf(", %s state slots of %s\n", kvp_cli_fmt_count(p->blocks, b2, sizeof b2),
                   kvp_cli_fmt_bytes(p->page_bytes, b3, sizeof b3));
        else
            printf(", %s blocks x %u tokens, %s per block\n",
                   kvp_cli_fmt_count(p->blocks, b2, sizeof b2), p->tokens_per_block,
                   kvp_cli_fmt_bytes(p->page_bytes, b3, sizeof b3));
    }
    printf("scheduler          max batch %u, %s tokens/step, max_model_len %s, chunked prefill "
           "%s, prefix reuse %s\n",
           o->max_batch, kvp_cli_fmt_count(o->max_tokens, b1, sizeof b1),
           kvp_cli_fmt_count(o->max_model_len, b2, sizeof b2), o->no_chunked ? "off" : "on",
           o->no_reuse ? "off" : "on");
    printf("policy             %s\n", policy_text(o->policy));
    if (o->max_new_tokens)
        printf("max_new_tokens     %s per request\n", kvp_cli_fmt_count(o->max_new_tokens, b1, sizeof b1));
    else
        printf("max_new_tokens     max_model_len - prompt per request (the servers' default)\n");
    printf("\n");
    printf("requests           %s: %s finished, %s rejected as longer than max_model_len, %s "
           "that could never fit\n",
           kvp_cli_fmt_count(r->requests, b1, sizeof b1),
           kvp_cli_fmt_count(r->finished, b2, sizeof b2),
           kvp_cli_fmt_count(r->rejected_too_long, b3, sizeof b3),
           kvp_cli_fmt_count(r->rejected_never_fit, b4, sizeof b4));
    printf("steps              %s\n", kvp_cli_fmt_count(r->steps, b1, sizeof b1));
    printf("running            peak %u, mean %.2f\n", r->peak_running, r->mean_running);
    printf("max sequences      %s promised at max_model_len %s, %u reached by this mix\n",
           kvp_cli_fmt_count(r->promised_max_sequences, b1, sizeof b1),
           kvp_cli_fmt_count(o->max_model_len, b2, sizeof b2), r->peak_running);
    printf("preemptions        %s\n", kvp_cli_fmt_count(r->preemptions, b1, sizeof b1));
    if (r->waiting_steps)
        printf("limited by         %s: requests waited in %s steps, %s for the batch cap, %s for "
               "the token budget, %s for the KV cache\n",
               limit_name(r), kvp_cli_fmt_count(r->waiting_steps, b1, sizeof b1),
               kvp_cli_fmt_count(r->cap_bound_steps, b2, sizeof b2),
               kvp_cli_fmt_count(r->budget_bound_steps, b3, sizeof b3),
               kvp_cli_fmt_count(r->kv_bound_steps, b4, sizeof b4));
    else
        printf("limited by         nothing: no request waited\n");
    printf("prefix hit rate    %.1f%% (%s of %s prompt tokens)\n", 100.0 * r->prefix_hit_rate,
           kvp_cli_fmt_count(r->prefix_hit_tokens, b1, sizeof b1),
           kvp_cli_fmt_count(r->prefix_query_tokens, b2, sizeof b2));
    printf("peak blocks used   %s of %s (%.1f%%)\n", kvp_cli_fmt_count(r->peak_blocks_used, b1, sizeof b1),
           kvp_cli_fmt_count(r->total_blocks, b2, sizeof b2), pct(r->peak_blocks_used, r->total_blocks));
    /* At most 16 samples, evenly picked, as whole percents. */
    printf("utilization        ");
    uint32_t shown = r->samples < 16 ? r->samples : 16;
    for (uint32_t i = 0; i < shown; i++) {
        uint32_t idx = shown < r->samples ? (uint32_t)((uint64_t)i * r->samples / shown) : i;
        printf("%s%.0f%%", i ? " " : "", 100.0 * r->utilization[idx]);
    }
    uint64_t every = r->sample_stride_steps;
    if (shown < r->samples) every = every * r->samples / shown;
    printf(" (every %s step%s)\n", kvp_cli_fmt_count(every, b1, sizeof b1), every == 1 ? "" : "s");
    if (!o->no_timing)
        printf("elapsed            %.2f s, %s steps/s\n", r->elapsed_seconds,
               kvp_cli_fmt_count((uint64_t)r->steps_per_second, b1, sizeof b1));
}

int kvp_cmd_sim(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    options o;
    memset(&o, 0, sizeof o);
    o.cost = kvp_cost_settings_default();
    o.wl.step_seconds = 0.02;
    kvp_options *table = kvp_options_new(KVP_COMMAND_SIM);
    if (!table) return kvp_cli_fail("out of memory");
    int rc = parse_args(argc, argv, &o, table);
    kvp_options_free(table); /* nothing in `o` points into it */
    if (rc == -1) return KVP_EXIT_OK;
    if (rc) return rc;
    if (!o.max_batch) o.max_batch = 256;
    if (!o.max_tokens) o.max_tokens = 8192;

    kvp_error err;
    kvp_error_clear(&err);
    kvp_model *m = NULL;
    kvp_workload *w = NULL;
    int exit_code = KVP_EXIT_OK;
    if (kvp_model_open(o.model, NULL, &m, &err) != KVP_OK) return kvp_cli_report_error(&err, o.json);
    kvp_cost c;
    if (kvp_cost_require_affine(m, "the simulator", &err) != KVP_OK) {
        exit_code = kvp_cli_report_error(&err, o.json);
        goto out;
    }
    if (!o.max_model_len) {
        uint64_t mp = kvp_model_get_info(m)->max_position_embeddings;
        o.max_model_len = mp && mp <= 2ull * KVP_WORKLOAD_MAX_TOKENS ? mp : 8192;
    }
    kvp_pool_config pc;
    uint64_t promised = 0;
    /* The pool as `kvplan plan` sizes it first: the pipeline's start-up rules
     * refuse a deployment the engine would not start (exit 1, the rule named). */
    if (!o.have_blocks && (exit_code = pool_from_plan(&o, m, &pc, &promised, &err)) != 0)
        goto out;
    /* The replay runs at the plan's length (pc.max_seq_tokens: after the
     * engine's caps, T-LEN-1), and so do the servers' default max_new_tokens. */
    if (!o.have_blocks) o.max_model_len = pc.max_seq_tokens;
    if (o.max_new_tokens > o.max_model_len) {
        exit_code = kvp_cli_fail("--max-new-tokens %llu is above max_model_len %llu",
                                 (unsigned long long)o.max_new_tokens,
                                 (unsigned long long)o.max_model_len);
        goto out;
    }
    if (kvp_cost_compute(m, &o.cost, &c, &err) != KVP_OK) {
        exit_code = kvp_cli_report_error(&err, o.json);
        goto out;
    }
    if (o.have_blocks && (exit_code = pool_uniform(&o, &c, &pc, &err)) != 0) goto out;

    kvp_status st;
    if (o.workload) {
        st = kvp_workload_read(o.workload, &o.wl, NULL, &w, &err);
    } else {
        kvp_synthetic_spec spec;
        st = kvp_synthetic_parse(o.synthetic, &spec, &err);
        if (st == KVP_OK) st = kvp_workload_synthetic(&spec, NULL, &w, &err);
    }
    if (st != KVP_OK) {
        exit_code = kvp_cli_report_error(&err, o.json);
        goto out;
    }
    for (size_t i = 0; i < kvp_workload_warning_count(w); i++)
        kvp_cli_warn("%s", kvp_workload_warning(w, i));

    kvp_cli_progress prog;
    kvp_cli_progress_begin(&prog, "sim", "requests", o.quiet);
    kvp_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.pool = pc;
    sc.max_batch_size = o.max_batch;
    sc.max_num_tokens = o.max_tokens;
    sc.max_model_len = o.max_model_len;
    sc.no_chunked_prefill = o.no_chunked;
    sc.policy = o.policy;
    sc.max_new_tokens = o.max_new_tokens;
    sc.progress_fn = on_progress;
    sc.progress_ctx = &prog;
    kvp_sim_result r;
    st = kvp_sim_run(&sc, w, NULL, &r, &err);
    kvp_cli_progress_end(&prog);
    if (st != KVP_OK) {
        exit_code = kvp_cli_report_error(&err, o.json);
        goto out;
    }
    if (!o.have_blocks) r.promised_max_sequences = promised;
    if (o.json) print_json(&o, m, &pc, w, &r);
    else print_text(&o, m, &pc, &r);
    if (o.svg) {
        /* Block utilization and running requests over steps, one chart. */
        static double x[KVP_SIM_MAX_SAMPLES], util[KVP_SIM_MAX_SAMPLES], run[KVP_SIM_MAX_SAMPLES];
        for (uint32_t i = 0; i < r.samples; i++) {
            x[i] = (double)i * (double)r.sample_stride_steps;
            util[i] = 100.0 * r.utilization[i];
            run[i] = (double)r.running[i];
        }
        kvp_report_text t;
        memset(&t, 0, sizeof t);
        if (kvp_svg_sim_chart("kvplan sim", x, util, run, r.samples, &t, &err) != KVP_OK ||
            kvp_report_write_file(o.svg, t.data, t.len, &err) != KVP_OK)
            exit_code = kvp_cli_report_error(&err, false);
        kvp_report_text_free(&t);
    }
out:
    kvp_workload_free(w);
    kvp_model_free(m);
    return exit_code;
}
