"""Gap between the website calculator's ε and the library's, over random inputs; prints a table.

Run ``python benchmarks/calculator_gap.py [COUNT]`` (default 1,000 inputs, log-uniform
in n ∈ [2, 1e9], eps0 ∈ [0.01, 10], delta ∈ [1e-15, 0.5], seed 0). For every bound of
the calculator it reads ε from the table exactly as the page does
(:func:`shufflelib.bounds.table.read_epsilon`) and compares it with
``get_bound(...).epsilon``: how often the table is below the library (must be never),
and the ratio shown / library (largest, 99th and 90th percentile, median) where the
library's ε is positive. Also prints the table's size. The table is taken from the
build's cache (``.cache/calculator/``) when present, else computed.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shufflelib.bounds.base import NotApplicableError  # noqa: E402
from shufflelib.bounds.table import WEB_BOUNDS, build_tables, read_epsilon, web_grid  # noqa: E402


def main(count: int = 1000) -> None:
    start = time.perf_counter()
    record = build_tables(**web_grid(), workers=os.cpu_count() or 1, cache=ROOT / ".cache" / "calculator")
    print(f"table: {len(json.dumps(record)) / 1000:.0f} kB of JSON ({time.perf_counter() - start:.1f} s)\n")
    rng = np.random.default_rng(0)
    inputs = [
        (
            int(round(math.exp(rng.uniform(math.log(2), math.log(1e9))))),
            float(math.exp(rng.uniform(math.log(0.01), math.log(10.0)))),
            float(math.exp(rng.uniform(math.log(1e-15), math.log(0.5)))),
        )
        for _ in range(count)
    ]
    print("| bound | inputs | below library | largest ratio | 99th pct | 90th pct | median | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for spec in WEB_BOUNDS:
        bound = spec.bound()
        ratios, below, used = [], 0, 0
        t0 = time.perf_counter()
        for n, eps0, delta in inputs:
            upper, _ = read_epsilon(record, spec.name, n, eps0, delta)
            try:
                exact = bound.epsilon(n, eps0, delta)
            except NotApplicableError:
                continue
            used += 1
            below += upper < exact
            if exact > 0 and math.isfinite(upper):
                ratios.append(upper / exact)
        r = np.array(ratios)
        print(
            f"| {spec.name} | {used} | {below} | {r.max():.3g} | {np.quantile(r, 0.99):.3g} "
            f"| {np.quantile(r, 0.9):.3g} | {np.median(r):.3g} | {time.perf_counter() - t0:.0f} |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
