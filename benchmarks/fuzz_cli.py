"""A fuzz campaign against the command-line calculator: counts of failures per class.

Each invocation runs ``shufflelib.calculator.main`` in a forked child of a process that has
already imported every family (the child's CPU seconds are read from the kernel; a child over
:data:`CPU_LIMIT` CPU seconds is killed and counted as a hang). A question's whole-command time
is its child's CPU seconds plus the CPU seconds of a fresh ``python -c "import ..."`` of every
family (measured once, an upper estimate of any question's start-up); the slowest commands are
then re-timed in a fresh process (``python -m shufflelib ...``, CPU of the child), which is what
a user waits for.

The campaign (``--size N`` cases, seeded): random valid points for every bound and question of
the four families (no ``--compose``: the composed questions are the composition issue's),
adversarial values (integers of hundreds of digits, ``1e308``, tiny and subnormal δ, large
targets, the box's corners), text that is not an ASCII number (``1_000``, Unicode digits,
no-break spaces, repeated flags), relations between answers (monotone in ``n``, in the target,
in δ; round trips; never below the k-RR lower bound), and the exact-krr corners of issue 30.

Classes of failure (one invocation may fall in several):

* ``internal`` — exit status 3, another status, a signal or a traceback;
* ``hang`` — killed at :data:`CPU_LIMIT` CPU seconds;
* ``slow`` — more than 2 s, whole command (estimated as above, then re-timed fresh);
* ``valid-refused`` — exit 2 on input inside the documented box;
* ``bad-accepted`` — exit 0 or 1 on input outside it (or not a plain ASCII number);
* ``bad-no-flag`` — an exit-2 line that names no ``--flag``;
* ``exit1-wording`` — an exit-1 line without ``not applicable: ``;
* ``warning-wording`` — a warning not in the documented forms (``warning: not a valid bound for``
  when ``"sound": false``; ``warning: not exact: ...`` for a certified bracket);
* ``stderr-noise`` — more than the one expected line on stderr (e.g. a ``RuntimeWarning``);
* ``message-internals`` — a Python repr, a Python-only option or a bound name that does not exist
  in a message;
* ``nonfinite`` — an answer that is NaN, infinite or negative;
* ``out-of-box`` — an ε₀ answer outside [1e-6, 100], a λ or δ outside [0, 1];
* ``monotone`` — an answer that moves the wrong way with n, the target or δ;
* ``round-trip`` — ε₀ answered for (ε, δ) whose ε at δ is above the target (for an ε printed
  as a certified bracket's safe end, ``"exact": false``, whose bracket's lower end is: the exact
  ε lies in the bracket, so only that end contradicts the ε₀ answer); or, for an exact or
  closed-form answer, δ(ε(δ)) above δ;
* ``below-lower`` — an upper bound below the k-RR two-pair lower bound.

Run ``python benchmarks/fuzz_cli.py [--size 400] [--seed 0] [--examples 2]``; it prints the
counts per class, a few examples of each and the ten slowest commands.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: CPU seconds after which a child is killed (a hang).
CPU_LIMIT = 12
#: The whole-command target, in seconds.
TARGET = 2.0
#: Documented beginnings of a warning line (after ``warning: ``).
WARNINGS = ("not a valid bound for", "not exact:")
EPS0_MIN, EPS0_MAX, N_MAX = 1e-6, 100.0, 10**9

UNIFORM = {
    # name: mechanisms it covers
    "erlingsson": ("generic",),
    "blanket-hoeffding": ("generic", "laplace", "krr"),
    "blanket-bennett": ("generic", "laplace", "krr"),
    "clones-closed": ("generic",),
    "clones": ("generic",),
    "stronger-clones": ("krr",),
    "thinned-clones": ("krr",),
    "exact-krr": ("krr",),
    "krr-two-pair-lower": ("krr",),
    "variation-ratio": ("generic", "laplace", "krr"),
}
LOWER = {"krr-two-pair-lower", "pop-exact-rr"}
PERSONALIZED = (
    "pers-liu24",
    "pers-liu24-printed",
    "pers-liu24-pair",
    "pers-clones",
    "pers-fv",
    "pers-blanket",
    "pers-gdp",
    "pers-lzx",
)
POPULATION = {
    "pop-binomial": ("binomial",),
    "pop-poisson": ("poisson",),
    "pop-meanvar": ("fixed", "binomial", "poisson", "negbin", "meanvar"),
    "pop-subgaussian": ("binomial", "poisson", "subgaussian"),
    "pop-subexp": ("subexp",),
    "pop-tight": ("fixed", "binomial", "poisson", "negbin"),
    "pop-exact-rr": ("fixed", "binomial", "poisson", "negbin"),
}
SEGMENTED = ("segmented-thm3", "segmented-exact")
ALL_BOUNDS = set(UNIFORM) | set(PERSONALIZED) | set(POPULATION) | set(SEGMENTED)


@dataclass
class Case:
    argv: list[str]
    kind: str  # "valid", "bad" or "any" (a corner whose status is not prescribed)
    origin: str
    check: object = None  # a relation: a function of the list of results of its group
    group: list = field(default_factory=list)


@dataclass
class Result:
    argv: list[str]
    status: int
    stdout: str
    stderr: str
    cpu: float
    killed: bool

    def record(self) -> dict | None:
        lines = self.stdout.strip().splitlines()
        if self.status != 0 or not lines:
            return None
        try:
            record = json.loads(lines[-1])
        except ValueError:
            return None
        return record if isinstance(record, dict) else None


# ------------------------------------------------------------------ random values
def log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return min(hi, max(lo, math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def log_int(rng: random.Random, lo: int, hi: int) -> int:
    return int(min(hi, max(lo, round(log_uniform(rng, lo, hi)))))


def number(rng: random.Random, x: float) -> str:
    return f"{x:.4g}" if rng.random() < 0.7 else repr(x)


def delta_value(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.08:
        return rng.choice([5e-324, 1e-320, 2.2e-308, 1e-300, 1e-150])
    if r < 0.15:
        return rng.choice([0.5, 0.9, 0.99])
    return log_uniform(rng, 1e-20, 0.1)


def eps0_value(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.08:
        return rng.choice([EPS0_MIN, EPS0_MAX, 1e-5, 50.0])
    return log_uniform(rng, 1e-3, 10.0) if r < 0.8 else log_uniform(rng, EPS0_MIN, EPS0_MAX)


def eps_value(rng: random.Random, eps0: float | None = None) -> float:
    r = rng.random()
    if r < 0.08:
        return rng.choice([1e-9, 1e3, 1e6, 1e300])
    if eps0 is not None and r < 0.6:
        return eps0 * rng.uniform(0.01, 1.0)
    return log_uniform(rng, 1e-4, 30.0)


def n_value(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.06:
        return rng.choice([2, 3, N_MAX])
    return log_int(rng, 2, N_MAX)


# ------------------------------------------------------------------ families
def uniform_head(rng: random.Random, bound: str) -> list[str]:
    mech = rng.choice(UNIFORM[bound])
    out = ["--bound", bound, "--n", str(n_value(rng))]
    if mech != "generic" or rng.random() < 0.5:
        out += ["--mechanism", mech]
    if mech == "krr":
        k = 2 if rng.random() < 0.6 else log_int(rng, 3, 10**6)
        if k != 2 or rng.random() < 0.5:
            out += ["--k", str(k)]
    return out


def question_tail(rng: random.Random, command: str, eps0_flag: str = "--eps0", eps0: float | None = None) -> list[str]:
    eps0 = eps0_value(rng) if eps0 is None else eps0
    if command == "epsilon":
        return [eps0_flag, number(rng, eps0), "--delta", number(rng, delta_value(rng))]
    if command == "delta":
        return [eps0_flag, number(rng, eps0), "--eps", number(rng, eps_value(rng, eps0))]
    return ["--eps", number(rng, eps_value(rng)), "--delta", number(rng, delta_value(rng))]


def personalized_head(rng: random.Random, bound: str) -> tuple[list[str], float]:
    levels = sorted({round(eps0_value(rng), 6) for _ in range(rng.choice([1, 1, 2, 3, 5]))})
    levels = [max(EPS0_MIN, x) for x in levels]
    total = n_value(rng)
    counts = [max(1, total // len(levels)) for _ in levels]
    if sum(counts) < 2:
        counts[0] = 2
    kind = rng.choice(["rr", "laplace", "gaussian"])
    out = ["--bound", bound, "--randomizer", kind, "--counts", ",".join(map(str, counts))]
    if kind == "gaussian":
        per_level = rng.random() < 0.4  # one local delta per level: some levels less noisy than the top
        delta0 = [log_uniform(rng, 1e-15, 0.5) for _ in levels] if per_level else [log_uniform(rng, 1e-12, 1e-2)]
        out += [
            "--calibration",
            rng.choice(["classical", "analytic"]),
            "--delta0",
            ",".join(f"{d:.4g}" for d in delta0),
        ]
    elif rng.random() < 0.2:
        out += ["--delta0", "0"]
    return out, ",".join(f"{x:.6g}" for x in levels)


def population_text(rng: random.Random, form: str) -> str:
    mean = n_value(rng)
    if form == "fixed":
        return f"fixed:{rng.choice([0, 1, mean])}"
    if form == "binomial":
        return f"binomial:{max(2, mean)},{rng.choice([1.0, 0.5, round(rng.uniform(0.001, 1), 4)])}"
    if form == "poisson":
        return f"poisson:{mean}"
    if form == "negbin":
        variance = min(1e10, mean * log_uniform(rng, 1.001, 100.0))
        return f"negbin:{mean},{variance:.6g}" if variance > mean else f"negbin:{mean},{mean + 1}"
    if form == "meanvar":
        return f"meanvar:{mean},{min(1e18, mean * log_uniform(rng, 0.01, 100.0)):.6g}"
    if form == "subgaussian":
        return f"subgaussian:{mean},{min(N_MAX, math.sqrt(mean) * log_uniform(rng, 0.1, 10.0)):.6g}"
    return f"subexp:{mean},{rng.choice([1, 2, 10])},{log_uniform(rng, 1e-9, 1.0):.4g}"


def population_head(rng: random.Random, bound: str) -> list[str]:
    out = ["--bound", bound, "--population", population_text(rng, rng.choice(POPULATION[bound]))]
    if rng.random() < 0.3:
        out += ["--dummies", str(log_int(rng, 1, N_MAX))]
        if rng.random() < 0.5:
            out += ["--dummy-mode", rng.choice(["nonadaptive", "adaptive"])]
    return out


def segmented_head(rng: random.Random, bound: str) -> list[str]:
    d = log_int(rng, 3, N_MAX) if rng.random() < 0.3 else rng.randint(3, 64)
    s = rng.randint(1, min(d, 16 if rng.random() < 0.8 else 1000))
    m = log_uniform(rng, 0.01, 1e4) if rng.random() < 0.3 else rng.choice([0.5, 1, 1.5, 2, 3])
    out = ["--bound", bound, "--n", str(n_value(rng)), "--m", f"{m:.4g}", "--d", str(d), "--s", str(s)]
    if rng.random() < 0.2:
        out += ["--slots", str(math.ceil(float(f"{m:.4g}")) + rng.choice([0, 1, 10]))]
    if rng.random() < 0.3:
        out += ["--group", rng.choice(["paper", "standard"])]
    return out


def segmented_tail(rng: random.Random, command: str) -> list[str]:
    lam = rng.choice([0.0, 1.0, 0.5, round(rng.random(), 4)])
    if command == "epsilon":
        return ["--lam", str(lam), "--delta", number(rng, delta_value(rng))]
    if command == "delta":
        return ["--lam", str(lam), "--eps", number(rng, eps_value(rng))]
    return ["--eps", number(rng, eps_value(rng)), "--delta", number(rng, delta_value(rng))]


def personalized_large_target(rng: random.Random) -> Case:
    """The eps0 question of a personalized bound at a large target (NaN once, issue 30)."""
    head, levels = personalized_head(rng, rng.choice(PERSONALIZED))
    target = rng.choice(["1e300", "1e6", "700"])
    return Case(
        ["eps0", *head, "--eps0", levels, "--eps", target, "--delta", number(rng, delta_value(rng)), "--json"],
        "valid",
        "valid-personalized",
    )


def valid_case(rng: random.Random) -> Case:
    command = rng.choice(["epsilon", "delta", "eps0"])
    family = rng.choices(["uniform", "personalized", "population", "segmented"], [4, 2, 2, 2])[0]
    if family == "uniform":
        bound = rng.choice(sorted(UNIFORM))
        argv = [command, *uniform_head(rng, bound), *question_tail(rng, command)]
    elif family == "personalized":
        head, levels = personalized_head(rng, rng.choice(PERSONALIZED))
        if command == "eps0":
            argv = [command, *head, "--eps0", levels, *question_tail(rng, command)]
        else:
            argv = [command, *head, *question_tail(rng, command, eps0=1.0)]
            argv[argv.index("--eps0") + 1] = levels
    elif family == "population":
        argv = [command, *population_head(rng, rng.choice(sorted(POPULATION))), *question_tail(rng, command)]
    else:
        argv = [command, *segmented_head(rng, rng.choice(SEGMENTED)), *segmented_tail(rng, command)]
    return Case([*argv, "--json"], "valid", f"valid-{family}")


# ------------------------------------------------------------------ adversarial text
INTEGER_FLAGS = {
    "--n": ("epsilon", "--bound", "clones", "--eps0", "1", "--delta", "1e-6"),
    "--k": ("epsilon", "--bound", "stronger-clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"),
    "--counts": ("epsilon", "--bound", "pers-clones", "--randomizer", "rr", "--eps0", "1", "--delta", "1e-6"),
    "--dummies": ("epsilon", "--bound", "pop-tight", "--population", "poisson:1000", "--eps0", "1", "--delta", "1e-6"),
    "--d": (
        "epsilon",
        "--bound",
        "segmented-exact",
        "--n",
        "5000",
        "--m",
        "1.5",
        "--s",
        "1",
        "--lam",
        "0.5",
        "--delta",
        "1e-6",
    ),
    "--slots": (
        "epsilon",
        "--bound",
        "segmented-exact",
        "--n",
        "5000",
        "--m",
        "1.5",
        "--d",
        "17",
        "--s",
        "4",
        "--lam",
        "0.5",
        "--delta",
        "1e-6",
    ),
    "--compose": ("epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"),
}
REAL_FLAGS = {
    "--eps0": ("epsilon", "--bound", "clones", "--n", "1000", "--delta", "1e-6"),
    "--delta": ("epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1"),
    "--eps": ("delta", "--bound", "clones", "--n", "1000", "--eps0", "1"),
    "--m": (
        "epsilon",
        "--bound",
        "segmented-exact",
        "--n",
        "5000",
        "--d",
        "17",
        "--s",
        "4",
        "--lam",
        "0.5",
        "--delta",
        "1e-6",
    ),
    "--lam": (
        "epsilon",
        "--bound",
        "segmented-exact",
        "--n",
        "5000",
        "--m",
        "1.5",
        "--d",
        "17",
        "--s",
        "4",
        "--delta",
        "1e-6",
    ),
    "--delta0": (
        "epsilon",
        "--bound",
        "pers-clones",
        "--randomizer",
        "gaussian",
        "--eps0",
        "1",
        "--counts",
        "1000",
        "--delta",
        "1e-6",
    ),
}
NOT_NUMBERS = [
    "1_000",
    "١٠٠٠",
    "1000\u00a0",
    "\u00a01000",
    "１０００",
    "1000 ",
    "0x10",
    "1e",
    "--",
    "",
    "nan",
    "inf",
    "-inf",
    "1,,2",
    "1e309",
    "²",
    "1.0.0",
    "True",
    "None",
    "1000\u2009",
    "٣",
]


def bad_cases(rng: random.Random) -> list[Case]:
    out = []
    for flag, head in INTEGER_FLAGS.items():
        for text in [
            "9" * 309,
            "1" + "0" * 400,
            "1e308",
            "-" + "9" * 309,
            "1e400",
            str(10**9 + 1) if flag in ("--n", "--d", "--counts") else "1e30",
        ]:
            out.append(Case([*head, flag, text], "bad", f"bad-int{flag}"))
    for flag, head in {**INTEGER_FLAGS, **REAL_FLAGS}.items():
        for text in rng.sample(NOT_NUMBERS, 6):
            if text in ("1000 ",):  # an ASCII blank around a number typed in quotes: either way
                continue
            out.append(Case([*head, flag, text], "bad", "bad-text"))
    for pop in [
        "poisson:1_000",
        "poisson:١٠٠٠",
        "poisson:1000\u00a0",
        "binomial:" + "9" * 320 + ",0.5",
        "fixed:" + "9" * 320,
        "poisson:nan",
        "meanvar:1000,-1",
        "negbin:1000,10",
        "subexp:1000,0.5,1",
    ]:
        out.append(
            Case(
                ["epsilon", "--bound", "pop-meanvar", "--population", pop, "--eps0", "1", "--delta", "1e-6"],
                "bad",
                "bad-population",
            )
        )
    repeated = [
        ["epsilon", "--bound", "clones", "--n", "1000", "--n", "2000", "--eps0", "1", "--delta", "1e-6"],
        ["epsilon", "--bound", "clones", "--bound", "erlingsson", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
        ["epsilon", "--bound", "clones", "--n=1000", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
        ["delta", "--bound", "clones", "--n", "1000", "--eps0", "1", "--eps", "0.5", "--eps", "0.4"],
    ]
    out += [Case(argv, "bad", "bad-repeated") for argv in repeated]
    out.append(
        Case(["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1000", "--delta", "1e-6"], "bad", "bad-box")
    )
    out.append(
        Case(["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1e-7", "--delta", "1e-6"], "bad", "bad-box")
    )
    out.append(
        Case(
            [
                "epsilon",
                "--bound",
                "pers-liu24",
                "--randomizer",
                "gaussian",
                "--eps0",
                "1,2",
                "--counts",
                "100,100",
                "--delta",
                "1e-6",
            ],
            "any",
            "gaussian-no-delta0",
        )
    )
    return out


# ------------------------------------------------------------------ corners of issue 30
def corner_cases() -> list[Case]:
    krr = ["--bound", "exact-krr", "--mechanism", "krr", "--k", "2"]
    out = [
        Case(["delta", *krr, "--n", str(n), "--eps0", "0.6", "--eps", "0.15", "--json"], "valid", "corner-krr")
        for n in (18000, 50000, 120000, 311000)
    ]
    out += [
        Case(["eps0", *krr, "--n", "100000000", "--eps", "0.01", "--delta", "1e-150", "--json"], "valid", "corner-krr"),
        Case(
            ["epsilon", *krr, "--n", "1164791", "--eps0", "0.163", "--delta", "1.4e-14", "--json"],
            "valid",
            "corner-krr",
        ),
        Case(
            ["eps0", "--bound", "clones", "--n", "500000", "--eps", "1e-9", "--delta", "1e-14", "--json"],
            "valid",
            "corner-box",
        ),
    ]
    seg = ["--bound", "segmented-exact", "--n", "20000", "--m", "2", "--d", "30", "--s", "2"]
    for eps in ("30", "80", "800", "1e5"):
        out.append(Case(["eps0", *seg, "--eps", eps, "--delta", "1e-8", "--json"], "valid", "corner-segmented"))
    for delta in ("5e-324", "1e-310", "2e-308", "1e-300"):
        out.append(
            Case(
                [
                    "epsilon",
                    "--bound",
                    "pop-poisson",
                    "--population",
                    "poisson:10000",
                    "--eps0",
                    "0.5",
                    "--delta",
                    delta,
                    "--json",
                ],
                "valid",
                "corner-tiny-delta",
            )
        )
        out.append(
            Case(
                [
                    "eps0",
                    "--bound",
                    "pop-subexp",
                    "--population",
                    "subexp:10000,2,0.01",
                    "--eps",
                    "0.5",
                    "--delta",
                    delta,
                    "--json",
                ],
                "valid",
                "corner-tiny-delta",
            )
        )
    return out


# ------------------------------------------------------------------ relations
def answer_of(result: Result, key: str) -> float | None:
    record = result.record()
    if record is None or key not in record:
        return None
    return float(record[key])


def relation(kind: str, argvs: list[list[str]], key: str, check) -> Case:
    """A group of valid invocations whose answers (under ``key``) must satisfy ``check``."""
    return Case(argvs[0], "valid", kind, check=(key, check), group=argvs)


def relation_cases(rng: random.Random) -> list[Case]:
    out = []
    krr = ["--bound", "exact-krr", "--mechanism", "krr", "--k", "2"]
    # exact-krr monotone in n (n - 1, n).
    n = log_int(rng, 1000, 2_000_000)
    eps0 = log_uniform(rng, 0.05, 3.0)
    delta = log_uniform(rng, 1e-15, 1e-4)
    command = rng.choice(["epsilon", "delta", "eps0"])
    tail = {
        "epsilon": ["--eps0", repr(eps0), "--delta", repr(delta)],
        "delta": ["--eps0", repr(eps0), "--eps", repr(eps0 * rng.uniform(0.02, 0.5))],
        "eps0": ["--eps", repr(log_uniform(rng, 1e-3, 1.0)), "--delta", repr(delta)],
    }[command]
    key = {"epsilon": "eps", "delta": "delta", "eps0": "eps0"}[command]
    grow = command == "eps0"  # the eps0 answer grows with n; epsilon and delta shrink
    argvs = [[command, *krr, "--n", str(m), *tail, "--json"] for m in (n - 1, n)]
    # an exact answer is the upper end of a bracket narrower than EXACT_RTOL = 1e-6
    out.append(
        relation(
            "monotone",
            argvs,
            key,
            lambda a, grow=grow: a[1] >= a[0] * (1 - 2e-6) if grow else a[1] <= a[0] * (1 + 2e-6),
        )
    )
    # Every upper bound: monotone in n (n, 2n), in delta, in the target of the eps0 question.
    bound = rng.choice(sorted(set(UNIFORM) - LOWER - {"erlingsson", "clones-closed"}))
    head = uniform_head(rng, bound)
    i = head.index("--n")
    n = min(N_MAX // 2, int(head[i + 1]))
    eps0 = eps0_value(rng)
    delta = delta_value(rng)
    pair = []
    for m in (n, 2 * n):
        h = [*head]
        h[i + 1] = str(m)
        pair.append(["epsilon", *h, "--eps0", repr(eps0), "--delta", repr(delta), "--json"])
    out.append(relation("monotone", pair, "eps", lambda a: a[1] <= a[0] * (1 + 2e-9) + 2e-12))
    eps = log_uniform(rng, 1e-3, 30.0)
    targets = [["eps0", *head, "--eps", repr(e), "--delta", repr(delta), "--json"] for e in (eps, eps * 1.5)]
    out.append(relation("monotone", targets, "eps0", lambda a: a[1] >= a[0] * (1 - 2e-9)))
    # eps0 round trip: epsilon(eps0(eps)) <= eps.
    first = ["eps0", *head, "--eps", repr(eps), "--delta", repr(delta), "--json"]
    out.append(Case(first, "valid", "round-trip", check=("round-trip-eps0", head, eps, delta), group=[first]))
    # Segmented: lambda non-decreasing in the target eps.
    head = segmented_head(rng, rng.choice(SEGMENTED))
    eps = log_uniform(rng, 0.01, 2000.0)
    delta = log_uniform(rng, 1e-12, 1e-3)
    argvs = [["eps0", *head, "--eps", repr(e), "--delta", repr(delta), "--json"] for e in (eps, eps * 3)]
    # max_reporting_probability: monotone across its grid's levels, between them to its
    # searches' tolerances (relative 1e-3, absolute 1e-6 for tiny lambda; see its docstring)
    out.append(relation("monotone", argvs, "lam", lambda a: a[1] >= a[0] * (1 - 1e-3) - 1e-6))
    # Ordering: an upper bound for binary RR is never below the two-pair lower bound.
    n = log_int(rng, 2, 10**7)
    eps0 = log_uniform(rng, 0.01, 5.0)
    delta = log_uniform(rng, 1e-12, 1e-2)
    upper = rng.choice(
        [
            "stronger-clones",
            "thinned-clones",
            "exact-krr",
            "blanket-bennett",
            "clones",
            "blanket-hoeffding",
            "variation-ratio",
        ]
    )
    mech = ["--mechanism", "krr", "--k", "2"] if "krr" in UNIFORM[upper] else []
    argvs = [
        ["epsilon", "--bound", b, "--n", str(n), *m, "--eps0", repr(eps0), "--delta", repr(delta), "--json"]
        for b, m in ((upper, mech), ("krr-two-pair-lower", ["--mechanism", "krr", "--k", "2"]))
    ]
    out.append(relation("below-lower", argvs, "eps", lambda a: a[0] >= a[1] * (1 - 1e-9)))
    return out


# ------------------------------------------------------------------ running
def run_in_child(argv: list[str]) -> Result:
    from shufflelib.calculator import main

    out = tempfile.TemporaryFile(mode="w+b")
    err = tempfile.TemporaryFile(mode="w+b")
    pid = os.fork()
    if pid == 0:  # the child
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 5))
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
            sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
            status = main(argv)
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001 - a traceback from main itself
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
            status = 4
        os._exit(status)
    start = time.monotonic()
    while True:
        done, wait_status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > 10 * CPU_LIMIT:  # a wall-clock backstop on a very loaded machine
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)
    killed = os.WIFSIGNALED(wait_status) and os.WTERMSIG(wait_status) in (signal.SIGXCPU, signal.SIGKILL)
    status = os.waitstatus_to_exitcode(wait_status)
    out.seek(0)
    err.seek(0)
    return Result(
        argv,
        status,
        out.read().decode(errors="replace"),
        err.read().decode(errors="replace"),
        usage.ru_utime + usage.ru_stime,
        killed,
    )


FLAG = re.compile(r"--[a-z][a-z0-9-]*")
INTERNALS = re.compile(r"np\.\w+\(|array\(|\b[A-Z][A-Za-z]+\([a-z_]+=|<[a-z]+ '|\bself\b|Traceback|\.py\b")
#: A Python-only option (named without a command-line flag in the same message).
PYTHON_ONLY = re.compile(r"\b(?:budget|rule|work_limit)=")
BOUND_NAME = re.compile(r"\b(?:pop|pers|segmented)-[a-z0-9-]+")


def classify(case: Case, result: Result, start_up: float) -> list[str]:
    classes = []
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    if result.killed:
        return ["hang"]
    if result.status not in (0, 1, 2) or "Traceback" in result.stderr:
        classes.append("internal")
    if result.cpu + start_up > TARGET:
        classes.append("slow")
    if case.kind == "valid" and result.status == 2:
        classes.append("valid-refused")
    if case.kind == "bad" and result.status in (0, 1):
        classes.append("bad-accepted")
    if result.status == 2 and lines and not FLAG.search(lines[-1].split("error:", 1)[-1]):
        classes.append("bad-no-flag")
    if result.status == 1 and not any("not applicable: " in line for line in lines):
        classes.append("exit1-wording")
    record = result.record()
    for line in lines:
        if ": warning: " in line:
            text = line.split(": warning: ", 1)[1]
            if not text.startswith(WARNINGS):
                classes.append("warning-wording")
    if record is not None and record.get("sound") is False:
        if not str(record.get("warning", "")).startswith(WARNINGS[0]):
            classes.append("warning-wording")
    expected = 1 if result.status != 0 else sum(": warning: " in line for line in lines)
    if len(lines) > max(1, expected) or any("Warning:" in line or "/" in line.split(": ", 1)[0] for line in lines):
        classes.append("stderr-noise")
    if (
        any(INTERNALS.search(line) for line in lines)
        or any(PYTHON_ONLY.search(line) and "--" not in line.split(": ", 1)[-1] for line in lines)
        or any(name not in ALL_BOUNDS for line in lines for name in BOUND_NAME.findall(line))
    ):
        classes.append("message-internals")
    if record is not None:
        command = case.argv[0]
        key = {"epsilon": "eps", "delta": "delta", "eps0": "eps0"}[command]
        if "lam" in record and command == "eps0":
            key = "lam"
        value = record.get(key)
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            classes.append("nonfinite")
        elif (key == "eps0" and not (EPS0_MIN <= value <= EPS0_MAX)) or (key in ("lam", "delta") and value > 1):
            classes.append("out-of-box")
    return sorted(set(classes))


def check_group(case: Case, results: list[Result]) -> bool | None:
    """Whether the relation holds (``None``: not comparable, an answer missing)."""
    key, check = case.check
    values = [answer_of(r, key) for r in results]
    if any(v is None for v in values):
        return None
    return bool(check(values))


def round_trip(case: Case, result: Result) -> tuple[bool | None, list[str] | None, Result | None]:
    _, head, eps, delta = case.check
    eps0 = answer_of(result, "eps0")
    if eps0 is None:
        return None, None, None
    argv = ["epsilon", *head, "--eps0", repr(eps0), "--delta", repr(delta), "--json"]
    again = run_in_child(argv)
    value = answer_of(again, "eps")
    if value is None:
        return None, argv, again
    record = again.record() or {}
    if record.get("exact") is False and isinstance(record.get("lower"), (int, float)):
        # A certified bracket (its safe end printed with 'not exact'): the exact ε lies in
        # [lower, value], so the round trip holds unless even its lower end is above the target.
        value = float(record["lower"])
    return value <= eps * (1 + 1e-9) + 1e-12, argv, again


def fresh_seconds(argv: list[str] | None) -> float:
    """CPU seconds of a fresh ``python -m shufflelib argv`` (``None``: importing every family);
    for a command, ``inf`` past :data:`FRESH_LIMIT` wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = ["-c", IMPORT_ALL] if argv is None else ["-m", "shufflelib", *argv]
    # the imports always finish: no wall limit for them (a loaded machine once made it inf, and
    # every command 'slow')
    limit = None if argv is None else FRESH_LIMIT
    try:
        subprocess.run([sys.executable, *command], capture_output=True, check=False, timeout=limit)
    except subprocess.TimeoutExpired:
        return math.inf
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


