"""Which features the report ranks first, and which a budgeted method runs on.

Shared by the sections and the reading (no section imports another): the cheap PFI screen
(:func:`screen_ranking`), the feature budget (:func:`budgeted_features`), the reading's "most
important" features (:func:`most_important`) and the top features sections 4-6 show
(:func:`top_features`).
"""
from __future__ import annotations

import numpy as np

from .. import importance as imp
from . import _claims as cl
from ._labels import METHOD_LABELS, OTHERS

__all__ = ["BUDGETED", "NO_GROUP", "unused_features", "screen_ranking", "screen_info", "budgeted_features",
           "single_features", "H_SE_Z", "h_clears",
           "STEP_OF", "most_important", "top_features", "no_ranking_reason", "RANKING_METHODS"]

#: The methods whose cost grows with the number of features, under the feature budget.
BUDGETED = ("pfi", "cfi", "loco", "lofo", "sage", "pimp")


def unused_features(model, X):
    """The columns of X a tree ensemble never splits on (a set), or None when the tree engine cannot read the model.

    Permuting such a column changes no prediction, so its PFI and CFI are exactly 0 on any rows;
    the screen skips them (their per-feature cost dominated PFI on 2,308 genes, 138 of them used).
    """
    from .._trees import tree_model

    try:
        tm = tree_model(model, X.iloc[:64])
    except Exception:  # Unsupported, or its intercept could not be read on these rows
        return None
    f = tm.forest
    split_on = set(np.asarray(f.feature)[np.asarray(f.kind) >= 0].tolist())
    out = set()
    for c in X.columns:
        try:
            col = tm.column(c, X)
        except Exception:  # a column the engine cannot map is treated as used
            col = None
        if col is not None and col[0] not in split_on:
            out.add(str(c))
    return out


def screen_ranking(ctx):
    """The model's features, most important first by a cheap screen (PFI of every feature within the budget).

    Within the feature budget (or with ``--full``) section 3's PFI over every feature ranks them.
    Beyond it, the screen is PFI with one permutation per feature, run only on the features that
    can matter: for a tree ensemble the engine reads, the columns it never splits on are left out
    (their PFI is exactly 0; they rank last, in column order). ``screen_info(ctx)`` says what ran.
    """
    cached = ctx.__dict__.get("_screen")
    if cached is not None:
        return cached
    r = ctx.importance.pfi
    names = [str(c) for c in ctx.X_test.columns]
    if r is not None and len(r.feature_names) == len(names):  # section 3's PFI of every feature
        ranking = _ranked(r)
    else:
        X, y, where = _screen_rows(ctx)
        unused = unused_features(ctx.model, X) or set()
        if len(unused) == len(names):  # a constant model: nothing to rank by
            unused = set()
        candidates = [f for f in names if f not in unused]
        # section 7 says which rows the screen read (its row record keeps the methods' own)
        rows = f"{len(X):,} {'training' if where == 'train' else 'evaluation'} rows"
        with ctx.step("screen: PFI with one permutation per feature", features=len(candidates),
                      never_split_on=len(unused), rows=rows, random_state=ctx.seed):
            r = imp.pfi(ctx.model, X, y, loss=ctx.loss, n_repeats=1, features=candidates, n_jobs=ctx.config.n_jobs,
                        random_state=ctx.seed, progress=ctx.progress)
        if unused and r.info.get("engine") != "trees":
            unused = set()  # the engine did not vouch for the model's trees on these rows: screen every feature
            with ctx.step("screen: PFI with one permutation per feature", features=len(names), rows=rows,
                          random_state=ctx.seed):
                r = imp.pfi(ctx.model, X, y, loss=ctx.loss, n_repeats=1, n_jobs=ctx.config.n_jobs,
                            random_state=ctx.seed, progress=ctx.progress)
        ranking = _ranked(r) + [f for f in names if f in unused]
        ctx.__dict__["_screen_info"] = {"screened": len(names) - len(unused), "unused": len(unused), "rows": where,
                                        "n_rows": len(X)}
    ctx.__dict__["_screen"] = ranking
    return ranking


