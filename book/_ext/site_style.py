"""The website's page furniture: one search box per page.

sphinx-book-theme 1.3 on pydata-sphinx-theme 0.17 draws the header bar of pydata's theme
above the book's own layout, with a "Search Ctrl+K" field of its own (the theme option
``navbar_persistent``), so every page showed two search boxes: the header's and the
sidebar's. The header's persistent items are emptied here; the sidebar's search field and,
on a phone, the header's search button remain.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.config import Config


def _one_search_box(app: Sphinx, config: Config) -> None:
    options = dict(config.html_theme_options or {})
    options.setdefault("navbar_persistent", [])
    config.html_theme_options = options


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _one_search_box)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
