"""Read every node of a fitted scikit-learn tree as a rule: the conjunction of the splits above it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import ValidationError
from ._rules import Condition, Rule

__all__ = ["tree_rules"]


def tree_rules(tree, feature_names=None):
    """Every node of a fitted decision tree as a :class:`Rule`.

    Parameters
    ----------
    tree : fitted DecisionTreeClassifier or DecisionTreeRegressor (or anything with ``tree_``)
    feature_names : sequence of str, optional
        Names of the tree's input columns. Default: the tree's ``feature_names_in_`` when it was
        fitted on a DataFrame, else ``x0, x1, ...``.

    Returns
    -------
    DataFrame, shape (node_count, 8)
        One row per node in depth-first order (node 0 is the root), with columns

        - ``node``, ``parent`` (-1 for the root), ``depth``, ``is_leaf``;
        - ``n_samples``: training rows reaching the node;
        - ``prediction``: the node's majority class (classifier) or mean (regressor);
        - ``rule``: the node as a :class:`Rule` whose antecedent is the conjunction of the
          split conditions on the path from the root (``x <= t`` to the left child, ``x > t``
          to the right), bounds on one feature merged into a range; the root's is empty;
        - ``text``: the antecedent as text.

    Notes
    -----
    A tree with t terminal nodes has 2t − 1 nodes, hence 2(t − 1) non-root rules
    (Friedman & Popescu 2008). A row satisfies a node's rule iff it passes through the node.
    scikit-learn's routing of missing values is not represented: missing values satisfy no
    ``<=``/``>`` condition.

    References
    ----------
    Friedman, J. H., & Popescu, B. E. (2008). Predictive learning via rule ensembles.
    The Annals of Applied Statistics, 2(3), 916-954.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> t = DecisionTreeRegressor(max_depth=1).fit(X, (X[:, 0] > 3).astype(float))
    >>> tree_rules(t)["text"].tolist()
    ['TRUE', 'x0 <= 3.5', 'x0 > 3.5']
    """
    t = getattr(tree, "tree_", None)
    if t is None or not hasattr(t, "children_left"):
        raise TypeError(f"'tree' must be a fitted scikit-learn decision tree; got {type(tree).__name__}.")
    n_features = int(t.n_features)
    if feature_names is None:
        names = getattr(tree, "feature_names_in_", None)
        feature_names = list(names) if names is not None else [f"x{j}" for j in range(n_features)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != n_features:
        raise ValidationError(f"'feature_names' must have {n_features} entries (the tree's features); "
                              f"got {len(feature_names)}.")
    left, right = t.children_left, t.children_right
    classes = getattr(tree, "classes_", None)
    value = t.value[:, 0, :] if t.value.ndim == 3 else t.value
    if classes is not None and np.ndim(classes) == 1:
        prediction = list(np.asarray(classes)[np.argmax(value, axis=1)])
    else:
        prediction = list(value[:, 0])
    rows = []
    stack = [(0, -1, 0, ())]
    while stack:
        node, parent, depth, conds = stack.pop()
        leaf = left[node] == right[node]
        rule = Rule(conds, prediction[node]).simplify()
        rows.append((node, parent, depth, bool(leaf), int(t.n_node_samples[node]), prediction[node], rule,
                     rule.antecedent))
        if not leaf:
            f, thr = feature_names[t.feature[node]], float(t.threshold[node])
            # right pushed first so the left child comes out first (depth-first, left to right)
            stack.append((int(right[node]), node, depth + 1, conds + (Condition(f, ">", thr),)))
            stack.append((int(left[node]), node, depth + 1, conds + (Condition(f, "<=", thr),)))
    return pd.DataFrame(rows, columns=["node", "parent", "depth", "is_leaf", "n_samples", "prediction", "rule",
                                       "text"])
