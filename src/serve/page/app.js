/* app.js: the kvplan page. Every figure comes from the JSON API (the CLI's
 * --json documents); nothing is computed here but sums for the bar. The form
 * state lives in the URL (the query string; a pasted config.json in the hash). */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const FIELDS = ["model", "gpu", "gpus", "tp", "pp", "policy", "dtype", "kv_dtype", "max_seq_len",
    "gpu_memory_utilization", "mem_fraction_static", "free_gpu_memory_fraction", "ctx_size",
    "parallel"];
  const ENGINE_OPTS = { vllm: ["gpu_memory_utilization"], sglang: ["mem_fraction_static"],
    trtllm: ["free_gpu_memory_fraction"], llamacpp: ["ctx_size", "parallel"] };
  const ENGINE_NAMES = { trtllm: "TensorRT-LLM", vllm: "vLLM", sglang: "SGLang", llamacpp: "llama.cpp" };
  const COLORS = { trtllm: "#76b900", vllm: "#4e79a7", sglang: "#e15759", llamacpp: "#b07aa1" };
  let accuracy = {};
  let answered = [];

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const svgNS = "http://www.w3.org/2000/svg";
  function sv(tag, attrs, text) {
    const e = document.createElementNS(svgNS, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function int(n) { return Number(n).toLocaleString("en-US"); }
  function gib(b) { return (b / 1073741824).toFixed(2) + " GiB"; }
  /* A figure cell: the CLI's value in data-v, shown as text (data-k names it). */
  function num(key, v, bytes) {
    const td = el("td", { class: "num", "data-k": key, "data-v": v === null ? "null" : String(v) });
    td.textContent = v === null || v === undefined ? "-" : bytes ? gib(v) : int(v);
    if (bytes && v !== null) td.title = int(v) + " bytes";
    return td;
  }

  async function api(method, path, body) {
    const init = { method: method, headers: {} };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    const r = await fetch(path, init);
    let doc = null;
    try { doc = await r.json(); } catch (e) { doc = { error: { status: r.status, key: null, message: "not JSON" } }; }
    return { status: r.status, doc: doc };
  }

  function clearErrors() {
    document.querySelectorAll(".err").forEach((e) => { e.textContent = ""; });
    document.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  }
  /* An API error next to the field it names ("/tp" -> the TP box). */
  function showError(err) {
    const key = (err.key || "").replace(/^\//, "").split("/")[0];
    let field = key;
    if (key === "model" && $("config").value.trim()) field = "config";
    const slot = $("err-" + field);
    if (slot && $(field)) {
      slot.textContent = err.message;
      $(field).classList.add("invalid");
    } else {
      $("err-general").textContent = err.message;
    }
  }

  function value(name) {
    const v = $(name).value.trim();
    if (v === "") return undefined;
    if ($(name).type === "number") {
      const n = Number(v);
      return Number.isFinite(n) ? n : v;
    }
    return v;
  }

  /* {"model": NAME} or {"config": {...}} (a pasted config.json). */
  function modelKeys() {
    const text = $("config").value.trim();
    if (!text) { const m = value("model"); return m === undefined ? {} : { model: m }; }
    try { return { config: JSON.parse(text) }; } catch (e) { throw { key: "/config", message: "config.json: " + e.message }; }
  }

  function request(kind, extra) {
    const r = modelKeys();
    const keys = kind === "cost" ? ["tp", "pp", "kv_dtype"]
      : ["gpu", "tp", "pp", "dtype", "kv_dtype", "max_seq_len"];
    if (kind === "plan") keys.push("gpus", "policy");
    for (const k of keys) { const v = value(k); if (v !== undefined) r[k] = v; }
    const engines = kind === "plan" ? [value("policy") || "trtllm"] : kind === "compare" ? Object.keys(ENGINE_OPTS) : [];
    for (const e of engines) for (const k of ENGINE_OPTS[e]) { const v = value(k); if (v !== undefined) r[k] = v; }
    return Object.assign(r, extra || {});
  }

  function cliLine(req, cmd) {
    const q = (s) => (/^[A-Za-z0-9._\/:-]+$/.test(String(s)) ? String(s) : "'" + String(s).replace(/'/g, "'\\''") + "'");
    const parts = ["kvplan", cmd, req.config ? "config.json" : q(req.model)];
    for (const k in req) {
      if (k === "model" || k === "config") continue;
      for (const v of Array.isArray(req[k]) ? req[k] : [req[k]]) parts.push("--" + k.replace(/_/g, "-"), q(v));
    }
    return parts.join(" ") + " --json";
  }

  function saveState() {
    const p = new URLSearchParams();
    for (const f of FIELDS) { const v = $(f).value.trim(); if (v !== "" && !(f === "tp" || f === "pp") || (v !== "" && v !== "1")) p.set(f, v); }
    const cfg = $("config").value.trim();
    history.replaceState(null, "", "?" + p.toString() + (cfg ? "#config=" + encodeURIComponent(cfg) : ""));
  }
  function loadState() {
    const p = new URLSearchParams(location.search);
    for (const f of FIELDS) if (p.has(f)) $(f).value = p.get(f);
    const h = location.hash.match(/^#config=(.*)$/);
    if (h) $("config").value = decodeURIComponent(h[1]);
    return p.has("model") || !!h;
  }

  function showEngineOpts() {
    const e = $("policy").value;
    document.querySelectorAll(".opts").forEach((d) => d.classList.toggle("on", d.dataset.engine === e));
  }

  function renderPools(cost) {
    const tb = $("pools").tBodies[0];
    tb.replaceChildren();
    cost.pools.forEach((p, i) => {
      const tr = el("tr");
      tr.append(el("td", {}, p.kind), num("cost.pools." + i + ".layers", p.layers),
        num("cost.pools." + i + ".window_tokens", p.window_tokens), el("td", {}, p.dtype),
        num("cost.pools." + i + ".bytes_per_token", p.bytes_per_token),
        num("cost.pools." + i + ".bytes_per_sequence", p.bytes_per_sequence));
      tb.append(tr);
    });
    $("cost-block").hidden = false;
  }

  function renderEngines(cmp, selected) {
    const tb = $("engines").tBodies[0];
    tb.replaceChildren();
    for (const e of cmp.engines) {
      const tr = el("tr", e.policy === selected ? { class: "sel" } : {});
      tr.append(el("td", {}, ENGINE_NAMES[e.policy] || e.policy), num("compare." + e.policy + ".budget_bytes", e.budget_bytes, true),
        num("compare." + e.policy + ".tokens", e.tokens), num("compare." + e.policy + ".max_sequences", e.max_sequences),
        el("td", {}, e.ok === false ? "does not fit: " + (e.refusal || e.bound_by || "") : e.bound_by || ""));
      tb.append(tr);
    }
  }

  /* The stacked bar: weights, start-up reserves (activations, runtime,
   * reserve), KV, free; all from the engine's compare row. */
  function renderBar(row) {
    const m = row.memory || {};
    const total = m.total_bytes || 0;
    const reserves = (m.activation_bytes || 0) + (m.runtime_bytes || 0) + (m.reserve_bytes || 0);
    const parts = [["weights", m.weights_bytes || 0, "var(--w)"], ["start-up reserves", reserves, "var(--r)"],
      ["KV cache", row.kv_bytes || 0, "var(--kv)"]];
    const used = parts.reduce((s, p) => s + p[1], 0);
    parts.push(["free", Math.max(0, total - used), "var(--free)"]);
    const svg = sv("svg", { viewBox: "0 0 600 36", role: "img", "aria-label": "GPU memory" });
    let x = 0;
    for (const [name, b, c] of parts) {
      const w = total ? (600 * b) / total : 0;
      const r = sv("rect", { x: x.toFixed(2), y: 0, width: Math.max(0, w).toFixed(2), height: 36, fill: c });
      r.append(sv("title", {}, name + ": " + gib(b)));
      svg.append(r);
      x += w;
    }
    $("bar").replaceChildren(svg);
    const lg = $("legend");
    lg.replaceChildren();
    for (const [name, b, c] of parts) {
      const li = el("li", { "data-k": "bar." + name, "data-v": String(b) });
      const sw = el("i");
      sw.style.background = c;
      li.append(sw, document.createTextNode(name + " " + gib(b)));
      lg.append(li);
    }
    lg.append(el("li", { "data-k": "bar.total", "data-v": String(total) }, "of " + gib(total) + (m.estimated ? " (terms estimated from the config)" : "")));
  }

  function renderChart(points) {
    const W = 600, H = 260, L = 48, R = 12, T = 10, B = 36;
    const svg = sv("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "requests at once vs context length" });
    const xs = points.map((p) => p.ctx);
    let ymax = 1;
    for (const p of points) for (const e of p.engines) ymax = Math.max(ymax, e.max_sequences || 0);
    const lx = (c) => L + ((Math.log2(c) - Math.log2(xs[0])) / Math.max(1e-9, Math.log2(xs[xs.length - 1]) - Math.log2(xs[0]))) * (W - L - R);
    const ly = (v) => H - B - (v / ymax) * (H - T - B);
    svg.append(sv("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#888" }), sv("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#888" }));
    for (const c of xs) svg.append(sv("text", { x: lx(c), y: H - B + 14, "font-size": 10, "text-anchor": "middle" }, c >= 1024 ? Math.round(c / 1024) + "k" : String(c)));
    for (let k = 0; k <= 4; k++) {
      const v = Math.round((ymax * k) / 4);
      svg.append(sv("text", { x: L - 4, y: ly(v) + 3, "font-size": 10, "text-anchor": "end" }, int(v)));
    }
    svg.append(sv("text", { x: (L + W) / 2, y: H - 4, "font-size": 11, "text-anchor": "middle" }, "context length (tokens per request)"));
    const engines = points.length ? points[0].engines.map((e) => e.policy) : [];
    engines.forEach((name, i) => {
      const pts = points.map((p) => [lx(p.ctx), ly(p.engines[i].max_sequences || 0)]);
      svg.append(sv("polyline", { points: pts.map((q) => q.map((v) => v.toFixed(1)).join(",")).join(" "), fill: "none", stroke: COLORS[name] || "#333", "stroke-width": 2 }));
      points.forEach((p, j) => {
        const c = sv("circle", { cx: pts[j][0].toFixed(1), cy: pts[j][1].toFixed(1), r: 3, fill: COLORS[name] || "#333", "data-k": "chart." + name + "." + p.ctx, "data-v": String(p.engines[i].max_sequences) });
        c.append(sv("title", {}, (ENGINE_NAMES[name] || name) + " at " + int(p.ctx) + " tokens: " + int(p.engines[i].max_sequences) + " requests"));
        svg.append(c);
      });
      svg.append(sv("text", { x: W - R - 4, y: T + 12 + 13 * i, "font-size": 11, "text-anchor": "end", fill: COLORS[name] || "#333" }, ENGINE_NAMES[name] || name));
    });
    $("chart").replaceChildren(svg);
  }

  function renderWhy(plan) {
    const ul = $("why");
    ul.replaceChildren();
    const c = plan.capacity || {};
    const add = (k, t) => { if (t) ul.append(el("li", { "data-k": k }, t)); };
    add("plan.bound_by", c.bound_by ? "bound by " + c.bound_by : "");
    add("plan.budget_formula", plan.budget_formula ? "KV budget = " + plan.budget_formula : "");
    add("plan.refusal", c.refusal ? "the engine refuses: " + (typeof c.refusal === "string" ? c.refusal : JSON.stringify(c.refusal)) : "");
    for (const n of plan.notes || []) add("plan.note", n);
    for (const w of plan.warnings || []) add("plan.warning", typeof w === "string" ? w : JSON.stringify(w));
  }

  function contexts(max) {
    const out = [];
    for (let c = 1024; c < max; c *= 2) out.push(c);
    while (out.length > 7) out.splice(0, 1);
    out.push(max);
    return out;
  }

  async function run() {
    clearErrors();
    saveState();
    showEngineOpts();
    $("results").hidden = true;
    $("status").textContent = "Planning...";
    let req;
    try { req = request("cost"); } catch (e) { showError(e); $("status").textContent = ""; return; }
    if (req.model === undefined && req.config === undefined) { showError({ key: "/model", message: "a catalogue name, or paste a config.json" }); $("status").textContent = ""; return; }
    const cost = await api("POST", "/api/v1/cost", req);
    if (cost.status !== 200) { showError(cost.doc.error); $("status").textContent = "The library refused the question."; return; }
    renderPools(cost.doc);
    $("cli").textContent = cliLine(req, "cost");
    if (!answered.includes("compare")) {
      $("status").textContent = "This build answers the cost only (its library's JSON entry point answers: " + answered.join(", ") + ").";
      return;
    }
    if (value("gpu") === undefined) { showError({ key: "/gpu", message: "pick a GPU" }); return; }
    /* One compare; with a KV dtype one per engine (compare keeps each engine's
     * own dtype spelling, so the CLI takes --kv-dtype with one engine only). */
    const creq = request("compare");
    const selected = value("policy") || "trtllm";
    let cmp;
    if (creq.kv_dtype === undefined) {
      cmp = await api("POST", "/api/v1/compare", creq);
    } else {
      const rows = [];
      for (const e of Object.keys(ENGINE_OPTS)) {
        const r = await api("POST", "/api/v1/compare", Object.assign({}, creq, { policies: e }));
        if (r.status === 200) rows.push(...r.doc.engines);
        else if (e === selected) { cmp = r; break; }
        else rows.push({ policy: e, ok: false, refusal: r.doc.error.message, budget_bytes: null, tokens: null, max_sequences: null });
      }
      if (!cmp) cmp = { status: 200, doc: { engines: rows } };
    }
    if (cmp.status !== 200) { showError(cmp.doc.error); $("status").textContent = "The library refused the question."; return; }
    renderEngines(cmp.doc, selected);
    const row = cmp.doc.engines.find((e) => e.policy === selected) || cmp.doc.engines[0];
    $("bar-engine").textContent = ENGINE_NAMES[row.policy] || row.policy;
    renderBar(row);
    $("cli").textContent = cliLine(creq.kv_dtype === undefined ? creq : Object.assign({}, creq, { policies: selected }), "compare");
    $("accuracy").textContent = accuracy[selected] || "";
    $("accuracy").setAttribute("data-k", "accuracy." + selected);
    if (answered.includes("plan")) {
      const preq = request("plan");
      const plan = await api("POST", "/api/v1/plan", preq);
      if (plan.status === 200) renderWhy(plan.doc); else showError(plan.doc.error);
    }
    $("results").hidden = false;
    $("status").textContent = "";
    /* The chart: one sweep over context length x the engines that answered. */
    const max = creq.max_seq_len || row.max_seq_len;
    const engines = cmp.doc.engines.filter((e) => e.ok !== false || e.tokens !== null).map((e) => e.policy);
    if (max && engines.length) {
      const ctxs = contexts(max);
      const sreq = Object.assign({}, creq, { over: ["max_seq_len=" + ctxs.join(","), "policy=" + engines.join(",")] });
      delete sreq.max_seq_len;
      delete sreq.policies;
      const r = await api("POST", "/api/v1/sweep", sreq);
      if (r.status === 200) {
        const points = ctxs.map((c) => ({ ctx: c, engines: engines.map((e) => {
          const hit = r.doc.rows.find((x) => x.policy === e && x.max_seq_len === c) || {};
          return { policy: e, max_sequences: hit.max_sequences === undefined ? 0 : hit.max_sequences };
        }) }));
        renderChart(points);
      } else {
        $("chart").textContent = r.doc.error.message;
      }
    }
  }

  let searchTimer = null;
  async function search() {
    const q = $("model").value.trim();
    const r = await api("GET", "/api/v1/models" + (q ? "?q=" + encodeURIComponent(q) : ""));
    if (r.status !== 200) return;
    $("models").replaceChildren(...r.doc.slice(0, 200).map((m) => el("option", { value: m.name }, m.hf_id)));
  }

  /* "Paste your log": POST /api/v1/why (kvp_json_call "why"); the figures as the
   * CLI's `kvplan why --json` gives them. The log is not saved in the URL. */
  function whyValue(v) {
    if (v === null || v === undefined) return "-";
    if (Array.isArray(v)) return v.map((x) => x.toLocaleString("en-US")).join(" .. ");
    return typeof v === "number" ? v.toLocaleString("en-US") : String(v);
  }
  async function explain(text, model) {
    $("err-log").textContent = "";
    $("whyout").hidden = true;
    const req = { log: text };
    if (model) req.model = model;
    const r = await api("POST", "/api/v1/why", req);
    if (r.status !== 200) { $("err-log").textContent = r.doc.error.message; return; }
    const d = r.doc;
    $("whyhead").textContent = d.engine_name + (d.engine_version ? " " + d.engine_version : "") +
      ", model " + d.model.config + " (" + d.model.found_by + "); given memory: " + d.given_memory.from;
    const body = $("whytable").tBodies[0];
    body.replaceChildren();
    for (const f of d.figures) {
      const tr = el("tr");
      tr.append(el("td", { title: f.line }, f.name));
      tr.append(el("td", { class: "num", "data-k": "why." + f.name + ".logged", "data-v": String(f.logged) }, f.printed + " " + f.unit));
      tr.append(el("td", { class: "num", "data-k": "why." + f.name + ".given", "data-v": JSON.stringify(f.given_memory) }, whyValue(f.given_memory)));
      tr.append(el("td", { class: "num", "data-k": "why." + f.name + ".config", "data-v": JSON.stringify(f.from_config) }, whyValue(f.from_config)));
      tr.append(el("td", { "data-k": "why." + f.name + ".verdict" }, f.role === "output" ? (f.reproduced ? "reproduced" : "differs") : f.role));
      tr.append(el("td", {}, f.basis));
      body.append(tr);
    }
    const ans = $("whyanswer");
    ans.replaceChildren();
    for (const c of d.answer.changes || [])
      ans.append(el("li", { "data-k": "why.answer." + c.setting, "data-v": JSON.stringify(c.value) },
        c.found ? c.setting + " " + whyValue(c.value) + " (limited by " + c.limited_by + ")" : c.setting + ": " + c.limited_by));
    const un = $("whyunread");
    un.replaceChildren();
    for (const u of d.unread_lines) un.append(el("li", {}, "not read, line " + u.line_number + ": " + u.line));
    $("whyout").hidden = false;
  }

  async function init() {
    const [health, gpus, pol] = await Promise.all([api("GET", "/api/v1/health"), api("GET", "/api/v1/gpus"), api("GET", "/api/v1/policies")]);
    answered = health.status === 200 ? health.doc.commands.split(" ") : [];
    const sel = $("gpu");
    sel.append(el("option", { value: "" }, "-"));
    if (gpus.status === 200) for (const g of gpus.doc.gpus) sel.append(el("option", { value: g.name }, g.name + " (" + gib(g.total_bytes) + ")"));
    if (pol.status === 200) for (const p of pol.doc.policies) if (p.accuracy) accuracy[p.name] = p.accuracy;
    search();
    $("model").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, 150); });
    $("policy").addEventListener("change", showEngineOpts);
    const cfg = $("config");
    cfg.addEventListener("dragover", (e) => { e.preventDefault(); cfg.classList.add("drop"); });
    cfg.addEventListener("dragleave", () => cfg.classList.remove("drop"));
    cfg.addEventListener("drop", (e) => {
      e.preventDefault();
      cfg.classList.remove("drop");
      const f = e.dataTransfer.files[0];
      if (f) f.text().then((t) => { cfg.value = t; });
    });
    $("form").addEventListener("submit", (e) => { e.preventDefault(); run(); });
    $("whyform").addEventListener("submit", (e) => { e.preventDefault(); explain($("log").value, $("logmodel").value.trim()); });
    /* ?log=TEXT&logmodel=NAME: explain a log given in the address (the page's test) */
    const qs = new URLSearchParams(location.search);
    if (qs.get("log") !== null) {
      $("log").value = qs.get("log");
      $("logmodel").value = qs.get("logmodel") || "";
      try { await explain($("log").value, $("logmodel").value.trim()); } finally { document.body.setAttribute("data-done", "1"); }
      return;
    }
    const asked = loadState();
    showEngineOpts();
    try { if (asked) await run(); } finally { document.body.setAttribute("data-done", "1"); }
  }
  document.addEventListener("DOMContentLoaded", init);
})();
