"""RIPPER (Cohen 1995): repeated incremental pruning to produce error reduction.

All coverage is computed on an encoded float matrix with numpy boolean masks: a condition is
``(column, op, value)`` with op ``"<="``/``">"`` on a cut point (numeric and ordered categorical
columns, as codes) or ``"=="`` on a category code. Candidate cut points are the midpoints
between neighbouring distinct values among the rows the rule still covers, so every threshold
the data allows is tried (no fixed bins); FOIL gain of all of them comes from one sort and two
cumulative sums per column.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import gammaln
from sklearn.base import ClassifierMixin

from .._dtypes import is_numeric
from .._parallel import spawn
from .._validation import as_seed_sequence, check_float, check_int
from ._base import ImlkitEstimator
from ._rules import Condition, DecisionList, Rule

__all__ = ["RIPPER"]

_LOG2 = np.log(2.0)


# --------------------------------------------------------------------------- encoding
class _Encoding:
    """Columns as floats: numeric as is, categoricals as codes (NaN for missing)."""

    def __init__(self, frame):
        self.columns = list(frame.columns)
        self.kinds, self.categories = [], []
        mats = []
        for col in self.columns:
            s = frame[col]
            if isinstance(s.dtype, pd.CategoricalDtype):
                codes = s.cat.codes.to_numpy().astype(float)
                self.kinds.append("ord" if s.dtype.ordered else "cat")
                self.categories.append(list(s.cat.categories))
            elif is_numeric(s):
                codes = s.to_numpy(dtype=float, na_value=np.nan)
                self.kinds.append("num")
                self.categories.append(None)
            else:
                cat = pd.Categorical(s.astype(object).where(s.notna(), None))
                codes = np.asarray(cat.codes, dtype=float)
                self.kinds.append("cat")
                self.categories.append(list(cat.categories))
            if self.kinds[-1] != "num":
                codes[codes < 0] = np.nan
            mats.append(codes)
        self.X = np.column_stack(mats)

    def condition(self, cond):
        """The internal ``(j, op, value)`` as a public :class:`Condition`."""
        j, op, v = cond
        name, kind = self.columns[j], self.kinds[j]
        if kind == "num":
            return Condition(name, op, float(v))
        cats = self.categories[j]
        if kind == "cat":
            return Condition(name, "==", cats[int(v)])
        # ordered categorical: the cut lies between codes floor(v) and floor(v) + 1
        return Condition(name, op, cats[int(np.floor(v))])


def _cond_mask(X, cond):
    j, op, v = cond
    col = X[:, j]
    if op == "<=":
        return col <= v
    if op == ">":
        return col > v
    return col == v


def _rule_mask(X, conds):
    m = np.ones(X.shape[0], dtype=bool)
    for c in conds:
        m &= _cond_mask(X, c)
    return m


# --------------------------------------------------------------------------- grow and prune
def _foil(p1, n1, p0, n0):
    """FOIL information gain p1·(log2 p1/(p1+n1) − log2 p0/(p0+n0)); 0 where p1 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = p1 * (np.log2(p1 / (p1 + n1)) - np.log2(p0 / (p0 + n0)))
    return np.where(p1 > 0, g, -np.inf)


