"""Shared drawing helpers."""
from __future__ import annotations


def get_ax(ax=None, figsize=(6, 4)):
    """The given Axes, or the Axes of a new figure (matplotlib is imported only now)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax
