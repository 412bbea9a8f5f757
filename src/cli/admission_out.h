/* admission_out.h — the admission rule of a planned deployment (deploy.h's
 * kvp_admission) as text lines; the JSON is rendered by the library
 * (src/report/json_admission.c). */
#ifndef KVP_CLI_ADMISSION_OUT_H
#define KVP_CLI_ADMISSION_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "kvplan/deploy.h"

/* argv[*i] when it is a row of the request shape (--isl, --osl, --max-new-tokens,
 * --capacity-scheduler-policy and their spellings), parsed by the option table
 * (kvplan/options.h) into `out`: 0 when it is not one (nothing consumed), -1 when
 * applied (*i past its value), else the exit status after printing the error. For
 * the parsers of `plan` not yet on the table. */
int kvp_cli_admission_option(int argc, char **argv, int *i, kvp_admission_settings *out,
                             bool json);

/* Lines "admitted at once ...", "admission rule ...", "reservation ...",
 * "steady state ..." indented by `indent`. */
void kvp_cli_admission_text(FILE *f, const kvp_admission *a, const char *indent);

#endif