def _screen_rows(ctx):
    """``(X, y, where)``: the rows the screen ranks on, which the budgeted methods' verdicts do not read.

    The budgeted methods' verdicts read intervals at a Bonferroni level over the entries they report and
    tests (LOCO, PIMP) adjusted over them; that level covers those entries only if choosing them did not
    look at the same noise. A screen on the test rows picks, among features with no importance, those
    whose permutation happened to raise the loss on these very rows, and their intervals and tests then
    clear 0 more often than the level says (a 60-column table, 55 of them noise: a noise feature above 0
    at the level "simultaneous over 15" in every one of 4 seeds). So the screen ranks on the training
    rows (``where`` "train"); the verdicts, on the test
    rows, are then independent of the choice given the fitted model. When every row is evaluation data
    (a fitted model and one table) there are no other rows: the screen reads PFI's rows (``where``
    "same") and section 3 says that the level does not cover the choice. At most PFI's row budget of rows.
    """
    if getattr(ctx, "evaluation", "split") == "all_rows":
        X, y = ctx.rows("pfi")
        return X, y, "same"
    use = getattr(ctx, "row_use", None)
    saved = dict(use) if isinstance(use, dict) else None
    try:  # the screen's own rows; the record ("How it was made") keeps PFI's, and the budget note says these
        budget = ctx.budget("pfi")  # PFI's row budget, as the screen on the test rows had
        X, y = ctx.rows("pfi", "train", n=len(ctx.X_train) if budget is None else budget)
    finally:
        if saved is not None:
            use.clear()
            use.update(saved)
    return X, y, "train"


def screen_info(ctx):
    """What the screen ran on: ``{"screened": k, "unused": u}``, or None (no screen: PFI of every feature ranked)."""
    return ctx.__dict__.get("_screen_info")


def _ranked(r):
    value = np.nan_to_num(np.asarray(r.importance, dtype=float), nan=-np.inf)
    return [r.feature_names[i] for i in np.argsort(-value, kind="stable")]


#: The budgeted methods that score the top features only, without the group of all the others: the
#: tree engine checks itself on every column a method will replace (~2 ms per column, 5 s of PFI's
#: 6 on 2,308 genes), and a group of every other column would make them pay it for the whole table.
NO_GROUP = ("pfi", "cfi")


def budgeted_features(ctx, group=True):
    """``features`` for a budgeted method: None (every feature) or ``{top: [top], ..., OTHERS: [the rest]}``.

    With more features than ``ctx.params.max_features`` the method runs on that many features
    ranked first by the screen, one by one, and (``group=True``) one group of every other feature
    (left out, permuted or played together), so its cost stays that of budget + 1 features. None
    when within budget -- for a grouping method also at budget + 1 features: the group would hold one feature, the
    same cost as scoring it on its own, under a name that hides it (ISLP OJ, 16 features, budget 15; review rev8).
    """
    budget = ctx.params.max_features
    names = [str(c) for c in ctx.X_test.columns]
    if budget is None or len(names) <= budget + (1 if group else 0):
        return None
    top = screen_ranking(ctx)[:budget]
    chosen = set(top)
    groups = {f: [f] for f in top}
    if group:
        groups[OTHERS] = [f for f in names if f not in chosen]
    return groups


#: The step whose rows each importance result read (``ctx.rows(step)``).
STEP_OF = {"sage_marginal": "sage", "sage_conditional": "sage"}


def _y_of(ctx):
    """``method -> y`` on the rows the method used (None when the context cannot say)."""
    rows = getattr(ctx, "rows", None)
    y_test = getattr(ctx, "y_test", None)

    def y_of(method):
        if callable(rows):
            # reading the rows records their use ("How it was made"); the reading leaves that record as it was
            use = getattr(ctx, "row_use", None)
            saved = dict(use) if isinstance(use, dict) else None
            try:
                return rows(STEP_OF.get(method, method))[1]
            except (KeyError, ValueError, AttributeError):
                pass
            finally:
                if saved is not None:
                    use.clear()
                    use.update(saved)
        return y_test
    return y_of


def _y_fit(ctx):
    """The training rows' target, on which the yardstick's best constant is fitted (:func:`~imlkit.report._claims.
    best_constant_loss`: a constant in hindsight on the scored rows shrinks the yardstick), or None."""
    return getattr(ctx, "y_train", None)


