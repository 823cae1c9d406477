"""Section 6: inherently interpretable models fitted on the same split, against the black box."""
from __future__ import annotations

import numpy as np

from .. import models
from ._blocks import Section, bullets, frame_table, heading, pre, table, text, warning
from ._figures import draw_performance, figure_block, new_figure, report_style
from ._fit import glm_family, guarded_inputs, guarded_pipeline, performance
from ._labels import class_label
from ._ranking import top_features
from ._shared import most_frequent_class

__all__ = ["section_alternatives", "binary_task"]


def binary_task(ctx):
    """For a multi-class target: the ``--class`` class (default: the most frequent) against the rest
    (GLM and GAM are univariate).

    Returns (class label, y_train 0/1, y_test 0/1) or None for regression and two-class targets.
    """
    if ctx.task != "classification" or ctx.y_train.nunique() <= 2:
        return None
    chosen = getattr(ctx, "target_class", None)
    if chosen is not None:
        c = str(chosen)
    else:
        # the class section 4 explains: the most training rows, ties by the model's class order (value_counts' first
        # of iris's three classes of 35 rows was arbitrary, and not section 4's)
        c = str(most_frequent_class(ctx)) if _model_classes(ctx) else None
        if c is None or not (ctx.y_train.astype(str) == c).any():
            counts = ctx.y_train.astype(str).value_counts()
            c = str(counts.iloc[np.lexsort((counts.index.to_numpy(), -counts.to_numpy()))].index[0])
    name = f"{ctx.data.target} is {c}"
    return (c, (ctx.y_train.astype(str) == c).astype(int).rename(name),
            (ctx.y_test.astype(str) == c).astype(int).rename(name))


def _binary_performance(proba, y):
    from sklearn import metrics

    proba = np.clip(np.asarray(proba, dtype=float), 1e-15, 1 - 1e-15)
    return {"accuracy": float(metrics.accuracy_score(y, (proba > 0.5).astype(int))),
            "log loss": float(metrics.log_loss(y, proba, labels=[0, 1]))}


def _black_box_binary(ctx, c, y_test):
    classes = [str(k) for k in ctx.model.classes_]
    return _binary_performance(np.asarray(ctx.model.predict_proba(ctx.X_test))[:, classes.index(c)], y_test)


class _Target:
    """What the GLM and GAM are fitted to: the target itself, or one class against the rest."""

    def __init__(self, ctx):
        bt = binary_task(ctx)
        self.one_vs_rest = bt is not None
        if bt is None:
            self.cls, self.y_train, self.y_test = None, ctx.y_train, ctx.y_test
        else:
            self.cls, self.y_train, self.y_test = bt
        self.family = ("binomial" if ctx.task == "classification"   # the rows, not the latest choice for y
                       else glm_family("regression", ctx.y_train, ctx.X_train, ctx.seed))

    def train(self, ctx, step):
        """The training rows of ``step`` (its row budget) and the target the model is fitted to."""
        X, y = ctx.rows(step, "train")
        if self.one_vs_rest:
            y = (y.astype(str) == self.cls).astype(int).rename(self.y_train.name)
        return X, y

    def score(self, ctx, est):
        if self.one_vs_rest:
            return _binary_performance(est.predict_proba(ctx.X_test)[:, 1], self.y_test)
        return performance(est, ctx.X_test, self.y_test, ctx.task)


def _guarded(ctx, name, build):
    """One model's blocks through the report's guard: a model that cannot be fitted on these data
    (separable classes, singular designs, too few rows) becomes a warning box under its heading."""
    return ctx.guard(name, build, heading=name)


def _where(ctx):
    """The comparison table's caption: where every model was scored."""
    if ctx.evaluation == "all_rows":  # a fitted model and one table: these models are fitted and scored on every row
        return (f"Performance on all {len(ctx.X_test):,} rows of the table (possibly the black box's training rows; "
                f"these interpretable models were fitted on the same rows, so every score here is in-sample or may be)")
    if ctx.evaluation == "test_data":  # --test-data: no split was made
        return (f"Performance on the {len(ctx.X_test):,} rows given as test data (the interpretable models were fitted "
                f"on the {len(ctx.X_train):,} rows given as data)")
    return "Test performance on the same split"


def _fit(estimator, X, y):
    """Fit ``estimator`` behind imputation and the known-levels guard (the training split may have
    NaN, and a rare level can fall into the test split only); returns (pipeline, fitted model)."""
    pipe = guarded_pipeline(estimator).fit(X, y)
    return pipe, pipe[-1]


#: Above this many design columns a GLM with more columns than rows is skipped: its ridge fit solves a
#: p x p system per IRLS step (p = 1,000: ~3 s, p = 2,300: ~60 s on one core for 44 rows).
MAX_PENALISED_COLUMNS = 500
#: The ridge strengths (on standardised columns, relative to the target's variance for the gaussian
#: family) tried by 3-fold cross-validation when the GLM needs a penalty.
ALPHA_GRID = (0.01, 0.1, 1.0, 10.0)
#: At most this many features in a GAM reduced to the most important ones (more terms than rows).
MAX_REDUCED_GAM_TERMS = 10


def _kinds(X):
    """Per column: (numeric?, has NaN?, distinct values) from whole-frame calls (a wide table has thousands of
    columns; one pandas call per column costs a second). Numeric as :func:`imlkit._dtypes.is_numeric` decides:
    integer, float or timedelta, not bool or categorical."""
    import pandas as pd

    def numeric(dt):
        return (not isinstance(dt, pd.CategoricalDtype) and not pd.api.types.is_bool_dtype(dt)
                and (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_timedelta64_dtype(dt)))

    is_num = np.array([numeric(dt) for dt in X.dtypes], dtype=bool)
    na = np.zeros(X.shape[1], dtype=bool)
    distinct = np.zeros(X.shape[1], dtype=int)
    if is_num.any():
        part = X if is_num.all() else X.loc[:, is_num]  # selecting all columns of a wide frame costs 0.1 s
        try:  # distinct values of every numeric column from one sort (DataFrame.nunique loops over columns)
            A = np.sort(part.to_numpy(dtype=float, na_value=np.nan), axis=0)  # NaN sorts last
            na[is_num] = np.isnan(A[-1:]).ravel()
            steps = (np.diff(A, axis=0) != 0) & np.isfinite(A[1:])
            distinct[is_num] = steps.sum(axis=0) + np.isfinite(A[:1]).astype(int).ravel()
        except (TypeError, ValueError):  # timedelta columns: the slower per-column count
            na[is_num] = part.isna().any().to_numpy()
            distinct[is_num] = part.nunique().to_numpy()
    if (~is_num).any():
        part = X.loc[:, ~is_num]
        na[~is_num] = part.isna().any().to_numpy()
        distinct[~is_num] = part.nunique().to_numpy()
    return [(c, bool(u), bool(m), int(k)) for c, u, m, k in zip(X.columns, is_num, na, distinct)]


def design_columns(X):
    """How many columns the GLM's design of ``X`` has, without building it (milliseconds for wide tables).

    One per numeric column, one 0/1 missing indicator per numeric column with a NaN
    (:class:`imlkit._columns.MissingImputer`), and levels - 1 dummies per categorical column
    (a missing level counted as one more level), as :func:`imlkit.models._design.fit_design`
    codes them after imputation. The intercept is not counted.
    """
    return sum(1 + na if num else max(k + na - 1, 0) for _, num, na, k in _kinds(X))


def gam_min_coefficients(X):
    """The fewest coefficients a ``terms="auto"`` GAM of each column needs: (column, coefficients) pairs.

    A numeric column with >= 4 distinct values is a spline of at least 4 B-splines under a
    sum-to-zero constraint (3 coefficients), plus its missing indicator (a linear term); other
    numeric columns are linear (1); a categorical column has levels - 1 dummies. A GAM needs
    ``2 * (1 + sum) <= n`` rows (:meth:`imlkit.models.GAM._basis_sizes`).
    """
    return [(c, (3 if k >= 4 else 1) + na if num else max(k + na - 1, 0)) for c, num, na, k in _kinds(X)]


