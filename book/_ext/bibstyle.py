"""The bibliography's style: author-year labels, as the text cites, and titles as written.

The bibliography labels its entries by author and year ("Feldman et al., 2021", with
2019a, 2019b for the same authors and year), sorted by author, year and title, instead of
numbering them; the text cites with the same labels (``bibtex_reference_style: label``). Titles keep the capitalization of
``references.bib`` (pybtex's ``unsrt`` style lower-cases them, which turns "Rényi" into
"rényi"), and an entry's DOI or URL is printed as a link.

Use it with ``:style: authoryear`` in the ``bibliography`` directive.
"""

from __future__ import annotations

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.template import field, sentence
from sphinx.application import Sphinx


def _last_name(person) -> str:
    return Text.from_latex(" ".join(person.last_names)).render_as("text")


class AuthorYearLabelStyle(BaseLabelStyle):
    """Label an entry "Last, year", "Last and Last, year" or "Last et al., year"."""

    def format_labels(self, sorted_entries):
        labels = []
        for entry in sorted_entries:
            persons = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [_last_name(p) for p in persons]
            if len(names) > 2:
                who = f"{names[0]} et al."
            else:
                who = " and ".join(names) or entry.key
            labels.append(f"{who}, {entry.fields.get('year', 'n.d.')}")
        # the same author and year twice: 2019a, 2019b, in the sorted order
        seen: dict[str, int] = {}
        for label in labels:
            if labels.count(label) > 1:
                seen[label] = seen.get(label, 0) + 1
                yield label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
            else:
                yield label


class AuthorYearStyle(UnsrtStyle):
    """``unsrt`` with author-year labels and sorting, and titles kept as written."""

    default_label_style = "authoryear"
    default_sorting_style = "author_year_title"

    def format_title(self, e, which_field, as_sentence=True):
        formatted_title = field(which_field)
        return sentence[formatted_title] if as_sentence else formatted_title


def setup(app: Sphinx) -> dict:
    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabelStyle)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
