/*
 * versions.c — what an --engine-version names (kvp_engine_release_resolve,
 * kvplan/policy.h): the forms each engine's users type and its binaries print,
 * and the release line (rule set) that governs each release. One table of
 * release lines per engine, one row per line, each row with its source; the
 * policies keep reading the string itself (kvp__policy_version's numeric
 * encoding MAJOR*10000 + MINOR*100 + PATCH, kvp__policy_build_number).
 *
 * A year or a date names the line in force at its end (the year's last
 * release). A release, build or year past the newest line kvplan knows is
 * planned with that line, and the resolver says so (newer_than_known).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_ops.h"
#include "policy_internal.h"

#define REL KVP__REL

/* One release line of one engine: the releases (or builds, or years) from
 * `first` up to the next row's first. Rows of an engine are in release order;
 * `newest` bounds the releases kvplan has read of the engine's last line. */
typedef struct release_line {
    kvp_engine engine;
    const char *line;   /* the rule set's name, as the policy's era / --engine-version word */
    uint32_t first;     /* first release (REL; llama.cpp: first build), 0 = every earlier one */
    uint32_t first_year;/* first year whose last release is on this line */
    const char *source;
} release_line;

static const release_line k_lines[] = {
    /* TensorRT-LLM: STARTUP.md A.4 (T-VER-1): 0.x, 1.0.x, 1.1.x -> '2025' [inferred];
     * 1.2.x (any rc/post, 1.2.1) -> '2025' [uncertain]; 1.3.0rcN on -> '2026'
     * [uncertain]. Release notes: 1.2 on pytorch 25.12, the last of 2025. */
    {KVP_ENGINE_TRTLLM, "2025", 0, 0, "STARTUP.md A.4: 0.x to 1.2.x"},
    {KVP_ENGINE_TRTLLM, "2026", REL(1, 3, 0), 2026, "STARTUP.md A.4: 1.3.0rc0 on"},
    /* vLLM: ENGINES.md §1.1 eras, as vllm.c parse_era reads the release: V1 the
     * default from 0.8.0; PR #40694 (v1-new) taken from 0.20 [uncertain]. */
    {KVP_ENGINE_VLLM, "v0", 0, 0, "ENGINES.md §1.1: V0 before 0.8.0"},
    {KVP_ENGINE_VLLM, "v1-mid", REL(0, 8, 0), 2025, "ENGINES.md §1.1: 0.8.0 to 0.19.x"},
    {KVP_ENGINE_VLLM, "v1-new", REL(0, 20, 0), 2026, "ENGINES.md §1.1: PR #40694, 0.20 on"},
    /* SGLang: ENGINES.md §2.3 (sglang.c): PR #11309 (2025-10-07) is in 0.5.4. */
    {KVP_ENGINE_SGLANG, "pre-11309", 0, 0, "ENGINES.md §2.3: up to 0.5.3"},
    {KVP_ENGINE_SGLANG, "post-11309", REL(0, 5, 4), 2025, "ENGINES.md §2.3: PR #11309, 0.5.4 on"},
    /* llama.cpp: ENGINES.md §3.1 (llamacpp.c): builds, then the numbered releases
     * (llama_version() 0.x, 2026-09) after every build-number rule. */
    {KVP_ENGINE_LLAMACPP, "pad-old", 0, 0, "ENGINES.md §3.1: builds before b7000"},
    {KVP_ENGINE_LLAMACPP, "pad256", 7000, 2025, "ENGINES.md §3.1: PR #17046, b7000 on"},
};

/* The newest release of each engine kvplan's rules were read from (a later one
 * is planned with the last line, and said) is its record's newest_release:
 * TRT-LLM tags up to 1.3.0rc13 (STARTUP.md A.4), vLLM 0.29.0 (STARTUP.md V-PAR-6
 * thread), SGLang 0.5.x (2026 code, ENGINES.md §2), llama.cpp's numbered
 * releases 0.x (llamacpp.c). */
/* The last year whose code kvplan read (2026 snapshots, every engine). */
#define NEWEST_YEAR 2026u

/* The words each engine's policy reads (era names, PR tags), beside "latest",
 * and the line each names. */
typedef struct era_word {
    kvp_engine engine;
    const char *word, *line;
} era_word;
static const era_word k_words[] = {
    {KVP_ENGINE_TRTLLM, "pre-2026", "2025"},
    {KVP_ENGINE_VLLM, "v1-jan25", "v1-jan25"},
    {KVP_ENGINE_VLLM, "v1-mid", "v1-mid"},
    {KVP_ENGINE_VLLM, "v1-new", "v1-new"},
    {KVP_ENGINE_VLLM, "VLLM_USE_V1=0", "v0"},
    {KVP_ENGINE_VLLM, "v0", "v0"},
    {KVP_ENGINE_VLLM, "VLLM_USE_V1", "v1-mid"},
    {KVP_ENGINE_SGLANG, "pre-11309", "pre-11309"},
    {KVP_ENGINE_SGLANG, "pre-pr", "pre-11309"},
    {KVP_ENGINE_SGLANG, "post-11309", "post-11309"},
    {KVP_ENGINE_SGLANG, "pre-18039", "post-11309"},
    {KVP_ENGINE_SGLANG, "11309", "post-11309"},
    {KVP_ENGINE_LLAMACPP, "unified", "pad-old"},
    {KVP_ENGINE_LLAMACPP, "pre-mla", "pad-old"},
    {KVP_ENGINE_LLAMACPP, "swa-f16", "pad256"},
};

