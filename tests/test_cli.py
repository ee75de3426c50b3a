"""Tests of the privacy calculator ``python -m shufflelib`` (:mod:`shufflelib.calculator`)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

from shufflelib.bounds import BOUNDS, NotApplicableError, get_bound
from shufflelib.calculator import FAMILIES, Argument, Family, Number, Question, main
from shufflelib.calculator.cli import BAD_ARGUMENTS, INTERNAL_ERROR, NOT_APPLICABLE

N, EPS0, DELTA, EPS = 10_000, 0.4, 1e-6, 0.3


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def default_model(name: str):
    """The bound the CLI builds when neither --mechanism nor --k is given."""
    mechanisms = BOUNDS[name].mechanisms
    mechanism = "generic" if "generic" in mechanisms else mechanisms[0]
    return get_bound(name, mechanism, 2 if mechanism == "krr" else None)


def library_answer(model, command: str):
    """The library's answer, or the NotApplicableError it raises."""
    ask = {
        "epsilon": lambda: model.epsilon(N, EPS0, DELTA),
        "delta": lambda: model.delta(N, EPS0, EPS),
        "eps0": lambda: model.max_eps0(N, EPS, DELTA),
    }[command]
    try:
        return ask()
    except NotApplicableError as exc:
        return exc


ARGS = {
    "epsilon": ["--n", str(N), "--eps0", str(EPS0), "--delta", str(DELTA)],
    "delta": ["--n", str(N), "--eps0", str(EPS0), "--eps", str(EPS)],
    "eps0": ["--n", str(N), "--eps", str(EPS), "--delta", str(DELTA)],
}
ANSWER_KEY = {"epsilon": "eps", "delta": "delta", "eps0": "eps0"}


@pytest.mark.parametrize("command", ["epsilon", "delta", "eps0"])
@pytest.mark.parametrize("name", list(BOUNDS))
def test_each_question_prints_the_library_value(capsys, name, command):
    model = default_model(name)
    expected = library_answer(model, command)
    status, out, err = run(capsys, command, "--bound", name, *ARGS[command])
    # One warning line where the value is not a valid bound, or (exact-krr) not exact.
    inputs = [float(a) for a in ARGS[command][3::2]]
    warns = not model.sound or (hasattr(model, "is_exact") and not model.is_exact(N, command, *inputs))
    if isinstance(expected, NotApplicableError):
        assert status == 1 and out == ""
        assert err.count("\n") == 1 and "not applicable" in err
    else:
        assert status == 0 and (err.count("\n") == 1 and ": warning: " in err if warns else err == "")
        assert float(out.splitlines()[-1]) == expected  # repr round-trips exactly
        assert out.splitlines()[-1] == repr(expected)


@pytest.mark.parametrize("command", ["epsilon", "delta", "eps0"])
def test_json_record_matches_the_library(capsys, command):
    name = "clones" if "clones" in BOUNDS else next(iter(BOUNDS))
    status, out, err = run(capsys, command, "--bound", name, *ARGS[command], "--json")
    assert status == 0 and err == ""
    record = json.loads(out)
    model = default_model(name)
    assert record["question"] == command
    assert record["bound"] == name and record["mechanism"] == model.mechanism and record["k"] == model.k
    assert record["n"] == N
    inputs = {
        "epsilon": {"eps0": EPS0, "delta": DELTA},
        "delta": {"eps0": EPS0, "eps": EPS},
        "eps0": {"eps": EPS, "delta": DELTA},
    }[command]
    for key, value in inputs.items():
        assert record[key] == value
    assert record[ANSWER_KEY[command]] == library_answer(model, command)


def test_exact_krr_defaults_to_binary_randomized_response(capsys):
    status, out, _ = run(capsys, "epsilon", "--bound", "exact-krr", *ARGS["epsilon"], "--json")
    record = json.loads(out)
    assert status == 0 and (record["mechanism"], record["k"]) == ("krr", 2)
    assert record["eps"] == get_bound("exact-krr", "krr", 2).epsilon(N, EPS0, DELTA)
    status, out, _ = run(capsys, "epsilon", "--bound", "exact-krr", *ARGS["epsilon"], "--k", "5", "--json")
    record = json.loads(out)
    assert status == 0 and record["k"] == 5
    assert record["eps"] == get_bound("exact-krr", "krr", 5).epsilon(N, EPS0, DELTA)


def test_explicit_mechanism_and_k(capsys):
    name = next(n for n, cls in BOUNDS.items() if "krr" in cls.mechanisms and "generic" in cls.mechanisms)
    status, out, _ = run(capsys, "epsilon", "--bound", name, *ARGS["epsilon"], "--mechanism", "krr", "--k", "3")
    expected = get_bound(name, "krr", 3).epsilon(N, EPS0, DELTA)
    assert status == 0 and out.splitlines()[-1] == repr(expected)


def test_scientific_notation_for_n(capsys):
    status, out, _ = run(capsys, "epsilon", "--bound", "exact-krr", "--n", "1e4", "--eps0", "0.4", "--delta", "1e-6")
    assert status == 0
    assert float(out) == get_bound("exact-krr", "krr", 2).epsilon(10_000, 0.4, 1e-6)


