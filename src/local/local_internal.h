/*
 * local_internal.h — the parsed form of a model-local declaration file
 * (kvp__ tier: shared by the src/local/ sources and the unit tests, never public).
 *
 * A file is a module tree (seed "Finding the declarers"): nodes are modules,
 * `children` are submodules (walked like named_modules()), `holds` are owners
 * that are not submodules (one explicit hop), and the root may be a CUDA-graph
 * wrapper around its runnable. Declarations hang off the module that
 * implements the declarer.
 */
#ifndef KVP_LOCAL_INTERNAL_H
#define KVP_LOCAL_INTERNAL_H

#include "kvplan/local.h"
#include "util.h"

/* Limits of single numbers in a declaration (far above any real cache). */
#define KVP__LOCAL_MAX_LAYERS 100000u
#define KVP__LOCAL_MAX_HEADS 65536u
#define KVP__LOCAL_MAX_HEAD_DIM 65536u
#define KVP__LOCAL_MAX_BOUND 0xffffffffu  /* any bound input, in positions */
#define KVP__LOCAL_MAX_ROWS 0xffffffffu   /* rows_fixed */
#define KVP__LOCAL_MAX_ELEMENT_BYTES 8u

/* A deployment condition: -1 = any, 0 = must be off, 1 = must be on. */
typedef struct kvp__local_when {
    int8_t async_chunk;
    int8_t streaming;
    int8_t enforce_eager;
} kvp__local_when;

/* Geometry as declared: explicit numbers (0 = not given) and/or a config to
 * read the rest from. */
typedef struct kvp__local_geometry_decl {
    char *hf_config;      /* catalogue name or path; NULL = explicit only */
    char *config_pointer; /* JSON pointer of the sub-config ("" = root) */
    uint64_t layers, kv_heads, head_dim;
    uint64_t element_bytes; /* 0 = from dtype */
    kvp_dtype dtype;        /* AUTO = not given */
    char *note;             /* "" when none */
} kvp__local_geometry_decl;

typedef struct kvp__local_decl {
    char *name;
    char *pointer;        /* JSON pointer of the declaration in its file */
    kvp_local_cache_kind kind;
    kvp_local_bound bound;
    uint64_t bound_a, bound_b; /* sliding_window | group_size,max_delay | embed_positions | max_cache_len */
    kvp__local_geometry_decl geometry;
    kvp_local_row_driver row_driver;
    uint64_t rows_fixed;  /* FIXED only */
    char *rows_reason;    /* "" when none */
    kvp_local_scope scope;
    kvp__local_when when;
    char *exclusive_group, *allocation_note, *capacity_source; /* "" when none */
} kvp__local_decl;

typedef struct kvp__local_module {
    char *name;           /* attribute name ("" for the root) */
    char *class_name;     /* "" when not stated */
    char *path;           /* dotted path from the root ("" = root) */
    bool is_declarer;     /* implements model_local_kv_specs() ("declares" present) */
    char *fails;          /* NULL, or why the declarer raises */
    size_t decl_first, decl_count;  /* into decls->decls */
    size_t *children;     /* indices into decls->modules */
    size_t child_count;
    size_t *holds;        /* owners reached by one explicit hop */
    size_t hold_count;
    bool is_hop;
} kvp__local_module;

struct kvp_local_decls {
    kvp_allocator alc;
    bool has_alc;
    char *source;         /* file name used in messages */
    char *model;
    char *description;    /* "" when none */
    kvp__local_module *modules;
    size_t module_count, module_cap;
    kvp__local_decl *decls;
    size_t decl_count, decl_cap;
    size_t root;          /* the runnable (after unwrapping) */
    bool has_wrapper;     /* module_tree was a graph wrapper around `root` */
    char *wrapper_class;  /* "" when no wrapper */
};

const kvp_allocator *kvp__local_decls_alc(const kvp_local_decls *decls);

/* Resolved geometry of one declaration. */
typedef struct kvp__local_geometry {
    uint64_t layers, kv_heads, head_dim, element_bytes;
    kvp_dtype dtype;
    char source[512];     /* how each number was found, for the report */
} kvp__local_geometry;

