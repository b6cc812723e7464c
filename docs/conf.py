"""Sphinx configuration of the anonspread documentation site.

Build it (warnings are errors) from the repository root::

    pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html

The API reference (``docs/api/``) is written here, at configuration time, from the
``__all__`` of every package and public module (:mod:`docs._apigen`), so every public name
is listed and a new one needs no edit of the docs. The example gallery is made by
sphinx-gallery from ``examples/`` into ``docs/auto_examples/``; ``-D plot_gallery=0``
builds the site without running the examples. Both generated folders are git-ignored.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import anonspread

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _apigen import (  # noqa: E402
    BUILD_EXCLUDE,
    VALIDATION_CHECKS,
    write_api_pages,
)

os.environ.setdefault("MPLBACKEND", "Agg")

project = "anonspread"
author = "anonspread developers"
copyright = "anonspread developers"
release = anonspread.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
    "auto_examples/*.codeobj.json",
]
templates_path = ["_templates"]

# --- MyST: the Markdown guides are read as they are -----------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# --- API reference -------------------------------------------------------------------
write_api_pages(HERE / "api")
autosummary_generate = True
autosummary_generate_overwrite = False  # keeps the class pages docs/_apigen.py writes
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
autodoc_inherit_docstrings = False
add_module_names = False

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False
# numpydoc's validation of the public API: the checks and their scope are in _apigen.py,
# shared with tests/test_docs_site.py.
numpydoc_validation_checks = set(VALIDATION_CHECKS)
numpydoc_validation_exclude = set(BUILD_EXCLUDE)

# --- the example gallery -------------------------------------------------------------
# sphinx-gallery keeps the pages (and timing entries) of scripts that were renamed or
# removed, which would be orphan pages and dead links: such a gallery is made anew
_made = {p.name.split(".")[0].removesuffix("_codeobj")
         for p in (HERE / "auto_examples").glob("plot_*")}
if _made - {p.stem for p in (HERE.parent / "examples").glob("plot_*.py")}:
    shutil.rmtree(HERE / "auto_examples")
    (HERE / "sg_execution_times.rst").unlink(missing_ok=True)
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": str(HERE / "auto_examples"),
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "abort_on_example_error": True,
    "show_memory": False,
}

# --- HTML ----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"anonspread {release}"
html_static_path = ["_static"]
html_css_files = ["anonspread.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "changelog": []}
html_show_sourcelink = False
