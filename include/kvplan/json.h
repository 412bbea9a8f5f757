/*
 * kvplan/json.h — one JSON-in / JSON-out entry point, for bindings (the
 * Python package python/kvplan uses it through ctypes) and for programs that
 * would rather exchange text than structs.
 *
 * A call names a command and gives its request as a JSON object whose keys
 * are the command's options spelled with underscores ("kv_dtype" for
 * --kv-dtype); the answer is the same JSON document, byte for byte, that
 * `kvplan COMMAND ... --json` prints (without the final newline), built by the
 * same library code. Documented fields: README ("JSON") and docs/.
 *
 * Commands and their request keys:
 *   "cost"    model (string) or config (a config.json object), tp, pp, pp_rank, tokens_per_block
 *             (alias block_size), beam_width (integers, the CLI's ranges),
 *             kv_dtype (string: auto|fp32|fp16|bf16|fp8|int8|nvfp4),
 *             layers (boolean)
 *   "models"  filter (string, optional: case-insensitive substring of the
 *             name or Hugging Face id, as `kvplan models FILTER`)
 *   "plan", "fit", "compare", "sweep"
 *             model (string: what `kvplan COMMAND MODEL` takes) or config (a
 *             config.json object); from_command (string: the engine command
 *             a user runs, read as `--from` reads it: its engine is the
 *             policy, its model the model unless one is given, its settings
 *             set before the other keys; a key setting the same option again
 *             with the same value is one statement, with another value it is
 *             refused naming both, as `--from` beside a flag); every other key
 *             is an option of the one
 *             option table (kvplan/options.h, docs/options.md) by its name
 *             with '_' for '-' ("gpu", "gpu_mem", "policy", "tp",
 *             "max_model_len", "kv_budget", ...), its value a string, a
 *             number or a boolean (a flag), an array repeating it; plus the
 *             command's own:
 *               fit      solve, concurrency, allow_pp, max_seq_len_limit (gpus,
 *                        the GPUs a tp search may use, is the table's --gpus)
 *               compare  policies ("vllm,sglang" or an array)
 *               sweep    over ("KEY=VALUES" or an array of them, kvplan/sweep.h;
 *                        an axis beside the key it varies is refused), max_plans
 *             They run the command's steps (the GPU, the model, the engine's
 *             start-up rules, kvp_deploy_plan / the fit search) and the
 *             library's renderer (kvplan/render.h): the answer is what
 *             `kvplan COMMAND ... --json` prints for the same options. A
 *             deployment the engine would refuse to start is KVP_INFEASIBLE
 *             naming the rule and the setting (the CLI prints the start-up
 *             report and exits 1).
 *   "check"   the keys of "plan" (the engine named by policy or an engine's
 *             own option): every start-up rule of the engine, as
 *             `kvplan check ... --json`. A refusal is the document itself
 *             ("starts": false, "first_refusal": the rule), KVP_OK.
 *   "gpus"    no keys: the embedded GPU catalogue, as
 *             `kvplan gpus --catalog --json`
 *   "local"   model (a name with embedded declarations) or decl (a
 *             declarations file), max_num_seqs (integer, required),
 *             async_chunk, streaming, enforce_eager (booleans): the
 *             model-local KV caches, as `kvplan local ... --json`
 *   "sim"     the keys of "plan" that `kvplan sim` takes (gpu, gpu_mem, kv_budget or
 *             blocks; policy, capacity_scheduler_policy, max_model_len, max_batch_size,
 *             max_num_tokens, max_new_tokens, ...) and its own: exactly one of workload
 *             (a JSON-lines file; refused by `kvplan serve`), workload_text (the JSON lines
 *             themselves) and synthetic (a spec); arrival_unit ("steps" or "seconds"),
 *             step_time (seconds), no_timing (boolean). The replay over the pool the plan
 *             gives, as `kvplan sim ... --json`; a deployment the engine would not start
 *             is KVP_INFEASIBLE naming the rule, as "plan".
 *   "why"     log (string: an engine's start-up log, the text), model (string,
 *             optional: the config when the log's model is not found),
 *             target_concurrency, target_context (positive integers), and any
 *             option of the table: `kvplan why LOG --json`'s document
 *             (docs/why.md, docs/schema/why.schema.json). A path the log names
 *             is opened only when it is relative: an absolute one is matched by
 *             its last parts against the catalogue. A log of no engine, of two
 *             engines interleaved, or with contradicting figures is
 *             KVP_INVALID_ARG naming "/log".
 * kvp_json_commands() lists them; any other command is KVP_UNSUPPORTED.
 *
 * Errors: the status, and `err` names the request key as a JSON pointer
 * ("/tp", "/gpu_mem"), or the model file and key, with the line and column of a request
 * that is not JSON. *out_json is NULL then.
 *
 * Thread safety: callable from any thread. The answer is a pure function of
 * the request and the files it names; the only state kept between calls is a
 * small cache of parsed models (src/bind/request_model.c: eight, keyed by the
 * catalogue name, the config file's path with its inode, mtime and size, or
 * the inline config's text; guarded by a mutex; a model is only read while
 * shared) and the embedded GPU catalogue, parsed once.
 */
#ifndef KVPLAN_JSON_H
#define KVPLAN_JSON_H

#include "kvplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run `command` on `request_json` (NUL-terminated; NULL or "" = {}). On
 * KVP_OK *out_json is a NUL-terminated JSON text the caller frees with
 * kvp_json_free(). */
KVP_API KVP_NODISCARD kvp_status kvp_json_call(const char *command, const char *request_json,
                                               char **out_json, kvp_error *err);
/* Free a result of kvp_json_call. NULL is a no-op. */
KVP_API void kvp_json_free(char *json);
/* The commands kvp_json_call answers, space-separated ("cost models gpus
 * plan fit compare sweep check local why"); static. */
KVP_API const char *kvp_json_commands(void);

#ifdef __cplusplus
}
#endif
#endif
