"""Every number the calculator answers, on a fixed grid: a before/after check for refactorings.

Run ``python benchmarks/answer_grid.py OUT.json`` to ask every registered bound of the calculator
(every family of :data:`shufflelib.calculator.registry.FAMILIES`, in process, through
``family_of(bound).ask(question, bound, texts)`` as the command line does) its three questions at a
few parameter points (small, medium and large populations, a few ε₀ and δ), once as a single round
and, for the bounds that compose, with ``--compose T`` for ``T`` in :data:`ROUNDS`. Each answer is
written to ``OUT.json`` under a key naming the bound, question, inputs and ``T``: the record's
numbers, or the error's class and message (a refusal is an answer too). CPU seconds are stored beside
each answer (``"cpu"``) and never compared.

Run ``python benchmarks/answer_grid.py --compare BEFORE.json AFTER.json`` to print, per bound, the
number of answers compared, the largest relative change of the answer, of any other number of the
record (e.g. the composed record's ``error``), and the keys whose outcome changed kind (an answer
that became an error or the other way round, or a different error). An answer limited by a search's
budget (in either file: a search that "stopped at its time budget" or found nothing "within the
search's budget") is reproducible (the budgets are counted on work meters, not clocks), but moves
with any change to the search or its meter's rates: it is counted apart (column ``budget``) and its
change is listed, not compared. Exit status 1 if anything else changed.

``--only SUBSTRING`` keeps the keys containing it (a quick run while working).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.calculator import FAMILIES, QUESTIONS, family_of  # noqa: E402

#: Numbers of composed rounds asked of every bound that composes (plus the single round, no flag).
ROUNDS = (1, 2, 10)


def _uniform_points(bound: str) -> list[tuple[dict[str, str], bool]]:
    """Inputs of a uniform bound, each with whether it is also composed: n in {1e3, 1e5, 1e8} x
    eps0 in {0.5, 2} for each mechanism it covers (k = 2 for krr, and k = 10 at one point)."""
    cls = family_of(bound).bounds[bound]
    points = []
    for mechanism in cls.mechanisms:
        k = {"k": "2"} if mechanism == "krr" else {}
        for n in ("1000", "100000", "1e8"):
            for eps0 in ("0.5", "2"):
                composed = (n, eps0) in (("100000", "0.5"), ("1e8", "2"))
                points.append(({"n": n, "eps0": eps0, "mechanism": mechanism, **k}, composed))
        if mechanism == "krr":
            points.append(({"n": "100000", "eps0": "2", "mechanism": mechanism, "k": "10"}, True))
    return points


def _personalized_points(bound: str) -> list[tuple[dict[str, str], bool]]:
    """Inputs of a personalized bound: three population sizes with rr, the other randomizers at one."""
    points = []
    for counts, randomizer, extra, composed in (
        ("60,30,10", "rr", {}, False),
        ("6000,3000,1000", "rr", {}, True),
        ("6e6,3e6,1e6", "rr", {}, False),
        ("6000,3000,1000", "laplace", {}, False),
        ("6000,3000,1000", "gaussian", {"delta0": "1e-8"}, True),
        ("6000,3000,1000", "gaussian", {"delta0": "1e-8", "calibration": "analytic"}, False),
    ):
        points.append(({"eps0": "0.5,1,2", "counts": counts, "randomizer": randomizer, **extra}, composed))
    return points


#: ``--population`` values by the law they need (each bound takes those its ACCEPTS lists).
_POPULATIONS = (
    "fixed:999",
    "binomial:48842,0.2",
    "binomial:200,0.5",
    "poisson:100",
    "poisson:5000",
    "poisson:1e6",
    "negbin:5000,8000",
    "meanvar:5000,8000",
    "subgaussian:5000,60",
    "subexp:5000,2,0.05",
)


def _population_points(bound: str) -> list[tuple[dict[str, str], bool]]:
    """Inputs of a population bound: every population form it accepts, with and without dummies."""
    from shufflelib.calculator.population import parse_population
    from shufflelib.population.choice import ACCEPTS

    points = []
    for text in _POPULATIONS:
        if not isinstance(parse_population(text), ACCEPTS[bound]):
            continue
        for eps0 in ("0.5", "2"):
            points.append(({"population": text, "eps0": eps0}, eps0 == "0.5"))
        points.append(({"population": text, "eps0": "1", "dummies": "50", "dummy_mode": "adaptive"}, False))
        if bound in ("pop-subgaussian", "pop-subexp"):
            points.append(({"population": text, "eps0": "1", "budget": "corrected"}, False))
    return points


def _segmented_points(bound: str) -> list[tuple[dict[str, str], bool]]:
    """Inputs of a segmented bound: n in {500, 5000, 1e6}, two reporting probabilities."""
    points = []
    for n in ("500", "5000", "1000000"):
        for lam in ("0.5", "1"):
            points.append(({"n": n, "m": "1.5", "d": "17", "s": "4", "lam": lam}, (n, lam) == ("5000", "0.5")))
    standard = {"n": "5000", "m": "2", "d": "17", "s": "4", "lam": "0.5", "group": "standard", "slots": "3"}
    points.append((standard, False))
    return points


_POINTS = {
    "UniformFamily": _uniform_points,
    "PersonalizedFamily": _personalized_points,
    "PopulationFamily": _population_points,
    "SegmentedFamily": _segmented_points,
}

#: (delta, eps) pairs: the epsilon question reads delta, the delta question eps, eps0 both; a
#: composed question is asked at the first only.
_TARGETS = (("1e-6", "0.3"), ("1e-10", "0.05"))


def _level(point: dict[str, str]) -> str:
    """The ε₀-like input a point fixes (removed for the eps0 question, which answers it)."""
    return "lam" if "lam" in point else "eps0"


def _questions(point: dict[str, str], composed: bool):
    """``(question, texts)`` for the three questions at ``point`` (with ``compose`` if ``composed``)."""
    for index, (delta, eps) in enumerate(_TARGETS):
        for question in QUESTIONS:
            texts = dict(point)
            if question.command == "epsilon":
                texts["delta"] = delta
            elif question.command == "delta":
                texts["eps"] = eps
            else:
                if _level(point) == "eps0" and "," not in point[_level(point)]:
                    del texts["eps0"]  # the personalized eps0 question keeps its levels (their shape)
                elif _level(point) == "lam":
                    del texts["lam"]
                texts.update({"eps": eps, "delta": delta})
            yield question, texts
            if composed and index == 0:
                for rounds in ROUNDS:
                    yield question, {**texts, "compose": str(rounds)}


def _key(bound: str, question: str, texts: dict[str, str]) -> str:
    inputs = ";".join(f"{k}={v}" for k, v in sorted(texts.items()) if k != "compose")
    return f"{bound}|{question}|{inputs}|T={texts.get('compose', '-')}"


def _outcome(bound: str, question, texts: dict[str, str]) -> dict:
    family = family_of(bound)
    start = time.process_time()
    try:
        record = family.ask(question, bound, texts)
    except Exception as exc:  # noqa: BLE001 - a refusal is an answer too
        return {"error": f"{type(exc).__name__}: {exc}", "cpu": time.process_time() - start}
    numbers = {
        k: v for k, v in record.items() if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in texts
    }
    return {
        "answer_key": family.answer_key(question, bound),
        "answer": record.get(family.answer_key(question, bound)),
        "numbers": numbers,
        "strings": {k: v for k, v in record.items() if isinstance(v, str) and k not in texts},
        "cpu": time.process_time() - start,
    }


def run(out: Path, only: str | None) -> None:
    """Ask every question of the grid and write the answers to ``out``."""
    answers: dict[str, dict] = {}
    total = time.process_time()
    for family in FAMILIES:
        points = _POINTS[type(family).__name__]
        for bound in family.bounds:
            cpu = time.process_time()
            count = 0
            for point, composed in points(bound):
                for question, texts in _questions(point, composed):
                    key = _key(bound, question.command, texts)
                    if key in answers or (only and only not in key):
                        continue  # the eps0 question answers eps0: points differing in it coincide
                    answers[key] = _outcome(bound, question, texts)
                    count += 1
            print(f"{bound:22s} {count:5d} answers {time.process_time() - cpu:8.1f} s CPU", flush=True)
    out.write_text(json.dumps(answers, indent=1, sort_keys=True))
    print(f"{len(answers)} answers in {time.process_time() - total:.1f} s CPU -> {out}")


def _relative(a: float, b: float) -> float:
    """``|a - b| / max(|a|, |b|)`` (0 for equal values, infinite values equal when identical)."""
    if a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)):
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def _budget_limited(outcome: dict) -> bool:
    """Whether an answer was cut by a search's budget (its value moves with the search and its meter)."""
    text = outcome.get("error", "") + outcome.get("strings", {}).get("warning", "")
    return "time budget" in text or "search's budget" in text


