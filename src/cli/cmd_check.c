/* cmd_check.c — `kvplan check MODEL --gpu G [--gpus N] (--policy P | --from CMD)`:
 * will the engine start? Every start-up rule of the engine (kvplan/startup.h)
 * with pass / refuse / adjust / warn / unknown, the engine's message and the fix.
 * Exit 0: the engine starts; 1: it refuses; 2: bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "kvplan/deploy.h"
#include "from_cmd.h"
#include "plan_policy.h"
#include "startup_cli.h"
#include "util.h"

static const char *const k_usage =
    "usage: kvplan check MODEL --gpu G [--gpus N] (--policy vllm|sglang|trtllm|llamacpp | --from \"CMD\")\n"
    "                    [engine flags] [--json]\n"
    "\n"
    "Evaluates the engine's start-up rules (docs/startup.md) before a GPU is booked.\n"
    "Each rule prints pass, refuse, adjust (the engine changes a setting and starts), warn or\n"
    "unknown (an input it needs is missing), the engine's message and the fix.\n"
    "\n"
    "  --from \"vllm serve M --tensor-parallel-size 2 ...\"   read the engine command itself\n"
    "  --gpu NAME | --gpu-mem BYTES    the GPU (its compute capability comes with the name)\n"
    "  --gpus N                        GPUs visible (CUDA_VISIBLE_DEVICES in --from)\n"
    "  --free-mem BYTES, --weights BYTES   measured memory instead of the estimate\n"
    "  --engine-version V              rules of that version (default: the latest)\n"
    "  --tp/--pp/--dp N, --max-model-len/--context-length/--max-seq-len/--ctx-size N,\n"
    "  --kv-dtype T, --block-size N, --max-num-seqs N, --max-num-batched-tokens N,\n"
    "  --gpu-memory-utilization F, --mem-fraction-static F, --enable-dp-attention,\n"
    "  --parallel N, --cache-type-k T, --cache-type-v T, --flash-attn on|off|auto\n"
    "  --dtype auto|float16|bfloat16|float32, --quantization M, --trust-remote-code,\n"
    "  --enforce-eager, --[no-]enable-prefix-caching, --[no-]enable-chunked-prefill,\n"
    "  --enable-expert-parallel, --speculative-method M, --num-speculative-tokens N,\n"
    "  --env K=V (e.g. VLLM_ALLOW_LONG_MAX_MODEL_LEN=1), --disable-rule ID|defaults\n"
    "  --rules                         list every engine's rules and exit\n"
    "exit status: 0 the engine starts, 1 it refuses, 2 bad input";

static int list_rules(void) {
    for (int e = 0; e < KVP_ENGINE_COUNT; e++) {
        printf("%s:\n", kvp_engine_name((kvp_engine)e));
        for (size_t i = 0; i < kvp_startup_rule_count((kvp_engine)e); i++) {
            kvp_startup_rule_info ri;
            if (kvp_startup_rule((kvp_engine)e, i, &ri) != KVP_OK) continue;
            printf("  %-9s %-22s %s%s%s\n", ri.id, ri.basis, ri.condition,
                   ri.is_default ? " [default]" : "",
                   ri.decidable ? "" : " [not decidable offline]");
        }
    }
    return KVP_EXIT_OK;
}

/* Options that take a value and only matter to the memory plan or not at all
 * here (the trtllm spellings --from emits): accepted, values checked as counts. */
static const char *const k_ignored_values[] = {
    "--max-batch-size", "--max-num-tokens", "--max-beam-width", "--free-gpu-memory-fraction",
    "--max-tokens", "--host-cache-size", "--max-gpu-total-bytes", "--max-attention-window",
    "--cross-kv-cache-fraction", "--cuda-graph-batch-size", "--tokens-per-block",
    "--ubatch-size", "-ub", "--batch-size", "-b", "--mamba-cache-mode", "--num-draft-layers",
    NULL};

static const char *const k_known[] = {
    "--policy", "--engine-version", "--gpu", "--gpu-mem", "--gpus", "--free-mem", "--weights",
    "--kv-budget",
    "--tp", "--tensor-parallel-size", "-tp", "--pp", "--pipeline-parallel-size", "--dp",
    "--data-parallel-size", "--max-model-len", "--context-length", "--max-seq-len",
    "--ctx-size", "-c", "--kv-dtype", "--kv-cache-dtype", "--block-size", "--page-size",
    "--max-num-seqs", "--max-num-batched-tokens", "--gpu-memory-utilization",
    "--mem-fraction-static", "--enable-dp-attention", "--attention-dp", "--parallel", "-np",
    "--cache-type-k", "-ctk", "--cache-type-v", "-ctv", "--flash-attn", "-fa", "--kv-unified",
    "--no-kv-unified", "--swa-full", "--enable-block-reuse", "--json", "--rules", "--help",
    "--from", NULL};

