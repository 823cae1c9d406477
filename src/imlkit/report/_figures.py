"""Figures of the report: drawn with matplotlib's object API and inlined as base64 PNG.

No pyplot (no global state, no GUI backend) and no math-text parsing, because column names
come from the data and a ``$`` in a name must be drawn as a dollar sign, not parsed. Every
text of a figure is bounded before it is drawn (:func:`bound_texts`): a 200,000-character
column name in a tick label once made one PNG 17,000 inches wide (12 GB, six minutes).
"""
from __future__ import annotations

import base64
import io
import warnings
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
    """The figure as a ``data:image/png;base64,...`` URI (its texts bounded first).

    Drawn once: the figure is laid out (constrained layout) and rendered on an Agg canvas, and
    the picture is cropped to its drawn pixels plus ``PAD_INCHES`` on each side -- what
    ``savefig(bbox_inches="tight")`` gives, which lays the figure out and draws it twice (a
    layout-only draw to find the bounding box, then the drawing; 4.9 s CPU of the default report's
    15 figures, 3.7 s drawn once). The layout keeps every Axes with its labels, ticks, legend and
    texts inside the canvas; where something may still be cut -- the layout gave up (its
    "constrained_layout not applied" warning), a figure-level artist (``fig.text``,
    ``fig.legend``, ...) reaches beyond the canvas, or drawn pixels touch the canvas' edge --
    ``savefig(bbox_inches="tight")`` is used after all: it grows the canvas to every artist.
    """
    bound_texts(fig)
    png = _png_drawn_once(fig, dpi)
    if png is None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", pad_inches=PAD_INCHES)
        png = buf.getvalue()
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


#: Margin kept around the drawn pixels of a figure (matplotlib's ``savefig.pad_inches`` default).
PAD_INCHES = 0.1


def _png_drawn_once(fig, dpi):
    """PNG bytes of ``fig`` cropped to its drawn pixels (one layout, one drawing), or None when
    something drawn touches the canvas' edge (it may reach beyond it)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgba
    from PIL import Image

    if fig.subfigs:
        return None
    if fig.dpi != dpi:
        fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        canvas.draw()
    gave_up = any(str(rec.message).startswith("constrained_layout not applied") for rec in caught)
    if not gave_up:   # the draw's other warnings, as the two draws of savefig would have let them out
        for rec in caught:
            warnings.warn_explicit(rec.message, rec.category, rec.filename, rec.lineno)
    rgba = np.asarray(canvas.buffer_rgba())
    h, w = rgba.shape[:2]
    if gave_up or _beyond_canvas(fig, canvas.get_renderer(), w, h):
        return None
    background = np.round(np.asarray(to_rgba(fig.get_facecolor())) * 255).astype(np.uint8)
    # pixels that differ from the background in any channel, as a row and a column profile
    drawn = (rgba.view(np.uint32).reshape(h, w) != background.view(np.uint32)[0])
    rows, cols = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    if not len(rows):
        r0, r1, c0, c1 = 0, h, 0, w
    else:
        r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
        if r0 == 0 or c0 == 0 or r1 == h or c1 == w:
            return None
    pad = int(round(PAD_INCHES * dpi))
    out = np.empty((r1 - r0 + 2 * pad, c1 - c0 + 2 * pad, 4), dtype=np.uint8)
    out[...] = background
    out[pad:pad + r1 - r0, pad:pad + c1 - c0] = rgba[r0:r1, c0:c1]
    if (out[..., 3] == 255).all():
        image = Image.fromarray(out[..., :3].copy(), "RGB")   # opaque: no alpha channel to store
    else:
        image = Image.fromarray(out, "RGBA")
    buf = io.BytesIO()
    image.save(buf, format="png", dpi=(dpi, dpi))
    return buf.getvalue()


def _beyond_canvas(fig, renderer, w, h):
    """Whether an artist placed on the figure itself (not in an Axes, which the layout fits)
    reaches beyond the ``w`` x ``h`` pixel canvas."""
    for artist in (*fig.texts, *fig.legends, *fig.images, *fig.artists, *fig.patches, *fig.lines):
        if not artist.get_visible():
            continue
        box = artist.get_window_extent(renderer)
        if box.x0 < 0 or box.y0 < 0 or box.x1 > w or box.y1 > h:
            return True
    return False


def figure_block(fig, alt, caption=None):
    """A report block holding one inline image."""
    return {"kind": "image", "src": to_data_uri(fig), "alt": alt, "caption": caption}


def draw_dependence(r2, ax, threshold, max_features=None):
    """Horizontal bars of each feature's R² from the others, the warning threshold dashed.

    ``max_features``: draw only the features with the largest R² (a wide table's chart would
    be hundreds of inches tall); the title says how many of how many are shown.
    """
    vals = r2.dropna().sort_values()
    n_all = len(vals)
    if max_features is not None and n_all > max_features:
        vals = vals.iloc[-max_features:]
    ax.barh(np.arange(len(vals)), vals.to_numpy(), color=["C3" if v > threshold else "C0" for v in vals])
    ax.set_yticks(np.arange(len(vals)))
    ax.set_yticklabels([str(i) for i in vals.index])
    ax.axvline(threshold, color="grey", ls="--", lw=1)
    ax.set_xlim(0, 1)
    ax.set_xlabel("R² of the feature from all other features (linear fit)")
    ax.set_title("Dependence between features" if len(vals) == n_all
                 else f"Dependence between features: the {len(vals)} largest R² of {n_all}")
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
