/* log_redact.h — what a log may leak, taken out of the text kvplan shows or
 * records from it (`kvplan why --record`, `kvplan serve`'s log box):
 *   - API keys and tokens: hf_..., sk-..., "Bearer X", api_key / token /
 *     password values                                  -> <redacted>
 *   - IPv4 addresses (ports kept), IPv6 addresses       -> <ip>
 *   - host names: URL hosts, host=/hostname=/ip= values, dotted names
 *     under .local .internal .lan .corp .com .net .org .io -> <host>
 *   - paths: the folders above a path's last two parts (the model's
 *     org/name stays)                                  -> <path>/org/name
 * The output is cut to out_size (NUL-terminated). */
#ifndef KVP_LOGS_LOG_REDACT_H
#define KVP_LOGS_LOG_REDACT_H

#include <stddef.h>

void kvp__log_redact(const char *in, char *out, size_t out_size);

#endif