def _cv_alpha(fam, X, y, seed):
    """The ridge strength of :data:`ALPHA_GRID` with the lowest 3-fold cross-validated deviance-type loss."""
    from sklearn import metrics
    from sklearn.model_selection import KFold, StratifiedKFold

    yv = np.asarray(y)
    scale = float(np.var(yv.astype(float))) if fam == "gaussian" else 1.0
    scale = scale if scale > 0 else 1.0
    stratify = fam == "binomial" and np.bincount(yv.astype(int)).min() >= 3
    folds = (StratifiedKFold(3, shuffle=True, random_state=seed) if stratify
             else KFold(3, shuffle=True, random_state=seed))
    losses = []
    for a in ALPHA_GRID:
        loss = 0.0
        for tr, te in folds.split(X, yv):
            try:  # a fold with one class (a rare one-vs-rest class) cannot be fitted: that grid point loses
                pipe = guarded_pipeline(models.GLM(family=fam, alpha=a * scale)).fit(X.iloc[tr], y.iloc[tr])
                if fam == "binomial":
                    proba = np.clip(np.asarray(pipe.predict_proba(X.iloc[te]))[:, 1], 1e-15, 1 - 1e-15)
                    loss += metrics.log_loss(yv[te], proba, labels=[0, 1])
                else:
                    loss += metrics.mean_squared_error(yv[te], pipe.predict(X.iloc[te]))
            except Exception:  # noqa: BLE001 - any failure of a fold only rules out this strength
                loss = np.inf
                break
        losses.append(loss)
    if not np.isfinite(np.min(losses)):
        return scale  # no grid point could be scored: the middle of the grid
    return ALPHA_GRID[int(np.argmin(losses))] * scale


def _glm_plan(ctx, X):
    """None for the ordinary GLM, ("ridge", text) when the design has as many columns as rows or more,
    ("skip", text) when such a design is too wide even for the ridge fit."""
    n, p = len(X), design_columns(X)
    if p + 1 < n:
        return None
    why = f"its design has {p:,} columns (numeric features, dummies and missing indicators) for {n:,} training rows"
    if p > MAX_PENALISED_COLUMNS:
        return "skip", (f"GLM skipped: {why}, so the ordinary fit is not defined, and the ridge fit is limited to "
                        f"{MAX_PENALISED_COLUMNS:,} columns (its cost grows with the cube of the columns: a minute "
                        f"for 2,300); see the importance sections instead.")
    return "ridge", (f"Ridge-penalised GLM: {why}, so the ordinary maximum-likelihood fit is not defined; the "
                     f"penalty (chosen by 3-fold cross-validation) makes the weights finite, at the price of "
                     f"shrinking them and of having no intervals.")


def _glm_blocks(ctx, tg, perf):
    fam = tg.family
    X, y = tg.train(ctx, "glm")
    plan = _glm_plan(ctx, X)
    if plan is not None and plan[0] == "skip":
        ctx.notes.append(plan[1])
        return [heading(f"GLM ({fam} family)"), warning(plan[1])]
    alpha = 0.0
    with ctx.step("GLM", family=fam, **({"alpha": "3-fold CV"} if plan else {})) as entry:
        if plan is not None:
            alpha = _cv_alpha(fam, X, y, ctx.seed)
            entry.parameters["alpha"] = float(alpha)
        pipe, glm = _fit(models.GLM(family=fam, alpha=alpha), X, y)
        over = glm.overdispersed()
        if over:  # the same weights and predictions; standard errors that allow the data's spread
            entry.parameters["dispersion"] = "pearson"
            pipe, glm = _fit(models.GLM(family=fam, alpha=alpha, dispersion="pearson"), X, y)
        perf[f"GLM ({fam}{', ridge' if alpha else ''})"] = tg.score(ctx, pipe)
        if not tg.one_vs_rest:
            ctx.alternative_models[f"GLM ({fam}{', ridge' if alpha else ''})"] = pipe
    summary = glm.summary()
    caption = (f"Ridge-penalised weights (alpha={alpha:.3g} on standardised columns; no intervals)" if alpha
               else "Coefficients with 95% Wald intervals" + _t_words(summary)
               + (f" (quasi-{fam}: dispersion {glm.dispersion_:.3g})" if over else "")
               + _hc3_caption(glm))
    blocks = [heading(f"GLM ({fam} family, {glm.link_} link{', ridge penalty' if alpha else ''})")]
    if not tg.one_vs_rest:
        blocks += no_skill_note(ctx, perf[f"GLM ({fam}{', ridge' if alpha else ''})"], "this GLM")
    if plan is not None:
        blocks.append(warning(plan[1]))
    if over:
        blocks.append(text(overdispersion_note(glm)))
    if fam == "binomial":  # before the table: it speaks of "the weights ... below" (wine, class 1 vs the rest)
        blocks += _separation_warning(pipe, X)
    blocks.append(frame_table(_glm_table(summary), caption=caption))
    if tg.one_vs_rest:  # y is 0/1 named "target is c": the modelled event is the class itself
        cls = tg.cls[:-2] if tg.cls.endswith(".0") and tg.cls[:-2].lstrip("-").isdigit() else tg.cls  # 1.0 -> 1
        glm.event_ = f"{ctx.data.target} = {cls}"
    top, top_words = top_features(ctx, 4)
    read = [f for f in top if f in guarded_inputs(pipe)]
    sentences = code_caveats(ctx, glm_readings(glm, read), read)
    lead = "Not estimable, so not read: "
    by_cause = {}
    for f in read:
        for j in glm.design_.blocks.get(f, []):
            if not glm.estimable_.iloc[j]:
                by_cause.setdefault(glm.not_estimable_.iloc[j], []).append(glm.design_.names[j])
    if by_cause:
        sentences.append(lead + "; ".join(f"{', '.join(n)} ({c})" for c, n in by_cause.items()) + ".")
    if sentences:
        # the words that chose them, with their counts: a feature important for no method (added to fill the list)
        # is not "most important" (Default: student, important for none of 4, was read under that title)
        title = (f"Reading the weights of {top_words}" if read == top else
                 f"Reading the weights of the features {_ranked_by(ctx)} that this GLM uses ({top_words})")
        blocks.append(bullets(sentences, title=title))
    return blocks


def _t_words(summary):
    """" from Student's t on 14 residual df (the dispersion is estimated)" when the GLM's intervals and p-values use
    the t distribution (``summary.attrs["reference"]``: a gaussian or gamma GLM, or a quasi-family one, whose
    dispersion is estimated), "" for the normal one: a caption of "Wald intervals" alone reads as normal quantiles
    (copper, 13 rows and 6 terms: t(7) intervals 1.21 times as wide as the normal ones)."""
    if summary.attrs.get("reference") != "t":
        return ""
    df = float(summary.attrs.get("df", np.nan))
    return f" from Student's t on {df:,.0f} residual df (the dispersion is estimated)" if np.isfinite(df) else ""


def _hc3_caption(glm):
    """"; from HC3 sandwich standard errors ..." when the GLM's table uses them (its variance check rejected a
    constant variance, glm7): the table's intervals are not the family's model-based ones, said where no reading
    is printed too (statecrime: murder [18.4, 66.0] model-based, [-15.1, 99.5] HC3)."""
    from .._display import p_is

    if getattr(glm, "covariance_", "model") != "HC3":
        return ""
    why = (f", as a Breusch–Pagan test rejects one variance for every row (p {p_is(glm.heteroscedasticity_p_)})"
           if glm.heteroscedastic() else "")
    return (f"; the intervals use HC3 sandwich standard errors (std_error; model_std_error is the {glm.family} "
            f"family's model-based one){why}")


