/* command_help.h — each command's help text for its own flags (command_help.c;
 * the option table's rows carry their own help). kvp__ tier. */
#ifndef KVP_COMMAND_HELP_H
#define KVP_COMMAND_HELP_H

#include <stddef.h>

/* The text of `command` ("plan", "sim", ...) as `kvplan COMMAND --help` prints
 * it before the table's rows; "" for a name it does not know. Static. */
const char *kvp__command_help(const char *command);
/* The text `kvplan COMMAND --help` prints after the table's rows; "" for none. */
const char *kvp__command_help_tail(const char *command);

/* The rows of the option table `command` (KVP_COMMAND_*) takes under
 * `engines`, one help line each ("  --tp N, -tp ...   help"), as every
 * command's --help lists them. Malloc'd (free()); NULL when out of memory. */
char *kvp__option_rows_help(unsigned command, unsigned engines);

/* `kvplan --help`: the version line, each command (names[i], one line of help
 * helps[i], n of them) and the global option. Malloc'd (free()); NULL when out
 * of memory. */
char *kvp__main_help(const char *version, const char *const *names, const char *const *helps,
                     size_t n);
/* `kvplan --policy help`: the engine policies by the library's names, with the
 * engines' own help. Malloc'd (free()); NULL when out of memory. */
char *kvp__policy_help(void);

#endif
