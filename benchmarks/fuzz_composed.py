"""A fuzz campaign of the calculator's composed questions (issue 29), with the count per class of failure.

Random points over the whole box for every bound and question with ``--compose T`` (``T``
log-uniform in 1..10,000; the uniform family sometimes with ``--sample-rate``), plus adversarial
values (the box's corners, subnormal δ), each run in process through ``python -m shufflelib``'s
``main``. Classes (those of issue 29):

1. **slow**: more than ``SLOW`` CPU seconds in process (the interpreter's start-up, about half a
   second on a quiet machine, comes on top: the 2 s of the whole command);
2. **round trip**: an ε answer whose δ question comes back above δ (relative ``1e-9``; a δ
   answer is never below the documented floor ``DELTA_FLOOR`` = 1e-300, so for a δ below it the
   check is against the floor), or a δ answer whose ε question comes back above ε (relative
   ``1e-8``);
3. **cap**: a composed ε above ``T ε₀`` (the largest level for a personalized population);
4. **message**: a refusal with status 2 that names no flag, status 1 without ``not applicable``,
   a warning worded otherwise than ``warning: not a valid bound for`` or ``warning: not exact:``
   (a search's certified end, as ``exact-krr`` words it), anything else on stderr;
5. **crash**: status 3.

Run ``python benchmarks/fuzz_composed.py [--count N] [--seed S]``; it prints the counts per class,
the failures, and the ten slowest commands. It reads the calculator through its command line
only, so the same script measures any version of the package on ``PYTHONPATH`` (the installed
one by default).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import random
import sys
import time

from shufflelib.__main__ import main
from shufflelib.bounds.base import DELTA_FLOOR

SLOW = 1.5

UNIFORM = [
    ("erlingsson", ["--mechanism", "generic"]),
    ("blanket-hoeffding", ["--mechanism", "generic"]),
    ("blanket-bennett", ["--mechanism", "krr", "--k", "3"]),
    ("clones-closed", []),
    ("clones", []),
    ("stronger-clones", ["--mechanism", "krr", "--k", "2"]),
    ("thinned-clones", ["--mechanism", "krr", "--k", "3"]),
    ("exact-krr", ["--mechanism", "krr", "--k", "2"]),
    ("exact-krr", ["--mechanism", "krr", "--k", "3"]),
    ("krr-two-pair-lower", ["--mechanism", "krr", "--k", "2"]),
    ("variation-ratio", ["--mechanism", "generic"]),
]
PERSONALIZED = ["pers-clones", "pers-fv", "pers-liu24", "pers-liu24-printed", "pers-blanket"]
POPULATION = [
    ("pop-tight", "poisson:{n}"),
    ("pop-binomial", "binomial:{n},0.3"),
    ("pop-poisson", "poisson:{n}"),
]


def log_uniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def draw(rng: random.Random) -> tuple[list[str], dict]:
    """One random composed question and what it needs for the checks."""
    rounds = max(1, min(10_000, round(log_uniform(rng, 1, 10_000))))
    delta = rng.choice([log_uniform(rng, 1e-300, 0.5), log_uniform(rng, 1e-12, 1e-3), 5e-324, 0.99])
    eps0 = rng.choice([log_uniform(rng, 1e-6, 100.0), log_uniform(rng, 0.05, 10.0)])
    eps = log_uniform(rng, 1e-4, 20.0)
    question = rng.choice(["epsilon", "delta", "eps0"])
    family = rng.choices(["uniform", "personalized", "population", "segmented"], [6, 2, 2, 1])[0]
    info = {"rounds": rounds, "question": question, "eps0": eps0}
    if family == "uniform":
        bound, mech = rng.choice(UNIFORM)
        n = max(2, min(10**9, round(log_uniform(rng, 2, 1e9))))
        head = ["--bound", bound, *mech, "--n", str(n)]
        if rng.random() < 0.2:
            head += ["--sample-rate", repr(rng.choice([1.0, log_uniform(rng, 1e-3, 1.0)]))]
        local = ["--eps0", repr(eps0)]
    elif family == "personalized":
        levels = sorted(rng.sample([0.1, 0.5, 1.0, 2.0, 4.0], rng.randint(1, 3)))
        counts = [max(1, round(log_uniform(rng, 1, 1e6))) for _ in levels]
        kind = rng.choice(["rr", "laplace"])
        head = ["--bound", rng.choice(PERSONALIZED), "--randomizer", kind, "--counts", ",".join(map(str, counts))]
        local = ["--eps0", ",".join(map(repr, levels))]
        info["eps0"] = max(levels)
    elif family == "population":
        bound, law = rng.choice(POPULATION)
        head = ["--bound", bound, "--population", law.format(n=max(2, round(log_uniform(rng, 2, 1e9))))]
        local = ["--eps0", repr(eps0)]
    else:
        n = max(2, round(log_uniform(rng, 2, 1e6)))
        head = ["--bound", "segmented-exact", "--n", str(n), "--m", "1.5", "--d", "17", "--s", "4"]
        local = ["--lam", repr(rng.uniform(0.01, 1.0))]
        info["eps0"] = math.inf
    tail = ["--compose", str(rounds), "--json"]
    if question == "epsilon":
        argv = ["epsilon", *head, *local, "--delta", repr(delta), *tail]
    elif question == "delta":
        argv = ["delta", *head, *local, "--eps", repr(eps), *tail]
    else:
        argv = ["eps0", *head, "--eps", repr(eps), "--delta", repr(delta), *tail]
        if family == "personalized":
            argv[argv.index("--eps") : argv.index("--eps")] = local
    info.update({"delta": delta, "eps": eps, "head": head, "local": local})
    return argv, info


def ask(argv: list[str]) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    start = time.thread_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue(), time.thread_time() - start


def classify(argv: list[str], info: dict) -> tuple[list[str], float]:
    """The classes of failure of one question, and its own CPU seconds (the checks' not counted)."""
    status, out, err, seconds = ask(argv)
    found = []
    if seconds > SLOW:
        found.append("slow")
    if status == 3:
        found.append("crash")
    lines = [line for line in err.splitlines() if line.strip()]
    if status == 2 and not any("--" in line for line in lines):
        found.append("message")
    if status == 1 and not any("not applicable" in line for line in lines):
        found.append("message")
    if status == 0:
        # The documented warnings: an unsound value, or a search's certified end ("not exact").
        odd = [
            line for line in lines if "warning: not a valid bound for" not in line and "warning: not exact:" not in line
        ]
        if odd:
            found.append("message")
    if status != 0:
        return found, seconds
    record = json.loads(out.strip().splitlines()[-1])
    rounds = info["rounds"]
    if info["question"] == "epsilon":
        eps = record.get("eps")
        if eps is not None and math.isfinite(info["eps0"]) and eps > rounds * info["eps0"] * (1 + 1e-12):
            found.append("cap")
        back = ["delta", *info["head"], *info["local"], "--eps", repr(eps), "--compose", str(rounds), "--json"]
        code, text, _, _ = ask(back)
        allowed = max(info["delta"], DELTA_FLOOR) * (1 + 1e-9)
        if code == 0 and json.loads(text.strip().splitlines()[-1])["delta"] > allowed:
            found.append("round trip")
    elif info["question"] == "delta":
        delta = record.get("delta")
        if delta is not None and 0.0 < delta < 1.0:
            back = ["epsilon", *info["head"], *info["local"], "--delta", repr(delta), "--compose", str(rounds)]
            code, text, _, _ = ask([*back, "--json"])
            if code == 0 and json.loads(text.strip().splitlines()[-1])["eps"] > info["eps"] * (1 + 1e-8) + 1e-12:
                found.append("round trip")
    return found, seconds


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    classes = {"slow": 0, "round trip": 0, "cap": 0, "message": 0, "crash": 0}
    failures, times = [], []
    for _ in range(args.count):
        argv, info = draw(rng)
        found, seconds = classify(argv, info)
        times.append((seconds, argv))
        for name in set(found):
            classes[name] += 1
            failures.append((name, argv))
        print(f"{seconds:7.2f} {','.join(sorted(set(found))) or '-':12s} {' '.join(argv)}", file=sys.stderr, flush=True)
    print(f"{args.count} composed questions (seed {args.seed})\n")
    print("| class | count |\n|---|---:|")
    for name, count in classes.items():
        print(f"| {name} | {count} |")
    print("\nFailures:")
    for name, argv in failures:
        print(f"- {name}: `python -m shufflelib {' '.join(argv)}`")
    print("\nThe ten slowest (CPU s in process):")
    for seconds, argv in sorted(times, key=lambda t: -t[0])[:10]:
        print(f"- {seconds:.2f} `python -m shufflelib {' '.join(argv)}`")


if __name__ == "__main__":
    run()