def single_features(results):
    """``results`` without the feature budget's group ``OTHERS``: the entries the reading compares.

    Beyond the feature budget LOCO, LOFO and SAGE also score one group holding every feature not kept (PFI and CFI
    do not). Its value is that of tens or thousands of features together: as "the method's largest" it made every
    share of a budgeted method a share of the group, so digits' pixel_1_4 (marginal SAGE 0.0178, 6.9% of pixel_2_5's
    0.258) was "small beside the group 'all other features' (1.6% of it)" and in disagreement with CFI (which has no
    group), and "the first feature" of LOCO and SAGE was a group of 46. The reading compares single features, each
    method's shares of its largest single feature; the group stays in the table. A result with only the group (one
    entry) is kept as it is.
    """
    out = {}
    for key, r in results.items():
        names = [str(f) for f in r.feature_names]
        keep = [f for f in names if f != OTHERS]
        out[key] = r[keep] if keep and len(keep) < len(names) else r
    return out


#: The H-statistic's rule, shared by section 4 and the reading: an H² is told apart from the threshold by its
#: bootstrap SE when it lies more than this many SEs above it (one-sided normal quantile, 95%).
H_SE_Z = 1.645




def h_beyond_share(h2, halves=None):
    """Whether a feature's H² on all rows or in either half of them is above ``_claims.H_SHARE_MAX`` (no share)."""
    return any(v is not None and np.isfinite(v) and v > cl.H_SHARE_MAX for v in (h2, *(halves or ())))


def h_clears(h2, se, threshold):
    """Whether H² lies above ``threshold`` by more than ``H_SE_Z`` bootstrap standard errors (True when no SE)."""
    return not (se is not None and np.isfinite(se)) or h2 - H_SE_Z * se > threshold


def most_important(ctx, k=None, fill=True):
    """The report's "most important" features (:func:`~imlkit.report._claims.ranked_features` on section 3's
    results, converged methods only, the shares on each method's rows), and the words that name them.

    Returns ``(features, words)``: ``features`` a list of names (empty when no feature is important for
    any method), ``words`` "the 2 most important features by the number of the 4 methods that find
    each important: a (important for 4 of 4) and b (...)" or, when empty, "no feature is important
    for any method: ...".
    """
    results = single_features(ctx.importance.compared())
    y_of, y_fit = _y_of(ctx), _y_fit(ctx)
    ranked = cl.ranked_features(results, k=k, y_of=y_of, fill=fill, y_fit=y_fit)
    words = cl.ranking_words(ranked) if ranked else cl.no_important_words(results, y_of, y_fit)
    return [r.feature for r in ranked], words + _marginal_only_words(ctx, ranked, results)


def _marginal_only_words(ctx, ranked, results):
    """A clause for the ranked features that only marginal methods (PFI, marginal SAGE) find important while section 1
    warns those methods extrapolate for them (R² >= ``R2_STRONG`` from the other features) and a conditional method
    ran: Hitters' CRBI and CHits (R² 0.99, 1.00) were "the 2 most important features (2 of 4)" from PFI and marginal
    SAGE alone, CFI's intervals including 0: the count is true, the choice rests on methods section 1 distrusts."""
    r2 = getattr(getattr(ctx, "data_outputs", None), "dependence_r2", None)
    if r2 is None:
        return ""
    # the conditional methods the ranking read: an unconverged SAGE is read by none (wine: "CFI, LOCO and SAGE
    # (conditional) do not find it important" beside the reading's "SAGE (conditional) did not converge ... not read")
    read = {m for m, e in cl.evidence_by_method(
        {m: results[m] for m in results if m in cl.CONDITIONAL}, _y_of(ctx), _y_fit(ctx)).items()
        if all(x.readable and not x.shrunk for x in e.values())}
    conditional = [m for m in results if m in cl.CONDITIONAL and m in read]
    if not conditional:
        return ""
    flagged = [r for r in ranked if r.n_important and set(r.important_for) <= set(cl.MARGINAL)
               and np.isfinite(r2.get(r.feature, np.nan)) and r2[r.feature] >= cl.R2_STRONG]
    if not flagged:
        return ""
    one = len(flagged) == 1
    it = "it" if one else "them"
    cond = [METHOD_LABELS.get(m, m) for m in conditional]
    tail = (f"without regard to the other features although those predict {it} (section 1: marginal methods "
            f"extrapolate there), while {cl.name_list(cond)} {'does' if len(cond) == 1 else 'do'} not find {it} "
            f"important")
    # each feature with its own marginal methods: breast cancer's worst perimeter is important for SAGE (marginal)
    # only, worst texture for PFI and SAGE (marginal) -- "important only for PFI and SAGE (marginal)" said of both
    # pooled the methods over the features
    order = {m: i for i, m in enumerate(results)}
    groups = {}
    for r in flagged:
        groups.setdefault(tuple(sorted(r.important_for, key=lambda m: order.get(m, len(order)))), []).append(r)

    def marg(methods):
        return cl.name_list([METHOD_LABELS.get(m, m) for m in methods])

    def names(rs):
        return cl.name_list([f"{r.feature} (R² = {cl.num(float(r2[r.feature]))})" for r in rs])

    if len(groups) == 1:
        (methods, rs), = groups.items()
        return (f"; {names(rs)} {'is' if one else 'are'} important only for {marg(methods)}, which replace {it} by "
                f"values drawn {tail}")
    parts = [f"{names(rs)} {'is' if len(rs) == 1 else 'are'} important only for {marg(methods)}" if i == 0 else
             f"{names(rs)} only for {marg(methods)}" for i, (methods, rs) in enumerate(groups.items())]
    said = ", ".join(parts[:-1]) + ", and " + parts[-1]
    return f"; {said}; these marginal methods replace {it} by values drawn {tail}"