# ------------------------------------------------------------------ errors
BAD = [
    (["epsilon", "--bound", "nope", *ARGS["epsilon"]], "--bound"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "0", "--delta", "1e-6"], "eps0"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "-1", "--delta", "1e-6"], "eps0"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "nan", "--delta", "1e-6"], "eps0"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "abc", "--delta", "1e-6"], "eps0"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "1", "--delta", "0"], "delta"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "1", "--delta", "1"], "delta"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "1", "--delta", "NaN"], "delta"),
    (["epsilon", "--bound", "exact-krr", "--n", "1", "--eps0", "1", "--delta", "1e-6"], "n"),
    (["epsilon", "--bound", "exact-krr", "--n", "2.5", "--eps0", "1", "--delta", "1e-6"], "n"),
    (["delta", "--bound", "exact-krr", "--n", "100", "--eps0", "1", "--eps", "-0.5"], "eps"),
    (["eps0", "--bound", "exact-krr", "--n", "100", "--eps", "0", "--delta", "1e-6"], "eps"),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "1", "--delta", "1e-6", "--k", "1"], "k"),
    (
        [
            "epsilon",
            "--bound",
            "exact-krr",
            "--n",
            "100",
            "--eps0",
            "1",
            "--delta",
            "1e-6",
            "--mechanism",
            "generic",
        ],
        "mechanism",
    ),
    (
        [
            "epsilon",
            "--bound",
            "exact-krr",
            "--n",
            "100",
            "--eps0",
            "1",
            "--delta",
            "1e-6",
            "--mechanism",
            "foo",
        ],
        "--mechanism",
    ),
    (["epsilon", "--bound", "exact-krr", "--n", "100", "--eps0", "1"], "--delta"),
    (["epsilon", "--bound", "exact-krr", *ARGS["epsilon"], "--eps", "1"], "--eps"),
    (["volume", "--bound", "exact-krr"], "volume"),
    ([], "required"),
]


@pytest.mark.parametrize("argv, word", BAD)
def test_bad_arguments_exit_2_with_one_line(capsys, argv, word):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.endswith("\n")
    assert word in err and "Traceback" not in err


def test_mechanism_not_covered_by_the_bound_exits_2(capsys):
    name, cls = next((n, c) for n, c in BOUNDS.items() if "laplace" not in c.mechanisms)
    status, _, err = run(capsys, "epsilon", "--bound", name, *ARGS["epsilon"], "--mechanism", "laplace")
    assert status == 2 and err.count("\n") == 1 and "mechanism" in err


def _not_applicable_case():
    """A bound and parameters outside its theorem's validity range."""
    for name in BOUNDS:
        model = default_model(name)
        for n in (2, 10, 1000):
            for eps0 in (0.6, 3.0, 20.0):
                if model.validity(n, eps0, 1e-6) is not None:
                    return name, n, eps0
    pytest.fail("no bound has a restricted validity range: nothing to test")


def test_not_applicable_exits_1_with_one_line(capsys):
    name, n, eps0 = _not_applicable_case()
    status, out, err = run(capsys, "epsilon", "--bound", name, "--n", str(n), "--eps0", str(eps0), "--delta", "1e-6")
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "not applicable" in err and "Traceback" not in err


