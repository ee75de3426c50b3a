"""Gap between the website calculator's ε and the library's, over random inputs; prints a table.

Run ``python benchmarks/calculator_gap.py [COUNT]`` (default 1,000 inputs, log-uniform
in n ∈ [2, 1e9], eps0 ∈ [0.01, 10], delta ∈ [1e-15, 0.5], seed 0). It runs the page's
script, ``_static/calculator.js``, under node (the same code the browser runs; node
must be installed) and compares the ε the page shows (four digits, rounded up) with
``get_bound(...).epsilon``: how often the page is below the library (must be never),
and the ratio shown / library (largest, 99th percentile, median) where the library's ε
is positive, and the largest where it is at least 1e-9 (below ~1e-10 the library's own
absolute tolerance on ε, 1e-12, sets the gap). Also prints the script's size and the time of each answer under node
(ε; δ at ε = ε₀/3; largest ε₀ for the library's (ε, δ)).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shufflelib.bounds import get_bound  # noqa: E402

SCRIPT = ROOT / "_static" / "calculator.js"
#: The bounds of the page, with the mechanism the library evaluates them for.
WEB_BOUNDS = [("stronger-clones", "krr", 2), ("clones", "generic", None),
              ("blanket-bennett", "generic", None), ("blanket-hoeffding", "generic", None)]  # fmt: skip

DRIVER = """
const c = require(process.argv[1]);
const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = jobs.map(([name, n, eps0, delta]) => {
  let t = performance.now();
  const eps = Number(c.fmt(c.epsilonUpper(name, n, eps0, delta), 1));
  const tEps = performance.now() - t;
  t = performance.now();
  c.deltaUpper(name, n, eps0, eps0 / 3);
  const tDelta = performance.now() - t;
  t = performance.now();
  if (eps > 0) c.maxEps0Lower(name, n, eps, delta);
  const tEps0 = performance.now() - t;
  return [eps, tEps, tDelta, tEps0];
});
console.log(JSON.stringify(out));
"""


def main(count: int = 1000) -> None:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not installed: the benchmark runs the page's script under node")
    rng = np.random.default_rng(0)
    inputs = [
        (
            int(round(math.exp(rng.uniform(math.log(2), math.log(1e9))))),
            float(math.exp(rng.uniform(math.log(0.01), math.log(10.0)))),
            float(math.exp(rng.uniform(math.log(1e-15), math.log(0.5)))),
        )
        for _ in range(count)
    ]
    print(f"script: {SCRIPT.stat().st_size / 1000:.1f} kB ({SCRIPT.relative_to(ROOT)}, unminified)\n")
    print("| bound | inputs | below library | largest ratio | largest, library ε ≥ 1e-9 | 99th pct | median "
          "| ms per ε (max) | ms per δ (max) | ms per ε₀ (max) | library s |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, mechanism, k in WEB_BOUNDS:
        bound = get_bound(name, mechanism, k)
        jobs = [[name, n, eps0, delta] for n, eps0, delta in inputs]
        run = subprocess.run([node, "-e", DRIVER, str(SCRIPT)], input=json.dumps(jobs), capture_output=True,
                             text=True, check=True)  # fmt: skip
        shown = json.loads(run.stdout)
        t0 = time.perf_counter()
        exact = [bound.epsilon(n, eps0, delta) for n, eps0, delta in inputs]
        seconds = time.perf_counter() - t0
        below = sum(s[0] < e for s, e in zip(shown, exact, strict=True))
        ratios = np.array([s[0] / e for s, e in zip(shown, exact, strict=True) if e > 0])
        # Below ~1e-10 the library's own absolute tolerance on ε (1e-12) sets the gap.
        large = np.array([s[0] / e for s, e in zip(shown, exact, strict=True) if e >= 1e-9])
        times = np.array([s[1:] for s in shown])
        mean, worst = times.mean(axis=0), times.max(axis=0)
        print(
            f"| {name} | {count} | {below} | {ratios.max():.6f} | {large.max():.6f} | {np.percentile(ratios, 99):.6f} "
            f"| {np.median(ratios):.6f} | {mean[0]:.1f} ({worst[0]:.0f}) | {mean[1]:.2f} ({worst[1]:.0f}) "
            f"| {mean[2]:.1f} ({worst[2]:.0f}) | {seconds:.0f} |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