def compare(before_path: Path, after_path: Path) -> int:
    """Print, per bound, the largest relative change between two grids; 1 if any answer changed."""
    before, after = json.loads(before_path.read_text()), json.loads(after_path.read_text())
    rows: dict[str, dict] = defaultdict(
        lambda: {"n": 0, "answer": 0.0, "other": 0.0, "kind": [], "worst": "", "budget": []}
    )
    for key in sorted(set(before) | set(after)):
        row = rows[key.split("|", 1)[0]]
        if key not in before or key not in after:
            row["kind"].append(f"{key}: only in {'after' if key in after else 'before'}")
            continue
        a, b = before[key], after[key]
        row["n"] += 1
        if _budget_limited(a) or _budget_limited(b):
            if a != b and {k: v for k, v in a.items() if k != "cpu"} != {k: v for k, v in b.items() if k != "cpu"}:
                row["budget"].append(f"{key}: {a.get('error', a.get('answer'))} -> {b.get('error', b.get('answer'))}")
            continue
        if "error" in a or "error" in b:
            if a.get("error") != b.get("error"):
                row["kind"].append(f"{key}: {a.get('error', a.get('answer'))} -> {b.get('error', b.get('answer'))}")
            continue
        change = _relative(float(a["answer"]), float(b["answer"]))
        if change > row["answer"]:
            row["answer"], row["worst"] = change, f"{key}: {a['answer']!r} -> {b['answer']!r}"
        for name in set(a["numbers"]) | set(b["numbers"]):
            if name not in a["numbers"] or name not in b["numbers"]:
                row["kind"].append(f"{key}: field {name} only in one")
                continue
            row["other"] = max(row["other"], _relative(float(a["numbers"][name]), float(b["numbers"][name])))
        if a["strings"] != b["strings"]:
            row["kind"].append(f"{key}: {a['strings']} -> {b['strings']}")
    print(f"{'bound':22s} {'answers':>7s} {'max rel. change':>16s} {'other fields':>13s} {'changed kind':>12s} budget")
    changed = False
    for bound, row in rows.items():
        print(
            f"{bound:22s} {row['n']:7d} {row['answer']:16.3g} {row['other']:13.3g} {len(row['kind']):12d} "
            f"{len(row['budget'])}"
        )
        changed = changed or row["answer"] > 0 or row["other"] > 0 or bool(row["kind"])
    for row in rows.values():
        if row["worst"]:
            print(f"  largest change: {row['worst']}")
        for line in row["kind"][:5]:
            print(f"  changed: {line}")
        for line in row["budget"][:5]:
            print(f"  budget-limited: {line}")
    overall = max((row["answer"] for row in rows.values()), default=0.0)
    print(f"largest relative change of an answer: {overall:.3g}")
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("out", nargs="?", type=Path, help="JSON file to write the answers to")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--only", help="keep the keys containing this string")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give OUT.json or --compare BEFORE AFTER")
    run(args.out, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
