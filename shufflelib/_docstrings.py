"""Parameter descriptions written once, for the docstrings of every function that takes them.

The convention of MNE-Python's ``docdict``/``fill_doc`` and scipy's ``doccer``, in a smaller form: a
docstring line holding only placeholders ``%(name)s`` (one or several, separated by blanks) is
replaced by the entries ``name`` of :data:`docdict` (each a numpydoc parameter, its description
indented below it), one after the other, every line indented as the placeholders were. Nothing else
of the docstring is read, so a ``%`` elsewhere needs no escape. Sphinx's autodoc and doctest read
``__doc__`` at run time, and see the filled text.

Examples
--------
>>> @fill_doc
... def f(n, rng):
...     '''Draw something.
...
...     Parameters
...     ----------
...     %(n_users)s
...     %(rng)s
...     '''
>>> print(f.__doc__.splitlines()[4])
    n
>>> print(f.__doc__.splitlines()[7])
        The only source of randomness.
"""

from __future__ import annotations

import re
from typing import TypeVar

__all__ = ["docdict", "fill_doc"]

#: Shared parameter entries by placeholder name: the parameter's name, then its description.
docdict: dict[str, str] = {
    "n": "n\n    Number of users, an integer >= 2.",
    "n_users": "n\n    Number of users, an integer >= 1.",
    "eps0": "eps0\n    Local privacy parameter, > 0.",
    "eps": "eps\n    Central ε, >= 0.",
    "delta": "delta\n    Central δ, in (0, 1).",
    "rng": "rng\n    The only source of randomness.",
    "size": "size\n    Number of runs, an integer >= 1.",
    "params": "params\n    The protocol's parameters.",
    "k_holding": "k\n    Number of users holding 1, in ``[0, n]``.",
    "k_domain": "k\n    Domain size, an integer >= 2.",
    "d": "d\n    Number of items, an integer >= 2.",
    "s": "s\n    Items per user, an integer >= 1.",
    "eps_pure": "eps\n    Privacy parameter, > 0.",
    "eps_total": "eps\n    Total privacy parameter, > 0.",
    "buckets": "buckets\n    Domain size ``B``, an integer >= 1.",
    "bucket_params": "params\n    Per-bucket counting parameters.",
    "mechanism_krr": 'mechanism\n    Only ``"krr"``.',
    "k_krr": "k\n    Domain size (an integer >= 2).",
    "mechanism_generic": 'mechanism\n    Only ``"generic"``.',
    "k_unused": "k\n    Not used (must be ``None``).",
    "mechanism_blanket": 'mechanism\n    ``"generic"``, ``"laplace"`` or ``"krr"``.',
    "k_blanket": 'k\n    Domain size for ``mechanism="krr"``.',
    "decay": "a\n    Decay rate, > 0.",
    "dummies": "dummies\n    Number ``k`` of dummy reports (an integer >= 0).",
    "local_mechanism": "mechanism\n    The local randomizer family.",
    "eps0_finite": "eps0\n    Local privacy parameter, a finite number > 0.",
    "eps0_krr": "eps0\n    Local privacy parameter of the k-RR, > 0.",
    "broadcast_params": "params\n    The broadcast parameters.",
    "eps_values": "eps\n    Central ε values (>= 0).",
    "law_mean": "mean\n    ``E[N − 1]``, a finite number >= 0.",
    "repetitions": "size\n    Number of repetitions, an integer >= 1.",
    "outcomes": "i\n    Integer(s) >= 0.",
    "labelled_messages": "messages\n    The shuffled messages: shape ``(messages, 2)``, rows ``(label, sign)``.",
    "segmented_accounting": (
        "accounting, group, gamma_max\n"
        '    The item curve\'s accounting (``"theorem3"`` or ``"exact"``, see\n'
        "    :func:`~shufflelib.segmented.optimize.item_curve`), the group-privacy form\n"
        "    (:mod:`~shufflelib.segmented.group`) and the cap on a slot's sending probability\n"
        "    (:func:`~shufflelib.segmented.optimize.slots_for`)."
    ),
}

_PLACEHOLDERS = re.compile(r"^(?P<indent>[ \t]*)(?P<names>%\(\w+\)s(?:[ \t]+%\(\w+\)s)*)[ \t]*$", re.MULTILINE)

T = TypeVar("T")


def fill_doc(obj: T) -> T:
    """Replace each placeholder line ``%(name)s …`` of ``obj``'s docstring by the entries ``docdict[name]``.

    Returns ``obj`` (a function or class), its ``__doc__`` filled; an unknown name raises
    :class:`KeyError` when the module is imported.

    Examples
    --------
    >>> @fill_doc
    ... def g(eps0):
    ...     '''Something of eps0.
    ...
    ...     %(eps0)s
    ...     '''
    >>> "Local privacy parameter" in g.__doc__
    True
    """
    doc = obj.__doc__
    if doc:

        def entries(match: re.Match[str]) -> str:
            names = re.findall(r"%\((\w+)\)s", match["names"])
            return "\n".join(match["indent"] + line for name in names for line in docdict[name].splitlines())

        obj.__doc__ = _PLACEHOLDERS.sub(entries, doc)
    return obj
