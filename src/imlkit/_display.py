"""How result objects show themselves: a short ``repr`` and a compact notebook table.

One mixin serves every result type (ImportanceResult, EffectResult, HStatisticResult,
HeterogeneityResult, RegionalResult, ShapResult). A result's arrays are never printed: ``repr``
says what was computed (class, method, loss or output, features, and from ``result.info`` the
rows evaluated and the seconds) and points to ``to_frame()``; ``_repr_html_`` (what Jupyter
shows) adds the head of ``to_frame()`` as an HTML table. The mixin is also the results' shared
base for their record: through :class:`imlkit._record.RunRecord` it splits ``params`` (what was
asked) from ``info`` (what happened) when a result is made.

The results are frozen dataclasses, whose decorator writes its own ``__repr__`` into the class
unless told not to (``repr=False``) or unless the class body defines one; a class that cannot
change its decorator defines ``__repr__ = ResultDisplay.__repr__`` in its body.
"""
from __future__ import annotations

import html

import numpy as np

from ._record import RunRecord

__all__ = ["ResultDisplay", "method_name", "summary_parts", "snap_zero", "tidy_frame", "p_text", "P_SHOWN_FLOOR",
           "num", "pct"]

#: Rows of ``to_frame()`` shown in a notebook.
MAX_HTML_ROWS = 20
#: Feature names listed by ``repr`` before "…".
MAX_NAMES = 6


def _target(result):
    """What the numbers are about: the loss of an importance, the output of an effect."""
    loss = getattr(result, "loss", None)
    if loss is not None:
        return f"loss {loss}"
    return str(getattr(result, "output", None) or "prediction")


def _format_seconds(seconds):
    return f"{seconds:.3g} s" if seconds >= 0.001 else "<1 ms"


#: Display names where the upper-cased method name reads badly.
_METHOD_NAMES = {"h_statistic": "H-statistic", "ice_heterogeneity": "c-ICE heterogeneity",
                 "sage_marginal": "SAGE (marginal)",
                 "sage_conditional": "SAGE (conditional)"}


def method_name(method):
    """``"pfi"`` -> ``"PFI"``, ``"h_statistic"`` -> ``"H-statistic"``."""
    return _METHOD_NAMES.get(method, str(method).upper())


def summary_parts(result):
    """The header pieces ``[METHOD, loss or output, "n rows", "t s"]`` (missing ones left out)."""
    parts = [method_name(result.method), _target(result)]
    info = getattr(result, "info", None) or {}
    rows = info.get("n_rows")
    if rows is not None:
        parts.append(f"{int(rows):,} rows")
    seconds = info.get("seconds")
    if seconds is not None:
        parts.append(_format_seconds(float(seconds)))
    return parts


def _names(result):
    names = [str(n) for n in result.feature_names]
    shown = ", ".join(names[:MAX_NAMES]) + (", …" if len(names) > MAX_NAMES else "")
    word = "feature" if len(names) == 1 else "features"
    return f"{len(names)} {word}: {shown}"


def _frame_float(v):
    s = f"{v:.4g}"
    return "0" if s == "-0" else s


#: A value within this share of its scale is floating-point noise and is shown as 0.
ZERO_RTOL = 1e-9
#: Columns that hold a share of variance (H², H): their scale is at least 1.
_SHARE_COLUMNS = ("h2", "h", "H²", "H")


def snap_zero(values, scale=None, rtol=ZERO_RTOL):
    """``values`` (float array) with every entry within ``rtol * scale`` of 0 set to exactly 0 (and -0 to 0).

    ``scale`` defaults to the largest finite |value|: an H² of 1e-30 beside one of 0.2, or a loss
    difference of 1e-15 beside one of 0.3, is rounding noise, not a number to print.

    Examples
    --------
    >>> snap_zero([0.2, 1e-30, -0.0, 0.05]).tolist()
    [0.2, 0.0, 0.0, 0.05]
    """
    v = np.array(values, dtype=float)
    finite = np.isfinite(v)
    if scale is None:
        scale = float(np.max(np.abs(v[finite]))) if finite.any() else 0.0
    v[finite & (np.abs(v) <= rtol * scale)] = 0.0
    return v + 0.0  # -0.0 + 0.0 is 0.0


def _is_p_column(col):
    name = str(col)
    return name.startswith(("p_", "p (", "p-")) or name == "p"


def tidy_frame(frame):
    """A copy of ``frame`` whose float columns have their rounding noise at 0 (:func:`snap_zero`).

    p-value columns (names starting with "p_", "p-" or "p (") are left as they are: their small
    values are the point. A share-of-variance column (H², H) is snapped relative to 1.
    """
    out = frame.copy()
    for col in out.columns:
        name = str(col)
        if out[col].dtype.kind != "f" or _is_p_column(name):
            continue
        values = out[col].to_numpy(dtype=float)
        finite = np.isfinite(values)
        scale = float(np.max(np.abs(values[finite]))) if finite.any() else 0.0
        if name in _SHARE_COLUMNS:
            scale = max(scale, 1.0)
        out[col] = snap_zero(values, scale)
    return out


