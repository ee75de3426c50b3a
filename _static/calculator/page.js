// The website calculator, part 4 of 4: the page (book/calculator.md draws it into #shuffle-calculator).
//
// The form (randomizer, n, ε₀, δ, target ε, rounds T) is checked field by field against the
// library's box; a field's error blanks only the answers that read it. Every applicable bound gets
// a row with its three answers and the command line that gives each; the smallest ε (every row
// is a valid upper bound) is marked. Answers are computed in slices of a few milliseconds between
// frames (the fast bounds first), and a plot (ε against n, or against ε₀; inline SVG) fills in
// after the table. The theorems' titles and references come from the library's registry, written
// into the page by the chapter as window.SHUFFLE_CALCULATOR_BOUNDS.
(function (name, deps, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(...deps.map((d) => require(`./${d}.js`)));
  } else {
    const registry = (window.shuffleCalculatorModules = window.shuffleCalculatorModules || {});
    registry[name] = { deps, factory, main: true };
  }
})("page", ["numerics", "bounds", "compose"], function (N, B, C) {
  "use strict";

  // ------------------------------------------------------------------ the fields and their box
  const BOX = B.BOX;
  const sup = (e) => String(e).replace(/-/g, "⁻").replace(/\d/g, (d) => "⁰¹²³⁴⁵⁶⁷⁸⁹"[d]);
  const FIELDS = {
    n: { label: "users n", initial: "123456", integer: true, lo: BOX.nMin, hi: BOX.nMax, range: `an integer from 2 to 10${sup(9)}`, flag: "--n" },
    eps0: { label: "local ε₀", initial: "1.3", lo: BOX.eps0Min, hi: BOX.eps0Max, range: `a number from 10${sup(-6)} to 100`, flag: "--eps0" },
    delta: { label: "central δ", initial: "3e-7", lo: 0, hi: 1, open: true, range: "a number between 0 and 1 (both excluded)", flag: "--delta" },
    eps: { label: "target central ε", initial: "0.05", lo: 0, hi: Infinity, range: "a number ≥ 0", flag: "--eps" },
    rounds: { label: "rounds T", initial: "1", integer: true, lo: 1, hi: BOX.roundsMax, range: "an integer from 1 to 10,000", flag: "--compose" },
    k: { label: "k", initial: "2", integer: true, lo: BOX.kMin, hi: BOX.kMax, range: `an integer from 2 to 10${sup(9)}`, flag: "--k" },
  };

  // The value of a field, or an Error naming the field and its range (as the command line's).
  function parseField(key, text) {
    const f = FIELDS[key];
    const cleaned = String(text).trim();
    const value = /^[+]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(cleaned) ? Number(cleaned) : NaN;
    const inside = Number.isFinite(value) && (f.open ? value > f.lo && value < f.hi : value >= f.lo && value <= f.hi);
    if (!inside || (f.integer && !Number.isInteger(value))) {
      const shown = cleaned.length > 24 ? `${cleaned.slice(0, 24)}…` : cleaned;
      return new Error(`${f.label.replace(/^.* /, "")} must be ${f.range}${cleaned ? ` (got ${shown})` : ""}`);
    }
    return value;
  }

  // The rows: every bound of the page, in this order; which randomizers each covers comes from
  // bounds.js (as the library's `mechanisms`).
  const ROWS = ["thinned-clones", "stronger-clones", "clones", "blanket-bennett", "blanket-hoeffding", "clones-closed", "erlingsson"];
  const SHORT = {
    "thinned-clones": "thinned clones", "stronger-clones": "stronger clones", clones: "clones",
    "blanket-bennett": "blanket, Bennett", "blanket-hoeffding": "blanket, Hoeffding", "clones-closed": "clones, closed form",
    erlingsson: "Erlingsson et al.",
  };
  const RANDOMIZERS = {
    generic: "any ε₀-LDP randomizer",
    krr: "k-ary randomized response (k-RR)",
    laplace: "Laplace mechanism on [0, 1]",
  };
  const COLORS = ["#1b6ca8", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#7f8c8d", "#b8860b"];
  const DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4"];

  // ------------------------------------------------------------------ the command line
  const num = (x) => String(x); // the shortest decimal that reads back as x (Python's float() too)
  function commandOf(question, name, rand, values, rounds) {
    const r = B.BOUNDS[name] ? B.boundRandomizer(name, rand) : rand; // exact-krr: the typed k-RR
    const args = ["python -m shufflelib", question, "--bound", name, "--n", num(values.n)];
    if (question === "epsilon") args.push("--eps0", num(values.eps0), "--delta", num(values.delta));
    if (question === "delta") args.push("--eps0", num(values.eps0), "--eps", num(values.eps));
    if (question === "eps0") args.push("--eps", num(values.eps), "--delta", num(values.delta));
    if (r.kind !== "generic") args.push("--mechanism", r.kind);
    if (r.kind === "krr") args.push("--k", num(r.k));
    if (rounds > 1) args.push("--compose", num(rounds));
    return args.join(" ");
  }

  // ------------------------------------------------------------------ the scheduler
  // Tasks are generators run in slices of SLICE ms between frames, in order; a new input cancels
  // every pending task (a new generation).
  const SLICE = 12;
  function makeScheduler(onIdle) {
    let queue = [], timer = null, generation = 0;
    const pump = () => {
      timer = null;
      const start = performance.now();
      while (queue.length && performance.now() - start < SLICE) {
        const task = queue[0];
        let step;
        try {
          step = task.gen.next();
        } catch (error) {
          queue.shift();
          task.done(error, true);
          continue;
        }
        if (step.done) {
          queue.shift();
          task.done(step.value, false);
        }
      }
      if (queue.length) timer = setTimeout(pump, 0);
      else onIdle();
    };
    return {
      reset() { queue = []; generation++; if (timer) { clearTimeout(timer); timer = null; } return generation; },
      add(gen, done) { queue.push({ gen, done }); if (!timer) timer = setTimeout(pump, 0); },
      get pending() { return queue.length; },
    };
  }

  function* once(f) { yield; return f(); } // a plain function as a one-step task

  // ------------------------------------------------------------------ formatting
  const up = (x) => N.fmt(x, 1), down = (x) => N.fmt(x, -1);
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

  // ------------------------------------------------------------------ the page
  function mount(root, registry) {
    const field = (key, extra = "") =>
      `<label class="calc-field" for="calc-${key}"><span class="calc-label">${FIELDS[key].label}</span>` +
      `<input id="calc-${key}" value="${FIELDS[key].initial}" inputmode="decimal" autocomplete="off" spellcheck="false"${extra}>` +
      `<span class="calc-range">${FIELDS[key].range}</span>` +
      `<span class="calc-error" id="calc-${key}-error" role="alert"></span></label>`;
    root.innerHTML = `
<form class="calc-form" onsubmit="return false">
  <fieldset class="calc-randomizer"><legend>local randomizer</legend>
    ${Object.entries(RANDOMIZERS).map(([kind, text]) =>
      `<label><input type="radio" name="calc-rand" value="${kind}"${kind === "krr" ? " checked" : ""}> ${text}</label>`).join("")}
    ${field("k", ' size="8"')}
  </fieldset>
  <div class="calc-fields">${field("n")}${field("eps0")}${field("delta")}${field("eps")}${field("rounds")}</div>
</form>
<p class="calc-advice" id="calc-advice" aria-live="polite"></p>
<div class="calc-table-wrap"><table class="calc-table" id="calc-table">
  <colgroup><col class="calc-c-bound"><col class="calc-c-ans"><col class="calc-c-ans"><col class="calc-c-ans"></colgroup>
  <thead><tr><th scope="col">bound</th><th scope="col" id="calc-h-eps"></th><th scope="col" id="calc-h-delta"></th><th scope="col" id="calc-h-eps0"></th></tr></thead>
  <tbody>${ROWS.map((name) => `<tr id="calc-row-${name}" data-bound="${name}">
    <th scope="row" title="${esc((registry[name] || {}).title || "")}"><span class="calc-bound-name">${SHORT[name]}</span><code>${name}</code><span class="calc-note"></span></th>
    ${["eps", "delta", "eps0"].map((q) => `<td class="calc-cell" data-q="${q}"><span class="calc-value"></span><span class="calc-detail"></span><button type="button" class="calc-copy" title="copy the command line that gives this answer" aria-label="copy the command line">copy</button></td>`).join("")}
  </tr>`).join("")}
  <tr id="calc-row-exact-krr" class="calc-exact"><th scope="row"><span class="calc-bound-name">exact worst case</span><code>exact-krr</code></th>
    <td colspan="3"><span class="calc-detail">The exact privacy of shuffled k-RR (a search over datasets): on the command line only,
    <code id="calc-exact-command"></code> <button type="button" class="calc-copy" id="calc-exact-copy">copy</button></span></td></tr>
  </tbody></table></div>
<p class="calc-command-line">Command line: <code id="calc-command" tabindex="0">(press copy next to an answer)</code></p>
<details class="calc-sources"><summary>The theorem behind each row</summary><ul>${ROWS.concat(["exact-krr"]).filter((name) => registry[name])
  .map((name) => `<li><code>${name}</code>: ${esc(registry[name].title)}. ${esc(registry[name].reference)}</li>`).join("")}</ul></details>
<div class="calc-plot">
  <div class="calc-plot-tabs" role="tablist">
    <button type="button" role="tab" id="calc-view-n" aria-selected="true">ε against n</button>
    <button type="button" role="tab" id="calc-view-eps0" aria-selected="false">ε against ε₀</button>
    <span class="calc-plot-status" id="calc-plot-status"></span>
  </div>
  <svg id="calc-plot" viewBox="0 0 720 400" role="img" aria-label="central ε of each bound"></svg>
</div>`;
    const $ = (id) => document.getElementById(id);
    const scheduler = makeScheduler(() => { root.dataset.busy = "0"; });
    let view = "n";
    let plotData = null;

    function read() {
      const values = {}, errors = {};
      const rand = { kind: root.querySelector('input[name="calc-rand"]:checked').value };
      const keys = ["n", "eps0", "delta", "eps", "rounds"].concat(rand.kind === "krr" ? ["k"] : []);
      for (const key of keys) {
        const v = parseField(key, $(`calc-${key}`).value);
        if (v instanceof Error) errors[key] = v.message; else values[key] = v;
      }
      if (rand.kind === "krr" && values.k !== undefined) rand.k = values.k;
      $("calc-k").disabled = rand.kind !== "krr";
      for (const key of Object.keys(FIELDS)) {
        $(`calc-${key}-error`).textContent = errors[key] || "";
        $(`calc-${key}`).setAttribute("aria-invalid", errors[key] ? "true" : "false");
      }
      return { values, errors, rand };
    }

    // which fields each question reads
    const NEEDS = { eps: ["n", "eps0", "delta"], delta: ["n", "eps0", "eps"], eps0: ["n", "eps", "delta"] };

    function setCell(name, q, state) {
      const cell = root.querySelector(`#calc-row-${name} td[data-q="${q}"]`);
      cell.dataset.state = state.kind; // pending, answer, zero, blank, na, error
      cell.dataset.value = state.value === undefined ? "" : String(state.value);
      cell.querySelector(".calc-value").textContent = state.text;
      cell.querySelector(".calc-detail").textContent = state.detail || "";
      const copy = cell.querySelector(".calc-copy");
      copy.dataset.command = state.command || "";
      copy.hidden = !state.command;
    }

    function markBest() {
      root.querySelectorAll(".calc-best").forEach((c) => c.classList.remove("calc-best"));
      for (const q of ["eps", "delta", "eps0"]) {
        const cells = Array.from(root.querySelectorAll(`td[data-q="${q}"][data-state="answer"], td[data-q="${q}"][data-state="zero"]`))
          .filter((c) => !c.closest("tr").hidden);
        if (!cells.length) continue;
        const value = (c) => Number(c.dataset.value);
        const best = q === "eps0" ? Math.max(...cells.map(value)) : Math.min(...cells.map(value));
        cells.filter((c) => value(c) === best).forEach((c) => c.classList.add("calc-best"));
      }
      advise();
    }

    function advise() {
      const best = root.querySelector('td[data-q="eps"].calc-best');
      const pending = root.querySelector('td[data-q="eps"][data-state="pending"]');
      const input = current;
      if (!input || !best) {
        $("calc-advice").textContent = pending ? "Computing…" : "";
        return;
      }
      const name = best.closest("tr").dataset.bound;
      const rounds = input.values.rounds || 1;
      const others = Array.from(root.querySelectorAll('td[data-q="eps"][data-state="answer"]'))
        .filter((c) => c !== best && !c.closest("tr").hidden).map((c) => Number(c.dataset.value));
      const runnerUp = others.length ? Math.min(...others) : null;
      const ratio = runnerUp ? ` (the next one gives ${up(runnerUp)}, ${(runnerUp / Number(best.dataset.value)).toFixed(2)} times more)` : "";
      $("calc-advice").textContent =
        `For these inputs, use ${SHORT[name]} (${name}): ε = ${best.querySelector(".calc-value").textContent}` +
        `${rounds > 1 ? ` over ${rounds} rounds` : ""} at δ = ${num(input.values.delta)}, the smallest of the valid bounds below${ratio}.` +
        (pending ? " Still computing the others…" : "");
    }

    let current = null;

    function update() {
      const input = read();
      current = input;
      const { values, errors, rand } = input;
      const rounds = errors.rounds ? null : values.rounds;
      scheduler.reset();
      root.dataset.busy = "1";
      const T = rounds > 1 ? ` over ${rounds} rounds` : "";
      const show = (key) => (errors[key] ? FIELDS[key].label.replace(/^.* /, "") : num(values[key]));
      $("calc-h-eps").textContent = `ε at δ = ${show("delta")}${T}`;
      $("calc-h-delta").textContent = errors.eps ? `δ at the target ε${T}` : `δ at ε = ${show("eps")}${T}`;
      $("calc-h-eps0").textContent = errors.eps || errors.delta ? `largest ε₀ for the target (ε, δ)${T}`
        : `largest ε₀ for ε = ${show("eps")}, δ = ${show("delta")}${T}`;
      const tasks = [];
      for (const name of ROWS) {
        const row = $(`calc-row-${name}`);
        const r = B.boundRandomizer(name, rand);
        const note = row.querySelector(".calc-note");
        row.hidden = false;
        row.classList.remove("calc-na");
        if (!r) { // the bound does not cover this randomizer
          row.classList.add("calc-na");
          note.textContent = name.includes("clones") ? "k-RR only (its proof needs the k-RR decomposition)" : "";
          for (const q of ["eps", "delta", "eps0"]) setCell(name, q, { kind: "na", text: "—", detail: "" });
          continue;
        }
        if (name === "thinned-clones" && rand.kind === "krr" && rand.k === 2) {
          row.hidden = true; // thinned clones are stronger clones for k = 2
          continue;
        }
        note.textContent = covers(name, r, rand);
        const pairBased = !!B.BOUNDS[name].pair;
        for (const q of ["eps", "delta", "eps0"]) {
          const missing = NEEDS[q].filter((key) => errors[key]).concat(errors.rounds ? ["rounds"] : [])
            .concat(rand.kind === "krr" && errors.k ? ["k"] : []);
          if (missing.length) {
            setCell(name, q, { kind: "blank", text: "—", detail: `needs a valid ${missing.map((k) => FIELDS[k].label.replace(/^.* /, "")).join(", ")}` });
            continue;
          }
          if (rounds > 1 && !pairBased) {
            setCell(name, q, {
              kind: "blank", text: "—", detail: "T rounds: on the command line (composed through its privacy profile)",
              command: commandOf({ eps: "epsilon", delta: "delta", eps0: "eps0" }[q], name, rand, values, rounds),
            });
            continue;
          }
          if (q === "eps0" && !(values.eps > 0)) {
            setCell(name, q, { kind: "blank", text: "—", detail: "needs a target ε > 0" });
            continue;
          }
          setCell(name, q, { kind: "pending", text: "…", detail: "" });
          tasks.push({ name, q, r, cost: costOf(name, q, rounds) });
        }
      }
      const exact = $("calc-row-exact-krr");
      exact.hidden = !(rand.kind === "krr");
      if (!exact.hidden && !errors.n && !errors.eps0 && !errors.delta && !errors.k) {
        $("calc-exact-command").textContent = commandOf("epsilon", "exact-krr", rand, values, rounds || 1);
        $("calc-exact-copy").dataset.command = $("calc-exact-command").textContent;
      }
      tasks.sort((a, b) => a.cost - b.cost);
      for (const t of tasks) scheduler.add(taskOf(t, values, rounds), (result, failed) => finish(t, values, rounds, result, failed));
      markBest();
      schedulePlot(input);
      if (!scheduler.pending) root.dataset.busy = "0"; // nothing to compute (every answer needs a bad field)
    }

    function covers(name, r, rand) {
      if (r.kind === rand.kind) return "";
      return "valid for any ε₀-LDP randomizer";
    }

    // a rough order of cost: closed forms, blankets, clone pairs, then thinned clones; T rounds last
    function costOf(name, q, rounds) {
      const base = { erlingsson: 0, "clones-closed": 0, "blanket-bennett": 1, "blanket-hoeffding": 1, clones: 2, "stronger-clones": 2, "thinned-clones": 5 }[name];
      return base + (rounds > 1 ? 3 : 0) + { eps: 0, delta: 0.1, eps0: 0.5 }[q];
    }

    function taskOf({ name, q, r }, values, rounds) {
      const { n, eps0, delta, eps } = values;
      if (rounds > 1) {
        if (q === "eps") return once(() => C.composedEpsilon(name, n, eps0, rounds, delta));
        if (q === "delta") return once(() => C.composedDelta(name, n, eps0, rounds, eps));
        return (function* () {
          const top = yield* B.maxEps0Search(name, r, n, eps, delta);
          if (top === null) return null;
          return yield* C.composedMaxEps0Search(name, n, eps, delta, rounds, top);
        })();
      }
      if (q === "eps") return B.epsilonSearch(name, r, n, eps0, delta);
      if (q === "delta") return once(() => B.deltaUpper(name, r, n, eps0, eps));
      return B.maxEps0Search(name, r, n, eps, delta);
    }

    function finish({ name, q }, values, rounds, result, failed) {
      const { rand } = current;
      const command = commandOf({ eps: "epsilon", delta: "delta", eps0: "eps0" }[q], name, rand, values, rounds);
      if (failed) {
        const na = result instanceof B.NotApplicable;
        setCell(name, q, { kind: na ? "na" : "error", text: "—", detail: na ? `not applicable: ${result.message}` : `error: ${result.message}`, command });
      } else if (q === "eps") {
        const eps = rounds > 1 ? result.eps : result;
        const cap = (rounds || 1) * values.eps0;
        setCell(name, q, {
          kind: "answer", value: Number(up(eps)), text: up(eps), command,
          detail: eps >= cap ? `the local guarantee${rounds > 1 ? " (T ε₀)" : " (ε₀)"}: no smaller ε reaches this δ` : "",
        });
      } else if (q === "delta") {
        const delta = rounds > 1 ? result.delta : result;
        if (delta === 0) {
          setCell(name, q, { kind: "zero", value: 0, text: "0", command,
            detail: rounds > 1 ? "exactly: T rounds of ε₀-DP are (T ε₀)-DP" : "exactly: the shuffled protocol is ε₀-DP, so δ = 0 at every ε ≥ ε₀" });
        } else {
          setCell(name, q, { kind: "answer", value: Number(up(delta)), text: up(delta), command,
            detail: delta <= B.DELTA_FLOOR * (1 + 1e-3) ? "the smallest δ resolved (as the command line)" : "" });
        }
      } else {
        if (result === null || result < BOX.eps0Min) {
          setCell(name, q, { kind: "na", text: "—", command,
            detail: `not applicable: no ε₀ in the box (≥ 10${sup(-6)}) reaches this (ε, δ)${result ? `; the bound's search gives ${down(result)}` : ""}` });
        } else {
          setCell(name, q, { kind: "answer", value: Number(down(result)), text: down(result), command,
            detail: result >= B.EPS0_SEARCH_MAX ? `every ε₀ up to ${B.EPS0_SEARCH_MAX} (the largest searched)` : "" });
        }
      }
      markBest();
    }

    // ---------------------------------------------------------------- the plot
    function schedulePlot(input) {
      const { values, errors, rand } = input;
      const rounds = errors.rounds ? null : values.rounds;
      const needs = view === "n" ? ["eps0", "delta"] : ["n", "delta"];
      const missing = needs.filter((k) => errors[k]).concat(errors.rounds ? ["rounds"] : []).concat(rand.kind === "krr" && errors.k ? ["k"] : []);
      if (missing.length) {
        plotData = null;
        drawPlot(input);
        $("calc-plot-status").textContent = `the plot needs a valid ${missing.map((k) => FIELDS[k].label.replace(/^.* /, "")).join(", ")}`;
        return;
      }
      const names = ROWS.filter((name) => {
        const r = B.boundRandomizer(name, rand);
        if (!r || (name === "thinned-clones" && rand.k === 2)) return false;
        return !(rounds > 1 && !B.BOUNDS[name].pair);
      });
      const xs = view === "n" ? gridWith(1e1, 1e9, values.n, 25, true) : gridWith(Math.max(BOX.eps0Min, Math.min(0.01, values.eps0 / 3)), Math.min(BOX.eps0Max, Math.max(20, values.eps0 * 3)), values.eps0, 25, false);
      plotData = { view, xs, values, rounds, names, curves: {} };
      names.forEach((name, index) => { plotData.curves[name] = { index, points: [], pending: 0 }; });
      drawPlot(input);
      names.forEach((name, index) => {
        const r = B.boundRandomizer(name, rand);
        const expensive = name === "thinned-clones" || rounds > 1;
        const points = expensive ? xs.filter((x, i) => i % 3 === 0 || i === xs.length - 1 || isTyped(x)) : xs;
        for (const x of points) {
          const n = view === "n" ? x : values.n, eps0 = view === "n" ? values.eps0 : x;
          const gen = rounds > 1 ? once(() => C.composedEpsilon(name, n, eps0, rounds, values.delta).eps)
            : B.epsilonSearch(name, r, n, eps0, values.delta);
          const data = plotData;
          data.curves[name].pending++;
          scheduler.add(gen, (eps, failed) => {
            if (data !== plotData) return;
            data.curves[name].pending--;
            if (!failed && eps > 0) data.curves[name].points.push([x, eps]);
            drawPlot(input);
          });
        }
      });
      function isTyped(x) { return x === (view === "n" ? values.n : values.eps0); }
    }

    function gridWith(lo, hi, typed, count, integer) {
      const xs = [];
      for (let i = 0; i < count; i++) {
        const x = Math.exp(Math.log(lo) + (i / (count - 1)) * (Math.log(hi) - Math.log(lo)));
        xs.push(integer ? Math.round(x) : Number(x.toPrecision(3)));
      }
      if (typed >= lo && typed <= hi) xs.push(typed);
      return Array.from(new Set(xs)).sort((a, b) => a - b);
    }

    function drawPlot(input) {
      const svg = $("calc-plot");
      const W = 720, H = 400, left = 70, right = 190, top = 16, bottom = 52;
      if (!plotData) { svg.innerHTML = ""; return; }
      const { xs, names, curves, values, rounds } = plotData;
      const typed = plotData.view === "n" ? values.n : values.eps0;
      const all = names.flatMap((name) => curves[name].points.map((p) => p[1]));
      const done = names.reduce((s, name) => s + curves[name].points.length, 0);
      $("calc-plot-status").textContent = scheduler.pending ? `computing… (${done} points)` : "";
      const x0 = Math.log10(xs[0]), x1 = Math.log10(xs[xs.length - 1]);
      let y0 = all.length ? Math.floor(Math.log10(Math.min(...all))) : -4;
      let y1 = all.length ? Math.ceil(Math.log10(Math.max(...all))) : 1;
      if (plotData.view === "eps0") y1 = Math.max(y1, Math.ceil(Math.log10(xs[xs.length - 1] * (rounds || 1))));
      if (y1 - y0 < 2) y0 = y1 - 2;
      y0 = Math.max(y0, y1 - 14);
      const px = (x) => left + ((Math.log10(x) - x0) / (x1 - x0)) * (W - left - right);
      const py = (y) => top + (1 - (Math.log10(y) - y0) / (y1 - y0)) * (H - top - bottom);
      const parts = [];
      // axes and decades
      for (let d = Math.ceil(x0); d <= Math.floor(x1); d++) {
        parts.push(`<line class="calc-grid" x1="${px(10 ** d)}" x2="${px(10 ** d)}" y1="${top}" y2="${H - bottom}"/>`,
          `<text class="calc-tick" x="${px(10 ** d)}" y="${H - bottom + 16}" text-anchor="middle">10${sup(d)}</text>`);
      }
      const stepY = Math.max(1, Math.ceil((y1 - y0) / 8));
      for (let d = y0; d <= y1; d += stepY) {
        parts.push(`<line class="calc-grid" x1="${left}" x2="${W - right}" y1="${py(10 ** d)}" y2="${py(10 ** d)}"/>`,
          `<text class="calc-tick" x="${left - 6}" y="${py(10 ** d) + 4}" text-anchor="end">10${sup(d)}</text>`);
      }
      parts.push(`<rect class="calc-frame" x="${left}" y="${top}" width="${W - left - right}" height="${H - top - bottom}"/>`);
      const xlabel = plotData.view === "n" ? `users n (ε₀ = ${num(values.eps0)}, δ = ${num(values.delta)})` : `local ε₀ (n = ${num(values.n)}, δ = ${num(values.delta)})`;
      parts.push(`<text class="calc-axis" x="${(left + W - right) / 2}" y="${H - 12}" text-anchor="middle">${esc(xlabel)}</text>`,
        `<text class="calc-axis" transform="translate(16 ${(top + H - bottom) / 2}) rotate(-90)" text-anchor="middle">central ε${rounds > 1 ? ` (${rounds} rounds)` : ""}</text>`);
      // the local guarantee ε = T ε₀ (against ε₀)
      if (plotData.view === "eps0") {
        const line = xs.filter((x) => x * (rounds || 1) >= 10 ** y0 && x * (rounds || 1) <= 10 ** y1);
        if (line.length > 1) {
          parts.push(`<polyline class="calc-local" points="${line.map((x) => `${px(x)},${py(x * (rounds || 1))}`).join(" ")}"/>`,
            `<text class="calc-tick" x="${px(line[line.length - 1]) - 4}" y="${py(line[line.length - 1] * (rounds || 1)) + 14}" text-anchor="end">ε = ${rounds > 1 ? "T " : ""}ε₀</text>`);
        }
      }
      // the typed point
      if (typed >= xs[0] && typed <= xs[xs.length - 1]) {
        parts.push(`<line class="calc-typed" x1="${px(typed)}" x2="${px(typed)}" y1="${top}" y2="${H - bottom}"/>`);
      }
      names.forEach((name) => {
        const { index, points } = curves[name];
        const sorted = points.slice().sort((a, b) => a[0] - b[0]).filter((p) => p[1] >= 10 ** y0);
        const color = COLORS[index % COLORS.length], dash = DASHES[index % DASHES.length];
        if (sorted.length > 1) {
          parts.push(`<polyline class="calc-curve" data-bound="${name}" stroke="${color}" stroke-dasharray="${dash}" points="${sorted.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(" ")}"/>`);
        }
        const at = sorted.find((p) => p[0] === typed);
        if (at) parts.push(`<circle class="calc-point" data-bound="${name}" cx="${px(at[0])}" cy="${py(at[1])}" r="4" fill="${color}"><title>${esc(SHORT[name])}: ε = ${up(at[1])}</title></circle>`);
        const ly = top + 14 + index * 20;
        const none = !points.length && !curves[name].pending ? " (n/a here)" : "";
        parts.push(`<line x1="${W - right + 14}" x2="${W - right + 44}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2.5" stroke-dasharray="${dash}" opacity="${none ? 0.35 : 1}"/>`,
          `<text class="calc-legend" x="${W - right + 50}" y="${ly + 4}" opacity="${none ? 0.6 : 1}">${esc(SHORT[name] + none)}</text>`);
      });
      svg.innerHTML = parts.join("");
    }

    // ---------------------------------------------------------------- events
    let debounce = null;
    const later = () => { clearTimeout(debounce); debounce = setTimeout(update, 120); };
    root.querySelectorAll("input").forEach((el) => el.addEventListener("input", later));
    root.querySelectorAll('input[name="calc-rand"]').forEach((el) => el.addEventListener("change", update));
    for (const [id, v] of [["calc-view-n", "n"], ["calc-view-eps0", "eps0"]]) {
      $(id).addEventListener("click", () => {
        view = v;
        $("calc-view-n").setAttribute("aria-selected", String(v === "n"));
        $("calc-view-eps0").setAttribute("aria-selected", String(v === "eps0"));
        update();
      });
    }
    root.addEventListener("click", (event) => {
      const button = event.target.closest(".calc-copy");
      if (!button || !button.dataset.command) return;
      const text = button.dataset.command;
      $("calc-command").textContent = text;
      const done = () => { button.textContent = "copied"; setTimeout(() => { button.textContent = "copy"; }, 1200); };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, done);
      else {
        const range = document.createRange();
        range.selectNodeContents($("calc-command"));
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        try { document.execCommand("copy"); } catch (e) { /* the command stays selected */ }
        done();
      }
    });
    update();
    return { update };
  }

  // Draw the calculator into #shuffle-calculator (the resolver below calls this once the page is
  // loaded); window.shuffleCalculator exposes the computation to scripts driving the page.
  function start() {
    const root = document.getElementById("shuffle-calculator");
    if (!root) return;
    window.shuffleCalculator = { ...N, ...B, ...C, ...api, page: mount(root, window.SHUFFLE_CALCULATOR_BOUNDS || {}) };
  }

  const api = { FIELDS, ROWS, parseField, commandOf, mount, start };
  return api;
});

// Resolve the registered modules once the document is loaded (browser only): each factory gets
// its dependencies' exports, whatever order the scripts were loaded in.
(function () {
  if (typeof module === "object" && module.exports) return;
  document.addEventListener("DOMContentLoaded", () => {
    const registry = window.shuffleCalculatorModules || {};
    const done = {};
    const resolve = (name) => {
      if (!(name in done)) done[name] = registry[name].factory(...registry[name].deps.map(resolve));
      return done[name];
    };
    if (document.getElementById("shuffle-calculator")) resolve("page").start();
  }, { once: true });
})();
