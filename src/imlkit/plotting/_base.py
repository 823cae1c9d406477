"""Shared drawing helpers.

Every text drawn from the data (a feature name, a level, a rule) goes through
:func:`imlkit._names.short_label`: a name over 40 characters is cut with "…" and control
characters are escaped, so a pasted 200,000-character cell neither sizes the figure nor
takes matplotlib minutes and gigabytes to lay out.
"""
from __future__ import annotations

from .._names import short_label

#: Width of one character of a 10 pt label, in inches (a little above the average glyph, so
#: long labels get room rather than run off the figure).
CHAR_INCHES = 0.085


def new_figure(figsize=(6, 4), nrows=1, ncols=1, **kwargs):
    """A new figure with constrained layout (matplotlib is imported only now).

    Constrained layout sizes the axes so that tick labels, axis labels, titles, legends and
    texts outside the axes stay inside the figure, also under ``savefig`` without
    ``bbox_inches="tight"``. Returns ``(fig, axes)`` as ``plt.subplots`` does.
    """
    import matplotlib.pyplot as plt

    return plt.subplots(nrows, ncols, figsize=figsize, layout="constrained", **kwargs)


def get_ax(ax=None, figsize=(6, 4)):
    """The given Axes, or the Axes of a new constrained-layout figure."""
    if ax is not None:
        return ax
    _, ax = new_figure(figsize)
    return ax


def label_inches(labels, fontsize=10):
    """Approximate width in inches of the longest label (0 for none)."""
    longest = max((len(short_label(s)) for s in labels), default=0)
    return longest * CHAR_INCHES * fontsize / 10


def barh_figsize(labels, width=6.0, per_bar=0.35, extra_height=1.2):
    """Size of a horizontal bar chart: a bar's height per label and room for the longest label."""
    return (max(width, 3.5 + label_inches(labels)), per_bar * max(len(labels), 1) + extra_height)


def category_ticks(ax, positions, labels, axis="x"):
    """Categorical tick labels (shortened), turned by 45° when they would crowd each other."""
    labels = [short_label(s) for s in labels]
    if axis == "y":
        ax.set_yticks(positions)
        ax.set_yticklabels(labels)
        return
    ax.set_xticks(positions)
    # Horizontal labels need about their width each along the axis.
    width = ax.figure.get_figwidth() * ax.get_position().width
    crowded = len(labels) > 6 or sum(len(s) + 2 for s in labels) * CHAR_INCHES > width
    ax.set_xticklabels(labels, rotation=45 if crowded else 0, ha="right" if crowded else "center",
                       rotation_mode="anchor" if crowded else "default")


def wrap(text, inches, fontsize=10.0):
    """``text`` broken at spaces into lines of about ``inches`` at ``fontsize`` pt (a long
    feature name in a title or axis label would otherwise run past the figure's edge)."""
    import textwrap

    text = short_label(text)
    width = max(8, int(inches / (CHAR_INCHES * fontsize / 10)))
    if len(text) <= width:
        return text
    return "\n".join(textwrap.fill(line, width, break_long_words=False) for line in text.splitlines())


def set_labels(ax, title=None, xlabel=None, ylabel=None):
    """Title and axis labels, each wrapped to the length of its side of the Axes."""
    pos = ax.get_position()
    fig = ax.figure
    # 0.8: constrained layout later gives tick labels and colour bars part of the default box
    width, height = 0.8 * fig.get_figwidth() * pos.width, 0.8 * fig.get_figheight() * pos.height
    if title is not None:
        ax.set_title(wrap(title, width, 12))
    if xlabel is not None:
        ax.set_xlabel(wrap(xlabel, width))
    if ylabel is not None:
        ax.set_ylabel(wrap(ylabel, height))
