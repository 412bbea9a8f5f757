/* settle.h — what every command settles from the option table before it plans
 * (issue 27 item 2): the GPU looked up once, the memory to plan from and where
 * it came from. `kvplan plan|fit|sweep|compare|check` and kvp_json_call's
 * requests (src/bind/deploy_call.c) read these instead of each keeping its own
 * copy of the look-up and the memory decision. */
#ifndef KVP_OPTIONS_SETTLE_H
#define KVP_OPTIONS_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "kvplan/deploy.h"
#include "kvplan/gpu.h"
#include "kvplan/options.h"
#include "kvplan/startup.h"

typedef struct kvp__settled {
    kvp_gpu_info gpu;         /* --gpu / "gpu", looked up once */
    bool gpu_known;
    bool gpu_mem;             /* --gpu-mem given */
    uint64_t total_bytes;     /* --gpu-mem's bytes, else the GPU's, else 0 */
    const char *total_source; /* "--gpu-mem", "catalogue" (the GPU named), NULL */
} kvp__settled;

/* The GPU `o` names (the user's catalogue file `catalog` first, NULL: the
 * built-in one), and the memory it and --gpu-mem give. The look-up's own error
 * (an unknown GPU) otherwise. */
kvp_status kvp__options_settle(const kvp_options *o, const char *catalog, kvp__settled *s,
                               kvp_error *err);

/* How a caller names the settings in a message: as flags (the CLI:
 * "--kv-budget") or as request keys (kvp_json_call: "kv_budget", the error's
 * key a JSON pointer "/kv_budget"). */
typedef enum kvp__naming { KVP__NAME_FLAGS = 0, KVP__NAME_KEYS } kvp__naming;

/* The memory source of a settled deployment: a KV budget given beside a GPU's
 * memory is a contradiction, and with neither there is nothing to plan from
 * (unless !need: an engine that allocates what it is asked for). */
kvp_status kvp__settle_memory_source(const kvp_deploy_memory *m, bool need, kvp__naming naming,
                                     kvp_error *err);

/* `kvplan plan --policy P`'s deployment: the table's point, policy, memory
 * and admission, the engine the policy names, the memory the settled GPU or
 * --gpu-mem gives, the start-up settings `ss` (with the GPU), `model` and its
 * checkpoint folder `model_dir` (may be NULL). */
void kvp__policy_deployment(const kvp_options *o, const kvp__settled *set,
                            const kvp_startup_settings *ss, const kvp_model *model,
                            const char *model_dir, kvp_deployment *d);

/* `kvplan check` and kvp_json_call's "check": the start-up settings as the
 * engine reads them (the table's, the settled GPU and memory, measured weights)
 * into *ss, and every start-up rule on the deployment the table built
 * (kvp__check_run; `model_dir`, when not NULL, the checkpoint folder for exact
 * weights) into *rep. */
kvp_status kvp__options_check(const kvp_options *o, const kvp__settled *set,
                              const kvp_model *model, const char *model_dir,
                              kvp_startup_settings *ss, kvp_startup_report *rep, kvp_error *err);

/* `kvplan sweep` and kvp_json_call's "sweep": the first of the sweep's axes
 * (`axes`, n names: "policy", "kv-dtype", "tp", "pp", "max-seq-len") whose
 * option `o` was given (by a flag, a request key or a pasted engine command),
 * which the axis would vary: a contradiction. NULL when none. */
const kvp_option *kvp__options_axis_fixed(const kvp_options *o, const char *const *axes, size_t n);

#endif