static bool any_opt(int argc, char **argv, int *i, const char *const *names, const char **v,
                    bool *bad) {
    for (; *names; names++)
        if (kvp_cli_opt(argc, argv, i, *names, v, bad)) return true;
    return false;
}

int kvp_cmd_check(int argc, char **argv) {
    kvp_cli_table_use(NULL); /* no spellings of an earlier command in this process */
    int from_rc;
    if (kvp_cli_run_from(argc, argv, kvp_cmd_check, &from_rc)) return from_rc;
    if (kvp_cli_reject_repeats(argc, argv)) return KVP_EXIT_BAD_INPUT;
    kvp_startup_settings *ss = calloc(1, sizeof *ss);
    if (!ss) return kvp_cli_fail("out of memory");
    *ss = kvp_startup_settings_default();
    kvp_policy_settings *s = &ss->policy;
    s->engine = KVP_ENGINE_COUNT; /* must be named */
    const char *model_arg = NULL, *gpu = NULL;
    bool json = false, bad = false;
    uint64_t gpu_mem = 0, u64 = 0;
    int flag = 0;
    static const char *const o_tp[] = {"--tp", "--tensor-parallel-size", "-tp", NULL};
    static const char *const o_pp[] = {"--pp", "--pipeline-parallel-size", NULL};
    static const char *const o_dp[] = {"--dp", "--data-parallel-size", NULL};
    static const char *const o_len[] = {"--max-model-len", "--context-length", "--max-seq-len", NULL};
    static const char *const o_ctx[] = {"--ctx-size", "-c", NULL};
    static const char *const o_kv[] = {"--kv-dtype", "--kv-cache-dtype", NULL};
    static const char *const o_bs[] = {"--block-size", "--page-size", NULL};
    static const char *const o_np[] = {"--parallel", "-np", NULL};
    static const char *const o_ctk[] = {"--cache-type-k", "-ctk", NULL};
    static const char *const o_ctv[] = {"--cache-type-v", "-ctv", NULL};
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = NULL;
        if (kvp_cli_flag(a, "--help") || kvp_cli_flag(a, "-h")) {
            puts(k_usage);
            free(ss);
            return KVP_EXIT_OK;
        } else if (kvp_cli_flag(a, "--rules")) {
            free(ss);
            return list_rules();
        } else if (kvp_cli_flag(a, "--json")) {
            json = true;
        } else if (kvp_cli_opt(argc, argv, &i, "--policy", &v, &bad)) {
            if (!bad && kvp_engine_parse(v, &s->engine) != KVP_OK) {
                kvp_cli_fail("--policy: unknown engine '%s' (expected vllm, sglang, trtllm, llamacpp)", v);
                bad = true;
            }
        } else if (kvp_cli_opt(argc, argv, &i, "--engine-version", &v, &bad)) {
            if (!bad) kvp__strlcpy(s->engine_version, v, sizeof s->engine_version);
        } else if (kvp_cli_opt(argc, argv, &i, "--gpu-mem", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--gpu-mem", v, &gpu_mem);
        } else if (kvp_cli_opt(argc, argv, &i, "--gpus", &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--gpus", v, 1, 65536, &ss->gpu_count);
        } else if (kvp_cli_opt(argc, argv, &i, "--gpu", &v, &bad)) {
            gpu = v;
        } else if (kvp_cli_opt(argc, argv, &i, "--free-mem", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--free-mem", v, &s->free_memory_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--kv-budget", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--kv-budget", v, &s->kv_budget_bytes);
        } else if (kvp_cli_opt(argc, argv, &i, "--weights", &v, &bad)) {
            if (!bad) bad = !kvp_cli_bytes("--weights", v, &s->weights_bytes);
        } else if (any_opt(argc, argv, &i, o_tp, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--tp", v, 1, 65536, &s->tp);
        } else if (any_opt(argc, argv, &i, o_pp, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--pp", v, 1, 65536, &s->pp);
        } else if (any_opt(argc, argv, &i, o_dp, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--dp", v, 1, 65536, &s->dp);
        } else if (any_opt(argc, argv, &i, o_len, &v, &bad)) {
            if (!bad && strcmp(v, "-1") == 0) {
                s->auto_fit_max_model_len = true;
            } else if (!bad) {
                bad = !kvp_cli_u64_count("--max-model-len", v, &s->max_model_len);
                if (!bad && (s->max_model_len == 0 || s->max_model_len > (1ull << 40))) {
                    kvp_cli_fail("--max-model-len: %s is out of range", v);
                    bad = true;
                }
            }
        } else if (any_opt(argc, argv, &i, o_ctx, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u64_count("--ctx-size", v, &s->n_ctx);
        } else if (any_opt(argc, argv, &i, o_kv, &v, &bad)) {
            if (!bad) kvp__strlcpy(s->kv_dtype, v, sizeof s->kv_dtype);
        } else if (any_opt(argc, argv, &i, o_bs, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--block-size", v, 1, 1u << 20, &s->block_size);
        } else if (kvp_cli_opt(argc, argv, &i, "--max-num-seqs", &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--max-num-seqs", v, 1, 1u << 24, &s->max_num_seqs);
        } else if (kvp_cli_opt(argc, argv, &i, "--max-num-batched-tokens", &v, &bad)) {
            if (!bad) bad = !kvp_cli_u64_count("--max-num-batched-tokens", v, &s->max_num_batched_tokens);
        } else if (kvp_cli_opt(argc, argv, &i, "--gpu-memory-utilization", &v, &bad)) {
            if (!bad) bad = !kvp_cli_fraction("--gpu-memory-utilization", v, &s->gpu_memory_utilization);
        } else if (kvp_cli_opt(argc, argv, &i, "--mem-fraction-static", &v, &bad)) {
            if (!bad) bad = !kvp_cli_fraction("--mem-fraction-static", v, &s->mem_fraction_static);
        } else if (kvp_cli_bool_flag(argc, argv, &i, "--enable-dp-attention", &flag, &bad) ||
                   kvp_cli_bool_flag(argc, argv, &i, "--attention-dp", &flag, &bad)) {
            s->enable_dp_attention = flag == 1;
        } else if (any_opt(argc, argv, &i, o_np, &v, &bad)) {
            if (!bad) bad = !kvp_cli_u32("--parallel", v, 0, 1u << 20, &s->n_seq_max);
        } else if (any_opt(argc, argv, &i, o_ctk, &v, &bad)) {
            if (!bad) kvp__strlcpy(s->type_k, v, sizeof s->type_k);
        } else if (any_opt(argc, argv, &i, o_ctv, &v, &bad)) {
            if (!bad) kvp__strlcpy(s->type_v, v, sizeof s->type_v);
        } else if (kvp_cli_flag(a, "--flash-attn") || kvp_cli_flag(a, "-fa") ||
                   !strncmp(a, "--flash-attn=", 13)) {
            const char *fv = !strncmp(a, "--flash-attn=", 13) ? a + 13
                             : (i + 1 < argc && argv[i + 1][0] != '-') ? argv[++i] : "on";
            s->flash_attn = !kvp__strcasecmp(fv, "on") || !strcmp(fv, "1") ? 1
                            : !kvp__strcasecmp(fv, "off") || !strcmp(fv, "0") ? 0
                            : !kvp__strcasecmp(fv, "auto") ? -1 : -2;
            if (s->flash_attn == -2) {
                kvp_cli_fail("--flash-attn: '%s', expected on, off or auto", fv);
                bad = true;
            }
        } else if (kvp_cli_flag(a, "--no-kv-unified")) {
            s->kv_unified = 0;
        } else if (kvp_cli_bool_flag(argc, argv, &i, "--kv-unified", &s->kv_unified, &bad) ||
                   kvp_cli_bool_flag(argc, argv, &i, "--swa-full", &s->swa_full, &bad) ||
                   kvp_cli_bool_flag(argc, argv, &i, "--enable-block-reuse", &flag, &bad)) {
        } else if (kvp_cli_startup_opt(argc, argv, &i, ss, &bad)) {
        } else if (any_opt(argc, argv, &i, k_ignored_values, &v, &bad)) {
        } else if (a[0] == '-' && a[1] != '\0') {
            free(ss);
            return kvp_cli_unknown_option(a, k_known);
        } else if (!model_arg) {
            model_arg = a;
        } else {
            free(ss);
            return kvp_cli_fail("check: unexpected argument '%s' (one MODEL only)", a);
        }
    }
    (void)u64;
    if (bad) {
        free(ss);
        return KVP_EXIT_BAD_INPUT;
    }
    if (!model_arg) {
        free(ss);
        return kvp_cli_fail("check: missing MODEL (usage: kvplan check MODEL --gpu G --policy P)");
    }
    if (s->engine == KVP_ENGINE_COUNT) {
        free(ss);
        return kvp_cli_fail("check: name the engine: --policy vllm|sglang|trtllm|llamacpp, or "
                            "--from \"ENGINE COMMAND\"");
    }
    kvp_error err;
    kvp_error_clear(&err);
    if (gpu) {
        if (kvp_gpu_lookup_in(kvp_cli_gpu_catalog(), gpu, &ss->gpu, &err) != KVP_OK) {
            free(ss);
            return kvp_cli_report_error(&err, json);
        }
        ss->gpu_known = true;
    }
    s->total_memory_bytes = gpu_mem ? gpu_mem : ss->gpu.total_bytes;
    kvp_model *model = NULL;
    if (kvp_model_open(model_arg, NULL, &model, &err) != KVP_OK) {
        free(ss);
        return kvp_cli_report_error(&err, json);
    }
    /* Rules that need no memory plan first: they fix the length and dtype the
     * engine runs with, which the memory plan then uses. */
    kvp_startup_report *rep = calloc(1, sizeof *rep);
    kvp_policy_result *r = calloc(1, sizeof *r);
    kvp_deploy_result *res = kvp_deploy_result_new();
    int rc = KVP_EXIT_BAD_INPUT;
    if (!rep || !r || !res) {
        rc = kvp_cli_fail("out of memory");
        goto done;
    }
    if (kvp_startup_check(model, ss, NULL, rep, &err) != KVP_OK) {
        rc = kvp_cli_report_error(&err, json);
        goto done;
    }
    kvp_startup_plan_input in;
    memset(&in, 0, sizeof in);
    kvp_policy_settings planned = *s;
    kvp_startup_apply(model, rep, &planned);
    bool have_plan = s->total_memory_bytes > 0 || s->kv_budget_bytes > 0;
    if (have_plan && s->engine == KVP_ENGINE_TRTLLM && !s->kv_budget_bytes) {
        /* TensorRT-LLM's memory is the creator's (kvplan plan --policy trtllm); the
         * policy report here needs the KV figure itself. */
        in.status = KVP_UNSUPPORTED;
        in.message = "TensorRT-LLM's KV memory is planned by 'kvplan plan --policy trtllm'; "
                     "pass --kv-budget BYTES (its KV cache size) to check T-MEM-1/T-MEM-2";
        if (kvp_startup_check(model, ss, &in, rep, &err) != KVP_OK) {
            rc = kvp_cli_report_error(&err, json);
            goto done;
        }
    } else if (have_plan) {
        /* The memory plan is the deployment pipeline's (deploy.h), as `kvplan plan`. */
        kvp_error perr;
        kvp_error_clear(&perr);
        kvp_deployment d = kvp_deployment_default();
        d.model = model;
        d.point.engine = planned.engine;
        d.policy = planned;
        d.memory.total_bytes = planned.kv_budget_bytes ? 0 : planned.total_memory_bytes;
        d.memory.kv_budget_bytes = planned.kv_budget_bytes;
        d.memory.free_bytes = planned.free_memory_bytes;
        d.memory.has_weights = planned.weights_bytes > 0;
        d.memory.weights_bytes = planned.weights_bytes;
        d.memory.has_activation_peak = planned.peak_activation_bytes > 0;
        d.memory.activation_peak_bytes = planned.peak_activation_bytes;
        d.memory.has_non_torch = planned.non_torch_bytes > 0;
        d.memory.non_torch_bytes = planned.non_torch_bytes;
        d.memory.has_cuda_graph = planned.cudagraph_bytes > 0;
        d.memory.cuda_graph_bytes = planned.cudagraph_bytes;
        d.memory.weights_dtype = rep->run_dtype;
        kvp_status st = kvp_deploy_plan(&d, res, &perr);
        if (st == KVP_OK) {
            st = res->status;
            kvp__strlcpy(perr.message, res->message, sizeof perr.message);
        }
        *r = res->policy;
        in.status = st;
        in.result = st == KVP_OK ? r : NULL;
        in.message = perr.message;
        in.weights_bytes = res->weights_bytes;
        in.weights_estimated = res->memory.estimated & KVP_MEM_EST_WEIGHTS;
        if (kvp_startup_check(model, ss, &in, rep, &err) != KVP_OK) {
            rc = kvp_cli_report_error(&err, json);
            goto done;
        }
    }
    kvp_cli_startup_print(rep, ss, kvp_model_name(model), json);
    rc = rep->starts ? KVP_EXIT_OK : KVP_EXIT_NO;
done:
    free(rep);
    free(r);
    kvp_deploy_result_free(res);
    kvp_model_free(model);
    free(ss);
    return rc;
}
