r"""Precomputed tables of a bound's ε, read in the safe direction (the website's calculator).

The website answers the calculator's three questions in the browser, without
a Python kernel, from a table of ``bound.epsilon(n, eps0, delta)`` computed by
this module (through :func:`~shufflelib.bounds.get_bound`, so the table follows
the library) on a grid of ``n``, ``eps0`` and ``delta``. Every amplification
bound is non-increasing in ``n``, non-decreasing in ``eps0`` and non-increasing
in ``delta``, so reading the table at the grid neighbour on the safe side
(``n`` down, ``eps0`` up, ``delta`` down) gives an upper bound on the library's
ε for any input inside the grid:

* **ε** at ``(n, eps0, delta)``: the entry at ``(n↓, eps0↑, delta↓)``;
* **δ** at ``(n, eps0, eps)``: the smallest grid δ whose entry at ``(n↓, eps0↑)`` is ``<= eps``;
* **largest ε₀** for ``(n, eps, delta)``: the largest grid ε₀ whose entry at ``(n↓, delta↓)`` is ``<= eps``.

The opposite neighbours give a lower bound on the library's value, so each
answer comes with the interval that holds the library's own answer.

:func:`check_monotone` verifies the three monotonicities on the grid;
:func:`build_tables` enforces them (the safe envelope: the running maximum
from the safe side) and reports every entry it had to raise. ε is stored
rounded *up* to a relative ``5e-4`` (a 16-bit code of ``log ε``), so the table
is small enough to ship with the page.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import get_bound
from .base import NotApplicableError

__all__ = [
    "TableSpec",
    "WEB_BOUNDS",
    "COMMON_DELTAS",
    "web_grid",
    "log_grid",
    "epsilon_table",
    "check_monotone",
    "safe_envelope",
    "encode",
    "decode",
    "build_tables",
    "read_epsilon",
]

#: Smallest ε the codes resolve (smaller values are stored as this, rounded up).
EPS_MIN = 1e-12
#: Codes: 0 is ε = 0, 1..65534 are ``EPS_MIN * exp(STEP * (code - 1))``, 65535 is "not applicable".
CODE_NA = 65535
#: Step of the log-ε code: ε up to 20 fits in 16 bits with relative resolution ``STEP``.
STEP = (math.log(20.0) - math.log(EPS_MIN)) / (CODE_NA - 2)


def log_grid(lo: float, hi: float, per_decade: int, *, integer: bool = False) -> np.ndarray:
    """Points ``10^(j/per_decade)`` inside ``[lo, hi]``, with ``lo`` and ``hi`` themselves.

    Parameters
    ----------
    lo, hi
        Ends of the grid, ``0 < lo < hi``.
    per_decade
        Number of points per factor of 10.
    integer
        Round the points to integers (and drop repeats), for a grid of ``n``.

    Examples
    --------
    >>> log_grid(0.01, 1.0, 2).tolist()
    [0.01, 0.03162277660168379, 0.1, 0.31622776601683794, 1.0]
    >>> log_grid(2, 100, 1, integer=True).tolist()
    [2, 10, 100]
    """
    first = math.ceil(math.log10(lo) * per_decade + 1e-9)
    last = math.floor(math.log10(hi) * per_decade - 1e-9)
    inner = [10.0 ** (j / per_decade) for j in range(first, last + 1)]
    points = [lo, *[x for x in inner if lo < x < hi], hi]
    if integer:
        return np.array(sorted({int(round(x)) for x in points}), dtype=np.int64)
    return np.array(points, dtype=float)


@dataclass(frozen=True)
class TableSpec:
    """A bound (by command-line name) for one mechanism family, and its grid density.

    Examples
    --------
    >>> spec = TableSpec("clones", "generic", None, "Feldman et al. 2021, numerical")
    >>> spec.bound().name
    'clones'
    """

    name: str
    mechanism: str
    k: int | None
    label: str

    def bound(self):
        """The :class:`~shufflelib.bounds.base.AmplificationBound` this spec names."""
        return get_bound(self.name, self.mechanism, self.k)


#: The bounds of the website's calculator, tightest first for each mechanism family.
WEB_BOUNDS: tuple[TableSpec, ...] = (
    TableSpec("stronger-clones", "krr", 2, "k-ary randomized response, any k"),
    TableSpec("clones", "generic", None, "any ε₀-LDP randomizer"),
    TableSpec("blanket-bennett", "generic", None, "any ε₀-LDP randomizer"),
    TableSpec("blanket-hoeffding", "generic", None, "any ε₀-LDP randomizer"),
    TableSpec("exact-krr", "krr", 2, "binary randomized response"),
)


#: Values of δ used in practice, put on the grid.
COMMON_DELTAS = (1e-10, 1e-8, 1e-6, 1e-5)


def _balanced_grid(lo: float, hi: float, count: int, warp, unwarp) -> np.ndarray:
    """``count`` points from ``lo`` to ``hi`` (both included), equally spaced in ``warp(x)``."""
    inner = [unwarp(w) for w in np.linspace(warp(lo), warp(hi), count)[1:-1]]
    return np.array([lo, *inner, hi], dtype=float)


def _ln_eps0_warp(eps0: float) -> float:
    return math.log(eps0) + eps0 / 2.0


def _ln_eps0_unwarp(w: float) -> float:
    lo, hi = 1e-9, 1e3  # bisection for log(x) + x/2 = w (increasing in x)
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if _ln_eps0_warp(mid) < w else (lo, mid)
    return (lo + hi) / 2.0


def _lnln_warp(delta: float) -> float:
    return math.log(-math.log(delta))


def _lnln_unwarp(w: float) -> float:
    return math.exp(-math.exp(w))


def web_grid() -> dict[str, np.ndarray]:
    """The website calculator's grid, spaced so that one step changes ε about equally everywhere.

    * ``n`` in [2, 1e9], 3 points per decade (ε scales like ``n^(-1/2)``);
    * ``eps0`` in [0.01, 10], 30 points equally spaced in ``log(eps0) + eps0/2`` (ε grows
      like ``eps0`` for small ``eps0`` and like ``e^(eps0/2)`` for large);
    * ``delta`` in [1e-15, 0.5], 10 points equally spaced in ``log(log(1/delta))`` (ε grows
      like ``sqrt(log(1/delta))``), and the usual values :data:`COMMON_DELTAS`, where the
      calculator then has no gap in δ.

    About 11,000 points per bound: the size the build can afford (the clone bounds take
    ~14 ms per point). The reading rules of the module docstring make every answer valid
    anywhere inside the grid; the price of the coarse grid is the gap to the library.

    Examples
    --------
    >>> grid = web_grid()
    >>> {key: len(points) for key, points in grid.items()}
    {'n_grid': 27, 'eps0_grid': 30, 'delta_grid': 14}
    >>> float(grid["eps0_grid"][0]), float(grid["eps0_grid"][-1]), float(grid["delta_grid"][-1])
    (0.01, 10.0, 0.5)
    """
    return {
        "n_grid": log_grid(2, 1e9, 3, integer=True),
        "eps0_grid": _balanced_grid(0.01, 10.0, 30, _ln_eps0_warp, _ln_eps0_unwarp),
        "delta_grid": np.unique(np.r_[_balanced_grid(0.5, 1e-15, 10, _lnln_warp, _lnln_unwarp), COMMON_DELTAS]),
    }


def _row(args: tuple[TableSpec, int, np.ndarray, np.ndarray]) -> np.ndarray:
    spec, n, eps0_grid, delta_grid = args
    bound = spec.bound()
    row = np.full((len(eps0_grid), len(delta_grid)), np.inf)
    for j, eps0 in enumerate(eps0_grid):
        for m, delta in enumerate(delta_grid):
            try:
                row[j, m] = bound.epsilon(int(n), float(eps0), float(delta))
            except NotApplicableError:
                pass  # stays inf: "not applicable" is the safe reading
    return row


def epsilon_table(
    spec: TableSpec,
    n_grid: Sequence[int],
    eps0_grid: Sequence[float],
    delta_grid: Sequence[float],
    *,
    workers: int = 1,
) -> np.ndarray:
    """``spec.bound().epsilon(n, eps0, delta)`` on the grid, shape ``(len(n), len(eps0), len(delta))``.

    Parameters not covered by the bound's theorem are ``inf``.

    Parameters
    ----------
    spec
        The bound.
    n_grid, eps0_grid, delta_grid
        Increasing grids.
    workers
        Number of processes (rows of ``n`` are computed in parallel).

    Examples
    --------
    >>> spec = TableSpec("blanket-hoeffding", "generic", None, "blanket")
    >>> t = epsilon_table(spec, [1000, 10**6], [0.5, 1.0], [1e-6])
    >>> t.shape, bool(t[1, 0, 0] < t[0, 0, 0])
    ((2, 2, 1), True)
    """
    jobs = [(spec, int(n), np.asarray(eps0_grid, float), np.asarray(delta_grid, float)) for n in n_grid]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(_row, jobs))
    else:
        rows = [_row(job) for job in jobs]
    return np.stack(rows)


def check_monotone(table: np.ndarray) -> dict[str, int]:
    """Count grid steps that break a monotonicity: ε non-increasing in ``n`` and ``delta``, non-decreasing in ``eps0``.

    Examples
    --------
    >>> t = np.array([[[2.0, 1.0], [3.0, 2.0]], [[1.0, 0.5], [1.5, 1.0]]])
    >>> check_monotone(t)
    {'n': 0, 'eps0': 0, 'delta': 0}
    """
    with np.errstate(invalid="ignore"):  # inf - inf where both entries are "not applicable"
        return {
            "n": int(np.sum(np.diff(table, axis=0) > 0)),
            "eps0": int(np.sum(np.diff(table, axis=1) < 0)),
            "delta": int(np.sum(np.diff(table, axis=2) > 0)),
        }


def safe_envelope(table: np.ndarray) -> np.ndarray:
    """The smallest table ``>= table`` with the three monotonicities (running maxima from the safe side).

    Examples
    --------
    >>> t = np.array([[[1.0]], [[1.2]]])  # rises with n: not monotone
    >>> safe_envelope(t).ravel().tolist()
    [1.2, 1.2]
    """
    out = np.flip(np.maximum.accumulate(np.flip(table, axis=0), axis=0), axis=0)
    out = np.maximum.accumulate(out, axis=1)
    return np.flip(np.maximum.accumulate(np.flip(out, axis=2), axis=2), axis=2)


def encode(table: np.ndarray) -> str:
    """16-bit codes of ε (rounded up), little-endian, in base64.

    Examples
    --------
    >>> t = np.array([0.0, 0.1234, np.inf])
    >>> back = decode(encode(t), t.shape)
    >>> bool(back[0] == 0 and 0.1234 <= back[1] < 0.1234 * 1.0005 and np.isinf(back[2]))
    True
    """
    flat = np.asarray(table, dtype=float).ravel()
    codes = np.full(flat.shape, CODE_NA, dtype="<u2")
    finite = np.isfinite(flat)
    zero = finite & (flat <= 0.0)
    pos = finite & (flat > 0.0)
    codes[zero] = 0
    steps = np.ceil((np.log(np.maximum(flat[pos], EPS_MIN)) - math.log(EPS_MIN)) / STEP * (1 + 1e-12) + 1e-9)
    codes[pos] = np.minimum(steps + 1, CODE_NA - 1).astype("<u2")
    return base64.b64encode(codes.tobytes()).decode("ascii")


def decode(text: str, shape: tuple[int, ...]) -> np.ndarray:
    """The values of :func:`encode` (the browser computes the same).

    Examples
    --------
    >>> bool(decode(encode(np.array([1.0])), (1,))[0] >= 1.0)
    True
    """
    codes = np.frombuffer(base64.b64decode(text), dtype="<u2").astype(float).reshape(shape)
    values = EPS_MIN * np.exp(STEP * (codes - 1))
    values[codes == 0] = 0.0
    values[codes == CODE_NA] = np.inf
    return values


def _source_hash(extra: str) -> str:
    """Hash of the library's sources but this module (the table changes only when they do) and of ``extra``."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(extra.encode())
    for path in sorted(p for p in root.rglob("*.py") if p != Path(__file__).resolve()):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_tables(
    n_grid: Sequence[int],
    eps0_grid: Sequence[float],
    delta_grid: Sequence[float],
    *,
    specs: Sequence[TableSpec] = WEB_BOUNDS,
    workers: int = 1,
    cache: Path | None = None,
) -> dict:
    """The calculator's tables for ``specs``, as a JSON-ready record.

    Each bound's entry holds its title, reference, the monotonicity violations
    found on the grid (0 expected; the shipped table is the safe envelope
    either way) and the codes of :func:`encode`. With ``cache`` (a folder), the
    record is stored there under a hash of the library's sources and the grid,
    and reused while neither changes.

    Examples
    --------
    >>> spec = TableSpec("blanket-hoeffding", "generic", None, "blanket")
    >>> rec = build_tables([100, 1000], [1.0], [1e-6], specs=[spec])
    >>> rec["bounds"][0]["name"], rec["bounds"][0]["violations"]
    ('blanket-hoeffding', {'n': 0, 'eps0': 0, 'delta': 0})
    """
    grids = {
        "n": [int(x) for x in n_grid],
        "eps0": [float(x) for x in eps0_grid],
        "delta": [float(x) for x in delta_grid],
    }
    key = json.dumps([grids, [(s.name, s.mechanism, s.k) for s in specs], [EPS_MIN, STEP, CODE_NA]])
    path = None if cache is None else Path(cache) / f"calculator-{_source_hash(key)}.json"
    if path is not None and path.exists():
        tables = json.loads(path.read_text())
    else:
        tables = {}
        for spec in specs:
            raw = epsilon_table(spec, grids["n"], grids["eps0"], grids["delta"], workers=workers)
            tables[spec.name] = {"violations": check_monotone(raw), "codes": encode(safe_envelope(raw))}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(tables))
    bounds = []
    for spec in specs:
        cls = type(spec.bound())
        description = {"title": cls.title, "reference": cls.reference}
        bounds.append({"name": spec.name, "mechanism": spec.mechanism, "k": spec.k, "label": spec.label,
                       **description, **tables[spec.name]})  # fmt: skip
    return {"grid": grids, "eps_min": EPS_MIN, "step": STEP, "code_na": CODE_NA, "bounds": bounds}


