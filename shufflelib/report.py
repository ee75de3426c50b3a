"""Formatted output for the chapters: a verdict as a sentence, a result as a table.

A chapter's check computes, asserts, and then *says* what it found. :func:`verdict`
and :func:`table` return objects that a notebook (and the book's build) renders as
Markdown — a bold verdict, a table with aligned columns — and that print as plain
text elsewhere. No number is typed by hand: the caller formats computed values.

Examples
--------
>>> print(verdict(True, "Lemma 2 holds", "the two curves agree to 1e-12."))
Confirmed — Lemma 2 holds: the two curves agree to 1e-12.
>>> print(verdict(False, "the error falls by 20%", "it falls by 14%."))
Not confirmed — the error falls by 20%: it falls by 14%.
>>> print(table(["n", "ε"], [[10, "0.52"], [100, "0.17"]]))
n    ε
---  ----
10   0.52
100  0.17
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["Formatted", "verdict", "table"]


class Formatted:
    """Text with a Markdown form (rendered by notebooks and the book) and a plain form (``print``).

    Examples
    --------
    >>> shown = Formatted("**bold**", "bold")
    >>> shown._repr_markdown_(), str(shown)
    ('**bold**', 'bold')
    """

    def __init__(self, markdown: str, plain: str) -> None:
        self.markdown = markdown
        self.plain = plain

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __str__(self) -> str:
        return self.plain

    def __repr__(self) -> str:
        return self.plain


def verdict(passed: bool, claim: str, evidence: str) -> Formatted:
    """A one-line verdict: whether a claim was confirmed, the claim, the evidence.

    Parameters
    ----------
    passed
        Whether the claim holds. The caller asserts the outcome it found (so the
        build fails if it changes); ``False`` reports a finding, e.g. a claim of the
        paper that the computation does not confirm.
    claim
        What was checked, e.g. ``"Theorem 5's union bound"``.
    evidence
        The numbers, already formatted.

    Examples
    --------
    >>> print(verdict(True, "Lemma 2 holds", "the curves agree to 1e-12."))
    Confirmed — Lemma 2 holds: the curves agree to 1e-12.
    """
    head = "Confirmed" if passed else "Not confirmed"
    return Formatted(f"**{head}** — {claim}: {evidence}", f"{head} — {claim}: {evidence}")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None) -> Formatted:
    """A table of already formatted cells (``str(cell)``), Markdown and plain.

    Parameters
    ----------
    headers
        Column titles.
    rows
        The rows, each as long as ``headers``.
    align
        One letter per column, ``l`` or ``r`` (default: the first column left, the
        others right).

    Examples
    --------
    >>> print(table(["n", "ε"], [[10, "0.52"], [100, "0.17"]]))
    n    ε
    ---  ----
    10   0.52
    100  0.17
    """
    cells = [[str(c) for c in row] for row in rows]
    if any(len(row) != len(headers) for row in cells):
        raise ValueError(f"every row must have {len(headers)} cells")
    align = align or "l" + "r" * (len(headers) - 1)
    if len(align) != len(headers) or set(align) - {"l", "r"}:
        raise ValueError("align must have one letter l or r per column")
    rule = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h) for i, h in enumerate(headers)]
    plain = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    plain.append("  ".join("-" * w for w in widths))
    plain += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return Formatted("\n".join(lines), "\n".join(plain))
