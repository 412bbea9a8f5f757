/* admission_out.h — the admission rule of a planned deployment (deploy.h's
 * kvp_admission) as text lines; the JSON is rendered by the library
 * (src/report/json_admission.c). */
#ifndef KVP_CLI_ADMISSION_OUT_H
#define KVP_CLI_ADMISSION_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "kvplan/deploy.h"

/* Lines "admitted at once ...", "admission rule ...", "reservation ...",
 * "steady state ..." indented by `indent`. */
void kvp_cli_admission_text(FILE *f, const kvp_admission *a, const char *indent);

#endif
