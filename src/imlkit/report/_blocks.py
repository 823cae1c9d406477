"""The report's content blocks: plain dicts the HTML template renders (text, tables, lists, warnings).

A section is ``{"id", "title", "intro", "blocks"}``; a block is a dict with a ``kind``
("text", "warning", "list", "table", "heading", "pre", "image") and its fields. Every cell and
sentence is text by the time it reaches the template, which escapes it.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Section", "text", "heading", "pre", "warning", "bullets", "table", "collapse", "frame_table", "fmt",
           "one_line"]


def Section(id, title, blocks, intro=None):  # noqa: N802 - a record constructor
    """One section of the report: an anchor id, a heading and a list of blocks."""
    return {"id": id, "title": title, "intro": intro, "blocks": list(blocks)}


def one_line(exc, limit=300):
    """An exception as one line of text: ``Type: message`` with whitespace collapsed, shortened."""
    msg = " ".join(str(exc).split())
    line = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return line if len(line) <= limit else line[:limit - 1] + "…"


def text(s):
    return {"kind": "text", "text": str(s)}


def heading(s):
    """A sub-heading inside a section."""
    return {"kind": "heading", "text": str(s)}


def pre(s):
    """Preformatted text (a tree, a rule list), shown in a monospaced font."""
    return {"kind": "pre", "text": str(s)}


def warning(s):
    return {"kind": "warning", "text": str(s)}


def bullets(items, title=None):
    return {"kind": "list", "items": [str(i) for i in items], "title": title}


def table(columns, rows, caption=None, numeric=None, css=None):
    """A table block; every cell is turned into text here (the template escapes it).

    ``css``: a class name for the template's style sheet (``"wide"``: cells never wrap, the first
    column stays in view while the table scrolls sideways).
    """
    return {"kind": "table", "columns": [str(c) for c in columns],
            "rows": [[fmt(v) for v in row] for row in rows], "caption": caption, "css": css}


#: Rows of a long ranked table shown open; the others sit in an expandable ``<details>`` below it.
TABLE_TOP = 20


def collapse_ranked(block, top=TABLE_TOP):
    """A ranked table block showing its first ``top`` rows, the rest behind a summary line (:func:`collapse`); a
    handful more than ``top`` stay open (collapsing them hides more than it saves)."""
    rows = block["rows"]
    if len(rows) <= top + 5:
        return block
    return collapse(block, top, f"Show the other {len(rows) - top:,} features (ranked below the top {top})")


def collapse(block, keep, label):
    """``block`` (a table) showing its first ``keep`` rows, the others behind ``label``.

    The report has no scripts: the template renders ``block["more"]`` as a second table inside
    ``<details>``, which a browser expands on a click.
    """
    rows = block["rows"]
    block["rows"], block["more"] = rows[:keep], rows[keep:]
    block["more_label"] = label
    return block


def frame_table(frame, caption=None, index=True, digits=4, snap=False):
    """A DataFrame as a table block; ``snap``: float columns show rounding noise as 0 (``_display.tidy_frame``)."""
    if snap:
        from .._display import tidy_frame

        frame = tidy_frame(frame)
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    rows = []
    for idx, row in frame.iterrows():
        rows.append(([idx] if index else []) + [fmt(v, digits) for v in row.tolist()])
    return table(cols, rows, caption)


def fmt(v, digits=4):
    """A short, readable text for a number (significant digits), or ``str`` of anything else.

    Examples
    --------
    >>> fmt(0.123456), fmt(1234567.0), fmt(12345), fmt(float("nan")), fmt(True)
    ('0.1235', '1.23e+06', '12,345', '–', 'yes')
    """
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if not np.isfinite(v):
            return "–" if np.isnan(v) else str(v)
        if v == 0:
            return "0"
        if abs(v) >= 10 ** digits or abs(v) < 10 ** -(digits - 1):
            return f"{v:.{digits - 1}g}" if abs(v) < 1e6 else f"{v:.3g}"
        return f"{v:.{digits}g}"
    return str(v)