const char *kvp_engine_version_forms(kvp_engine engine) {
    const kvp__engine_ops *ops = kvp__engine_ops_of(engine);
    return ops ? ops->version_forms : "";
}

/* `word` in `v`, case-insensitive, not inside a longer word or release ("v0"
 * is not in "v0.11.0"). */
static bool word_in(const char *v, const char *word) {
    size_t n = strlen(word);
    for (const char *p = v; *p; p++) {
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)word[k])) k++;
        if (k < n) continue;
        char b = p > v ? p[-1] : ' ', a = p[n];
        if (!(isalnum((unsigned char)b) || b == '.') && !(isalnum((unsigned char)a) || a == '.'))
            return true;
    }
    return false;
}

/* A year 2000-2099 standing alone, or the year of a date "2025-10[-07]". */
static uint32_t year_of(const char *v) {
    for (const char *p = v; *p; p++) {
        if (!(p[0] == '2' && p[1] == '0' && isdigit((unsigned char)p[2]) &&
              isdigit((unsigned char)p[3])))
            continue;
        if (p > v && (isalnum((unsigned char)p[-1]) || p[-1] == '.')) continue;
        char a = p[4];
        bool date = a == '-' && isdigit((unsigned char)p[5]) && isdigit((unsigned char)p[6]);
        if (date || !(isalnum((unsigned char)a) || a == '.'))
            return (uint32_t)((p[2] - '0') * 10 + (p[3] - '0')) + 2000u;
    }
    return 0;
}

/* The row of `engine`'s line governing release `rel` (by_year false) or year
 * `year`: the last of its rows that starts at or before it. */
static size_t line_of(kvp_engine engine, bool by_year, uint32_t at) {
    size_t found = SIZE_MAX;
    for (size_t i = 0; i < sizeof k_lines / sizeof k_lines[0]; i++) {
        const release_line *l = &k_lines[i];
        if (l->engine != engine) continue;
        if (found == SIZE_MAX || (by_year ? l->first_year : l->first) <= at) found = i;
    }
    return found;
}

kvp_status kvp_engine_release_resolve(kvp_engine engine, const char *text, kvp_engine_release *out,
                                      kvp_error *err) {
    if ((unsigned)engine >= KVP_ENGINE_COUNT)
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "engine", "unknown engine %d", (int)engine);
    memset(out, 0, sizeof *out);
    out->engine = engine;
    size_t last = line_of(engine, true, UINT32_MAX);
    kvp__strlcpy(out->line, k_lines[last].line, sizeof out->line);
    if (!text || !*text || word_in(text, "latest")) {
        kvp__strlcpy(out->form, "latest", sizeof out->form);
        return KVP_OK;
    }
    /* The era words first: a word the policy reads wins wherever it stands
     * ("v1-mid 0.9.1"), as the policies read them. */
    for (size_t k = 0; k < sizeof k_words / sizeof k_words[0]; k++)
        if (k_words[k].engine == engine && word_in(text, k_words[k].word)) {
            kvp__strlcpy(out->form, "word", sizeof out->form);
            kvp__strlcpy(out->line, k_words[k].line, sizeof out->line);
            return KVP_OK;
        }
    size_t row = SIZE_MAX;
    uint32_t rel = 0, build = 0, year = 0;
    if (engine == KVP_ENGINE_LLAMACPP && (build = kvp__policy_build_number(text)) != 0) {
        kvp__strlcpy(out->form, "build", sizeof out->form);
        row = line_of(engine, false, build);
    } else if (kvp__policy_version(text, &rel)) {
        kvp__strlcpy(out->form, "release", sizeof out->form);
        /* llama.cpp's numbered releases come after every build: its last line. */
        row = engine == KVP_ENGINE_LLAMACPP ? last : line_of(engine, false, rel);
        uint32_t minor = rel / 100u * 100u;
        if (minor > kvp__engine_ops_of(engine)->newest_release) out->newer_than_known = true;
    } else if ((year = year_of(text)) != 0) {
        kvp__strlcpy(out->form, "year", sizeof out->form);
        row = line_of(engine, true, year);
        if (year > NEWEST_YEAR) out->newer_than_known = true;
    } else {
        return kvp__fail(err, KVP_INVALID_ARG, NULL, "engine_version",
                         "'%.60s' is not a %s version kvplan knows; expected %s", text,
                         kvp_engine_name(engine), kvp_engine_version_forms(engine));
    }
    out->version = rel;
    out->build = build;
    out->year = year;
    kvp__strlcpy(out->line, k_lines[row].line, sizeof out->line);
    return KVP_OK;
}
