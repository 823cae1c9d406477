"""Parts of the site that are generated from the code instead of retyped.

* ``.. imlkit-interpretation-table::`` -- the three-questions table from
  :data:`imlkit.importance.INTERPRETATION_TABLE` and :data:`imlkit.importance.QUESTIONS`.
* ``.. imlkit-cli-help:: report`` -- the output of ``imlkit report --help`` (run at build time).
* Plain-text mathematics in docstrings (``x_-j``, ``|S|``) is escaped before reST reads it:
  the docstrings write formulas the way ``help()`` shows them best, and reST would take
  ``x_-j`` for a hyperlink reference and ``|S|`` for a substitution.
* ``docs/api/_more_<module>.rst`` (written when the extension loads, not kept in git): an
  autosummary of the public names (``__all__``) that the hand-grouped API page of that module
  does not list yet, included at the end of the page under "More public names". A name added
  to ``__all__`` is therefore documented at once; move it into its group on the page when
  convenient.
* A check after reading all pages: every name in the ``__all__`` of the public modules is
  documented somewhere in the API reference (as itself or as the object it re-exports);
  a missing one is a Sphinx warning, so ``make docs`` (``-W``) fails.
"""
from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: The modules whose ``__all__`` the API reference must cover.
PUBLIC_MODULES = ("imlkit", "imlkit.importance", "imlkit.effects", "imlkit.models", "imlkit.samplers",
                  "imlkit.plotting", "imlkit.datasets", "imlkit.report")

#: The API page of each public module (docs/api/<page>.rst).
API_PAGES = {"imlkit": "imlkit", "imlkit.importance": "importance", "imlkit.effects": "effects",
             "imlkit.models": "models", "imlkit.samplers": "samplers", "imlkit.plotting": "plotting",
             "imlkit.datasets": "datasets", "imlkit.report": "report", "imlkit.local": "local"}

#: Row labels of the three-questions table (the keys of INTERPRETATION_TABLE).
METHOD_LABELS = {"pfi": "PFI", "cfi": "CFI", "loco": "LOCO", "lofo": "LOFO",
                 "sage_marginal": "marginal SAGE", "sage_conditional": "conditional SAGE", "pimp": "PIMP",
                 "shap_mean_abs": "SHAP importance", "shap_loss_mean": "loss SHAP"}


# a word ending in "_" followed by "-" (x_-j, PD_-j, f_-j): reST's "reference_" syntax
_REFERENCE_LIKE = re.compile(r"(?<=\w)_(?=-)")
# |S|, |N_l|, |α_k|, |{i : ...}|: a set's size or an absolute value, not a reST substitution
_SUBSTITUTION_LIKE = re.compile(r"(?<![|\\])\|(\{[^|`]*\}|[^\s|`][^|`]{0,7}?)\|(?![\w|])")
_LITERAL = re.compile(r"(``.+?``|`[^`]+`_?)")


def _escape_math(text):
    parts = _LITERAL.split(text)
    for i in range(0, len(parts), 2):  # even parts are outside inline literals and roles
        parts[i] = _SUBSTITUTION_LIKE.sub(r"\\|\1\\|", _REFERENCE_LIKE.sub(r"\\_", parts[i]))
    return "".join(parts)


def escape_plain_math(app, what, name, obj, options, lines):
    """autodoc-process-docstring: escape reST markup characters in plain-text formulas."""
    in_literal, literal_indent = False, 0
    for k, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if in_literal:
            if stripped and indent <= literal_indent:
                in_literal = False
            else:
                continue
        if stripped.startswith((">>>", "...")) or stripped.startswith(".. "):
            continue
        lines[k] = _escape_math(line)
        if stripped.endswith("::"):
            in_literal, literal_indent = True, indent


class _GeneratedRst(SphinxDirective):
    def _parse(self, lines):
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=self.get_source_info()[0]), self.content_offset,
                                container)
        return container.children


