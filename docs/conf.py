"""Sphinx configuration of the imlkit documentation (``make docs``; warnings are errors)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The source tree first, so a checkout documents itself even where another imlkit is installed.
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")
# One BLAS/OpenMP thread: the examples are small, and on a shared machine OpenMP's spin-waiting
# threads make a HistGradientBoosting fit ~20x slower (see imlkit/_parallel.py).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from imlkit_docs import API_PAGES, write_more_pages  # noqa: E402

import imlkit  # noqa: E402

# Public names the hand-grouped API pages do not list yet (docs/api/_more_*.rst, included at
# the end of each page): written before autosummary reads the pages.
write_more_pages(HERE / "api")

project = "imlkit"
author = "the imlkit developers"
copyright = "the imlkit developers, BSD-3-Clause"
version = release = imlkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "imlkit_docs",  # docs/_ext: tables and CLI help generated from the API, public-name coverage check
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "examples/README.rst", "**/GALLERY_HEADER.rst", "api/_more_*.rst"]
templates_path = ["_templates"]

# --- API reference: one autosummary page per public name, from the numpydoc docstrings
# the API pages and their generated "more" parts (included, so not documents of their own)
autosummary_generate = [f"api/{page}.rst" for page in API_PAGES.values()] + [
    f"api/_more_{page}.rst" for page in API_PAGES.values()]
autosummary_imported_members = False
autodoc_typehints = "none"  # the numpydoc "Parameters" section is the one place types are written
numpydoc_show_class_members = False  # the class template lists the methods itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# --- markdown (docs/design.md)
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # the design document starts at "#" and skips levels on purpose

# --- executed examples (the course's worked examples)
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "min_reported_time": 1,
    "matplotlib_animations": False,
    "reference_url": {},
    "backreferences_dir": None,
    "show_memory": False,
    "write_computation_times": False,  # (sphinx-gallery >= 0.18)
    "capture_repr": (),  # the examples print what they show; no stray reprs of the last expression
    "plot_gallery": "True",
    "abort_on_example_error": False,
}

# --- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"imlkit {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
html_show_sourcelink = False
