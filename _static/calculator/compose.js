// The website calculator, part 3 of 4: T rounds of a clone pair (clones, stronger clones), by
// privacy loss distributions, in the browser.
//
// One round. The clone pair (shufflelib/composition/clone_pld.py) given M = m: P(j) = b(j)(1 + x_j),
// Q(j) = b(j)(1 − x_j), b = Bin(m, 1/2), x_j = tanh(L/2)(2j − m)/m, privacy loss ℓ_j = 2 artanh(x_j);
// M = C + 1, C ~ Bin(n − 1, p). Its privacy loss distribution (the law of ℓ under P) is
// discretized on the grid step·ℤ *pessimistically* by connect-the-dots (Doroshenko, Ghazi,
// Kamath, Kumar, Manurangsi, "Connect the dots: tighter discrete approximations of privacy loss
// distributions", PETS 2022): an atom between two grid points is split between them so that its
// P-mass and its Q-mass (E_P[e^{−ℓ}]) are kept. The hockey-stick integrand (1 − e^{ε−ℓ})^+ is
// convex in e^{−ℓ}, so the split never lowers δ(ε), for any ε: the discretized pair dominates the
// true one, hence so do their T-fold products (the composition theorem of Zhu, Dong, Wang 2022).
// Its error is of second order in the step (rounding every loss up, the library's discretization,
// costs up to T·step in ε). Every other approximation moves mass up, which only raises δ: clone
// counts in blocks at their left end (one more clone is a post-processing), binomial tails and
// far clone counts to +∞ (their mass bounded by Hoeffding's inequality or computed), each mass
// inflated by its rounding allowance.
//
// T rounds. δ_T(ε) = E_{P^T}[(1 − e^{ε − L_T})^+] with L_T the sum of T losses: the T-fold
// convolution of the round's distribution ω, computed by FFT. Under an exponential tilt
// ρ_i ∝ ω_i e^{θ ℓ_i} (chosen at the Chernoff saddle point of the question), which commutes with
// convolution, the mass that matters sits near the middle of the tilted sum, so the FFT's absolute
// rounding (bounded after Higham, ~1e-16 of the largest mass) stays far below δ even at
// δ = 1e-300. Outside a Chernoff window, at most WINDOW_TAIL of the tilted mass per side (counted
// into δ); cyclic aliasing only adds mass. δ_T is then exact for the discretized pair up to these
// stated terms, each added on the safe side.
(function (name, deps, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(...deps.map((d) => require(`./${d}.js`)));
  } else {
    const registry = (window.shuffleCalculatorModules = window.shuffleCalculatorModules || {});
    registry[name] = { deps, factory };
  }
})("compose", ["numerics", "bounds"], function (N, B) {
  "use strict";

  const U = N.U;
  const STEPS_PER_SCALE = 50; // grid step: the round's loss scale / 50 (as the library's default)
  const BLOCK_SLACK = 1e-4; // clone-count blocks at most this relative width (their left end is used)
  const WINDOW_TAIL = 1e-15; // tilted mass left out of the composition window per side (counted)
  const MAX_FFT = 1 << 21; // largest FFT (a coarser grid is used beyond: its error is stated)
  const MASS_RTOL = 1e-12; // relative allowance on each binomial pmf (saddle-point form, recurrences)
  const COMPOSED_ATOL = 1e-15; // absolute rounding up of a composed ε (the command line's, pld.py)

  // ------------------------------------------------------------------ one round
  // The loss scale of the pair: the standard deviation of one round's loss for large counts
  // (shufflelib.composition.default_step's σ).
  function lossScale(n, L, p) {
    return (2 * Math.tanh(L / 2)) / Math.sqrt(1 + (n - 1) * p);
  }

  // Hoeffding: P(|J − m/2| >= t) <= exp(−2t²/m) per side, J ~ Bin(m, 1/2); the P-weight (1 + x) <= 2.
  const hoeffding = (m, t) => (t > 0 ? 2 * Math.exp((-2 * t * t) / m) : 2);

  // The pessimistic distribution of one round: masses on the grid step·k, k = kMin + i, and the mass
  // at +∞. tail: the mass each neglected range may send to +∞.
  function roundPLD(n, L, p, step, tail) {
    const t = Math.tanh(L / 2);
    // clone counts: [cLo, cHi] in blocks (left ends); below cLo to +∞, above cHi into the last block
    const [cLo, cHi] = N.binomialRange(n - 1, p, tail);
    const width = Math.max(1, Math.floor(BLOCK_SLACK * (cLo + 1)));
    const starts = [];
    for (let c = cLo; c <= cHi; c += width) starts.push(c);
    let inf = cLo > 0 ? N.binomTails(cLo - 1, n - 1, p)[0] * (1 + 1e-9) + 1e-300 : 0;
    const blocks = starts.map((c, i) => {
      const last = i + 1 === starts.length;
      const [mass, err] = B.intervalMass(c, last ? n - 1 : starts[i + 1] - 1, n - 1, p);
      return { m: c + 1, w: mass + err };
    });
    // j-range of each block: P-mass beyond it at most `tail` (Hoeffding), and its grid range
    const z = Math.sqrt(Math.log(2 / tail) / 2); // exp(−2 t²/m) = tail/2 at t = z sqrt(m)
    const loss = pairLoss(t, 2 / (Math.exp(L) + 1));
    let kMin = Infinity, kMax = -Infinity;
    for (const b of blocks) {
      b.jLo = Math.max(0, Math.floor(b.m / 2 - z * Math.sqrt(b.m)));
      b.jHi = Math.min(b.m, Math.ceil(b.m / 2 + z * Math.sqrt(b.m)));
      b.kLo = Math.floor(loss(b.m, b.jLo) / step) - 1;
      b.kHi = Math.floor(loss(b.m, b.jHi) / step) + 1;
      kMin = Math.min(kMin, b.kLo);
      kMax = Math.max(kMax, b.kHi + 1);
    }
    const mass = new Float64Array(kMax - kMin + 1);
    const oneMinusES = -Math.expm1(-step);
    for (const b of blocks) {
      if (!(b.w > 0)) continue;
      const { m, jLo, jHi } = b;
      // the binomial tails outside [jLo, jHi]: below to a grid point above loss(jLo) (their losses
      // are smaller), above to +∞
      if (jLo > 0) mass[b.kLo + 3 - kMin] += b.w * hoeffding(m, m / 2 - jLo + 1);
      if (jHi < m) inf += b.w * hoeffding(m, jHi + 1 - m / 2);
      const atoms = jHi - jLo + 1;
      let underflow = 0;
      const pmfs = binomialRun(m, jLo, jHi);
      if (atoms <= 2 * (b.kHi - b.kLo + 1)) {
        // few atoms: each split between its two grid points
        for (let j = jLo; j <= jHi; j++) {
          const q = pmfs[j - jLo];
          if (!(q > 1e-300)) { underflow++; continue; }
          const P = q * (1 + (t * (2 * j - m)) / m) * b.w;
          const l = loss(m, j);
          const k = Math.floor(l / step);
          const r = l - k * step + 1e-15 * Math.abs(l) + 1e-300; // rounded up: more mass up is safe
          const up = r >= step ? 1 : Math.max(0, -Math.expm1(-r) / oneMinusES);
          mass[k - kMin] += P * (1 - up);
          mass[k + 1 - kMin] += P * up;
        }
      } else {
        // many atoms per grid cell: the atoms of cell k are j with d_k <= j − m/2 < d_{k+1},
        // d_k = (m/(2t)) tanh(k step/2); the mass sent up is
        // (1 + e^{k step}) (2t/m) Σ b(j)(j − m/2 − d_k) / (1 − e^{−step}) (module notes)
        const scale = m / (2 * t);
        const dAt = (k) => scale * Math.tanh((k * step) / 2);
        const tolAt = (d) => 8 * U * (Math.abs(d) + m);
        let k = b.kLo, dk = dAt(k), j = jLo;
        while (k <= b.kHi) {
          const dNext = dAt(k + 1);
          const jEnd = k === b.kHi ? jHi : Math.min(jHi, Math.ceil(m / 2 + dNext - tolAt(dNext)) - 1);
          let P = 0, V = 0, S0 = 0;
          for (; j <= jEnd; j++) {
            const q = pmfs[j - jLo];
            if (!(q > 1e-300)) { underflow++; continue; }
            const d = j - m / 2;
            P += q * (1 + (2 * t * d) / m);
            V += q * (d - dk);
            S0 += q;
          }
          if (P > 0) {
            const up = ((1 + Math.exp(k * step)) * (2 * t / m) * (V * (1 + MASS_RTOL) + 2 * tolAt(dk) * S0) * (1 + 16 * U)) / oneMinusES;
            const upper = Math.min(P, Math.max(up, 0));
            mass[k - kMin] += (P - upper) * b.w;
            mass[k + 1 - kMin] += upper * b.w;
          }
          k++;
          dk = dNext;
        }
      }
      inf += underflow * 1e-300 * b.w;
    }
    for (let i = 0; i < mass.length; i++) mass[i] *= 1 + MASS_RTOL + 64 * U;
    return { step, kMin, mass, inf: Math.min(inf, 1) };
  }

  // The loss of atom j given m: log((1 + x)/(1 − x)), x = t u, u = (2j − m)/m, with 1 − t|u| =
  // (1 − |u|) + |u| (1 − t) computed without cancellation (t = tanh(L/2) is 1 in floating point
  // for L > 38, where the loss at u = ±1 is still ±L).
  function pairLoss(t, oneMinusT) {
    return (m, j) => {
      const u = (2 * j - m) / m, a = Math.abs(u);
      const l = Math.log1p(t * a) - Math.log(1 - a + a * oneMinusT);
      return u < 0 ? -l : l;
    };
  }

  // Bin(m, 1/2) pmf at jLo..jHi: ratios from anchors every 64 points (saddle-point form).
  function binomialRun(m, jLo, jHi) {
    const out = new Float64Array(jHi - jLo + 1);
    let q = 0;
    for (let j = jLo; j <= jHi; j++) {
      if ((j - jLo) % 64 === 0) q = N.pmf(j, m, 0.5);
      else q *= (m - j + 1) / j;
      out[j - jLo] = q;
    }
    return out;
  }

  // ------------------------------------------------------------------ FFT
  const twiddleCache = new Map();
  function twiddles(size) {
    if (!twiddleCache.has(size)) {
      const cos = new Float64Array(size / 2), sin = new Float64Array(size / 2);
      for (let k = 0; k < size / 2; k++) { cos[k] = Math.cos((2 * Math.PI * k) / size); sin[k] = Math.sin((2 * Math.PI * k) / size); }
      if (twiddleCache.size > 4) twiddleCache.clear();
      twiddleCache.set(size, { cos, sin });
    }
    return twiddleCache.get(size);
  }

  // In-place radix-2 FFT (sign −1 forward, +1 inverse, unnormalized).
  function fft(re, im, sign) {
    const size = re.length;
    for (let i = 1, j = 0; i < size; i++) {
      let bit = size >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        let tmp = re[i]; re[i] = re[j]; re[j] = tmp;
        tmp = im[i]; im[i] = im[j]; im[j] = tmp;
      }
    }
    const { cos, sin } = twiddles(size);
    for (let len = 2; len <= size; len <<= 1) {
      const half = len >> 1, stride = size / len;
      for (let i = 0; i < size; i += len) {
        for (let k = 0; k < half; k++) {
          const wr = cos[k * stride], wi = sign * sin[k * stride];
          const a = i + k, b = a + half;
          const xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
          re[b] = re[a] - xr; im[b] = im[a] - xi;
          re[a] += xr; im[a] += xi;
        }
      }
    }
  }

  // ------------------------------------------------------------------ T rounds
  const logSumExp = (values) => {
    let top = -Infinity;
    for (const v of values) if (v > top) top = v;
    if (top === -Infinity) return -Infinity;
    let s = 0;
    for (const v of values) s += Math.exp(v - top);
    return top + Math.log(s);
  };

  // log Σ_i e^{logs[i] + slope · x[i]} (the atoms of a distribution in log space).
  function logSumTilted(logs, x, slope) {
    let top = -Infinity;
    for (let i = 0; i < logs.length; i++) top = Math.max(top, logs[i] + slope * x[i]);
    if (top === -Infinity) return -Infinity;
    let sum = 0;
    for (let i = 0; i < logs.length; i++) sum += Math.exp(logs[i] + slope * x[i] - top);
    return top + Math.log(sum);
  }

  // The atoms of the finite part of a distribution: their losses and log-masses.
  function atomsOf(pld) {
    if (!pld.atoms) {
      const losses = [], logs = [], index = [];
      pld.mass.forEach((v, i) => {
        if (v > 0) { losses.push((pld.kMin + i) * pld.step); logs.push(Math.log(v)); index.push(i); }
      });
      pld.atoms = { losses: Float64Array.from(losses), logs: Float64Array.from(logs), index: Float64Array.from(index) };
    }
    return pld.atoms;
  }

  // log E_ω[e^{θ ℓ}] over the finite part.
  function logMgf(pld, theta) {
    const { logs, losses } = atomsOf(pld);
    return logSumTilted(logs, losses, theta);
  }

  // Minimize f over log θ in [lo, hi] by golden section (f unimodal; otherwise a valid, looser tilt).
  function goldenMin(f, lo, hi, iterations = 60) {
    const g = (Math.sqrt(5) - 1) / 2;
    let a = lo, b = hi, x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(x1), f2 = f(x2);
    for (let i = 0; i < iterations; i++) {
      if (f1 < f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = f(x1); }
      else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = f(x2); }
    }
    return f1 < f2 ? x1 : x2;
  }

  // The tilt that centres the composed sum at ε: the Chernoff saddle point, T K'(θ) = ε (θ = 0
  // when ε is below the mean loss). Any θ >= 0 gives the same δ up to the stated terms; this
  // one makes the composed mass largest, relative to its rounding, around ε.
  // At most 1e6 over the largest loss, so that each tilted mass keeps its relative precision (a
  // larger θ would only matter beyond T times the largest loss, where the finite part has no mass).
  function tiltAt(pld, rounds, eps) {
    const { losses } = atomsOf(pld);
    const top = Math.log(1e6 / Math.max(Math.abs(losses[0]), Math.abs(losses[losses.length - 1]), 1e-300));
    const f = (x) => rounds * logMgf(pld, Math.exp(x)) - Math.exp(x) * eps;
    const x = goldenMin(f, Math.min(Math.log(1e-8), top - 1), top, 90);
    return f(x) < 0 ? Math.exp(x) : 0;
  }

  // The mean and standard deviation of one round's loss.
  function moments(pld) {
    const { losses, logs } = atomsOf(pld);
    let total = 0, mean = 0, square = 0;
    for (let a = 0; a < losses.length; a++) {
      const w = Math.exp(logs[a]);
      total += w; mean += w * losses[a]; square += w * losses[a] * losses[a];
    }
    mean /= total;
    return { mean, sd: Math.sqrt(Math.max(square / total - mean * mean, 0)) };
  }

  // The composed distribution of `rounds` rounds of `pld` under the tilt θ, with everything
  // δ_T(ε) needs; see deltaComposed.
  function composeTilted(pld, rounds, theta) {
    const { mass, kMin, step } = pld;
    const width = mass.length;
    // tilted masses ρ_i = ω_i e^{θ ℓ_i} / M(θ), and the allowance on their rounding
    const logM = logMgf(pld, theta);
    const rho = new Float64Array(width);
    let maxExponent = 0;
    for (let i = 0; i < width; i++) {
      if (!(mass[i] > 0)) continue;
      const exponent = theta * (kMin + i) * step - logM;
      maxExponent = Math.max(maxExponent, Math.abs(theta * (kMin + i) * step) + Math.abs(logM));
      rho[i] = mass[i] * Math.exp(exponent);
    }
    const tiltRtol = 8 * U * (maxExponent + 1); // relative error of each ρ_i (exp of a rounded exponent)
    // Chernoff window of the sum S of `rounds` indices under ρ: at most WINDOW_TAIL outside, per side
    const atoms = atomsOf(pld);
    const logRho = atoms.logs.map((v, a) => v + theta * atoms.losses[a] - logM);
    const kRho = (lam) => logSumTilted(logRho, atoms.index, lam);
    const top = rounds * (width - 1);
    const logTail = Math.log(WINDOW_TAIL);
    let lo = 0, hi = top;
    for (let g = 0; g < 48; g++) {
      const lam = Math.exp(Math.log(1e-3 / Math.max(1, top)) + (g / 47) * (Math.log(50) - Math.log(1e-3 / Math.max(1, top))));
      hi = Math.min(hi, Math.ceil((rounds * kRho(lam) - logTail) / lam));
      lo = Math.max(lo, Math.floor((logTail - rounds * kRho(-lam)) / lam));
    }
    lo = Math.max(0, Math.min(lo, top));
    hi = Math.max(lo, Math.min(hi, top));
    let size = 1;
    while (size < hi - lo + 1) size <<= 1;
    if (size > MAX_FFT) return null;
    // cyclic convolution of length `size`: fold ρ, transform, raise to the power, transform back
    const re = new Float64Array(size), im = new Float64Array(size);
    for (let i = 0; i < width; i++) re[i % size] += rho[i];
    fft(re, im, -1);
    for (let k = 0; k < size; k++) {
      let ar = re[k], ai = im[k], rr = 1, ri = 0, e = rounds;
      while (e > 0) {
        if (e & 1) { const tr = rr * ar - ri * ai; ri = rr * ai + ri * ar; rr = tr; }
        e >>= 1;
        if (e) { const tr = ar * ar - ai * ai; ai = 2 * ar * ai; ar = tr; }
      }
      re[k] = rr; im[k] = ri;
    }
    fft(re, im, 1);
    const count = hi - lo + 1;
    const offset = rounds * kMin + lo;
    const logScale = rounds * logM;
    // per window point: its loss, the log of its weight in δ (mass · e^{logScale − θℓ}), and suffix
    // maxima (for scaling sums) and suffix log-sums of the squared weights e^{2(logScale − θℓ)}
    const loss = new Float64Array(count), logWeight = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      loss[i] = (offset + i) * step;
      const v = re[(lo + i) % size] / size;
      logWeight[i] = v > 0 ? Math.log(v) + logScale - theta * loss[i] : -Infinity;
    }
    const suffixMax = new Float64Array(count + 1), suffixSquares = new Float64Array(count + 1);
    suffixMax[count] = -Infinity;
    suffixSquares[count] = -Infinity;
    for (let i = count - 1; i >= 0; i--) {
      suffixMax[i] = Math.max(suffixMax[i + 1], logWeight[i]);
      suffixSquares[i] = N.logAddExp(suffixSquares[i + 1], 2 * (logScale - theta * loss[i]));
    }
    let total = 0;
    for (let i = 0; i < width; i++) total += rho[i];
    return {
      step, rounds, theta, logScale, offset, loss, logWeight, suffixMax, suffixSquares,
      // ℓ2 rounding of the composed masses (Higham's bound for radix-2 FFTs, generously), per unit of mass
      rounding: 32 * (rounds + 2) * Math.log2(size) * U * Math.max(1, total ** rounds),
      window: 2 * WINDOW_TAIL,
      top: rounds * (kMin + width - 1) * step, // the largest finite loss of the composed grid pmf
      rtol: Math.expm1(rounds * Math.log1p(tiltRtol)) + 1e-9, // ρ's rounding, and the sums' (< 2^21 terms)
      inf: -Math.expm1(rounds * Math.log1p(-Math.min(pld.inf, 1 - 1e-16))),
      pure: rounds * pld.cap,
      fft: size,
    };
  }

  // log δ_T(ε) of a composition (an upper bound: every stated term added), for ε >= 0. Every term
  // of the sum is positive (no cancellation).
  function logDeltaComposed(c, eps) {
    if (eps >= c.pure) return -Infinity; // T rounds of ε₀-DP: (T ε₀, 0)
    const { loss, logWeight, suffixMax, suffixSquares, step, offset, theta, logScale } = c;
    let first = Math.min(Math.max(0, Math.floor(eps / step) - offset), loss.length);
    while (first < loss.length && !(loss[first] > eps)) first++;
    const shift = suffixMax[first];
    // the sum, and the squared norm of the weights (1 − e^{ε−ℓ}) e^{logScale − θℓ} of the rounding
    // term (largest at `first`: scaled by it); at a tiny ε₀ every 1 − e^{ε−ℓ} is tiny, and so is the term
    const base = first < loss.length ? 2 * (logScale - theta * loss[first]) : 0;
    let sum = 0, squares = 0;
    for (let i = first; i < loss.length; i++) {
      const w = -Math.expm1(eps - loss[i]);
      if (shift > -Infinity && logWeight[i] > -Infinity) sum += Math.exp(logWeight[i] - shift) * w;
      squares += Math.exp(2 * (logScale - theta * loss[i]) - base) * w * w;
    }
    const logNorm = Math.min(0.5 * suffixSquares[first], squares > 0 ? 0.5 * (Math.log(squares) + base) : -Infinity);
    // the window's tails lie at losses up to c.top: their weight is at most 1 − e^{ε − top}
    const gap = c.top - eps + 1e-12 * (Math.abs(c.top) + Math.abs(eps));
    const cap = gap > 0 ? Math.min(1, -Math.expm1(-gap) * (1 + 1e-9)) : 0;
    const parts = [
      sum > 0 ? Math.log(sum) + shift + Math.log1p(c.rtol) : -Infinity,
      Math.log(c.rounding) + logNorm + 1e-6, // ‖error‖₂ · ‖weights‖₂
      Math.log(c.window * cap) + logScale - theta * eps, // the window's tails: weight at most cap e^{logScale − θε}
    ];
    let total = logSumExp(parts);
    if (c.inf > 0) total = N.logAddExp(total, Math.log(c.inf));
    return Math.min(total, 0);
  }

  // ------------------------------------------------------------------ the questions
  // One round of the pair on the grid of a question: the loss scale / STEPS_PER_SCALE (coarser if
  // the composition outgrows MAX_FFT), its neglected tails below 1e-7 δ over all rounds (1e-30
  // per round before δ is known).
  function composition(n, L, p, rounds, { eps, delta }, attempt = 0) {
    const step = (lossScale(n, L, p) / STEPS_PER_SCALE) * 2 ** attempt;
    const tail = delta !== undefined ? Math.max((1e-7 * delta) / rounds, 1e-320) : 1e-30;
    const pld = roundPLD(n, L, p, step, tail);
    pld.cap = L;
    const at = (theta) => {
      const c = composeTilted(pld, rounds, theta);
      if (c) return c;
      if (attempt >= 12) throw new Error("no grid fits this composition");
      return null;
    };
    if (eps !== undefined) {
      const c = at(tiltAt(pld, rounds, eps));
      return c || composition(n, L, p, rounds, { eps, delta }, attempt + 1);
    }
    // ε question: the tilt is the Chernoff saddle point of the root. Start from the Chernoff root
    // (δ_T(ε) <= P(L_T > ε) <= e^{T K(θ) − θε}: an ε at or above the root, within a few standard
    // deviations of it), compose tilted there, and move the tilt to the saddle point of the root
    // found until it stays. Every tilt gives a valid answer (the same δ_T up to its stated terms,
    // which only add); a tilt far from the root's leaves the root outside its window, where the
    // window's stated tail makes the answer loose, so the smallest root is kept.
    let theta = tiltAt(pld, rounds, chernoffEpsilon(pld, rounds, delta)), best = null;
    const { sd } = moments(pld);
    for (let pass = 0; pass < 8; pass++) {
      const c = at(theta);
      if (!c) return composition(n, L, p, rounds, { eps, delta }, attempt + 1);
      c.root = epsilonOf(c, delta);
      if (!best || c.root < best.root) best = c;
      const next = tiltAt(pld, rounds, c.root);
      if (Math.abs(next - theta) * Math.sqrt(rounds) * sd < 0.5) break;
      theta = next;
    }
    return best;
  }

  // The Chernoff root: the smallest ε with min_θ e^{T K(θ) − θε} <= δ, i.e. min over θ > 0 of
  // (T K(θ) − log δ)/θ, at most T times the largest loss (a starting point: it never changes an
  // answer's validity, only which tilt computes it).
  function chernoffEpsilon(pld, rounds, delta) {
    const { losses } = atomsOf(pld);
    const largest = Math.max(Math.abs(losses[0]), Math.abs(losses[losses.length - 1]), 1e-300);
    const top = Math.log(1e6 / largest);
    const f = (x) => (rounds * logMgf(pld, Math.exp(x)) - Math.log(delta)) / Math.exp(x);
    const x = goldenMin(f, Math.min(Math.log(1e-8), top - 1), top, 90);
    return Math.min(f(x), rounds * losses[losses.length - 1]);
  }

  // The smallest ε with δ_T(ε) <= δ (to a relative 1e-10) of a composition, at most T ε₀, rounded
  // up as the command line rounds a composed ε: by a relative 1e-12 plus 1e-15 (so that where
  // δ_T(0) <= δ it answers 1e-15, as `--compose T` does, never 0).
  function epsilonOf(c, delta) {
    const logTarget = Math.log(delta);
    const logDelta = N.memo((e) => logDeltaComposed(c, e));
    const up = (e) => Math.min(e * (1 + 1e-12) + COMPOSED_ATOL, c.pure);
    if (logDelta(0) <= logTarget) return up(0);
    const root = N.run(N.certifiedRoot((e) => logDelta(e) <= logTarget,
      (e) => Math.max(logDelta(e), -1e300) - logTarget, 0, c.pure, 1e-10));
    return up(root);
  }

  // The pair's bound and randomizer for one round's ε (naive composition).
  const ROUND_BOUND = { clones: ["clones", { kind: "generic" }], "stronger-clones": ["stronger-clones", { kind: "krr", k: 2 }],
    "thinned-clones": ["stronger-clones", { kind: "krr", k: 2 }] };

  // ε of `rounds` rounds at δ: the smaller of the composed pair's and of naive composition's
  // (T rounds of (ε₁, δ/T) are (T ε₁, δ)-DP), both valid, both rounded up as the command line rounds.
  function composedEpsilon(name, n, eps0, rounds, delta) {
    const p = B.BOUNDS[name].pair(eps0);
    const c = composition(n, eps0, p, rounds, { delta });
    const info = { fft: c.fft, step: c.step, theta: c.theta };
    const [bound, rand] = ROUND_BOUND[name];
    const naive = rounds * B.epsilonUpper(bound, rand, n, eps0, delta / rounds) * (1 + 1e-12) + COMPOSED_ATOL;
    return c.root <= naive ? { eps: c.root, method: "pld", ...info } : { eps: naive, method: "naive", ...info };
  }

  // δ of `rounds` rounds at ε (0 from T ε₀ on); a tiny δ is recomputed with the neglected tails
  // set below it.
  // The neglected tails start far below a Gaussian estimate of δ, and go lower while they would
  // make up more than a millionth of the answer.
  function composedDelta(name, n, eps0, rounds, eps) {
    if (eps >= rounds * eps0) return { delta: 0 };
    const p = B.BOUNDS[name].pair(eps0);
    const mu = Math.sqrt(rounds) * lossScale(n, eps0, p);
    let estimate = Math.min(1e-6 * Math.exp(N.gaussianLogDelta(mu, eps)), 1e-20);
    let c, delta;
    for (let pass = 0; pass < 6; pass++) {
      c = composition(n, eps0, p, rounds, { eps, delta: estimate });
      delta = Math.exp(logDeltaComposed(c, eps));
      if (c.inf <= 1e-6 * delta || estimate <= 1e-300) break;
      estimate = Math.max(1e-6 * Math.min(delta, estimate), 1e-310);
    }
    if (!Number.isFinite(delta)) // e.g. a tilt of ~1e9 at a δ near 1e-17: say so, never show NaN
      throw new Error("this δ is beyond the browser's composition; the command line answers it");
    return { delta: Math.max(delta, B.DELTA_FLOOR), fft: c.fft, step: c.step, theta: c.theta };
  }

  // Largest ε₀ such that `rounds` rounds are (ε, δ)-DP (rounded down, to a relative 1e-5): a search
  // in log ε₀ between ε/T (always: T rounds of (ε/T)-DP are ε-DP) and `top`, one round's largest
  // ε₀ (composition never helps), each step one composition. A generator (one step per yield).
  function* composedMaxEps0Search(name, n, eps, delta, rounds, top) {
    const logTarget = Math.log(delta);
    const score = N.memo((x) => {
      const e0 = Math.exp(x);
      if (eps >= rounds * e0) return -Infinity;
      const c = composition(n, e0, B.BOUNDS[name].pair(e0), rounds, { eps, delta });
      return logDeltaComposed(c, eps) - logTarget;
    });
    const lo = Math.log(eps / rounds), hi = Math.log(Math.max(top, eps / rounds));
    if (score(hi) <= 0) return Math.exp(hi);
    yield;
    const root = yield* N.certifiedRoot((x) => score(x) <= 0, (x) => Math.max(score(x), -50), hi, lo, 0, 1e-5);
    return Math.exp(root) * (1 - 1e-9);
  }

  return {
    roundPLD, composeTilted, logDeltaComposed, composedEpsilon, composedDelta, composedMaxEps0Search, lossScale, fft,
    composedMaxEps0: (...a) => N.run(composedMaxEps0Search(...a)),
  };
});
