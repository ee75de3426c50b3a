"""The ordering question of issue 29, settled with an independent composition.

n = 59,929 users of 3-ary randomized response, ε₀ = 0.5052572085829723, δ = 7.889389925440744e-12.
One round: blanket Bennett gives ε = 0.011853 and thinned clones 0.010859; two rounds, before
the fix, blanket Bennett (through its profile) 0.017875-0.017913 and ``exact-krr`` /
``thinned-clones`` (through the stronger-clone pair) 0.0183. Either the profile route is below
the truth, or the pair route is loose. This script prints the evidence:

1. the single-round profiles at a grid of ε: thinned clones is below blanket Bennett everywhere,
   but the stronger-clone pair — what the pair route composes — is *above* Bennett's profile
   near the answer: the pair route composes a looser bound than thinned clones, so it may well
   land above Bennett's composition;
2. an independent lower bound: the exact two-round composition of an explicit pair of
   neighbouring datasets (the other users all holding value ``a``; the victim ``a`` or ``b``),
   its histogram's law listed with scipy (a 2-D grid of counts), every loss rounded down (a lower
   bound) and up (an upper bound of that pair) on a fine grid and convolved with numpy: a real
   pair's composition is a lower bound on the worst case, and blanket Bennett's composed answer
   must stay above it (it does, with room to spare);
3. the calculator's answers after the fix (``thinned-clones`` and ``exact-krr`` beyond its search
   also compose blanket Bennett's profile, a valid bound for k-RR, and answer with the smaller).

Run ``python benchmarks/ordering_check.py``.
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.__main__ import main  # noqa: E402
from shufflelib.bounds import BlanketBennett, StrongerClones, ThinnedClones  # noqa: E402

N, EPS0, DELTA, K = 59_929, 0.5052572085829723, 7.889389925440744e-12, 3


def concentrated_pair(n: int, eps0: float) -> tuple[np.ndarray, np.ndarray]:
    """Losses and P-masses of the histogram when all other users hold ``a``: victim ``a`` (P) or ``b`` (Q)."""
    e = math.exp(eps0)
    pa, pl = e / (e + K - 1), 1.0 / (e + K - 1)  # report the own value, or another given one
    # P: n users report a w.p. pa, b w.p. pl, c w.p. pl. Q: the victim reports b w.p. pa, a w.p. pl.
    sd = math.sqrt(n * pl)
    nb = np.arange(max(0, int(n * pl - 13 * sd)), int(n * pl + 13 * sd) + 1)[:, None]
    share = pa / (pa + pl)
    rest_mean = (n - nb) * share
    spread = 13 * np.sqrt((n - nb) * share * (1 - share)).max()
    na = np.arange(int(rest_mean.min() - spread), int(rest_mean.max() + spread) + 1)[None, :]
    log_p = binom.logpmf(nb, n, pl) + binom.logpmf(na, n - nb, share)
    # The likelihood ratio (shufflelib.bounds.exact): Q/P = (e^{-eps0} N_a + e^{eps0} N_b + N_c) / n.
    nc = n - na - nb
    ratio = (na / e + e * nb + nc) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = -np.log(ratio)
    keep = np.isfinite(log_p) & (nc >= 0) & np.isfinite(loss)
    return loss[keep], np.exp(log_p[keep])


def composed_two_rounds(loss: np.ndarray, p: np.ndarray, h: float, up: bool) -> float:
    """ε at DELTA of two rounds of the pair, every loss rounded up (``up``) or down on the grid ``h``."""
    k = (np.ceil if up else np.floor)(loss / h).astype(np.int64)
    lo = int(k.min())
    pmf = np.bincount(k - lo, weights=p)
    two = np.convolve(pmf, pmf)
    grid = (2 * lo + np.arange(two.size)) * h
    order = np.argsort(-grid)
    g, m = grid[order], two[order]
    low, high = 0.0, float(g[0])
    for _ in range(100):
        mid = 0.5 * (low + high)
        above = g > mid
        if float(m[above] @ -np.expm1(mid - g[above])) > DELTA:
            low = mid
        else:
            high = mid
    return high


def calculator(bound: str, rounds: int) -> str:
    argv = ["epsilon", "--bound", bound, "--mechanism", "krr", "--k", str(K), "--n", str(N)]
    argv += ["--eps0", repr(EPS0), "--delta", repr(DELTA), "--compose", str(rounds)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(argv)
    return out.getvalue().strip()


def main_() -> None:
    print("1. One round's profiles: δ(ε) of each bound")
    print("| ε | thinned clones | blanket Bennett | stronger-clone pair |")
    print("|---|---|---|---|")
    thinned, bennett = ThinnedClones(mechanism="krr", k=K), BlanketBennett(mechanism="krr", k=K)
    stronger = StrongerClones(mechanism="krr", k=K)
    for eps in (0.002, 0.004, 0.006, 0.008, 0.010, 0.012):
        row = [b.delta(N, EPS0, eps) for b in (thinned, bennett, stronger)]
        print(f"| {eps} | {row[0]:.3e} | {row[1]:.3e} | {row[2]:.3e} |")
    print("\n2. An explicit pair of neighbouring datasets, two rounds composed independently")
    loss, p = concentrated_pair(N, EPS0)
    h = 2e-7
    low, high = composed_two_rounds(loss, p, h, up=False), composed_two_rounds(loss, p, h, up=True)
    print(f"   its exact two-round ε lies in [{low:.6f}, {high:.6f}] ({p.size} histogram cells, grid {h:g})")
    print("\n3. The calculator, --compose 2")
    for bound in ("blanket-bennett", "thinned-clones", "exact-krr", "stronger-clones"):
        print(f"   {bound:16s} {calculator(bound, 2)}")


if __name__ == "__main__":
    main_()
