"""Sphinx configuration of tensorlab's site (Sphinx + MyST-NB + furo).

The source folder is the repository root (so ``lessons/`` and ``exercises/`` are read in place,
never copied) and this folder holds the configuration and the pages; build it with::

    sphinx-build -c docs -W --keep-going -b html . docs/_build/html

Notebooks are rendered from their saved outputs: nothing is executed at build time.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))

from tensorlab import __version__  # noqa: E402

project = "tensorlab"
author = "tensorlab contributors"
copyright = "tensorlab contributors (MIT licence)"
release = version = __version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "tensorlab_docs",  # docs/_ext: the CLI reference, explorers' alt text, MathJax served locally
]

root_doc = "docs/index"
include_patterns = ["docs/**", "lessons/*.ipynb", "exercises/*.ipynb"]
exclude_patterns = [
    "docs/_build/**",
    "docs/_ext/**",
    "docs/_root/**",
    "docs/README.landing.md",  # the repository's README, not a page of the site
    "**/.ipynb_checkpoints/**",
]
html_extra_path = ["_root"]  # index.html at the site's root: forwards to docs/index.html

# ---------------------------------------------------------------------------- notebooks (MyST-NB)
nb_execution_mode = "off"  # lessons are saved executed; the site shows those outputs
nb_merge_streams = True
# outputs collapsed in a notebook (predict-then-reveal answers) start collapsed on the site
nb_custom_formats = {".ipynb": ("tensorlab_docs.read_notebook", {}, False)}
# Explorers save a widget view and a PNG of their picture: the site shows the picture (the widget
# needs a kernel), and no widget JavaScript is loaded from a CDN.
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "application/vnd.jupyter.widget-state+json", None),
]
nb_ipywidgets_js = {}
mathjax_path = "mathjax/tex-chtml.js"  # _static/mathjax: copied by tensorlab_docs, no CDN
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "html_image"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

# ---------------------------------------------------------------------------- API reference
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # signatures as written; types are in the text
# docstrings may name private helpers (tensorlab.viz._conv_model...): not part of the reference
nitpick_ignore_regex = [(r"py:.*", r"tensorlab\.(.*\.)?_\w+(\..*)?")]
autodoc_default_options = {"members": True, "undoc-members": False}

# ---------------------------------------------------------------------------- HTML
html_theme = "furo"
html_title = f"tensorlab {version}"
html_static_path = ["_static"]
html_css_files = ["tensorlab.css"]
html_favicon = "_static/favicon.png"  # a Sobel kernel, 32 px
html_show_sourcelink = False
html_copy_source = False
