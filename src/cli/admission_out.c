/* admission_out.c — the text lines of a deployment's admission rule (admission_out.h). */
#include "admission_out.h"

#include "cli.h"

void kvp_cli_admission_text(FILE *f, const kvp_admission *a, const char *indent) {
    char c1[32], c2[32], c3[32];
    if (a->present)
        fprintf(f, "%sadmitted at once        %s (%s)\n", indent,
                kvp_cli_fmt_count(a->admitted, c1, sizeof c1), a->binding);
    else
        fprintf(f, "%sadmitted at once        unknown: %s\n", indent, a->refused);
    if (a->rule[0]) fprintf(f, "%sadmission rule          %s\n", indent, a->rule);
    if (a->reservation[0]) fprintf(f, "%sreservation             %s\n", indent, a->reservation);
    if (a->reserves && a->present && a->reservation_blocks)
        fprintf(f, "%s                        %s blocks per request in the binding pool\n",
                indent, kvp_cli_fmt_count(a->reservation_blocks, c1, sizeof c1));
    if (a->has_steady_state)
        fprintf(f, "%ssteady state            %s without reservation (%s prompt + %s output "
                   "tokens per request)\n",
                indent, kvp_cli_fmt_count(a->steady_state, c1, sizeof c1),
                kvp_cli_fmt_count(a->prompt_tokens, c2, sizeof c2),
                kvp_cli_fmt_count(a->output_tokens, c3, sizeof c3));
    if (a->present && a->refused[0]) fprintf(f, "%snote                    %s\n", indent, a->refused);
}
