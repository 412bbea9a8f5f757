"""unittest suite of the kvplan Python package (standard library only).

Run against a build tree or an install:
    PYTHONPATH=python python3 -m unittest discover -s python/tests
    KVPLAN_LIBRARY=PREFIX/lib/libkvplan.so.1 PYTHONPATH=PREFIX/share/kvplan/python ...
KVPLAN_TEST_KVPLAN names the kvplan program whose --json output the results
must equal byte for byte (default: the one next to the library)."""

import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import kvplan


def cli():
    """The kvplan program the answers are compared with (the package never runs it)."""
    for env in ("KVPLAN_TEST_KVPLAN", "KVPLAN_CLI"):
        if os.environ.get(env):
            return os.environ[env]
    lib_dir = os.path.dirname(os.path.abspath(kvplan.library_path()))
    for cand in (os.path.join(lib_dir, "..", "bin", "kvplan"), os.path.join(lib_dir, "kvplan")):
        if os.access(cand, os.X_OK) and os.path.isfile(cand):
            return os.path.normpath(cand)
    found = shutil.which("kvplan")
    if not found:
        raise AssertionError("no kvplan program to compare with: set KVPLAN_TEST_KVPLAN")
    return found


def cli_json_text(*args):
    proc = subprocess.run([cli()] + list(args) + ["--json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    return proc.returncode, proc.stdout.decode()


class Library(unittest.TestCase):
    def test_version_is_the_cli_version(self):
        out = subprocess.run([cli(), "--version"], stdout=subprocess.PIPE, check=True).stdout
        self.assertEqual(out.decode().strip(), "kvplan " + kvplan.version())
        self.assertEqual(int(kvplan.version().split(".")[0]), kvplan.ABI_MAJOR)

    def test_refuses_another_major_and_missing_symbols(self):
        cc = shutil.which("cc")
        if not cc:
            self.skipTest("no C compiler")
        with tempfile.TemporaryDirectory() as d:
            # A library claiming version 2.0.0, with every symbol present.
            src = os.path.join(d, "v1.c")
            with open(src, "w") as f:
                f.write("const char *kvp_version(void) { return \"2.0.0\"; }\n"
                        "unsigned kvp_version_number(void) { return 20000; }\n"
                        "int kvp_json_call(void) { return 0; }\n"
                        "void kvp_json_free(void) {}\n"
                        "const char *kvp_json_commands(void) { return \"\"; }\n"
                        "const char *kvp_status_name(void) { return \"\"; }\n")
            so = os.path.join(d, "libv1.so")
            subprocess.run([cc, "-shared", "-fPIC", src, "-o", so], check=True)
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan._check(ctypes.CDLL(so), so)
            self.assertEqual(ctx.exception.status, "KVP_UNSUPPORTED")
            self.assertIn("2.0.0 (major version 2)", ctx.exception.message)
            self.assertIn("needs major version 1", ctx.exception.message)
            # A library without the binding entry point (an older libkvplan).
            src2 = os.path.join(d, "old.c")
            with open(src2, "w") as f:
                f.write("const char *kvp_version(void) { return \"0.0.9\"; }\n")
            so2 = os.path.join(d, "libold.so")
            subprocess.run([cc, "-shared", "-fPIC", src2, "-o", so2], check=True)
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan._check(ctypes.CDLL(so2), so2)
            self.assertIn("lacks kvp_version_number, kvp_json_call", ctx.exception.message)


class Loader(unittest.TestCase):
    """Where the package looks for libkvplan: at most three places, each named."""

    def run_copy(self, code, env_extra):
        # A copy of the package alone (no library beside it, no source tree around it).
        with tempfile.TemporaryDirectory() as d:
            pkg = os.path.join(d, "kvplan")
            os.mkdir(pkg)
            shutil.copy(os.path.join(os.path.dirname(kvplan.__file__), "__init__.py"), pkg)
            env = {k: v for k, v in os.environ.items()
                   if k not in ("KVPLAN_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
            env.update(env_extra, PYTHONPATH=d, PYTHONDONTWRITEBYTECODE="1")
            proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, check=False, cwd=d)
            return d, proc.returncode, proc.stdout.decode(), proc.stderr.decode()

    def test_places(self):
        d, rc, out, err = self.run_copy("import kvplan; print(list(kvplan._candidates()))", {})
        self.assertEqual(rc, 0, err)
        # Its own folder, then the system loader by SONAME (no source tree here).
        self.assertEqual(out.strip(), repr([os.path.join(d, "kvplan", "libkvplan.so.1"),
                                            "libkvplan.so.1"]))

    def test_not_found_names_what_it_tried(self):
        missing = "/nonexistent/libkvplan.so.1"
        d, rc, out, err = self.run_copy(
            "import kvplan\ntry:\n    kvplan.version()\nexcept kvplan.KvplanError as e:\n"
            "    print(e.status); print(e.message)", {"KVPLAN_LIBRARY": missing})
        self.assertEqual(rc, 0, err)
        status, message = out.strip().split("\n", 1)
        self.assertEqual(status, "KVP_NOT_FOUND")
        self.assertIn("(looked in: %s)" % missing, message)
        self.assertIn("set KVPLAN_LIBRARY", message)
        self.assertLess(len(message), 400, message)


class Cost(unittest.TestCase):
    def test_values(self):
        c = kvplan.cost("llama-3.1-8b")
        # 32 layers x 8 KV heads x (128 + 128) x 2 bytes (bf16) = 131,072 bytes per token.
        self.assertEqual(c["bytes_per_token"], 131072)
        self.assertEqual(c["pools"][0]["kind"], "full")
        # TP 2 halves the heads (4 per rank), fp8 halves the bytes: 32 x 4 x 256 x 1 = 32,768.
        c = kvplan.cost("llama-3.1-8b", tp=2, kv_dtype="fp8")
        self.assertEqual(c["bytes_per_token"], 32768)
        self.assertEqual(c["kv_dtype"], "fp8")

    def test_byte_identical_to_cli(self):
        cases = [({"model": "llama-3.1-8b"}, ["cost", "llama-3.1-8b"]),
                 ({"model": "deepseek-v3", "tp": 8, "kv_dtype": "fp8"},
                  ["cost", "deepseek-v3", "--tp", "8", "--kv-dtype", "fp8"]),
                 ({"model": "qwen3-next-80b-a3b-thinking", "tp": 2, "layers": True,
                   "block_size": 64},
                  ["cost", "qwen3-next-80b-a3b-thinking", "--tp", "2", "--layers",
                   "--block-size", "64"]),
                 ({"model": "meta-llama/Llama-3.1-8B-Instruct", "pp": 2, "pp_rank": 1},
                  ["cost", "meta-llama/Llama-3.1-8B-Instruct", "--pp", "2", "--pp-rank", "1"])]
        for request, args in cases:
            rc, want = cli_json_text(*args)
            self.assertEqual(rc, 0)
            self.assertEqual(kvplan._call_text("cost", json.dumps(request)) + "\n", want, args)

    def test_alias_said(self):
        c = kvplan.cost("meta-llama/Llama-3.1-8B-Instruct")
        self.assertEqual(c["model"],
                         "meta-llama/Llama-3.1-8B-Instruct (alias of meta-llama/Llama-3.1-8B)")


class Errors(unittest.TestCase):
    def check(self, status, key, fn, *args, **kw):
        with self.assertRaises(kvplan.KvplanError) as ctx:
            fn(*args, **kw)
        self.assertEqual(ctx.exception.status, status)
        self.assertEqual(ctx.exception.key, key)
        return ctx.exception

    def test_request_errors(self):
        e = self.check("KVP_NOT_FOUND", "no-such-model", kvplan.cost, "no-such-model")
        self.assertIn("config.json", e.message)
        self.check("KVP_INVALID_ARG", "/tp", kvplan.cost, "llama-3.1-8b", tp="2")
        e = self.check("KVP_INVALID_ARG", "/tp", kvplan.cost, "llama-3.1-8b", tp=0)
        self.assertIn("[1, 65536], found 0", e.message)
        self.check("KVP_INVALID_ARG", "/tpp", kvplan.cost, "llama-3.1-8b", tpp=2)
        self.check("KVP_INVALID_ARG", "/kv_dtype", kvplan.cost, "llama-3.1-8b", kv_dtype="fp9")
        self.check("KVP_INVALID_ARG", "/layers", kvplan.cost, "llama-3.1-8b", layers=1)
        self.check("KVP_INVALID_ARG", "/tokens_per_block", kvplan.cost, "llama-3.1-8b",
                   block_size=16, tokens_per_block=16)
        self.check("KVP_INVALID_ARG", "/model", kvplan._call, "cost", {})
        self.check("KVP_INVALID_ARG", "/filter", kvplan.models, 3)

    def test_config_error_names_file_and_key(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "config.json")
            with open(path, "w") as f:
                json.dump({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2,
                           "num_attention_heads": 32, "num_key_value_heads": 5}, f)
            e = self.check("KVP_CONFIG", "/num_key_value_heads", kvplan.cost, path)
            self.assertEqual(e.file, path)

    def test_syntax_error_position(self):
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan._call_text("cost", '{"model": "llama-3.1-8b",\n  "tp": }')
        self.assertEqual(ctx.exception.status, "KVP_SYNTAX")
        self.assertEqual(ctx.exception.line, 2)
        self.assertGreater(ctx.exception.column, 0)
        self.check("KVP_INVALID_ARG", "", kvplan._call_text, "cost", "[1]")
        self.check("KVP_UNSUPPORTED", "", kvplan._call_text, "nosuch", "{}")


class Models(unittest.TestCase):
    def test_filter_and_aliases(self):
        every = kvplan.models()
        self.assertEqual(json.dumps(every, indent=2) + "\n",
                         cli_json_text("models")[1])
        llama = kvplan.models("LLAMA-3.1")
        names = [m["name"] for m in llama]
        self.assertIn("llama-3.1-8b", names)
        self.assertIn("llama-3.1-8b-instruct", names)
        alias = [m for m in llama if m["name"] == "llama-3.1-8b-instruct"][0]
        self.assertEqual(alias["alias_of"], "meta-llama/Llama-3.1-8B")
        self.assertTrue(all("llama-3.1" in (m["name"] + m["hf_id"]).lower() for m in llama))
        self.assertEqual(kvplan.models("no-model-has-this"), [])


class Plans(unittest.TestCase):
    """plan / fit / compare / sweep: kvp_json_call in this process, the CLI's documents."""

    def same_as_cli(self, command, request, args):
        rc, want = cli_json_text(command, *args)
        self.assertIn(rc, (0, 1), args)
        got = kvplan._call_text(command, json.dumps(request))
        self.assertEqual(got + "\n", want, "%s %s" % (command, args))

    def test_plan(self):
        p = kvplan.plan("llama-3.1-8b", kv_budget="40GiB", max_seq_len=8192)
        # 40 GiB / 131,072 B = 327,680 tokens; / 8,192 = 40 sequences.
        self.assertEqual(p["max_tokens"], 327680)
        self.assertEqual(p["max_sequences"]["count"], 40)
        self.assertEqual((p["schema_version"], p["kvplan_version"]), (2, kvplan.version()))
        self.assertEqual(p["deployment"]["policy"], "trtllm")

    def test_plan_policies(self):
        # vLLM: a block is 16 tokens of 32 layers x 8 heads x 128 x 2 (K, V) x 2 bytes
        # = 2 MiB; 40 GiB / 2 MiB = 20,480 blocks = 327,680 tokens; / 8,192 = 40.0.
        v = kvplan.plan("llama-3.1-8b", kv_budget="40GiB", policy="vllm", max_model_len=8192)
        self.assertEqual(v["engine_report"]["num_gpu_blocks"], 20480)
        self.assertEqual(v["engine_report"]["gpu_kv_cache_tokens"], 327680)
        self.assertEqual(v["engine_report"]["max_concurrency"], 40.0)
        # SGLang: 327,680 tokens, and K of 327,681 slots (slot 0 is padding) x 65,536 B
        # (32 layers x 8 x 128 x 2 bytes) = 21,474,902,016.
        g = kvplan.plan("llama-3.1-8b", kv_budget="40GiB", policy="sglang", context_length=8192)
        self.assertEqual(g["engine_report"]["max_total_num_tokens"], 327680)
        self.assertEqual(g["engine_report"]["k_size_bytes"], 21474902016)
        self.assertEqual(g["deployment"]["policy"], "sglang")

    def test_plan_same_as_cli(self):
        for policy in ("trtllm", "vllm", "sglang", "llamacpp"):
            self.same_as_cli("plan", {"model": "llama-3.1-8b", "gpu": "h100", "policy": policy},
                             ["llama-3.1-8b", "--gpu", "h100", "--policy", policy])
        self.same_as_cli("plan", {"model": "qwen3-8b", "gpu_mem": "80GiB", "policy": "vllm",
                                  "max_model_len": 32768, "kv_dtype": "fp8"},
                         ["qwen3-8b", "--gpu-mem", "80GiB", "--policy", "vllm", "--max-model-len",
                          "32768", "--kv-dtype", "fp8"])
        self.same_as_cli("plan", {"model": "llama-3.1-70b", "gpu": "h100", "tp": 4,
                                  "kv_dtype": "fp8", "max_seq_len": 32768},
                         ["llama-3.1-70b", "--gpu", "h100", "--tp", "4", "--kv-dtype", "fp8",
                          "--max-seq-len", "32768"])
        self.same_as_cli("plan", {"model": "llama-3.1-8b", "gpu": "rtx4090", "policy": "llamacpp",
                                  "ctx_size": 8192},
                         ["llama-3.1-8b", "--gpu", "rtx4090", "--policy", "llamacpp",
                          "--ctx-size", "8192"])

    def test_plan_trtllm_rules_same_as_cli(self):
        # TensorRT-LLM's rules around the creator (LoRA, the multimodal profiling
        # batch, KV-cache compression) run for a request as for `kvplan plan`, and
        # the document carries the same engine_rules, byte for byte.
        cases = (
            ("llama-3.1-8b", (("gpu", "h100"), ("lora_rank", 64), ("max_loras", 4),
                              ("max_cpu_loras", 8), ("lora_target_modules", "attn_q,attn_k,attn_v"))),
            ("qwen2.5-7b", (("gpu", "h100"), ("mm_encoder_max_tokens", 16384),
                            ("mm_tokens_per_item", "image=1024"))),
            ("llama-3.1-8b", (("gpu", "b200"), ("kv_cache_compression", "quantization_for_cold_page"),
                              ("compression_quant", "nvfp4"), ("kv_dtype", "fp8"),
                              ("kv_manager", "v2"), ("sm_version", 100))),
            ("llama-3.1-8b", (("gpu", "h100"), ("engine_version", "2025"), ("lora_rank", 8),
                              ("lora_target_modules", "attn_q"))),
        )
        for model, kv in cases:
            args = [model]
            for k, v in kv:
                args += ["--" + k.replace("_", "-"), str(v)]
            self.same_as_cli("plan", dict(kv, model=model), args)
        p = kvplan.plan("llama-3.1-8b", gpu="h100", lora_rank=64, max_loras=4, max_cpu_loras=8,
                        lora_target_modules="attn_q,attn_k,attn_v")
        lora = p["engine_rules"]["lora"]
        # 32 layers x 3 target modules = 96 LoRA modules.
        self.assertEqual((lora["max_lora_rank"], lora["num_lora_modules"]), (64, 96))
        m = kvplan.plan("qwen2.5-7b", gpu="h100", mm_encoder_max_tokens=16384,
                        mm_tokens_per_item="image=1024")
        # One image of 1,024 tokens x hidden 3,584 x 2 bytes (bf16) = 7,340,032 bytes retained.
        self.assertEqual(m["engine_rules"]["multimodal_profile"]["retained_output_bytes"], 7340032)
        c = kvplan.plan("llama-3.1-8b", gpu="b200", kv_cache_compression="quantization_for_cold_page",
                        compression_quant="nvfp4", kv_dtype="fp8", kv_manager="v2", sm_version=100)
        self.assertEqual(c["engine_rules"]["compression"]["cold_page_dtype"], "nvfp4")
        # A rule's refusal is the request's error, as the command's: NVFP4 cold pages need SM100.
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("llama-3.1-8b", gpu="h100", kv_cache_compression="quantization_for_cold_page",
                        compression_quant="nvfp4", kv_dtype="fp8", kv_manager="v2")
        self.assertEqual(ctx.exception.status, "KVP_UNSUPPORTED")

    def test_fit_without_memory_refused_up_front(self):
        # llama.cpp allocates what it is asked for, but fit, compare and sweep search
        # what fits a memory: with none, the request is refused in its own words, as
        # `kvplan fit --policy llamacpp` refuses it (not deep in the pipeline).
        for command, extra in (("fit", {"concurrency": 4}), ("compare", {"policies": "llamacpp"}),
                               ("sweep", {"over": "max-seq-len=4k,8k"})):
            request = dict(extra, model="llama-3.1-8b")
            if command != "compare":
                request["policy"] = "llamacpp"
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan._call(command, request)
            self.assertEqual((ctx.exception.status, ctx.exception.key), ("KVP_INVALID_ARG", "/gpu"),
                             command)
            self.assertEqual(ctx.exception.message,
                             "no memory to plan from: give gpu (a catalogue name), gpu_mem or kv_budget")
        rc, _ = cli_json_text("fit", "llama-3.1-8b", "--policy", "llamacpp", "--concurrency", "4")
        self.assertEqual(rc, 2)
        self.same_as_cli("fit", {"model": "llama-3.1-8b", "policy": "llamacpp", "concurrency": 4,
                                 "gpu": "rtx4090"},
                         ["llama-3.1-8b", "--policy", "llamacpp", "--concurrency", "4", "--gpu",
                          "rtx4090"])

    def test_fit_gpus_is_the_tables(self):
        # gpus is the option table's --gpus, as `kvplan fit` reads it: refused by
        # name under SGLang (no meaning there) and out of the table's range, both
        # exit 2 in the CLI.
        for policy, gpus, want in (
                ("sglang", 8, "gpus has no meaning under SGLang (policy sglang): kvplan's SGLang "
                              "rules read no visible-device count (SGLang checks balanced free "
                              "memory, S-MEM-2)"),
                ("vllm", 0, "gpus: 0 is out of range, expected 1 to 65536")):
            rc, _ = cli_json_text("fit", "qwen3-32b", "--gpu", "h100", "--policy", policy, "--solve",
                                  "tp", "--gpus", str(gpus), "--concurrency", "32")
            self.assertEqual(rc, 2, policy)
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan.fit("qwen3-32b", gpu="h100", policy=policy, solve="tp", gpus=gpus,
                           concurrency=32)
            self.assertEqual((ctx.exception.key, ctx.exception.message), ("/gpus", want))

    def test_key_of_another_command_refused(self):
        # plan's --lora-rank is no option of fit, compare or check: the CLI refuses it
        # (exit 2); a request says where it belongs instead of planning without it.
        for command, extra, args in (("fit", {"concurrency": 8}, ["--concurrency", "8"]),
                                     ("compare", {"policies": "trtllm"}, ["--policies", "trtllm"]),
                                     ("check", {"policy": "trtllm"}, ["--policy", "trtllm"])):
            rc, _ = cli_json_text(command, "llama-3.1-8b", "--gpu", "h100", "--lora-rank", "8",
                                  "--lora-target-modules", "attn_q", *args)
            self.assertEqual(rc, 2, command)
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan._call(command, dict(extra, model="llama-3.1-8b", gpu="h100", lora_rank=8,
                                           lora_target_modules="attn_q"))
            self.assertEqual((ctx.exception.status, ctx.exception.key),
                             ("KVP_INVALID_ARG", "/lora_rank"), command)
            self.assertEqual(ctx.exception.message,
                             "lora_rank is not a key of this command (only plan take it)")

    def test_refused_start_message_names_setting_once(self):
        # 70 GiB of weights on an 80 GB H100 at TP 2 leave vLLM no cache blocks: the
        # pipeline's message names gpu_memory_utilization once, not twice.
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("llama-3.1-70b", gpu="h100", tp=2, policy="vllm", weights="70GiB")
        self.assertEqual((ctx.exception.status, ctx.exception.key),
                         ("KVP_INFEASIBLE", "gpu_memory_utilization"))
        self.assertTrue(ctx.exception.message.startswith(
            "gpu_memory_utilization: No available memory for the cache blocks"),
            ctx.exception.message)

    def test_sweep_axis_beside_its_setting(self):
        # An axis varies what a setting fixes: refused naming both, as `kvplan sweep
        # --tp 2 --over tp=1,2` is (exit 2), whether a key or from_command fixed it.
        rc, _ = cli_json_text("sweep", "llama-3.1-8b", "--gpu", "h100", "--tp", "2", "--over", "tp=1,2")
        self.assertEqual(rc, 2)
        trt = "trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 --tp_size 2"
        for request, said in (({"model": "llama-3.1-8b", "tp": 2}, "tp"),
                              ({"from_command": trt}, "from_command's --tp_size")):
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan._call("sweep", dict(request, gpu="h100", over=["tp=1,2"]))
            self.assertEqual(ctx.exception.key, "/tp")
            self.assertEqual(ctx.exception.message, "%s contradicts over tp: the axis varies what the "
                                                    "option fixes; give one" % said)

    def test_fit(self):
        f = kvplan.fit("llama-3.1-8b", kv_budget="40GiB", concurrency=16)
        # 327,680 tokens / 16 sequences = 20,480 tokens each.
        self.assertEqual((f["solved_for"], f["found"], f["value"]), ("max_seq_len", True, 20480))
        for policy in ("trtllm", "vllm", "sglang"):
            self.same_as_cli("fit", {"model": "llama-3.1-8b", "gpu": "h100", "policy": policy,
                                     "concurrency": 4},
                             ["llama-3.1-8b", "--gpu", "h100", "--policy", policy,
                              "--concurrency", "4"])
        self.same_as_cli("fit", {"model": "qwen3-32b", "gpu": "h100", "policy": "vllm",
                                 "solve": "tp", "gpus": 8, "concurrency": 64},
                         ["qwen3-32b", "--gpu", "h100", "--policy", "vllm", "--solve", "tp",
                          "--gpus", "8", "--concurrency", "64"])

    def test_compare(self):
        c = kvplan.compare("llama-3.1-8b", kv_budget="40GiB", max_seq_len="32k")
        rows = {e["policy"]: e for e in c["engines"]}
        self.assertEqual(sorted(rows), ["llamacpp", "sglang", "trtllm", "vllm"])
        self.assertEqual(rows["vllm"]["tokens"], 327680)
        # 327,680 tokens / 32,768 = 10 sequences.
        self.assertEqual(rows["trtllm"]["max_sequences"], 10)
        self.same_as_cli("compare", {"model": "llama-3.1-8b", "gpu": "h100"},
                         ["llama-3.1-8b", "--gpu", "h100"])
        self.same_as_cli("compare", {"model": "llama-3.1-8b", "kv_budget": "40GiB",
                                     "max_seq_len": 32768, "policies": "vllm,sglang"},
                         ["llama-3.1-8b", "--kv-budget", "40GiB", "--max-seq-len", "32768",
                          "--policies", "vllm,sglang"])
        two = kvplan.compare("llama-3.1-8b", kv_budget="40GiB", policies=["sglang", "vllm"])
        self.assertEqual([e["policy"] for e in two["engines"]], ["sglang", "vllm"])
        # An option only some engines compared read: a note in each other engine's
        # notes, byte for byte the CLI's; one no engine reads, or a policies list
        # naming no engine, is bad input (issue 29), not the default four.
        self.same_as_cli("compare", {"model": "llama-3.1-8b", "kv_budget": "40GiB",
                                     "policies": "vllm,trtllm",
                                     "capacity_scheduler_policy": "MAX_UTILIZATION"},
                         ["llama-3.1-8b", "--kv-budget", "40GiB", "--policies", "vllm,trtllm",
                          "--capacity-scheduler-policy", "MAX_UTILIZATION"])
        v = kvplan.compare("llama-3.1-8b", kv_budget="40GiB", policies="vllm,trtllm",
                           capacity_scheduler_policy="MAX_UTILIZATION")
        self.assertEqual([n for e in v["engines"] for n in e["notes"] if "not read" in n],
                         ["--capacity-scheduler-policy is not read under policy vllm: vLLM has "
                          "no capacity scheduler policy"])
        for opts in ({"policies": []}, {"policies": ""}, {"policies": "vllm,"},
                     {"policies": ["vllm", "sglang"], "capacity_scheduler_policy": "MAX_UTILIZATION"}):
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan.compare("llama-3.1-8b", kv_budget="40GiB", **opts)
            self.assertEqual(ctx.exception.status, "KVP_INVALID_ARG", opts)

    def test_sweep(self):
        s = kvplan.sweep("llama-3.1-8b", ["tp=1,2"], kv_budget="40GiB", max_seq_len=8192)
        self.assertEqual([r["tp"] for r in s["rows"]], [1, 2])
        self.assertEqual(s["rows"][0]["tokens"], 327680)
        for policy in ("trtllm", "vllm"):
            self.same_as_cli("sweep", {"model": "llama-3.1-8b", "gpu": "h100", "policy": policy,
                                       "over": ["tp=1,2", "max-seq-len=4k..16k"]},
                             ["llama-3.1-8b", "--gpu", "h100", "--policy", policy, "--over",
                              "tp=1,2", "--over", "max-seq-len=4k..16k"])

    def test_check(self):
        # Llama-3.1-8B has 32 attention heads: vLLM refuses TP 3 at start-up
        # (V-PAR-1, 32 % 3 != 0). A refusal is the document, not an exception.
        c = kvplan.check("llama-3.1-8b", gpu="h100", policy="vllm", tp=3)
        self.assertEqual((c["starts"], c["first_refusal"]), (False, "V-PAR-1"))
        self.assertEqual(c["gpu"]["name"], "H100 SXM 80GB")
        v1 = [r for r in c["checks"] if r["rule"] == "V-PAR-1"][0]
        self.assertEqual((v1["status"], v1["fix"]),
                         ("refuse", "--tp one of 1, 2, 4, 8, 16, 32 (divides 32 heads)"))
        ok = kvplan.check("llama-3.1-8b", gpu="h100", policy="vllm", tp=2)
        self.assertEqual((ok["starts"], ok["first_refusal"], ok["summary"]["refuse"]),
                         (True, None, 0))
        # Byte for byte the CLI's document (exit 1 for a refusal, 0 when it starts),
        # the fixes naming the flags as given (request key tp = --tp).
        cases = [({"model": "llama-3.1-8b", "gpu": "h100", "policy": "vllm", "tp": 3},
                  ["llama-3.1-8b", "--gpu", "h100", "--policy", "vllm", "--tp", "3"], 1),
                 ({"model": "llama-3.1-8b", "gpu": "h100", "policy": "vllm", "tp": 2,
                   "max_model_len": 8192},
                  ["llama-3.1-8b", "--gpu", "h100", "--policy", "vllm", "--tp", "2",
                   "--max-model-len", "8192"], 0),
                 ({"model": "qwen3-8b", "gpu": "rtx4090", "policy": "sglang"},
                  ["qwen3-8b", "--gpu", "rtx4090", "--policy", "sglang"], None),
                 ({"model": "llama-3.1-70b", "gpu": "h100", "policy": "trtllm", "tp": 2,
                   "kv_budget": "20GiB"},
                  ["llama-3.1-70b", "--gpu", "h100", "--policy", "trtllm", "--tp", "2",
                   "--kv-budget", "20GiB"], None),
                 ({"model": "llama-3.1-8b", "policy": "llamacpp", "ctx_size": 8192},
                  ["llama-3.1-8b", "--policy", "llamacpp", "--ctx-size", "8192"], None)]
        for request, args, want_rc in cases:
            rc, want = cli_json_text("check", *args)
            if want_rc is not None:
                self.assertEqual(rc, want_rc, args)
            got = kvplan._call_text("check", json.dumps(request))
            self.assertEqual(got + "\n", want, args)
            self.assertEqual(json.loads(got)["starts"], rc == 0, args)

    def test_check_bad_input_raises(self):
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.check("llama-3.1-8b", gpu="h100")
        self.assertEqual((ctx.exception.status, ctx.exception.key), ("KVP_INVALID_ARG", "/policy"))
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.check("llama-3.1-8b", gpu="h100", policy="vllm", tp=0)
        self.assertEqual(ctx.exception.key, "/tp")

    def test_local(self):
        # MiMo-Audio's local transformer graph pool: group_size + max(delay_pattern)
        # = 4 + 7 = 11 positions (the declaration's own formula).
        d = kvplan.local("mimo-audio", max_num_seqs=8)
        pool = [e for e in d["local_caches"] if e["name"] == "local_transformer_graph_pool"][0]
        self.assertEqual(pool["positions"], 11)
        self.assertEqual(d["deployment"]["max_num_seqs"], 8)
        for request, args in (({"model": "mimo-audio", "max_num_seqs": 8},
                               ["mimo-audio", "--max-num-seqs", "8"]),
                              ({"model": "minicpm-o", "max_num_seqs": 64, "streaming": True,
                                "enforce_eager": True},
                               ["minicpm-o", "--max-num-seqs", "64", "--streaming",
                                "--enforce-eager"])):
            rc, want = cli_json_text("local", *args)
            self.assertEqual(rc, 0, args)
            self.assertEqual(kvplan._call_text("local", json.dumps(request)) + "\n", want, args)
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.local("mimo-audio")
        self.assertEqual(ctx.exception.key, "/max_num_seqs")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.local("mimo-audio", max_num_seqs=0)
        self.assertEqual(ctx.exception.key, "/max_num_seqs")

    def test_sim(self):
        # Llama-3.2-1B, one block of 16 tokens: 16 layers x 8 KV heads x 64 dims
        # x 2 (K, V) x 2 B (bf16) x 16 = 524,288 B. Eight requests of 48 prompt
        # tokens: 384 prompt tokens, 8 x 16 = 128 output tokens.
        d = kvplan.sim("llama-3.2-1b", blocks=64, block_size=16, max_batch_size=4,
                       max_num_tokens=256, max_model_len=1024, no_timing=True,
                       synthetic="requests=8,prompt=fixed:48,output=fixed:16,seed=1")
        self.assertEqual(d["pools"][0]["page_bytes"], 524288)
        self.assertEqual((d["requests"], d["finished"], d["prompt_tokens"], d["output_tokens"]),
                         (8, 8, 384, 128))
        # At most 4 running (the batch cap); the other 4 wait for it.
        self.assertEqual((d["peak_running"], d["limited_by"]), (4, "max_batch_size"))
        # The requests themselves: 2 of 100 + 10 tokens (arrival at step 0).
        d = kvplan.sim("llama-3.2-1b", blocks=64, no_timing=True,
                       workload=[{"arrival": 0, "prompt_len": 100, "output_len": 10}] * 2)
        self.assertEqual((d["workload"], d["requests"], d["prompt_tokens"], d["output_tokens"]),
                         ("workload_text", 2, 200, 20))
        # Byte for byte `kvplan sim --json` (a file, a synthetic mix, a plan's pool,
        # each engine's scheduler).
        with tempfile.TemporaryDirectory() as tmp:
            wl = os.path.join(tmp, "w.jsonl")
            with open(wl, "w") as f:
                f.write('{"arrival": 0, "prompt_len": 1000, "output_len": 200}\n' * 3)
            cases = [({"model": "llama-3.2-1b", "blocks": 64, "block_size": 16,
                       "synthetic": "requests=8,prompt=fixed:48,output=fixed:16,"
                                    "shared_prefix=32:1,seed=1"},
                      ["llama-3.2-1b", "--blocks", "64", "--block-size", "16", "--synthetic",
                       "requests=8,prompt=fixed:48,output=fixed:16,shared_prefix=32:1,seed=1"]),
                     ({"model": "llama-3.1-8b", "gpu": "h100", "max_model_len": 8192,
                       "policy": "sglang", "workload": wl},
                      ["llama-3.1-8b", "--gpu", "h100", "--max-model-len", "8192", "--policy",
                       "sglang", "--workload", wl]),
                     ({"model": "llama-3.1-8b", "kv_budget": "4GiB", "policy": "trtllm",
                       "capacity_scheduler_policy": "MAX_UTILIZATION",
                       "synthetic": "requests=50,prompt=uniform:100:2000,output=fixed:64,seed=3"},
                      ["llama-3.1-8b", "--kv-budget", "4GiB", "--policy", "trtllm",
                       "--capacity-scheduler-policy", "MAX_UTILIZATION", "--synthetic",
                       "requests=50,prompt=uniform:100:2000,output=fixed:64,seed=3"])]
            for request, args in cases:
                rc, want = cli_json_text("sim", *args, "--no-timing", "--quiet")
                self.assertEqual(rc, 0, args)
                got = kvplan._call_text("sim", json.dumps(dict(request, no_timing=True)))
                self.assertEqual(got + "\n", want, args)
        # Bad input names the request's key; a refusal names the rule.
        for opts, key in (({"blocks": 64}, "/workload"),
                          ({"synthetic": "requests=1,prompt=fixed:8,output=fixed:8"}, "/gpu"),
                          ({"synthetic": "requests=1,prompt=fixed:8,output=fixed:8",
                            "kv_budget": "1GiB", "recurrent_slots": 4}, "/recurrent_slots"),
                          ({"synthetic": "requests=1,prompt=fixed:8,output=fixed:8",
                            "blocks": 64, "arrival_unit": "hours"}, "/arrival_unit")):
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan.sim("llama-3.2-1b", **opts)
            self.assertEqual((ctx.exception.status, ctx.exception.key), ("KVP_INVALID_ARG", key),
                             opts)
        # TensorRT-LLM refuses what does not hold one max_seq_len sequence: a 1 MiB
        # budget buys no block of Llama-3.1-8B (131,072 B per token x 32 tokens).
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.sim("llama-3.1-8b", kv_budget="1MiB",
                       synthetic="requests=1,prompt=fixed:8,output=fixed:8")
        self.assertEqual(ctx.exception.status, "KVP_INFEASIBLE")

    def test_why(self):
        # vLLM's refusal log (examples/logs/vllm-refusal.log): the largest
        # --max-model-len kvplan suggests is the one the engine's refusal names,
        # 31,232; the document is byte for byte `kvplan why LOG --json`'s.
        log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                           "logs", "vllm-refusal.log")
        with open(log) as f:
            text = f.read()
        d = kvplan.why(text)
        self.assertEqual((d["engine"], d["model"]["config"]), ("vllm", "meta-llama/Llama-3.1-405B"))
        first = d["answer"]["changes"][0]
        self.assertEqual((first["setting"], first["value"]), ("--max-model-len", 31232))
        rc, want = cli_json_text("why", log)
        self.assertEqual(rc, 0)
        self.assertEqual(kvplan._call_text("why", json.dumps({"log": text})) + "\n", want)
        # One target at a time, each at least 1 (issue 29); a log of no engine is
        # bad input naming /log.
        for opts, key in (({"target_concurrency": 4, "target_context": 8192}, "/target_context"),
                          ({"target_concurrency": 0}, "/target_concurrency")):
            with self.assertRaises(kvplan.KvplanError) as ctx:
                kvplan.why(text, **opts)
            self.assertEqual((ctx.exception.status, ctx.exception.key), ("KVP_INVALID_ARG", key))
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.why("hello\nworld\n")
        self.assertEqual(ctx.exception.key, "/log")

    def test_gpus(self):
        g = kvplan.gpus()
        self.assertEqual(json.dumps(g, indent=2) + "\n", cli_json_text("gpus", "--catalog")[1])
        h100 = [x for x in g["gpus"] if x["name"] == "H100 SXM 80GB"][0]
        self.assertEqual(h100["compute_capability"], "9.0")

    def test_from_command(self):
        vllm = ("vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 "
                "--max-model-len 8192 --kv-cache-dtype fp8 --port 8000")
        # The command's engine, model and settings: TP 2, fp8, 8,192 tokens.
        p = kvplan.plan(from_command=vllm, gpu="h100")
        self.assertEqual((p["deployment"]["policy"], p["deployment"]["tp"], p["model"]),
                         ("vllm", 2, "meta-llama/Llama-3.1-8B"))
        # The CLI's --from, byte for byte, for each command that takes it.
        for command, request, extra in (
                ("plan", {}, []),
                ("check", {}, []),
                ("fit", {"concurrency": 8}, ["--concurrency", "8"]),
                ("compare", {}, []),
                ("sweep", {"over": "max-seq-len=4k,8k"}, ["--over", "max-seq-len=4k,8k"])):
            # fit solves for the length and sweep sweeps it: the command leaves it out.
            cmd = vllm.replace(" --max-model-len 8192", "") if command in ("fit", "sweep") else vllm
            rc, want = cli_json_text(command, "--from", cmd, "--gpu", "h100", *extra)
            self.assertIn(rc, (0, 1), command)
            got = kvplan._call_text(command, json.dumps(dict(request, from_command=cmd, gpu="h100")))
            self.assertEqual(got + "\n", want, command)
        # The same value given again is one statement, as on the command line
        # (`--from "... --max-model-len 8192" --max-model-len 8192`); a pasted flag
        # the engine does not read is the engine's own (said, not refused).
        trt = "trtllm-serve meta-llama/Llama-3.1-8B --trust-remote-code"
        for command, request, args in (
                ("plan", {"from_command": vllm, "gpu": "h100", "max_model_len": 8192},
                 ["--from", vllm, "--gpu", "h100", "--max-model-len", "8192"]),
                ("plan", {"from_command": vllm, "gpu": "h100", "tp": 2, "kv_dtype": "fp8"},
                 ["--from", vllm, "--gpu", "h100", "--tp", "2", "--kv-dtype", "fp8"]),
                ("plan", {"from_command": trt, "gpu": "h100"}, ["--from", trt, "--gpu", "h100"]),
                ("compare", {"from_command": trt, "gpu": "h100"}, ["--from", trt, "--gpu", "h100"])):
            self.same_as_cli(command, request, args)
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan(from_command=vllm, gpu="h100", max_model_len=4096)
        self.assertEqual((ctx.exception.key, ctx.exception.message),
                         ("/max_model_len", "from_command's --max-model-len 8192 and max_model_len "
                                            "contradict: both set max_seq_len; give one"))
        # A request key giving a setting the command gave: both named.
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan(from_command=vllm, gpu="h100", tp=4)
        self.assertEqual(ctx.exception.key, "/tp")
        self.assertIn("--tensor-parallel-size 2", ctx.exception.message)
        # policy naming the command's engine is the same statement; another is not.
        kvplan.plan(from_command=vllm, gpu="h100", policy="vllm")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan(from_command=vllm, gpu="h100", policy="sglang")
        self.assertEqual(ctx.exception.key, "/policy")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan(from_command="", gpu="h100")
        self.assertEqual((ctx.exception.status, ctx.exception.key),
                         ("KVP_INVALID_ARG", "/from_command"))

    def test_config_dict(self):
        # A config.json as a dict: 2 layers x 8 KV heads x (128 + 128) x 2 bytes = 8,192 B a
        # token; 1 GiB / 8,192 = 131,072 tokens.
        cfg = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2,
               "num_attention_heads": 32, "num_key_value_heads": 8,
               "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
        p = kvplan.plan(cfg, kv_budget="1GiB", policy="vllm")
        self.assertEqual(p["engine_report"]["gpu_kv_cache_tokens"], 131072)

    def test_errors_raise(self):
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("no-such-model", kv_budget="40GiB")
        self.assertEqual(ctx.exception.status, "KVP_NOT_FOUND")
        self.assertEqual(ctx.exception.key, "no-such-model")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("llama-3.1-8b", kv_budget="40XB")
        self.assertEqual((ctx.exception.status, ctx.exception.key), ("KVP_INVALID_ARG", "/kv_budget"))
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("llama-3.1-8b", gpu="h100", tpp=2)
        self.assertEqual((ctx.exception.status, ctx.exception.key), ("KVP_INVALID_ARG", "/tpp"))
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.fit("llama-3.1-8b", gpu="h100", concurrency=0)
        self.assertEqual(ctx.exception.key, "/concurrency")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.compare("llama-3.1-8b", gpu="h100", policies="vllm,nosuch")
        self.assertEqual(ctx.exception.key, "/policies")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("llama-3.1-8b", gpu="nosuchgpu")
        self.assertEqual(ctx.exception.status, "KVP_NOT_FOUND")
        with self.assertRaises(kvplan.KvplanError) as ctx:
            kvplan.plan("llama-3.1-8b", gpu="h100", tp={"a": 1})
        self.assertEqual(ctx.exception.key, "/tp")


if __name__ == "__main__":
    unittest.main()