#: Wall seconds after which a fresh re-timing stops (the command is then shown as ``inf``).
FRESH_LIMIT = 30


IMPORT_ALL = (
    "import shufflelib.calculator, shufflelib.bounds, shufflelib.personalized.bounds, "
    "shufflelib.population.choice, shufflelib.segmented.optimize"
)


def shown(argv: list[str]) -> str:
    def one(word: str) -> str:
        word = word if len(word) <= 40 else f"{word[:12]}…({len(word)} chars)"
        return repr(word) if (not word or any(c.isspace() or ord(c) > 126 for c in word)) else word

    return " ".join(one(w) for w in argv if w != "--json")


def campaign(size: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    cases = [*corner_cases(), *bad_cases(rng)]
    while len(cases) < size:
        r = rng.random()
        if r < 0.15:
            cases.extend(relation_cases(rng))
        elif r < 0.18:
            cases.append(personalized_large_target(rng))
        else:
            cases.append(valid_case(rng))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=400, help="number of cases (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=2, help="examples shown per class")
    parser.add_argument("--progress", action="store_true", help="one line per case on stderr")
    parser.add_argument("--fresh", type=int, default=10, help="slowest commands re-timed in a fresh process")
    args = parser.parse_args()
    exec(IMPORT_ALL)  # noqa: S102 - the parent imports every family once; children are forked
    start_up = fresh_seconds(None)
    cases = campaign(args.size, args.seed)
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    timings: list[tuple[float, list[str]]] = []
    invocations = 0

    def note(cls: str, text: str) -> None:
        counts[cls] += 1
        if len(examples[cls]) < args.examples:
            examples[cls].append(text)

    for case in cases:
        results = [run_in_child(argv) for argv in (case.group or [case.argv])]
        invocations += len(results)
        for argv, result in zip(case.group or [case.argv], results, strict=True):
            timings.append((result.cpu, argv))
            for cls in classify(Case(argv, case.kind, case.origin), result, start_up):
                last = (result.stderr.strip().splitlines() or [result.stdout.strip()[-120:]])[-1]
                note(cls, f"{shown(argv)}  ->  {result.status}: {last[:160]}")
            if args.progress:
                print(f"{result.cpu:6.2f} {result.status} {shown(argv)}", file=sys.stderr, flush=True)
        if case.check is None:
            continue
        if case.check[0] == "round-trip-eps0":
            ok, argv, again = round_trip(case, results[0])
            if again is not None:
                invocations += 1
                timings.append((again.cpu, argv))
            if ok is False:
                note(
                    "round-trip",
                    f"{shown(case.argv)} -> eps0 {answer_of(results[0], 'eps0')!r}; "
                    f"epsilon there {answer_of(again, 'eps')!r}",
                )
        elif check_group(case, results) is False:
            key = case.check[0]
            note(case.origin, " | ".join(f"{shown(r.argv)} -> {answer_of(r, key)!r}" for r in results))
    print(f"{len(cases)} cases, {invocations} invocations (seed {args.seed}); start-up estimate {start_up:.2f} CPU s\n")
    classes = [
        "internal",
        "hang",
        "slow",
        "valid-refused",
        "bad-accepted",
        "bad-no-flag",
        "exit1-wording",
        "warning-wording",
        "stderr-noise",
        "message-internals",
        "nonfinite",
        "out-of-box",
        "monotone",
        "round-trip",
        "below-lower",
    ]
    print("| class | count |\n|---|---:|")
    for cls in classes:
        print(f"| {cls} | {counts[cls]} |")
    for cls in classes:
        for text in examples[cls]:
            print(f"  {cls}: {text}")
    timings.sort(key=lambda t: -t[0])
    print(f"\nThe {args.fresh} slowest commands (CPU s: in a forked child; whole command in a fresh process)")
    print("| child | fresh | command |\n|---:|---:|---|")
    for seconds, argv in timings[: args.fresh]:
        print(f"| {seconds:.2f} | {fresh_seconds(argv):.2f} | `python -m shufflelib {shown(argv)}` |")


if __name__ == "__main__":
    main()
