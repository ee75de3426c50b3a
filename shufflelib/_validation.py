"""Parameter checks shared by every public function of :mod:`shufflelib`.

Each check returns the validated value (converted to a Python ``float`` or
``int``) or raises :class:`ValueError` whose message names the parameter and the
allowed range, e.g. ``"eps0 must be a finite number > 0, got -1.0"``.

The box. Every privacy bound of the library answers for parameters inside one
box, stated here (and nowhere else):

* the number of users ``n`` (or of participants, of clones, a population law's
  mean) is an integer in ``[2, N_MAX]`` with ``N_MAX = 10**9``;
* a local privacy parameter ``eps0`` is in ``[EPS0_MIN, EPS0_LIMIT] = [1e-6, 100]``;
* a central δ is in ``(0, 1)`` (any float, down to the smallest subnormal);
* a simulation draws at most ``SIZE_MAX = 10**8`` samples per call;
* a composed question has at most ``MAX_ROUNDS = 10**4`` rounds.

Outside the box a bound raises :class:`ValueError` naming the parameter and its
range (:func:`check_n`, :func:`check_eps0`); inside it, a bound returns a finite
number or refuses with ``NotApplicableError``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection
from typing import Any

import numpy as np

__all__ = [
    "N_MAX",
    "SIZE_MAX",
    "MAX_ROUNDS",
    "EPS0_MIN",
    "EPS0_LIMIT",
    "check_n",
    "check_eps0",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_int",
    "check_in_range",
    "check_choice",
    "check_generator",
    "check_array",
]


#: Largest number of users (and of participants, clones, a population's mean) in the box.
N_MAX = 10**9
#: Largest number of simulated draws (``size``) a sampler accepts (~1 GB of 8-byte results).
SIZE_MAX = 10**8
#: Largest number of composed rounds (beyond, the FFT windows of :mod:`shufflelib.composition`
#: outgrow memory at useful steps).
MAX_ROUNDS = 10_000
#: Smallest local privacy parameter in the box.
EPS0_MIN = 1e-6
#: Largest local privacy parameter in the box.
EPS0_LIMIT = 100.0


def _show(value: Any) -> str:
    """``value`` for an error message: plain numbers (``2.0``, not ``np.float64(2.0)``)."""
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        value = value.item()
    return repr(value) if not isinstance(value, str) or len(value) <= 80 else repr(value[:77] + "...")


def _as_real(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {_show(value)}")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name} must be a number, got NaN")
    return x


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float, requiring ``0 < value`` (finite unless ``allow_inf``)."""
    x = _as_real(name, value)
    if not (x > 0) or (math.isinf(x) and not allow_inf):
        bound = "> 0" if allow_inf else "a finite number > 0"
        raise ValueError(f"{name} must be {bound}, got {_show(value)}")
    return x


def check_nonnegative(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring a finite ``value >= 0``."""
    x = _as_real(name, value)
    if not (0 <= x < math.inf):
        raise ValueError(f"{name} must be a finite number >= 0, got {_show(value)}")
    return x


def check_probability(name: str, value: Any, *, closed_low: bool = False, closed_high: bool = False) -> float:
    """Return ``value`` as a float in (0, 1), with optionally closed ends."""
    x = _as_real(name, value)
    lo_ok = x >= 0 if closed_low else x > 0
    hi_ok = x <= 1 if closed_high else x < 1
    if not (lo_ok and hi_ok):
        interval = ("[" if closed_low else "(") + "0, 1" + ("]" if closed_high else ")")
        raise ValueError(f"{name} must be in {interval}, got {_show(value)}")
    return x


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, requiring an integral value in ``[minimum, maximum]``."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got {_show(value)}")
    if isinstance(value, numbers.Integral):
        k = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        k = int(value)
    else:
        raise ValueError(f"{name} must be an integer, got {_show(value)}")
    if minimum is not None and k < minimum:
        hi = f" and <= {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be an integer >= {minimum}{hi}, got {_show(value)}")
    if maximum is not None and k > maximum:
        lo = f">= {minimum} and " if minimum is not None else ""
        raise ValueError(f"{name} must be an integer {lo}<= {maximum}, got {_show(value)}")
    return k


def check_n(n: Any, name: str = "n", *, minimum: int = 2) -> int:
    """Return ``n`` as an int in ``[minimum, N_MAX]`` (the box's number of users).

    Examples
    --------
    >>> check_n(1e9)
    1000000000
    >>> check_n(2e9)
    Traceback (most recent call last):
    ...
    ValueError: n must be an integer >= 2 and <= 1000000000, got 2000000000.0
    """
    return check_int(name, n, minimum=minimum, maximum=N_MAX)


def check_eps0(value: Any, name: str = "eps0") -> float:
    """Return ``value`` as a float in the box's ``[EPS0_MIN, EPS0_LIMIT]``.

    Examples
    --------
    >>> check_eps0(1)
    1.0
    >>> check_eps0(5e-324)
    Traceback (most recent call last):
    ...
    ValueError: eps0 must be a number in [1e-06, 100.0], got 5e-324
    """
    x = _as_real(name, value)
    if not (EPS0_MIN <= x <= EPS0_LIMIT):
        raise ValueError(f"{name} must be a number in [{EPS0_MIN}, {EPS0_LIMIT}], got {_show(value)}")
    return x


def check_in_range(
    name: str, value: Any, low: float, high: float, *, closed_low: bool = True, closed_high: bool = True
) -> float:
    """Return ``value`` as a float in the interval from ``low`` to ``high``."""
    x = _as_real(name, value)
    lo_ok = x >= low if closed_low else x > low
    hi_ok = x <= high if closed_high else x < high
    if not (lo_ok and hi_ok):
        interval = ("[" if closed_low else "(") + f"{low}, {high}" + ("]" if closed_high else ")")
        raise ValueError(f"{name} must be in {interval}, got {_show(value)}")
    return x


def check_choice(name: str, value: Any, choices: Collection[str]) -> Any:
    """Return ``value`` if it is one of ``choices`` (a tuple of names, or a mapping's keys)."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def check_generator(name: str, rng: Any) -> np.random.Generator:
    """Require an explicit :class:`numpy.random.Generator` (never global state)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)), got {type(rng).__name__}"
        )
    return rng


def check_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    dtype: Any = float,
    low: float | None = None,
    high: float | None = None,
    integral: bool = False,
) -> np.ndarray:
    """Return ``value`` as a numpy array, checking its dimension, finiteness and range.

    Parameters
    ----------
    name
        Parameter name used in the error message.
    value
        Array-like input.
    ndim
        Required number of dimensions (``None``: any).
    dtype
        Target dtype.
    low, high
        Inclusive bounds on every entry (``None``: unbounded).
    integral
        Require every entry to be an integer.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {_show(value)}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    if integral and not np.all(arr == np.round(arr)):
        raise ValueError(f"{name} must contain only integers")
    if low is not None and arr.size and arr.min() < low:
        raise ValueError(f"{name} must have every entry >= {low}, got min {_show(arr.min())}")
    if high is not None and arr.size and arr.max() > high:
        raise ValueError(f"{name} must have every entry <= {high}, got max {_show(arr.max())}")
    return arr.astype(dtype, copy=False)
