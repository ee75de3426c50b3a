"""The website calculator's scripts (``_static/calculator/``) under node, against the library.

What the page shows (four digits, rounded the safe way) is checked over many random inputs
from the whole box, per bound and per randomizer family:

* one round: the page's ε and δ are never below the library's (``python -m shufflelib``
  computes the same), nor more than the four-digit rounding above (relative 1.1e-3, plus the
  library's absolute tolerance 1e-12 on ε); the page's largest ε₀ is never above the library's
  (issue 30, item 9), and within the same gap below it; "not applicable" exactly when the
  library says so;
* T rounds (clones, stronger clones): the page's composed ε is valid — never below the lower
  end of an optimistic/pessimistic fine-grid bracket of the exact composition
  (``tests/calculator_reference.py``) — and within 1 % of that lower end, hence of the true
  composed ε; never below the command line's ``--compose T`` (which is within a small part of
  its stated error of the truth) nor more than 1 % above it; its δ is never below the bracket's
  lower end and its largest ε₀ round-trips.

Skipped without node; the Chromium tests of the page are in ``tests/test_calculator_page.py``.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shufflelib._roots import ATOL
from shufflelib._validation import EPS0_LIMIT, EPS0_MIN, N_MAX
from shufflelib.bounds import get_bound
from shufflelib.bounds.base import DELTA_FLOOR, EPS0_MAX, NotApplicableError
from shufflelib.composition import MAX_ROUNDS, bound_model, composed_epsilon

sys.path.insert(0, str(Path(__file__).parent))
from calculator_reference import CONFIGS, clone_pair_bracket, clone_pair_compositions, pair_probability  # noqa: E402

SCRIPTS = Path(__file__).resolve().parents[1] / "_static" / "calculator"
#: The page's rounding: four significant digits in the safe direction, after its margins.
SHOWN_RTOL = 1.1e-3

DRIVER = """
const dir = process.argv[1];
const N = require(dir + "/numerics.js"), B = require(dir + "/bounds.js"), C = require(dir + "/compose.js");
const P = require(dir + "/page.js");
const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
const run = ([kind, ...a]) => {
  switch (kind) {
    case "eps": return Number(N.fmt(B.epsilonUpper(...a), 1));
    case "delta": return Number(N.fmt(B.deltaUpper(...a), 1));
    case "eps0": { const v = B.maxEps0Lower(...a); return v === null ? null : Number(N.fmt(v, -1)); }
    case "validity": return B.validity(...a);
    case "T-eps": return C.composedEpsilon(...a).eps;
    case "T-eps-shown": return Number(N.fmt(C.composedEpsilon(...a).eps, 1));
    case "T-delta": return C.composedDelta(...a).delta;
    case "T-eps0": {
      const [name, rand, n, eps, delta, rounds] = a;
      return C.composedMaxEps0(name, n, eps, delta, rounds, B.maxEps0Lower(name, rand, n, eps, delta));
    }
    case "tilt": { // δ_T(ε) of one composition under two tilts
      const [name, n, eps0, rounds, eps, thetas] = a;
      const p = B.BOUNDS[name].pair(eps0), step = C.lossScale(n, eps0, p) / 50;
      const pld = C.roundPLD(n, eps0, p, step, 1e-30);
      pld.cap = eps0;
      return thetas.map((t) => {
        const c = C.composeTilted(pld, rounds, t);
        // the same sum without its stated error terms (rounding, window, tails)
        const bare = { ...c, rounding: 0, window: 0, rtol: 0, inf: 0 };
        return [C.logDeltaComposed(c, eps), C.logDeltaComposed(bare, eps)];
      });
    }
    case "box": return { BOX: B.BOX, search: B.EPS0_SEARCH_MAX, floor: B.DELTA_FLOOR, fields: P.FIELDS };
    case "command": return P.commandOf(...a);
  }
  throw new Error("unknown job " + kind);
};
console.log(JSON.stringify(jobs.map((job) => {
  try { return run(job); } catch (e) { return { na: e instanceof B.NotApplicable, error: e.message }; }
})));
"""


def node_run(jobs: list) -> list:
    """Run ``jobs`` through the page's scripts under node (one process for all)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run(
        [node, "-e", DRIVER, str(SCRIPTS)], input=json.dumps(jobs), capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def library(call, *args):
    """The library's answer, or "n/a" where the theorem does not apply."""
    try:
        return call(*args)
    except NotApplicableError:
        return "n/a"


