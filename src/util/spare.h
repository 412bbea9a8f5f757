/* spare.h — one block kept per thread and per use, for the next call of that
 * thread: the large working memory of a plan (the start-up gate, a binding
 * call's result) is taken back instead of allocated and freed on every call.
 * Allocating and freeing ~100 KiB around each kvp_json_call sent the heap top
 * back to the system (glibc trims above 128 KiB) and fresh pages came back
 * zeroed, which doubled a TensorRT-LLM plan through the binding; a result
 * calloc'ed for each call was a tenth of a llama.cpp one (issue 27 item 8,
 * bench/bench_json_call.c). A thread never sees another's blocks, and each is
 * released when its thread ends. */
#ifndef KVP_UTIL_SPARE_H
#define KVP_UTIL_SPARE_H

#include <stdbool.h>

typedef enum {
    KVP__SPARE_DEPLOY_GATE, /* pipeline: kvp__deploy_gate */
    KVP__SPARE_CALL_RESULT, /* bind: the kvp_deploy_result of a plan call */
    KVP__SPARE_COUNT
} kvp__spare_use;

/* The block this thread kept for `use`, now the caller's (contents as left);
 * NULL when none was kept. */
void *kvp__spare_take(kvp__spare_use use);
/* Keep `block` (NULL: nothing) for this thread's next take of `use`; `release`
 * frees it if the thread ends first (NULL: libc's free). False when it was not
 * kept (one is kept already, or no thread-specific data): the caller frees it. */
bool kvp__spare_keep(kvp__spare_use use, void *block, void (*release)(void *));

#endif