def _grow(X, y, kinds, orders, init=(), max_conditions=None):
    """Add the condition of largest FOIL gain until the rule covers no negative (or none helps)."""
    conds = list(init)
    covered = _rule_mask(X, conds)
    while max_conditions is None or len(conds) < max_conditions:
        p0 = int(np.count_nonzero(y & covered))
        n0 = int(np.count_nonzero(covered)) - p0
        if n0 == 0 or p0 == 0:
            break
        best_gain, best = 0.0, None
        for j, kind in enumerate(kinds):
            if kind == "cat":
                codes = X[covered, j]
                ok = ~np.isnan(codes)
                c = codes[ok].astype(np.int64)
                yy = y[covered][ok]
                size = int(c.max()) + 1 if c.size else 0
                if size == 0:
                    continue
                pc = np.bincount(c[yy], minlength=size)
                nc = np.bincount(c, minlength=size) - pc
                g = _foil(pc, nc, p0, n0)
                k = int(np.argmax(g))
                if g[k] > best_gain:
                    best_gain, best = float(g[k]), (j, "==", float(k))
                continue
            idx = orders[j][covered[orders[j]]]  # covered rows in increasing order of x_j, NaN last
            v = X[idx, j]
            ok = ~np.isnan(v)
            idx, v = idx[ok], v[ok]
            if v.size < 2:
                continue
            yy = y[idx]
            cp = np.cumsum(yy)
            cn = np.arange(1, v.size + 1) - cp
            cut = np.flatnonzero(v[1:] != v[:-1])  # split after position cut
            if cut.size == 0:
                continue
            pl, nl = cp[cut], cn[cut]
            pr, nr = cp[-1] - pl, cn[-1] - nl
            gl = _foil(pl, nl, p0, n0)
            gr = _foil(pr, nr, p0, n0)
            kl, kr = int(np.argmax(gl)), int(np.argmax(gr))
            if gl[kl] > best_gain:
                best_gain, best = float(gl[kl]), (j, "<=", (v[cut[kl]] + v[cut[kl] + 1]) / 2.0)
            if gr[kr] > best_gain:
                best_gain, best = float(gr[kr]), (j, ">", (v[cut[kr]] + v[cut[kr] + 1]) / 2.0)
        if best is None:
            break
        conds.append(best)
        covered &= _cond_mask(X, best)
    return conds


def _prefix_masks(X, conds):
    """(len(conds), n): coverage of each prefix of the rule."""
    out = np.empty((len(conds), X.shape[0]), dtype=bool)
    m = np.ones(X.shape[0], dtype=bool)
    for i, c in enumerate(conds):
        m = m & _cond_mask(X, c)
        out[i] = m
    return out


def _prune_rule(X, y, conds, min_len=1):
    """Keep the prefix maximising (p − n)/(p + n) on the pruning rows (ties: the shorter)."""
    if len(conds) <= min_len:
        return conds
    P = _prefix_masks(X, conds)
    p = (P & y).sum(axis=1).astype(float)
    n = P.sum(axis=1) - p
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(p + n > 0, (p - n) / (p + n), -np.inf)
    v[: min_len - 1] = -np.inf
    if not np.isfinite(v).any():
        return conds
    return conds[: int(np.argmax(v)) + 1]


def _prune_in_set(X, y, conds, others):
    """Keep the prefix minimising the errors of the whole rule set on the pruning rows."""
    if len(conds) <= 1:
        return conds
    P = _prefix_masks(X, conds) | others
    err = (P != y).sum(axis=1)
    return conds[: int(np.argmin(err)) + 1]


def _split(y, rng, prune_fraction):
    """Stratified random split of row indices into growing and pruning parts."""
    grow, prune = [], []
    for cls in (True, False):
        idx = np.flatnonzero(y == cls)
        idx = idx[rng.permutation(idx.size)]
        k = int(round(idx.size * prune_fraction))
        if idx.size >= 2 and k == 0:
            k = 1
        prune.append(idx[:k])
        grow.append(idx[k:])
    return np.sort(np.concatenate(grow)), np.sort(np.concatenate(prune))


# --------------------------------------------------------------------------- description length
def _log2_binom(n, k):
    return (gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)) / _LOG2


def _subset_dl(t, k, p):
    out = 0.0
    if k > 0:
        out -= k * np.log2(p)
    if t - k > 0:
        out -= (t - k) * np.log2(1.0 - p)
    return out


def _rule_dl(k, n_possible):
    """Bits for a rule of ``k`` conditions out of ``n_possible``, halved for redundancy (Cohen)."""
    if k == 0:
        return 0.0
    k_bits = np.log2(k)
    if k > 1:
        k_bits += 2.0 * np.log2(k_bits)
    return 0.5 * (k_bits + _subset_dl(n_possible, k, k / n_possible))