class InterpretationTable(_GeneratedRst):
    """A list-table: one row per key of INTERPRETATION_TABLE, one column per question."""

    has_content = False

    def run(self):
        from imlkit.importance import INTERPRETATION_TABLE, QUESTIONS

        def cell(text):
            return text.replace("|", "\\|") or " "

        lines = [".. list-table::", "   :header-rows: 1", "   :widths: 18 27 27 28", ""]
        lines += ["   * - method"] + [f"     - {cell(q)}" for q in QUESTIONS]
        for method, answers in INTERPRETATION_TABLE.items():
            label = METHOD_LABELS.get(method, method)
            lines.append(f"   * - {label} (``{method}``)")
            lines += [f"     - {cell(answers[q])}" for q in range(1, len(QUESTIONS) + 1)]
        return self._parse(lines)


class CliHelp(_GeneratedRst):
    """The ``--help`` text of an ``imlkit`` sub-command, as the installed command prints it."""

    required_arguments = 1
    has_content = False

    def run(self):
        command = self.arguments[0]
        env = dict(os.environ, COLUMNS="100", PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run([sys.executable, "-m", "imlkit.cli", command, "--help"], capture_output=True,
                             text=True, env=env, timeout=120)
        if out.returncode != 0:
            logger.warning("imlkit %s --help failed: %s", command, out.stderr.strip()[-500:],
                           location=self.get_location())
        text = out.stdout.rstrip()
        block = nodes.literal_block(text, text, language="text")
        return [block]


def skip_member(app, what, name, obj, skip, options):
    """autodoc-skip-member: leave out scikit-learn's generated metadata-routing setters
    (``set_fit_request``, ``set_score_request``, ...), which every estimator inherits."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def check_public_names(app, env):
    """Warn for every public name the API reference does not document."""
    domain = env.get_domain("py")
    objects = domain.objects  # full name -> ObjectEntry
    modules = domain.modules  # module name -> ModuleEntry
    documented = {}
    for full_name in objects:
        module_name, _, attr = full_name.rpartition(".")
        try:
            documented[id(getattr(importlib.import_module(module_name), attr))] = full_name
        except Exception:  # a method or attribute of a class: not a module-level name
            continue
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            full = f"{module_name}.{name}"
            obj = getattr(module, name)
            if inspect.ismodule(obj) and obj.__name__ in modules:
                continue
            if full in objects or id(obj) in documented:
                continue
            logger.warning("public name %s is not in the API reference (docs/api/*.rst)", full,
                           type="imlkit", subtype="api")


_AUTOSUMMARY_BLOCK = re.compile(r"^\.\. autosummary::\n((?:[ \t]+.*\n|[ \t]*\n)+)", re.MULTILINE)


def _listed_names(text):
    """The names listed in the autosummary blocks of an API page."""
    names = []
    for block in _AUTOSUMMARY_BLOCK.findall(text):
        for line in block.splitlines():
            item = line.strip()
            if item and not item.startswith(":"):
                names.append(item.lstrip("~"))
    return names


def write_more_pages(api_dir):
    """Write api/_more_<page>.rst for the public names the hand-written pages do not list."""
    listed_ids, texts = set(), {}
    for module_name, page in API_PAGES.items():
        texts[module_name] = (api_dir / f"{page}.rst").read_text(encoding="utf-8")
        module = importlib.import_module(module_name)
        for name in _listed_names(texts[module_name]):
            obj = getattr(module, name, None)
            if obj is not None:
                listed_ids.add(id(obj))
    documented_modules = set(API_PAGES)
    for module_name, page in API_PAGES.items():
        module = importlib.import_module(module_name)
        missing = []
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj) and obj.__name__ in documented_modules:
                continue
            if id(obj) not in listed_ids:
                missing.append(name)
                listed_ids.add(id(obj))
        lines = [".. Written by docs/_ext/imlkit_docs.py; do not edit.", ""]
        if missing:
            lines += [f".. currentmodule:: {module_name}", "", "More public names", "-----------------", "",
                      "Not yet placed in a group above.", "",
                      ".. autosummary::", "   :toctree: generated/", ""]
            lines += [f"   {name}" for name in missing]
        target = api_dir / f"_more_{page}.rst"
        text = "\n".join(lines) + "\n"
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")  # unchanged files keep their time: no re-read


def setup(app):
    app.add_directive("imlkit-interpretation-table", InterpretationTable)
    app.add_directive("imlkit-cli-help", CliHelp)
    app.connect("env-updated", check_public_names)
    app.connect("autodoc-process-docstring", escape_plain_math)
    app.connect("autodoc-skip-member", skip_member)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
