/* version.c — the version of the library that is loaded, for callers that
 * compare it with the headers they were built against (kvplan/version.h). */
#include "kvplan/version.h"

const char *kvp_version(void) { return KVP_VERSION_STRING; }

unsigned kvp_version_number(void) { return (unsigned)KVP_VERSION_NUMBER; }