def _data_dl(covered, y):
    """Bits for the exceptions: which covered rows are false positives, which others false negatives."""
    cover = int(covered.sum())
    uncover = covered.size - cover
    fp = cover - int((covered & y).sum())
    fn = int((~covered & y).sum())
    return float(np.log2(covered.size + 1) + _log2_binom(cover, fp) + _log2_binom(uncover, fn))


class _ClassLearner:
    """RIPPER for one class (``y`` True) against the rest, on the rows given."""

    def __init__(self, X, y, kinds, params, rng):
        self.X, self.y, self.kinds, self.rng = X, y, kinds, rng
        self.prune_fraction = params["prune_fraction"]
        self.dl_allowance = params["dl_allowance"]
        self.max_conditions = params["max_conditions"]
        self.n_possible = max(self._count_possible(), 1)

    def _count_possible(self):
        total = 0
        for j, kind in enumerate(self.kinds):
            col = self.X[:, j]
            u = np.unique(col[~np.isnan(col)]).size
            total += u if kind == "cat" else 2 * max(u - 1, 0)
        return total

    def _orders(self, X):
        return [np.argsort(X[:, j], kind="stable") if k != "cat" else None for j, k in enumerate(self.kinds)]

    def _dl(self, rules, masks):
        covered = np.zeros(self.y.size, dtype=bool)
        for m in masks:
            covered |= m
        return sum(_rule_dl(len(r), self.n_possible) for r in rules) + _data_dl(covered, self.y)

    def _cover(self, rules, masks):
        """IREP*: add grown-and-pruned rules until the DL or error stopping rule fires."""
        rules, masks = list(rules), list(masks)
        covered = np.zeros(self.y.size, dtype=bool)
        for m in masks:
            covered |= m
        best_dl = self._dl(rules, masks)
        while True:
            rows = np.flatnonzero(~covered)
            y = self.y[rows]
            if not y.any():
                break
            g, p = _split(y, self.rng, self.prune_fraction)
            gi, pi = rows[g], rows[p]
            if not self.y[gi].any():
                break
            Xg = self.X[gi]
            conds = _grow(Xg, self.y[gi], self.kinds, self._orders(Xg), max_conditions=self.max_conditions)
            if not conds:
                break
            conds = _prune_rule(self.X[pi], self.y[pi], conds)
            m_p = _rule_mask(self.X[pi], conds)
            pp = int((m_p & self.y[pi]).sum())
            nn = int(m_p.sum()) - pp
            if pp + nn > 0 and nn / (pp + nn) > 0.5:
                break
            mask = _rule_mask(self.X, conds)
            if not (mask & ~covered & self.y).any():  # covers no new positive: nothing gained
                break
            rules.append(conds)
            masks.append(mask)
            covered |= mask
            dl = self._dl(rules, masks)
            if dl > best_dl + self.dl_allowance:
                rules.pop()
                masks.pop()
                break
            best_dl = min(best_dl, dl)
        return self._reduce(rules, masks)

    def _reduce(self, rules, masks):
        """Delete, last first, every rule whose removal lowers the description length."""
        dl = self._dl(rules, masks)
        for i in range(len(rules) - 1, -1, -1):
            r2, m2 = rules[:i] + rules[i + 1:], masks[:i] + masks[i + 1:]
            d2 = self._dl(r2, m2)
            if d2 < dl:
                rules, masks, dl = r2, m2, d2
        return rules, masks

    def _optimise(self, rules, masks):
        """One round of Cohen's optimisation: each rule against its replacement and its revision."""
        rules, masks = list(rules), list(masks)
        for i in range(len(rules)):
            before = np.zeros(self.y.size, dtype=bool)
            for m in masks[:i]:
                before |= m
            rows = np.flatnonzero(~before)
            y = self.y[rows]
            if not y.any():
                continue
            g, p = _split(y, self.rng, self.prune_fraction)
            gi, pi = rows[g], rows[p]
            if not self.y[gi].any():
                continue
            others = np.zeros(pi.size, dtype=bool)
            for k, m in enumerate(masks):
                if k != i:
                    others |= m[pi]
            Xg, Xp, yp = self.X[gi], self.X[pi], self.y[pi]
            orders = self._orders(Xg)
            variants = [rules[i]]
            rep = _grow(Xg, self.y[gi], self.kinds, orders, max_conditions=self.max_conditions)
            if rep:
                variants.append(_prune_in_set(Xp, yp, rep, others))
            rev = _grow(Xg, self.y[gi], self.kinds, orders, init=rules[i], max_conditions=self.max_conditions)
            if len(rev) > len(rules[i]):
                variants.append(_prune_in_set(Xp, yp, rev, others))
            best, best_dl, best_mask = rules[i], None, masks[i]
            for v in variants:
                vm = masks[i] if v is rules[i] else _rule_mask(self.X, v)
                d = self._dl(rules[:i] + [v] + rules[i + 1:], masks[:i] + [vm] + masks[i + 1:])
                if best_dl is None or d < best_dl:
                    best, best_dl, best_mask = v, d, vm
            rules[i], masks[i] = best, best_mask
        return rules, masks

    def fit(self, k):
        rules, masks = self._cover([], [])
        for _ in range(k):
            rules, masks = self._optimise(rules, masks)
            rules, masks = self._cover(rules, masks)  # positives the optimised set left uncovered
        return rules


