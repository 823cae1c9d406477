"""RuleFit (Friedman & Popescu 2008): a sparse linear model on tree-ensemble rules and winsorised features."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.metaestimators import available_if
from threadpoolctl import threadpool_limits

from .._dtypes import is_numeric
from .._parallel import spawn
from .._validation import as_seed_sequence, check_choice, check_float, check_int
from ._base import ImlkitEstimator, set_task_tags
from ._l1 import l1_logistic_cv, lasso_cv
from ._l1 import sigmoid as _sigmoid
from ._rules import Condition, Rule, rule_masks
from ._rules_from_tree import tree_rules
from ._target import auto_task

__all__ = ["MIN_RULE_ROWS", "RuleFit"]

#: Standard deviation of a rule with support s ~ U(0, 1), on average (Friedman & Popescu, sec. 5).
LINEAR_SCALE = 0.4
#: A rule whose indicator differs from its majority value on fewer training rows than this (it covers fewer
#: rows, or all but fewer) has its weight fitted to those few rows: a contrast of the mean of a handful of rows
#: with the rest, one parameter per ~10 informative rows being the usual floor for a regression weight
#: (Peduzzi et al. 1996). ``rules_`` flags such a rule (``few_rows``); readers list it apart.
MIN_RULE_ROWS = 10
#: A term whose |weight| × sd is below this share of the largest term importance has weight 0: round-off, not a
#: fitted effect. The L1 path leaves such values where two candidate columns are collinear after centring (a rule and
#: its complement, ``year > 1898.5`` beside ``year <= 1898.5``: -1.08e-13 against 189.7 on nile). 1e-10 sits far
#: above double precision's round-off on the centred design (~1e-16 relative, times the few thousand products of a
#: coordinate sweep) and far below any effect a fit resolves: the coordinate descent stops at a duality gap of 1e-4
#: (sklearn's tol) relative to the centred target's sum of squares, so a genuine weight below 1e-10 of the largest
#: term's part of f(x) changes no prediction the solver can tell apart.
ZERO_WEIGHT_TOL = 1e-10


class _Design:
    """Turns a DataFrame into the trees' input (numeric, NaN → training median; one-hot dummies)."""

    def __init__(self, frame):
        self.columns = list(frame.columns)
        self.numeric = [c for c in self.columns if is_numeric(frame[c])]
        self.medians = {c: float(np.nanmedian(frame[c].to_numpy(dtype=float, na_value=np.nan)))
                        if frame[c].notna().any() else 0.0 for c in self.numeric}
        self.levels = {}
        for c in self.columns:
            if c in self.medians:
                continue
            s = frame[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                lv = [v for v in s.cat.categories if (s == v).any()]
            else:
                lv = sorted(pd.unique(s.dropna()).tolist(), key=str)
            self.levels[c] = lv
        # the trees see anonymous names; each maps back to (feature, level or None)
        self.tree_names, self.origin = [], {}
        for c in self.columns:
            if c in self.medians:
                name = f"f{len(self.tree_names)}"
                self.tree_names.append(name)
                self.origin[name] = (c, None)
            else:
                for v in self.levels[c]:
                    name = f"f{len(self.tree_names)}"
                    self.tree_names.append(name)
                    self.origin[name] = (c, v)

    def imputed(self, frame):
        """``frame`` with numeric NaNs replaced by the training medians (what the rules are evaluated on)."""
        if not any(frame[c].isna().any() for c in self.numeric):
            return frame
        return frame.fillna({c: self.medians[c] for c in self.numeric})

    def matrix(self, frame):
        cols = []
        for c in self.columns:
            s = frame[c]
            if c in self.medians:
                cols.append(s.to_numpy(dtype=float, na_value=np.nan))
                cols[-1] = np.where(np.isnan(cols[-1]), self.medians[c], cols[-1])
            else:
                for v in self.levels[c]:
                    cols.append(s.isin([v]).to_numpy(dtype=float))
        return np.column_stack(cols)

    def translate(self, rule):
        """A rule on the trees' anonymous columns as a rule on the original features."""
        out = []
        for cond in rule.conditions:
            feat, level = self.origin[cond.feature]
            if level is None:
                out.append(Condition(feat, cond.op, cond.value))
            elif cond.op == "<=":  # dummy <= 0.5: not this level
                out.append(Condition(feat, "!=", level))
            else:
                out.append(Condition(feat, "==", level))
        return Rule(out)


class RuleFit(ImlkitEstimator):
    """RuleFit: L1-regularised linear model on rules read off a tree ensemble, plus linear terms.

    Parameters
    ----------
    task : {"auto", "regression", "classification"}, default="auto"
        "auto" means regression for a continuous target and classification otherwise
        (strings, bool, categorical, whole numbers with at most 10 distinct values; see
        ``imlkit.models._target``). Pass the task explicitly to override.
    generator : {"gbm", "rf"}, default="gbm"
        "gbm": gradient boosting with shrinkage ``learning_rate`` on random subsamples;
        "rf": independent trees on random subsamples with ``max_features="sqrt"``.
    n_estimators : int, default=100
        Trees M.
    mean_tree_size : float, default=4
        Mean number of terminal nodes; tree m has t_m = 2 + floor(γ), γ ~ Exponential(mean_tree_size − 2).
    learning_rate : float, default=0.01
        Shrinkage ν of the "gbm" generator.
    subsample : int or None, default=None
        Rows per tree; None is Friedman & Popescu's min(n/2, 100 + 6√n).
    include_linear : bool, default=True
        Add the winsorised, scaled numeric features as linear terms.
    winsorize : float, default=0.025
        δ: linear terms are clipped to their δ and 1 − δ quantiles.
    cv : int, default=5
        Folds for choosing λ.
    n_lambdas : int, default=20
        Grid size for λ (log-spaced from λ_max down to λ_max/1000).
    max_rows : int or None, default=20_000
        When ``X`` has more rows, RuleFit is fitted on a random subsample of ``max_rows`` rows
        (stratified by class for classification, drawn with ``random_state``): tree
        generation, rule evaluation and the cross-validated L1 path then cost O(max_rows)
        however large n is (Friedman & Popescu already grow each tree on a subsample; the
        L1 fit on 20,000 rows pins down the weights of rules with support above ~1%).
        None uses every row.
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (p,)
        The DataFrame's column names (only when fitted on a DataFrame; names as strings).
    feature_names_ : list of str
        The column names the rules use (``x0, x1, ...`` when fitted on an array).
    estimators_ : list of DecisionTreeRegressor
        The generated trees (fitted on the anonymous design columns ``f0, f1, ...``).
    n_candidate_rules_ : int
        K = Σ_m 2(t_m − 1) rules read off the trees, before duplicates are removed.
    candidate_rules_ : list of Rule
        The distinct rules kept as features (duplicates and constant columns removed).
    rules_ : DataFrame
        Terms with a nonzero weight, most important first (a weight whose |weight| × sd is below ``ZERO_WEIGHT_TOL``
        = 1e-10 of the largest term importance is round-off and set to 0 in ``coef_``): ``rule`` (text), ``type``
        ("rule" or "linear"), ``weight`` (α_k, or the coefficient per unit of the winsorised feature),
        ``support`` (s_k; 1 for linear terms), ``n_rows`` (the training rows the rule covers,
        s_k · ``n_rows_used_``), ``few_rows`` (True for a rule that covers fewer than
        ``MIN_RULE_ROWS`` = 10 training rows, or all but fewer than 10: its weight is fitted to
        those few rows and is no finding about the data) and ``importance``. Multiclass: one
        ``weight[c]`` column per class and the mean importance over classes.
    n_rows_used_ : int
        Training rows the model was fitted on (``min(n, max_rows)``).
    classes_ : ndarray (classification only)
    intercept_ : float or ndarray of shape (n_classes,)
    lambda_ : float or ndarray
        The λ chosen by cross-validation (per class for multiclass).

    Notes
    -----
    The model is

        f(x) = β₀ + Σ_k α_k r_k(x) + Σ_j β_j l_j(x_j),
        l_j(x_j) = 0.4 · l*_j(x_j) / std(l*_j),   l*_j = min(δ⁺_j, max(δ⁻_j, x_j)),

    fitted by minimising Σ_i L(y_i, f(x_i)) + λ(Σ|α_k| + Σ|β_j|) with squared error (Lasso) or the
    logistic loss (one-vs-rest for more than two classes), λ by ``cv``-fold cross-validation.
    Importance: |α_k|·√(s_k(1 − s_k)) for rules and |β_j|·std(l_j) for linear terms.
    Classification: for two classes f is the log-odds of the second class in ``classes_`` and
    ``predict_proba`` is (1 − σ(f), σ(f)), σ(z) = 1/(1 + e^(−z)), as in logistic regression.
    For K > 2 classes one model f_k is fitted per class against the rest and
    P(y = k | x) = σ(f_k(x)) / Σ_l σ(f_l(x)): the one-vs-rest probabilities normalised so that
    each row sums to 1 (the unnormalised σ(f_k) need not).
    Categorical features enter the trees one-hot; their rules read ``x == level`` / ``x != level``.
    Missing numeric values are replaced by the training median.

    References
    ----------
    Friedman, J. H., & Popescu, B. E. (2008). Predictive learning via rule ensembles.
    The Annals of Applied Statistics, 2(3), 916-954.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.uniform(-1, 1, size=(300, 3)), columns=["a", "b", "c"])
    >>> y = 2.0 * ((X.a > 0) & (X.b > 0)) + X.c
    >>> m = RuleFit(n_estimators=30, cv=3, random_state=0).fit(X, y)
    >>> m.n_candidate_rules_ == int(sum(2 * (t.get_n_leaves() - 1) for t in m.estimators_))
    True
    >>> float(m.score(X, y)) > 0.9
    True
    """

    _fitted_attribute = "rules_"
    _allow_nan = True  # numeric NaN -> training median; a missing level matches no dummy

    def __init__(self, *, task="auto", generator="gbm", n_estimators=100, mean_tree_size=4, learning_rate=0.01,
                 subsample=None, include_linear=True, winsorize=0.025, cv=5, n_lambdas=20, max_rows=20_000,
                 random_state=None):
        self.task = task
        self.generator = generator
        self.n_estimators = n_estimators
        self.mean_tree_size = mean_tree_size
        self.learning_rate = learning_rate
        self.subsample = subsample
        self.include_linear = include_linear
        self.winsorize = winsorize
        self.cv = cv
        self.n_lambdas = n_lambdas
        self.max_rows = max_rows
        self.random_state = random_state

    def __sklearn_tags__(self):
        # after fit, "auto" is resolved; before, "auto" is neither a classifier nor a regressor
        return set_task_tags(super().__sklearn_tags__(), getattr(self, "task_", self.task))

    # ------------------------------------------------------------------ fit
    def _check_params(self):
        check_choice("task", self.task, ["auto", "regression", "classification"])
        check_choice("generator", self.generator, ["gbm", "rf"])
        check_int("n_estimators", self.n_estimators, min_value=1)
        check_float("mean_tree_size", self.mean_tree_size, low=2.0)
        check_float("learning_rate", self.learning_rate, low=0.0, high=1.0, low_inclusive=False)
        check_int("subsample", self.subsample, min_value=2, allow_none=True)
        if not isinstance(self.include_linear, (bool, np.bool_)):
            raise TypeError(f"'include_linear' must be True or False; got {self.include_linear!r}.")
        check_float("winsorize", self.winsorize, low=0.0, high=0.5, high_inclusive=False)
        check_int("cv", self.cv, min_value=2)
        check_int("n_lambdas", self.n_lambdas, min_value=1)
        check_int("max_rows", self.max_rows, min_value=10, allow_none=True)

    def fit(self, X, y):
        """Generate the trees, read off their rules and fit the L1-penalised model on rules and linear terms.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
            Numeric and categorical columns; missing values allowed.
        y : array-like, shape (n,)
            Numbers (regression) or class labels (classification).

        Returns
        -------
        self
        """
        self._check_params()
        frame, yy = self._check_X_y(X, y, min_samples=self.cv)
        n = len(frame)
        seed = as_seed_sequence(self.random_state)
        s_trees, s_cv, s_rows = spawn(seed, 3)
        task = self.task
        if task == "auto":
            task = auto_task(yy)
        if task == "regression":
            yy = self._check_regression_target(yy)
        if task == "classification":
            classes, yi = self._check_classes(yy)
            self.classes_ = classes
        self.task_ = task
        if self.max_rows is not None and n > self.max_rows:
            rows = self._row_subsample(n, yi if task == "classification" else None, np.random.default_rng(s_rows))
            frame, yy = frame.iloc[rows], yy[rows]
            if task == "classification":
                yi = yi[rows]
            n = len(rows)
        self.n_rows_used_ = n
        if task == "classification":
            Y = np.eye(len(classes))[yi]
        else:
            Y = yy.astype(float)[:, None]
        design = _Design(frame)
        self._design = design
        Z = design.matrix(frame)
        self.estimators_ = self._generate(Z, Y, np.random.default_rng(s_trees))
        self.n_candidate_rules_ = int(sum(t.tree_.node_count - 1 for t in self.estimators_))
        evalframe = design.imputed(frame)
        rules, R = self._collect_rules(design, evalframe)
        self.candidate_rules_ = rules
        L, lin_names = self._linear_terms(evalframe, fit=True)
        F = np.hstack([R.astype(float), L])
        self._fit_l1(F, Y, yi if task == "classification" else None, np.random.default_rng(s_cv))
        self._make_table(R, L, lin_names)
        return self

    def _row_subsample(self, n, codes, rng):
        """``max_rows`` row positions, sorted; for classes, each class keeps its share (≥ 1 row)."""
        m = self.max_rows
        if codes is None:
            return np.sort(rng.choice(n, size=m, replace=False))
        counts = np.bincount(codes)
        # largest-remainder allocation of m rows to the classes by their shares
        quota = counts * m / n
        take = np.maximum(np.floor(quota).astype(int), 1)
        rest = m - take.sum()
        if rest > 0:
            take[np.argsort(-(quota - np.floor(quota)), kind="stable")[:rest]] += 1
        take = np.minimum(take, counts)
        rows = [rng.choice(np.flatnonzero(codes == k), size=t, replace=False) for k, t in enumerate(take)]
        return np.sort(np.concatenate(rows))

    def _generate(self, Z, Y, rng):
        n, K = Y.shape
        m = self.subsample if self.subsample is not None else int(min(n / 2, 100 + 6 * np.sqrt(n)))
        m = max(2, min(m, n))
        gbm = self.generator == "gbm"
        if gbm:
            if self.task_ == "classification":
                prior = np.clip(Y.mean(axis=0), 1e-6, 1 - 1e-6)
                F = np.tile(np.log(prior / (1 - prior)), (n, 1))
            else:
                F = np.tile(Y.mean(axis=0), (n, 1))
        trees = []
        # binary: one column suffices; multiclass: the boosted class cycles
        n_targets = 1 if K == 2 and self.task_ == "classification" else K
        for t in range(self.n_estimators):
            size = 2 + int(np.floor(rng.exponential(self.mean_tree_size - 2))) if self.mean_tree_size > 2 else 2
            rows = rng.choice(n, size=m, replace=False)
            k = t % n_targets if n_targets > 1 else (1 if K == 2 and self.task_ == "classification" else 0)
            if gbm:
                if self.task_ == "classification":
                    target = Y[:, k] - _sigmoid(F[:, k])
                else:
                    target = Y[:, k] - F[:, k]
            else:
                target = Y[:, k]
            tree = DecisionTreeRegressor(max_leaf_nodes=size, max_features="sqrt" if not gbm else None,
                                         random_state=int(rng.integers(2**31 - 1)))
            tree.fit(Z[rows], target[rows])
            if gbm:
                F[:, k] += self.learning_rate * tree.predict(Z)
            trees.append(tree)
        return trees

    def _collect_rules(self, design, evalframe):
        seen, rules = set(), []
        for tree in self.estimators_:
            tab = tree_rules(tree, feature_names=design.tree_names)
            for rule in tab["rule"].iloc[1:]:  # every node but the root
                r = design.translate(rule)
                key = frozenset(r.conditions)
                if key not in seen:
                    seen.add(key)
                    rules.append(r)
        R = rule_masks(rules, evalframe) if rules else np.zeros((len(evalframe), 0), dtype=bool)
        # identical columns (e.g. the same split reached by different paths) carry one weight
        support = R.mean(axis=0)
        keep, cols = [], set()
        packed = np.packbits(R, axis=0)
        for k in range(R.shape[1]):
            key = packed[:, k].tobytes()
            if 0.0 < support[k] < 1.0 and key not in cols:
                cols.add(key)
                keep.append(k)
        return [rules[k] for k in keep], R[:, keep]

    def _linear_terms(self, evalframe, fit=False):
        if not self.include_linear or not self._design.numeric:
            if fit:
                self._lin = []
            return np.zeros((len(evalframe), 0)), []
        if fit:
            lin = []
            for c in self._design.numeric:
                x = evalframe[c].to_numpy(dtype=float)
                lo, hi = np.quantile(x, [self.winsorize, 1 - self.winsorize])
                sd = float(np.std(np.clip(x, lo, hi)))
                if sd > 0:
                    lin.append((c, float(lo), float(hi), LINEAR_SCALE / sd))
            self._lin = lin
        cols = [np.clip(evalframe[c].to_numpy(dtype=float), lo, hi) * sc for c, lo, hi, sc in self._lin]
        L = np.column_stack(cols) if cols else np.zeros((len(evalframe), 0))
        return L, [c for c, *_ in self._lin]

    def _fit_l1(self, F, Y, labels, rng):
        seed = int(rng.integers(2**31 - 1))
        if self.task_ == "regression":
            folds = list(KFold(self.cv, shuffle=True, random_state=seed).split(F))
            with threadpool_limits(limits=1, user_api="blas"):
                b0, coef, lam = lasso_cv(F, Y[:, 0], folds, n_lambdas=self.n_lambdas)
            self.intercept_ = b0
            self.coef_ = coef[None, :]
            self.lambda_ = lam
            return
        folds = list(StratifiedKFold(self.cv, shuffle=True, random_state=seed).split(F, labels))
        targets = [1] if len(self.classes_) == 2 else range(len(self.classes_))
        b, C, lam = [], [], []
        # the solver's products involve small active sets: BLAS threads only contend there
        # (3x slower measured on 2 busy cores)
        with threadpool_limits(limits=1, user_api="blas"):
            for k in targets:
                bk, ck, lk, *_ = l1_logistic_cv(F, Y[:, k], folds, n_lambdas=self.n_lambdas)
                b.append(bk)
                C.append(ck)
                lam.append(lk)
        self.intercept_ = np.asarray(b)
        self.coef_ = np.vstack(C)
        self.lambda_ = np.asarray(lam)
        if len(targets) == 1:
            self.intercept_, self.lambda_ = float(b[0]), float(lam[0])

    def _make_table(self, R, L, lin_names):
        n_rules = R.shape[1]
        support = np.r_[R.mean(axis=0), np.ones(L.shape[1])]
        sd_rule = np.sqrt(support[:n_rules] * (1 - support[:n_rules]))
        sd = np.r_[sd_rule, L.std(axis=0)]
        scale = np.r_[np.ones(n_rules), [sc for *_, sc in self._lin]]  # weight per unit of winsorised x
        imp = np.abs(self.coef_) * sd[None, :]
        # round-off weights are 0 (ZERO_WEIGHT_TOL): not kept, not explained, not in f(x) -- predict and explain agree
        tiny = (self.coef_ != 0) & (imp < ZERO_WEIGHT_TOL * imp.max()) if imp.size else np.zeros_like(imp, dtype=bool)
        if tiny.any():
            self.coef_ = np.where(tiny, 0.0, self.coef_)
            imp = np.where(tiny, 0.0, imp)
        tab = pd.DataFrame({
            "rule": [r.antecedent for r in self.candidate_rules_] + lin_names,
            "type": ["rule"] * n_rules + ["linear"] * L.shape[1],
        })
        if self.coef_.shape[0] == 1:
            tab["weight"] = self.coef_[0] * scale
        else:
            for k, c in enumerate(self.classes_):
                tab[f"weight[{c}]"] = self.coef_[k] * scale
        tab["support"] = support
        count = np.r_[R.sum(axis=0), np.full(L.shape[1], R.shape[0])].astype(int)
        tab["n_rows"] = count
        tab["few_rows"] = (np.arange(len(count)) < n_rules) & (np.minimum(count, R.shape[0] - count) < MIN_RULE_ROWS)
        tab["importance"] = imp.mean(axis=0)
        self.terms_ = tab
        nonzero = np.any(self.coef_ != 0, axis=0)
        self._used = np.flatnonzero(nonzero)
        self.rules_ = (tab[nonzero].sort_values("importance", ascending=False, kind="stable")
                       .reset_index(drop=True))

    # ------------------------------------------------------------------ predict
    def _check(self, X):
        return self._check_X(X, reset=False)

    def _f(self, X):
        """f(x): shape (n,) for regression and binary classification, (n, n_classes) otherwise."""
        frame = self._check(X)
        frame = self._design.imputed(frame)
        n_rules = len(self.candidate_rules_)
        used_rules = self._used[self._used < n_rules]
        f = np.tile(np.atleast_1d(self.intercept_).astype(float), (len(frame), 1))
        if used_rules.size:
            R = rule_masks([self.candidate_rules_[k] for k in used_rules], frame).astype(float)
            f += R @ self.coef_[:, used_rules].T
        if self._lin:
            L, _ = self._linear_terms(frame)
            f += L @ self.coef_[:, n_rules:].T
        return f[:, 0] if f.shape[1] == 1 else f

    def explain(self, X):
        """What each kept term adds to f(x) for every row of ``X``: the intercept, the rules that cover the row and
        the linear terms.

        Parameters
        ----------
        X : DataFrame or array, shape (m, p)

        Returns
        -------
        DataFrame
            One line per row and term with a nonzero part: ``row`` (index label of X), ``term`` (the rule's text,
            the feature of a linear term, or ``"(intercept)"``), ``type`` ("intercept", "rule" or "linear"),
            ``contribution`` (its part of f(x); one ``contribution[c]`` column per class for more than two),
            ``n_rows`` and ``few_rows`` as in ``rules_`` (a rule fitted to fewer than ``MIN_RULE_ROWS`` training
            rows, or all but fewer, says little). The contributions of a row sum to f(x): :meth:`predict` for
            regression, :meth:`decision_function` (log-odds) for classification.
        """
        self._check_fitted()
        frame = self._design.imputed(self._check(X))
        m = len(frame)
        n_rules = len(self.candidate_rules_)
        B = np.atleast_2d(self.coef_)  # (K, terms)
        parts = np.zeros((m, len(self.terms_), B.shape[0]))
        used_rules = self._used[self._used < n_rules]
        if used_rules.size:
            R = rule_masks([self.candidate_rules_[k] for k in used_rules], frame).astype(float)
            parts[:, used_rules, :] = R[:, :, None] * B[:, used_rules].T[None, :, :]
        if self._lin:
            L, _ = self._linear_terms(frame)
            parts[:, n_rules:, :] = L[:, :, None] * B[:, n_rules:].T[None, :, :]
        icpt = np.atleast_1d(self.intercept_).astype(float)
        n_cov = self.terms_["n_rows"].to_numpy()
        few = self.terms_["few_rows"].to_numpy()
        names = list(self.terms_["rule"])
        kinds = list(self.terms_["type"])
        out = []
        labels = np.asarray(frame.index, dtype=object)
        cls = None if B.shape[0] == 1 else [f"contribution[{c}]" for c in self.classes_]
        for i in range(m):
            rows = [("(intercept)", "intercept", icpt, self.n_rows_used_, False)]
            for j in np.flatnonzero(np.any(parts[i] != 0, axis=1)):
                rows.append((names[j], kinds[j], parts[i, j], n_cov[j], few[j]))
            for term, kind, val, nr, flag in rows:
                rec = {"row": labels[i], "term": term, "type": kind}
                if cls is None:
                    rec["contribution"] = float(val[0])
                else:
                    rec.update({c: float(v) for c, v in zip(cls, val)})
                rec["n_rows"], rec["few_rows"] = int(nr), bool(flag)
                out.append(rec)
        return pd.DataFrame(out)

    def _is_classifier(self):
        return getattr(self, "task_", self.task) == "classification"

    @available_if(_is_classifier)
    def decision_function(self, X):
        """f(x), the log-odds: shape (n,) for two classes (of the second class), (n, n_classes) otherwise.

        Classification only (a regressor's f(x) is :meth:`predict`).
        """
        return self._f(X)

    @available_if(_is_classifier)
    def predict_proba(self, X):
        """σ(f) per class, shape (n, n_classes); one-vs-rest probabilities normalised to sum to 1."""
        f = self._f(X)
        if f.ndim == 1:
            p = _sigmoid(f)
            return np.column_stack([1 - p, p])
        P = _sigmoid(f)
        return P / P.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Class of largest probability (classification) or f(x) (regression), shape (n,)."""
        self._check_fitted()
        if self.task_ == "classification":
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        return self._f(X)

    def score(self, X, y):
        """Accuracy (classification) or R² (regression)."""
        pred = self.predict(X)
        yy = np.asarray(y)
        if self.task_ == "classification":
            return float(np.mean(pred == yy))
        return float(1 - np.sum((yy - pred) ** 2) / np.sum((yy - yy.mean()) ** 2))
