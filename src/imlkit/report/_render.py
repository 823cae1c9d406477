"""Rendering the sections to HTML (jinja2, autoescape on) and writing the file atomically.

The output is checked before any work (:func:`prepare_output`): a run whose report would
overwrite one of its input files, or whose ``--out`` cannot be created or written, stops
with one clear error in seconds instead of after minutes of computation.
"""
from __future__ import annotations

import glob
import os
import re
import tempfile
import time

__all__ = ["render_html", "write_atomic", "prepare_output", "OutputPlan", "TMP_PREFIX"]

#: Prefix of the temporary file a report is written to before its atomic rename.
TMP_PREFIX = ".imlkit-report-"
#: A temporary report file older than this (seconds) was left by a killed run (SIGKILL, power
#: loss: no handler runs) and is removed by the next run writing to the same directory; a live
#: run keeps its temporary file for the seconds of one write.
STALE_TMP_SECONDS = 600

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


def render_html(sections, title, subtitle, version, created, alerts=(), names=()):
    """The report as one HTML string; ``alerts`` are warning boxes shown above every section.

    ``names`` are the data's column names: one longer than :data:`imlkit._names.NAME_LIMIT`
    characters is shortened wherever the sections show it, with the full name (up to
    ``TOOLTIP_LIMIT`` characters) in a ``title`` tooltip. Control characters left anywhere in
    the page (a name's escape sequences, a level, an error message) are written as visible
    escapes (``\\x1b``): autoescaping makes ``<>&`` harmless but passes them through.
    """
    from .._names import escape_controls

    shorten = _name_shortener(names)
    if shorten is not None:
        sections = [_shorten_section(s, shorten) for s in sections]
        alerts = [shorten(a) for a in alerts]
    html = _environment().get_template("report.html.j2").render(
        sections=sections, title=title, subtitle=subtitle, version=version, created=created, alerts=list(alerts))
    return escape_controls(html, keep_layout=True)


#: Most characters of a long column name a tooltip holds (a pasted 200,000-character cell
#: would otherwise be copied into the page at every place the name appears).
TOOLTIP_LIMIT = 2000


def _name_shortener(names):
    """A function text -> text or Markup that shortens the long ``names`` in it (None: none)."""
    from markupsafe import Markup, escape

    from .._names import NAME_LIMIT, escape_controls, short_name

    long = sorted({str(n) for n in names if len(str(n)) > NAME_LIMIT}, key=len, reverse=True)
    if not long:
        return None
    pattern = re.compile("|".join(re.escape(n) for n in long))

    def tooltip(name):
        full = escape_controls(name[:TOOLTIP_LIMIT])
        if len(name) > TOOLTIP_LIMIT:
            full += f"… ({len(name):,} characters in all)"
        return full

    spans = {n: Markup('<span class="name" title="{}">{}</span>').format(tooltip(n), short_name(n)) for n in long}

    def shorten(value, markup=True):
        if not isinstance(value, str) or not pattern.search(value):
            return value
        if not markup:  # an attribute (an image's alt text): the short name only
            return pattern.sub(lambda m: short_name(m.group(0)), value)
        out, pos = Markup(""), 0
        for m in pattern.finditer(value):
            out += escape(value[pos:m.start()]) + spans[m.group(0)]
            pos = m.end()
        return out + escape(value[pos:])

    return shorten


def _shorten_section(section, shorten):
    """A new section record with the long names of its text, tables, lists and captions shortened."""
    out = dict(section)
    out["title"] = shorten(section.get("title"), markup=False)
    out["intro"] = shorten(section.get("intro"))
    blocks = []
    for b in section.get("blocks", ()):
        b = dict(b)
        kind = b.get("kind")
        if kind in ("text", "heading", "warning", "pre"):
            b["text"] = shorten(b["text"])
        elif kind == "list":
            b["items"] = [shorten(i) for i in b["items"]]
            b["title"] = shorten(b.get("title"))
        elif kind == "table":
            b["columns"] = [shorten(c) for c in b["columns"]]
            b["rows"] = [[shorten(v) for v in row] for row in b["rows"]]
            b["caption"] = shorten(b.get("caption"))
        elif kind == "image":
            b["alt"] = shorten(b.get("alt"), markup=False)
            b["caption"] = shorten(b.get("caption"))
        blocks.append(b)
    out["blocks"] = blocks
    return out


