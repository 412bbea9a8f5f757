/* model_arg.c — the MODEL argument of `kvplan plan` under the policies
 * (model_arg.h): a path to a config.json, a folder, a .gguf or a geometry JSON,
 * or a catalogue name. */
#include <string.h>
#include <sys/stat.h>

#include "model_arg.h"
#include "model_internal.h"
#include "util.h"

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && kvp__strcasecmp(s + n - m, suffix) == 0;
}

/* A .json file is read through the file reader, which refuses a FIFO or a
 * device by name (an fopen here would block on a FIFO nobody writes), and may hold
 * a geometry instead of a config. */
kvp_status kvp__model_load_arg(const char *arg, bool forced_geometry, kvp_model **out,
                               kvp_error *err) {
    bool handled = false;
    kvp_status st;
    struct stat arg_sb;
    if ((forced_geometry || ends_with(arg, ".json")) && stat(arg, &arg_sb) == 0) {
        char *buf = NULL;
        size_t len = 0;
        st = kvp__read_file(arg, KVP_MAX_CONFIG_BYTES, NULL, &buf, &len, err);
        if (st) return st;
        st = kvp__model_from_json_input(buf, len, arg, forced_geometry, out, &handled, err);
        kvp__free(NULL, buf);
        if (st || handled) return st;
        if (forced_geometry)
            return kvp__fail(err, KVP_CONFIG, arg, "geometry", "not a geometry JSON");
        return kvp_model_open(arg, NULL, out, err);
    }
    if (forced_geometry)
        return kvp__fail(err, KVP_IO, arg, "geometry", "cannot open the geometry file");
    return kvp_model_open(arg, NULL, out, err);
}

