"""Names the report's sections share: the importance methods' labels and the feature budget's group.

Kept apart from the sections so that the reading (:mod:`._claims`) and the importance section
name things alike without importing each other.
"""
from __future__ import annotations

from .._display import method_name

__all__ = ["METHOD_LABELS", "OTHERS"]

#: The importance methods' display names, from the one name table (:func:`imlkit._display.method_name`).
METHOD_LABELS = {k: method_name(k) for k in ("pfi", "cfi", "loco", "lofo", "sage_marginal", "sage_conditional",
                                             "pimp")}

#: The group of the features beyond the feature budget (SAGE, LOCO/LOFO and PIMP score it as one).
OTHERS = "all other features"