def _code_notes(ctx, features):
    """A line for each feature read that may be an integer code (section 1's rule,
    :func:`imlkit._columns.integer_codes`): its weight is a slope per unit, which means something only if its
    numbers are amounts."""
    from .._columns import integer_codes
    from ._shared import fitted_outside

    codes = dict(integer_codes(ctx.data.X, ctx.data.decisions))
    change = "" if fitted_outside(ctx) else "; --categorical {} gives each value a weight of its own"
    return [f"{f} may be a code (values {', '.join(map(str, codes[f]))}; section 1): its weight is a slope per unit, "
            f"which assumes its numbers are amounts{change.format(f)}." for f in features if f in codes]


def code_caveats(ctx, sentences, features):
    """``sentences`` with the caveat of each feature read that may be an integer code (section 1's rule,
    :func:`imlkit._columns.integer_codes`) in the first sentence that reads a per-unit weight of it, where the
    number is: "Increasing StoreID by one unit multiplies the odds ... by 0.854 [0.759, 0.961], all other features
    fixed; but StoreID may be a code (values 1, 2, 3, 4, 7; section 1): its per-unit weight has no meaning if the
    numbers name groups; pass --categorical StoreID ...". A closing line two sentences later (OJ, review r1 rev8)
    left the number read as a finding. A code feature without such a sentence gets :func:`_code_notes`' line."""
    import re

    from .._columns import integer_codes
    from ._shared import fitted_outside

    codes = dict(integer_codes(ctx.data.X, ctx.data.decisions))
    out = list(sentences)
    outside = fitted_outside(ctx)
    for f in features:
        if f not in codes:
            continue
        unit = re.compile(rf"(^|\s)[Ii]ncreasing {re.escape(f)} by ")
        at = next((i for i, x in enumerate(out) if unit.search(x)), None)
        if at is None:
            out += _code_notes(ctx, [f])
            continue
        advice = (" (the fitted model takes its columns as given, so --categorical cannot change it here)" if outside
                  else f"; pass --categorical {f} to give each value a weight of its own")
        body = out[at][:-1] if out[at].endswith(".") else out[at]
        out[at] = (f"{body}; but {f} may be a code (values {', '.join(map(str, codes[f]))}; section 1): its per-unit "
                   f"weight has no meaning if the numbers name groups{advice}.")
    return out


def overdispersion_note(glm):
    """Why the GLM's intervals are quasi-likelihood ones: the Pearson test's numbers (strikes: a poisson GLM's
    intervals were 6.3 times too narrow, "0.916 [0.906, 0.925]" for a dispersion of 39.9)."""
    from .._display import p_is

    phi, df = glm.pearson_dispersion_, float(glm.result_.df_resid)
    return (f"The {glm.family} family fixes the dispersion at 1 (variance = mean for counts), but the Pearson "
            f"dispersion of this fit is {phi:.3g} (χ² {phi * df:,.1f} on {df:,.0f} residual df, p "
            f"{p_is(glm.overdispersion_p_)} against 1): its intervals would be too narrow by a factor of "
            f"√{phi:.3g} = {np.sqrt(phi):.3g}. The weights below are the {glm.family} GLM's; their standard errors and "
            f"intervals use the estimated dispersion (quasi-{glm.family}, McCullagh & Nelder 1989).")


def glm_readings(glm, features):
    """The GLM's sentences on ``features`` (at most 3 each), each once, with the notes on every weight (the intervals'
    level, a ridge fit's shrinkage) once at the end -- not between the first feature's sentence and the second's,
    where they read as said of the first only -- and without its "Not estimable" line (the caller writes one for
    the features read)."""
    sentences = []
    for f in features:
        sentences += [x for x in _feature_sentences(glm, f) if x not in sentences]
    closing = [x for x in sentences if x.startswith(("Intervals in brackets", "The weights are from"))]
    return [x for x in sentences if x not in closing and not x.startswith("Not estimable, so not read: ")] + closing


#: Sentences the reading gives one feature of the GLM (the levels of a categorical one beyond these are in the table).
READ_PER_FEATURE = 3


def _feature_sentences(glm, f, k=READ_PER_FEATURE):
    """At most ``k`` of the GLM's sentences on ``f``. For a categorical feature with more than ``k`` levels read
    against its reference, the ``k`` levels with the largest |weight| -- not the first ``k`` in alphabetical order
    (grunfeld's firm: Atlantic Refining, Chrysler and Diamond Match, two "not distinguishable from 0", leaving out
    General Electric -226 [-290, -162] and US Steel +93 [31, 156]) -- and a sentence saying which and how many."""
    said = list(glm.interpret(f))
    # the notes on every weight (the intervals' level and covariance, a ridge fit's shrinkage) are kept whatever k
    # cuts: a categorical with exactly k levels read lost "Intervals in brackets are ... HC3 ..." (glm7)
    closing = [x for x in said if x.startswith(("Intervals in brackets", "The weights are from"))]
    said = [x for x in said if x not in closing]
    spec = getattr(glm, "design_", None)
    levels = list(getattr(spec, "categorical", {}).get(f, ()))
    if len(levels) - 1 <= k:
        return said[:k] + closing
    ref, cols = levels[0], spec.blocks[f]
    by_level = {}
    for lv, j in zip(levels[1:], cols):
        hit = [x for x in said if x.startswith(f"{f} = {lv} (instead of {ref})")]
        if hit:
            by_level[lv] = (hit[0], abs(float(glm.coef_.iloc[j])))
    if len(by_level) <= k:
        return said[:k] + closing
    chosen = sorted(by_level, key=lambda lv: -by_level[lv][1])[:k]
    n = len(levels) - 1
    note = (f"These are {k} of the {n} levels of {f} other than {ref}, those with the largest weights "
            f"(|weight| from {_fmt_weight(by_level[chosen[0]][1])} down to {_fmt_weight(by_level[chosen[-1]][1])}); "
            f"every level's weight is in the table above.")
    return [by_level[lv][0] for lv in chosen] + [note] + closing


def _fmt_weight(v):
    from ._blocks import fmt

    return fmt(v)


def _glm_table(summary):
    """The GLM's summary as printed: each estimate with its interval in the fewest digits (4 at least)
    that tell the three apart ("1.005 [1.005, 1.006]" hides the interval), p-values below 1e-16 as
    "< 1e-16" (the double precision floor: smaller ones are not meaningful)."""
    from ._blocks import fmt

    out = summary.astype(object)
    for cols in (["weight", "ci_low", "ci_high"], ["exp_weight", "exp_ci_low", "exp_ci_high"]):
        if not set(cols) <= set(out.columns):
            continue
        for term in out.index:
            vals = [summary.at[term, c] for c in cols]
            for digits in range(4, 11):
                texts = [fmt(v, digits) for v in vals]
                if all(texts[i] != texts[k] or vals[i] == vals[k] or not np.isfinite(vals[i] - vals[k])
                       for i in range(3) for k in range(i + 1, 3)):
                    break
            for c, t in zip(cols, texts):
                out.at[term, c] = t
    if "p_value" in out.columns:
        out["p_value"] = [("< 1e-16" if v < 1e-16 else fmt(v)) if np.isfinite(v) else fmt(v)
                          for v in summary["p_value"].to_numpy(dtype=float)]
    return out


def _columns(X, names):
    """The named columns of X (the first step of a reduced GAM's pipeline; module level so it pickles)."""
    return X[names]


def _ranked_by(ctx):
    """How the features a section-6 model reads were chosen: by section 3's importance methods, or -- none ranked them
    -- the table's first columns (star98, --methods without pfi: "GAM of the 10 features ranked first by the importance
    methods only" were its first 10 columns)."""
    from ._ranking import no_ranking_reason

    if ctx.importance.compared():
        return "ranked first by the importance methods"
    return f"first in the table's column order ({no_ranking_reason(ctx)})"