def random_input(rng: random.Random, bound: str) -> tuple[int, float, float]:
    """(n, eps0, delta) drawn over the whole box (a quarter of the δ below 1e-15, down to 1e-300)."""
    top = 1e8 if bound == "thinned-clones" else N_MAX  # thinned clones: the library takes seconds beyond
    n = int(math.exp(rng.uniform(math.log(2), math.log(top))))
    eps0 = math.exp(rng.uniform(math.log(EPS0_MIN), math.log(EPS0_LIMIT)))
    if bound == "erlingsson":  # its theorem: n >= 1000, eps0 < 1/2 (still drawn a little outside)
        n, eps0 = max(n, 800), math.exp(rng.uniform(math.log(1e-3), math.log(0.6)))
    tiny = rng.random() < 0.25
    delta = math.exp(
        rng.uniform(math.log(1e-300), math.log(1e-15)) if tiny else rng.uniform(math.log(1e-15), math.log(0.5))
    )
    return n, eps0, delta


def test_the_page_box_is_the_library_box() -> None:
    (box,) = node_run([["box"]])
    assert box["BOX"] == {
        "nMin": 2, "nMax": N_MAX, "eps0Min": EPS0_MIN, "eps0Max": EPS0_LIMIT, "kMin": 2, "kMax": N_MAX,
        "roundsMax": MAX_ROUNDS,
    }  # fmt: skip
    assert box["search"] == EPS0_MAX and box["floor"] == DELTA_FLOOR
    fields = box["fields"]
    assert (fields["n"]["lo"], fields["n"]["hi"]) == (2, N_MAX)
    assert (fields["eps0"]["lo"], fields["eps0"]["hi"]) == (EPS0_MIN, EPS0_LIMIT)
    assert (fields["rounds"]["lo"], fields["rounds"]["hi"]) == (1, MAX_ROUNDS)
    assert (fields["delta"]["lo"], fields["delta"]["hi"], fields["delta"]["open"]) == (0, 1, True)