def top_features(ctx, k):
    """The report's ``k`` most important features and the words that justify the choice: ``(features, words)``.

    A one-feature table whose methods all have intervals of width 0 there (SAGE alone) shows its only feature,
    saying so. Ranked by :func:`most_important` -- how many of the methods that
    converged find each feature important (the reading's own definition), ties by rank -- so a
    feature below 0 for PFI and SAGE is never "most important" because one noisy method ranks it
    high. ``features`` is empty when no feature is important for any method (``words`` then says
    so, with the numbers). Without importance results (none selected), the first ``k`` columns.
    """
    if not ctx.importance.compared():
        cols = [str(c) for c in ctx.X_test.columns[:k]]
        return cols, f"the first {len(cols)} columns ({no_ranking_reason(ctx)})"
    features, words = most_important(ctx, k)
    if not features and ctx.X_test.shape[1] == 1 and _undecided_only(ctx):
        # a one-feature table whose only importances are SAGE's intervals of width 0, which decide nothing (not that it
        # is unimportant, as an interval including 0 would): its one feature is the one whose effect there is to show
        only = str(ctx.X_test.columns[0])
        return [only], f"the only feature, {only} (shown although {words})"
    return features, words


def _undecided_only(ctx):
    """Whether every converged method's entry is an interval of width 0 (:attr:`~imlkit.report._claims.Evidence.
    zero_width`): no method could decide anything about the features."""
    ev = cl.evidence_by_method(single_features(ctx.importance.compared()), _y_of(ctx), _y_fit(ctx))
    xs = [x for e in ev.values() if all(x.readable for x in e.values()) for x in e.values()]
    return bool(xs) and all(x.zero_width for x in xs)


#: The importance methods that rank features (PIMP tests another method's importance; it ranks nothing itself).
RANKING_METHODS = ("pfi", "cfi", "loco", "lofo", "sage")


def no_ranking_reason(ctx):
    """Why no importance ranks the features: none was selected, or the selected ones failed (named, with the
    failures recorded by ``ctx.guard``) or were left out -- "no importance method was selected" was said when
    every selected method had failed."""
    selected = [m for m in RANKING_METHODS if ctx.methods(m)]
    if not selected:
        return "no importance method was selected to rank them"
    names = {m: METHOD_LABELS.get(m, m.upper()) for m in selected}
    failed = {f.part for f in getattr(ctx, "failures", ()) if getattr(f, "kind", None) == "method"}
    gone = [n for n in names.values() if n in failed]
    rest = [n for n in names.values() if n not in failed]
    said = []
    if gone:
        said.append(f"{cl.name_list(gone)} failed (see the warnings of section 3)")
    if rest:
        said.append(f"{cl.name_list(rest)} gave no importance (see section 3)")
    verb = "was" if len(selected) == 1 else "were"
    return f"no importance ranks them: {cl.name_list(list(names.values()))} {verb} selected, but {' and '.join(said)}"