def _gam_plan(ctx, X):
    """The GAM's terms: ("auto", None) when every feature fits, ({column: kind}, text) for a GAM reduced
    to the most important features when all of them need more coefficients than the rows carry, or
    (None, text) when not even one fits. Decided by counting, before any fit."""
    n = len(X)
    need = gam_min_coefficients(X)
    total = 1 + sum(k for _, k in need)
    # The feature budget (--max-features) bounds the GAM as it bounds the methods whose cost grows
    # with the number of features: each smoothing-parameter step solves a system in every term's
    # coefficients (Caravan's 85 features: 40 s of a 65 s --quick report).
    budget = ctx.params.max_features
    over_budget = budget is not None and X.shape[1] > budget
    if 2 * total <= n and not over_budget:
        return "auto", None
    if 2 * total > n:
        why = (f"all {X.shape[1]:,} features would need at least {total:,} coefficients, and {n:,} training rows "
               f"carry at most {n // 2:,} (2 rows per coefficient)")
        limit = MAX_REDUCED_GAM_TERMS
    else:
        why = (f"the table's {X.shape[1]:,} features are more than the feature budget of {budget} (a GAM's fit "
               f"grows with its number of terms; --max-features N or --full to change it)")
        limit = min(MAX_REDUCED_GAM_TERMS, budget)
    cost = dict(need)
    chosen, used = [], 1
    ranked = top_features(ctx, X.shape[1])[0]
    # why the GAM has as many terms as it has (Caravan: "GAM of the 9 features ..." under a reason that explained
    # neither 9 nor the limit of 10; review rev8 r3-11c)
    stop = "no further feature is ranked"
    for f in ranked:
        if f not in cost or cost[f] == 0:
            continue
        if len(chosen) >= limit:
            stop = f"at most {limit} terms"
            break
        if 2 * (used + cost[f]) > n:
            stop = f"the next one, {f}, would need more coefficients than the rows carry (2 rows per coefficient)"
            break
        chosen.append(f)
        used += cost[f]
    if not chosen:
        return None, (f"GAM skipped: {why}, and not even the most important feature fits." if ranked else
                      f"GAM skipped: {why}, and no feature is important for any method to choose a smaller GAM by.")
    from .._dtypes import is_numeric

    terms = {f: ("spline" if is_numeric(X[f]) and X[f].nunique() >= 4 else
                 "linear" if is_numeric(X[f]) else "factor") for f in chosen}
    return terms, (f"GAM of the {len(chosen)} feature{'s' if len(chosen) > 1 else ''} {_ranked_by(ctx)} only "
                   f"({stop}): {why}.")


def _gam_blocks(ctx, tg, perf):
    fam = tg.family
    X, y = tg.train(ctx, "gam")
    terms, why = _gam_plan(ctx, X)
    if terms is None:
        ctx.notes.append(why)
        return [heading(f"GAM ({fam} family)"), warning(why)]
    with ctx.step("GAM", family=fam, terms="auto" if terms == "auto" else f"{len(terms)} most important features"):
        if terms == "auto":
            pipe, gam = _fit(models.GAM(family=fam), X, y)
        else:  # only the chosen columns go through imputation and the level guard (a wide table costs seconds)
            from sklearn.preprocessing import FunctionTransformer

            pipe = guarded_pipeline(models.GAM(family=fam, terms=terms))
            pipe.steps.insert(0, ("columns", FunctionTransformer(_columns, kw_args={"names": list(terms)})))
            pipe.fit(X, y)
            gam = pipe[-1]
        perf[f"GAM ({fam}{', reduced' if why else ''})"] = tg.score(ctx, pipe)
        if not tg.one_vs_rest:
            ctx.alternative_models[f"GAM ({fam}{', reduced' if why else ''})"] = pipe
    blocks = [heading(f"GAM ({fam} family)")]
    if why:
        blocks.append(warning(why))
    if not tg.one_vs_rest:
        blocks += no_skill_note(ctx, perf[f"GAM ({fam}{', reduced' if why else ''})"], "this GAM")
    if getattr(gam, "converged_", True) is False:  # set by models.GAM; its estimates are then unreliable
        blocks.append(warning("The GAM's fit did not converge: its terms and curves below are "
                       "those of the last iteration and may be far off (e.g. separable classes or too many basis "
                       "functions for the rows); do not read them as the data's effects."))
    blocks += gam_dispersion_warning(gam)
    aliased = getattr(gam, "aliased_", {})
    if aliased:
        blocks.append(text("Left out of the GAM (the linear part of each is an exact combination of other columns, "
                           "so no smoothing makes the fit unique): " + "; ".join(
                               f"{c} (collinear with {', '.join(w[:4])})" for c, w in aliased.items()) + "."))
    blocks.append(frame_table(gam_terms(gam), caption=gam_terms_caption(gam)))
    ranked, words = top_features(ctx, 6)
    feats = [f for f in ranked if f in guarded_inputs(pipe) and f in gam.terms_]
    if not feats:
        # strikes on 11 test rows: no feature important for any method, and an empty grid of panels failed the whole
        # GAM part after its scores had been shown
        blocks.append(text(f"No figure of the GAM's terms: none of the features it would show is among the report's "
                           f"most important ({words})."))
        return blocks
    with report_style():
        ncol = 3
        nrow = int(np.ceil(len(feats) / ncol))
        fig, ax = new_figure(nrow, ncol, figsize=(10, 3 * nrow))
        for a, f in zip(ax.ravel(), feats):
            gam.partial_effect(f).plot(ax=a)
            a.set_title(f"GAM term of {f}")
        for a in ax.ravel()[len(feats):]:
            a.set_axis_off()
        blocks.append(figure_block(fig, f"GAM partial effects of the features {_ranked_by(ctx)}: "
                                        f"{gam_band_words(gam)}"))
    return blocks


def gam_dispersion_warning(gam, level=0.05):
    """A poisson (or exponential) GAM whose counts vary more than the family allows: its bands and p-values assume
    the dispersion 1 (randhie mdvis: Pearson dispersion 6.3, bands 2.5 times too narrow, 'p_value 0' for disea)."""
    from .._display import p_is

    p, phi = getattr(gam, "overdispersion_p_", np.nan), getattr(gam, "pearson_dispersion_", np.nan)
    if not (np.isfinite(p) and p < level and phi > 1):
        return []
    df = gam.n_samples_ - gam.edf_total_
    return [warning(f"The {gam.family} family fixes the dispersion at 1, but the Pearson dispersion of this GAM is "
                    f"{phi:.3g} (χ² {phi * df:,.1f} on {df:,.1f} residual df, p {p_is(p)} against 1): its bands below "
                    f"are too narrow by a factor of about √{phi:.3g} = {np.sqrt(phi):.3g} and its p-values are too "
                    f"small. Read the curves' shapes, not their bands or p-values.")]


def gam_terms(gam):
    """The GAM's summary as printed: p-values below the double-precision floor as "< 1e-16", as the GLM's table has
    them (randhie's disea printed "p_value 0", a probability no test gives)."""
    from .._display import p_text

    summary = gam.summary()
    out = summary.astype({"p_value": object})
    out["p_value"] = [p_text(v) for v in summary["p_value"].to_numpy(dtype=float)]
    return out


def gam_terms_caption(gam):
    """The GAM's term table caption: what edf and the p-values are, and how far the p-values can be trusted (the
    table printed them bare: "p_value 2.65e-08" read as an exact test, which it is not when λ is estimated)."""
    estimated = isinstance(getattr(gam, "smoothing", None), str)  # "reml" / "gcv": λ chosen from the data
    return ("Terms (edf: effective degrees of freedom of a term -- 1 for a straight line, up to n_coef for an "
            "unpenalised fit; p_value: an approximate Wald test of 'the term is 0' on ref_df = round(edf) degrees of "
            "freedom (Wood 2013 without its fractional-rank refinement)"
            + (", somewhat too small as the smoothing parameters λ are estimated)" if estimated else ")"))


