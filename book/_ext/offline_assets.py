"""Serve MathJax and the ipywidgets JavaScript from the site itself.

By default Sphinx loads MathJax, and myst-nb loads RequireJS and the
``@jupyter-widgets/html-manager`` bundle, from public CDNs, so a page shows no
math and no widget controls without a network. This extension makes the site
self-contained:

1. It takes each asset from its npm package (pinned version, checked against
   the registry's sha512 integrity hash) and unpacks the files the site needs
   into ``.cache/web-assets/`` at the repository root. Only the first build on a
   machine downloads (about 11 MB); later builds, and every build offline, use
   the cache. Set ``SHUFFLE_DP_ASSETS`` to use another cache folder (for
   example one prepared on a machine with network access).
2. It copies those files into the site's ``_static/vendor/`` folder and points
   ``mathjax_path`` and myst-nb's ``nb_ipywidgets_js`` at them, so no page
   refers to a CDN.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import tarfile
import urllib.request
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.builders.html._assets import _JavaScript
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

REGISTRY = "https://registry.npmjs.org"

#: npm package -> (version, sha512 integrity, files to keep: prefix inside the tarball)
PACKAGES = {
    "mathjax": (
        "3.2.2",
        "Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        # The combined TeX + CHTML component, its fonts, and the pieces it may load on demand.
        (
            "package/es5/tex-chtml-full.js",
            "package/es5/output/chtml/",
            "package/es5/input/tex/extensions/",
            "package/es5/ui/",
            "package/es5/a11y/",
            "package/LICENSE",
        ),
    ),
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        "5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        # embed-amd.js bundles @jupyter-widgets/base, controls and output, plus its icon fonts.
        ("package/dist/", "package/LICENSE"),
    ),
    "requirejs": (
        "2.3.8",
        "7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
        ("package/require.js", "package/README.md"),
    ),
}

#: Where each asset lands below ``_static/vendor/``.
MATHJAX_JS = "vendor/mathjax/es5/tex-chtml-full.js"
REQUIRE_JS = "vendor/requirejs/require.js"
WIDGETS_JS = "vendor/html-manager/dist/embed-amd.js"


#: Maps the MathJax 2 call of the widget JavaScript onto MathJax 3 (see the file's comment).
HUB_SHIM = (Path(__file__).with_name("mathjax_hub_shim.js")).read_text()

#: The widget bundle finds its fonts next to the URL RequireJS gives its AMD modules, which
#: by default is ``@jupyter-widgets/html-manager/dist/`` below the *page's* folder (six font
#: requests answered by 404). Point that module path at the vendored folder instead; the
#: site's root is the ``data-content_root`` attribute Sphinx writes on ``<html>``.
REQUIRE_PATHS = (
    "require.config({paths: {'@jupyter-widgets/html-manager/dist': new URL("
    "(document.documentElement.dataset.content_root || '') + "
    "'_static/vendor/html-manager/dist', document.baseURI).href}});"
)


def _cache_dir(app: Sphinx) -> Path:
    env = os.environ.get("SHUFFLE_DP_ASSETS")
    if env:
        return Path(env)
    return Path(app.confdir) / ".cache" / "web-assets"


def _folder_name(package: str) -> str:
    return package.rsplit("/", 1)[-1]


def _fetch(package: str, version: str, integrity: str) -> bytes:
    name = _folder_name(package)
    url = f"{REGISTRY}/{package}/-/{name}-{version}.tgz"
    logger.info(f"offline_assets: downloading {package}@{version} from the npm registry")
    try:
        with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310 (fixed https URL)
            data = response.read()
    except OSError as exc:
        raise ExtensionError(
            f"offline_assets: {package}@{version} is not in the asset cache and could not be "
            f"downloaded ({exc}). Build once with network access to the npm registry, or set "
            "SHUFFLE_DP_ASSETS to a prepared cache folder."
        ) from exc
    digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != integrity:
        raise ExtensionError(f"offline_assets: integrity check failed for {package}@{version}")
    return data


def ensure_assets(cache: Path) -> Path:
    """Unpack every pinned package into ``cache`` (downloading only what is missing)."""
    for package, (version, integrity, keep) in PACKAGES.items():
        target = cache / f"{_folder_name(package)}-{version}"
        stamp = target / ".complete"
        if stamp.exists():
            continue
        data = _fetch(package, version, integrity)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            members = [
                m
                for m in tar.getmembers()
                if m.isfile() and not m.name.endswith(".map") and m.name.startswith(keep)
            ]
            for member in members:
                member.name = member.name[len("package/") :]
            tar.extractall(target, members=members, filter="data")
        stamp.write_text(f"{package}@{version}\n")
    return cache


def _on_builder_inited(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    cache = ensure_assets(_cache_dir(app))
    static = Path(app.outdir) / "_static" / "vendor"
    for package, (version, _, _) in PACKAGES.items():
        src = cache / f"{_folder_name(package)}-{version}"
        dest = static / _folder_name(package)
        if not (dest / ".complete").exists() or (dest / ".complete").read_text() != (
            src / ".complete"
        ).read_text():
            shutil.copytree(src, dest, dirs_exist_ok=True)


def _on_config_inited(app: Sphinx, config) -> None:
    config.mathjax_path = MATHJAX_JS
    config.nb_ipywidgets_js = {
        REQUIRE_JS: {},
        # No CDN for widget modules that are not bundled: the book only uses the built-in ones.
        WIDGETS_JS: {"data-jupyter-widgets-cdn": "_static/vendor/no-cdn/"},
    }


def _tidy_page_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Drop repeated ``<script>`` entries and let the widgets typeset with MathJax 3.

    With Jupyter Book 1.x some extensions register the same inline script twice
    (for example sphinx-thebe's ``const THEBE_JS_URL = ...``), which makes the
    browser report "Identifier has already been declared". A script is a
    repeat when its file name (``None`` and ``""`` both mean "inline"), inline body
    and attributes are all the same.

    The widget JavaScript calls the MathJax 2 API, so :data:`HUB_SHIM` goes in
    just before MathJax (after Sphinx's ``window.MathJax = {...}`` configuration), and
    :data:`REQUIRE_PATHS` just after RequireJS, so the widget fonts are found.
    """
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        filename = getattr(script, "filename", str(script)) or ""
        attributes = getattr(script, "attributes", {})
        key = (filename, tuple(sorted(attributes.items())))
        if key in seen:
            continue
        seen.add(key)
        if str(filename).endswith(MATHJAX_JS):
            unique.append(_JavaScript("", priority=getattr(script, "priority", 500), body=HUB_SHIM))
        unique.append(script)
        if str(filename).endswith(REQUIRE_JS):
            unique.append(_JavaScript("", priority=getattr(script, "priority", 500), body=REQUIRE_PATHS))
    context["script_files"] = unique


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _on_config_inited, priority=900)
    app.connect("builder-inited", _on_builder_inited)
    app.connect("html-page-context", _tidy_page_scripts, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