@pytest.mark.parametrize(("name", "mechanism", "k"), CONFIGS)
def test_single_round_answers_against_the_library(name: str, mechanism: str, k: int | None) -> None:
    """ε and δ never below the library's, the largest ε₀ never above it, each within the shown rounding."""
    rng = random.Random(f"{name}/{mechanism}/{k}")  # a str seed: the same inputs on every run
    count = 10 if name == "thinned-clones" else 60
    bound = get_bound(name, mechanism, k)
    rand = {"kind": mechanism, "k": k}
    points = []
    for _ in range(count):
        n, eps0, delta = random_input(rng, name)
        eps = library(bound.epsilon, n, eps0, delta)
        scale = eps if isinstance(eps, float) and eps > 0 else eps0 / 10
        target = eps0 * 1.5 if rng.random() < 0.1 else scale * math.exp(rng.uniform(-0.7, 0.7))  # sometimes >= eps0
        points.append((n, eps0, delta, target, eps))
    jobs = []
    for n, eps0, delta, target, _ in points:
        jobs += [
            ["eps", name, rand, n, eps0, delta],
            ["delta", name, rand, n, eps0, target],
            ["eps0", name, rand, n, target, delta],
        ]
    shown = node_run(jobs)
    for i, (n, eps0, delta, target, eps) in enumerate(points):
        page_eps, page_delta, page_eps0 = shown[3 * i : 3 * i + 3]
        where = f"{name} ({mechanism}, k={k}) at n={n}, eps0={eps0!r}, delta={delta!r}, target eps={target!r}"
        # ε
        if eps == "n/a":
            assert isinstance(page_eps, dict) and page_eps["na"], (
                f"{where}: the page answers where the library does not"
            )
        else:
            assert eps <= page_eps <= eps * (1 + SHOWN_RTOL) + 2.2 * ATOL, f"{where}: ε {page_eps}, library {eps}"
        # δ
        lib_delta = library(bound.delta, n, eps0, target)
        if lib_delta == "n/a":
            assert isinstance(page_delta, dict) and page_delta["na"], where
        elif lib_delta == 0:
            assert page_delta == 0, f"{where}: δ {page_delta}, library 0 exactly"
        else:
            assert lib_delta <= page_delta <= lib_delta * (1 + SHOWN_RTOL), (
                f"{where}: δ {page_delta}, library {lib_delta}"
            )
        # largest ε₀
        lib_eps0 = library(bound.max_eps0, n, target, delta)
        if lib_eps0 == "n/a":
            assert page_eps0 is None or isinstance(page_eps0, dict), (
                f"{where}: ε₀ {page_eps0} where the library has none"
            )
        elif page_eps0 is None and target < 1e-8:
            pass  # below 1e-8 the absolute tolerances set the gap: the page's root may fall under the box's 1e-6
        else:
            assert page_eps0 is not None and not isinstance(page_eps0, dict), f"{where}: no ε₀, library {lib_eps0}"
            assert page_eps0 <= lib_eps0, f"{where}: largest ε₀ {page_eps0} above the library's {lib_eps0}"
            if target >= 1e-8:  # below, the absolute tolerances (1e-12 on ε) set the gap
                assert page_eps0 >= lib_eps0 * (1 - 2 * SHOWN_RTOL), f"{where}: ε₀ {page_eps0}, library {lib_eps0}"


# ---------------------------------------------------------------- T rounds
#: Inputs where the reference bracket is tight and cheap, per number of rounds: (largest n, smallest δ).
REFERENCE_RANGE = {2: (1e6, 1e-150), 10: (1e6, 1e-30), 100: (1e5, 1e-15), 1000: (1e4, 1e-12)}
#: Grid of the reference, relative to the composed ε per round: its bracket is about this wide.
REFERENCE_STEP = 1e-3


def composed_inputs(rng: random.Random, rounds: int, count: int) -> list[tuple[str, int, float, float]]:
    """(bound, n, eps0, delta) with n from 100, eps0 in [1e-3, 2], delta up to 1e-3 (REFERENCE_RANGE)."""
    top, smallest = REFERENCE_RANGE[rounds]
    out = []
    for i in range(count):
        name = ("clones", "stronger-clones")[i % 2]
        n = int(math.exp(rng.uniform(math.log(100), math.log(top))))
        eps0 = math.exp(rng.uniform(math.log(1e-3), math.log(2)))
        out.append((name, n, eps0, math.exp(rng.uniform(math.log(smallest), math.log(1e-3)))))
    return out


@pytest.mark.parametrize("rounds", sorted(REFERENCE_RANGE))
def test_composed_epsilon_is_valid_and_within_1pct_of_the_exact_composition(rounds: int) -> None:
    rng = random.Random(rounds)
    points = composed_inputs(rng, rounds, 3)
    shown = node_run([["T-eps", name, n, eps0, rounds, delta] for name, n, eps0, delta in points])
    for (name, n, eps0, delta), page in zip(points, shown, strict=True):
        where = f"{name}, {rounds} rounds at n={n}, eps0={eps0!r}, delta={delta!r}"
        step = REFERENCE_STEP * page / rounds
        lower, upper = clone_pair_bracket(n, eps0, pair_probability(name, eps0), rounds, delta, step)
        assert upper <= (1 + 1.5 * REFERENCE_STEP) * lower, (
            f"{where}: the reference bracket is loose: [{lower}, {upper}]"
        )
        assert lower <= page <= 1.01 * lower, f"{where}: page {page}, exact composition in [{lower}, {upper}]"
        # δ at (just above) the page's ε: at most δ, and at least the bracket's lower end
        eps = page * 1.001
        (page_delta,) = node_run([["T-delta", name, n, eps0, rounds, eps]])
        low, _ = clone_pair_compositions(n, eps0, pair_probability(name, eps0), rounds, delta, step, eps=eps)
        assert low.delta(eps) <= page_delta <= delta, f"{where}: δ {page_delta} at ε {eps}"