# ------------------------------------------------------------------ help
def test_help_lists_every_bound_with_title_and_reference():
    proc = subprocess.run(
        [sys.executable, "-m", "shufflelib", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    text = " ".join(proc.stdout.split())  # undo line wrapping
    for name, cls in BOUNDS.items():
        assert name in text and " ".join(cls.title.split()) in text and " ".join(cls.reference.split()) in text
    for command in ("epsilon", "delta", "eps0"):
        assert command in text


@pytest.mark.parametrize("command", ["epsilon", "delta", "eps0"])
def test_subcommand_help(capsys, command):
    status, out, _ = run(capsys, command, "--help")
    text = " ".join(out.split())
    assert status == 0
    for flag in ("--bound", "--n", "--mechanism", "--k", "--json", *ARGS[command][2::2]):
        assert flag in text
    for cls in BOUNDS.values():
        assert " ".join(cls.title.split()) in text


# ------------------------------------------------------------------ extension
@dataclass
class _Toy:
    """A bound taking a personalized population: eps = max(eps0) / sqrt(sum(counts))."""

    title = "Toy personalized bound"
    reference = "Nobody (2099)"


class _ToyFamily(Family):
    bounds = {"toy": _Toy}

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        return (
            Argument("--eps0", "comma-separated local eps0 values", "LIST", number=Number(low=0, many=True)),
            Argument("--counts", "number of users of each eps0", "LIST", number=Number(integer=True, low=1, many=True)),
            Argument("--delta", "central delta", "DELTA"),
        )

    def answer(self, question, bound, values):
        eps0, counts = values["eps0"], values["counts"]
        if len(eps0) != len(counts):
            raise ValueError("counts must have one entry per eps0")
        return {
            "bound": bound,
            "eps0": eps0,
            "counts": counts,
            question.answer: max(eps0) / sum(counts) ** 0.5,
        }


def test_a_new_family_registers_its_own_arguments(capsys, monkeypatch):
    monkeypatch.setattr("shufflelib.calculator.registry.FAMILIES", [*FAMILIES, _ToyFamily()])
    status, out, _ = run(capsys, "epsilon", "--bound", "toy", "--eps0", "1,4", "--counts", "10,6", "--delta", "0.1")
    assert status == 0 and float(out) == 1.0
    status, out, _ = run(capsys, "epsilon", "--bound", "toy", "--eps0", "1", "--counts", "1,2", "--delta", "0.1")
    assert status == 2
    # --n is no longer required by every family, but still by the uniform one; --counts is the toy's only.
    status, _, err = run(capsys, "epsilon", "--bound", "exact-krr", "--eps0", "1", "--delta", "0.1")
    assert status == 2 and "--n is required" in err
    status, _, err = run(capsys, "epsilon", "--bound", "exact-krr", *ARGS["epsilon"], "--counts", "3")
    assert status == 2 and "--counts is not used" in err
    status, _, err = run(
        capsys, "epsilon", "--bound", "toy", "--eps0", "1", "--counts", "2", "--delta", "0.1", "--n", "5"
    )
    assert status == 2 and "--n is not used" in err
    # The toy's own parser names the flag and the range.
    status, _, err = run(capsys, "epsilon", "--bound", "toy", "--eps0", "1", "--counts", "0", "--delta", "0.1")
    assert status == 2 and "--counts must be a comma-separated list of integers >= 1, got '0'" in err


class _Broken(_ToyFamily):
    bounds = {"broken": _Toy}

    def answer(self, question, bound, values):
        return {"bound": bound, question.answer: 1 / 0}


def test_an_unexpected_exception_is_one_line_with_status_3(capsys, monkeypatch):
    monkeypatch.setattr("shufflelib.calculator.registry.FAMILIES", [*FAMILIES, _Broken()])
    status, out, err = run(capsys, "epsilon", "--bound", "broken", "--eps0", "1", "--counts", "2", "--delta", "0.1")
    assert status == INTERNAL_ERROR and status not in (0, NOT_APPLICABLE, BAD_ARGUMENTS)
    assert out == "" and err.count("\n") == 1 and "internal error: ZeroDivisionError" in err
    assert "Traceback" not in err


class _Unsound(_ToyFamily):
    bounds = {"unsound": _Toy}

    def answer(self, question, bound, values):
        return {"bound": bound, "warning": "not a proven bound", question.answer: 0.5}


def test_a_warning_is_printed_on_stderr_with_the_answer(capsys, monkeypatch):
    monkeypatch.setattr("shufflelib.calculator.registry.FAMILIES", [*FAMILIES, _Unsound()])
    status, out, err = run(capsys, "epsilon", "--bound", "unsound", "--eps0", "1", "--counts", "2", "--delta", "0.1")
    assert status == 0 and float(out) == 0.5
    assert err == "shufflelib epsilon: warning: not a proven bound\n"


def test_a_long_value_is_not_echoed_in_full(capsys):
    status, _, err = run(capsys, "epsilon", "--bound", "x" * 100_000, *ARGS["epsilon"])
    assert status == 2 and err.count("\n") == 1 and len(err) < 1000 and "100002 characters" in err
    status, _, err = run(
        capsys, "epsilon", "--bound", "clones", "--n", "1" * 100_000 + "x", "--eps0", "1", "--delta", "0.1"
    )
    assert status == 2 and len(err) < 1000 and "--n must be an integer in [2, 1e9]" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n", "1", "--eps0", "1", "--delta", "0.1"], "--n must be an integer in [2, 1e9], got '1'"),
        (["--n", "10", "--eps0", "-1", "--delta", "0.1"], "--eps0 must be a number in [1e-6, 100], got '-1'"),
        (["--n", "10", "--eps0", "1", "--delta", "1"], "--delta must be a number in (0, 1), got '1'"),
        (["--n", "10", "--eps0", "inf", "--delta", "0.1"], "--eps0 must be a number in [1e-6, 100], got 'inf'"),
        (["--n", "-inf", "--eps0", "1", "--delta", "0.1"], "--n must be an integer in [2, 1e9], got '-inf'"),
        (["--n", "10", "--eps0", "-1e-3", "--delta", "0.1"], "--eps0 must be a number in [1e-6, 100], got '-1e-3'"),
    ],
)
def test_errors_name_the_flag_and_the_range(capsys, argv, message):
    status, _, err = run(capsys, "epsilon", "--bound", "clones", *argv)
    assert status == 2 and message in err


def test_the_module_entry_point_is_the_calculator():
    proc = subprocess.run(
        [sys.executable, "-m", "shufflelib", "epsilon", "--bound", "clones", *ARGS["epsilon"]],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert float(proc.stdout) == get_bound("clones", "generic", None).epsilon(N, EPS0, DELTA)
