"""kvplan from Python: the KV-cache memory of LLM serving, planned.

Standard library only (ctypes over libkvplan.so). Every function returns the
JSON document that ``kvplan COMMAND ... --json`` prints, as a dict (a list for
``models``), and raises :class:`KvplanError` for every error kvplan reports::

    import kvplan
    c = kvplan.cost("llama-3.1-8b", tp=2, kv_dtype="fp8")
    c["bytes_per_token"]                                  # 32768
    p = kvplan.plan("llama-3.1-8b", gpu="h100", max_seq_len=8192)
    v = kvplan.plan("llama-3.1-8b", gpu="h100", policy="vllm", max_model_len=8192)
    f = kvplan.fit("llama-3.1-8b", gpu="h100", concurrency=64)
    ok = kvplan.check("llama-3.1-8b", gpu="h100", policy="vllm")["starts"]
    cmp = kvplan.compare("llama-3.1-8b", kv_budget="40GiB", max_seq_len=32768)
    s = kvplan.sweep("llama-3.1-8b", "tp=1,2", gpu="h100")

Options are the option table's names with underscores (``kv_dtype`` for
``--kv-dtype``, ``max_model_len`` for vLLM's spelling; docs/options.md):
``True``/``False`` set a flag, ``None`` leaves an option out, a list repeats it.
``from_command="vllm serve M --tensor-parallel-size 2 ..."`` (plan, check, fit,
compare, sweep) reads the engine command you already run, as ``--from`` does:
its engine is the policy, its model the model unless one is given.
Every call goes through the library's one JSON entry point, kvp_json_call, in
this process (no ``kvplan`` program is run): the answer is the same document,
byte for byte, that ``kvplan COMMAND ... --json`` prints. A model is a
catalogue name, a path, or a config.json given as a dict.

The library is looked for in $KVPLAN_LIBRARY (alone, when set), else in this
package's folder (``pip install .`` builds it there; an install prefix and the
.deb put a link there to their lib folder), a source tree's build/, and the
system loader: at most three places, each named if it is not found. A library of another major version, or one without the symbols this
package calls, is refused with a message that says which.
"""

import ctypes
import json
import os

__all__ = ["KvplanError", "cost", "plan", "check", "fit", "compare", "sweep", "models", "gpus",
           "local", "why", "sim", "version", "library_path"]

#: The library major version this package speaks (SONAME libkvplan.so.1).
ABI_MAJOR = 1

_SYMBOLS = ("kvp_version", "kvp_version_number", "kvp_json_call", "kvp_json_free",
            "kvp_json_commands", "kvp_status_name")


class KvplanError(Exception):
    """An error kvplan reported: ``status`` is the status name
    ("KVP_NOT_FOUND"), ``message`` the full sentence, ``key`` the JSON pointer,
    GGUF key or option it concerns, ``file`` the input file, ``line`` and
    ``column`` the position of a syntax error (0 when unknown)."""

    def __init__(self, status, message, key="", file="", line=0, column=0):
        super().__init__("%s: %s" % (status, message))
        self.status = status
        self.message = message
        self.key = key
        self.file = file
        self.line = line
        self.column = column


class _Error(ctypes.Structure):
    # struct kvp_error of kvplan/error.h (KVP_ERROR_FILE_MAX 512, KEY_MAX 256,
    # MESSAGE_MAX 640); fixed within a major version.
    _fields_ = [("code", ctypes.c_int), ("file", ctypes.c_char * 512),
                ("key", ctypes.c_char * 256), ("line", ctypes.c_int),
                ("column", ctypes.c_int), ("offset", ctypes.c_uint64),
                ("message", ctypes.c_char * 640)]


_lib = None
_lib_path = None


def _candidates():
    """Where the library is looked for, at most three places: $KVPLAN_LIBRARY
    alone when set; else this package's own folder (where ``pip install`` and
    the .deb put it, and where an install prefix has a link to PREFIX/lib*/),
    a source tree's ``build/`` (python/kvplan/ beside build/, after
    ``bash scripts/run.sh``), and the system loader (by SONAME)."""
    env = os.environ.get("KVPLAN_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    soname = "libkvplan.so.%d" % ABI_MAJOR
    yield os.path.join(here, soname)
    tree = os.path.normpath(os.path.join(here, "..", ".."))
    if os.path.isfile(os.path.join(tree, "CMakeLists.txt")):
        yield os.path.join(tree, "build", soname)
    yield soname


def _check(lib, path):
    missing = [s for s in _SYMBOLS if not hasattr(lib, s)]
    if missing:
        raise KvplanError("KVP_UNSUPPORTED",
                          "%s lacks %s: it is not a libkvplan this package can use "
                          "(needs major version %d with kvp_json_call)"
                          % (path, ", ".join(missing), ABI_MAJOR))
    lib.kvp_version.restype = ctypes.c_char_p
    lib.kvp_version_number.restype = ctypes.c_uint
    major = lib.kvp_version_number() // 10000
    if major != ABI_MAJOR:
        raise KvplanError("KVP_UNSUPPORTED",
                          "%s is libkvplan %s (major version %d); this package needs major "
                          "version %d" % (path, lib.kvp_version().decode(), major, ABI_MAJOR))
    lib.kvp_json_call.restype = ctypes.c_int
    lib.kvp_json_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_Error)]
    lib.kvp_json_free.restype = None
    lib.kvp_json_free.argtypes = [ctypes.c_void_p]
    lib.kvp_json_commands.restype = ctypes.c_char_p
    lib.kvp_status_name.restype = ctypes.c_char_p
    lib.kvp_status_name.argtypes = [ctypes.c_int]


