"""Every calculator family through a table of bad and extreme inputs: no traceback, no warning,
the documented exit status (0 answered, 1 not applicable, 2 bad arguments) and a one-line message.

Outside the box of :mod:`shufflelib._validation` the message names the parameter and its range;
where no finite ε exists the answer is a refusal (status 1), never ``inf``.
"""

from __future__ import annotations

import math
import warnings

import pytest

from shufflelib.__main__ import main

SEG2 = ["--bound", "segmented-exact", "--n", "2", "--m", "1.5", "--d", "17", "--s", "4"]
PERS = ["--randomizer", "rr"]
CASES = [
    # uniform family: the box's edges
    (["epsilon", "--bound", "clones", "--n", "1e18", "--eps0", "1", "--delta", "1e-6"], 2, "n must be"),
    (["epsilon", "--bound", "blanket-bennett", "--n", "1e20", "--eps0", "1", "--delta", "1e-6"], 2, "n must be"),
    (["epsilon", "--bound", "exact-krr", "--k", "3", "--n", "1e19", "--eps0", "1", "--delta", "1e-6"], 2, "n must"),
    (["epsilon", "--bound", "blanket-bennett", "--n", "1000", "--eps0", "1e308", "--delta", "1e-6"], 2, "eps0 must"),
    (["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "5e-324", "--delta", "1e-6"], 2, "eps0 must"),
    (["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "nan", "--delta", "1e-6"], 2, "eps0 must"),
    (["epsilon", "--bound", "clones", "--n", "1", "--eps0", "1", "--delta", "1e-6"], 2, "n must be"),
    (["epsilon", "--bound", "clones", "--n", "2.5", "--eps0", "1", "--delta", "1e-6"], 2, "n must be"),
    (["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1", "--delta", "0"], 2, "delta must"),
    (["delta", "--bound", "clones", "--n", "1000", "--eps0", "1", "--eps", "-1"], 2, "eps must"),
    (
        [
            "epsilon",
            "--bound",
            "blanket-bennett",
            "--mechanism",
            "krr",
            "--k",
            "1e20",
            "--n",
            "5",
            "--eps0",
            "3",
            "--delta",
            "0.1",
        ],
        2,
        "k must",
    ),
    (["epsilon", "--bound", "erlingsson", "--n", "10000", "--eps0", "2", "--delta", "1e-6"], 1, "not applicable"),
    (["epsilon", "--bound", "clones-closed", "--n", "1000000", "--eps0", "1", "--delta", "1e-308"], 0, None),
    (["epsilon", "--bound", "clones-closed", "--n", "1000000", "--eps0", "1", "--delta", "5e-324"], 0, None),
    (["eps0", "--bound", "clones", "--n", "10000", "--eps", "0.5", "--delta", "5e-324"], 0, None),
    # personalized family
    (["epsilon", "--bound", "pers-liu24", *PERS, "--eps0", "1", "--counts", "2", "--delta", "0.25"], 0, None),
    (
        ["epsilon", "--bound", "pers-clones", *PERS, "--eps0", "1000,1000", "--counts", "10,10", "--delta", "1e-6"],
        2,
        "eps0 must",
    ),
    (["epsilon", "--bound", "pers-clones", *PERS, "--eps0", "1", "--counts", "1", "--delta", "1e-6"], 2, "counts"),
    (["epsilon", "--bound", "pers-clones", *PERS, "--eps0", "1", "--counts", "2e9", "--delta", "1e-6"], 2, "counts"),
    (
        ["epsilon", "--bound", "pers-clones", *PERS, "--eps0", "1", "--counts", "2", "--delta0", "2", "--delta", "0.1"],
        2,
        "delta0 must",
    ),
    (
        ["epsilon", "--bound", "pers-clones", *PERS, "--eps0", "0,1", "--counts", "5,5", "--delta", "0.1"],
        2,
        "eps0 must",
    ),
    (
        [
            "epsilon",
            "--bound",
            "pers-fv",
            "--randomizer",
            "gaussian",
            "--calibration",
            "analytic",
            "--delta0",
            "1e-8",
            "--eps0",
            "0.5,1",
            "--counts",
            "5000,5000",
            "--delta",
            "1e-6",
        ],
        None,
        None,
    ),
    (
        [
            "epsilon",
            "--bound",
            "pers-clones",
            "--randomizer",
            "gaussian",
            "--delta0",
            "1e-8",
            "--eps0",
            "0.5,1",
            "--counts",
            "5000,5000",
            "--delta",
            "1e-14",
        ],
        None,
        None,
    ),
    (
        [
            "epsilon",
            "--bound",
            "pers-clones",
            "--randomizer",
            "gaussian",
            "--delta0",
            "1e-3",
            "--eps0",
            "0.5,1",
            "--counts",
            "5,5",
            "--delta",
            "1e-300",
        ],
        None,
        None,
    ),
    (["epsilon", "--bound", "pers-gdp", *PERS, "--eps0", "9", "--counts", "2", "--delta", "0.125"], 0, None),
    (
        [
            "eps0",
            "--bound",
            "pers-clones",
            *PERS,
            "--eps0",
            "1",
            "--counts",
            "1000000000",
            "--eps",
            "0.1",
            "--delta",
            "1e-6",
        ],
        0,
        None,
    ),
    # population family
    (["epsilon", "--bound", "pop-tight", "--population", "poisson:1e300", "--eps0", "1", "--delta", "1e-6"], 2, "lam"),
    (["epsilon", "--bound", "pop-tight", "--population", "fixed:1e20", "--eps0", "1", "--delta", "1e-6"], 2, "others"),
    (
        [
            "epsilon",
            "--bound",
            "pop-tight",
            "--population",
            "poisson:5000",
            "--dummies",
            "1e20",
            "--eps0",
            "1",
            "--delta",
            "1e-6",
        ],
        2,
        "dummies",
    ),
    (
        ["epsilon", "--bound", "pop-meanvar", "--population", "meanvar:1e300,1", "--eps0", "1", "--delta", "1e-6"],
        2,
        "mean",
    ),
    (
        ["epsilon", "--bound", "pop-tight", "--population", "poisson:5000", "--eps0", "5e-324", "--delta", "1e-6"],
        2,
        "eps0 must",
    ),
    (
        ["eps0", "--bound", "pop-binomial", "--population", "binomial:100,0.2", "--eps", "0.1", "--delta", "1e-6"],
        1,
        "not applicable",
    ),
    # segmented family
    (
        [
            "epsilon",
            "--bound",
            "segmented-exact",
            "--n",
            "2",
            "--m",
            "1.5",
            "--d",
            "17",
            "--s",
            "4",
            "--lam",
            "0.5",
            "--delta",
            "2e-6",
        ],
        1,
        "no finite eps",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-thm3",
            "--n",
            "2",
            "--m",
            "1",
            "--d",
            "3",
            "--s",
            "1",
            "--lam",
            "1",
            "--delta",
            "0.5",
        ],
        1,
        "no finite eps",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-exact",
            "--n",
            "2",
            "--m",
            "1.5",
            "--d",
            "17",
            "--s",
            "4",
            "--lam",
            "0.5",
            "--delta",
            "1e-300",
        ],
        1,
        "no finite eps",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-exact",
            "--n",
            "1",
            "--m",
            "1.5",
            "--d",
            "17",
            "--s",
            "4",
            "--lam",
            "0.5",
            "--delta",
            "2e-6",
        ],
        2,
        "n must",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-exact",
            "--n",
            "5",
            "--m",
            "1.5",
            "--d",
            "2",
            "--s",
            "1",
            "--lam",
            "0.5",
            "--delta",
            "2e-6",
        ],
        2,
        "d must",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-thm3",
            "--n",
            "5",
            "--m",
            "1.5",
            "--d",
            "17",
            "--s",
            "18",
            "--lam",
            "0.5",
            "--delta",
            "2e-6",
        ],
        2,
        "s must",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-thm3",
            "--n",
            "5",
            "--m",
            "0",
            "--d",
            "17",
            "--s",
            "4",
            "--lam",
            "0.5",
            "--delta",
            "2e-6",
        ],
        2,
        "m must",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-thm3",
            "--n",
            "5000",
            "--m",
            "1.5",
            "--d",
            "17",
            "--s",
            "4",
            "--lam",
            "2",
            "--delta",
            "2e-6",
        ],
        2,
        "lam must",
    ),
    (
        [
            "epsilon",
            "--bound",
            "segmented-thm3",
            "--n",
            "5000",
            "--m",
            "1.5",
            "--d",
            "17",
            "--s",
            "17",
            "--lam",
            "0.5",
            "--delta",
            "2e-6",
        ],
        None,
        None,
    ),
    (
        [
            "delta",
            "--bound",
            "segmented-exact",
            "--n",
            "1000000000",
            "--m",
            "10000",
            "--d",
            "1000000000",
            "--s",
            "1000",
            "--lam",
            "0.5",
            "--eps",
            "0.5",
        ],
        0,
        None,
    ),
    # Composed segmented rounds at n = 2: one round's δ is 1 at every ε (no finite ε; δ = 1),
    # and the largest λ of one round is 0 (so of every number of rounds).
    (["epsilon", *SEG2, "--lam", "1", "--compose", "2", "--delta", "1e-6"], 1, "no finite eps"),
    (["epsilon", *SEG2, "--lam", "0.5", "--compose", "10000", "--delta", "1e-6"], 1, "no finite eps"),
    (["delta", *SEG2, "--lam", "1", "--compose", "10000", "--eps", "1"], 0, None),
    (
        ["eps0", "--bound", "segmented-exact", "--n", "2", "--m", "10000", "--d", "1e9", "--s", "1000"]
        + ["--compose", "1000", "--eps", "1", "--delta", "1e-6"],
        0,
        None,
    ),
]


