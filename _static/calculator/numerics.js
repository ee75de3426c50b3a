// The website calculator (book/calculator.md), part 1 of 4: numerical building blocks.
//
// The calculator is four scripts under _static/calculator/ (Jupyter Book loads every script of
// _static/ on every page, in no fixed order): numerics.js (this file: the binomial law, log-space
// helpers, root finding, safe rounding), bounds.js (the library's single-round bounds),
// compose.js (T rounds by privacy loss distributions) and page.js (the form, the table and the
// plot; it draws only where the page has #shuffle-calculator). Each script registers a module;
// page.js resolves them once the document is loaded. Under node, each is a CommonJS module
// (tests/test_calculator_js.py and benchmarks/calculator_gap.py run them there).
(function (name, deps, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(...deps.map((d) => require(`./${d}.js`)));
  } else {
    const registry = (window.shuffleCalculatorModules = window.shuffleCalculatorModules || {});
    registry[name] = { deps, factory };
  }
})("numerics", [], function () {
  "use strict";

  const LOG2 = Math.LN2;
  const U = 2 ** -53; // unit roundoff of float64

  // ------------------------------------------------------------------ the binomial law
  // log of the binomial pmf by the saddle-point form (Loader 2000): relative error ~1e-15
  // for any n, where the plain log-gamma form loses digits for n up to 1e9.
  function stirlerr(n) { // log(n!) − log(sqrt(2πn) (n/e)^n)
    if (n <= 15) {
      let f = 1;
      for (let j = 2; j <= n; j++) f *= j;
      return Math.log(f) - (n + 0.5) * Math.log(n) + n - 0.5 * Math.log(2 * Math.PI);
    }
    const nn = n * n;
    if (n > 500) return (1 / 12 - 1 / 360 / nn) / n;
    if (n > 80) return (1 / 12 - (1 / 360 - 1 / 1260 / nn) / nn) / n;
    if (n > 35) return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / 1680 / nn) / nn) / nn) / n;
    return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / 1188 / nn) / nn) / nn) / nn) / n;
  }

  function bd0(x, m) { // x log(x/m) + m − x, without cancellation
    if (Math.abs(x - m) < 0.1 * (x + m)) {
      let v = (x - m) / (x + m);
      let s = (x - m) * v;
      let ej = 2 * x * v;
      v *= v;
      for (let j = 1; j < 1000; j++) {
        ej *= v;
        const next = s + ej / (2 * j + 1);
        if (next === s) return s;
        s = next;
      }
      return s;
    }
    return x * Math.log(x / m) + m - x;
  }

  function logPmf(x, n, p) {
    const q = 1 - p;
    if (x < 0 || x > n) return -Infinity;
    if (x === 0) return n * Math.log1p(-p);
    if (x === n) return n * (q < 0.1 ? Math.log1p(-q) : Math.log(p));
    const lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
    return lc - 0.5 * (Math.log(2 * Math.PI) + Math.log(x) + Math.log1p(-x / n));
  }
  const pmf = (x, n, p) => Math.exp(logPmf(x, n, p));

  // Continued fraction of the regularized incomplete beta function (modified Lentz):
  // I_x(a, b) = x^a (1 − x)^b / (a B(a, b)) · betacf(a, b, x), fast for x < (a + 1)/(a + b + 2).
  function betacf(a, b, x) {
    const tiny = 1e-300;
    const qab = a + b, qap = a + 1, qam = a - 1;
    let c = 1, d = 1 - (qab * x) / qap;
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    let h = d;
    for (let m = 1; m < 1e6; m++) {
      const m2 = 2 * m;
      let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
      d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d; h *= d * c;
      aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
      d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      const del = d * c;
      h *= del;
      if (Math.abs(del - 1) < 1e-16) break;
    }
    return h;
  }

  // [P(X <= k), P(X > k)] for X ~ Bin(n, p): the smaller one from its continued fraction
  // (P(X <= k) = I_q(n − k, k + 1) = p pmf(k) betacf, P(X > k) = I_p(k + 1, n − k) = q pmf(k + 1) betacf).
  function binomTails(k, n, p) {
    if (k < 0) return [0, 1];
    if (k >= n) return [1, 0];
    const q = 1 - p, a = n - k, b = k + 1;
    if (q * (a + b + 2) < a + 1) {
      const cdf = Math.exp(Math.log(p) + logPmf(k, n, p)) * betacf(a, b, q);
      return [cdf, 1 - cdf];
    }
    const sf = Math.exp(Math.log(q) + logPmf(k + 1, n, p)) * betacf(b, a, p);
    return [1 - sf, sf];
  }

  function firstInteger(pred, a, b) { // smallest integer x in [a, b] with pred(x) (monotone)
    while (a < b) {
      const mid = Math.floor((a + b) / 2);
      if (pred(mid)) b = mid; else a = mid + 1;
    }
    return a;
  }

  // shufflelib.bounds.clone_pair.binomial_range: the tightest lo <= hi with P(X < lo) <= tail and
  // P(X > hi) <= tail, X ~ Bin(trials, prob) (bisection on the tails).
  const rangeCache = new Map();
  function binomialRange(trials, prob, tail) {
    const key = `${trials} ${prob} ${tail}`;
    if (!rangeCache.has(key)) {
      const memo = new Map();
      const tails = (x) => {
        if (!memo.has(x)) memo.set(x, binomTails(x, trials, prob));
        return memo.get(x);
      };
      const low = firstInteger((x) => tails(x)[0] > tail, 0, trials);
      const high = firstInteger((x) => tails(x)[1] <= tail, 0, trials);
      if (rangeCache.size > 512) rangeCache.delete(rangeCache.keys().next().value);
      rangeCache.set(key, [low, Math.max(high, low)]);
    }
    return rangeCache.get(key);
  }

  // ------------------------------------------------------------------ log space
  const logSinh = (x) => x - LOG2 + Math.log(-Math.expm1(-2 * x));
  const logCosh = (x) => x - LOG2 + Math.log1p(Math.exp(-2 * x));
  const logAddExp = (a, b) => {
    if (a === -Infinity) return b;
    if (b === -Infinity) return a;
    return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
  };
  const logExpm1 = (x) => x + Math.log(-Math.expm1(-x)); // log(e^x − 1), x > 0
  const logOrFloor = (d) => Math.log(Math.max(d, 1e-320));

  // Python's round(): halves to even (the library's block counts use it).
  function roundHalfEven(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  // log Φ(x) of the standard normal, to ~1e-7 relative (used for starting guesses only).
  function logNdtr(x) {
    if (x > 6) return -0.5 * erfc(x / Math.SQRT2);
    if (x > -20) return Math.log(0.5 * erfc(-x / Math.SQRT2));
    // Mills ratio: Φ(x) = φ(x)/|x| (1 − 1/x² + 3/x⁴ − ...)
    const x2 = x * x;
    return -0.5 * x2 - Math.log(-x) - 0.5 * Math.log(2 * Math.PI) + Math.log1p(-1 / x2 + 3 / (x2 * x2));
  }

  function erfc(x) { // Numerical Recipes' Chebyshev fit, relative error < 1.2e-7 everywhere
    const z = Math.abs(x), t = 1 / (1 + 0.5 * z);
    const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
      t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
      t * (-0.82215223 + t * 0.17087277)))))))));
    return x >= 0 ? r : 2 - r;
  }

  // ε at which μ-Gaussian DP reaches δ: a starting guess of a root (never the answer itself).
  // For a small μ, δ(ε) = μ (φ(x) − x Φ(−x)) + O(μ²), x = ε/μ, is solved for x instead (the two
  // terms of the exact form cancel to within the accuracy of erfc here).
  function gaussianEpsilon(mu, delta) {
    if (mu > 0 && mu < 1e-3) {
      const logG = (x) => {
        if (x > 8) {
          const x2 = x * x;
          return -0.5 * x2 - 0.5 * Math.log(2 * Math.PI) + Math.log(1 / x2 - 3 / (x2 * x2) + 15 / (x2 * x2 * x2));
        }
        return Math.log(Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI) - 0.5 * x * erfc(x / Math.SQRT2));
      };
      const target = Math.log(delta / mu);
      if (logG(0) <= target) return 0;
      let a = 0, b = 1;
      while (logG(b) > target && b < 1e4) b *= 2;
      for (let i = 0; i < 80 && b - a > 1e-12 * b; i++) {
        const m = 0.5 * (a + b);
        if (logG(m) > target) a = m; else b = m;
      }
      return 0.5 * (a + b) * mu;
    }
    const logDelta = (e) => {
      const la = logNdtr(-e / mu + mu / 2), lb = logNdtr(-e / mu - mu / 2), r = e + lb - la;
      return r < 0 ? la + Math.log(-Math.expm1(r)) : -1e300;
    };
    const target = Math.log(delta), hi = mu * (mu + 40);
    if (!(mu > 0 && Number.isFinite(hi)) || logDelta(0) <= target || logDelta(hi) >= target) return 0;
    let a = 0, b = hi;
    for (let i = 0; i < 80 && b - a > 1e-10 * hi; i++) {
      const m = 0.5 * (a + b);
      if (logDelta(m) > target) a = m; else b = m;
    }
    return 0.5 * (a + b);
  }

  // log δ(ε) of μ-Gaussian DP (an estimate: it sets how far a composition keeps its tails).
  function gaussianLogDelta(mu, eps) {
    if (mu < 1e-3) { // δ = μ (φ(x) − x Φ(−x)) + O(μ²), x = ε/μ
      const x = eps / mu, x2 = x * x;
      if (x > 8) return Math.log(mu) - 0.5 * x2 - 0.5 * Math.log(2 * Math.PI) + Math.log(1 / x2 - 3 / (x2 * x2) + 15 / (x2 * x2 * x2));
      return Math.log(mu) + Math.log(Math.max(Math.exp(-0.5 * x2) / Math.sqrt(2 * Math.PI) - 0.5 * x * erfc(x / Math.SQRT2), 1e-300));
    }
    const la = logNdtr(-eps / mu + mu / 2), lb = logNdtr(-eps / mu - mu / 2), r = eps + lb - la;
    return r < 0 ? la + Math.log(-Math.expm1(r)) : la;
  }

  // ------------------------------------------------------------------ root finding
  // Every search is a generator: it yields after each evaluation of its function, so that the
  // page can run it in slices between frames (run() drives one to the end at once).
  function run(gen) {
    for (;;) {
      const step = gen.next();
      if (step.done) return step.value;
    }
  }

  // shufflelib._roots.narrow_bracket: shrink [lo, hi] around a guess of a monotone root
  // (beyond(x): the root lies above x); the bracket contains the root whatever the guess.
  function* narrowBracket(beyond, guess, lo, hi) {
    for (const width of [0.02, 0.25]) {
      const up = guess * (1 + width), down = guess * (1 - width);
      if (!(lo < up && up < hi)) continue;
      const b = beyond(up);
      yield;
      if (b) { lo = up; continue; }
      hi = up;
      if (lo < down) {
        const c = beyond(down);
        yield;
        if (c) { lo = down; break; }
        hi = down;
      }
    }
    return [lo, hi];
  }

  // Shrink [bad, good] around the crossing of a monotone condition ok (ok(good) holds) to a
  // relative rtol plus atol, by regula falsi (Illinois) on score (<= 0 exactly where ok holds)
  // with bisection steps as a safeguard; returns good (a point where ok holds).
  function* certifiedRoot(ok, score, bad, good, rtol, atol = 0) {
    let sBad = score(bad), sGood = score(good), side = 0;
    for (let step = 0; step < 400; step++) {
      if (Math.abs(good - bad) <= rtol * Math.max(Math.abs(good), Math.abs(bad)) + atol) break;
      let x = 0.5 * (good + bad);
      if (x === good || x === bad) break;
      if (step % 4 !== 3 && Number.isFinite(sBad) && Number.isFinite(sGood) && sBad !== sGood) {
        const y = bad + (sBad / (sBad - sGood)) * (good - bad);
        if ((y - bad) * (good - y) > 0) x = y;
      }
      const s = score(x);
      yield;
      if (ok(x)) {
        good = x; sGood = s;
        if (side === 1) sBad /= 2;
        side = 1;
      } else {
        bad = x; sBad = s;
        if (side === -1) sGood /= 2;
        side = -1;
      }
    }
    return good;
  }

  function memo(f) {
    const values = new Map();
    return (x) => {
      if (!values.has(x)) values.set(x, f(x));
      return values.get(x);
    };
  }

  // ------------------------------------------------------------------ safe decimal rounding
  // Four significant digits, rounded up (dir = 1) or down (dir = -1): the decimal shown is never
  // below (above) the value it stands for.
  function fmt(x, dir, digits = 4) {
    if (x === 0) return "0";
    if (!Number.isFinite(x)) return String(x);
    if (x < 0) return "-" + fmt(-x, -dir, digits); // rounding −x up is rounding x down
    const e = Math.floor(Math.log10(x));
    const scale = digits - 1;
    let m = Math.round(x / Math.pow(10, e - scale));
    const text = (mm) => `${(mm / 10 ** scale).toFixed(scale)}e${e}`;
    while (dir > 0 && Number(text(m)) < x) m++;
    while (dir < 0 && Number(text(m)) > x) m--;
    const y = Number(text(m));
    if (y === 0) return "0";
    return y >= 1e-3 && y < 1e4 ? String(Number(y.toPrecision(digits))) : y.toExponential(scale).replace(/\.?0+e/, "e");
  }

  return {
    LOG2, U, stirlerr, logPmf, pmf, betacf, binomTails, firstInteger, binomialRange,
    logSinh, logCosh, logAddExp, logExpm1, logOrFloor, roundHalfEven, logNdtr, gaussianEpsilon, gaussianLogDelta,
    run, narrowBracket, certifiedRoot, memo, fmt,
  };
});
