"""Decision rules as objects: a condition, a rule, an unordered rule set and a decision list.

A :class:`Rule` is ``IF c_1 AND ... AND c_k THEN consequent``. Its antecedent is evaluated
column-wise on a whole DataFrame at once, giving a boolean mask of the rows it covers; every
other quantity (coverage, accuracy, which rule fired) is computed from such masks.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import ValidationError, check_X, check_y

__all__ = ["Condition", "Rule", "RuleSet", "DecisionList", "rule_masks"]

#: Operators a :class:`Condition` understands. ``"between"`` is the half-open interval
#: ``low < x <= high`` that cut points produce; ``"isna"`` matches missing values.
OPERATORS = ("<=", "<", ">", ">=", "==", "!=", "in", "not in", "between", "isna")


def _fmt(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, str):
        return repr(v)
    return str(v)


@dataclass(frozen=True)
class Condition:
    """One test on one feature, e.g. ``temp <= 0.5`` or ``weathersit in ('clear', 'misty')``.

    Parameters
    ----------
    feature : str
        Column name (arrays are addressed as ``x0, x1, ...``).
    op : {"<=", "<", ">", ">=", "==", "!=", "in", "not in", "between", "isna"}
    value : scalar, tuple of labels (``in``/``not in``), ``(low, high)`` (``between``) or None (``isna``)

    Notes
    -----
    Missing values satisfy no numeric comparison, ``==`` or ``in``; they do satisfy ``!=`` and
    ``not in`` (as a one-hot dummy of another level would say) and ``isna``.
    """

    feature: str
    op: str
    value: object = None

    def __post_init__(self):
        if self.op not in OPERATORS:
            shown = ", ".join(repr(o) for o in OPERATORS)
            raise ValidationError(f"'op' must be one of {shown}; got {self.op!r}.")
        if self.op in ("in", "not in"):
            vals = self.value
            if isinstance(vals, (str, numbers.Number)) or vals is None:
                vals = (vals,)
            object.__setattr__(self, "value", tuple(vals))
        if self.op == "between":
            if not (isinstance(self.value, (tuple, list)) and len(self.value) == 2):
                raise ValidationError(f"'value' of a 'between' condition must be (low, high); got {self.value!r}.")
            object.__setattr__(self, "value", (self.value[0], self.value[1]))

    def mask(self, X):
        """Boolean array of shape (n,): which rows of DataFrame ``X`` satisfy the condition."""
        if self.feature not in X.columns:
            raise ValidationError(f"Unknown feature {self.feature!r} in a rule; the columns are {list(X.columns)}.")
        s = X[self.feature]
        op, v = self.op, self.value
        if op == "isna":
            out = s.isna()
        elif op == "==":
            out = s.isin([v])
        elif op == "!=":
            out = ~s.isin([v])
        elif op == "in":
            out = s.isin(list(v))
        elif op == "not in":
            out = ~s.isin(list(v))
        else:
            if isinstance(s.dtype, pd.CategoricalDtype) and not s.dtype.ordered:
                raise ValidationError(f"Condition {self} compares the unordered categorical feature "
                                      f"{self.feature!r} by order; use '==' or 'in'.")
            if op == "<=":
                out = s <= v
            elif op == "<":
                out = s < v
            elif op == ">":
                out = s > v
            elif op == ">=":
                out = s >= v
            else:  # between
                out = (s > v[0]) & (s <= v[1])
        out = out.to_numpy()
        if out.dtype != bool:  # nullable dtypes give pd.NA for missing: they satisfy nothing
            out = pd.array(out, dtype="boolean").fillna(False).to_numpy(dtype=bool)
        return out

    def __str__(self):
        f, op, v = self.feature, self.op, self.value
        if op == "isna":
            return f"{f} is missing"
        if op == "between":
            return f"{_fmt(v[0])} < {f} <= {_fmt(v[1])}"
        if op in ("in", "not in"):
            return f"{f} {op} (" + ", ".join(_fmt(x) for x in v) + ")"
        return f"{f} {op} {_fmt(v)}"


def _as_condition(c):
    if isinstance(c, Condition):
        return c
    if isinstance(c, (tuple, list)) and len(c) in (2, 3):
        return Condition(*c)
    raise TypeError(f"A rule's condition must be a Condition or a tuple (feature, op, value); got {c!r}.")


def _as_frame(X, name="X"):
    frame, _ = check_X(X, name)
    return frame


class Rule:
    """``IF`` a conjunction of conditions ``THEN`` a consequent.

    Parameters
    ----------
    conditions : list of Condition or of tuples ``(feature, op, value)``
        The antecedent; an empty list is the always-true rule (a default rule).
    consequent : object, optional
        The predicted class (or value).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"status": ["Single", "Married", "Single", "Divorced"]})
    >>> r = Rule([("status", "==", "Single")], "No")
    >>> print(r)
    IF status == 'Single' THEN 'No'
    >>> float(r.coverage(X)), float(r.accuracy(X, ["No", "No", "Yes", "Yes"]))
    (0.5, 0.5)
    """

    def __init__(self, conditions=(), consequent=None):
        self.conditions = tuple(_as_condition(c) for c in conditions)
        self.consequent = consequent

    # ------------------------------------------------------------------ evaluation
    def mask(self, X):
        """Boolean array of shape (n,): the rows of ``X`` satisfying the antecedent."""
        frame = _as_frame(X)
        out = np.ones(len(frame), dtype=bool)
        for c in self.conditions:
            out &= c.mask(frame)
        return out

    def coverage(self, X):
        """Fraction of rows of ``X`` that satisfy the antecedent.

        Notes
        -----
        coverage = |{i : antecedent(x_i)}| / n
        """
        return float(self.mask(X).mean())

    def accuracy(self, X, y):
        """Fraction of the covered rows whose target equals the consequent (NaN if none is covered).

        Notes
        -----
        accuracy = |{i : antecedent(x_i) and y_i = consequent}| / |{i : antecedent(x_i)}|
        """
        frame = _as_frame(X)
        yy = check_y(y, len(frame))
        m = self.mask(frame)
        if not m.any():
            return float("nan")
        return float(np.mean(yy[m] == self.consequent))

    # ------------------------------------------------------------------ text
    @property
    def features(self):
        """The features the antecedent tests, in order of first use."""
        return list(dict.fromkeys(c.feature for c in self.conditions))

    @property
    def antecedent(self):
        """The antecedent as text (``TRUE`` for the empty rule)."""
        return " AND ".join(str(c) for c in self.conditions) if self.conditions else "TRUE"

    @property
    def text(self):
        return str(self)

    def __len__(self):
        return len(self.conditions)

    def __str__(self):
        if self.consequent is None:
            return f"IF {self.antecedent}"
        return f"IF {self.antecedent} THEN {_fmt(self.consequent)}"

    def __repr__(self):
        return f"Rule({str(self)!r})"

    def __eq__(self, other):
        return (isinstance(other, Rule) and set(self.conditions) == set(other.conditions)
                and self.consequent == other.consequent)

    def __hash__(self):
        return hash((frozenset(self.conditions), repr(self.consequent)))

    def simplify(self):
        """An equivalent rule with the bounds on each numeric feature merged into one condition.

        ``x > 1 AND x <= 5 AND x <= 3`` becomes ``1 < x <= 3``; other conditions are kept.
        """
        lows, highs, other, order = {}, {}, [], []
        for c in self.conditions:
            if c.op in ("<=", ">", "between"):
                lo, hi = (c.value if c.op == "between" else
                          (None, c.value) if c.op == "<=" else (c.value, None))
                if lo is not None:
                    lows[c.feature] = lo if c.feature not in lows else max(lows[c.feature], lo)
                if hi is not None:
                    highs[c.feature] = hi if c.feature not in highs else min(highs[c.feature], hi)
                if c.feature not in order:
                    order.append(c.feature)
            elif c not in other:
                other.append(c)
        merged = []
        for f in order:
            lo, hi = lows.get(f), highs.get(f)
            if lo is not None and hi is not None:
                merged.append(Condition(f, "between", (lo, hi)))
            elif lo is not None:
                merged.append(Condition(f, ">", lo))
            else:
                merged.append(Condition(f, "<=", hi))
        return Rule(merged + other, self.consequent)


def rule_masks(rules, X):
    """Boolean array of shape (n, n_rules): which rule covers which row.

    Each distinct condition is evaluated once, which matters for rules read off trees: they
    share the conditions of their common ancestors.
    """
    frame = _as_frame(X)
    out = np.ones((len(frame), len(rules)), dtype=bool)
    cache = {}
    for k, r in enumerate(rules):
        for c in r.conditions:
            m = cache.get(c)
            if m is None:
                m = cache[c] = c.mask(frame)
            out[:, k] &= m
    return out


def _check_rules(rules):
    rules = list(rules)
    for r in rules:
        if not isinstance(r, Rule):
            raise TypeError(f"'rules' must be a list of Rule objects; got an element {r!r}.")
    return rules


class _RuleCollection:
    def __init__(self, rules, default=None):
        self.rules = _check_rules(rules)
        self.default = default

    def masks(self, X):
        """Boolean array of shape (n, n_rules): which rule covers which row."""
        return rule_masks(self.rules, X)

    def is_mutually_exclusive(self, X):
        """True if no row of ``X`` is covered by more than one rule."""
        return bool((self.masks(X).sum(axis=1) <= 1).all())

    def is_exhaustive(self, X):
        """True if every row of ``X`` is covered by at least one rule (the default not counted)."""
        return bool(self.masks(X).any(axis=1).all())

    def score(self, X, y):
        """Accuracy of :meth:`predict` on ``(X, y)``."""
        frame = _as_frame(X)
        yy = check_y(y, len(frame))
        return float(np.mean(self.predict(frame) == yy))

    def __len__(self):
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, i):
        return self.rules[i]


class RuleSet(_RuleCollection):
    """An unordered set of rules: covering rules vote, uncovered rows get the default class.

    Parameters
    ----------
    rules : list of Rule
    default : object
        The class of rows no rule covers.
    weights : array-like of shape (n_rules,), optional
        Vote of each rule (1 each when omitted).

    Notes
    -----
    ŷ(x) = argmax_c Σ_{k : r_k covers x, consequent_k = c} w_k, ties going to the class whose
    first rule comes first; ŷ(x) = default if no rule covers x.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 2, 3]})
    >>> rs = RuleSet([Rule([("a", "<=", 1)], "lo"), Rule([("a", ">", 2)], "hi")], default="mid")
    >>> rs.predict(X).tolist(), rs.is_exhaustive(X), rs.is_mutually_exclusive(X)
    (['lo', 'mid', 'hi'], False, True)
    """

    def __init__(self, rules, default=None, weights=None):
        super().__init__(rules, default)
        if weights is None:
            weights = np.ones(len(self.rules))
        weights = np.asarray(weights, dtype=float)
        if weights.shape != (len(self.rules),):
            raise ValidationError(f"'weights' must have one entry per rule ({len(self.rules)}); "
                                  f"got shape {weights.shape}.")
        self.weights = weights

    def predict(self, X):
        """Predicted class per row, shape (n,)."""
        M = self.masks(X)
        labels = list(dict.fromkeys(r.consequent for r in self.rules))
        out = np.empty(M.shape[0], dtype=object)
        out[:] = self.default
        if not labels:
            return out
        votes = np.zeros((M.shape[0], len(labels)))
        for k, r in enumerate(self.rules):
            votes[:, labels.index(r.consequent)] += M[:, k] * self.weights[k]
        covered = M.any(axis=1)
        win = np.argmax(votes, axis=1)  # argmax keeps the first maximum: rule order breaks ties
        lab = np.empty(len(labels), dtype=object)
        lab[:] = labels
        out[covered] = lab[win[covered]]
        return out

    def explain(self, X):
        """Which rules fired for each row.

        Returns
        -------
        DataFrame, shape (n, 4)
            ``rules`` (list of fired rule indices), ``n_fired``, ``prediction`` and ``text``
            (the fired rules, or ``"default"``), indexed like ``X``.
        """
        frame = _as_frame(X)
        M = self.masks(frame)
        pred = self.predict(frame)
        fired = [list(np.flatnonzero(row)) for row in M]
        text = [" | ".join(str(self.rules[k]) for k in f) if f else "default" for f in fired]
        return pd.DataFrame({"rules": fired, "n_fired": M.sum(axis=1), "prediction": pred, "text": text},
                            index=frame.index)

    def __str__(self):
        lines = [str(r) for r in self.rules] + [f"ELSE {_fmt(self.default)}"]
        return "\n".join(lines)


class DecisionList(_RuleCollection):
    """An ordered list of rules: the first rule that covers a row decides; else the default.

    Parameters
    ----------
    rules : list of Rule
    default : object
        The class of rows no rule covers.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 2, 3]})
    >>> dl = DecisionList([Rule([("a", "<=", 2)], "lo"), Rule([("a", ">=", 2)], "hi")], default="?")
    >>> dl.predict(X).tolist(), dl.is_mutually_exclusive(X), dl.is_exhaustive(X)
    (['lo', 'lo', 'hi'], False, True)
    """

    def fired(self, X):
        """Index of the rule that decides each row, shape (n,); -1 for the default."""
        M = self.masks(X)
        if M.shape[1] == 0:
            return np.full(M.shape[0], -1)
        first = np.argmax(M, axis=1)
        return np.where(M.any(axis=1), first, -1)

    def predict(self, X):
        """Predicted class per row, shape (n,)."""
        idx = self.fired(X)
        lab = np.empty(len(self.rules) + 1, dtype=object)
        lab[:] = [r.consequent for r in self.rules] + [self.default]
        return lab[idx]  # index -1 is the default

    def explain(self, X):
        """Which rule fired for each row.

        Returns
        -------
        DataFrame, shape (n, 3)
            ``rule`` (index of the deciding rule, -1 for the default), ``prediction`` and ``text``,
            indexed like ``X``.
        """
        frame = _as_frame(X)
        idx = self.fired(frame)
        texts = np.array([str(r) for r in self.rules] + [f"ELSE {_fmt(self.default)}"], dtype=object)
        return pd.DataFrame({"rule": idx, "prediction": self.predict(frame), "text": texts[idx]},
                            index=frame.index)

    def __str__(self):
        lines = [("IF " if i == 0 else "ELSE IF ") + str(r)[3:] for i, r in enumerate(self.rules)]
        lines.append(f"ELSE {_fmt(self.default)}")
        return "\n".join(lines)
