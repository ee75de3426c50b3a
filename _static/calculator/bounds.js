// The website calculator, part 2 of 4: the library's single-round bounds, ported.
//
// Each δ(ε) is the library's, computed by the same steps (the same blocks of the clone count,
// the same tails; shufflelib/bounds/clone_pair.py, clones.py, stronger_clones.py,
// thinned_clones.py, blanket.py, erlingsson.py), then multiplied by 1 + MARGIN (1e-6, far above
// the ~1e-9 relative difference between this float evaluation and the library's). Questions:
// ε is found by root finding on that δ and rounded up by more than the library's own root
// tolerance, so it is never below the command line's ε; the largest ε₀ is found on δ at an ε below
// the library's own target and rounded down by more than the library's tolerance, so it is never
// above the command line's.
(function (name, deps, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(...deps.map((d) => require(`./${d}.js`)));
  } else {
    const registry = (window.shuffleCalculatorModules = window.shuffleCalculatorModules || {});
    registry[name] = { deps, factory };
  }
})("bounds", ["numerics"], function (N) {
  "use strict";

  const { LOG2, binomTails, binomialRange, pmf, logSinh, logCosh, logAddExp, logExpm1, logOrFloor } = N;

  // The library's box (shufflelib/_validation.py), its search range and floors.
  const BOX = { nMin: 2, nMax: 1e9, eps0Min: 1e-6, eps0Max: 100, kMin: 2, kMax: 1e9, roundsMax: 10000 };
  const EPS0_SEARCH_MAX = 50; // shufflelib.bounds.base.EPS0_MAX: the largest ε₀ the eps0 question searches
  const DELTA_FLOOR = 1e-300; // base.DELTA_FLOOR: a positive δ is never reported below this

  // The page's safety margins.
  const MARGIN = 1e-6; // relative, on every δ
  const EPS_RTOL = 1e-8; // on ε: above the library's root tolerance (relative 1e-9, curves.invert_profile)
  const EPS0_RTOL = 1e-8, EPS0_ATOL = 3e-12; // on the largest ε₀: likewise, downwards

  // The library's constants (clone_pair.py, thinned_clones.py, blanket.py).
  const BINOM_RTOL = 1e-9;
  const TAIL = 1e-300, CENTRAL_TAIL = 1e-20, BLOCKS = 2048, OUTER_BLOCKS = 64, DIRECT_TERMS = 64;
  const BLANKET_LOG_MARGIN = 1e-10;

  // ------------------------------------------------------------------ binomial blocks
  // clone_pair.binomial_interval_mass: P(a <= X <= b), subtracting the smaller tail, and its error bound.
  function intervalMass(a, b, trials, prob) {
    if (a > b) return [0, 0];
    const [cdfB, sfB] = binomTails(b, trials, prob), [cdfA, sfA] = binomTails(a - 1, trials, prob);
    const right = a > trials * prob;
    const upper = right ? sfA : cdfB, lower = right ? sfB : cdfA;
    return [Math.max(upper - lower, 0), BINOM_RTOL * (upper + lower) + 1e-300];
  }

  // clone_pair.binomial_blocks: left ends and weights (mass + error) of the blocks covering Bin(trials, prob).
  const blockCache = new Map();
  function binomialBlocks(trials, prob, blocks = BLOCKS) {
    const key = `${trials} ${prob} ${blocks}`;
    if (blockCache.has(key)) return blockCache.get(key);
    const [lo, hi] = binomialRange(trials, prob, TAIL);
    const [cLo, cHi] = binomialRange(trials, prob, CENTRAL_TAIL);
    const edges = [0];
    const cuts = (start, stop, count) => {
      const width = Math.max(1, Math.ceil((stop - start) / count));
      for (let x = start; x < stop; x += width) edges.push(x);
    };
    cuts(lo, cLo, OUTER_BLOCKS);
    cuts(cLo, cHi + 1, blocks);
    cuts(cHi + 1, hi + 1, OUTER_BLOCKS);
    edges.push(hi + 1, trials + 1);
    const sorted = Array.from(new Set(edges)).sort((u, v) => u - v);
    const counts = [], weights = [];
    for (let i = 0; i + 1 < sorted.length; i++) {
      const [mass, err] = intervalMass(sorted[i], sorted[i + 1] - 1, trials, prob);
      counts.push(sorted[i]);
      weights.push(mass + err);
    }
    if (blockCache.size > 64) blockCache.delete(blockCache.keys().next().value);
    const result = { counts, weights };
    blockCache.set(key, result);
    return result;
  }

  // ------------------------------------------------------------------ the clone pair
  // clone_pair.binomial_shortfall at p = 1/2: log of E[(u − X)^+], X ~ Bin(m, 1/2), plus its error
  // bound (the library's budget: a relative BINOM_RTOL on the binomial cdf and pmf).
  //
  // P(X <= r) comes from the continued fraction, or by walking from the previous block's (m, r):
  // P(Bin(m ± 1) <= r) and P(X <= r ± 1) follow from the pmf, which follows by its ratios. The
  // blocks come sorted by m (and by L for a given m, so r grows too): consecutive blocks are a few
  // steps apart, where the continued fraction would need ~sqrt(m) iterations near the mean. The
  // walker keeps a bound on its absolute rounding error (each step: 4 ulps of the value and of the
  // term, the pmf's own relative error growing by 4 ulps a step) and starts afresh when that bound
  // exceeds WALK_RTOL (1e-10, inside the budget) of the value, or when the next block is more than
  // WALK_MAX steps away. Values are kept as mantissas times e^scale (no underflow: δ goes down to
  // 1e-300, where single terms are far smaller).
  const WALK_MAX = 4096, WALK_RTOL = 1e-10, FRESH_RTOL = 1e-13, U4 = 4 * N.U;
  function walk(state, m, r) { // move the walker to (m, r); false if its error bound grew too large
    let { m: mm, r: k, cdf: f, pmf: q, err, perr, scale } = state;
    const rescale = () => {
      const shift = Math.log(f);
      f /= Math.exp(shift); q /= Math.exp(shift); err /= Math.exp(shift); scale += shift;
    };
    while (mm < m) { // P(Bin(mm + 1) <= k) = P(Bin(mm) <= k) − pmf/2
      f -= 0.5 * q; err += U4 * (f + q) + q * perr;
      q *= (mm + 1) / (2 * (mm + 1 - k)); perr += U4; mm++;
      if (!(f > 1e-250)) { if (!(f > 0)) return false; rescale(); }
    }
    while (mm > m) { // P(Bin(mm − 1) <= k) = P(Bin(mm) <= k) + pmf(k; mm − 1)/2
      q *= (2 * (mm - k)) / mm; perr += U4; mm--;
      f += 0.5 * q; err += U4 * f + q * perr;
      if (f > 1e250) rescale();
    }
    while (k < r) {
      q *= (mm - k) / (k + 1); perr += U4; k++; f += q; err += U4 * f + q * perr;
      if (f > 1e250) rescale();
    }
    while (k > r) {
      f -= q; err += U4 * (f + q) + q * perr; q *= k / (mm - k + 1); perr += U4; k--;
      if (!(f > 1e-250)) { if (!(f > 0)) return false; rescale(); }
    }
    if (!(f > 0 && err <= WALK_RTOL * f && perr <= WALK_RTOL)) return false;
    Object.assign(state, { m, r, cdf: f, pmf: q, err, perr, scale });
    return true;
  }

  function walkTo(state, m, r) {
    if (state.m >= 0 && Math.abs(m - state.m) + Math.abs(r - state.r) <= WALK_MAX && walk(state, m, r)) return;
    // Near the mean, where the continued fraction is slowest, start from the exact centre:
    // P(X <= c) = (1 + pmf(c))/2 at c = m/2 (m even), 1/2 at c = (m − 1)/2 (m odd).
    const c = Math.floor(m / 2);
    if (c - r <= WALK_MAX && c - r > 0) {
      const q = pmf(c, m, 0.5);
      const fresh = { m, r: c, cdf: m % 2 ? 0.5 : 0.5 * (1 + q), pmf: q, err: 2 * FRESH_RTOL, perr: FRESH_RTOL, scale: 0 };
      if (walk(fresh, m, r)) { Object.assign(state, fresh); return; }
    }
    // The continued fraction, relative to pmf(r): P(X <= r) = pmf(r) · betacf(m − r, r + 1, 1/2) / 2.
    const logPmfR = N.logPmf(r, m, 0.5);
    const a = m - r, b = r + 1;
    let cdf;
    if (0.5 * (a + b + 2) < a + 1) cdf = 0.5 * N.betacf(a, b, 0.5); // P(X <= r) / pmf(r)
    else cdf = (1 - N.binomTails(r, m, 0.5)[1]) / Math.exp(logPmfR);
    Object.assign(state, { m, r, cdf, pmf: 1, err: FRESH_RTOL * cdf, perr: FRESH_RTOL, scale: logPmfR });
  }

  function logShortfall(m, u, state) {
    const r = Math.min(Math.ceil(u) - 1, m);
    if (r < 0) return -Infinity;
    if (r < DIRECT_TERMS) { // the terms x <= r, relative to the largest (pmf(r): r is below the mean)
      const top = N.logPmf(r, m, 0.5);
      let value = 0;
      for (let x = 0; x <= r; x++) value += (u - x) * Math.exp(N.logPmf(x, m, 0.5) - top);
      return Math.log(value * (1 + BINOM_RTOL)) + top;
    }
    walkTo(state, m, r);
    const a = (u - m * 0.5) * state.cdf;
    const b = m * 0.25 * state.pmf * ((2 * (m - r)) / m); // pmf(r; m − 1) = pmf(r; m) · 2 (m − r)/m
    const value = Math.max(a + b, 0) + BINOM_RTOL * (Math.abs(a) + Math.abs(b));
    return value > 0 ? Math.log(value) + state.scale : -Infinity;
  }

  // clone_pair.clone_pair_delta: δ(ε) of a mixture of clone pairs, one per block: left ends
  // counts[j] of the other clones, weights[j], and the victim's local log-odds (one L for all
  // blocks, or locals[j] per block). The parts of the formula that do not depend on ε are
  // computed once per block list (pairTerms).
  function pairTerms(blocks, L) {
    if (!blocks.terms) {
      const size = blocks.counts.length;
      const local = new Float64Array(size), logSinhHalf = new Float64Array(size), logTanh = new Float64Array(size);
      const logM = new Float64Array(size);
      for (let j = 0; j < size; j++) {
        local[j] = blocks.locals ? blocks.locals[j] : L;
        logSinhHalf[j] = logSinh(local[j] / 2);
        logTanh[j] = Math.log(Math.tanh(local[j] / 2));
        logM[j] = Math.log(blocks.counts[j] + 1);
      }
      blocks.terms = { local, logSinhHalf, logTanh, logM };
    }
    return blocks.terms;
  }

  function clonePairDelta(eps, blocks, L) {
    const { counts, weights } = blocks;
    const { local, logSinhHalf, logTanh, logM } = pairTerms(blocks, L);
    const logEps = logCosh(eps / 2) + LOG2, logScale = LOG2 + logAddExp(0, eps);
    let total = 0;
    const state = { m: -1 };
    for (let j = 0; j < counts.length; j++) {
      if (!(weights[j] > 0) || !(eps < local[j])) continue;
      // κ = sinh((L − ε)/2) / (2 sinh(L/2) cosh(ε/2)), exact as ε → L
      const kappa = Math.exp(logSinh((local[j] - eps) / 2) - logSinhHalf[j] - logEps);
      const m = counts[j] + 1;
      const logValue = logShortfall(m, m * kappa, state);
      if (logValue > -Infinity) total += Math.exp(logValue + logScale + logTanh[j] - logM[j]) * weights[j];
    }
    total *= 1 + BINOM_RTOL;
    return Math.min(Math.max(total, DELTA_FLOOR), 1);
  }

  // ------------------------------------------------------------------ thinned clones (k-RR, k >= 3)
  // thinned_clones.thinned_blocks: the bound as a mixture of clone pairs (other-clone counts, local
  // log-odds, weights): the clone count C on the blocks of binomial_blocks, and given m = C + 1 the
  // kept count T on blocks [t1, t2], each giving two pairs (the chord between its ends).
  const THIN = { outer: 256, inner: 64, sideInner: 16, central: 1e-20, tail: 1e-300, side: 8, roundUp: 1e-13 };

  function keptProbability(k, eps0) {
    return 1 / (1 + (k - 2) / (Math.exp(eps0) + 1));
  }

  function bernsteinRange(c, q, tail) {
    const bigL = Math.log(1 / tail), v = c * q * (1 - q);
    const t = bigL / 3 + Math.sqrt((bigL / 3) ** 2 + 2 * bigL * v), mean = c * q;
    return [Math.max(Math.floor(mean - t), 0), Math.min(Math.ceil(mean + t), c)];
  }

  function thinnedLogOdds(t, m, beta, eps0) { // 2 artanh(β t/m), rounded up (eps0 at t = m)
    if (t >= m) return eps0;
    const lam = t / m;
    const oneMinus = (m - t) / m + lam * (2 / (Math.exp(eps0) + 1));
    return Math.min((Math.log1p(lam * beta) - Math.log(oneMinus)) * (1 + THIN.roundUp), eps0);
  }

  function keptBlocks(m, w, s, eps0, inner, out) {
    if (!(w > 0)) return;
    const [lo, hi] = bernsteinRange(m, s, THIN.tail), [cLo, cHi] = bernsteinRange(m, s, THIN.central);
    const edges = [0, 1, hi + 1, m + 1];
    const cuts = (start, stop, count) => {
      const width = Math.max(1, Math.ceil((stop - start) / count));
      for (let i = 0; i < count; i++) edges.push(start + width * i < stop ? start + width * i : Infinity);
    };
    cuts(lo, cLo, THIN.side);
    cuts(cLo, cHi + 1, inner);
    cuts(cHi + 1, hi + 1, THIN.side);
    const sorted = edges.map((e) => Math.min(e, m + 1)).sort((u, v) => u - v);
    const beta = Math.tanh(eps0 / 2);
    for (let i = 0; i + 1 < sorted.length; i++) {
      const start = sorted[i], stop = sorted[i + 1] - 1;
      if (!(start <= stop && start >= 1)) continue;
      const [mass, massErr] = intervalMass(start, stop, m, s);
      const [shifted, shiftedErr] = intervalMass(start - 1, stop - 1, m - 1, s);
      const positive = mass > 0 && shifted > 0;
      const mean = Math.min(Math.max(positive ? (m * s * shifted) / mass : m * s * shifted, start), stop);
      const meanErr = positive ? mean * (shiftedErr / shifted + massErr / mass + 1e-15) : stop - start;
      const width = Math.max(stop - start, 1);
      const wide = stop > start;
      const theta = wide ? Math.min(Math.max((mean - start + meanErr) / width, 0), 1) : 0;
      const weight = w * (mass + massErr);
      out.counts.push(start - 1);
      out.locals.push(thinnedLogOdds(start, m, beta, eps0));
      out.weights.push(weight * (1 - theta));
      if (wide) {
        out.counts.push(start - 1);
        out.locals.push(thinnedLogOdds(Math.min(stop, m), m, beta, eps0));
        out.weights.push(weight * theta);
      }
    }
  }

  const thinnedCache = new Map();
  function thinnedBlocks(n, k, eps0) {
    const key = `${n} ${k} ${eps0}`;
    if (thinnedCache.has(key)) return thinnedCache.get(key);
    const gamma = 2 / (Math.exp(eps0) + 1), s = keptProbability(k, eps0);
    const [cLo, cHi] = binomialRange(n - 1, gamma, THIN.central);
    const fewer = Math.min(1, Math.sqrt(1e6 / n));
    const outer = Math.max(64, N.roundHalfEven(THIN.outer * fewer));
    const inner = Math.max(THIN.sideInner, N.roundHalfEven(THIN.inner * fewer));
    const { counts, weights } = binomialBlocks(n - 1, gamma, outer);
    const out = { counts: [], locals: [], weights: [] };
    // the library lists the central rows first, then the others
    for (const central of [true, false]) {
      counts.forEach((c, j) => {
        if ((c >= cLo && c <= cHi) === central) keptBlocks(c + 1, weights[j], s, eps0, central ? inner : THIN.sideInner, out);
      });
    }
    // sorted by count, then log-odds: consecutive pairs are close for the shortfall's walk
    const order = out.counts.map((_, j) => j).sort((a, b) => out.counts[a] - out.counts[b] || out.locals[a] - out.locals[b]);
    const sorted = {
      counts: order.map((j) => out.counts[j]), locals: order.map((j) => out.locals[j]), weights: order.map((j) => out.weights[j]),
    };
    if (thinnedCache.size > 16) thinnedCache.delete(thinnedCache.keys().next().value);
    thinnedCache.set(key, sorted);
    return sorted;
  }

  // ------------------------------------------------------------------ the privacy blanket
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

  function expm1MinusId(x) { // e^x − 1 − x without cancellation
    if (Math.abs(x) >= 1) return Math.expm1(x) - x;
    let term = x, total = 0;
    for (let j = 2; j < 30; j++) { term *= x / j; total += term; }
    return total;
  }

  // blanket._generic, _laplace, _krr: the blanket of each randomizer family at one ε.
  const BLANKETS = {
    generic(eps0, eps) {
      const logA = logExpm1(eps);
      return {
        logGamma: -eps0,
        log1mGamma: Math.log(-Math.expm1(-eps0)),
        logSpan: eps0 + Math.log(-Math.expm1(-2 * eps0)),
        logUpper: eps0 + Math.log(-Math.expm1(eps - 2 * eps0)),
        logSecond: logAddExp(eps0 + 2 * logA, LOG2 + eps - 3 * eps0 + logExpm1(4 * eps0)),
      };
    },
    laplace(eps0, eps) {
      const u = 0.5 * eps0, logA = logExpm1(eps);
      const logAlpha = u < 1
        ? Math.log((2 * expm1MinusId(u) + expm1MinusId(-2 * u)) / 3)
        : u + Math.log(2 + Math.exp(-3 * u) - 3 * Math.exp(-u)) - Math.log(3);
      const logBeta = Math.log(-Math.expm1(-u));
      return {
        logGamma: -u,
        log1mGamma: logBeta,
        logSpan: u + Math.log(-Math.expm1(-eps0)),
        logUpper: u + Math.log(-Math.expm1(eps - eps0)),
        logSecond: logAddExp(logAddExp(2 * logA, logAddExp(2 * eps, 0) + logAlpha), LOG2 + eps + 2 * logBeta),
      };
    },
    krr(eps0, eps, k) {
      const logA = logExpm1(eps), logKm1 = Math.log(k - 1), logNorm = logAddExp(eps0, logKm1);
      const logGamma = Math.log(k) - logNorm, log1mGamma = logExpm1(eps0) - logNorm;
      const logExcess = logAddExp(logKm1 + logAddExp(0, 2 * eps), LOG2 + eps);
      return {
        logGamma,
        log1mGamma,
        logSpan: Math.log(k) + log1mGamma,
        logUpper: logGamma + eps + logExpm1(eps0 - eps),
        logSecond: logAddExp(2 * logA, 2 * log1mGamma + logExcess),
      };
    },
  };

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

  function blanketLogProfile(tail, rand, n, eps0, eps) {
    const bl = BLANKETS[rand.kind](eps0, eps, rand.k);
    const [logConst, c] = tail(bl, logExpm1(eps), eps);
    return logConst - bl.logGamma - Math.log(n) + logBlanketExpectation(n, bl, c);
  }

  // blanket._grid_profile and blanket._turning_point: the log-profile on the library's grid, and
  // where the bound stops decreasing (the grid's minimum, refined by golden section).
  const turningCache = new Map();
  function turningPoint(tail, rand, n, eps0) {
    const key = `${tail.name} ${rand.kind} ${rand.k} ${n} ${eps0}`;
    if (turningCache.has(key)) return turningCache.get(key);
    const unit = new Set();
    for (let i = 0; i < 160; i++) unit.add(Math.exp(Math.log(1e-8) + (i / 159) * (Math.log(1 - 1e-9) - Math.log(1e-8))));
    for (let i = 0; i < 200; i++) unit.add(0.005 + (i / 199) * (1 - 1e-9 - 0.005));
    const grid = Array.from(unit).sort((u, v) => u - v).map((u) => eps0 * u);
    const f = (e) => blanketLogProfile(tail, rand, n, eps0, e);
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
  // minimum over the grid points <= ε.
  function blanketDelta(tail, rand, n, eps0, eps) {
    if (eps >= eps0) return 0;
    if (eps <= 0) return 1;
    const { point, grid, running } = turningPoint(tail, rand, n, eps0);
    let logDelta = blanketLogProfile(tail, rand, n, eps0, Math.min(eps, point));
    let below = 0;
    while (below < grid.length && grid[below] <= eps) below++;
    if (below) logDelta = Math.min(logDelta, running[below - 1]);
    logDelta += BLANKET_LOG_MARGIN;
    if (logDelta >= 0) return 1;
    return Math.max(Math.exp(logDelta), DELTA_FLOOR);
  }

  // ------------------------------------------------------------------ closed forms
  // clones.ClonesClosedForm (Feldman, McMillan, Talwar 2021, Theorem 3.1) and erlingsson.ErlingssonBound.
  function clonesClosedEpsilon(n, eps0, delta) {
    const e0 = Math.exp(eps0);
    const inner = 8 * Math.sqrt((e0 * (Math.log(4) - Math.log(delta))) / n) + (8 * e0) / n;
    return Math.log1p(Math.tanh(eps0 / 2) * inner);
  }

  function clonesClosedValidity(n, eps0, delta) {
    let logTerm = LOG2; // without δ: the limit δ → 1 (the most permissive), as the library's delta question
    if (delta !== undefined) logTerm = delta > 4 / Number.MAX_VALUE ? Math.log(2 / delta) : LOG2 - Math.log(delta);
    const limit = Math.log(n / (16 * logTerm));
    return eps0 <= limit ? null : `needs ε₀ ≤ log(n / (16 log(2/δ))) = ${N.fmt(limit, -1)}`;
  }

  function erlingssonValidity(n, eps0, delta) {
    if (n < 1000) return "needs n ≥ 1000";
    if (!(eps0 < 0.5)) return "needs ε₀ < 1/2";
    if (delta !== undefined && !(delta < 0.01)) return "needs δ < 1/100";
    return null;
  }

  // ------------------------------------------------------------------ the bounds of the page
  // profile(rand, n, eps0): the library's δ(ε) at these parameters (before the page's margin);
  // closed(n, eps0, delta): a closed-form ε (before the cap at ε₀ and the rounding);
  // validity(n, eps0, delta): null, or why the theorem does not cover the parameters;
  // guess(rand, n, eps0, delta): a starting guess for the ε search (never changes the answer);
  // pair(eps0): the clone probability of the bound's dominating pair (its rounds compose).
  const cloneGuess = (p) => (rand, n, eps0, delta) =>
    N.gaussianEpsilon((2 * Math.tanh(eps0 / 2)) / Math.sqrt((n - 1) * p(eps0) + 1), delta);
  const strongerP = (eps0) => 2 / (Math.exp(eps0) + 1);
  const clonesP = (eps0) => Math.exp(-eps0);

  const BOUNDS = {
    "stronger-clones": {
      mechanisms: ["krr"],
      profile: (rand, n, eps0) => {
        const blocks = binomialBlocks(n - 1, strongerP(eps0));
        return (eps) => (eps >= eps0 ? 0 : clonePairDelta(eps, blocks, eps0));
      },
      guess: cloneGuess(strongerP),
      pair: strongerP,
    },
    "thinned-clones": {
      mechanisms: ["krr"],
      profile: (rand, n, eps0) => {
        if (rand.k === 2) return BOUNDS["stronger-clones"].profile(rand, n, eps0);
        const blocks = thinnedBlocks(n, rand.k, eps0);
        return (eps) => (eps >= eps0 ? 0 : clonePairDelta(eps, blocks));
      },
      guess: (rand, n, eps0, delta) => {
        const s = keptProbability(rand.k, eps0), kept = ((n - 1) * strongerP(eps0) + 1) * s;
        return N.gaussianEpsilon((2 * s * Math.tanh(eps0 / 2)) / Math.sqrt(kept), delta);
      },
      pair: strongerP, // composed: the stronger-clone pair, which dominates the thinned one (as the CLI does)
    },
    clones: {
      mechanisms: ["generic"],
      profile: (rand, n, eps0) => {
        const blocks = binomialBlocks(n - 1, clonesP(eps0));
        return (eps) => (eps >= eps0 ? 0 : clonePairDelta(eps, blocks, eps0));
      },
      guess: cloneGuess(clonesP),
      pair: clonesP,
    },
    "blanket-bennett": {
      mechanisms: ["generic", "laplace", "krr"],
      profile: (rand, n, eps0) => (eps) => blanketDelta(bennettTail, rand, n, eps0, eps),
    },
    "blanket-hoeffding": {
      mechanisms: ["generic", "laplace", "krr"],
      profile: (rand, n, eps0) => (eps) => blanketDelta(hoeffdingTail, rand, n, eps0, eps),
    },
    "clones-closed": {
      mechanisms: ["generic"],
      closed: clonesClosedEpsilon,
      validity: clonesClosedValidity,
    },
    erlingsson: {
      mechanisms: ["generic"],
      closed: (n, eps0, delta) => 12 * eps0 * Math.sqrt(-Math.log(delta) / n),
      validity: erlingssonValidity,
    },
  };

  // The randomizer family the bound is evaluated for (as the command line's --mechanism): the
  // typed family if the bound covers it, else "generic" (a bound for any ε₀-LDP randomizer).
  function boundRandomizer(name, rand) {
    const covers = BOUNDS[name].mechanisms;
    if (covers.includes(rand.kind)) return rand;
    return covers.includes("generic") ? { kind: "generic" } : null;
  }

  // ------------------------------------------------------------------ the three questions
  // δ shown for a profile bound: the library's δ with the margin (0 exactly for ε >= ε₀).
  const profileCache = new Map();
  function profileOf(name, rand, n, eps0) {
    const key = `${name} ${rand.kind} ${rand.k} ${n} ${eps0}`;
    if (!profileCache.has(key)) {
      if (profileCache.size > 64) profileCache.delete(profileCache.keys().next().value);
      const library = BOUNDS[name].profile(rand, n, eps0);
      profileCache.set(key, N.memo((eps) => {
        const d = library(eps);
        return d > 0 ? Math.min(d * (1 + MARGIN), 1) : 0;
      }));
    }
    return profileCache.get(key);
  }

  // Why the bound does not apply (null if it does); the questions throw NotApplicable with it.
  function validity(name, n, eps0, delta) {
    const v = BOUNDS[name].validity;
    return v ? v(n, eps0, delta) : null;
  }

  class NotApplicable extends Error {}

  // δ at ε (an upper bound; 0 exactly for ε >= ε₀: the shuffled protocol is ε₀-DP).
  function deltaUpper(name, rand, n, eps0, eps) {
    const reason = validity(name, n, eps0); // as the library, before the local guarantee
    if (reason) throw new NotApplicable(reason);
    if (eps >= eps0) return 0;
    if (BOUNDS[name].closed) return closedDelta(name, n, eps0, eps);
    return profileOf(name, rand, n, eps0)(eps);
  }

  // The closed forms' δ question (the library's inverses, with their rounding and the margin).
  function closedDelta(name, n, eps0, eps) {
    let d;
    if (name === "erlingsson") {
      const exponent = n * (eps / (12 * eps0)) ** 2;
      d = Math.max(Math.exp(-exponent * (1 - 1e-12)), DELTA_FLOOR);
      if (!(d < 0.01)) d = 1;
    } else {
      const e0 = Math.exp(eps0);
      const root = (Math.expm1(eps) / Math.tanh(eps0 / 2) - (8 * e0) / n) / 8;
      if (root <= 0) return 1;
      const logDelta = Math.max(Math.log(4) - (n * root * root) / e0, LOG2 - n / (16 * e0));
      d = Math.min(Math.exp(logDelta) * (1 + 1e-12), 1);
      d = Math.max(d, DELTA_FLOOR);
    }
    return Math.min(d * (1 + MARGIN), 1);
  }

  // ε at δ: the smallest ε whose δ (with the margin) is <= delta, rounded up; at most ε₀.
  function* epsilonSearch(name, rand, n, eps0, delta) {
    const bound = BOUNDS[name];
    if (bound.closed) {
      const reason = validity(name, n, eps0, delta);
      if (reason) throw new NotApplicable(reason);
      const closedRound = name === "erlingsson" ? 1e-12 : 1e-10;
      return Math.min(bound.closed(n, eps0, delta) * (1 + closedRound) * (1 + 1e-9), eps0);
    }
    const d = profileOf(name, rand, n, eps0);
    if (d(0) <= delta) return 0;
    yield;
    let lo = 0, hi = eps0;
    const guess = bound.guess ? bound.guess(rand, n, eps0, delta) : 0;
    if (guess > 0) [lo, hi] = yield* N.narrowBracket((e) => d(e) > delta, guess, lo, hi);
    const logTarget = Math.log(delta);
    const root = yield* N.certifiedRoot((e) => d(e) <= delta, (e) => logOrFloor(d(e)) - logTarget, lo, hi, 1e-9);
    return Math.min(root * (1 + EPS_RTOL), eps0); // the protocol is ε₀-DP
  }

  // The ε at which the largest-ε₀ question evaluates δ: below the library's own
  // (base.profile_target: max(ε (1 − 3e-9) − 2e-12, ε/2)), so the page's ε₀ is never above its.
  function eps0Target(eps) {
    return Math.max(eps * (1 - EPS_RTOL) - EPS0_ATOL, 0.5 * eps * (1 - EPS_RTOL));
  }

  // Largest ε₀ in (0, 50] for which the bound certifies (ε, δ), rounded down (null: none >= 1e-9).
  function* maxEps0Search(name, rand, n, eps, delta) {
    const bound = BOUNDS[name];
    let ok;
    if (bound.closed) {
      // the library searches the closed form's ε (inf where the theorem does not apply)
      const value = (e0) => (validity(name, n, e0, delta) ? Infinity
        : Math.min(bound.closed(n, e0, delta) * (1 + (name === "erlingsson" ? 1e-12 : 1e-10)), e0));
      const target = eps * (1 - 1e-9);
      ok = N.memo((e0) => value(e0) * (1 + 1e-9) <= target);
    } else {
      const target = eps0Target(eps);
      ok = N.memo((e0) => e0 <= target || profileOf(name, rand, n, e0)(target) <= delta);
    }
    // start where (ε, δ) certainly holds (ε₀ <= the target ε: the protocol is ε₀-DP)
    let lo = bound.closed ? Math.min(eps, EPS0_SEARCH_MAX) * (1 - EPS0_RTOL) : Math.min(eps0Target(eps), EPS0_SEARCH_MAX);
    const hi = EPS0_SEARCH_MAX;
    while (!ok(lo)) {
      yield;
      lo /= 2;
      if (lo < BOX.eps0Min) { // the library searches the box's ε₀ only
        if (!ok(BOX.eps0Min)) return null;
        lo = BOX.eps0Min;
      }
    }
    if (ok(hi)) return hi; // every ε₀ searched qualifies
    yield;
    const logTarget = Math.log(delta);
    const score = bound.closed ? (x) => (ok(Math.exp(x)) ? -1 : 1)
      : (x) => logOrFloor(profileOf(name, rand, n, Math.exp(x))(eps0Target(eps))) - logTarget;
    const root = yield* N.certifiedRoot((x) => ok(Math.exp(x)), score, Math.log(hi), Math.log(lo), 1e-10);
    // below the library's own search tolerance (relative 1e-9, absolute 1e-12), rounded down
    const answer = Math.exp(root) * (1 - EPS0_RTOL) - EPS0_ATOL;
    return answer < BOX.eps0Min ? null : answer;
  }

  return {
    BOX, EPS0_SEARCH_MAX, DELTA_FLOOR, MARGIN, BOUNDS, NotApplicable,
    binomialBlocks, intervalMass, clonePairDelta, thinnedBlocks, keptProbability, blanketDelta,
    bennettTail, hoeffdingTail, boundRandomizer, validity, deltaUpper, epsilonSearch, maxEps0Search,
    eps0Target,
    // synchronous forms (node, tests)
    epsilonUpper: (...a) => N.run(epsilonSearch(...a)),
    maxEps0Lower: (...a) => N.run(maxEps0Search(...a)),
  };
});