@pytest.mark.parametrize("rounds", [2, 10, 100, 1000, 10_000])
def test_composed_epsilon_is_within_1pct_of_the_command_line(rounds: int) -> None:
    """Over the whole box, what the page shows (four digits, rounded up): never below the command
    line's --compose T (a valid bound, tight to a small part of its stated error), at most 1 %
    above it (so within 1 % of the exact value). (The page's unrounded ε, a valid bound too, may
    be a few 1e-5 below the command line's: the rounding it shows covers that.)"""
    rng = random.Random(100 + rounds)
    points = []
    for i in range(8):
        name = ("clones", "stronger-clones")[i % 2]
        n, eps0, _ = random_input(rng, name)
        points.append((name, n, eps0, math.exp(rng.uniform(math.log(1e-15), math.log(0.5)))))
    shown = node_run([["T-eps-shown", name, n, eps0, rounds, delta] for name, n, eps0, delta in points])
    for (name, n, eps0, delta), page in zip(points, shown, strict=True):
        bound = get_bound(
            name, "krr" if name == "stronger-clones" else "generic", 2 if name == "stronger-clones" else None
        )
        cli = composed_epsilon(bound_model(bound, n), eps0, rounds, delta)
        where = f"{name}, {rounds} rounds at n={n}, eps0={eps0!r}, delta={delta!r}: page {page}, CLI {cli}"
        assert cli["eps"] <= page <= 1.01 * cli["eps"], where


#: Inputs where the page once parted from ``--compose T``: (bound, n, eps0, rounds, delta). A large
#: ε₀ and δ, where the zero-mean Gaussian guess of the root was above T ε₀ and the tilt stopped with
#: the root at its window's edge (page 685.9, CLI 490.9); a δ_T(0) <= δ, where the page answered 0
#: and the command line rounds its composed ε up to 1e-15.
COMPOSED_OUTLIERS = [
    ("clones", 300_280, 11.87, 100, 0.134),
    ("clones", 6, 4.2e-6, 2, 0.24),
    ("clones", 6, 4.2e-6, 100, 0.24),
]


@pytest.mark.parametrize(("name", "n", "eps0", "rounds", "delta"), COMPOSED_OUTLIERS)
def test_composed_epsilon_meets_the_command_line_where_it_once_did_not(
    name: str, n: int, eps0: float, rounds: int, delta: float
) -> None:
    """What the page shows: never below the command line's ε, at most 1 % above it; where the
    command line answers its floor 1e-15, the page shows the same."""
    (page,) = node_run([["T-eps-shown", name, n, eps0, rounds, delta]])
    bound = get_bound(name, "generic", None)
    cli = composed_epsilon(bound_model(bound, n), eps0, rounds, delta)
    where = f"{name}, {rounds} rounds at n={n}, eps0={eps0!r}, delta={delta!r}: page {page}, CLI {cli}"
    assert cli["eps"] <= page <= 1.01 * cli["eps"], where
    if cli["eps"] <= 1e-15:
        assert page == cli["eps"], where


