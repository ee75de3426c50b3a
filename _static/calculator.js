// The privacy calculator of the website (book/calculator.md): answers the three questions from
// the table of shufflelib.bounds.table (window.SHUFFLE_CALCULATOR_TABLE, written into the page by
// the chapter when the book is built), in the browser, with no kernel and no network. Jupyter Book
// loads every script of _static/ on every page; this one acts only where that table is.
// Every input is rounded to its grid neighbour on the safe side (n down, eps0 up, delta down), so
// each answer is an upper bound on the library's ε and δ, or a lower bound on its largest ε₀;
// the opposite neighbours give the other end of the interval.
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  const T = window.SHUFFLE_CALCULATOR_TABLE;
  const root = document.getElementById("shuffle-calculator");
  if (!T || !root) return;
  const G = T.grid;
  const shape = [G.n.length, G.eps0.length, G.delta.length];
  const RANGES = {
    n: [2, 1e9, "n must be an integer between 2 and 1,000,000,000"],
    eps0: [0.01, 10, "ε₀ must be a number between 0.01 and 10"],
    delta: [1e-15, 0.5, "δ must be a number between 1e-15 and 0.5"],
    eps: [1e-9, 10, "the target ε must be a number between 1e-9 and 10"],
  };

  function decode(text) {
    const bytes = atob(text);
    const out = new Float64Array(bytes.length / 2);
    for (let i = 0; i < out.length; i++) {
      const code = bytes.charCodeAt(2 * i) | (bytes.charCodeAt(2 * i + 1) << 8);
      out[i] = code === 0 ? 0 : code === T.code_na ? Infinity : T.eps_min * Math.exp(T.step * (code - 1));
    }
    return out;
  }
  const tables = {};
  for (const b of T.bounds) tables[b.name] = decode(b.codes);
  const at = (name, i, j, l) => tables[name][(i * shape[1] + j) * shape[2] + l];

  // Largest index with grid[index] <= x, smallest with grid[index] >= x.
  const below = (grid, x) => { let k = -1; while (k + 1 < grid.length && grid[k + 1] <= x) k++; return k; };
  const above = (grid, x) => { let k = 0; while (k < grid.length && grid[k] < x) k++; return k; };

  function parse(key, text) {
    const [lo, hi, message] = RANGES[key];
    const cleaned = String(text).trim().replace(/[_,\s]/g, "");
    const value = cleaned === "" ? NaN : Number(cleaned);
    if (!Number.isFinite(value) || value < lo || value > hi || (key === "n" && !Number.isInteger(value))) {
      throw new Error(`${message} (got ${JSON.stringify(String(text))}).`);
    }
    return value;
  }

  // Four significant digits, rounded up (dir = 1) or down (dir = -1), so that a shown upper
  // bound is never below the value it stands for, nor a shown lower bound above it.
  function fmt(x, dir = 1) {
    if (x === 0 || !Number.isFinite(x)) return String(x);
    const e = Math.floor(Math.log10(x));
    const scale = Math.pow(10, 3 - e);
    let m = Math.round(x * scale);
    if (dir > 0 && m / scale < x) m += 1;
    if (dir < 0 && m / scale > x) m -= 1;
    const y = m / scale;
    return y >= 1e-3 && y < 1e4 ? y.toPrecision(4) : y.toExponential(3);
  }

  function html() {
    const options = T.bounds.map((b) => `<option value="${b.name}">${b.name} — ${b.label}</option>`).join("");
    const field = (id, label, value) =>
      `<label style="display:inline-block;margin:0 1em 0.4em 0">${label}<br>` +
      `<input id="${id}" value="${value}" size="12" style="font-family:monospace"></label>`;
    return (
      `<div style="border:1px solid #ccc;border-radius:6px;padding:0.8em 1em;margin:1em 0">` +
      `<label>Bound<br><select id="calc-bound">${options}</select></label><br>` +
      field("calc-n", "users n", "100000") + field("calc-eps0", "local ε₀", "1") +
      field("calc-delta", "central δ", "1e-6") + field("calc-target", "target central ε", "0.1") +
      `<div id="calc-message" role="alert" style="color:#b00020;min-height:1.2em"></div>` +
      `<table><tbody>` +
      `<tr><td>ε at (n, ε₀, δ)</td><td id="calc-eps" style="font-weight:bold"></td></tr>` +
      `<tr><td>δ at (n, ε₀, target ε)</td><td id="calc-delta-out" style="font-weight:bold"></td></tr>` +
      `<tr><td>largest ε₀ for (n, target ε, δ)</td><td id="calc-eps0-out" style="font-weight:bold"></td></tr>` +
      `</tbody></table><p id="calc-source" style="font-size:90%"></p></div>`
    );
  }

  function update() {
    const $ = (id) => document.getElementById(id);
    const name = $("calc-bound").value;
    const bound = T.bounds.find((b) => b.name === name);
    $("calc-source").textContent = `The numbers come from: ${bound.title}. ${bound.reference}` +
      (bound.k ? ` Applied to k-ary randomized response (k = ${bound.k}).` : "");
    let n, eps0, delta, target;
    try {
      n = parse("n", $("calc-n").value);
      eps0 = parse("eps0", $("calc-eps0").value);
      delta = parse("delta", $("calc-delta").value);
      target = parse("eps", $("calc-target").value);
    } catch (error) {
      $("calc-message").textContent = error.message;
      for (const id of ["calc-eps", "calc-delta-out", "calc-eps0-out"]) $(id).textContent = "—";
      return;
    }
    $("calc-message").textContent = "";
    const iLo = below(G.n, n), iHi = above(G.n, n);
    const jLo = below(G.eps0, eps0), jHi = above(G.eps0, eps0);
    const lLo = below(G.delta, delta), lHi = above(G.delta, delta);

    // ε: safe corner (upper bound) and opposite corner (lower bound on the library's value).
    const upper = at(name, iLo, jHi, lLo), lower = at(name, iHi, jLo, lHi);
    $("calc-eps").textContent = !Number.isFinite(upper)
      ? "not applicable: the theorem does not cover these parameters (near them)"
      : `${fmt(upper)} (≥ the library's ε, which is between ${fmt(Math.min(lower, upper), -1)} and this)`;

    // δ: the smallest grid δ whose ε at (n↓, ε₀↑) is at most the target.
    let l = 0;
    while (l < G.delta.length && !(at(name, iLo, jHi, l) <= target)) l++;
    $("calc-delta-out").textContent = l === G.delta.length
      ? `more than ${fmt(G.delta[G.delta.length - 1])}: no δ in the table reaches ε = ${fmt(target)}`
      : `${fmt(G.delta[l])} (≥ the library's δ${l === 0 ? "; the smallest δ in the table" : ""})`;

    // Largest ε₀: the largest grid ε₀ whose ε at (n↓, δ↓) is at most the target.
    let j = G.eps0.length - 1;
    while (j >= 0 && !(at(name, iLo, j, lLo) <= target)) j--;
    $("calc-eps0-out").textContent = j < 0
      ? `below ${fmt(G.eps0[0], 1)}: no ε₀ in the table reaches (${fmt(target)}, ${fmt(delta)})`
      : `${fmt(G.eps0[j], -1)} (≤ the library's largest ε₀: every ε₀ up to this meets (ε, δ)${j === G.eps0.length - 1 ? "; the largest ε₀ in the table" : ""})`;
  }

  root.innerHTML = html();
  for (const id of ["calc-bound", "calc-n", "calc-eps0", "calc-delta", "calc-target"]) {
    document.getElementById(id).addEventListener("input", update);
  }
  update();
});