def _load():
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e) if os.sep in path else "the system loader (%s)" % e)
            continue
        _check(lib, path)
        _lib, _lib_path = lib, path
        return lib
    raise KvplanError("KVP_NOT_FOUND",
                      "libkvplan.so.%d not found (looked in: %s). Fix: install the package with "
                      "pip (it builds the library into the package), build this source tree "
                      "(bash scripts/run.sh), or set KVPLAN_LIBRARY to the library's path"
                      % (ABI_MAJOR, "; ".join(tried)))


def library_path():
    """The path of the libkvplan that was loaded."""
    _load()
    return _lib_path


def version():
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return _load().kvp_version().decode()


def _text(b):
    return b.decode("utf-8", "replace")


def _call_text(command, request_text):
    """kvp_json_call on a request given as JSON text; the answer as text."""
    lib = _load()
    out = ctypes.c_void_p()
    err = _Error()
    st = lib.kvp_json_call(command.encode(), request_text.encode(), ctypes.byref(out),
                           ctypes.byref(err))
    if st != 0:
        raise KvplanError(_text(lib.kvp_status_name(st)), _text(err.message), _text(err.key),
                          _text(err.file), err.line, err.column)
    try:
        return ctypes.string_at(out.value).decode("utf-8")
    finally:
        lib.kvp_json_free(out)


def _call(command, request):
    return json.loads(_call_text(command, json.dumps(request)))


def _request(model, options):
    """A request object: the options as JSON values (None leaves one out), the
    model as "model" (a name or path) or, when it is a dict, "config" (the
    config.json itself)."""
    request = {k: v for k, v in options.items() if v is not None}
    if isinstance(model, dict):
        request["config"] = model
    elif model is not None:
        request["model"] = str(model)
    return request


def _command(command, model, options):
    return _call(command, _request(model, options))


def cost(model, **options):
    """Bytes per token and per sequence, pool by pool (``kvplan cost --json``).
    Options: tp, pp, pp_rank, kv_dtype, tokens_per_block, beam_width, layers."""
    return _call("cost", dict(options, model=model))


def models(filter=None):
    """The catalogue and its aliases (``kvplan models [FILTER] --json``)."""
    return _call("models", {} if filter is None else {"filter": filter})


def gpus():
    """The GPU catalogue (``kvplan gpus --catalog --json``): {"gpus": [...]}."""
    return _call("gpus", {})


def check(model=None, **options):
    """Will the engine start? (``kvplan check --json``): every start-up rule of
    the engine named by policy="vllm" (sglang, trtllm, llamacpp) with pass,
    refuse, adjust, warn or unknown. A refusal is data, not an exception: the
    document says ``"starts": false`` and ``"first_refusal"``; KvplanError is
    for bad input only."""
    return _command("check", model, options)


def local(model=None, **options):
    """The model-local KV caches a model declares (``kvplan local --json``):
    max_num_seqs=N is required; async_chunk, streaming, enforce_eager are
    flags; decl="FILE" reads a declarations file instead of the embedded ones."""
    return _call("local", dict({k: v for k, v in options.items() if v is not None},
                               **({} if model is None else {"model": str(model)})))


def why(log_text, **options):
    """Every figure of an engine's start-up log explained (``kvplan why --json``):
    log_text is the log itself (a str); model="..." names the model's config
    when the log does not."""
    return _call("why", dict({k: v for k, v in options.items() if v is not None}, log=log_text))


def sim(model=None, workload=None, synthetic=None, **options):
    """Replay a workload through continuous batching over the pool a plan buys
    (``kvplan sim --json``). workload is a JSON-lines file (a path) or the
    requests themselves (an iterable of dicts: arrival, prompt_len,
    output_len, prefix_id, prefix_len); synthetic is a spec
    ("requests=100,prompt=fixed:1000,output=fixed:200"). The pool comes from
    one of gpu, gpu_mem, kv_budget or blocks; policy="sglang" or "trtllm"
    replays that engine's scheduler (vLLM's by default); no_timing=True leaves
    the wall-clock figures out. A deployment the engine would not start raises
    KvplanError (KVP_INFEASIBLE) naming the rule, as plan() does."""
    request = {k: v for k, v in options.items() if v is not None}
    if synthetic is not None:
        request["synthetic"] = synthetic
    if isinstance(workload, (str, bytes, os.PathLike)):
        request["workload"] = os.fsdecode(workload)
    elif workload is not None:
        request["workload_text"] = "".join(json.dumps(r) + "\n" for r in workload)
    return _command("sim", model, request)


def plan(model=None, **options):
    """The KV cache plan of one GPU (``kvplan plan --json``); options as the
    command's (gpu="h100", tp=2, max_seq_len=8192, policy="vllm", ...)."""
    return _command("plan", model, options)


def fit(model=None, **options):
    """Solve for a setting (``kvplan fit --json``): concurrency=64 gives the
    longest context serving 64 sequences, and so on."""
    return _command("fit", model, options)


def compare(model=None, **options):
    """Every engine side by side (``kvplan compare --json``); policies="vllm,sglang"
    (or a list) picks the engines."""
    return _command("compare", model, options)


def sweep(model, over, **options):
    """Every combination of the settings swept (``kvplan sweep --json``): over is
    one "KEY=VALUES" or a list of them ("max-seq-len=4k..128k", "tp=1,2,4")."""
    return _command("sweep", model, dict(options, over=[over] if isinstance(over, str) else list(over)))
