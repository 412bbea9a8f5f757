/* result_spare.h — a plan's result kept per thread between calls (util/spare.h
 * says why): kvp_json_call plans into the one its thread kept last time,
 * instead of allocating and zeroing 32 KiB per call; the pipeline clears a
 * result before it plans into it. */
#ifndef KVP_PIPELINE_RESULT_SPARE_H
#define KVP_PIPELINE_RESULT_SPARE_H

#include "kvplan/deploy.h"

/* The result this thread kept (contents as left), else a new one; NULL when
 * out of memory. Give it back with kvp__deploy_result_give. */
kvp_deploy_result *kvp__deploy_result_take(void);
/* Keep `r` (from kvp__deploy_result_take or kvp_deploy_result_new; NULL: no-op)
 * for this thread's next take, or free it when one is kept already. */
void kvp__deploy_result_give(kvp_deploy_result *r);

#endif
