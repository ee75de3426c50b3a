"""The classes of failure of the calculator's fuzz campaign (issue "reliability over the whole
box"), kept closed by property tests: each draws inputs of its class with hypothesis and runs
``shufflelib.calculator.main`` in process.

* numeric flags read plain ASCII numbers only; integers of any length, ``1e308`` and text that
  is not a number exit 2 with one line naming the flag (never 3); a repeated flag exits 2;
* exit 1 reads ``not applicable: <why>``; a ``"sound": false`` record warns ``not a valid bound
  for ...``; no Python warning reaches stderr;
* the segmented ε₀ question (λ) never falls as the target ε grows, and never exits 3;
* tiny and subnormal δ are answered like δ = 1e-300;
* ε₀ answers lie in the box ``[1e-6, 100]``;
* exact-krr stays within its budget (counted on its deterministic meter, not timed), never
  below the two-pair lower bound, and its answer for ``n`` users is never worse than its
  search's answer for ``n - 1`` (valid for ``n``).

Also: the families' lazily named bounds equal their registries.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shufflelib.bounds import krr_budget
from shufflelib.bounds.exact import CALCULATOR_WORK_LIMIT, ExactKRR, TwoPairKRRLowerBound
from shufflelib.calculator import FAMILIES, main

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
ASCII_NUMBER = re.compile(r"[ \t]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")


def ask(*argv: str) -> tuple[int, str, list[str]]:
    """``main(argv)`` with warnings as errors: (status, stdout, stderr lines)."""
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("error")
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue().splitlines()


def record(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


# ------------------------------------------------------------------ numbers and flags
#: One question per integer flag, the flag's value left to the test.
INTEGER_FLAGS = {
    "--n": ["epsilon", "--bound", "clones", "--eps0", "1", "--delta", "1e-6"],
    "--k": ["epsilon", "--bound", "stronger-clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
    "--counts": ["epsilon", "--bound", "pers-clones", "--randomizer", "rr", "--eps0", "1", "--delta", "1e-6"],
    "--dummies": ["epsilon", "--bound", "pop-tight", "--population", "poisson:1000", "--eps0", "1", "--delta", "1e-6"],
    "--d": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--s", "1", "--lam", "0.5",
            "--delta", "1e-6"],
    "--s": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--d", "17", "--lam", "0.5",
            "--delta", "1e-6"],
    "--slots": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--d", "17", "--s", "4",
                "--lam", "0.5", "--delta", "1e-6"],
    "--compose": ["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
}  # fmt: skip
REAL_FLAGS = {
    "--eps0": ["epsilon", "--bound", "clones", "--n", "1000", "--delta", "1e-6"],
    "--delta": ["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1"],
    "--eps": ["delta", "--bound", "clones", "--n", "1000", "--eps0", "1"],
    "--m": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--d", "17", "--s", "4", "--lam", "0.5",
            "--delta", "1e-6"],
    "--lam": ["epsilon", "--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--d", "17", "--s", "4",
              "--delta", "1e-6"],
}  # fmt: skip


@SETTINGS
@given(
    flag=st.sampled_from(sorted(INTEGER_FLAGS)),
    digits=st.integers(10, 5000),
    sign=st.sampled_from(["", "-", "+"]),
)
def test_integers_of_any_length_exit_2_naming_the_flag(flag, digits, sign):
    status, _, err = ask(*INTEGER_FLAGS[flag], flag, sign + "9" * digits)
    assert status == 2 and len(err) == 1 and flag in err[0] and len(err[0]) < 300, err


@pytest.mark.parametrize("flag", sorted(INTEGER_FLAGS))
@pytest.mark.parametrize("text", ["1e308", "1e400", "-1e308", "1e10"])
def test_large_floats_for_integer_flags_exit_2(flag, text):
    status, _, err = ask(*INTEGER_FLAGS[flag], flag, text)
    assert status == 2 and len(err) == 1 and flag in err[0], err


@SETTINGS
@given(
    flag=st.sampled_from(sorted({**INTEGER_FLAGS, **REAL_FLAGS})),
    text=st.one_of(
        st.text(min_size=1, max_size=12),
        st.sampled_from(["1_000", "١٠٠٠", "１０００", "1000\u00a0", "\u00a01000", "1000\u2009", "²", "0x10", "1e"]),
    ),
)
def test_text_that_is_not_an_ascii_number_is_refused(flag, text):
    head = {**INTEGER_FLAGS, **REAL_FLAGS}[flag]
    if ASCII_NUMBER.fullmatch(text) or text.strip() == "-h":
        return  # a number (the other tests), or the help
    status, _, err = ask(*head, flag, text)
    assert status == 2 and len(err) == 1, (text, err)
    assert flag in err[0], err  # the value refused, or argparse's "argument --flag: expected one argument"


@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--bound", "clones", "--n", "1000", "--n", "2000", "--eps0", "1", "--delta", "1e-6"],
        ["epsilon", "--bound", "clones", "--n=1000", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
        ["epsilon", "--bound", "clones", "--bound", "erlingsson", "--n", "1000", "--eps0", "0.4", "--delta", "1e-6"],
        ["delta", "--bound", "clones", "--n", "1000", "--eps0", "1", "--eps", "0.5", "--eps", "0.4"],
    ],
)
def test_a_repeated_flag_is_refused(argv):
    status, out, err = ask(*argv)
    assert status == 2 and not out and len(err) == 1 and "given more than once" in err[0]


@pytest.mark.parametrize("population", ["poisson:1_000", "poisson:1000\u00a0", "fixed:" + "9" * 400, "poisson:nan"])
def test_population_parameters_are_ascii_numbers(population):
    status, _, err = ask("epsilon", "--bound", "pop-meanvar", "--population", population, "--eps0", "1",
                         "--delta", "1e-6")  # fmt: skip
    assert status == 2 and len(err) == 1 and "--population" in err[0] and "\u00a0" not in err[0], err


# ------------------------------------------------------------------ answers and their words
uniform_points = st.fixed_dictionaries(
    {
        "bound": st.sampled_from(["erlingsson", "blanket-hoeffding", "blanket-bennett", "clones-closed", "clones",
                                  "variation-ratio"]),
        "n": st.integers(2, 10**9),
        "eps": st.floats(1e-12, 1e3).map(lambda x: f"{x:.6g}"),
        "delta": st.sampled_from(["5e-324", "1e-310", "1e-300", "1e-12", "1e-6", "0.5"]),
    }
)  # fmt: skip


@SETTINGS
@given(point=uniform_points)
def test_eps0_answers_lie_in_the_box_and_refusals_say_not_applicable(point):
    status, out, err = ask("eps0", "--bound", point["bound"], "--n", str(point["n"]), "--eps", point["eps"],
                           "--delta", point["delta"], "--json")  # fmt: skip
    assert status in (0, 1), err
    if status == 1:
        assert len(err) == 1 and "not applicable: " in err[0]
        return
    answer = record(out)
    assert 1e-6 <= answer["eps0"] <= 100
    if answer["sound"] is False:
        assert answer["warning"].startswith("not a valid bound for")
        assert len(err) == 1 and ": warning: not a valid bound for" in err[0]
    else:
        assert not err


@FEW
@given(
    s=st.integers(1, 8),
    d=st.integers(8, 40),
    eps=st.floats(0.05, 1e5),
    factor=st.floats(1.0, 10.0),
    accounting=st.sampled_from(["segmented-thm3", "segmented-exact"]),
)
def test_segmented_lambda_never_falls_as_the_target_grows(s, d, eps, factor, accounting):
    head = ["eps0", "--bound", accounting, "--n", "20000", "--m", "2", "--d", str(d), "--s", str(s)]
    answers = []
    for target in (eps, eps * factor):
        status, out, err = ask(*head, "--eps", repr(target), "--delta", "1e-8", "--json")
        assert status == 0, err
        answers.append(record(out)["lam"])
    # monotone across max_reporting_probability's grid levels, to its searches' tolerances between
    assert answers[1] >= answers[0] * (1 - 1e-3) - 1e-6, answers


@pytest.mark.parametrize("eps", ["30", "36", "80", "800", "1e5", "1e300"])
def test_segmented_lambda_at_large_targets(eps):
    argv = ["eps0", "--bound", "segmented-exact", "--n", "20000", "--m", "2", "--d", "30", "--s", "2"]
    status, out, err = ask(*argv, "--eps", eps, "--delta", "1e-8")
    assert status == 0 and float(out) == 1.0, (out, err)


@pytest.mark.parametrize("delta", ["5e-324", "1e-320", "2.2e-308", "1e-300"])
@pytest.mark.parametrize(
    "head",
    [
        ["--bound", "pop-poisson", "--population", "poisson:10000"],
        ["--bound", "pop-binomial", "--population", "binomial:100000,0.5"],
        ["--bound", "pop-subgaussian", "--population", "subgaussian:10000,100"],
        ["--bound", "pop-subexp", "--population", "subexp:10000,2,0.1", "--budget", "corrected"],
        ["--bound", "pop-meanvar", "--population", "meanvar:10000,10000"],
        ["--bound", "clones-closed", "--n", "10000000"],
    ],
)
def test_tiny_delta_is_answered_like_1e_300(head, delta):
    """A subnormal δ is refused exactly where δ = 1e-300 is (the condition only gets harder),
    else answered; never 'inf' in a message, never a warning."""
    status, out, err = ask("epsilon", *head, "--eps0", "2", "--delta", delta)
    reference, _, _ = ask("epsilon", *head, "--eps0", "2", "--delta", "1e-300")
    assert status in (0, 1) and not any("inf" in line for line in err), err
    if status == 0:
        assert 0 <= float(out) <= 2.0
    if reference == 1:
        assert status == 1


# ------------------------------------------------------------------ exact-krr
@FEW
@given(
    n=st.integers(1000, 3_000_000),
    eps0=st.floats(0.05, 3.0),
    delta=st.floats(1e-15, 1e-4),
    command=st.sampled_from(["epsilon", "delta", "eps0"]),
    share=st.floats(0.02, 0.5),
)
def test_exact_krr_budget_floor_and_n_minus_one(n, eps0, delta, command, share):
    bound = ExactKRR(mechanism="krr", k=2, work_limit=CALCULATOR_WORK_LIMIT)
    half = ExactKRR(mechanism="krr", k=2, work_limit=CALCULATOR_WORK_LIMIT / 2)
    first, second = {"epsilon": (eps0, delta), "delta": (eps0, eps0 * share), "eps0": (share, delta)}[command]
    before = krr_budget._METER.seconds
    value, exact = bound._answer(command, n, first, second)
    # n and n - 1, each a budget of the meter's seconds, plus at most one batch past it
    assert krr_budget._METER.seconds - before <= 4 * CALCULATOR_WORK_LIMIT
    previous = half._at(command, n - 1, first, second)[0]
    assert (value >= previous) if command == "eps0" else (value <= previous)
    lower = TwoPairKRRLowerBound(mechanism="krr", k=2)
    if command == "epsilon":
        assert value >= lower.epsilon(n, eps0, delta) * (1 - 1e-9)
    elif command == "delta":
        assert value >= lower.delta(n, first, second) * (1 - 1e-9)


def test_exact_krr_issue_corners_answer_within_the_budget():
    for argv in (
        ["delta", "--n", "50000", "--eps0", "0.6", "--eps", "0.15"],
        ["delta", "--n", "311000", "--eps0", "0.6", "--eps", "0.15"],
        ["eps0", "--n", "100000000", "--eps", "0.01", "--delta", "1e-150"],
    ):
        before = krr_budget._METER.seconds
        status, out, err = ask(argv[0], "--bound", "exact-krr", *argv[1:])
        assert status == 0 and math.isfinite(float(out))
        assert krr_budget._METER.seconds - before <= 4 * CALCULATOR_WORK_LIMIT
        assert all(": warning: not exact: " in line for line in err)


# ------------------------------------------------------------------ the families' names
def test_the_families_name_exactly_their_registries():
    for family in FAMILIES:
        names = list(family.bounds)
        classes = [family.bounds[name] for name in names]  # loads the registry: checks the names
        assert [cls.name for cls in classes if hasattr(cls, "name")] == names[: len(classes)]


# ------------------------------------------------------------------ valid input of every family
#: What a message of the calculator never shows: a Python repr, a traceback, a path, ``inf``; and a
#: Python-only option unless the message names its flag too.
INTERNALS = re.compile(r"np\.\w+\(|array\(|\b[A-Z][A-Za-z]+\([a-z_]+=|<[a-z]+ '|\bself\b|Traceback|\.py\b|\binf\b")
PYTHON_ONLY = re.compile(r"\b(?:budget|rule|work_limit)=")
BOUND_NAME = re.compile(r"\b(?:pop|pers|segmented)-[a-z0-9-]+")


def number(x: float) -> str:
    return f"{x:.6g}"


eps0s = st.one_of(st.floats(1e-3, 10.0), st.sampled_from([1e-6, 1e-5, 50.0, 100.0]))
deltas = st.one_of(st.floats(1e-20, 0.1), st.sampled_from([5e-324, 2.2e-308, 1e-150, 0.5, 0.99]))
sizes = st.one_of(st.integers(2, 10**9).map(lambda n: n if n < 10**4 else int(float(f"{n:.2g}"))),
                  st.sampled_from([2, 3, 10**9]))  # fmt: skip


@st.composite
def tails(draw, command: str, eps0_flag: str = "--eps0", levels: str | None = None) -> list[str]:
    """The question's own flags: (eps0, delta), (eps0, eps) or (eps, delta)."""
    eps0 = levels if levels is not None else number(draw(eps0s))
    if command == "epsilon":
        return [eps0_flag, eps0, "--delta", number(draw(deltas))]
    if command == "delta":
        return [eps0_flag, eps0, "--eps", number(draw(st.floats(1e-4, 30.0)))]
    scaled = [eps0_flag, levels] if levels is not None else []  # a personalized eps0 question scales its levels
    return [*scaled, "--eps", number(draw(st.one_of(st.floats(1e-4, 30.0), st.sampled_from([1e-9, 1e3, 1e300])))),
            "--delta", number(draw(deltas))]  # fmt: skip