def test_composed_largest_eps0_round_trips_and_is_valid() -> None:
    rng = random.Random(7)
    points = []
    for rounds in (2, 10, 100):
        for name, n, _, delta in composed_inputs(rng, rounds, 2):
            points.append((name, n, rng.uniform(0.05, 2.0), delta, rounds))
    rands = {"clones": {"kind": "generic"}, "stronger-clones": {"kind": "krr", "k": 2}}
    shown = node_run([["T-eps0", name, rands[name], n, eps, delta, rounds] for name, n, eps, delta, rounds in points])
    back = node_run(
        [["T-eps", name, n, e0, rounds, delta] for (name, n, _, delta, rounds), e0 in zip(points, shown, strict=True)]
    )
    for (name, n, eps, delta, rounds), e0, again in zip(points, shown, back, strict=True):
        where = f"{name}, {rounds} rounds at n={n}, eps={eps!r}, delta={delta!r}: largest eps0 {e0}"
        assert again <= eps * (1 + 1e-9), f"{where} gives ε {again}"
        lower, _ = clone_pair_bracket(n, e0, pair_probability(name, e0), rounds, delta, REFERENCE_STEP * eps / rounds)
        assert lower <= eps, f"{where}: the exact composition exceeds ε there ({lower})"


def test_the_tilt_changes_no_delta() -> None:
    """δ_T(ε) is the same under any exponential tilt (exact algebra); only the stated terms differ.

    The sums without their error terms agree to 1e-6 in log δ between the tilts that centre the
    mass (θ > 0); the untilted sum (θ = 0, where the FFT's absolute rounding is largest against
    δ) differs from them by at most its own stated terms; each tilt's answer (sum plus its stated
    rounding, window and tail terms) is above the centred tilts' bare sums.
    """
    jobs = [
        ["tilt", "clones", 10_000, 1.0, 10, 0.2, [0, 30, 100]],
        ["tilt", "stronger-clones", 300, 2.0, 50, 8.0, [0, 1, 3]],
    ]
    for values in node_run(jobs):
        answers, bare = zip(*values, strict=True)
        assert max(bare[1:]) - min(bare[1:]) < 1e-6, values
        assert abs(bare[0] - bare[1]) <= answers[0] - bare[0], values
        assert min(answers) >= max(bare[1:]) - 1e-9, values


def test_the_command_lines_name_the_bound_family_and_rounds() -> None:
    values = {"n": 1000, "eps0": 1.3, "delta": 3e-7, "eps": 0.05}
    jobs = [
        ["command", "epsilon", "clones", {"kind": "krr", "k": 5}, values, 1],
        ["command", "delta", "blanket-bennett", {"kind": "krr", "k": 5}, values, 1],
        ["command", "eps0", "thinned-clones", {"kind": "krr", "k": 5}, values, 10],
        ["command", "epsilon", "blanket-hoeffding", {"kind": "laplace"}, values, 1],
    ]
    assert node_run(jobs) == [
        "python -m shufflelib epsilon --bound clones --n 1000 --eps0 1.3 --delta 3e-7",
        "python -m shufflelib delta --bound blanket-bennett --n 1000 --eps0 1.3 --eps 0.05 --mechanism krr --k 5",
        "python -m shufflelib eps0 --bound thinned-clones --n 1000 --eps 0.05 --delta 3e-7 --mechanism krr --k 5"
        " --compose 10",
        "python -m shufflelib epsilon --bound blanket-hoeffding --n 1000 --eps0 1.3 --delta 3e-7 --mechanism laplace",
    ]


def test_a_reason_names_its_limit_as_a_number() -> None:
    """Where a theorem's limit is negative (clones-closed at n = 9), the page's reason shows it, not NaN."""
    (reason,) = node_run([["validity", "clones-closed", 9, 1.3, 3e-7]])
    assert reason is not None and "NaN" not in reason, reason
    limit = float(reason.rsplit("=", 1)[1])
    assert limit <= math.log(9 / (16 * math.log(2 / 3e-7))) < limit + 1e-3, reason
