"""Rendering the sections to HTML (jinja2, autoescape on) and writing the file atomically."""
from __future__ import annotations

import os
import re
import tempfile

__all__ = ["render_html", "write_atomic"]

_NUM = r"[-+−]?[\d,]*\.?\d+(e[-+]?\d+)?%?"
# A number, a dash for "none", or a number with its interval "1.2 [0.9, 1.5]": right-aligned cells.
_NUMBER = re.compile(rf"^{_NUM}$|^–$|^{_NUM} \[{_NUM}, {_NUM}\]$")


def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("imlkit.report", "templates"),
        # Every string from the data (column names, levels, rule texts) is escaped.
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.tests["number_like"] = lambda v: isinstance(v, str) and bool(_NUMBER.match(v))
    return env


def render_html(sections, title, subtitle, version, created, alerts=()):
    """The report as one HTML string; ``alerts`` are warning boxes shown above every section."""
    return _environment().get_template("report.html.j2").render(
        sections=sections, title=title, subtitle=subtitle, version=version, created=created, alerts=list(alerts))


def write_atomic(path, content):
    """Write ``content`` to ``path`` through a temporary file in the same directory and a rename.

    A reader sees either the old file or the complete new one; an interrupted run leaves no
    half-written report (the temporary file is removed), and no other file is touched.
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".imlkit-report-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path