UNIFORM_MECHANISMS = {
    "erlingsson": ["generic"], "blanket-hoeffding": ["generic", "laplace", "krr"],
    "blanket-bennett": ["generic", "laplace", "krr"], "clones-closed": ["generic"], "clones": ["generic"],
    "stronger-clones": ["krr"], "thinned-clones": ["krr"], "krr-two-pair-lower": ["krr"],
    "variation-ratio": ["generic", "laplace", "krr"],
}  # fmt: skip


@st.composite
def uniform_questions(draw) -> list[str]:
    command = draw(st.sampled_from(["epsilon", "delta", "eps0"]))
    bound = draw(st.sampled_from(sorted(UNIFORM_MECHANISMS)))
    mechanism = draw(st.sampled_from(UNIFORM_MECHANISMS[bound]))
    head = [command, "--bound", bound, "--n", str(draw(sizes)), "--mechanism", mechanism]
    if mechanism == "krr":
        head += ["--k", str(draw(st.one_of(st.just(2), st.integers(3, 10**6))))]
    return [*head, *draw(tails(command))]


@st.composite
def personalized_questions(draw) -> list[str]:
    command = draw(st.sampled_from(["epsilon", "delta", "eps0"]))
    bound = draw(st.sampled_from(["pers-liu24", "pers-liu24-printed", "pers-liu24-pair", "pers-clones", "pers-fv",
                                  "pers-blanket", "pers-gdp", "pers-lzx"]))  # fmt: skip
    levels = sorted(set(draw(st.lists(st.floats(1e-3, 10.0).map(lambda x: float(number(x))), min_size=1,
                                      max_size=4))))  # fmt: skip
    counts = [draw(st.integers(1, 10**6)) for _ in levels]
    counts[0] = max(counts[0], 2)
    randomizer = draw(st.sampled_from(["rr", "laplace", "gaussian"]))
    head = [command, "--bound", bound, "--randomizer", randomizer, "--counts", ",".join(map(str, counts))]
    if randomizer == "gaussian":
        head += ["--calibration", draw(st.sampled_from(["classical", "analytic"])),
                 "--delta0", number(draw(st.floats(1e-12, 1e-2)))]  # fmt: skip
    return [*head, *draw(tails(command, levels=",".join(number(x) for x in levels)))]


