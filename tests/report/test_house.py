"""The report's modules import in one direction: no section imports another (issue 24, item 5).

A section (``_sec_*.py``) or the reading (``_reading.py``) reads what it shares with the others from
the shared modules (``_ranking``, ``_shared``, ``_scores``, ``_claims``, ...), never from another
section; only ``_build`` (which runs them in order) imports the sections. The imports are read
from the source (every ``import`` statement, also those inside functions), not by importing.
"""
import ast
from pathlib import Path

import imlkit.report

REPORT = Path(imlkit.report.__file__).parent
#: The modules that hold a section's own work: nothing but ``_build`` imports them.
SECTION_PREFIXES = ("_sec_", "_reading")
ORCHESTRATORS = {"_build", "__init__"}


def report_imports(path):
    """The report modules ``path`` imports (module names like ``_sec_data``), from every import statement."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from ._x import ... / from . import _x
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(alias.name for alias in node.names)
            elif node.level == 0 and (node.module or "").startswith("imlkit.report."):
                out.add(node.module.split(".")[2])
            elif node.level == 0 and node.module == "imlkit.report":
                out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("imlkit.report."):
                    out.add(alias.name.split(".")[2])
    return out


def is_section(name):
    return name.startswith(SECTION_PREFIXES)


def test_the_import_reader_sees_every_form(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from ._sec_a import x\nfrom . import _reading\nimport imlkit.report._sec_b\n"
                   "def f():\n    from imlkit.report._sec_c import y\n    from .._trees import t\n", encoding="utf-8")
    assert report_imports(src) == {"_sec_a", "_reading", "_sec_b", "_sec_c"}


def test_no_module_but_build_imports_a_section():
    modules = sorted(REPORT.glob("*.py"))
    assert sum(is_section(p.stem) for p in modules) >= 8  # the sections are where this test looks
    sideways = {p.stem: sorted(n for n in report_imports(p) if is_section(n) and n != p.stem)
                for p in modules if p.stem not in ORCHESTRATORS}
    assert {k: v for k, v in sideways.items() if v} == {}