def read_epsilon(record: dict, name: str, n: int, eps0: float, delta: float) -> tuple[float, float]:
    """Read ε of bound ``name`` from a :func:`build_tables` record, as the website does.

    Returns ``(upper, lower)``: the entry at the safe neighbour (an upper bound on the
    library's ε) and the entry at the opposite neighbour (a lower bound on it); ``inf``
    means "not applicable". The inputs must lie inside the grid.

    Examples
    --------
    >>> spec = TableSpec("blanket-hoeffding", "generic", None, "blanket")
    >>> rec = build_tables([1000, 10_000], [0.5, 1.0], [1e-7, 1e-6], specs=[spec])
    >>> upper, lower = read_epsilon(rec, "blanket-hoeffding", 5000, 0.7, 5e-7)
    >>> exact = spec.bound().epsilon(5000, 0.7, 5e-7)
    >>> bool(lower <= exact <= upper)
    True
    """
    grid = record["grid"]
    entry = next(b for b in record["bounds"] if b["name"] == name)
    shape = (len(grid["n"]), len(grid["eps0"]), len(grid["delta"]))
    table = decode(entry["codes"], shape)
    ns, e0s, ds = (np.asarray(grid[key], float) for key in ("n", "eps0", "delta"))
    i_lo, i_hi = np.searchsorted(ns, n, side="right") - 1, np.searchsorted(ns, n, side="left")
    j_lo, j_hi = np.searchsorted(e0s, eps0, side="right") - 1, np.searchsorted(e0s, eps0, side="left")
    l_lo, l_hi = np.searchsorted(ds, delta, side="right") - 1, np.searchsorted(ds, delta, side="left")
    return float(table[i_lo, j_hi, l_lo]), float(table[i_hi, j_lo, l_hi])