def write_atomic(path, content):
    """Write ``content`` to ``path`` through a temporary file in the same directory and a rename.

    A reader sees either the old file or the complete new one; an interrupted run leaves no
    half-written report (the temporary file is removed), and no other file is touched.
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".tmp", dir=directory)
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


class OutputPlan:
    """Where a run writes, checked: ``path`` (the report) and the directories it created.

    :meth:`discard` removes the directories this run created when it ends without a report
    (only while they are empty: nothing else is ever deleted).
    """

    def __init__(self, path, created):
        self.path = path
        self.created = list(created)

    def discard(self):
        for d in self.created:  # deepest first
            try:
                os.rmdir(d)
            except OSError:
                break


def _same_file(a, b):
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


def prepare_output(out, filename, inputs=(), *, option="--out"):
    """Check the output of a run before any computation; create its directory.

    Parameters
    ----------
    out : str or PathLike -- the directory of the report (created when missing)
    filename : str -- the report's file name inside ``out`` (a plain name, no directories)
    inputs : iterable of (what, path)
        The files the run reads (:func:`imlkit.report._config.input_paths`): the report may
        never resolve to one of them (symbolic and hard links included).
    option : str -- the option's name in the messages

    Returns
    -------
    OutputPlan

    Raises
    ------
    ReportInputError
        The report would overwrite an input file; ``out`` is a file, lies under a file, or
        cannot be created or written (checked with a probe file, removed at once).
    """
    from ._data import ReportInputError

    if not isinstance(filename, str) or not filename or filename in (".", "..") or os.sep in filename or (
            os.altsep and os.altsep in filename):
        raise ReportInputError(f"'filename' must be a plain file name (no directories); got {filename!r}.")
    if not isinstance(out, (str, os.PathLike)) or not os.fspath(out):
        raise ReportInputError(f"'{option}' must be a directory path; got {out!r}.")
    out = os.fspath(out)
    out_dir = os.path.abspath(out)
    path = os.path.join(out_dir, filename)
    for what, src in inputs:
        if _same_file(path, src):
            raise ReportInputError(f"'{option}' {out!r} would overwrite the {what} {src!r} (the report is written to "
                                   f"{filename!r} in {option}); choose another '{option}' directory.")
        if _same_file(out_dir, src):
            raise ReportInputError(f"'{option}' {out!r} is the {what} {src!r}; choose a directory for the report.")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ReportInputError(f"'{option}' {out!r} exists and is not a directory.")
    if os.path.isdir(path):
        raise ReportInputError(f"'{option}' {out!r} holds a directory named {filename!r}; the report cannot be "
                               f"written there.")
    missing = []
    d = out_dir
    while not os.path.exists(d):
        missing.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        OutputPlan(path, [m for m in missing if os.path.isdir(m)]).discard()
        raise ReportInputError(f"'{option}' {out!r} cannot be created: {_reason(exc)}.") from None
    plan = OutputPlan(path, missing)
    try:
        fd, probe = tempfile.mkstemp(prefix=".imlkit-probe-", suffix=".tmp", dir=out_dir)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        plan.discard()
        raise ReportInputError(f"'{option}' {out!r} is not writable: {_reason(exc)}.") from None
    _remove_stale_tmp(out_dir)
    return plan


def _reason(exc):
    if isinstance(exc, NotADirectoryError):
        return "a part of the path is a file, not a directory"
    return exc.strerror or type(exc).__name__


def _remove_stale_tmp(directory):
    """Temporary report files a killed run left behind (older than ``STALE_TMP_SECONDS``)."""
    now = time.time()
    for tmp in glob.glob(os.path.join(glob.escape(directory), TMP_PREFIX + "*.tmp")):
        try:
            if now - os.path.getmtime(tmp) > STALE_TMP_SECONDS:
                os.unlink(tmp)
        except OSError:
            pass