def gam_band_words(gam):
    """How the GAM's partial-effect bands read: pointwise, at the model's level, on the link scale, centred."""
    level = getattr(gam, "confidence_level", None)
    band = f"pointwise {100 * level:g}% bands" if level is not None else "bands of ±2 standard errors"
    scale = {"identity": "the target's scale", "log": "the log scale of the mean",
             "logit": "the log-odds scale"}.get(getattr(gam, "link_", ""), f"the {gam.link_} link's scale")
    return (f"each term's contribution to the linear predictor on {scale}, centred over the training rows (a "
            f"categorical term: against its first level), with {band} from the fit's Bayesian covariance (each "
            f"covers the curve at one value at a time, not the whole curve at once)")


#: RuleFit's L1 fit of a multi-class target is one cross-validated path per class: above this many
#: classes the section says so in one line instead (100 classes: 100 paths, 190 s of CPU).
RULEFIT_MAX_CLASSES = 10
#: The same limit in ``--quick`` (unless the report's model is RuleFit): each path costs about 2.4 s of CPU on
#: 2,100 rows, so 10 classes took 23 s of a one-minute report; 5 classes take about 12 s.
RULEFIT_MAX_CLASSES_QUICK = 5


def _rulefit_blocks(ctx, perf):
    k = ctx.y_train.nunique() if ctx.task == "classification" else 0
    cfg = getattr(ctx, "config", None)
    if (k > RULEFIT_MAX_CLASSES_QUICK and getattr(cfg, "quick", False) and not getattr(cfg, "full", False)
            and _own_model(ctx) != "rulefit"):
        return [heading("RuleFit"),
                text(f"Not fitted in --quick: RuleFit's L1 fit of a target with {k} classes is one cross-validated "
                     f"path per class ({k} paths, about 2 s of CPU each on a few thousand rows); --quick fits it up "
                     f"to {RULEFIT_MAX_CLASSES_QUICK} classes (the report without --quick, or --full, up to "
                     f"{RULEFIT_MAX_CLASSES}).")]
    if k > RULEFIT_MAX_CLASSES:
        return [heading("RuleFit"),
                text(f"Not fitted: RuleFit's L1 fit of a target with {k} classes is one cross-validated path per class "
                     f"({k} paths; more than {RULEFIT_MAX_CLASSES} classes takes minutes). Fit imlkit.models.RuleFit "
                     f"on a few classes of interest (one against the rest) to see their rules.")]
    with ctx.step("RuleFit", random_state=ctx.seed):
        task = "regression" if ctx.task == "regression" else "classification"
        pipe, rf = _fit(models.RuleFit(task=task, random_state=ctx.seed), *ctx.rows("rulefit", "train"))
        perf["RuleFit"] = performance(pipe, ctx.X_test, ctx.y_test, ctx.task)
        ctx.alternative_models["RuleFit"] = pipe
    return ([heading("RuleFit")] + no_skill_note(ctx, perf["RuleFit"], "RuleFit")
            + rulefit_table(rf, ctx.params.models.rulefit_rules, ctx.evaluation == "all_rows"))


def rulefit_table(rf, k, all_rows=False):
    """RuleFit's kept terms as read: the top ``k`` by importance among those fitted to enough rows, and one line on
    the rules left out because their weight rests on a handful of rows (``few_rows``, fewer than
    :data:`imlkit.models._rulefit.MIN_RULE_ROWS` rows inside or outside the rule): a weight fitted to 3 of 354
    training rows (Boston) is no finding about the data, whatever its importance."""
    from ..models._rulefit import MIN_RULE_ROWS

    tab = rf.rules_
    few = tab[tab["few_rows"]]
    rules = tab[~tab["few_rows"]].head(k).drop(columns="few_rows")
    n = rf.n_rows_used_
    rows = f"{n:,} rows (the same rows it is scored on)" if all_rows else f"{n:,} training rows"
    lead = (f"{rf.n_candidate_rules_} candidate rules from the tree ensemble; {len(tab)} rules and linear terms kept "
            f"by the L1 fit on {rows} (n_rows: the rows a rule covers among them). The top {len(rules)} by importance")
    if len(few):
        top = few.iloc[0]
        verb = "covers" if len(few) == 1 else "cover"
        lead += (f", leaving out {_count(len(few), 'kept rule')} that {verb} fewer than {MIN_RULE_ROWS} of these rows "
                 f"or all but fewer than {MIN_RULE_ROWS}: each weight is fitted to those few rows, so it is no finding "
                 + (f"(the most important of them, {top['rule']}, covers" if len(few) > 1 else f"({top['rule']} covers")
                 + f" {int(top['n_rows']):,} of {n:,} rows)")
    if not len(rules):  # nothing left to list (copper: 13 training rows, every kept rule on fewer than 10 or 3)
        return [text(lead.replace(f"The top {len(rules)} by importance", "None is listed") + ".")]
    return [text(lead + ":"),
            frame_table(rules.reset_index(drop=True), caption="Top RuleFit rules and linear terms", index=False),
            text(_rulefit_weight_words(rf))]


def _rulefit_weight_words(rf):
    """What a RuleFit weight is: a rule's addition where it holds, a linear term's slope on the clipped feature (not
    the feature's whole effect: the rules on it carry the rest), on the log-odds scale for classes."""
    if getattr(rf, "task_", "regression") == "classification":
        classes = list(rf.classes_)
        scale = (f" to the log-odds of {classes[1]}" if len(classes) == 2 else
                 " to the log-odds of class c against the rest (weight[c]; 0 where that class's fit dropped the term)")
    else:
        scale = " to the prediction"
    d = 100 * rf.winsorize
    return (f"weight: what a rule adds{scale} on the rows it covers; for a linear term, what one unit of the feature "
            f"adds, the feature clipped to its {d:g}% and {100 - d:g}% training quantiles. A feature's whole effect is "
            f"its linear term plus every rule on it, so no single weight is that effect. importance: |weight| times "
            f"the term's standard deviation on the training rows (averaged over the classes for several).")


def _tree_blocks(ctx, perf):
    crit = "squared_error" if ctx.task == "regression" else "gini"
    X_tree, y_tree = ctx.rows("tree", "train")
    with ctx.step("Decision tree", criterion=crit, max_depth=3, min_samples_leaf=20):
        pipe, tree = _fit(models.DecisionTree(criterion=crit, max_depth=3, min_samples_leaf=20), X_tree, y_tree)
        # the depth it reached: heart (48 training rows) grew one split under the label "depth 3"
        depth = int(tree.nodes_["depth"].max()) if len(tree.nodes_) else 0
        label = "depth 3" if depth == 3 else f"depth {depth}; at most 3"
        perf[f"decision tree ({label})"] = performance(pipe, ctx.X_test, ctx.y_test, ctx.task)
        ctx.alternative_models[f"decision tree ({label})"] = pipe
    # the leaves' n and impurity are those of the rows the tree was fitted on, not of the rows it is scored on
    train_word = "rows (the same rows it is scored on)" if ctx.evaluation == "all_rows" else "training rows"
    stopped = ("" if depth == 3 else
               f" It stopped at depth {depth} of at most 3: no leaf had a split that lowers the {crit} and leaves at "
               f"least 20 of these rows on each side.")
    return [heading(f"Decision tree ({label})"), *no_skill_note(ctx, perf[f"decision tree ({label})"], "the tree"),
            text(f"Fitted on {len(X_tree):,} {train_word}: each leaf's n counts those rows, and its value and "
                 f"{crit} are theirs.{stopped}"),
            pre(tree.export_text())]


def _model_classes(ctx):
    """The model's ``classes_`` as a list (None without them)."""
    classes = getattr(ctx.model, "classes_", None)
    return None if classes is None or not len(classes) else list(classes)


