"""The website calculator's port (``_static/calculator.js``) under node, against the library.

The port computes each bound's δ(ε) by the library's own steps, so where the clone count's
central range decides δ (δ >= 1e-12 here) it agrees with ``get_bound(...).delta`` to a
relative 1e-9, far inside the page's safety margin (1e-6). Skipped without node; the
Chromium test of the page (``tests/test_site.py``) checks what the page shows.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from shufflelib.bounds import get_bound

SCRIPT = Path(__file__).resolve().parents[1] / "_static" / "calculator.js"
WEB_BOUNDS = [("stronger-clones", "krr", 2), ("clones", "generic", None),
              ("blanket-bennett", "generic", None), ("blanket-hoeffding", "generic", None)]  # fmt: skip
DRIVER = """
const c = require(process.argv[1]);
const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(jobs.map(([name, n, eps0, eps]) => c.BOUNDS[name](n, eps0, eps))));
"""


@pytest.mark.parametrize(("name", "mechanism", "k"), WEB_BOUNDS)
def test_port_matches_the_library_delta(name: str, mechanism: str, k: int | None) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    rng = random.Random(3)
    points = []
    for _ in range(40):
        n = int(math.exp(rng.uniform(math.log(2), math.log(1e9))))
        eps0 = math.exp(rng.uniform(math.log(0.01), math.log(10)))
        points.append((n, eps0, eps0 * rng.uniform(0.0, 0.6)))
    run = subprocess.run([node, "-e", DRIVER, str(SCRIPT)], input=json.dumps([[name, *p] for p in points]),
                         capture_output=True, text=True, check=True)  # fmt: skip
    bound = get_bound(name, mechanism, k)
    compared = 0
    for (n, eps0, eps), ported in zip(points, json.loads(run.stdout), strict=True):
        library = bound.delta(n, eps0, eps)
        if library < 1e-12:
            continue
        assert ported == pytest.approx(library, rel=1e-9), f"{name} at n={n}, eps0={eps0!r}, eps={eps!r}"
        compared += 1
    assert compared >= 10