@st.composite
def population_questions(draw) -> list[str]:
    command = draw(st.sampled_from(["epsilon", "delta", "eps0"]))
    bound, forms = draw(st.sampled_from([
        ("pop-binomial", ["binomial"]), ("pop-poisson", ["poisson"]),
        ("pop-meanvar", ["fixed", "binomial", "poisson", "negbin", "meanvar"]),
        ("pop-subgaussian", ["binomial", "poisson", "subgaussian"]), ("pop-subexp", ["subexp"]),
        ("pop-tight", ["fixed", "binomial", "poisson", "negbin"]),
        ("pop-exact-rr", ["fixed", "binomial", "poisson", "negbin"]),
    ]))  # fmt: skip
    form = draw(st.sampled_from(forms))
    mean = draw(st.integers(2, 10**7))
    spread = draw(st.floats(1.01, 100.0))
    law = {
        "fixed": f"fixed:{mean}",
        "binomial": f"binomial:{mean},{draw(st.sampled_from(['1', '0.5', '0.01']))}",
        "poisson": f"poisson:{mean}",
        "negbin": f"negbin:{mean},{number(mean * spread)}",
        "meanvar": f"meanvar:{mean},{number(mean * spread)}",
        "subgaussian": f"subgaussian:{mean},{number(math.sqrt(mean) * spread)}",
        "subexp": f"subexp:{mean},2,{number(draw(st.floats(1e-6, 1.0)))}",
    }[form]
    head = [command, "--bound", bound, "--population", law]
    if draw(st.booleans()):
        head += ["--dummies", str(draw(st.integers(1, 1000))),
                 "--dummy-mode", draw(st.sampled_from(["nonadaptive", "adaptive"]))]  # fmt: skip
    return [*head, *draw(tails(command))]