def no_skill_note(ctx, metrics, name):
    """A line when ``name`` predicts the held-out rows no better than a constant: a test R² at most 0 (worse than the
    test rows' own mean) or a balanced accuracy at most 1/K (chance). Its weights, rules or curves then describe the
    rows it was fitted on only (Publication: RuleFit's 8 rules shown with a test R² of -0.158; Weekly: the GLM's
    'Lag2 multiplies the odds by 1.08 [1.01, 1.15]' with a test balanced accuracy of 0.475). Nothing is said of scores
    on the model's own training rows (a fitted model with one table), where a low one would mean something else.
    When test rows beyond the training range carry the verdict (:func:`~imlkit.report._shared.beyond_training`), the
    line names them (statsmodels engel: one row of 71 carries 81% of the GAM's squared error; R² 0.63 without it)."""
    if ctx.evaluation == "all_rows" or not metrics:
        return []
    r2, bal, auc = metrics.get("R²"), metrics.get("balanced accuracy"), metrics.get("ROC AUC")
    n = len(ctx.y_test)
    k = max(ctx.y_train.nunique(), 2)
    # a classifier that always says the majority class has balanced accuracy 1/K whatever its probabilities: it is
    # without value only when they do not rank the rows either (ROC AUC at most 0.5, when it has probabilities)
    ranks = auc is not None and np.isfinite(auc) and auc > 0.5
    if r2 is not None and np.isfinite(r2) and r2 <= 0:
        what = f"its test R² is {r2:.3g}: its squared error on them is at least that of their own mean"
    elif bal is not None and np.isfinite(bal) and bal <= 1 / k and not ranks:
        what = (f"its test balanced accuracy is {bal:.3g}, at most the {1 / k:.3g} of guessing among {k} classes"
                + (f", and its ROC AUC {auc:.3g}, at most the 0.5 of guessing" if auc is not None and np.isfinite(auc)
                   else ""))
    else:
        return []
    note, turns = "", False
    if r2 is not None and np.isfinite(r2) and r2 <= 0:
        from ._shared import beyond_training

        est = _note_estimator(ctx, name)
        if est is not None:
            note, turns = beyond_training(ctx, est.predict(ctx.X_test), name)
    if turns:
        return [warning(f"On the {n:,} test rows {name} predicts no better than a constant ({what}).{note} Read what "
                        f"it shows below within the training range.")]
    return [warning(f"On the {n:,} test rows {name} predicts no better than a constant ({what}): what it shows below "
                    f"describes the rows it was fitted on, and these rows give no evidence that it holds on new ones."
                    f"{note}")]


#: The name :func:`no_skill_note` is given for each of section 6's models, and the start of its key in
#: ``ctx.alternative_models`` (the model it speaks of is the last one fitted under that key).
_NOTE_KEYS = {"this GLM": "GLM", "this GAM": "GAM", "RuleFit": "RuleFit", "the tree": "decision tree",
              "RIPPER": "RIPPER", "OneR": "OneR"}


def _note_estimator(ctx, name):
    """The fitted model :func:`no_skill_note` speaks of (the last one of its kind in ``ctx.alternative_models``)."""
    start = _NOTE_KEYS.get(name)
    fitted = getattr(ctx, "alternative_models", None) or {}
    keys = [k for k in fitted if start and k.startswith(start)]
    return fitted[keys[-1]] if keys else None


def _count(n, word):
    """``1 rule``, ``4 rules``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _rule_learner_blocks(ctx, perf):
    """Classification only: a RIPPER decision list and Holte's OneR, with their test performance."""
    with ctx.step("RIPPER", k=2, random_state=ctx.seed):
        pipe, ripper = _fit(models.RIPPER(random_state=ctx.seed), *ctx.rows("ripper", "train"))
        perf["RIPPER"] = performance(pipe, ctx.X_test, ctx.y_test, ctx.task)
        ctx.alternative_models["RIPPER"] = pipe
    with ctx.step("OneR", min_bucket=6):
        X_oner, y_oner = ctx.rows("oner", "train")
        pipe, oner = _fit(models.OneR(), X_oner, y_oner)
        perf["OneR"] = performance(pipe, ctx.X_test, ctx.y_test, ctx.task)
        ctx.alternative_models["OneR"] = pipe
    X_rip, y_rip = ctx.rows("ripper", "train")
    return [heading("Rule learners: RIPPER and OneR"), *no_skill_note(ctx, perf["RIPPER"], "RIPPER"),
            text(f"RIPPER's decision list ({_count(len(ripper.rules_.rules), 'rule')}; the first rule that covers a "
                 f"row decides):"),
            decision_list_table(ctx, ctx.alternative_models["RIPPER"], ripper.rules_, X_rip, y_rip, "RIPPER"),
            *no_skill_note(ctx, perf["OneR"], "OneR"),
            text(f"OneR picks the single feature {oner.feature_} ({int(oner.errors_[oner.feature_]):,} errors on its "
                 f"{len(y_oner):,} training rows):"),
            decision_list_table(ctx, ctx.alternative_models["OneR"], oner.rules_, X_oner, y_oner, "OneR")]


def _level_guard(pipe):
    """``(steps before it, KnownLevels)`` of a guarded pipeline, or ``(None, None)`` without the guard."""
    from .._columns import KnownLevels

    for k, step in enumerate(pipe.steps):
        if isinstance(step[1], KnownLevels):
            return pipe[:k], step[1]
    return None, None


def remapped_levels(pipe, X):
    """The rows of ``X`` whose categorical level had no row among those ``pipe`` was fitted on: the known-levels
    guard's table (column, level, rows, scored_as, why) and their mask; (empty, None) without the guard."""
    import pandas as pd

    before, guard = _level_guard(pipe)
    if guard is None:
        return pd.DataFrame(columns=["column", "level", "rows", "scored_as", "why"]), None
    Xg = before.transform(X) if len(before) else X
    return guard.remapped(Xg), guard.remapped_rows(Xg)


def remapped_levels_words(pipe, X, rows_word="test rows", models="imlkit's models", plural=True):
    """One sentence per column with rows of ``X`` whose level had no training row: how many, which levels, and the
    level the model scores them as (BrainCancer: one test row's missing diagnosis, lumped, had no training row and
    was scored as 'Meningioma' by every interpretable model without a word). Empty when no row is mapped."""
    table_, _ = remapped_levels(pipe, X)
    out = []
    one = rows_word[:-1] if rows_word.endswith("s") else rows_word
    for col, part in table_.groupby("column", sort=False):
        n = int(part["rows"].sum())
        levels = ", ".join(f"{lv!r}" + (f" ({k:,})" if len(part) > 1 else "") for lv, k in
                           zip(part["level"], part["rows"]))
        has = f"{n:,} {rows_word} have levels" if n != 1 else f"1 {one} has a level"
        it, they = ("them", "they") if n != 1 else ("it", "it")
        target, why = part["scored_as"].iloc[0], part["why"].iloc[0]
        out.append(f"{has} of {col} with no training row ({levels}); {models} score{'' if plural else 's'} {it} "
                   f"as {target!r} ({why}), as if {they} had that level.")
    return out


def remapped_levels_note(ctx):
    """The sentences on the rows the model is scored on whose level had no training row, for the guard every
    interpretable model and the GLM baseline put in front of them (fitted here on all training rows); empty when
    there are none, or when the model is scored on the rows it was fitted on (no level can be missing there)."""
    if ctx.evaluation == "all_rows":
        return []
    guard = guarded_pipeline("passthrough").fit(ctx.X_train, ctx.y_train)
    # the guard stands in front of imlkit's GLM, GAM and RuleFit and of section 6's models -- not of the report's
    # gradient boosting, which scikit-learn scores as if the level were missing (review r4: bike ordered, 2,203 rows)
    out = remapped_levels_words(guard, ctx.X_test, ctx.eval_rows,
                                models="the GLM baseline and this section's interpretable models")
    cfg = getattr(ctx, "config", None)
    if out and cfg is not None and cfg.model == "gbm" and not cfg.model_file:
        out.append("The explained model (scikit-learn's histogram gradient boosting) is not behind that mapping: it "
                   "treats a level it never saw in training as a missing value.")
    return out


