"""Gap between the website calculator and the command line, over random inputs; prints tables.

Run ``python benchmarks/calculator_gap.py [--count 1000] [--rounds 1,2,10,100,1000,10000]
[--reference 20]`` (node must be installed). It runs the page's scripts
(``_static/calculator/*.js``, the code the browser runs) under node and compares what the page
shows (four digits, rounded the safe way) with the library's answers, which are the command
line's (``python -m shufflelib`` prints the same numbers; the library is called in-process here
to save the start-up of a thousand processes):

* one round (``--rounds 1``): per bound and randomizer family, ``--count`` random inputs from the
  whole box (n log-uniform in [2, 1e9], ε₀ log-uniform in [1e-6, 100], δ log-uniform in
  [1e-15, 0.5], a quarter in [1e-300, 1e-15]; the target ε of the δ and ε₀ questions near the
  library's ε): how often the page's ε or δ is below the command line's, or its largest ε₀
  above (each must be never), and the largest gaps (ε: over every input, and apart where the
  command line's ε >= 1e-9);
* T rounds (each other ``--rounds``): ``--count`` random inputs from the whole box (δ in
  [1e-15, 0.5], clones and stronger clones in turn): the page's composed ε against today's
  ``--compose T`` (how often above, how often below, by more than 1 % either way, how often
  below the command line's certified lower end of the exact composition — its ε minus its
  stated ``error``, must be never —, the largest and smallest ratio; the farthest input on each
  side goes to stderr), and on the first
  ``--reference`` inputs where it is cheap against the bracket of the exact composition
  (``tests/calculator_reference.py``: optimistic and pessimistic fine-grid compositions of the same
  pair): how often the page is below its lower end (must be never), and the largest gap to it.

Also prints the scripts' sizes and the page's time per answer under node.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from calculator_reference import CONFIGS, clone_pair_bracket, pair_probability  # noqa: E402

from shufflelib.bounds import get_bound  # noqa: E402
from shufflelib.bounds.base import NotApplicableError  # noqa: E402
from shufflelib.composition import bound_model, composed_epsilon  # noqa: E402

SCRIPTS = ROOT / "_static" / "calculator"

DRIVER = """
const dir = process.argv[1];
const N = require(dir + "/numerics.js"), B = require(dir + "/bounds.js"), C = require(dir + "/compose.js");
const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
const timed = (f) => {
  const t = performance.now();
  let v;
  try { v = f(); } catch (e) { v = "n/a"; }
  return [v, performance.now() - t];
};
console.log(JSON.stringify(jobs.map(([kind, ...a]) => {
  if (kind === "eps") return timed(() => Number(N.fmt(B.epsilonUpper(...a), 1)));
  if (kind === "delta") return timed(() => Number(N.fmt(B.deltaUpper(...a), 1)));
  if (kind === "eps0") {
    return timed(() => { const v = B.maxEps0Lower(...a); return v === null ? "n/a" : Number(N.fmt(v, -1)); });
  }
  if (kind === "T-eps") return timed(() => Number(N.fmt(C.composedEpsilon(...a).eps, 1)));
})));
"""


def node_run(jobs: list) -> list:
    done = subprocess.run(
        [shutil.which("node"), "-e", DRIVER, str(SCRIPTS)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def library(call, *args):
    try:
        return call(*args)
    except NotApplicableError:
        return "n/a"


def box_input(rng: np.random.Generator) -> tuple[int, float, float]:
    n = int(round(math.exp(rng.uniform(math.log(2), math.log(1e9)))))
    eps0 = float(math.exp(rng.uniform(math.log(1e-6), math.log(100.0))))
    tiny = rng.random() < 0.25
    delta = float(
        math.exp(
            rng.uniform(math.log(1e-300), math.log(1e-15)) if tiny else rng.uniform(math.log(1e-15), math.log(0.5))
        )
    )
    return n, eps0, delta


def sizes() -> None:
    files = sorted(SCRIPTS.glob("*.js")) + sorted(SCRIPTS.glob("*.css"))
    total = sum(f.stat().st_size for f in files)
    zipped = sum(len(gzip.compress(f.read_bytes(), 9)) for f in files)
    listing = ", ".join(f"{f.name} {f.stat().st_size:,}" for f in files)
    print(f"scripts: {total:,} bytes in all, {zipped:,} gzipped ({listing}; unminified)\n")


def one_round(count: int) -> None:
    print(f"One round: {count} random inputs per row (the command line's answers from the library, in-process)\n")
    print(
        "| bound | family | ε below CLI | largest ε gap (CLI ε ≥ 1e-9) | largest ε gap | δ below CLI | largest δ gap "
        "| ε₀ above CLI | largest ε₀ gap (target ε ≥ 1e-8) | not applicable (page / CLI) "
        "| page ms per ε (mean, max) | CLI s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, mechanism, k in CONFIGS:
        rng = np.random.default_rng(zlib.crc32(f"{name}/{mechanism}/{k}".encode()))  # same inputs every run
        bound = get_bound(name, mechanism, k)
        rand = {"kind": mechanism, "k": k}
        points, t0 = [], time.perf_counter()
        for _ in range(count):
            n, eps0, delta = box_input(rng)
            if name == "erlingsson":  # its theorem's range: n >= 1000, eps0 < 1/2 (drawn a little beyond)
                n, eps0 = max(n, 800), float(math.exp(rng.uniform(math.log(1e-3), math.log(0.6))))
            eps = library(bound.epsilon, n, eps0, delta)
            target = (eps if isinstance(eps, float) and eps > 0 else eps0 / 10) * math.exp(rng.uniform(-0.7, 0.7))
            lib_delta, lib_eps0 = library(bound.delta, n, eps0, target), library(bound.max_eps0, n, target, delta)
            points.append((n, eps0, delta, target, eps, lib_delta, lib_eps0))
        seconds = time.perf_counter() - t0
        jobs = []
        for n, eps0, delta, target, *_ in points:
            jobs += [
                ["eps", name, rand, n, eps0, delta],
                ["delta", name, rand, n, eps0, target],
                ["eps0", name, rand, n, target, delta],
            ]
        shown = node_run(jobs)
        stats = {
            "eps_below": 0,
            "eps_gap": 1.0,
            "eps_gap_all": 1.0,
            "delta_below": 0,
            "delta_gap": 1.0,
            "eps0_above": 0,
            "eps0_gap": 1.0,
        }
        na_page = na_cli = 0
        times = []
        for i, (_, _, _, target, eps, lib_delta, lib_eps0) in enumerate(points):
            (pe, te), (pd, _), (p0, _) = shown[3 * i : 3 * i + 3]
            times.append(te)
            na_page += pe == "n/a"
            na_cli += eps == "n/a"
            if pe != "n/a" and eps != "n/a":
                stats["eps_below"] += pe < eps
                if eps > 0:
                    stats["eps_gap_all"] = max(stats["eps_gap_all"], pe / eps)
                    if eps >= 1e-9:
                        stats["eps_gap"] = max(stats["eps_gap"], pe / eps)
            if pd != "n/a" and lib_delta != "n/a":
                stats["delta_below"] += pd < lib_delta
                if lib_delta > 0:
                    stats["delta_gap"] = max(stats["delta_gap"], pd / lib_delta)
            if p0 != "n/a" and lib_eps0 != "n/a":
                stats["eps0_above"] += p0 > lib_eps0
                if target >= 1e-8:
                    stats["eps0_gap"] = max(stats["eps0_gap"], lib_eps0 / p0)
        t = np.array(times)
        print(
            f"| {name} | {mechanism}{'' if k is None else f', k = {k}'} | {stats['eps_below']} "
            f"| {stats['eps_gap'] - 1:.2e} | {stats['eps_gap_all'] - 1:.2e} | {stats['delta_below']} "
            f"| {stats['delta_gap'] - 1:.2e} | {stats['eps0_above']} "
            f"| {stats['eps0_gap'] - 1:.2e} | {na_page} / {na_cli} | {t.mean():.1f}, {t.max():.0f} | {seconds:.0f} |",
            flush=True,
        )
    print()


def composed(rounds: int, count: int, reference: int) -> None:
    rng = np.random.default_rng(rounds)
    points = []
    for i in range(count):
        name = ("clones", "stronger-clones")[i % 2]
        n, eps0, _ = box_input(rng)
        points.append((name, n, eps0, float(math.exp(rng.uniform(math.log(1e-15), math.log(0.5))))))
    shown = node_run([["T-eps", name, n, eps0, rounds, delta] for name, n, eps0, delta in points])
    t0 = time.perf_counter()
    ratios, above, under, under_low, far_above, far_below, loose = [], 0, 0, 0, 0, 0, 0
    extremes: dict[str, tuple[float, str]] = {"above": (1.0, "none"), "below": (1.0, "none")}
    for (name, n, eps0, delta), (page, _) in zip(points, shown, strict=True):
        bound = get_bound(
            name, "krr" if name == "stronger-clones" else "generic", 2 if name == "stronger-clones" else None
        )
        answer = composed_epsilon(bound_model(bound, n), eps0, rounds, delta)
        cli = answer["eps"]
        ratio = page / cli if cli > 0 else (1.0 if page == 0 else math.inf)
        ratios.append(ratio)
        where = (
            f"{name}, n = {n}, ε₀ = {eps0:.4g}, δ = {delta:.3g}: page {page:.6g}, CLI {cli:.6g} "
            f"(its error {answer['error']:.3g}, naive baseline {answer['naive']:.4g})"
        )
        side = "above" if ratio >= 1 else "below"
        if abs(math.log(ratio)) >= abs(math.log(extremes[side][0])):
            extremes[side] = (ratio, where)
        above += page > cli
        under += page < cli
        far_above += page > 1.01 * cli
        far_below += page < cli / 1.01
        loose += page < cli / 1.01 and cli > answer["naive"]  # the CLI above its own naive baseline
        # the command line's certified lower end of the exact composition of the pair (its 'error')
        low = cli - answer["error"] if math.isfinite(answer["error"]) else cli
        under_low += page < low
    seconds = time.perf_counter() - t0
    ratios = np.array(ratios)
    times = np.array([t for _, t in shown])
    # the exact composition's bracket, on the first inputs where it is cheap
    checked, below, worst, widest = 0, 0, 1.0, 0.0
    for (name, n, eps0, delta), (page, _) in zip(points, shown, strict=True):
        if checked >= reference:
            break
        if (
            n > {2: 1e6, 10: 1e6, 100: 1e5, 1000: 1e4}.get(rounds, 0)
            or delta < 1e-12
            or eps0 > 3
            or page <= 1e-12  # at the floor 1e-15 (δ_T(0) <= δ) its grid, 1e-3 ε / T, would not fit
            or page >= rounds * eps0
        ):
            continue
        try:
            lower, upper = clone_pair_bracket(
                n, eps0, pair_probability(name, eps0), rounds, delta, 1e-3 * page / rounds
            )
        except (ValueError, MemoryError):  # the reference's grid too large for memory at this input
            continue
        checked += 1
        below += page < lower
        worst, widest = max(worst, page / lower), max(widest, upper / lower - 1)
    ref = f"{checked} | {below} | {worst - 1:.2e} | {widest:.2e}" if checked else "— | — | — | —"
    print(
        f"| {rounds} | {count} | {above} ({far_above} by > 1 %) | {under} ({far_below} by > 1 %, {loose} with the CLI "
        f"above its naive baseline) | {under_low} | {ratios.max() - 1:+.2e} | {ratios.min() - 1:+.2e} "
        f"| {np.median(ratios) - 1:+.2e} "
        f"| {ref} | {times.mean():.0f}, {times.max():.0f} | {seconds:.0f} |",
        flush=True,
    )
    for side, (_, where) in extremes.items():
        print(f"  (T = {rounds}, farthest {side} the CLI: {where})", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", default="1,2,10,100,1000,10000")
    parser.add_argument("--reference", type=int, default=20)
    args = parser.parse_args()
    if shutil.which("node") is None:
        raise SystemExit("node is not installed: the benchmark runs the page's scripts under node")
    sizes()
    rounds = [int(r) for r in args.rounds.split(",")]
    if 1 in rounds:
        one_round(args.count)
    if any(r > 1 for r in rounds):
        print(
            f"T rounds (clones and stronger clones in turn): {args.count} random inputs per T against today's "
            f"--compose T, and up to {args.reference} against the exact composition's bracket\n"
        )
        print(
            "| T | inputs | above CLI | below CLI | below CLI − its error | largest page/CLI − 1 | smallest "
            "| median | vs exact: inputs | below its lower end | largest page/lower − 1 | widest bracket "
            "| page ms (mean, max) | CLI s |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in rounds:
            if r > 1:
                composed(r, args.count, args.reference)


if __name__ == "__main__":
    main()
