"""Monotone root finding that rounds in the safe direction.

Privacy bounds are upper bounds, so inverting a monotone function must never
return a value on the wrong side of the true root. Both helpers here first
locate the root with Brent's method (:func:`brent`, the method of
:func:`scipy.optimize.brentq`) and then *certify* the answer: the returned point is checked against
the target with the function itself, and nudged (by bisection) to the safe side if
floating-point round-off put it on the wrong side.

Tolerance: the returned point ``x`` satisfies the target exactly as evaluated
by ``fn``, and is within ``rtol * |x| + atol`` of the point where ``fn`` crosses
the target (defaults ``rtol = 1e-9``, ``atol = 1e-12``). If ``fn`` is noisy near
the root (several crossings), the returned point is still certified (``ok`` at ``x``,
not ``ok`` within the tolerance on the other side): one of the crossings.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = [
    "brent",
    "last_true",
    "first_true",
    "largest_reaching",
    "upper_end",
    "narrow_bracket",
    "first_integer",
]

RTOL = 1e-9
ATOL = 1e-12
#: Relative width to which the top of a composed search (one round's largest local parameter) is
#: resolved: it only brackets the search from above, whose own tolerance is 1e-3.
SEARCH_TOP_RTOL = 1e-4
#: The smallest relative tolerance :func:`brent` is asked for (``scipy.optimize.brentq``'s default,
#: four units of the last place): its default, and the floor of the certified searches' first stage.
BRENT_RTOL = 4 * 2.2e-16

#: A monotone verdict on a point, and a continuous score that is ``<= 0`` exactly where it is true.
Predicate = Callable[[float], bool]
Score = Callable[[float], float]


def brent(
    f: Callable[[float], float],
    a: float,
    b: float,
    *,
    xtol: float = 2e-12,
    rtol: float = BRENT_RTOL,
    maxiter: int = 100,
) -> float:
    """A root of ``f`` in ``[a, b]`` by Brent's method (R. P. Brent, *Algorithms for Minimization
    without Derivatives*, 1973, ch. 4): inverse quadratic interpolation or secant steps, bisection
    where they would not shrink the bracket fast enough.

    The root is located within ``xtol + rtol · |x|`` (the defaults are ``brentq``'s; not certified:
    :func:`first_true` and :func:`last_true` check the side). Written here rather than imported from
    :func:`scipy.optimize.brentq`: importing :mod:`scipy.optimize` costs the command line about
    0.1 s of its start-up (a quarter of a simple question), and every question finds a root.

    Raises ``ValueError`` when ``f(a)`` and ``f(b)`` have the same sign and ``RuntimeError``
    after ``maxiter`` steps.

    Examples
    --------
    >>> root = brent(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-15, rtol=1e-15)
    >>> abs(root - 2.0**0.5) < 1e-14
    True
    """
    a, b = float(a), float(b)
    fa, fb = float(f(a)), float(f(b))
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    if (fa > 0.0) == (fb > 0.0):
        raise ValueError("f(a) and f(b) must have different signs")
    c, fc = b, fb  # the bracket is [b, c]; a is the previous iterate
    d = e = b - a
    for _ in range(maxiter):
        if (fb > 0.0) == (fc > 0.0):  # keep the root between b and c
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):  # b, the best estimate, has the smaller |f|
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 0.5 * (xtol + rtol * abs(b))
        half = 0.5 * (c - b)
        if abs(half) <= tol or fb == 0.0:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:  # secant
                p, q = 2.0 * half * s, 1.0 - s
            else:  # inverse quadratic interpolation through a, b and c
                q, r = fa / fc, fb / fc
                p = s * (2.0 * half * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            p = abs(p)
            if 2.0 * p < min(3.0 * half * q - abs(tol * q), abs(e * q)):  # the step is accepted
                e, d = d, p / q
            else:
                d = e = half
        else:
            d = e = half
        a, fa = b, fb
        b += d if abs(d) > tol else math.copysign(tol, half)
        fb = float(f(b))
    raise RuntimeError(f"no root within {maxiter} steps")


def _bisect(ok: Predicate, bad: float, good: float, rtol: float, atol: float) -> float:
    """Shrink the bracket [bad, good] (in either order) keeping ``ok(good)`` true."""
    for _ in range(1100):  # enough to reach adjacent floats from [5e-324, 1] (rtol = atol = 0)
        if abs(good - bad) <= rtol * max(abs(good), abs(bad)) + atol:
            break
        mid = 0.5 * (good + bad)
        if mid in (good, bad):  # adjacent floats: nothing left to split
            break
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good


def first_true(
    ok: Predicate, score: Score | None, lo: float, hi: float, *, rtol: float = RTOL, atol: float = ATOL
) -> float:
    """Smallest ``x`` in ``[lo, hi]`` with ``ok(x)`` true, rounded up.

    ``ok`` must be monotone (false then true) on ``[lo, hi]`` and ``ok(hi)`` true.
    ``score`` is a continuous function with ``score(x) <= 0`` exactly where ``ok``
    is true (for example ``log(delta(x)) - log(target)``); it is used to find the
    root quickly, and ``ok`` to certify it; ``None``: bisection alone (for a function that jumps
    at its root, where interpolation steps are slower than halving).
    """
    if ok(lo):
        return lo
    return _certified_root(ok, score, bad=lo, good=hi, rtol=rtol, atol=atol)


def last_true(
    ok: Predicate, score: Score | None, lo: float, hi: float, *, rtol: float = RTOL, atol: float = ATOL
) -> float:
    """Largest ``x`` in ``[lo, hi]`` with ``ok(x)`` true, rounded down.

    ``ok`` must be monotone (true then false) on ``[lo, hi]`` and ``ok(lo)`` true.
    ``score`` is continuous with ``score(x) <= 0`` exactly where ``ok`` is true (``None``: see
    ``first_true``).
    """
    if ok(hi):
        return hi
    return _certified_root(ok, score, bad=hi, good=lo, rtol=rtol, atol=atol)


def _certified_root(
    ok: Predicate,
    score: Score | None,
    *,
    bad: float,
    good: float,
    rtol: float,
    atol: float,
) -> float:
    a, b = min(bad, good), max(bad, good)
    scores: dict[float, float] = {}  # every point the root finding scored ...
    verdicts: dict[float, bool] = {good: True, bad: False}  # ... and every point ok judged

    def scored(x: float) -> float:
        scores[x] = score(x)
        return scores[x]

    def judged(x: float) -> bool:
        verdicts[x] = ok(x)
        return verdicts[x]

    if score is None:  # bisection only
        return _bisect(ok, bad, good, rtol, atol)
    try:
        sa, sb = scored(a), scored(b)
        if math.isfinite(sa) and math.isfinite(sb) and sa * sb < 0:
            root = brent(scored, a, b, xtol=max(atol, 1e-300), rtol=max(rtol, BRENT_RTOL), maxiter=1100)
            # With rtol = atol = 0 (resolve to the adjacent float) bracket a few ulps around the root.
            step = rtol * abs(root) + atol or 16 * math.ulp(root)
            # Move the estimate one tolerance step towards the safe side.
            cand = root + step if good > bad else root - step
            cand = min(max(cand, a), b)
            if judged(cand):
                good = cand
                # The root is within one step of cand: tighten the bad side too.
                other = root - step if good > bad else root + step
                other = min(max(other, a), b)
                if not judged(other):
                    bad = other
            else:
                bad = cand
    except (ValueError, RuntimeError):
        pass  # Brent's method could not bracket or converge: bisection alone still certifies the answer.
    # ``fn`` may be off near the root (noise of a formula at the float limit, a jump): bisect from
    # the narrowest bracket among the points seen, not from the original one.
    if abs(good - bad) > rtol * max(abs(good), abs(bad)) + atol:
        good, bad = _narrowest(scores, verdicts, ok, good=good, bad=bad, span=(a, b))
    return _bisect(ok, bad, good, rtol, atol)


def _narrowest(
    scores: dict[float, float],
    verdicts: dict[float, bool],
    ok: Predicate,
    *,
    good: float,
    bad: float,
    span: tuple[float, float],
) -> tuple[float, float]:
    """The narrowest bracket (a good point on the same side of a bad one as ``good`` of ``bad``)
    among the points seen in ``span``; ``(good, bad)`` if none is narrower.

    A point is good if ``ok`` said so, else if its score is ``<= 0`` (then ``ok`` confirms it
    before use). Neighbouring points, a good one on the good side of a bad one, bracket a crossing.
    """
    points = sorted({x for x in (*scores, *verdicts) if span[0] <= x <= span[1]})

    def presumed(x: float) -> bool:
        return verdicts[x] if x in verdicts else scores[x] <= 0

    pairs = sorted(
        (abs(x1 - x0), *((x0, x1) if good < bad else (x1, x0)))
        for x0, x1 in zip(points, points[1:], strict=False)
        if presumed(x0 if good < bad else x1) and not presumed(x1 if good < bad else x0)
    )
    for width, g, b in pairs[:4]:
        if width >= abs(good - bad):
            break
        if (verdicts[g] if g in verdicts else ok(g)) and not (verdicts[b] if b in verdicts else ok(b)):
            return g, b
    return good, bad


def largest_reaching(
    value: Score,
    target: float,
    lo: float,
    hi: float,
    *,
    smallest: float | None = None,
    log_scale: bool = False,
    rtol: float = RTOL,
    atol: float = ATOL,
    guess: float | None = None,
) -> float | None:
    """Largest ``x`` in ``[lo, hi]`` with ``value(x) <= target``, rounded down (the one search for
    "the largest local parameter reaching (ε, δ)").

    ``value`` is non-decreasing in ``x`` (``inf`` where a theorem does not apply). If
    ``value(lo) > target`` and ``smallest`` is given, ``lo`` is halved down to ``smallest``
    first. Returns ``None`` when no ``x`` qualifies. ``log_scale`` compares logarithms (for
    δ-like values spanning many decades) when locating the root; the answer is certified on
    ``value`` itself. A ``guess`` of the answer narrows the bracket first
    (:func:`narrow_bracket`: whatever the guess, the bracket still holds the answer).

    Examples
    --------
    >>> round(largest_reaching(lambda x: x * x, 2.0, 0.0, 10.0), 8)  # sqrt(2), rounded down
    1.41421356
    >>> largest_reaching(lambda x: 1.0 + x, 0.5, 0.1, 1.0, smallest=1e-6) is None
    True
    """

    seen: dict[float, float] = {}  # ok, score and the certification ask for the same points

    def known(x: float) -> float:
        if x not in seen:
            seen[x] = value(x)
        return seen[x]

    def ok(x: float) -> bool:
        return known(x) <= target

    def score(x: float) -> float:
        v = known(x)
        if log_scale and target < 1.0:
            if not math.isfinite(v):
                return 1e300
            # log(-log δ) (nearly linear where δ falls like exp(-c/x^k)); 0 just below the
            # smallest subnormal, values >= 1 at the largest float below 1
            gap = _log_log(target) - _log_log(min(max(v, 0.0), 1.0 - 2.0**-53))
            return max(gap, 1e-300) if v > target else min(gap, 0.0)
        return (v - target) if math.isfinite(v) else 1e300

    if smallest is not None:
        while lo > smallest and not ok(lo):
            lo /= 2.0
    if not ok(lo):
        return None
    # Often the answer is ``lo`` itself (a bound that jumps there, e.g. at the local guarantee):
    # one evaluation just above certifies it.
    above = lo + rtol * abs(lo) + atol
    if above < hi and not ok(above):
        return lo
    if guess is not None:
        lo, hi = narrow_bracket(ok, guess, lo, hi)
    return last_true(ok, score, lo, hi, rtol=rtol, atol=atol)


def upper_end(good: float, rtol: float = SEARCH_TOP_RTOL, atol: float = ATOL) -> float:
    """The far end of the bracket a search of :func:`last_true` or :func:`largest_reaching` leaves at
    ``good`` (their answer to ``rtol``, ``atol``): ``(good + atol)/(1 − rtol)``, a point at or above the
    largest ``x`` with ``ok(x)`` true (they stop once ``bad − good <= rtol · bad + atol``).

    Examples
    --------
    >>> good = largest_reaching(lambda x: x * x, 2.0, 0.0, 10.0, rtol=1e-4)
    >>> good <= 2**0.5 <= upper_end(good)
    True
    """
    return (good + atol) / (1.0 - rtol)


def _log_log(v: float) -> float:
    """``log(−log v)`` for ``v`` in ``[0, 1)`` (``v = 0``: one more than at the smallest subnormal)."""
    return math.log(-math.log(v)) if v > 0.0 else math.log(-math.log(5e-324)) + 1.0


def narrow_bracket(
    beyond: Predicate, guess: float, lo: float, hi: float, widths: tuple[float, ...] = (0.02, 0.25)
) -> tuple[float, float]:
    """Shrink ``[lo, hi]`` around a guess of a monotone root; ``beyond(x)``: the root lies above ``x``.

    Tries ``guess`` ± each relative width in turn; the returned bracket still contains the
    root whatever the guess (a poor guess costs at most two evaluations per width).

    Examples
    --------
    >>> narrow_bracket(lambda x: x < 1.0, 1.01, 0.0, 10.0)  # the root 1.0 is within 2% of the guess
    (0.9898, 1.0302)
    """
    for width in widths:
        up, down = guess * (1.0 + width), guess * (1.0 - width)
        if not lo < up < hi:
            continue
        if beyond(up):
            lo = up
            continue
        hi = up
        if lo < down:
            if beyond(down):
                lo = down
                break
            hi = down
    return lo, hi


def first_integer(pred: Callable[[int], bool], a: int, b: int) -> int:
    """Smallest integer ``x`` in ``[a, b]`` with ``pred(x)`` (``pred`` monotone, false then true; ``pred(b)`` holds).

    Examples
    --------
    >>> first_integer(lambda x: x * x >= 50, 0, 100)
    8
    """
    while a < b:
        mid = (a + b) // 2
        if pred(mid):
            b = mid
        else:
            a = mid + 1
    return a
