"""Column names from the data, made safe to show: on a terminal, in HTML, in a figure.

A column name is whatever the user's file holds: a pasted cell of 200,000 characters, or a
name carrying terminal escape sequences (``ESC ]0;title BEL`` retitles the user's terminal,
``ESC [31m`` recolours it) or bidirectional overrides that reorder the text around them.
Every place that shows a name goes through one of these functions:

- :func:`escape_controls` -- control characters (C0, DEL, C1) and the bidirectional
  embedding/override/isolate characters written as visible ``repr``-style escapes
  (``\\x1b``, ``\\n``, ``\\u202e``); everything else, accents and symbols included, unchanged.
- :func:`terminal_safe` -- one stderr line: every control character escaped, the newline too.
- :func:`short_label` -- a figure text holding names ("ICE of <name>"): every word longer
  than ``NAME_LIMIT`` shortened, the whole cut to ``LABEL_LIMIT`` characters.
- :func:`short_name` -- a name for a figure label or a table cell: escaped and cut to
  ``limit`` characters with "…" (the full name goes in a tooltip or the features table).
"""
from __future__ import annotations

import re

__all__ = ["escape_controls", "terminal_safe", "short_name", "short_label", "NAME_LIMIT", "LABEL_LIMIT", "CONTROL_RE"]

#: Characters a figure label or a table cell shows of a name before "…".
NAME_LIMIT = 40
#: Characters a whole figure text (a title, an axis label, a legend entry) keeps before "…".
LABEL_LIMIT = 200

# C0 controls, DEL and C1 controls (U+0080-U+009F: U+009B is a one-character CSI on some
# terminals), and the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
# U+2066-U+2069) that reorder the text shown around them.
_CONTROLS = "\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
#: Every character :func:`terminal_safe` escapes.
CONTROL_RE = re.compile(f"[{_CONTROLS}]")
# The same without tab, newline and carriage return, which are layout, not commands, in a
# block of text (an HTML page, a multi-line message).
_CONTROL_KEEP_LAYOUT_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match):
    ch = match.group(0)
    # repr's spelling: \n, \t, \r for the usual three, \xNN below 256, \uNNNN above
    return ch.encode("unicode_escape").decode("ascii")


def escape_controls(text, *, keep_layout=False):
    """``text`` with its control characters written as visible escapes.

    Parameters
    ----------
    text : object -- turned into ``str`` first
    keep_layout : bool, default False
        Keep tab, newline and carriage return as they are (for a block of text); by default
        they are escaped too, as everything else that is not a printable character.

    Examples
    --------
    >>> escape_controls("a\\x1b[31mb\\tc")
    'a\\\\x1b[31mb\\\\tc'
    >>> escape_controls("x\\ty", keep_layout=True)
    'x\\ty'
    >>> escape_controls("Größe €")
    'Größe €'
    """
    text = str(text)
    pattern = _CONTROL_KEEP_LAYOUT_RE if keep_layout else CONTROL_RE
    return pattern.sub(_escape, text)


def terminal_safe(text):
    """One line for the terminal: every control character of ``text`` escaped (newlines too).

    Examples
    --------
    >>> terminal_safe("imlkit: error: column 'a\\x1b]0;pwned\\x07'")
    "imlkit: error: column 'a\\\\x1b]0;pwned\\\\x07'"
    """
    return escape_controls(text)


def short_name(name, limit=NAME_LIMIT):
    """``name`` escaped (:func:`escape_controls`) and cut to ``limit`` characters plus "…".

    A name at most ``limit`` characters long (after escaping) is returned unchanged, so short
    names, the usual case, read exactly as in the data.

    Parameters
    ----------
    name : object -- turned into ``str`` first
    limit : int, default NAME_LIMIT (40)

    Examples
    --------
    >>> short_name("temp")
    'temp'
    >>> short_name("x" * 100, limit=10)
    'xxxxxxxxxx…'
    >>> short_name("a\\x1bb")
    'a\\\\x1bb'
    """
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"'limit' must be an int >= 1; got {limit!r}.")
    # Only the head is escaped: a 200,000-character name costs no more than a short one.
    text = escape_controls(str(name)[:limit + 1])
    return text if len(text) <= limit else text[:limit] + "…"


def short_label(text, word_limit=NAME_LIMIT, limit=LABEL_LIMIT):
    """A figure text made bounded: long words shortened, the whole cut, controls escaped.

    Titles, axis labels and legend entries hold names inside sentences ("ICE of <name>"); a
    name of 200,000 characters would make matplotlib lay out (and ``bbox_inches="tight"``
    rasterise) a text 17,000 inches wide. Every run of non-space characters longer than
    ``word_limit`` is cut to it with "…", then the text to ``limit`` characters; line breaks
    are kept (a wrapped label stays wrapped).

    Examples
    --------
    >>> short_label("ICE of " + "x" * 100, word_limit=5)
    'ICE of xxxxx…'
    >>> short_label("two\\nlines")
    'two\\nlines'
    """
    text = str(text)
    lines = []
    for line in text.split("\n"):
        line = re.sub(rf"\S{{{word_limit + 1},}}", lambda m: short_name(m.group(0), word_limit), line)
        lines.append(escape_controls(line))
    text = "\n".join(lines)
    return text if len(text) <= limit else text[:limit] + "…"