@pytest.mark.parametrize(
    "argv,status,fragment", CASES, ids=[" ".join(c[0][:3]) + f" #{i}" for i, c in enumerate(CASES)]
)
def test_bad_and_extreme_inputs(argv, status, fragment, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning reaches the user either
        got = main(argv)
    out, err = capsys.readouterr()
    assert got in (0, 1, 2)
    if status is not None:
        assert got == status, (got, err)
    if got == 0:
        value = float(out.strip().splitlines()[-1])
        assert math.isfinite(value) and value >= 0.0
        # at most the one-line soundness warning of a value the library flags as not a valid bound
        assert all(": warning: not a valid bound for " in line for line in err.splitlines()), err
        assert len(err.splitlines()) <= 1, err
    else:
        assert len(err.strip().splitlines()) == 1, err
        for leak in ("Traceback", "np.float64", "at n=2", "math domain error", "inf\n"):
            assert leak not in err
        if fragment is not None:
            assert fragment in err, err


def test_personalized_answers_stay_below_the_largest_level(capsys):
    for argv, top in [
        (["epsilon", "--bound", "pers-liu24", *PERS, "--eps0", "1", "--counts", "2", "--delta", "0.25"], 1.0),
        (["epsilon", "--bound", "pers-gdp", *PERS, "--eps0", "9", "--counts", "2", "--delta", "0.125"], 9.0),
        (["epsilon", "--bound", "pers-liu24", *PERS, "--eps0", "5", "--counts", "1000", "--delta", "1e-6"], 5.0),
    ]:
        assert main(argv) == 0
        assert float(capsys.readouterr().out.strip()) <= top