@st.composite
def segmented_questions(draw) -> list[str]:
    command = draw(st.sampled_from(["epsilon", "delta", "eps0"]))
    d = draw(st.integers(3, 64))
    head = [command, "--bound", draw(st.sampled_from(["segmented-thm3", "segmented-exact"])),
            "--n", str(draw(st.integers(100, 10**7))), "--m", number(draw(st.floats(0.1, 10.0))),
            "--d", str(d), "--s", str(draw(st.integers(1, min(d, 8))))]  # fmt: skip
    lam = number(draw(st.floats(0.0, 1.0)))
    if command == "epsilon":
        return [*head, "--lam", lam, "--delta", number(draw(deltas))]
    if command == "delta":
        return [*head, "--lam", lam, "--eps", number(draw(st.floats(1e-3, 100.0)))]
    return [*head, "--eps", number(draw(st.floats(1e-3, 1e4))), "--delta", number(draw(deltas))]


def assert_answered_in_words(argv: list[str]) -> dict | None:
    """A valid question answers (exit 0) or says why not (exit 1), in the documented words."""
    status, out, err = ask(*argv, "--json")
    assert status in (0, 1), (argv, err)  # never 2 (valid input) or 3 (internal)
    assert len(err) <= 1, (argv, err)  # one line at most: no Python warning, no traceback
    for line in err:
        assert not INTERNALS.search(line), (argv, line)
        assert not PYTHON_ONLY.search(line) or "--" in line.split(": ", 1)[-1], (argv, line)  # its flag named
        assert set(BOUND_NAME.findall(line)) <= set().union(*(family.bounds for family in FAMILIES)), line
    if status == 1:
        assert "not applicable: " in err[0], (argv, err)
        return None
    answer = record(out)
    key = {"epsilon": "eps", "delta": "delta", "eps0": "lam" if "lam" in answer else "eps0"}[argv[0]]
    value = answer[key]
    assert isinstance(value, (int, float)) and math.isfinite(value) and value >= 0, (argv, answer)
    if key == "eps0":
        assert 1e-6 <= value <= 100, (argv, answer)
    elif key in ("delta", "lam"):
        assert value <= 1, (argv, answer)
    if answer.get("sound") is False:
        assert answer["warning"].startswith("not a valid bound for"), (argv, answer)
    for line in err:
        assert ": warning: not a valid bound for" in line or ": warning: not exact: " in line, (argv, line)
    return answer