#: p-values below this are shown as "< 1e-16", never with their digits (nor as 0). Every p-value printed here
#: beyond it comes from a tail no computation resolves to any digit: a tail fitted to a few dozen null
#: refits (PIMP, far beyond every null value), a normal approximation of a rank test (LOCO's Wilcoxon
#: beyond 50 rows, whose relative error grows without bound in the tail), or a tail that underflowed to
#: exactly 0. 1e-16 is about double precision's epsilon (R's ``format.pval`` shows "< 2.2e-16" for the
#: same reason); a p-value of exactly 0 is never true of a test with a continuous or finite null.
P_SHOWN_FLOOR = 1e-16


def p_text(p, digits=3):
    """A p-value as text: ``digits`` significant digits, ``"< 1e-16"`` below :data:`P_SHOWN_FLOOR` (0 included),
    ``"–"`` for NaN (no test).

    Examples
    --------
    >>> p_text(0.0), p_text(6.09e-284), p_text(4.48e-06), p_text(0.0335), p_text(1.0), p_text(float("nan"))
    ('< 1e-16', '< 1e-16', '4.48e-06', '0.0335', '1', '–')
    """
    p = float(p)
    if np.isnan(p):
        return "–"
    if p < P_SHOWN_FLOOR:
        return "< 1e-16"
    return f"{p:.{digits}g}"


def p_is(p):
    """``"= 0.0335"`` or ``"< 1e-16"``: a p-value after "p" in a sentence or a title (:func:`p_text`).

    Examples
    --------
    >>> p_is(0.0335), p_is(0.0)
    ('= 0.0335', '< 1e-16')
    """
    t = p_text(p)
    return t if t.startswith("<") else f"= {t}"


class ResultDisplay(RunRecord):
    """Mixin giving a result a short ``__repr__`` and a notebook ``_repr_html_``.

    The class needs ``method``, ``feature_names``, ``params``, ``info`` and ``to_frame()``;
    ``loss`` or ``output`` are read when present, the rows and seconds from ``info``. A class may override
    :meth:`_display_frames` to show more than one table.
    """

    __slots__ = ()

    def _display_frames(self):
        """``[(caption or None, DataFrame)]`` shown by ``_repr_html_``."""
        return [(None, self.to_frame())]

    def __repr__(self):
        head = " · ".join(summary_parts(self))
        shapes = "; ".join(f"{caption + ' ' if caption else ''}{f.shape[0]} × {f.shape[1]}"
                           for caption, f in self._display_frames())
        lines = [f"{type(self).__name__}({head})", f"  {_names(self)}", f"  to_frame(): {shapes}"]
        n_warn = len(getattr(self, "warnings", ()) or ())
        if n_warn:
            lines.append(f"  {n_warn} warning{'s' if n_warn > 1 else ''}: see explain()")
        return "\n".join(lines)

    def _repr_html_(self):
        head = " · ".join(html.escape(p) for p in summary_parts(self))
        out = [f'<div class="imlkit-result"><p><strong>{html.escape(type(self).__name__)}</strong> · {head}</p>']
        n_warn = len(getattr(self, "warnings", ()) or ())
        if n_warn:
            out.append(f"<p>{n_warn} warning{'s' if n_warn > 1 else ''}: see <code>explain()</code></p>")
        for caption, frame in self._display_frames():
            if caption:
                out.append(f"<p>{html.escape(caption)}</p>")
            shown = tidy_frame(frame.head(MAX_HTML_ROWS))
            for col in shown.columns:   # a p-value of 0 (an underflowed tail) or 1e-284 is shown as "< 1e-16"
                if str(col) in ("p_value", "p_adjusted", "p") and shown[col].dtype.kind == "f":
                    shown[col] = [p_text(v, 4) for v in shown[col]]
            out.append(shown.to_html(escape=True, float_format=_frame_float, border=0, max_cols=12))
            if len(frame) > MAX_HTML_ROWS:
                out.append(f"<p>… {len(frame) - MAX_HTML_ROWS} more rows: <code>to_frame()</code></p>")
        out.append("</div>")
        return "\n".join(out)

# The numbers of every sentence imlkit prints (the report's reading, the results' explain()): one rule.
def num(v):
    """A number as the sentences show it: 3 significant digits, ``0`` for zero (never ``-0``), thousands as people
    write them (``1,280`` and ``26,000``, not ``1.28e+03``; as section 1's summaries), scientific notation only from
    1e7 or below 1e-3.

    Examples
    --------
    >>> num(1283.4), num(-25973.0), num(0.000596), num(-0.0), num(2.4e-06), num(3.3e8)
    ('1,280', '-26,000', '0.000596', '0', '2.4e-06', '3.3e+08')
    """
    v = float(v)
    if not np.isfinite(v):
        return "–" if np.isnan(v) else str(v)
    s = f"{v:.3g}"
    if s in ("-0", "0"):
        return "0"
    if 1e3 <= abs(float(s)) < 1e7:
        return f"{float(s):,.0f}"
    return s


def pct(share):
    """A share as a percentage (``0.4312`` -> ``43%``; small ones keep two significant digits; ``–`` when unknown).

    Examples
    --------
    >>> pct(0.4312), pct(0.0123), pct(float("nan"))
    ('43%', '1.2%', '–')
    """
    p = 100 * float(share)
    if not np.isfinite(p):
        return "–"
    return f"{p:.0f}%" if abs(p) >= 10 else f"{p:.2g}%"
