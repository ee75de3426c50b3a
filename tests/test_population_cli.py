"""The random-population bounds in the calculator (``python -m shufflelib --bound pop-...``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shufflelib.bounds.base import NotApplicableError
from shufflelib.calculator import main
from shufflelib.calculator.population import (
    POPULATION_FORMS,
    PopulationFamily,
    parse_population,
)

ROOT = Path(__file__).resolve().parents[1]
POPULATIONS = {
    "pop-binomial": "binomial:48842,0.2",
    "pop-poisson": "poisson:5000",
    "pop-meanvar": "negbin:50000,80000",
    "pop-subgaussian": "poisson:5000",
    "pop-subexp": "subexp:5000,2,0.05",
    "pop-tight": "poisson:5000",
    "pop-exact-rr": "binomial:10001,0.5",
}
ARGS = {
    "epsilon": ("eps0", "delta", ["--eps0", "1", "--delta", "1e-5"]),
    "delta": ("eps0", "eps", ["--eps0", "1", "--eps", "0.15"]),
    "eps0": ("eps", "delta", ["--eps", "0.15", "--delta", "1e-5"]),
}
ANSWER = {"epsilon": "eps", "delta": "delta", "eps0": "eps0"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("command", list(ARGS))
@pytest.mark.parametrize("bound", list(POPULATIONS))
def test_each_question_prints_the_library_value(capsys, bound, command):
    model = PopulationFamily().build(bound, POPULATIONS[bound], 0, "nonadaptive")
    _, _, argv = ARGS[command]
    values = [float(argv[1]), float(argv[3])]
    ask = {"epsilon": model.epsilon, "delta": model.delta, "eps0": model.max_eps0}[command]
    try:
        expected = ask(*values)
    except NotApplicableError:
        expected = None
    status, out, err = run(capsys, command, "--bound", bound, "--population", POPULATIONS[bound], *argv, "--json")
    if expected is None:
        assert status == 1 and "not applicable" in err
        return
    record = json.loads(out)
    # A bound the library flags (Theorem 4(c)/(d) with the paper's 5 delta/4 budget) warns on stderr.
    reason = model.soundness()
    assert status == 0 and record["sound"] is (reason is None)
    assert err == ("" if reason is None else f"shufflelib {command}: warning: {reason}\n")
    assert record[ANSWER[command]] == expected
    assert record["population"] == POPULATIONS[bound] and record["dummies"] == 0


def test_dummies_and_adaptive_padding(capsys):
    argv = ["epsilon", "--bound", "pop-binomial", "--population", "binomial:5001,0.2", "--eps0", "1", "--delta", "1e-5"]
    _, plain, _ = run(capsys, *argv)
    _, more, _ = run(capsys, *argv, "--dummies", "2000")
    _, padded, _ = run(capsys, *argv, "--dummies", "3000", "--dummy-mode", "adaptive")
    assert float(more) < float(plain) and float(padded) < float(plain)


def test_help_names_every_population_and_bound(capsys):
    status = main(["epsilon", "--help"])
    out = capsys.readouterr().out
    assert status == 0
    for name in POPULATION_FORMS:
        assert f"{name}:" in out
    for bound in POPULATIONS:
        assert bound in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bound", "pop-binomial", "--population", "poisson:5000"], "binomial population"),
        (["--bound", "pop-tight", "--population", "meanvar:5000,100"], "full law"),
        (["--bound", "pop-poisson", "--population", "poisson:5000,3"], "takes 1 parameters"),
        (["--bound", "pop-poisson", "--population", "gamma:5"], "population must be one of"),
        (["--bound", "pop-poisson", "--population", "poisson:-5"], "lam"),
        (["--bound", "pop-poisson", "--population", "poisson:500", "--dummies", "x"], "dummies"),
        (["--bound", "pop-poisson"], "--population is required"),
        (["--bound", "clones", "--n", "1000", "--population", "poisson:5"], "--population is not used"),
    ],
)
def test_bad_arguments_exit_with_status_2(capsys, argv, message):
    status, out, err = run(capsys, "epsilon", *argv, "--eps0", "1", "--delta", "1e-5")
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_parse_population_reads_integers_and_reals():
    assert parse_population("fixed:99").others == 99
    with pytest.raises(ValueError, match="n_prime must be an integer"):
        parse_population("binomial:1000.5,0.2")


def test_module_entry_point():
    """``python -m shufflelib`` runs this module's family (the registration is not circular)."""
    argv = ["epsilon", "--bound", "pop-poisson", "--population", "poisson:5000", "--eps0", "1", "--delta", "1e-5"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "shufflelib", *argv], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.strip().splitlines()[-1]) == pytest.approx(0.12555, abs=5e-6)


@pytest.mark.parametrize(
    ("head", "eps0", "reason"),
    [
        (["--bound", "pop-poisson", "--population", "poisson:2"], "1", "requires Omega > 2 log(4/delta) = 4.159"),
        (["--bound", "pop-binomial", "--population", "binomial:3,0.5"], "1", "requires Omega >"),
        (["--bound", "pop-subexp", "--population", "subexp:2,2,0.1"], "1", "no participant left"),
        (["--bound", "pop-poisson", "--population", "poisson:30"], "0.2", "gives no eps below eps0 = 0.2"),
    ],
)
@pytest.mark.parametrize("question", [["epsilon", "--delta", "1e-6"], ["delta", "--eps", "0.5"]])
def test_composed_round_too_small_says_why(capsys, head, eps0, reason, question):
    """A population too small for any round of the composition is refused in the theorem's words
    (composition reads a round's eps at every delta up to 1/2: the reason at delta = 1/2), not
    with composition's internal 'infinite on the whole delta grid'."""
    status, out, err = run(capsys, question[0], *head, "--eps0", eps0, *question[1:], "--compose", "10")
    assert status == 1 and out == ""
    assert f"{head[1]} bound not applicable: the population {head[3]} is too small for eps0" in err
    assert reason in err and "delta grid" not in err
