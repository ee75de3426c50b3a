"""Timings of calculator questions at the corners of the box (the slowest first).

The box (``shufflelib._validation``): ``2 <= n <= 10**9``, ``1e-6 <= eps0 <= 100``, δ in
``(0, 1)`` down to the smallest subnormal. The target: every calculator question answers in at
most 2 seconds anywhere in the box. Each question runs once, in process, through
``shufflelib.__main__.main`` (answer, refusal or error alike; the status is shown) and is timed
in CPU seconds of the calling thread (the machine may be shared; idle BLAS threads would inflate
the process total); Python's start-up (``benchmarks/bench_startup.py``) is not included.
Families: the uniform bounds, the personalized bounds (1 to 1,000 levels,
Gaussian levels with a local δ), the population bounds (laws at both ends, 10^9 dummies, both
dummy modes), the segmented bounds (large ``s``, both group forms, many slots) and the
``--compose`` questions (10,000 rounds; the paper families' ε₀ question at 1,000 and 10,000, the
segmented family's ε and δ questions), and the classes of the reliability issue (huge integers,
subnormal δ, both sides of exact-krr's reach, large targets; ``--family reliability``).

The slowest questions are then re-timed each in a fresh process (CPU of the child, user and
system, the start-up included), which is what a user of the calculator waits for.

Run ``python benchmarks/bench_corners.py [--all] [--progress] [--family NAME]``; it prints a
Markdown table of the 25 slowest questions (every question with ``--all``; each timing on stderr
as it finishes with ``--progress``; only one family's questions with ``--family``, e.g.
``--family composed``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import resource
import subprocess
import sys
import time

from shufflelib.__main__ import main
from shufflelib.bounds import BOUNDS
from shufflelib.composition import MAX_ROUNDS
from shufflelib.personalized.bounds import PERSONALIZED_BOUNDS

DELTAS = ("5e-324", "1e-6", "0.99")
EPS0S = ("1e-6", "1", "100")
NS = ("2", "1000000000")


def uniform() -> list[list[str]]:
    out = []
    for bound, cls in BOUNDS.items():
        mechanisms = [["--mechanism", "generic"]] if "generic" in cls.mechanisms else []
        if "krr" in cls.mechanisms:
            mechanisms += [["--mechanism", "krr", "--k", "2"], ["--mechanism", "krr", "--k", "1000000000"]]
        for mech, n in itertools.product(mechanisms, NS):
            head = ["--bound", bound, "--n", n, *mech]
            for eps0, delta in itertools.product(EPS0S, DELTAS):
                out.append(["epsilon", *head, "--eps0", eps0, "--delta", delta])
            for eps0 in EPS0S:
                out.append(["delta", *head, "--eps0", eps0, "--eps", str(float(eps0) / 2)])
            for eps, delta in itertools.product(("1e-6", "1"), DELTAS):
                out.append(["eps0", *head, "--eps", eps, "--delta", delta])
    return out


def personalized() -> list[list[str]]:
    pops = [("1", "2"), ("1", "1000000000"), ("1e-6,1,100", "1,100000,999899999"), ("0.5,1,2", "1,33333333,1000000")]
    out = []
    for bound, kind, (eps0, counts) in itertools.product(PERSONALIZED_BOUNDS, ("rr", "laplace"), pops):
        head = ["--bound", bound, "--randomizer", kind, "--eps0", eps0, "--counts", counts]
        for delta in DELTAS:
            out.append(["epsilon", *head, "--delta", delta])
        out.append(["delta", *head, "--eps", "0.01"])
        out.append(["eps0", *head, "--eps", "0.1", "--delta", "1e-6"])
        out.append(["eps0", *head, "--eps", "1e-3", "--delta", "5e-324"])
    gauss = ["--randomizer", "gaussian", "--calibration", "analytic", "--delta0", "1e-8"]
    for bound in ("pers-clones", "pers-fv", "pers-liu24", "pers-liu24-printed"):
        for eps0, counts in pops[1:]:
            head = ["--bound", bound, *gauss, "--eps0", eps0, "--counts", counts]
            out.append(["epsilon", *head, "--delta", "1e-12"])
            out.append(["eps0", *head, "--eps", "0.1", "--delta", "1e-6"])
    # Many levels: 1,000 levels from 0.01 to 10, a million users each (n = 10^9).
    many = ",".join(f"{0.01 * i:g}" for i in range(1, 1001)), ",".join(["1000000"] * 1000)
    for bound, kind in itertools.product(PERSONALIZED_BOUNDS, ("rr", "laplace")):
        head = ["--bound", bound, "--randomizer", kind, "--eps0", many[0], "--counts", many[1]]
        out.append(["epsilon", *head, "--delta", "5e-324"])
        out.append(["delta", *head, "--eps", "0.01"])
        out.append(["eps0", *head, "--eps", "1e-3", "--delta", "5e-324"])
        out.append(["eps0", *head, "--eps", "0.003", "--delta", "1e-6"])
    return out


def composed() -> list[list[str]]:
    """``--compose``: the largest number of rounds at the corners (with ``--json``, the baselines too)."""
    out = []
    for bound, n in itertools.product(("clones", "stronger-clones", "blanket-bennett"), NS):
        head = ["--bound", bound, "--n", n, "--compose", str(MAX_ROUNDS)]
        for eps0, delta in itertools.product(EPS0S, ("5e-324", "1e-6")):
            out.append(["epsilon", *head, "--eps0", eps0, "--delta", delta, "--json"])
        out.append(["delta", *head, "--eps0", "1", "--eps", "1"])
        for eps, delta in itertools.product(("1e-6", "1"), ("5e-324", "1e-6")):
            out.append(["eps0", *head, "--eps", eps, "--delta", delta])
    # The paper families composed: the eps0 question (the slowest) at 1,000 and 10,000 rounds.
    segmented = [
        ["--bound", "segmented-exact", "--n", n, "--m", "1.5", "--d", "17", "--s", "4"] for n in ("5000", NS[1])
    ]
    families = [
        ["--bound", "pop-tight", "--population", "poisson:1000000"],
        ["--bound", "pop-tight", "--population", "poisson:1000000000"],
        ["--bound", "pers-clones", "--randomizer", "rr", "--eps0", "0.5,1,2", "--counts", "1,33333333,1000000"],
        ["--bound", "pers-clones", "--randomizer", "rr", "--eps0", "1", "--counts", "1000000000"],
        *segmented,
    ]
    for head, rounds in itertools.product(families, ("1000", str(MAX_ROUNDS))):
        out.append(["eps0", *head, "--compose", rounds, "--eps", "1", "--delta", "1e-6"])
    # Issue 29's corners: the pair bounds at both ends of eps0 and n, subnormal and tiny δ, 10^4
    # rounds; k = 3 (two models, the tighter answers); rounds where users take part at random; the
    # population pair at 10^9 near eps0 = 0 (one block of clone counts).
    for bound, mech in (
        ("exact-krr", ["--mechanism", "krr", "--k", "3"]),
        ("thinned-clones", ["--mechanism", "krr", "--k", "3"]),
    ):
        for n, eps0 in itertools.product(NS, ("1e-6", "10")):
            head = ["--bound", bound, *mech, "--n", n, "--compose", str(MAX_ROUNDS)]
            out.append(["epsilon", *head, "--eps0", eps0, "--delta", "1e-12", "--json"])
            out.append(["eps0", *head, "--eps", "1", "--delta", "5e-324"])
    for n, rate in itertools.product(NS, ("1e-3", "1")):
        head = ["--bound", "stronger-clones", "--n", n, "--sample-rate", rate, "--compose", str(MAX_ROUNDS)]
        out.append(["epsilon", *head, "--eps0", "1", "--delta", "1e-12", "--json"])
        out.append(["delta", *head, "--eps0", "1", "--eps", "1"])
        out.append(["eps0", *head, "--eps", "1", "--delta", "1e-6"])
    for eps0 in ("1e-6", "0.003"):
        head = ["--bound", "pop-tight", "--population", "poisson:1000000000", "--compose", str(MAX_ROUNDS)]
        out.append(["epsilon", *head, "--eps0", eps0, "--delta", "1e-10"])
        out.append(["delta", *head, "--eps0", eps0, "--eps", "1e-4"])
    # Issue 29's slowest composed commands of the last campaign (fuzz_composed.py, seed 29): a
    # profile whose cap atom lies far out on its grid (the eps0 search at n = 4.7e8), the lower
    # pair at 9,226 rounds, the population pair at 6,274 rounds.
    out.append(
        ["eps0", "--bound", "clones-closed", "--n", "474082801", "--eps", "0.0001244810389759225"]
        + ["--delta", "4.1826586068968557e-10", "--compose", "130"]
    )
    out.append(
        ["delta", "--bound", "krr-two-pair-lower", "--mechanism", "krr", "--k", "2", "--n", "177805"]
        + ["--eps0", "1.020982906931215", "--eps", "1.017613255450215", "--compose", "9226"]
    )
    out.append(
        ["epsilon", "--bound", "pop-tight", "--population", "poisson:824308268", "--eps0", "0.0032476750120436645"]
        + ["--delta", "7.703578463868743e-11", "--compose", "6274"]
    )
    # At n = 10^9 the segmented answer above is its top, λ = 1; below it, a search.
    out.append(["eps0", *segmented[1], "--compose", "1000", "--eps", "0.05", "--delta", "1e-6"])
    # Every other uniform bound (issue 29: every family), eps0 at both ends of the box, subnormal δ.
    for (bound, mech), n in itertools.product(
        (
            ("erlingsson", ["--mechanism", "generic"]),
            ("blanket-hoeffding", ["--mechanism", "generic"]),
            ("clones-closed", []),
            ("exact-krr", ["--mechanism", "krr", "--k", "2"]),
            ("krr-two-pair-lower", ["--mechanism", "krr", "--k", "2"]),
            ("variation-ratio", ["--mechanism", "generic"]),
        ),
        NS,
    ):
        head = ["--bound", bound, *mech, "--n", n, "--compose", str(MAX_ROUNDS)]
        out += [["epsilon", *head, "--eps0", eps0, "--delta", "5e-324", "--json"] for eps0 in ("1e-6", "100")]
        out.append(["delta", *head, "--eps0", "1", "--eps", "1e-3"])
        out.append(["eps0", *head, "--eps", "1", "--delta", "1e-12"])
    # The personalized bounds (two levels at the box's ends; Gaussian levels with a local δ) and the
    # other population laws, composed.
    for bound, noise in itertools.product(
        ("pers-liu24", "pers-liu24-printed", "pers-fv", "pers-blanket"),
        (["--randomizer", "rr"], ["--randomizer", "gaussian", "--calibration", "analytic", "--delta0", "1e-8"]),
    ):
        head = ["--bound", bound, *noise, "--counts", "1,999999999"]
        out.append(["epsilon", *head, "--eps0", "1e-6,100", "--compose", str(MAX_ROUNDS), "--delta", "5e-324"])
        out.append(["delta", *head, "--eps0", "0.5,1", "--compose", str(MAX_ROUNDS), "--eps", "1"])
        out.append(["eps0", *head, "--eps0", "0.5,1", "--compose", "321", "--eps", "1", "--delta", "1e-12"])
    for law, eps0 in itertools.product(("poisson:2", "poisson:1000000000", "binomial:1000000000,0.3"), EPS0S[::2]):
        bound = "pop-binomial" if law.startswith("binomial") else "pop-poisson"
        head = ["--bound", bound, "--population", law, "--compose", str(MAX_ROUNDS)]
        out.append(["epsilon", *head, "--eps0", eps0, "--delta", "5e-324"])
        out.append(["delta", *head, "--eps0", eps0, "--eps", "1"])
    # The segmented family's epsilon and delta questions composed (every λ a profile of the exact
    # item curve), at n = 2 too.
    for head in [*segmented, ["--bound", "segmented-exact", "--n", NS[0], "--m", "1.5", "--d", "17", "--s", "4"]]:
        out.append(["epsilon", *head, "--compose", str(MAX_ROUNDS), "--lam", "1", "--delta", "1e-6"])
        out.append(["delta", *head, "--compose", str(MAX_ROUNDS), "--lam", "0.5", "--eps", "1"])
    return out


def population() -> list[list[str]]:
    laws = {
        "pop-binomial": ("binomial:2,1", "binomial:1000000000,0.5"),
        "pop-poisson": ("poisson:1", "poisson:1000000000"),
        "pop-meanvar": ("meanvar:1,1", "meanvar:1000000000,1e18"),
        "pop-subgaussian": ("subgaussian:1,1", "subgaussian:1000000000,1000000000"),
        "pop-subexp": ("subexp:1,1,1", "subexp:1000000000,2,1e-9"),
        "pop-tight": ("fixed:1", "negbin:1000000000,1e10", "poisson:1000000000", "fixed:1000000000"),
        "pop-exact-rr": ("fixed:1", "poisson:1000000", "binomial:1000000000,0.001"),
    }
    out = []
    for bound, texts in laws.items():
        for text in texts:
            head = ["--bound", bound, "--population", text]
            for eps0, delta in itertools.product(EPS0S, DELTAS):
                out.append(["epsilon", *head, "--eps0", eps0, "--delta", delta])
            out.append(["delta", *head, "--eps0", "1", "--eps", "0.01"])
            for eps, delta in itertools.product(("1e-6", "1"), DELTAS):
                out.append(["eps0", *head, "--eps", eps, "--delta", delta])
        out.append(["epsilon", *head, "--dummies", "1000000000", "--eps0", "1", "--delta", "5e-324"])
        for mode in ("nonadaptive", "adaptive"):
            dummies = ["--dummies", "1000000000", "--dummy-mode", mode]
            out.append(["eps0", *head, *dummies, "--eps", "1e-6", "--delta", "5e-324"])
    return out


def segmented() -> list[list[str]]:
    out = []
    for bound, n, (m, d, s), lam, delta in itertools.product(
        ("segmented-thm3", "segmented-exact"),
        NS,
        (("0.01", "3", "1"), ("1.5", "17", "4"), ("10000", "1000000000", "1000"), ("2", "1000000000", "1000000000")),
        ("0", "0.5", "1"),
        ("5e-324", "1e-6"),
    ):
        head = ["--bound", bound, "--n", n, "--m", m, "--d", d, "--s", s]
        out.append(["epsilon", *head, "--lam", lam, "--delta", delta])
        if lam == "0.5":
            out.append(["delta", *head, "--lam", lam, "--eps", "0.5"])
            out.append(["eps0", *head, "--eps", "0.5", "--delta", delta])
            out.append(["epsilon", *head, "--lam", lam, "--delta", delta, "--group", "standard"])
            out.append(["epsilon", *head, "--lam", lam, "--delta", delta, "--slots", "1000000"])
    return out


def reliability() -> list[list[str]]:
    """The classes of issue "reliability over the whole box": integers of hundreds and thousands of
    digits and 1e308 in every integer flag, subnormal and tiny δ, ``n`` on both sides of the
    exact-krr search's reach (k = 2 at its budget, k = 3 at its complete search), large targets
    (ε of 800 to 1e300 for the ε₀ question, 1e300 for the δ question) and the issue's own corners.
    """
    heads = {
        "--n": ["epsilon", "--bound", "clones", "--eps0", "1", "--delta", "1e-6"],
        "--k": ["epsilon", "--bound", "stronger-clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
        "--counts": ["epsilon", "--bound", "pers-clones", "--randomizer", "rr", "--eps0", "1", "--delta", "1e-6"],
        "--dummies": ["epsilon", "--bound", "pop-tight", "--population", "poisson:1000", "--eps0", "1",
                      "--delta", "1e-6"],
        "--d": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--s", "1", "--lam", "0.5",
                "--delta", "1e-6"],
        "--slots": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--d", "17", "--s", "4",
                    "--lam", "0.5", "--delta", "1e-6"],
        "--compose": ["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
    }  # fmt: skip
    out = [[*head, flag, text] for flag, head in heads.items() for text in ("9" * 309, "9" * 4000, "1e308")]
    tiny = ("5e-324", "1e-310", "2.2e-308")
    for delta in tiny:
        out.append(["epsilon", "--bound", "pop-poisson", "--population", "poisson:10000", "--eps0", "0.5",
                    "--delta", delta])  # fmt: skip
        out.append(["eps0", "--bound", "pop-subexp", "--population", "subexp:10000,2,0.1", "--eps", "0.5",
                    "--delta", delta])  # fmt: skip
        out.append(["epsilon", "--bound", "clones-closed", "--n", "10000000", "--eps0", "1", "--delta", delta])
        out.append(["eps0", "--bound", "exact-krr", "--n", "100000", "--eps", "0.05", "--delta", delta])
    krr = ["--bound", "exact-krr", "--mechanism", "krr", "--k", "2"]
    for n, eps0 in itertools.product(("100000", "1000000", "10000000"), ("0.5", "1")):
        out.append(["epsilon", *krr, "--n", n, "--eps0", eps0, "--delta", "1e-6"])
        out.append(["delta", *krr, "--n", n, "--eps0", eps0, "--eps", str(float(eps0) / 20)])
        out.append(["eps0", *krr, "--n", n, "--eps", "0.01", "--delta", "1e-6"])
    for n in ("30", "40", "100000"):
        out.append(["epsilon", "--bound", "exact-krr", "--mechanism", "krr", "--k", "3", "--n", n, "--eps0", "1",
                    "--delta", "1e-6"])  # fmt: skip
    # the corners: a hang at eps0 = 0.6, the eps0 question at n = 1e8 and delta = 1e-150
    out += [["delta", *krr, "--n", n, "--eps0", "0.6", "--eps", "0.15"] for n in ("18000", "50000", "311000")]
    out.append(["eps0", *krr, "--n", "100000000", "--eps", "0.01", "--delta", "1e-150"])
    out.append(["epsilon", *krr, "--n", "1164791", "--eps0", "0.163", "--delta", "1.4e-14"])
    # the slowest segmented-exact questions of the campaigns (165 item-curve evaluations once; a
    # 257-point running minimum), the round trip at n = 35,482,063, a population too small to compose
    out.append(["eps0", "--bound", "segmented-exact", "--n", "360", "--m", "1.5", "--d", "40", "--s", "28",
                "--eps", "0.5387", "--delta", "0.9"])  # fmt: skip
    out.append(["delta", "--bound", "segmented-exact", "--n", "513", "--m", "132.5", "--d", "25544", "--s", "836",
                "--group", "standard", "--lam", "0.5", "--eps", "3.114786410295989"])  # fmt: skip
    out.append(["epsilon", "--bound", "exact-krr", "--n", "35482063", "--mechanism", "krr", "--eps0",
                "2.3835214077739666", "--delta", "5.379477570610142e-18"])  # fmt: skip
    out.append(["epsilon", "--bound", "pop-poisson", "--population", "poisson:2", "--eps0", "1", "--delta", "1e-6",
                "--compose", "10"])  # fmt: skip
    segmented = ["--bound", "segmented-exact", "--n", "20000", "--m", "2", "--d", "30", "--s", "2"]
    for eps in ("800", "1e5", "1e300"):
        out.append(["eps0", *segmented, "--eps", eps, "--delta", "1e-8"])
        out.append(["eps0", "--bound", "clones", "--n", "100000", "--eps", eps, "--delta", "1e-6"])
        out.append(["eps0", "--bound", "pop-tight", "--population", "poisson:100000", "--eps", eps, "--delta", "1e-6"])
        gauss = ["--randomizer", "gaussian", "--calibration", "classical", "--delta0", "1e-7"]
        pers = ["--bound", "pers-clones", *gauss, "--eps0", "0.5,1", "--counts", "1000,1000"]
        out.append(["eps0", *pers, "--eps", eps, "--delta", "1e-6"])
    out.append(["delta", "--bound", "stronger-clones", "--mechanism", "krr", "--n", "1000", "--eps0", "1",
                "--eps", "1e300"])  # fmt: skip
    return out


def timed(argv: list[str]) -> tuple[float, int]:
    sink = io.StringIO()
    start = time.thread_time()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        status = main(argv)
    return time.thread_time() - start, status


FAMILIES = {
    "uniform": uniform,
    "personalized": personalized,
    "population": population,
    "segmented": segmented,
    "composed": composed,
    "reliability": reliability,
}


def _shown(argv: list[str]) -> str:
    """The question as typed, with lists of more than 6 values shortened (``1,2,…,1000 (1000 values)``)."""

    def short(word: str) -> str:
        values = word.split(",")
        return word if len(values) <= 6 else f"{','.join(values[:2])},…,{values[-1]} ({len(values)} values)"

    return " ".join(short(word) for word in argv)


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="list every question (default: the 25 slowest)")
    parser.add_argument("--progress", action="store_true", help="print each timing on stderr as it finishes")
    parser.add_argument("--family", choices=sorted(FAMILIES), help="only this family's questions")
    args = parser.parse_args()
    families = {args.family: FAMILIES[args.family]} if args.family else FAMILIES
    rows = []
    for family, make in families.items():
        for argv in make():
            seconds, status = timed(argv)
            rows.append((seconds, status, family, argv))
            if args.progress:
                print(f"{seconds:8.3f} {status} {_shown(argv)}", file=sys.stderr, flush=True)
    rows.sort(key=lambda r: -r[0])
    shown = rows if args.all else rows[:25]
    print(f"{len(rows)} questions in one process; slowest {rows[0][0]:.2f} CPU s\n")
    # One process accumulates state (caches); a user's question runs in a fresh one: re-time the
    # slowest in fresh processes, the whole command (start-up included: what the user waits for),
    # and the start-up alone (importing the calculator) for reference.
    print(f"start-up alone (python -c 'import shufflelib.__main__'): {_fresh(None):.3f} CPU s\n")
    print("| CPU s, in process | CPU s, whole command | status | family | question |")
    print("|---:|---:|---:|---|---|")
    for i, (seconds, status, family, argv) in enumerate(shown):
        fresh = f"{_fresh(argv):.3f}" if i < FRESH else ""
        print(f"| {seconds:.3f} | {fresh} | {status} | {family} | `python -m shufflelib {_shown(argv)}` |")


#: Number of the slowest questions re-timed in a fresh process.
FRESH = 15


def _fresh(argv: list[str] | None) -> float:
    """CPU seconds of ``python -m shufflelib argv`` in a new process (``None``: the import alone)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = ["-c", "import shufflelib.__main__"] if argv is None else ["-m", "shufflelib", *argv]
    subprocess.run([sys.executable, *command], capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


if __name__ == "__main__":
    run()
