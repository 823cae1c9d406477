"""Figures of the report: drawn with matplotlib's object API and inlined as base64 PNG.

No pyplot (no global state, no GUI backend) and no math-text parsing, because column names
come from the data and a ``$`` in a name must be drawn as a dollar sign, not parsed. Every
text of a figure is bounded before it is drawn (:func:`bound_texts`): a 200,000-character
column name in a tick label once made one PNG 17,000 inches wide (12 GB, six minutes).
"""
from __future__ import annotations

import base64
import io
from contextlib import contextmanager

import numpy as np

__all__ = ["new_figure", "to_data_uri", "bound_texts", "figure_block", "draw_dependence", "draw_importance_comparison",
           "draw_performance"]

_RC = {"text.parse_math": False, "font.size": 9, "axes.titlesize": 10, "figure.dpi": 100,
       "savefig.bbox": "tight", "svg.fonttype": "none"}


@contextmanager
def report_style():
    import matplotlib

    with matplotlib.rc_context(_RC):
        yield


def new_figure(nrows=1, ncols=1, figsize=(6, 4)):
    """A Figure (not registered with pyplot) and its Axes."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def bound_texts(fig):
    """Every text of ``fig`` shortened in place (:func:`imlkit._names.short_label`).

    Tick labels given as a list (``set_yticklabels``) or as strings (a categorical axis) are
    produced by the axis' formatter at drawing time, so those formatters are wrapped; titles,
    axis labels, legend entries, colour-bar labels and free texts are Text artists. Names up
    to 40 characters and texts up to 200 are left as they are.
    """
    from matplotlib.category import StrCategoryFormatter
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    from .._names import short_label

    def shortened(formatter):
        return FuncFormatter(lambda x, pos=None: short_label(formatter(x, pos)))

    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            major, minor = axis.get_major_formatter(), axis.get_minor_formatter()
            if isinstance(major, (FixedFormatter, FuncFormatter, StrCategoryFormatter)):
                axis.set_major_formatter(shortened(major))
            if isinstance(minor, (FixedFormatter, FuncFormatter, StrCategoryFormatter)):
                axis.set_minor_formatter(shortened(minor))
    for t in fig.findobj(Text):
        s = t.get_text()
        if s:
            short = short_label(s)
            if short != s:
                t.set_text(short)
    return fig


def to_data_uri(fig, dpi=100):
    """The figure as a ``data:image/png;base64,...`` URI (its texts bounded first)."""
    bound_texts(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figure_block(fig, alt, caption=None):
    """A report block holding one inline image."""
    return {"kind": "image", "src": to_data_uri(fig), "alt": alt, "caption": caption}


def draw_dependence(r2, ax, threshold):
    """Horizontal bars of each feature's R² from the others, the warning threshold dashed."""
    vals = r2.dropna().sort_values()
    ax.barh(np.arange(len(vals)), vals.to_numpy(), color=["C3" if v > threshold else "C0" for v in vals])
    ax.set_yticks(np.arange(len(vals)))
    ax.set_yticklabels([str(i) for i in vals.index])
    ax.axvline(threshold, color="grey", ls="--", lw=1)
    ax.set_xlim(0, 1)
    ax.set_xlabel("R² of the feature from all other features (linear fit)")
    ax.set_title("Dependence between features")
    return ax


def draw_importance_comparison(results, ax, max_features=15, labels=None):
    """Every method's importance divided by its largest value, with scaled interval whiskers.

    Methods have different units (losses, loss ratios, Shapley values), so only the
    relative sizes are compared; the tables give the values in their own units.
    """
    names = []
    for r in results.values():
        for f in r.feature_names:
            if f not in names:
                names.append(f)
    score = {f: 0.0 for f in names}
    scaled = {}
    for key, r in results.items():
        top = np.nanmax(np.abs(r.importance)) if len(r.importance) else 0.0
        top = top if np.isfinite(top) and top > 0 else 1.0
        scaled[key] = (r, top)
        for f, v in zip(r.feature_names, r.importance):
            score[f] += float(np.nan_to_num(v / top))
    order = sorted(names, key=lambda f: -score[f])[:max_features][::-1]
    k = len(results)
    height = 0.8 / max(k, 1)
    for m, (key, (r, top)) in enumerate(scaled.items()):
        pos = {f: i for i, f in enumerate(r.feature_names)}
        ys, vals, lo, hi = [], [], [], []
        for i, f in enumerate(order):
            if f not in pos:
                continue
            j = pos[f]
            v = r.importance[j] / top
            ys.append(i - 0.4 + height * (k - m - 0.5))
            vals.append(v)
            lo.append(v - r.ci_low[j] / top if np.isfinite(r.ci_low[j]) else 0.0)
            hi.append(r.ci_high[j] / top - v if np.isfinite(r.ci_high[j]) else 0.0)
        err = np.clip(np.array([lo, hi], dtype=float), 0, None)
        ax.barh(ys, vals, height=height, xerr=err, label=(labels or {}).get(key, key), color=f"C{m}",
                ecolor="black", capsize=1.5, error_kw={"lw": 0.6})
    ax.set_yticks(np.arange(len(order)))
    ax.set_yticklabels(order)
    ax.axvline(0, color="grey", lw=0.8)
    # Wide intervals (a SAGE run that did not converge) must not squeeze the bars: clip the view.
    ax.set_xlim(min(-0.1, ax.get_xlim()[0]) if ax.get_xlim()[0] > -0.6 else -0.6, 1.35)
    ax.set_xlabel("importance / largest importance of the method (with its interval; the view is clipped "
                  "to [-0.6, 1.35])")
    ax.set_title("Importance side by side (relative to each method's largest value)")
    ax.legend(loc="lower right", fontsize=7)
    ax.set_ylim(-0.6, len(order) - 0.4)
    return ax


def draw_performance(table, metric, ax, intervals=None):
    """Bars of the main test metric of every model (black box, baselines, interpretable models).

    ``intervals`` (optional): name -> (low, high), drawn as whiskers.
    """
    names = list(table)
    vals = np.array([table[n].get(metric, np.nan) for n in names], dtype=float)
    err = None
    if intervals:
        lo = np.array([intervals.get(n, (np.nan, np.nan))[0] for n in names], dtype=float)
        hi = np.array([intervals.get(n, (np.nan, np.nan))[1] for n in names], dtype=float)
        err = np.nan_to_num(np.clip(np.vstack([vals - lo, hi - vals]), 0, None))
    ax.barh(np.arange(len(names)), vals, xerr=err, color=["C1" if i == 0 else "C0" for i in range(len(names))],
            ecolor="black", capsize=2)
    ax.set_yticks(np.arange(len(names)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel(f"test {metric}")
    ax.set_title(f"Test {metric} of each model")
    return ax
