"""The PDF edition as a book, and a problem sheet per chapter.

Sphinx's LaTeX builder makes one document of the root page and what its table of contents
includes: the preface's sections became Chapters 1–4, every page of the book followed
at one level, and the parts of ``_toc.yml`` were lost. This extension replaces the
builder's assembly of that document (``assemble_doctree``) with the book's structure,
read from ``_toc.yml``:

* front matter: the title page and contents (Sphinx's), then the preface as an
  unnumbered chapter;
* each part of ``_toc.yml`` as a LaTeX part; the chapters of a numbered part numbered in
  order across the parts, as on the website (Chapter 2 holds Theorem 2.1); the pages of
  an unnumbered part as unnumbered chapters;
* the API reference left out (the website has it), the bibliography page's empty heading
  dropped: its entries are Sphinx's bibliography at the end of the book;
* in each chapter, the solutions moved from under their exercises to a "Solutions" section
  at the chapter's end, and the code the website folds away (cells tagged ``hide-input``,
  ``hide-cell``; outputs tagged ``hide-output``) left out.

It also writes ``problems-<chapter>.tex`` for every numbered chapter: a problem sheet
with the chapter's exercises and no solutions, which ``make all-pdf`` (the PDF build's
last step) typesets next to the book.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.latex import LaTeXBuilder
from sphinx.builders.latex.nodes import math_reference
from sphinx.util import logging
from sphinx.util.docutils import new_document
from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_node

logger = logging.getLogger(__name__)

#: Pages of the website that the print leaves out (the API reference: 70 pages of signatures).
LEFT_OUT = ("book/api",)
SHEET_PREFIX = "problems-"


def book_structure(srcdir: Path) -> tuple[str, list[dict]]:
    """The root page and the parts of ``_toc.yml``: caption, numbered, chapters (docnames)."""
    toc = yaml.safe_load((srcdir / "_toc.yml").read_text(encoding="utf-8"))
    parts = []
    for part in toc.get("parts", []):
        chapters = [entry["file"] for entry in part.get("chapters", [])]
        parts.append({"caption": part.get("caption", ""), "numbered": bool(part.get("numbered")), "chapters": chapters})
    return toc["root"], parts


def _raw(latex: str) -> nodes.raw:
    return nodes.raw("", latex + "\n", format="latex")


def _inline_raw(latex: str) -> nodes.raw:
    return nodes.raw("", latex, format="latex")


#: Inline code longer than this many characters may break after its underscores, dots and
#: slashes (LaTeX breaks inline code only after a few punctuation marks; a test's name such
#: as ``test_theorem1_printed_is_not_a_tradeoff_function`` ran up to 80 pt into the margin).
LONG_LITERAL = 24


def _breakable_literals(tree: nodes.Element) -> None:
    """Long inline literals split into pieces with a LaTeX break point between them."""
    for literal in list(tree.findall(nodes.literal)):
        text = literal.astext()
        if len(text) <= LONG_LITERAL or isinstance(literal.parent, nodes.literal_block):
            continue
        pieces = [p for p in re.split(r"(?<=[_./:])", text) if p]
        if len(pieces) < 2:
            continue
        replacement = nodes.inline()
        for i, piece in enumerate(pieces):
            if i:
                replacement += _inline_raw("\\allowbreak{}")
            replacement += nodes.literal(piece, piece, classes=literal.get("classes", []))
        literal.replace_self(replacement)


def _left_out(docname: str) -> bool:
    return any(docname == name or docname.startswith(name + "/") for name in LEFT_OUT)


class PdfEditionBuilder(LaTeXBuilder):
    """Sphinx's LaTeX builder, with the book's structure and the problem sheets."""

    name = "latex"

    def init_document_data(self) -> None:
        super().init_document_data()
        root, parts = book_structure(Path(self.srcdir))
        self._root, self._parts = root, parts
        author = self.document_data[0][3] if self.document_data else ""
        self._book_title = self.document_data[0][2] if self.document_data else self.config.project
        number = 0
        self._chapter_numbers = {}
        for part in parts:
            if not part["numbered"]:
                continue
            for docname in part["chapters"]:
                number += 1
                self._chapter_numbers[docname] = number
                title = self.env.titles[docname].astext() if docname in self.env.titles else docname
                target = f"{SHEET_PREFIX}{Path(docname).name}.tex"
                sheet_title = f"Problem sheet: Chapter {number}, {title}"
                self.document_data.append((docname, target, sheet_title, author, "howto", False))

    def get_contentsname(self, indexfile: str) -> str:
        # Sphinx names the contents after the root page's first toctree caption ("Foundations")
        return "Contents"

    def update_doc_context(self, title: str, author: str, theme) -> None:
        super().update_doc_context(title, author, theme)
        # a problem sheet (the howto class) has no table of contents
        self._contents = getattr(self, "_contents", self.context.get("tableofcontents", ""))
        self.context["tableofcontents"] = "" if theme.name == "howto" else self._contents

    def assemble_doctree(self, indexfile: str, toctree_only: bool, appendices: list[str]) -> nodes.document:
        if indexfile in self._chapter_numbers and indexfile != self._root:
            tree = self._problem_sheet(indexfile)
        else:
            tree = self._book(indexfile)
        logger.info(__name__ + ": resolving references...")
        self.env.resolve_references(tree, indexfile, self)
        # references to pages not in this document (the API reference) keep their text only
        for pending in list(tree.findall(addnodes.pending_xref)):
            pending.replace_self(nodes.inline("", "", *pending.children))
        if indexfile != self._root:
            self._number_equation_references(tree)
        _breakable_literals(tree)
        return tree

    def _number_equation_references(self, tree: nodes.document) -> None:
        """A problem sheet holds no equations: its references to the book's are written as
        their numbers there, "(2.4)" (the chapter's number, then the equation's in it)."""
        equations = self.env.get_domain("math").equations
        for ref in list(tree.findall(math_reference)):
            docname, number = equations.get(ref["target"], (ref["docname"], None))
            chapter = self._chapter_numbers.get(docname)
            text = f"({chapter}.{number})" if chapter and number else f"({number})"
            ref.replace_self(nodes.Text(text))
        # figure and table references ("Fig. 2.3"): their text, which already holds the number
        for ref in list(tree.findall(addnodes.number_reference)):
            ref.replace_self(nodes.Text(ref.astext()))

    # --- the book ---

    def _page(self, docname: str) -> addnodes.start_of_file:
        """A page as the book prints it: its content, without its table-of-contents nodes
        (the book's structure comes from ``_toc.yml``; the root page's toctrees list the
        whole book)."""
        self.docnames.add(docname)
        tree = self.env.get_doctree(docname).deepcopy()
        for toctree in list(tree.findall(addnodes.toctree)):
            wrapper = toctree.parent
            wrapper.remove(toctree)
            if isinstance(wrapper, nodes.compound) and not wrapper.children:
                wrapper.parent.remove(wrapper)
        sof = addnodes.start_of_file(docname=docname)
        sof.children = tree.children
        for child in sof.children:
            child.parent = sof
        for section in sof.findall(nodes.section):
            section.setdefault("docname", docname)
        return sof

    def _book(self, root: str) -> nodes.document:
        self.docnames = {root}
        tree = new_document("<pdf edition>", self.env.get_doctree(root).settings)
        tree["docname"] = root
        top = nodes.section(ids=["pdf-edition"])
        top += nodes.title("", self._book_title)  # the document title: LaTeX skips it
        tree += top
        # Front matter: the preface, unnumbered (its content only: LaTeX's template already
        # labels the root document).
        preface = self._page(root)
        top += _raw("\\setcounter{secnumdepth}{-1}")
        top.extend(preface.children)
        for part in self._parts:
            chapters = [d for d in part["chapters"] if not _left_out(d) and d != "book/bibliography"]
            if not chapters:
                continue
            top += _raw(f"\\setcounter{{secnumdepth}}{{{2 if part['numbered'] else -1}}}")
            top += _raw(f"\\part{{{part['caption']}}}")
            for docname in chapters:
                page = self._page(docname)
                if part["numbered"]:
                    self._fold_for_print(page)
                    self._collect_solutions(page, docname)
                top += page
        if "book/bibliography" in self.env.all_docs:
            # its citations go to Sphinx's bibliography at the end; its own heading would be empty
            page = self._page("book/bibliography")
            for section in list(page.children):
                if isinstance(section, nodes.section):
                    index = page.index(section)
                    page.remove(section)
                    for offset, child in enumerate(c for c in section.children if not isinstance(c, nodes.title)):
                        page.insert(index + offset, child)
            top += _raw("\\setcounter{secnumdepth}{-1}")
            top += page
        return tree

    @staticmethod
    def _fold_for_print(page: nodes.Element) -> None:
        """Leave out what the website folds away: hidden code cells' inputs, hidden outputs."""
        for cell in list(page.findall(nodes.container)):
            classes = cell.get("classes", [])
            if "cell" not in classes:
                continue
            if "tag_hide-cell" in classes:
                cell.parent.remove(cell)
                continue
            for child in list(cell.children):
                child_classes = child.get("classes", []) if isinstance(child, nodes.Element) else []
                if ("tag_hide-input" in classes and "cell_input" in child_classes) or (
                    "tag_hide-output" in classes and "cell_output" in child_classes
                ):
                    cell.remove(child)

    @staticmethod
    def _collect_solutions(page: nodes.Element, docname: str) -> None:
        """Move the chapter's solutions to a "Solutions" section at its end."""
        solutions = list(page.findall(solution_node))
        if not solutions:
            return
        chapter = next((c for c in page.children if isinstance(c, nodes.section)), None)
        if chapter is None:
            return
        section = nodes.section(ids=[f"{docname.replace('/', '-')}-solutions"], docname=docname)
        section += nodes.title("", "Solutions")
        for solution in solutions:
            solution.parent.remove(solution)
            section += solution
        chapter += section

    # --- the problem sheets ---

    def _problem_sheet(self, docname: str) -> nodes.document:
        """The chapter's exercises, in order, without their solutions."""
        self.docnames = {docname}
        source = self.env.get_doctree(docname)
        tree = new_document(f"<problem sheet {docname}>", source.settings)
        tree["docname"] = docname
        sof = addnodes.start_of_file(docname=docname)
        top = nodes.section(ids=[f"sheet-{docname.replace('/', '-')}"], docname=docname)
        top += nodes.title("", "Problem sheet")
        number = self._chapter_numbers[docname]
        top += nodes.paragraph(
            "",
            f"The exercises of Chapter {number} of {self._book_title}. The solutions are in "
            "the book (the end of the chapter) and in the instructors' answer key.",
        )
        exercises = [n for n in source.findall() if isinstance(n, (exercise_node, exercise_enumerable_node))]
        for exercise in exercises:
            top += copy.deepcopy(exercise)
        sof += top
        tree += sof
        return tree


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_exercise")
    app.add_builder(PdfEditionBuilder, override=True)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