/* Element bytes of a KV dtype a transformers cache can hold (fp32 4, fp16 and
 * bf16 2, fp8 and int8 1); 0 for anything else. */
uint64_t kvp__local_dtype_bytes(kvp_dtype dtype);

/* Positions of a declaration's bound, and the formula that gives them. */
kvp_status kvp__local_positions(const kvp__local_decl *d, const char *file, uint64_t *out,
                                char *formula, size_t formula_size, kvp_error *err);

/* Resolve a declaration's geometry from the sub-config the model read at
 * d->geometry.config_pointer (NULL: the config has no such object) plus its
 * explicit overrides. `config_name` names the config in errors; `decl_file`
 * the declaration file. KVP_CONFIG names the missing attribute (JSON pointer
 * in err->key) and the declaration; never a guess. */
kvp_status kvp__local_geometry_from_subconfig(const kvp_subconfig_facts *obj,
                                              const char *config_name, const kvp__local_decl *d,
                                              const char *decl_file, kvp__local_geometry *out,
                                              kvp_error *err);
/* The same from a config text (its sub-config facts read by the model room,
 * kvp__subconfig_from_json). */
kvp_status kvp__local_geometry_from_config(const char *text, size_t len, const char *config_name,
                                           const kvp__local_decl *d, const char *decl_file,
                                           kvp__local_geometry *out, kvp_error *err);
/* The configs one collection has opened, by the hf_config name declarations
 * give: each is opened (parsed) once however many declarations name it (1,024
 * declarations of one 6 MB config re-parsed it 1,024 times: issue 17). A failure
 * is kept too, so a broken config is not re-read either. Zero-initialise;
 * kvp__local_configs_free releases what it holds. */
typedef struct kvp__local_config {
    char *name;
    kvp_model *model; /* NULL when opening failed: `status` and `error` say why */
    kvp_status status;
    kvp_error error;
} kvp__local_config;
typedef struct kvp__local_configs {
    const kvp_allocator *alc;
    kvp__local_config *items;
    size_t count, cap;
} kvp__local_configs;
void kvp__local_configs_free(kvp__local_configs *cache);
/* Resolve geometry: explicit numbers, else open d->geometry.hf_config with
 * kvp_model_open (once per name, through `cache`) and read it. */
kvp_status kvp__local_resolve_geometry(const kvp_local_decls *decls, const kvp__local_decl *d,
                                       kvp__local_configs *cache, kvp__local_geometry *out,
                                       kvp_error *err);

/* The collector with the graph-wrapper unwrap switchable, so a test can show
 * what entering through both the wrapper and its runnable would count. */
kvp_status kvp__local_collect_ex(const kvp_local_decls *decls, const kvp_local_deployment *dep,
                                 bool unwrap_wrapper, const kvp_allocator *alc,
                                 kvp_local_report **out, kvp_error *err);

/* `kvplan plan --local NAME` (model-local-kv-caches.md, "What is and is not
 * already accounted for"): the report of NAME at dep->max_num_seqs into *out,
 * and its effect on a plan: *peak the graph-resident bytes that join the
 * predicted CUDA-graph memory when memory was estimated (`estimated`; 0 when
 * measured: reported, never subtracted), *risk the per-request bytes profiling
 * does not charge; warn[0..*n_warn) say both. */
#define KVP__LOCAL_WARN_MAX 320
kvp_status kvp__local_plan_effect(const char *name, const kvp_local_deployment *dep, bool estimated,
                                  bool measured, kvp_local_report **out, uint64_t *peak,
                                  uint64_t *risk, char warn[2][KVP__LOCAL_WARN_MAX], size_t *n_warn,
                                  kvp_error *err);

/* `kvplan local` (and kvp_json_call's "local" may): the declarations of
 * `decl_file` (else the catalogue's of `model`), checked to declare `model`
 * when both are given (the error keyed "--decl"), collected at `dep` into
 * *out. */
kvp_status kvp__local_report_of(const char *model, const char *decl_file,
                                const kvp_local_deployment *dep, kvp_local_report **out,
                                kvp_error *err);

#endif