def decision_list_table(ctx, pipe, rules, X_fit, y_fit, name):
    """Each rule of a decision list (and its ELSE) with the rows it decides and the share of them in its class: on the
    rows it was fitted on and, named apart, on the rows it is scored on. The list alone showed rules that decide a
    handful of rows (Weekly's OneR: 40 intervals of Lag1) with nothing to tell them from the rules that carry it.

    A row whose categorical level had no training row is scored as another level by the known-levels guard; the rules
    count only the rows that meet them by their own values, and such rows are counted on a line of their own, with
    the rule that decides them after the mapping (BrainCancer's OneR counted a test row with a missing diagnosis
    under ``diagnosis == 'Meningioma'`` and showed the rule of its own level deciding 0 test rows)."""
    head = pipe[:-1]
    n_rules = len(rules.rules)
    classes = [str(r.consequent) for r in rules.rules] + [str(rules.default)]
    # the class column as the report spells classes (a float target's 1.0 is "1", as in section 1); ``classes`` stays
    # the str() the tally compares with the target's str()
    model_classes = _model_classes(ctx)
    shown = [class_label(r.consequent, model_classes) for r in rules.rules] + [class_label(rules.default,
                                                                                             model_classes)]

    def tally(X, y, keep=None):
        fired = np.asarray(rules.fired(head.transform(X)))
        fired = np.where(fired < 0, n_rules, fired)
        yv = np.asarray(y).astype(str)
        right = (yv == np.asarray(classes, dtype=object)[fired]).astype(float)
        if keep is not None:
            fired, right = fired[keep], right[keep]
        counts = np.bincount(fired, minlength=n_rules + 1)
        hits = np.bincount(fired, weights=right, minlength=n_rules + 1)
        return counts, np.where(counts > 0, hits / np.maximum(counts, 1), np.nan)

    lines = str(rules).split("\n")
    n_fit, p_fit = tally(X_fit, y_fit)
    same = ctx.evaluation == "all_rows"
    cols = ["rule", "class", "training rows it decides", "share in its class (training)"]
    mapped, mask = (None, None) if same else remapped_levels(pipe, ctx.X_test)
    if not same:
        n_ev, p_ev = tally(ctx.X_test, ctx.y_test, None if mask is None else ~mask)
        cols += [f"{ctx.eval_rows} it decides", f"share in its class ({ctx.eval_rows})"]
    rows = []
    for k in range(n_rules + 1):
        row = [lines[k] if k < len(lines) else "ELSE", shown[k], int(n_fit[k]), p_fit[k]]
        if not same:
            row += [int(n_ev[k]), p_ev[k]]
        rows.append(row)
    note = ""
    if mask is not None and mask.any():
        n_map, p_map = tally(ctx.X_test, ctx.y_test, mask)
        by = [k for k in range(n_rules + 1) if n_map[k]]
        ruled = ", ".join(f"rule {k + 1}" if k < n_rules else "ELSE" for k in by)
        levels = "; ".join(f"{c} {lv!r} -> {to!r}" for c, lv, to in zip(mapped["column"], mapped["level"],
                                                                        mapped["scored_as"]))
        hits = float(np.nansum(n_map * np.nan_to_num(p_map)))
        rows.append([f"(rows with a level no training row has: {levels}; decided by {ruled} after that mapping)",
                     ", ".join(dict.fromkeys(shown[k] for k in by)), 0, np.nan, int(mask.sum()),
                     hits / max(int(mask.sum()), 1)])
        note = (f"; the rules count the {ctx.eval_rows} that meet them by their own values, the last line the "
                f"{int(mask.sum()):,} whose level had no training row. " + " ".join(
                    remapped_levels_words(pipe, ctx.X_test, ctx.eval_rows, name, plural=False)))
    where = (f"the {len(y_fit):,} rows it was fitted on (the same rows it is scored on)" if same else
             f"the {len(y_fit):,} training rows it was fitted on and the {len(ctx.y_test):,} {ctx.eval_rows}")
    return table(cols, rows, caption=f"{name}: the rows each rule decides (the first rule that covers a row) on "
                                     f"{where}" + note)


def section_alternatives(ctx):
    """GLM table, GAM curves, top RuleFit rules, a small tree (and rule learners for classes),
    each with its test performance next to the black box's."""
    title = "6. Interpretable alternatives"
    if not ctx.methods("models"):
        return Section("alternatives", title, [text("Not computed: 'models' was not selected with --methods.")])
    tg = _Target(ctx)
    # --model glm, gam or rulefit explains an interpretable model: it is "the model", not a "black box"
    black = (f"the model: {ctx.model_label}" if _own_model(ctx) in ("glm", "gam", "rulefit")
             else f"black box: {ctx.model_label}")
    # GLM and GAM are compared on their own task (one class vs the rest for a multi-class target).
    perf_glm = {black: _black_box_binary(ctx, tg.cls, tg.y_test) if tg.one_vs_rest
                else ctx.model_check.performance}
    perf_all = {black: ctx.model_check.performance} if tg.one_vs_rest else perf_glm
    body = _guarded(ctx, "GLM", lambda: _glm_blocks(ctx, tg, perf_glm))
    body += _guarded(ctx, "GAM", lambda: _gam_blocks(ctx, tg, perf_glm))
    body += _guarded(ctx, "RuleFit", lambda: _rulefit_blocks(ctx, perf_all))
    body += _guarded(ctx, "Decision tree", lambda: _tree_blocks(ctx, perf_all))
    if ctx.task == "classification":
        body += _guarded(ctx, "Rule learners", lambda: _rule_learner_blocks(ctx, perf_all))

    # rows whose level had no training row are scored as another level by every interpretable model (lvl7)
    head = [text(w) for w in remapped_levels_note(ctx)]
    if tg.one_vs_rest:
        head.append(text(f"The target has {ctx.y_train.nunique()} classes; the GLM and the GAM model one class at a "
                         f"time, so they are fitted for class {tg.cls} against the rest and compared with the black "
                         f"box's probability of {tg.cls} on that same task. The other models use all classes."))
        head.append(_comparison(perf_glm, f"{_where(ctx)} (task: class {tg.cls} vs the rest)"))
        head.append(_comparison(perf_all, f"{_where(ctx)} (all classes)"))
    else:
        head.append(_comparison(perf_all, _where(ctx)))
    head += ctx.guard("paired comparison with the model", lambda: paired_comparison(ctx), kind="part")
    head += ctx.guard("figure: interpretable models", lambda: _figure(ctx, perf_all), kind="figure")
    return Section("alternatives", title, head + body)


def _own_model(ctx):
    """The report's own model kind (``--model gam``...), or None for a model given to it."""
    cfg = getattr(ctx, "config", None)
    if cfg is None or cfg.model_file or not isinstance(cfg.model, str):
        return None
    return cfg.model


def _same_outputs(a, b):
    """Whether two models' outputs on the same rows are identical (predictions and, when given, probabilities)."""
    def same(x, y):
        if x is None or y is None:
            return x is None and y is None
        x, y = np.asarray(x), np.asarray(y)
        return x.shape == y.shape and bool(np.all(x == y))
    return same(a["pred"], b["pred"]) and same(a["proba"], b["proba"])


