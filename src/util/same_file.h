/* same_file.h — whether two paths name one file, however spelt: the same
 * inode when both exist, else the same real folder and last part (an output
 * not written yet). kvp__ tier; the CLI refuses an output over an input with it. */
#ifndef KVP_SAME_FILE_H
#define KVP_SAME_FILE_H

#include <stdbool.h>

#include "util.h"

bool kvp__same_file(const char *a, const char *b);

#endif
