/*
 * gpu_arch.c — compute capability and architecture names (kvplan/gpu.h).
 *
 * Engines compare the capability as one integer, major * 10 + minor (vLLM's
 * DeviceCapability.to_int(), SGLang's `major < 8` tests), so kvplan keeps it
 * that way: 80 = 8.0, 103 = 10.3. On ROCm, torch.cuda.get_device_capability()
 * reports the gfx target's major and minor (gfx942 -> (9, 4)), which is what the
 * engines' capability checks then see; kvp_gpu_gfx_capability gives the same.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kvplan/gpu.h"
#include "probe_internal.h"

const char *kvp_gpu_cc_string(uint32_t cc, char *buf, size_t size) {
    if (!buf || size == 0) return "";
    if (cc == 0)
        buf[0] = '\0';
    else
        snprintf(buf, size, "%u.%u", cc / 10, cc % 10);
    return buf;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

uint32_t kvp_gpu_gfx_capability(const char *gfx) {
    if (!gfx || strncmp(gfx, "gfx", 3) != 0) return 0;
    const char *d = gfx + 3;
    size_t n = strlen(d);
    if (n < 3 || n > 4) return 0;
    for (size_t i = 0; i < n; i++)
        if (hex_digit(d[i]) < 0) return 0;
    /* LLVM names: the last two characters are minor and stepping (hex), the
     * rest is the major: gfx942 = 9.4.2, gfx90a = 9.0.10, gfx1100 = 11.0.0. */
    uint32_t major = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        int v = hex_digit(d[i]);
        if (v > 9) return 0;
        major = major * 10 + (uint32_t)v;
    }
    int minor = hex_digit(d[n - 2]);
    if (major == 0 || minor > 9) return 0;
    return major * 10 + (uint32_t)minor;
}

const char *kvp__gpu_arch_of_cc(uint32_t cc) {
    switch (cc) {
    case 60: case 61: case 62: return "Pascal";
    case 70: case 72: return "Volta";
    case 75: return "Turing";
    case 80: case 86: case 87: return "Ampere";
    case 89: return "Ada Lovelace";
    case 90: return "Hopper";
    case 100: case 101: case 110: return "Blackwell";
    case 103: return "Blackwell Ultra";
    case 120: case 121: return "Blackwell";
    default: return "";
    }
}

bool kvp__gpu_parse_cc(const char *text, uint32_t *out) {
    /* "M.m": M 1..99, m one digit. */
    if (!text || !isdigit((unsigned char)text[0])) return false;
    unsigned major = 0;
    const char *p = text;
    while (isdigit((unsigned char)*p) && major < 100) major = major * 10 + (unsigned)(*p++ - '0');
    if (*p != '.' || major == 0 || major > 99) return false;
    p++;
    if (!isdigit((unsigned char)p[0]) || p[1] != '\0') return false;
    *out = major * 10 + (unsigned)(p[0] - '0');
    return true;
}