# --------------------------------------------------------------------------- estimator
class RIPPER(ClassifierMixin, ImlkitEstimator):
    """RIPPERk rule learner (Cohen 1995): a decision list learned one class at a time.

    Parameters
    ----------
    k : int, default=2
        Rounds of rule-set optimisation (RIPPER2).
    prune_fraction : float, default=1/3
        Share of the rows used to prune each rule (the rest grow it).
    dl_allowance : float, default=64
        Stop adding rules once the description length exceeds the smallest seen by this many bits.
    max_conditions : int or None, default=None
        Cap on conditions per rule.
    random_state : None, int or numpy.random.Generator
        Drives the grow/prune splits.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_order_ : list
        The classes in the order their rules were learned (increasing prevalence); the last is
        the default.
    rules_ : DecisionList
        The learned rules, in order, with the most frequent class as default.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (p,)
        The DataFrame's column names (only when fitted on a DataFrame; names as strings).
    feature_names_ : list of str
        The column names the rules use (``x0, x1, ...`` when fitted on an array).

    Notes
    -----
    Classes are taken in order of increasing prevalence; rules for class c are learned against
    all rows of later classes, then the rows they cover are removed. Per class (IREP*):

    1. split the uncovered rows 2:1 (stratified) into growing and pruning sets;
    2. grow a rule by adding the condition (``x_j <= t``, ``x_j > t`` at any cut point between
       neighbouring values, ``x_j == level``) of largest FOIL gain
       p₁(log₂ p₁/(p₁+n₁) − log₂ p₀/(p₀+n₀)) until it covers no negative growing row;
    3. prune it to the prefix maximising (p − n)/(p + n) on the pruning set;
    4. stop when its pruning error exceeds 50% or the description length (rule bits, halved,
       plus the exceptions' bits) exceeds the minimum so far by ``dl_allowance`` bits, then
       delete rules whose removal lowers the description length.

    Then ``k`` times: for every rule grow a replacement (from scratch) and a revision (from the
    rule), each pruned to minimise the error of the whole set on fresh pruning rows, keep the
    variant of smallest description length, and cover any positives left with step 1-4.
    The exceptions' bits are log₂(n+1) + log₂ C(cover, fp) + log₂ C(n − cover, fn), a
    simplification of Quinlan's (1995) encoding.

    References
    ----------
    Cohen, W. W. (1995). Fast effective rule induction. Proceedings of ICML, 115-123.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"a": rng.uniform(size=300), "b": rng.uniform(size=300)})
    >>> y = np.where((X.a > 0.7) & (X.b > 0.5), "yes", "no")
    >>> m = RIPPER(random_state=0).fit(X, y)
    >>> float(m.score(X, y)) > 0.95
    True
    """

    _fitted_attribute = "rules_"
    _allow_nan = True  # a condition on a missing value does not hold

    def __init__(self, *, k=2, prune_fraction=1 / 3, dl_allowance=64.0, max_conditions=None, random_state=None):
        self.k = k
        self.prune_fraction = prune_fraction
        self.dl_allowance = dl_allowance
        self.max_conditions = max_conditions
        self.random_state = random_state

    def fit(self, X, y):
        """Learn the rules, one class at a time in order of increasing prevalence.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
            Numeric and categorical columns; missing values allowed.
        y : array-like, shape (n,)
            Class labels (at least two classes; a continuous target is refused).

        Returns
        -------
        self
        """
        k = check_int("k", self.k, min_value=0)
        params = {
            "prune_fraction": check_float("prune_fraction", self.prune_fraction, low=0.0, high=1.0,
                                          low_inclusive=False, high_inclusive=False),
            "dl_allowance": check_float("dl_allowance", self.dl_allowance, low=0.0),
            "max_conditions": check_int("max_conditions", self.max_conditions, min_value=1, allow_none=True),
        }
        seed = as_seed_sequence(self.random_state)
        frame, yy = self._check_X_y(X, y)
        classes, yi = self._check_classes(yy)
        counts = np.bincount(yi, minlength=len(classes))
        enc = _Encoding(frame)
        # increasing prevalence; np.unique order breaks ties
        order = np.argsort(counts, kind="stable")
        children = spawn(seed, len(order))
        remaining = np.arange(len(yi))
        rules = []
        for c, child in zip(order[:-1], children):
            y_c = yi[remaining] == c
            if not y_c.any():
                continue
            Xr = enc.X[remaining]
            learner = _ClassLearner(Xr, y_c, enc.kinds, params, np.random.default_rng(child))
            found = learner.fit(k)
            covered = np.zeros(remaining.size, dtype=bool)
            for conds in found:
                covered |= _rule_mask(Xr, conds)
                rules.append(Rule([enc.condition(cd) for cd in conds], classes[c]).simplify())
            remaining = remaining[~covered]
        self.classes_ = classes
        self.class_order_ = [classes[c] for c in order]
        rules_ = DecisionList(rules, default=classes[order[-1]])
        self._proba = self._fit_proba(rules_, frame, yi)
        self.rules_ = rules_  # last: its presence means "fitted"
        return self

    def _fit_proba(self, rules, frame, yi):
        K = len(self.classes_)
        fired = rules.fired(frame)
        counts = np.zeros((len(rules) + 1, K))
        np.add.at(counts, (fired, yi), 1)  # -1 (default) lands in the last row
        return (counts + 1.0) / (counts.sum(axis=1, keepdims=True) + K)

    def _check(self, X):
        return self._check_X(X, reset=False)

    def predict(self, X):
        """Class of the first rule that covers each row (else the default), shape (n,)."""
        frame = self._check(X)
        return self.rules_.predict(frame).astype(self.classes_.dtype)

    def predict_proba(self, X):
        """Laplace-smoothed training class frequencies of the deciding rule, shape (n, n_classes)."""
        frame = self._check(X)
        return self._proba[self.rules_.fired(frame)]

    def explain(self, X):
        """Which rule decided each row (see :meth:`DecisionList.explain`)."""
        frame = self._check(X)
        return self.rules_.explain(frame)

    def __str__(self):
        return str(self.rules_) if hasattr(self, "rules_") else "RIPPER (not fitted)"
