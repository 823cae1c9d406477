"""Section 1: the data -- size, column types, missing values and how dependent the features are."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._columns import CODE_MAX_VALUES, CODE_MIN_VALUES, MISSING_LEVEL, integer_codes
from .._dependence import MIN_ROWS_PER_REGRESSOR, dependence_partner, dependence_r2
from ._blocks import Section, bullets, collapse, table, text, warning
from ._figures import draw_dependence, figure_block, new_figure, report_style
from ._labels import class_names
from ._shared import fitted_outside as _fitted_outside
from ._shared import split_is_ordered

__all__ = ["section_data", "EXTRAPOLATION_R2", "split_sentence", "time_order_warning", "integer_code_warning",
           "CODES_NAMED"]

#: R² from the other features above which marginal methods are flagged (as PFI's own warning).
EXTRAPOLATION_R2 = 0.5
#: Bars in the dependence chart (the largest R² first): a wide table's chart would be hundreds of
#: inches tall and take minutes to draw (2,308 genes: 80 s).
MAX_DRAWN = 40
#: Features named in the extrapolation warning; the rest are counted.
MAX_LISTED = 10
#: A feature and the one column that explains it with at least this adjusted R² (|r| >= 0.95 for two numeric
#: columns) are named as near copies in the dependence advice: CFI and LOCO of either measure only what it adds
#: beyond the other.
NEAR_COPY_R2 = 0.9
#: R² from the other features from which a feature is called a (near) exact linear function of them: its value given
#: the others is (nearly) a point, its exact CFI 0 (or near it), and CFI's default subgroup sampler cannot follow the
#: relation when it is spread over several columns (make_classification's redundant columns: CFI 0.207 where the
#: Gaussian sampler, exact for a linear relation, gives 0.0000).
EXACT_R2 = 0.999
#: A cell of the extrapolation figure is "where the data have no points" when it holds fewer than
#: this share of the rows independence would put there (see :func:`unsupported_share`).
UNSUPPORTED_FRACTION = 0.1
#: The figure says the permuted pairs fall where the data have no points when at least this share
#: of them do; below it, that there is little extrapolation against the partner.
EXTRAPOLATION_SHARE = 0.1
#: The fewest bins of the feature at which the figure's grid may say "little extrapolation". A coarser grid cannot
#: see a gap: for a normal pair with correlation r, no cell of a 2 × 2 grid of quantile bins holds under
#: ``UNSUPPORTED_FRACTION`` of its independent share for any r below 0.98 (at r = 0.9 the emptiest quadrant still holds
#: 29% of it), nor of a 3 × 3 grid for r = 0.78; a 4 × 4 grid already puts 12.5% of the permuted pairs in such cells at
#: R² = 0.5 (``EXTRAPOLATION_R2``, r = 0.71). Below it a share under ``EXTRAPOLATION_SHARE`` is no evidence (statsmodels
#: stackloss, 21 rows, 2 × 2 grid: 0% of the permuted pairs flagged while 41% fall outside the data's convex hull).
MIN_GRID_BINS = 4
#: Levels of a categorical partner drawn in the extrapolation figure (the most frequent).
MAX_LEVELS_DRAWN = 12


def _describe(col):
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.isna().all():
            return f"categorical, {len(col.cat.categories)} levels", "no values"
        counts = col.value_counts()
        top = ", ".join(f"{k} ({v:,})" for k, v in counts.head(4).items())
        more = f", … {len(counts) - 4} more" if len(counts) > 4 else ""
        return f"categorical, {len(col.cat.categories)} levels", top + more
    if not (pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype)):
        return str(col.dtype), f"{col.nunique():,} distinct values"
    vals = col.astype(float)
    if vals.isna().all():
        return "numeric", "no values"
    return "numeric", f"mean {vals.mean():.4g}, sd {vals.std():.4g}, range [{vals.min():.4g}, {vals.max():.4g}]"


#: Classes of the target named with their counts in section 1's table (the others are counted).
MAX_CLASSES_LISTED = 6


def _class_counts(y):
    """The target's most frequent classes with their rows, and how many classes and rows the list leaves out:
    "7 classes" over six listed (anes96's PID) read as if the seventh had no rows."""
    counts = y.value_counts()
    # the report's one spelling of class labels (a float 0.0/1.0 target reads "1 (71), 0 (59)", as every section)
    names = class_names(counts.index)
    shown = ", ".join(f"{names.get(k, k)} ({v:,})" for k, v in counts.head(MAX_CLASSES_LISTED).items())
    rest = counts.iloc[MAX_CLASSES_LISTED:]
    if len(rest):
        shown += (f", … {len(rest):,} more class{'es' if len(rest) > 1 else ''} ({int(rest.sum()):,} "
                  f"row{'s' if rest.sum() != 1 else ''})")
    return shown


def _numeric_summaries(X):
    """``{column: ((kind, summary), missing)}`` of the numeric and boolean columns, as :func:`_describe` words
    them, from whole-frame reductions (one pandas call per column cost seconds on 2,308 genes)."""
    cols = [c for c in X.columns if not isinstance(X[c].dtype, pd.CategoricalDtype)
            and (pd.api.types.is_numeric_dtype(X[c].dtype) or pd.api.types.is_bool_dtype(X[c].dtype))]
    if not cols:
        return {}
    vals = X[cols].astype(float)
    miss = vals.isna().sum()
    mean, sd, lo, hi = vals.mean(), vals.std(), vals.min(), vals.max()
    out = {}
    for c in cols:
        if miss[c] == len(vals):
            desc = ("numeric", "no values")
        else:
            desc = ("numeric", f"mean {summary_number(mean[c])}, sd {summary_number(sd[c])}, range "
                               f"[{summary_number(lo[c])}, {summary_number(hi[c])}]")
        out[c] = (desc, int(miss[c]))
    return out


def summary_number(v, digits=4):
    """A number of section 1's summaries at ``digits`` significant digits, read as people write them: ``33,520`` and
    ``773`` side by side, not ``3.352e+04`` beside ``772`` (Default's income); scientific notation only from 1e7 or
    below 1e-3."""
    v = float(v)
    if not np.isfinite(v):
        return "–" if np.isnan(v) else str(v)
    if 10 ** digits <= abs(v) < 1e7:
        return f"{float(f'{v:.{digits}g}'):,.0f}"
    return f"{v:.{digits}g}"


def _count(k, total):
    return f"{k:,} ({k / total:.1%})" if total else f"{k:,}"


def _rows_text(ds):
    """One paragraph: rows read, rows dropped (missing target), rows kept with missing feature values."""
    n_read = ds.n_rows or len(ds.raw)
    parts = [f"{n_read:,} rows and {ds.raw.shape[1]:,} columns were read"]
    if ds.n_train is not None:
        parts[0] += f" (data and test data together: {ds.n_train:,} and {len(ds.X) - ds.n_train:,} rows with a target)"
    if ds.dropped_rows:
        parts.append(f"{ds.dropped_rows:,} row(s) with a missing target {ds.target!r} were dropped")
    else:
        parts.append("no rows were dropped (the target is never missing)")
    text_ = "; ".join(parts) + "."
    incomplete = ds.rows_with_missing
    if incomplete:
        text_ += (f" {incomplete:,} row(s) with missing feature values are kept: gradient boosting handles missing "
                  f"values natively, the other models impute the training median and add a 0/1 \"missing\" "
                  f"indicator, and methods that cannot take missing values (ALE, REPID) use only the complete rows "
                  f"({len(ds.X) - incomplete:,} of {len(ds.X):,} in the whole table).")
    return text_


def _ordered_words(n_fit, n_score, n_total, cfg, what="the model"):
    """The ordered split in words: which rows fit, which score, and the rounding of the test size."""
    n_held = n_total - n_fit
    kept = "" if n_score == n_held else f" ({n_held - n_score:,} of them set aside: see the notes)"
    return (f"an ordered split (--split ordered): the first {n_fit:,} rows, in the order of the table, fit "
            f"{what} and the last {n_held:,} rows score it{kept} (test size {cfg.test_size}: ceil({cfg.test_size} × "
            f"{n_total:,}) = {n_held:,} rows held out; no seed, no stratification)")


def split_sentence(ctx):
    """Section 1's sentence on the training and evaluation rows (and the refits' own split)."""
    cfg = ctx.config
    if ctx.evaluation == "all_rows":
        X_tr, _, X_te, _ = ctx.refit_rows
        if split_is_ordered(ctx):
            how = (f"they use {_ordered_words(len(X_tr), len(X_te), len(ctx.data.X), cfg, 'their models')}"
                   + _span_words(ctx, len(X_tr)))
        else:
            how = (f"they use a seeded split of this table, {len(X_tr):,} rows to fit and {len(X_te):,} to score "
                   f"(test size {cfg.test_size}, seed {ctx.seed})")
        return (f"Evaluation rows: all {len(ctx.X_test):,} rows (a fitted model and one table: no split; imlkit "
                f"cannot know which of them fitted the model). The refit-based methods "
                f"(LOCO, LOFO, PIMP) and the leak check fit models of their own: {how}.")
    if ctx.evaluation == "test_data":
        return (f"Training rows: the {len(ctx.X_train):,} rows given as data; evaluation rows: the {len(ctx.X_test):,} "
                f"held-out rows given as test data ({ctx.data.test_source}), prepared with the same column decisions "
                f"and the same target handling.")
    if split_is_ordered(ctx):
        words = _ordered_words(len(ctx.X_train), len(ctx.X_test), len(ctx.data.X), cfg)
        return f"Split: {words}{_span_words(ctx, len(ctx.X_train))}."
    strat = ", stratified by class" if ctx.task == "classification" else ""
    return (f"Split: a seeded random split (--split random), {len(ctx.X_train):,} training rows and "
            f"{len(ctx.X_test):,} test rows (test size {cfg.test_size}, seed {ctx.seed}{strat}).")


def _time_text(v):
    """A value of the time column as section 1 prints it (a date without "00:00:00", a number at 6 digits)."""
    if isinstance(v, pd.Timestamp):
        return str(v.date()) if v == v.normalize() else str(v)
    try:
        return f"{float(v):.6g}"
    except (TypeError, ValueError):
        return str(v)


def _span_words(ctx, k):
    """"; by 'year', the training rows run from 70 to 79 and the test rows from 79 to 82 (...)": the time column's
    values on each side of an ordered split's cut after row ``k``, and the rows that share the value at the cut (the
    cut follows the rows, not the values). "" without a time column."""
    ds = ctx.data
    values = getattr(ds, "order_values", None)
    col = getattr(ds, "order_column", None)
    if values is None or col is None or k <= 0 or k >= len(values):
        return ""
    before, after = values.iloc[:k].dropna(), values.iloc[k:].dropna()
    if not len(before) or not len(after):
        return ""
    out = (f"; by {col!r}, the training rows run from {_time_text(before.iloc[0])} to {_time_text(before.iloc[-1])} "
           f"and the test rows from {_time_text(after.iloc[0])} to {_time_text(after.iloc[-1])}")
    last, first = before.iloc[-1], after.iloc[0]
    if last == first:
        n_before, n_after = int((before == last).sum()), int((after == first).sum())
        out += (f" ({n_before:,} training and {n_after:,} test rows share {col} = {_time_text(last)}: the cut "
                f"follows the rows of the table, not the values)")
    return out


def time_order_warning(ctx):
    """Section 1's words on a table whose rows look ordered in time: under a random split, a caveat (the model was
    trained on rows later than those it is scored on) that names ``--split ordered``; under ``--split ordered``, a
    sentence that the test rows are the later ones -- or a caveat when the rows run backwards or are not in order."""
    if ctx.evaluation != "split":
        return []
    ds = ctx.data
    why = getattr(ds, "order", "")
    if not why:
        if split_is_ordered(ctx):
            return [text("No column shows that the rows are ordered in time (a date column, or a column named like "
                         "time or holding whole years that never decreases), so imlkit cannot check that the last "
                         "rows of the table are its latest: the ordered split follows the table's own order.")]
        return []
    way = getattr(ds, "order_way", "up")
    col = getattr(ds, "order_column", None)
    if not split_is_ordered(ctx):
        if way == "up":
            how = ("use --split ordered (split=\"ordered\" from Python: the last rows of the table held out, in its "
                   "own order), or pass the earliest rows as --data and the latest as --test-data")
        else:
            how = (f"sort the rows from earliest to latest{f' by {col!r}' if col else ''} and use --split ordered "
                   f"(the last rows held out), or pass the earliest rows as --data and the latest as --test-data")
        return [warning(f"The rows look ordered in time: {why}. The split above is random, so rows later than the "
                        f"test rows are among those the model was trained on: for forecasting (predicting later rows "
                        f"from earlier ones) the test scores of section 2 are optimistic, and so is every importance "
                        f"computed from them. To score a forecast, {how}.")]
    if way == "up":
        by = f" and, by {col!r}, none is later than a test row" if col else ""
        return [text(f"The rows look ordered in time: {why}. The split is ordered (--split ordered): every training "
                     f"row comes before every test row in the table{by}, so the test scores of section 2, and the "
                     f"importances computed from them, are those of a forecast of the later rows."
                     + _beyond_training(ctx, col))]
    if way == "down":
        return [warning(f"The rows look ordered in time but run from the latest to the earliest: {why}. The ordered "
                        f"split (--split ordered) holds out the last rows of the table, which are its earliest: the "
                        f"model was fitted on later rows than those it is scored on, so the test scores are not those "
                        f"of a forecast. To score a forecast, sort the rows from earliest to latest"
                        f"{f' by {col!r}' if col else ''}.")]
    return [warning(f"The rows look ordered in time: {why}, but the rows are not in date order, so the last rows of "
                    f"the table (held out by --split ordered) are not its latest: the test scores are not those of a "
                    f"forecast. To score a forecast, sort the rows by {col!r} first.")]


def _beyond_training(ctx, col):
    """" Every test row's year (78 to 82) ...": when the time column is itself a feature, its test values lie at or
    beyond its largest training value, so what the model does with it on the test rows is extrapolation (Auto's
    year under --split ordered: PFI exactly 0 for gradient boosting, whose splits on year all lie below 78)."""
    values = getattr(ctx.data, "order_values", None)
    X_tr = getattr(ctx, "X_train", None)
    if col is None or values is None or X_tr is None or col not in X_tr.columns:
        return ""
    k = len(X_tr)
    before, after = values.iloc[:k].dropna(), values.iloc[k:].dropna()
    if not len(before) or not len(after) or after.min() < before.max():
        return ""
    top = _time_text(before.max())
    return (f" The feature {col!r} itself has every test value ({_time_text(after.min())} to "
            f"{_time_text(after.max())}) at or beyond its largest training value ({top}): what the model does with it "
            f"on the test rows is extrapolation (a tree treats each of them as it treats {top}, a linear model "
            f"continues its slope), and so are its importance and effect there.")


#: Columns named in the integer-code caveat; the others are counted.
CODES_NAMED = 5


def _code_values(values):
    if len(values) <= 5:
        return f"values {', '.join(map(str, values))}"
    return f"{len(values)} values, {values[0]} to {values[-1]}"


def integer_code_warning(ctx):
    """Section 1's caveat on integer columns that may be codes read as amounts
    (:func:`imlkit._columns.integer_codes`)."""
    ds = ctx.data
    codes = integer_codes(ds.X, ds.decisions)
    if not codes:
        return []
    named = ", ".join(f"{c} ({_code_values(v)})" for c, v in codes[:CODES_NAMED])
    rest = codes[CODES_NAMED:]
    if rest:
        sizes = [len(v) for _, v in rest]
        span = f"{min(sizes)}" if min(sizes) == max(sizes) else f"{min(sizes)} to {max(sizes)}"
        named += f" and {len(rest):,} other column{'s' if len(rest) > 1 else ''} ({span} values)"
    first, vals = codes[0]
    flag = ",".join(c for c, _ in codes[:CODES_NAMED])
    step = f"going from {vals[0]} to {vals[1]} changes the prediction as much as going from {vals[1]} to {vals[2]}"
    models = "The report's models read them as amounts"
    change = (f"If a column's numbers name groups (a store, a region, a day of the week) rather than measure an "
              f"amount, pass --categorical {flag} (categorical= from Python): each value then becomes a level.")
    if _fitted_outside(ctx):
        models = "imlkit's own models read them as amounts"
        change = ("The fitted model reads them as it was fitted; --categorical cannot change its columns. If the "
                  "numbers name groups, the GLM's slopes for them have no meaning.")
    return [warning(f"Integer columns that may be codes: {named} -- whole numbers with {CODE_MIN_VALUES} to "
                    f"{CODE_MAX_VALUES} distinct values, the smallest 0 or 1. {models}: the GLM (section 2's "
                    f"baseline, section 6) fits one slope per unit (for {first}, {step}), the trees split only "
                    f"between neighbouring values, and ALE adds up the changes between neighbouring values, so its "
                    f"curve depends on how the codes are numbered. {change} A 0/1 column is not listed: with two "
                    f"values a slope and a level difference are the same fit.")]


#: With more decisions than this, plain numeric columns used as is share one row.
GROUP_ABOVE = 12


def _decision_rows(ds):
    """Rows of the decisions table and the rows shown on request: ``(rows, more)``.

    On wide tables the plain numeric columns share one row naming the first ``MAX_LISTED``; every
    other one gets its own row in ``more`` (the report's expandable part of the table), so every
    column of the table is still accounted for without a cell naming 2,308 genes.
    """
    missing = ds.missing if ds.missing is not None else ds.raw.isna().sum()
    n_read = ds.n_rows or len(ds.raw)
    dec = ds.decisions
    plain = (dec["kind"] == "numeric") & (dec["action"] == "used as is")
    group = len(dec) > GROUP_ABOVE and plain.sum() > 1
    rows, more, grouped = [], [], False
    for r, is_plain in zip(dec.itertuples(index=False), plain):
        if group and is_plain:
            if not grouped:
                names = [str(c) for c in dec.loc[plain, "column"]]
                why = f"{len(names)} numeric columns without missing values"
                if len(names) > MAX_LISTED:
                    why = (f"{MAX_LISTED} of the {len(names):,} numeric columns without missing values "
                           f"(the other {len(names) - MAX_LISTED:,} are listed under the table)")
                    more = [[c, "numeric", "used as is", "numeric, no missing values", _count(0, n_read)]
                            for c in names[MAX_LISTED:]]
                rows.append([", ".join(names[:MAX_LISTED]), "numeric", "used as is", why, _count(0, n_read)])
                grouped = True
            continue
        rows.append([r.column, r.kind, r.action, r.reason, _count(int(missing.get(r.column, 0)), n_read)])
    return rows, more


def section_data(ctx):
    """Rows, how each column was prepared, types, missing values, and the dependence overview."""
    ds = ctx.data
    X = ds.X
    X_dep = ctx.rows("dependence", "all")[0]
    with ctx.step("dependence overview (R² of each feature from the others)", rows=len(X_dep)):
        r2 = dependence_r2(X_dep)
    feats = f"{X.shape[1]:,} feature{'s' if X.shape[1] != 1 else ''}"
    blocks = [text(f"Source: {ds.source}. {_rows_text(ds)} {len(X):,} rows with {feats} are used to predict "
                   f"{ds.target!r} ({ds.task})."),
              text(split_sentence(ctx))]
    if ds.task_reason:
        blocks.insert(1, text(ds.task_reason))
    blocks += time_order_warning(ctx)
    blocks += integer_code_warning(ctx)
    if ds.notes:
        blocks.append(bullets(ds.notes, title="Notes on the data"))
    if ds.decisions is not None:
        shown, more = _decision_rows(ds)
        block = table(["column", "kind", "what was done", "why", "missing cells"], shown + more,
                      caption=_decisions_caption(ctx))
        if more:
            collapse(block, len(shown), f"Show the other {len(more):,} numeric columns used as is")
        blocks.append(block)
    rows = []
    numeric = _numeric_summaries(X)
    for c in X.columns:
        if c in numeric:
            (kind, summary), miss = numeric[c]
        else:
            kind, summary = _describe(X[c])
            if isinstance(X[c].dtype, pd.CategoricalDtype):
                miss = int((X[c].astype(object) == MISSING_LEVEL).sum())
            else:
                miss = int(X[c].isna().sum())
        rows.append([c, kind, _count(miss, len(X)), summary, r2[c]])
    yk = "numeric target" if ds.task == "regression" else f"class target, {ds.y.nunique()} classes"
    ysum = f"mean {ds.y.mean():.4g}, sd {ds.y.std():.4g}" if ds.task == "regression" else _class_counts(ds.y)
    rows.append([ds.target, yk, _count(0, len(X)), ysum, np.nan])
    blocks.append(table(["feature", "type", "missing", "summary", "R² from the other features"], rows,
                        caption="The features as the model sees them (R² of a linear regression of each numeric "
                                "feature on all the others, over the complete rows; categoricals enter as dummies)"))
    if r2.attrs.get("ridge"):
        # no "so they still rank how well each feature is explained": with at least as many columns as rows the
        # rows-per-regressor rule always fires, and the next sentence (_too_few_rows) says these R² mostly measure the
        # number of regressors (Khan: every ridge R² 0.99-0.998, pure noise reaches 0.98; review rev8 r3-11)
        blocks.append(text(f"The table has at least as many feature columns as rows (after the categoricals' "
                           f"levels): every feature is then exactly a linear combination of the others, and an "
                           f"unpenalised R² would be 1 for all of them. The R² above are ridge-penalised "
                           f"(penalty {r2.attrs['ridge']} on the correlation scale, counted as residual)."))
    blocks += _correlation_blocks(X)
    with report_style():
        shown = min(int(r2.notna().sum()), MAX_DRAWN)
        fig, ax = new_figure(figsize=(6, 0.3 * max(shown, 1) + 1.2))
        draw_dependence(r2, ax[0, 0], EXTRAPOLATION_R2, max_features=MAX_DRAWN)
        blocks.append(figure_block(fig, "Bar chart of each feature's R² from the other features"))
    high = r2[r2 > EXTRAPOLATION_R2].sort_values(ascending=False)
    too_few = _too_few_rows(r2)
    if too_few:
        # 33 complete rows for 11 regressors (Carseats with 45% of four columns missing): unrelated columns reach an
        # R² of about d / (n - 1) = 0.34, so neither "can be predicted well" nor "should broadly agree" is supported,
        # and the reading gets no R² to tell a dependence story from
        blocks.append(text(too_few))
        ctx.data_outputs.dependence_r2 = pd.Series(np.nan, index=r2.index, dtype=float)
        ctx.data_outputs.dependence_r2.attrs = dict(r2.attrs)
        return Section("data", "1. Data", blocks)
    if X.shape[1] == 1:
        # statsmodels strikes (iprod alone): "No feature has an R² above 0.5 from the others: marginal and conditional
        # methods should broadly agree" -- of a feature that has no others; its R² of 0 is a convention, not a finding
        blocks.append(text(f"With one feature ({X.columns[0]!r}) there are no other features: its R² from them is 0 by "
                           f"convention, and the conditional methods have nothing to condition on: the gap between "
                           f"marginal and conditional methods that dependent features open does not arise."))
    elif len(high):
        names = ", ".join(f"{c} (R² = {v:.2f})" for c, v in high.iloc[:MAX_LISTED].items())
        if len(high) > MAX_LISTED:
            names += f" and {len(high) - MAX_LISTED:,} other features with R² > {EXTRAPOLATION_R2}"
        blocks.append(warning(
            f"Marginal methods will extrapolate: {names} can be predicted well from the other features. "
            f"Permuting such a feature (PFI, marginal SAGE) or moving it along a grid (ICE, PD) creates "
            f"combinations that do not occur in the data, and the model is judged there. "
            + _dependence_advice(X, high)))
        blocks += ctx.guard("figure: extrapolation",
                            lambda: _extrapolation_blocks(X, high.index[0], ctx.seed, r2_all=float(high.iloc[0])),
                            kind="figure")
    else:
        blocks.append(text(f"No feature has an R² above {EXTRAPOLATION_R2} from the others: marginal and "
                           f"conditional methods should broadly agree."))
    ctx.data_outputs.dependence_r2 = r2
    return Section("data", "1. Data", blocks)


def near_copies(X, r2):
    """The pairs of near copies among the features of ``r2`` (R² from the others): each feature (at most
    ``MAX_LISTED``, largest R² first) with R² >= ``NEAR_COPY_R2`` and the one column (:func:`dependence_partner`) that
    explains it with adjusted R² >= ``NEAR_COPY_R2``, each pair once: ``[(feature, partner, adjusted R², r or None,
    categorical partner)]``."""
    high = r2[r2 >= NEAR_COPY_R2].sort_values(ascending=False)
    pairs, seen = [], set()
    for f in high.index[:MAX_LISTED]:
        found = dependence_partner(X, f)
        if found is None or not found[1] >= NEAR_COPY_R2 or frozenset((f, found[0])) in seen:
            continue
        seen.add(frozenset((f, found[0])))
        pairs.append((f, *found))
    return pairs


def _dependence_advice(X, high):
    """What to use instead of the marginal methods for the features in ``high`` (R² from the others, largest first),
    and what those methods then measure. CFI and LOCO of one feature measure only what it adds beyond the others:
    Credit's Limit and Rating (r = 0.997) each got a LOCO near 0 (4.0 and -3.0) while leaving both out cost 218, six
    times the largest single LOCO -- "prefer CFI or LOCO for these features" sent the reader to two numbers that
    cannot show the pair matters. The near copies are named with their r, and grouping them is the way to measure
    the pair."""
    pairs = near_copies(X, high)
    exact = exact_joint(X, high)
    words = ("ALE and the conditional methods (CFI, conditional SAGE) stay within the data"
             + (f" (CFI's default sampler not for the {len(exact)} feature{'s' if len(exact) > 1 else ''} named next)"
                if exact else "")
             + ", and LOCO refits without "
             "the feature; but CFI and LOCO of a single feature then measure only what it adds beyond the features it "
             "depends on, which can be near 0 for each of two features that replace each other even when together they "
             "carry the model.")
    if exact:
        words += " " + _exact_words(exact, high)
    if not pairs:
        return words + (" Score such features as one group (the API's features={'name': [columns]}) to measure them "
                        "together.")

    def near(f, partner, adj, r, categorical):
        how = f"adjusted R² {adj:.3f} from its levels" if categorical else f"r = {r:.3f}"
        return f"{f} and {partner} ({how})"
    listed = [near(*p) for p in pairs]
    named = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    f, partner = pairs[0][0], pairs[0][1]
    return (words + f" Near copies here: {named}. CFI or LOCO of either of a pair says how much it adds beyond the "
            f"other, not how much the pair matters; score the pair as one group to measure that (the API's "
            f"features={{'{f} + {partner}': ['{f}', '{partner}']}} for cfi, loco or sage).")


def exact_joint(X, r2):
    """The features of ``r2`` (R² from the others; at most ``MAX_LISTED``, largest first) that are (near) exact linear
    functions of several other columns: R² >= ``EXACT_R2`` while the single column most associated with them
    (:func:`dependence_partner`) explains less than ``EXACT_R2`` of their variance (a relation no one column carries;
    a near copy of one column is named by :func:`near_copies`). ``[(feature, R², partner, its adjusted R²)]``."""
    out = []
    for f in r2[r2 >= EXACT_R2].sort_values(ascending=False).index[:MAX_LISTED]:
        found = dependence_partner(X, f)
        alone = max(float(found[1]), 0.0) if found is not None else 0.0
        if alone < EXACT_R2:
            out.append((f, float(r2[f]), None if found is None else found[0], alone))
    return out


def _exact_words(exact, high):
    """Section 1's sentence on the features of :func:`exact_joint`: their exact CFI is (near) 0, and CFI's default
    sampler cannot follow their relation (cls100: "ALE and the conditional methods (CFI, conditional SAGE) stay within
    the data" of x9, R² = 1.00 from 11 columns, whose CFI was 0.207 with the default sampler and 0.0000 with the
    Gaussian one)."""
    names = ", ".join(f"{f} (R² = {r2:.4f}{f'; {p} alone explains {a:.2f}' if p is not None else ''})"
                      for f, r2, p, a in exact)
    more = int((high >= EXACT_R2).sum()) - MAX_LISTED
    one = len(exact) == 1
    rest = f"; {more:,} more features have R² >= {EXACT_R2}, not checked one by one" if more > 0 else ""
    return (f"{names}{' are' if not one else ' is'} (nearly) exact linear function{'s' if not one else ''} of several "
            f"other columns together (R² >= {EXACT_R2} from all the others, while no single column carries the "
            f"relation){rest}. Given the others, such "
            f"a feature's value is (nearly) fixed, so its exact CFI is 0 for an exact relation (near 0 for a near "
            f"exact one). CFI's default sampler (sampler='auto': the feature permuted within the leaves of a tree on "
            f"the other columns) cannot follow a relation spread over several columns: it moves the feature off the "
            f"relation, and its CFI for {'these features' if not one else 'this feature'} then measures that "
            f"extrapolation, not a unique contribution. The API's imlkit.importance.cfi(..., sampler='gaussian') "
            f"follows a linear relation exactly.")


def _too_few_rows(r2):
    """The sentence that withholds judgement when the R² come from fewer than ``MIN_ROWS_PER_REGRESSOR`` rows per
    regressor (None when there are enough rows), ridge-penalised R² of a wide table included: they rank, they do not
    say a feature is predictable (pure noise reaches R² 0.98 on 40 rows of 300 columns)."""
    n, d = int(r2.attrs.get("n_rows", 0)), int(r2.attrs.get("n_regressors", 0))
    if d == 0 or n >= MIN_ROWS_PER_REGRESSOR * d:
        return None
    if r2.attrs.get("ridge") or d >= n - 1:
        # ridge R² of columns of pure noise: 0.98 on 40 rows x 300 columns, 0.91 on 63 x 120 -- as high as those of
        # columns that share a factor, so a ridge R² ranks but cannot call a feature predictable
        chance = " (with at least as many regressors as rows even unrelated columns are fitted almost exactly)"
    else:
        chance = f" (unrelated columns reach about d / (n − 1) = {d / (n - 1):.2f})"
    return (f"The R² above come from {n:,} complete rows for {d:,} regressors, fewer than {MIN_ROWS_PER_REGRESSOR} "
            f"rows per regressor: on so few rows an R² mostly measures the number of regressors{chance}, so no "
            f"feature is judged dependent or independent from them, and the reading tells no dependence story. Judge "
            f"the dependence on more complete rows.")


def _decisions_caption(ctx):
    ds = ctx.data
    if not ds.prepare:
        return "How each column was used: column preparation is off (prepare=False / --no-prepare); each as given"
    where = "the data and the test data together" if ds.n_train is not None else "the whole table"
    return (f"How each column was prepared (decided once on {where}, before any split, from the columns alone -- "
            f"never from the target)" + ("; the columns the fitted model was fitted on are used as given and none is "
                                         "set aside" if _fitted_outside(ctx) else ""))


def _correlation_blocks(X, top=6):
    num = [c for c in X.columns if not isinstance(X[c].dtype, pd.CategoricalDtype)]
    if len(num) < 2:
        return []
    A = X[num].to_numpy(dtype=float)
    if np.isfinite(A).all():
        i, j, r = _top_pairs_blockwise(A, top)
    else:  # missing values: pandas' pairwise-complete correlations
        corr = X[num].astype(float).corr().to_numpy()
        # the upper triangle at once (a Python loop over Khan's 2.7 million pairs took 15 s)
        i, j = np.triu_indices(len(num), k=1)
        i, j, r = _nearest(i, j, corr[i, j], top)
    # ties keep the order of the former sort, largest |r| then the later pair of names
    pairs = sorted(((abs(v), num[a], num[b], v) for a, b, v in zip(i, j, r)), reverse=True)
    rows = [[a, b, r] for _, a, b, r in pairs[:top]]
    return [table(["feature", "feature", "Pearson correlation"], rows,
                  caption="The most correlated pairs of numeric features")]


#: Columns per block of :func:`_top_pairs_blockwise`: its memory is about 9 bytes x this x p.
CORR_BLOCK = 256


def _top_pairs_blockwise(A, top):
    """``(i, j, r)`` of the pairs of columns of A (n, p; all finite) among the ``top`` largest |Pearson r| (ties at
    the cut kept), one block of ``CORR_BLOCK`` columns' correlations with the later columns at a time: the full
    p x p matrix and its p(p - 1)/2 index pairs are never built (ISLP NCI60's 6,830 genes: 1.3 GB and 9.4 s as one
    matrix; 133 MB and 1.2 s in blocks). A constant column's r is NaN and never chosen, as in pandas."""
    A = A - A.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        Z = A / np.sqrt(np.einsum("ij,ij->j", A, A))
    p = Z.shape[1]
    found = []
    for a in range(0, p - 1, CORR_BLOCK):
        C = Z[:, a:a + CORR_BLOCK].T @ Z[:, a:]
        ii, jj = np.nonzero(np.triu(np.ones(C.shape, dtype=bool), k=1))
        found.append(_nearest(ii + a, jj + a, C[ii, jj], top))
    return _nearest(*(np.concatenate(x) for x in zip(*found)), top)


def _nearest(i, j, r, top):
    """The finite pairs among the ``top`` largest |r| (all of those tied at the cut)."""
    keep = np.isfinite(r)
    i, j, r = i[keep], j[keep], r[keep]
    if len(r) > top:
        cut = np.partition(-np.abs(r), top - 1)[top - 1]
        near = -np.abs(r) <= cut
        i, j, r = i[near], j[near], r[near]
    return i, j, r




def unsupported_share(x, x_permuted, groups, k=None):
    """Share of the permuted pairs that land where the data have (almost) no points.

    ``x`` is binned at its quantiles into k bins (k = min(10, n / (5 L)) so that independence would
    put at least 5 rows in each cell of the k × L table); ``groups`` are the partner's cells (a
    categorical's levels, or a numeric partner binned the same way), L of them. A cell is
    unsupported when the data hold fewer than ``UNSUPPORTED_FRACTION`` of the rows independence
    would put there (n_i · n_j / n); the share is the fraction of the permuted pairs
    (x̃_i, group_i) in unsupported cells. Under independence it is about e^-5 ≈ 0.7%; when x is a
    function of the partner it approaches 1 − Σ_cells p_ij.
    """
    n = len(x)
    L = int(groups.max()) + 1
    if k is None:
        k = int(np.clip(n // (5 * L), 2, 10))
    edges = np.unique(np.quantile(x, np.linspace(0, 1, k + 1)[1:-1]))
    bx, bp = np.searchsorted(edges, x, side="right"), np.searchsorted(edges, x_permuted, side="right")
    kb = len(edges) + 1
    observed = np.bincount(bx * L + groups, minlength=kb * L).reshape(kb, L)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n
    empty = observed < UNSUPPORTED_FRACTION * expected
    return float(empty[bp, groups].mean())


def _numeric_bins(n):
    """Bins per axis of a numeric pair's grid: about 5 rows per cell under independence, 2 to 10 bins."""
    return int(np.clip(np.sqrt(n / 5), 2, 10))


def _categorical_bins(n, n_levels):
    """Bins of the feature per level of a categorical partner (as :func:`unsupported_share` chooses them)."""
    return int(np.clip(n // (5 * n_levels), 2, 10))


def _too_coarse(n, k, feature, partner, n_levels=None):
    """Why a share under ``EXTRAPOLATION_SHARE`` from a grid of fewer than ``MIN_GRID_BINS`` bins says nothing, with
    the rows a ``MIN_GRID_BINS``-bin grid would need."""
    m = MIN_GRID_BINS
    if n_levels is None:
        grid, need = f"{k} × {k} cells", 5 * m * m
        finer = f"{m} × {m}"
    else:
        grid, need = f"{k} bins of {feature} per level of {partner}", 5 * m * n_levels
        finer = f"{m} bins per level"
    return (f"but {n:,} rows give a grid of only {grid} (about 5 rows per cell under independence), too coarse for "
            f"a cell to be nearly empty unless the two are almost a function of each other, so this share is no "
            f"evidence either way: too few rows to judge how far the permuted pairs leave the data "
            f"(a grid of {finer} needs at least {need:,} rows); the R² above is the evidence of dependence")


def _bins(z, k):
    edges = np.unique(np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]))
    return np.searchsorted(edges, z, side="right")


def _extrapolation_blocks(X, feature, seed, r2_all=None):
    """The course's diagnostic for the most dependent feature: it against the single column most
    associated with it (:func:`dependence_partner`; a numeric partner: hexbins; a categorical: the
    feature per level), before and after permuting it, with the share of permuted pairs that fall
    where the data have no points.

    ``r2_all``: the feature's R² from all the other features (section 1's table). The caption sets the
    partner's own share beside it, and when that share is below half of ``r2_all`` says the dependence is
    joint: a two-column picture then understates how far the permuted rows leave the data (statsmodels
    scotland: COUTAX_FEMALEUNEMP = COUTAX x UNEMPF, r² = 0.44 alone against R² = 0.99 from all the others).
    """
    from .._extrapolation import permutation_extrapolation
    from ..plotting import draw_extrapolation

    found = dependence_partner(X, feature)
    if found is None:
        return []
    partner, adj, r, categorical = found
    if categorical:
        x = X[feature].to_numpy(dtype=float)
        ok = np.isfinite(x)
        x = x[ok]
        levels = X[partner].astype(object)[ok].where(X[partner][ok].notna(), MISSING_LEVEL).astype(str)
        codes, names = pd.factorize(levels)
        x_perm = np.random.default_rng(seed).permutation(x)
        k = _categorical_bins(len(x), len(names))
        share = unsupported_share(x, x_perm, codes, k=k)
        strength = f"η² = {adj:.2f}, adjusted, from its {len(names)} level means"
        alone = adj
    else:
        d = permutation_extrapolation(X[[feature, partner]], feature, partner=partner, random_state=seed)
        x, x_perm = d.x, d.x_permuted
        k = _numeric_bins(len(x))
        share = unsupported_share(x, x_perm, _bins(d.partner_values, k), k=k)
        strength = f"Pearson r = {r:.2f}, r² = {r * r:.2f}"
        alone = r * r
    where = (f"{share:.0%} of the permuted pairs fall where the data have almost no points (cells holding under "
             f"{UNSUPPORTED_FRACTION:.0%} of the rows independence would put there)")
    if share >= EXTRAPOLATION_SHARE:
        verdict = f"{where}, at least {EXTRAPOLATION_SHARE:.0%}: PFI and marginal SAGE judge the model there"
    elif k < MIN_GRID_BINS:
        verdict = f"{where}; {_too_coarse(len(x), k, feature, partner, len(names) if categorical else None)}"
    else:
        verdict = f"only {where}, below {EXTRAPOLATION_SHARE:.0%}: little extrapolation against {partner}"
    with report_style():
        fig, ax = new_figure(1, 2, figsize=(10, 4))
        if categorical:
            _draw_by_level(x, x_perm, codes, names, feature, partner, ax[0])
            kind = "Box plots"
        else:
            draw_extrapolation(d, ax=ax[0])
            kind = "Two hexbin plots"
        joint = ""
        if r2_all is not None and np.isfinite(r2_all):
            strength += f", of the R² = {r2_all:.2f} from all the other features"
            if alone < r2_all / 2 or (r2_all >= EXACT_R2 and alone < EXACT_R2):
                # a (near) exact relation over several columns (cls100's x0, R² 1.00 from 11 columns, r = 0.45 with
                # its partner, read as "little extrapolation against x10"): every permuted value off the relation
                # leaves the data, which no two-column view shows
                than = (f"less than half of the {r2_all:.2f}" if alone < r2_all / 2 else
                        f"against the {r2_all:.4f}")
                exact = (f"; as {feature} is a (nearly) exact linear function of them, a permuted value leaves the "
                         f"data whenever it is off that relation, which a two-column view cannot show"
                         if r2_all >= EXACT_R2 else "")
                joint = (f". The dependence is joint: {partner} alone explains {max(alone, 0.0):.2f} of {feature}'s "
                         f"variance, {than} all the other features explain together, so "
                         f"this two-column picture understates how far the permuted rows leave the data (permuting "
                         f"{feature} breaks its relation to all of them at once){exact}")
        cap = (f"{feature} against {partner}, the single column most associated with it ({strength}), before "
               f"and after permuting {feature} ({len(x):,} rows): {verdict}{joint}")
        return [figure_block(fig, f"{kind} of {cap}", caption=cap)]


def _draw_by_level(x, x_perm, codes, names, feature, partner, axes):
    """The feature per level of a categorical partner, before and after permuting it (the most
    frequent ``MAX_LEVELS_DRAWN`` levels)."""
    shown = np.argsort(-np.bincount(codes), kind="stable")[:MAX_LEVELS_DRAWN]
    for a, values, title in zip(axes, (x, x_perm), (f"before permuting {feature}", f"after permuting {feature}")):
        a.boxplot([values[codes == j] for j in shown], orientation="horizontal", whis=(1, 99), showfliers=False)
        a.set_yticks(np.arange(1, len(shown) + 1), [str(names[j]) for j in shown])
        a.set_xlabel(str(feature))
        a.set_ylabel(str(partner))
        a.set_title(f"{title}\n(box: quartiles, whiskers: 1st-99th percentiles)")
        a.set_xlim(*_padded(x))     # one scale for both panels (the permutation keeps x's values)


def _padded(x):
    lo, hi = float(x.min()), float(x.max())
    pad = 0.03 * (hi - lo) if hi > lo else 0.5
    return lo - pad, hi + pad