@FEW
@given(argv=st.one_of(uniform_questions(), personalized_questions(), population_questions(),
                      segmented_questions()))  # fmt: skip
def test_valid_input_of_every_family_is_answered_in_the_documented_words(argv):
    """Issue 30, items 3-5, 7 and 8 together: any point of the box, in any family, exits 0 with a
    finite answer in range, or 1 with 'not applicable: <why>'; warnings in the documented forms."""
    assert_answered_in_words(argv)


@FEW
@given(argv=uniform_questions().filter(lambda a: a[0] == "eps0"))
def test_an_eps0_answer_is_one_the_epsilon_question_accepts(argv):
    """Round trip (item 7): the epsilon question at the answered eps0 and the same delta answers,
    and its epsilon is at most the target."""
    answer = assert_answered_in_words(argv)
    if answer is None:
        return
    eps, delta = argv[argv.index("--eps") + 1], argv[argv.index("--delta") + 1]
    head = [word for word in argv[1 : argv.index("--eps")]]
    status, out, err = ask("epsilon", *head, "--eps0", repr(answer["eps0"]), "--delta", delta)
    assert status == 0, (argv, err)
    assert float(out) <= float(eps) * (1 + 1e-9) + 1e-12, (argv, answer, out)


@FEW
@given(
    bound=st.sampled_from(["stronger-clones", "thinned-clones", "blanket-bennett", "blanket-hoeffding", "clones",
                           "variation-ratio"]),
    n=st.integers(2, 10**7),
    eps0=st.floats(0.01, 5.0),
    delta=st.floats(1e-12, 1e-2),
)  # fmt: skip
def test_no_upper_bound_is_below_the_two_pair_lower_bound(bound, n, eps0, delta):
    """Binary randomized response: every bound's epsilon is at least the k-RR two-pair lower bound."""
    mech = ["--mechanism", "krr", "--k", "2"]
    tail = ["--n", str(n), "--eps0", repr(eps0), "--delta", repr(delta)]
    status, out, err = ask("epsilon", "--bound", bound, *(mech if "krr" in UNIFORM_MECHANISMS[bound] else []), *tail)
    low_status, low, _ = ask("epsilon", "--bound", "krr-two-pair-lower", *mech, *tail)
    assert status in (0, 1) and low_status in (0, 1), err
    if status == 0 and low_status == 0:
        assert float(out) >= float(low) * (1 - 1e-9), (bound, out, low)