def paired_comparison(ctx):
    """Each interpretable model against the model on the same rows: the sentences of section 2's comparison with
    the GLM (paired bootstrap intervals of the difference, simultaneous over the deciding measures, the same
    resamples for every model), so that "GAM beats the model" is said when its interval shows it."""
    from ._fit import mae_split
    from ._scores import class_labels, deciding_metrics, model_outputs, score_intervals, shown_split
    from ._shared import (
        beats_baseline,
        beyond_training_note,
        comparison_beyond_note,
        model_is_glm,
        not_beating_words,
        tie_favours_simpler,
    )
    from ._shared import compare_models as _compare
    from ._shared import level_note as _level_note

    fitted = getattr(ctx, "alternative_models", None) or {}
    skipped = []
    if fitted and model_is_glm(ctx):  # --model glm: the GLM below is the model itself
        skipped = [k for k in fitted if k.startswith("GLM")]
        fitted = {k: v for k, v in fitted.items() if k not in skipped}
    if not fitted:
        return []
    task, name = ctx.task, ctx.model_label
    labels = class_labels(ctx.model, ctx.y_train, ctx.y_test) if task == "classification" else None
    outputs = {name: model_outputs(ctx.model, ctx.X_test, task, labels)}
    for other, est in fitted.items():
        outputs[other] = model_outputs(est, ctx.X_test, task, labels)
    # --model gam (or rulefit): section 6's model of that kind is fitted as the model was and predicts exactly as it
    # does -- the model itself, "not distinguishable (difference 0 [0, 0]): the simpler model may explain the data as
    # well" of itself (Publication); a reduced one predicts otherwise and is compared
    own = {"gam": "GAM", "rulefit": "RuleFit"}.get(_own_model(ctx))
    for other in [k for k in fitted if own and k.startswith(own) and _same_outputs(outputs[k], outputs[name])]:
        skipped.append(other)
        del outputs[other]
    if len(outputs) == 1:
        return []
    deciding = deciding_metrics(task, outputs[name]["proba"] is not None)
    res = score_intervals(outputs, ctx.y_test, task, ctx.seed, labels=labels, reference=name, simultaneous=deciding)
    diffs = res.get("simultaneous_differences", res["differences"])
    to_base, base, base_out = _against_baseline(ctx, outputs, name, labels, deciding)
    word = ctx.score_word
    blocks = [text(f"Each interpretable model against the model on the same {len(ctx.y_test):,} {ctx.eval_rows}, "
                   f"on the measures section 2 decides on (paired bootstrap intervals of the difference, the model "
                   f"minus the other, as in section 2; an interval that excludes 0 decides)"
                   + (f"; {' and '.join(skipped)} is the model itself and is not compared with it" if skipped
                      else "")
                   + ("; not a fair comparison: these models were fitted on the same rows they are scored on, and the "
                      "model may have been" if ctx.evaluation == "all_rows" else "") + ":")]
    for other, d in diffs.items():
        ms = [m for m in deciding if m in d and np.isfinite(d[m][0])]  # a rule learner has no probabilities
        if ms:
            # a GAM whose fit did not converge, a GLM whose weights diverge: a tie with it is a tie with the last
            # iteration of a failed fit, no sign that "the simpler model may explain the data as well" (breast
            # cancer: a binomial GAM diverged at |eta| = 113 "may explain the data as well")
            failed = _failed_fit(ctx, other, fitted[other])
            # a tie with a model that is not itself shown to beat the constant says nothing of the simpler model
            # (statsmodels engel: a GAM with test R² -0.44 "may explain the data as well")
            beaten = beats_baseline(to_base.get(other, {}), ms) if other in to_base else True
            mae, model_ahead = mae_split(res, other, ms, ctx.eval_rows,
                                         tie_favours_simpler(ctx) and not failed and bool(beaten))
            # nor a tie beside a shown measure that resolves the two (anes96: the GAM's log loss better)
            shown, split = shown_split(res, other, ms, ctx.eval_rows)
            simpler = tie_favours_simpler(ctx) and not failed and not model_ahead and not split
            blk = _compare(res, name, other, d, ms, _level_note(res, deciding, short=True), word,
                           simpler=simpler and bool(beaten), rows_word=ctx.eval_rows,
                           shown="section 6's table shows both scores")
            why = (not_beating_words(other, base, to_base[other], ms)
                   if simpler and not beaten and other in to_base and _is_tie(res, name, other, d, ms) else "")
            if why:  # that verdict too may rest on rows beyond the training range (engel's GAM)
                why += beyond_training_note(ctx, outputs[other], f"the {other}", base_out, f"the {base} baseline",
                                            labels)
            beyond = comparison_beyond_note(ctx, d, ms, name, other, outputs, labels, res)
            if failed or mae or shown or why or beyond:
                blk = {**blk, "text": f"{blk['text']}{why}{mae}{shown}{beyond}{' ' + failed if failed else ''}"}
            blocks.append(blk)
    return blocks


def _is_tie(res, name, other, d, deciding):
    """Whether no deciding measure decides the comparison (its interval includes 0, or the difference is below the
    materiality floor: :func:`~imlkit.report._scores.material_floor`), as :func:`compare_models` reads it."""
    from ._scores import beats, material_floor, worse

    floors = {m: material_floor(res, name, other, m) for m in deciding}
    return not any(beats(d[m], m, floors[m]) or worse(d[m], m, floors[m]) for m in deciding)


def _against_baseline(ctx, outputs, name, labels, deciding):
    """({other: {measure: (value, low, high)}}, baseline name, its outputs): each of section 6's models minus the
    constant baseline of section 2 (the mean / majority class of the training rows) on the same test rows, with the
    paired intervals at section 2's simultaneous level (same seed, same resamples). ({}, None, None) when it cannot be
    fitted."""
    from ._fit import CLASS_FREQUENCIES, MeanBaseline
    from ._scores import model_outputs, score_intervals

    base = "mean" if ctx.task == "regression" else CLASS_FREQUENCIES
    try:
        X, y = ctx.rows("baselines", "train")
        base_out = model_outputs(MeanBaseline().fit(X, y), ctx.X_test, ctx.task, labels)
    except Exception:  # noqa: BLE001 -- without the baseline the tie keeps section 2's rule alone
        return {}, None, None
    out = {}
    for other, o in outputs.items():
        if other == name:
            continue
        r = score_intervals({other: o, base: base_out}, ctx.y_test, ctx.task, ctx.seed, labels=labels,
                            reference=other, simultaneous=deciding)
        out[other] = r.get("simultaneous_differences", r["differences"]).get(base, {})
    return out, base, base_out


def _failed_fit(ctx, name, est):
    """Why ``est`` (one of section 6's fitted models) is a failed fit, or "": a GAM whose penalised IRLS did not
    converge (``converged_`` False: stopped at its iteration limit or diverged) or a two-class GLM that separates its
    training rows (:func:`~imlkit.report._fit.separated`), whose weights grow without bound."""
    from ._fit import separated

    last = est.steps[-1][1] if hasattr(est, "steps") else est
    if getattr(last, "converged_", True) is False:
        return (f"The {name} fit did not converge (see its part below): the comparison is with its last iteration, "
                f"not with a fitted model, so a tie with it says nothing of whether a simpler model explains the data "
                f"as well.")
    if ctx.task == "classification" and name.startswith("GLM"):
        try:
            gone = separated(est, ctx.X_train)
        except Exception:  # noqa: BLE001 -- a model that cannot say is not called diverged
            gone = False
        if gone:
            return (f"The {name} is a diverged fit (the classes are (almost) perfectly separable on its training "
                    f"rows, so its weights grow without bound): the comparison is with that near-hard classifier, "
                    f"so a tie with it says nothing of whether a simpler model explains the data as well.")
    return ""


def _figure(ctx, perf_all):
    key = "RMSE" if ctx.task == "regression" else "accuracy"
    with report_style():
        fig, ax = new_figure(figsize=(6, 0.4 * len(perf_all) + 1.2))
        draw_performance(perf_all, key, ax[0, 0])
        return [figure_block(fig, f"{ctx.score_word.capitalize()} {key} of the black box and the interpretable models")]


def _comparison(perf, caption):
    metrics = list(next(iter(perf.values())))
    from ._scores import header

    rows = [[n] + [m.get(k) for k in metrics] for n, m in perf.items()]
    return table(["model"] + [header(k) for k in metrics], rows, caption=caption)


def _separation_warning(glm, X):
    """A warning when the fitted probabilities are all (almost) 0 or 1: the classes are separable,
    so the GLM's weights diverge and their intervals are meaningless."""
    from ._fit import separated

    if not separated(glm, X):
        return []
    return [warning("The classes are (almost) perfectly separable by the features: the logistic "
             "GLM's weights grow without bound, so their values, standard errors and intervals below are not "
             "interpretable (the predictions still are).")]
