// The privacy calculator of the website (book/calculator.md): a port to JavaScript of the
// library's bounds (shufflelib/bounds/clone_pair.py, clones.py, stronger_clones.py, blanket.py),
// run in the browser with no kernel and no network. Jupyter Book loads every script of _static/
// on every page; this one draws the calculator only where the page has #shuffle-calculator (the
// theorems' titles and references come from the library's registry, written into the page by the
// chapter as window.SHUFFLE_CALCULATOR_BOUNDS). Under node, the computation is exported instead
// (benchmarks/calculator_gap.py runs it there).
//
// Safety: each δ(ε) is the library's, computed by the same steps (the same blocks of the clone
// count, the same tails), then multiplied by 1 + MARGIN (1e-6, far above the ~1e-9 relative
// difference between this float evaluation and the library's); ε is found by bisection on that δ
// and rounded up; the largest ε₀ by bisection on it and rounded down; shown numbers are rounded to
// four significant digits in the safe direction.
(function () {
  "use strict";

  const MARGIN = 1e-6; // relative margin on every δ (covers JS-vs-Python float differences)
  // Margin on ε: covers the library's root-finding tolerance (relative 1e-9, absolute 1e-12).
  const EPS_MARGIN = 1e-8, EPS_ABS_MARGIN = 1.1e-12;
  const BINOM_RTOL = 1e-9; // the library's budget for binomial pmf / cdf errors (clone_pair.py)
  const DELTA_FLOOR = 1e-300;
  const TAIL = 1e-300; // clone_pair._TAIL
  const CENTRAL_TAIL = 1e-20; // clone_pair._CENTRAL_TAIL
  const BLOCKS = 2048; // clone_pair._BLOCKS
  const OUTER_BLOCKS = 64; // clone_pair._OUTER_BLOCKS
  const DIRECT_TERMS = 64; // clone_pair._DIRECT_TERMS
  const BLANKET_LOG_MARGIN = 1e-10; // blanket._LOG_MARGIN
  const EPS0_MAX = 50; // base.EPS0_MAX
  const LOG2 = Math.LN2;

  // ------------------------------------------------------------------ binomial law
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

  // clone_pair.binomial_range: tightest lo <= hi with P(X < lo) <= tail and P(X > hi) <= tail.
  function binomialRange(trials, prob, tail, tails) {
    const low = firstInteger((x) => tails(x)[0] > tail, 0, trials);
    const high = firstInteger((x) => tails(x)[1] <= tail, 0, trials);
    return [low, Math.max(high, low)];
  }

  // clone_pair.binomial_blocks: left ends and masses of the blocks covering Bin(trials, prob).
  const blockCache = new Map();
  function binomialBlocks(trials, prob) {
    const key = `${trials} ${prob}`;
    if (blockCache.has(key)) return blockCache.get(key);
    const memo = new Map();
    const tails = (x) => {
      if (!memo.has(x)) memo.set(x, binomTails(x, trials, prob));
      return memo.get(x);
    };
    const [lo, hi] = binomialRange(trials, prob, TAIL, tails);
    const [cLo, cHi] = binomialRange(trials, prob, CENTRAL_TAIL, tails);
    const edges = [0];
    const cuts = (start, stop, count) => {
      const width = Math.max(1, Math.ceil((stop - start) / count));
      for (let x = start; x < stop; x += width) edges.push(x);
    };
    cuts(lo, cLo, OUTER_BLOCKS);
    cuts(cLo, cHi + 1, BLOCKS);
    cuts(cHi + 1, hi + 1, OUTER_BLOCKS);
    edges.push(hi + 1, trials + 1);
    const sorted = Array.from(new Set(edges)).sort((u, v) => u - v);
    const counts = [], weights = [];
    for (let i = 0; i + 1 < sorted.length; i++) {
      const start = sorted[i], stop = sorted[i + 1] - 1;
      const [cdfStop, sfStop] = tails(stop), [cdfBefore, sfBefore] = tails(start - 1);
      // clone_pair.binomial_interval_mass: subtract the smaller tail (no cancellation) and
      // round the mass up by its error bound
      const left = start <= trials * prob;
      const upper = left ? cdfStop : sfBefore, lower = left ? cdfBefore : sfStop;
      counts.push(start);
      weights.push(Math.max(upper - lower, 0) + BINOM_RTOL * (upper + lower) + 1e-300);
    }
    if (blockCache.size > 64) blockCache.delete(blockCache.keys().next().value);
    const blocks = { counts, weights };
    blockCache.set(key, blocks);
    return blocks;
  }

  // ------------------------------------------------------------------ the clone pair
  const logSinh = (x) => x - LOG2 + Math.log(-Math.expm1(-2 * x));
  const logCosh = (x) => x - LOG2 + Math.log1p(Math.exp(-2 * x));
  const logAddExp = (a, b) => (a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b)));

  // clone_pair.binomial_shortfall at p = 1/2: E[(u − X)^+], X ~ Bin(m, 1/2), plus its error bound.
  // P(X <= r) comes from the continued fraction, or, near the mean (where the continued fraction
  // needs ~sqrt(m) iterations), by walking from the previous block (state: its m, r, P(X <= r),
  // pmf(r) and how many walks since the last continued fraction): P(Bin(m + 1) <= r) =
  // P(Bin(m) <= r) − pmf(r; m)/2 and P(X <= r + 1) = P(X <= r) + pmf(r + 1). A walk keeps the
  // absolute rounding error of its start, so it is used only while P(X <= r) >= WALK_FLOOR, for at
  // most WALK steps per block and WALK_CHAIN blocks in a row (relative error below ~1e-11).
  const WALK = 256, WALK_FLOOR = 0.01, WALK_CHAIN = 32;
  function shortfall(m, u, state) {
    const r = Math.min(Math.ceil(u) - 1, m);
    if (r < 0) { state.m = -1; return 0; }
    if (r < DIRECT_TERMS) {
      state.m = -1;
      let value = 0;
      for (let x = 0; x <= r; x++) value += (u - x) * pmf(x, m, 0.5);
      return value * (1 + BINOM_RTOL);
    }
    let cdf;
    let chain = 0;
    if (state.m >= 0 && state.cdf >= WALK_FLOOR && state.chain < WALK_CHAIN && m >= state.m && r >= state.r &&
        m - state.m + r - state.r <= WALK) {
      chain = state.chain + 1;
      let f = state.cdf, q = state.pmf, k = state.r;
      for (let mm = state.m; mm < m; mm++) { f -= 0.5 * q; q *= (mm + 1) / (2 * (mm + 1 - k)); }
      for (; k < r; k++) { q *= (m - k) / (k + 1); f += q; }
      cdf = f;
    } else {
      cdf = binomTails(r, m, 0.5)[0];
    }
    Object.assign(state, { m, r, cdf, pmf: pmf(r, m, 0.5), chain });
    const a = (u - m * 0.5) * cdf;
    const b = m * 0.25 * pmf(r, m - 1, 0.5);
    return Math.max(a + b, 0) + BINOM_RTOL * (Math.abs(a) + Math.abs(b));
  }

  // clone_pair.clone_pair_delta for one ε, local log-odds L and the clone count's blocks.
  function clonePairDelta(eps, L, blocks) {
    if (eps >= L) return 0;
    const logKappa = logSinh((L - eps) / 2) - logSinh(L / 2) - logCosh(eps / 2) - LOG2;
    const logTanh = Math.log(Math.tanh(L / 2));
    const kappa = Math.exp(logKappa);
    let total = 0;
    const { counts, weights } = blocks;
    const state = { m: -1 };
    for (let j = 0; j < counts.length; j++) {
      if (!(weights[j] > 0)) continue;
      const m = counts[j] + 1;
      const value = shortfall(m, m * kappa, state);
      if (value > 0) {
        total += Math.exp(Math.log(value) + LOG2 + logTanh + logAddExp(0, eps) - Math.log(m)) * weights[j];
      }
    }
    total *= 1 + BINOM_RTOL;
    return Math.min(Math.max(total, DELTA_FLOOR), 1);
  }

  // ------------------------------------------------------------------ the privacy blanket
  function logExpm1(x) { return x + Math.log(-Math.expm1(-x)); }

  function logHOverSquare(logU) { // lower bound on log(h(u)/u²), h(u) = (1 + u) log(1 + u) − u
    if (logU < Math.log(0.1)) {
      const u = Math.exp(logU);
      let series = 0;
      for (let j = 15; j >= 0; j--) series = series * u + (j % 2 ? -1 : 1) / ((j + 1) * (j + 2));
      return Math.log(series);
    }
    if (logU > 690) return Math.log(logU - 1) - logU;
    const u = Math.exp(logU);
    return Math.log((1 + u) * Math.log1p(u) - u) - 2 * logU;
  }

  function logLog1pExp(logU) { // lower bound on log(log(1 + u))
    if (logU < -20) return logU + Math.log1p(-0.5 * Math.exp(logU));
    if (logU > 690) return Math.log(logU);
    return Math.log(Math.log1p(Math.exp(logU)));
  }

  // blanket._generic: any eps0-LDP randomizer.
  function genericBlanket(eps0, eps) {
    const logA = logExpm1(eps);
    return {
      logGamma: -eps0,
      log1mGamma: Math.log(-Math.expm1(-eps0)),
      logSpan: eps0 + Math.log(-Math.expm1(-2 * eps0)),
      logUpper: eps0 + Math.log(-Math.expm1(eps - 2 * eps0)),
      logSecond: logAddExp(eps0 + 2 * logA, LOG2 + eps - 3 * eps0 + logExpm1(4 * eps0)),
    };
  }

  function hoeffdingTail(bl, logA, eps) {
    const logRange = bl.logSpan + logAddExp(eps, 0);
    return [2 * logRange - Math.log(4) - logA, Math.exp(LOG2 + 2 * (logA - logRange))];
  }

  function bennettTail(bl, logA) {
    const logBeta = logA + bl.logUpper - bl.logSecond;
    return [bl.logUpper - logLog1pExp(logBeta), Math.exp(2 * logA - bl.logSecond + logHOverSquare(logBeta))];
  }

  function logBlanketExpectation(n, bl, c) { // log E[e^{−cM} 1{M >= 1}], M ~ Bin(n, gamma)
    const gamma = Math.exp(bl.logGamma);
    const logOneDraw = Math.log1p(gamma * Math.expm1(-c));
    const logRatio = bl.logGamma - c - bl.log1mGamma;
    const nd = n * logAddExp(0, logRatio);
    const tail = nd > 0 ? Math.log(-Math.expm1(-nd)) : Math.log(n) + logRatio;
    return n * logOneDraw + tail;
  }

  function blanketLogProfile(tail, n, eps0, eps) {
    const bl = genericBlanket(eps0, eps);
    const [logConst, c] = tail(bl, logExpm1(eps), eps);
    return logConst - bl.logGamma - Math.log(n) + logBlanketExpectation(n, bl, c);
  }

  // blanket._grid_profile and blanket._turning_point: the log-profile on the library's grid, and
  // where the bound stops decreasing (the grid's minimum, refined by golden section).
  const turningCache = new Map();
  function turningPoint(tail, n, eps0) {
    const key = `${tail.name} ${n} ${eps0}`;
    if (turningCache.has(key)) return turningCache.get(key);
    const unit = new Set();
    for (let i = 0; i < 160; i++) unit.add(Math.exp(Math.log(1e-8) + (i / 159) * (Math.log(1 - 1e-9) - Math.log(1e-8))));
    for (let i = 0; i < 200; i++) unit.add(0.005 + (i / 199) * (1 - 1e-9 - 0.005));
    const grid = Array.from(unit).sort((u, v) => u - v).map((u) => eps0 * u);
    const f = (e) => blanketLogProfile(tail, n, eps0, e);
    const values = grid.map(f);
    let best = 0, bestValue = Infinity;
    values.forEach((v, i) => {
      if (v < bestValue) { bestValue = v; best = i; }
    });
    let point = eps0;
    if (best < grid.length - 1) {
      let a = grid[Math.max(best - 1, 0)], b = grid[best + 1];
      const g = (Math.sqrt(5) - 1) / 2;
      let x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(x1), f2 = f(x2);
      while (b - a > 1e-10 * eps0) {
        if (f1 < f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = f(x1); }
        else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = f(x2); }
      }
      point = f1 <= bestValue ? x1 : grid[best];
    }
    const running = [];
    values.forEach((v, i) => running.push(i ? Math.min(running[i - 1], v) : v));
    const result = { point, grid, running };
    if (turningCache.size > 256) turningCache.delete(turningCache.keys().next().value);
    turningCache.set(key, result);
    return result;
  }

  // blanket._PrivacyBlanketBound._delta: the profile up to the turning point, capped by its running
  // minimum over the grid points <= ε (blanket._running_minimum).
  function blanketDelta(tail, n, eps0, eps) {
    if (eps >= eps0) return 0;
    if (eps <= 0) return 1;
    const { point, grid, running } = turningPoint(tail, n, eps0);
    let logDelta = blanketLogProfile(tail, n, eps0, Math.min(eps, point));
    let below = 0;
    while (below < grid.length && grid[below] <= eps) below++;
    if (below) logDelta = Math.min(logDelta, running[below - 1]);
    logDelta += BLANKET_LOG_MARGIN;
    if (logDelta >= 0) return 1;
    return Math.max(Math.exp(logDelta), DELTA_FLOOR);
  }

  // ------------------------------------------------------------------ the bounds
  // Each: δ(n, ε₀, ε) as the library computes it (before the page's margin).
  const BOUNDS = {
    "stronger-clones": (n, eps0, eps) => clonePairDelta(eps, eps0, binomialBlocks(n - 1, 2 / (Math.exp(eps0) + 1))),
    clones: (n, eps0, eps) => clonePairDelta(eps, eps0, binomialBlocks(n - 1, Math.exp(-eps0))),
    "blanket-bennett": (n, eps0, eps) => blanketDelta(bennettTail, n, eps0, eps),
    "blanket-hoeffding": (n, eps0, eps) => blanketDelta(hoeffdingTail, n, eps0, eps),
  };

  // Shrink [bad, good] around the crossing of a monotone condition ok (ok(good) holds), by
  // regula falsi (Illinois) on score (<= 0 exactly where ok holds), with bisection as a safeguard.
  function certifiedRoot(ok, score, bad, good, rtol) {
    let sBad = score(bad), sGood = score(good), side = 0;
    for (let step = 0; step < 300; step++) {
      if (Math.abs(good - bad) <= rtol * Math.max(Math.abs(good), Math.abs(bad))) break;
      let x = 0.5 * (good + bad);
      if (step % 4 !== 3 && Number.isFinite(sBad) && Number.isFinite(sGood) && sBad !== sGood) {
        const y = bad + (sBad / (sBad - sGood)) * (good - bad);
        if ((y - bad) * (good - y) > 0) x = y;
      }
      const s = score(x);
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

  const logOr = (d) => Math.log(Math.max(d, 1e-320));

  // The clone bounds' blocks agree with the library's inside the central range of the clone count
  // (tail 1e-20 per side); outside it, where scipy's binomial tails underflow (below ~1e-286) and
  // this port's do not, the outer blocks may be cut differently. Their share of δ is at most their
  // mass, 1e-20 per side, so adding OUTER_SLACK keeps the page's δ above the library's.
  const OUTER_SLACK = { "stronger-clones": 2.1e-20, clones: 2.1e-20 };

  // δ shown: the library's δ with the margins.
  function deltaUpper(name, n, eps0, eps) {
    const d = BOUNDS[name](n, eps0, eps);
    return d > 0 ? Math.min(d * (1 + MARGIN) + (OUTER_SLACK[name] || 0), 1) : 0;
  }

  // ε shown: smallest ε whose δ (with margin) is <= delta, rounded up (ε <= ε₀ for every bound).
  function epsilonUpper(name, n, eps0, delta) {
    const d = memo((e) => deltaUpper(name, n, eps0, e));
    if (d(0) <= delta) return 0;
    const logTarget = Math.log(delta);
    const root = certifiedRoot((e) => d(e) <= delta, (e) => logOr(d(e)) - logTarget, 0, eps0, 1e-9);
    return Math.min(root * (1 + EPS_MARGIN) + EPS_ABS_MARGIN, eps0); // the protocol is ε₀-DP
  }

  // Largest ε₀ shown: largest ε₀ in (0, 50] whose δ (with margin) at ε·(1 − EPS_MARGIN) − EPS_ABS_MARGIN
  // is <= delta, so that the library's own ε (found to its tolerance) is <= ε there; rounded down.
  function maxEps0Lower(name, n, eps, delta) {
    const target = eps * (1 - EPS_MARGIN) - EPS_ABS_MARGIN;
    const d = memo((e0) => deltaUpper(name, n, e0, target));
    const ok = (logE0) => d(Math.exp(logE0)) <= delta;
    const lo = Math.log(Math.min(target, EPS0_MAX)), hi = Math.log(EPS0_MAX);
    if (ok(hi)) return EPS0_MAX; // the ε₀ of the lo end always qualifies: δ(ε₀) = 0 at ε >= ε₀
    const logTarget = Math.log(delta);
    const root = certifiedRoot(ok, (x) => logOr(d(Math.exp(x))) - logTarget, hi, lo, 1e-9);
    return Math.exp(root) * (1 - 1e-12);
  }

  // Four significant digits, rounded up (dir = 1) or down (dir = -1): the decimal shown is never
  // below (above) the value it stands for.
  function fmt(x, dir) {
    if (x === 0) return "0";
    const e = Math.floor(Math.log10(x));
    let m = Math.round(x / Math.pow(10, e - 3));
    const text = (mm) => `${(mm / 1000).toFixed(3)}e${e}`;
    while (dir > 0 && Number(text(m)) < x) m++;
    while (dir < 0 && Number(text(m)) > x) m--;
    const y = Number(text(m));
    return y >= 1e-3 && y < 1e4 ? y.toPrecision(4) : y.toExponential(3).replace(/\.?0+e/, "e");
  }

  const api = { BOUNDS, deltaUpper, epsilonUpper, maxEps0Lower, fmt };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
    return;
  }
  window.shuffleCalculator = api; // for scripts driving the page (and the benchmark's timings)

  // ------------------------------------------------------------------ the page
  const RANGES = {
    n: [2, 1e9, "n must be an integer between 2 and 1,000,000,000"],
    eps0: [0.01, 10, "ε₀ must be a number between 0.01 and 10"],
    delta: [1e-15, 0.5, "δ must be a number between 1e-15 and 0.5"],
    eps: [1e-9, 10, "the target ε must be a number between 1e-9 and 10"],
  };
  const APPLIES = {
    krr: "k-ary randomized response, any k ≥ 2",
    generic: "any ε₀-LDP randomizer",
  };

  function parse(key, text) {
    const [lo, hi, message] = RANGES[key];
    const cleaned = String(text).trim().replace(/[_,\s]/g, "");
    const value = cleaned === "" ? NaN : Number(cleaned);
    if (!Number.isFinite(value) || value < lo || value > hi || (key === "n" && !Number.isInteger(value))) {
      throw new Error(`${message} (got ${JSON.stringify(String(text))}).`);
    }
    return value;
  }

  document.addEventListener("DOMContentLoaded", function () {
    const registry = window.SHUFFLE_CALCULATOR_BOUNDS;
    const root = document.getElementById("shuffle-calculator");
    if (!registry || !root) return;
    const options = Object.keys(registry).filter((name) => name in BOUNDS)
      .map((name) => `<option value="${name}">${name} — ${APPLIES[registry[name].mechanism]}</option>`).join("");
    const field = (id, label, value) =>
      `<label style="display:inline-block;margin:0 1em 0.4em 0">${label}<br>` +
      `<input id="${id}" value="${value}" size="12" style="font-family:monospace"></label>`;
    root.innerHTML =
      `<div style="border:1px solid #ccc;border-radius:6px;padding:0.8em 1em;margin:1em 0">` +
      `<label>Bound<br><select id="calc-bound">${options}</select></label><br>` +
      field("calc-n", "users n", "100000") + field("calc-eps0", "local ε₀", "1") +
      field("calc-delta", "central δ", "1e-6") + field("calc-target", "target central ε", "0.1") +
      `<div id="calc-message" role="alert" style="color:#b00020;min-height:1.2em"></div>` +
      `<table><tbody>` +
      `<tr><td>ε at (n, ε₀, δ)</td><td id="calc-eps" style="font-weight:bold"></td></tr>` +
      `<tr><td>δ at (n, ε₀, target ε)</td><td id="calc-delta-out" style="font-weight:bold"></td></tr>` +
      `<tr><td>largest ε₀ for (n, target ε, δ)</td><td id="calc-eps0-out" style="font-weight:bold"></td></tr>` +
      `</tbody></table><p id="calc-source" style="font-size:90%"></p></div>`;
    const $ = (id) => document.getElementById(id);

    function update() {
      const name = $("calc-bound").value;
      const bound = registry[name];
      $("calc-source").textContent = `Every number comes from: ${bound.title} (${APPLIES[bound.mechanism]}). ` +
        `${bound.reference} Computed in your browser as python -m shufflelib --bound ${name} computes it.`;
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
      const eps = epsilonUpper(name, n, eps0, delta);
      $("calc-eps").textContent = `${fmt(eps, 1)} (an upper bound: the library's ε rounded up)`;
      const d = deltaUpper(name, n, eps0, target);
      const floor = OUTER_SLACK[name] || 0;
      $("calc-delta-out").textContent = `${fmt(d, 1)} (an upper bound: ` +
        (d < 2 * floor ? `δ below ${fmt(floor, 1)} is not resolved for this bound)` : "the library's δ rounded up)");
      const e0 = maxEps0Lower(name, n, target, delta);
      $("calc-eps0-out").textContent = `${fmt(e0, -1)} (rounded down: every ε₀ up to this meets (ε, δ)` +
        `${e0 >= EPS0_MAX ? "; the largest ε₀ searched" : ""})`;
    }

    for (const id of ["calc-bound", "calc-n", "calc-eps0", "calc-delta", "calc-target"]) $(id).addEventListener("input", update);
    update();
  });
})();
