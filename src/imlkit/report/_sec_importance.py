"""Section 3: importance side by side, the question each method answers, PIMP's p-values."""
from __future__ import annotations

import contextlib
import dataclasses
import re

import numpy as np

from .. import importance as imp
from .._display import P_SHOWN_FLOOR, p_text, snap_zero
from ..samplers import SubgroupSampler
from . import _claims as cl
from ._blocks import TABLE_TOP, Section, bullets, collapse_ranked, fmt, table, text
from ._figures import draw_importance_comparison, figure_block, new_figure, report_style
from ._labels import METHOD_LABELS, OTHERS
from ._loss import method_loss
from ._ranking import BUDGETED, NO_GROUP, budgeted_features, screen_info, screen_ranking

__all__ = ["section_importance", "compute_importance", "METHOD_LABELS", "group_caveats", "budgeted_features",
           "screen_ranking", "OTHERS", "p_cell"]

#: Said beside a table once a p-value in it is shown as "< 1e-16" (:func:`p_cell`).
P_FLOOR_NOTE = ("p-values below 1e-16 are shown as '< 1e-16': that far in the tail no test here resolves a digit "
                "(a tail fitted to the null refits, a normal approximation of a rank test), and no p-value is 0")


def _has_tiny_p(values):
    v = np.asarray([x for x in values if x is not None], dtype=float)
    return bool(np.any(np.isfinite(v) & (v < P_SHOWN_FLOOR)))

_ANSWER_TEXT = {"yes": "yes", "no": "no", "partly": "partly", "as base": "as the tested importance"}


def _pfi(ctx):
    p = ctx.params.pfi
    X, y = ctx.rows("pfi")
    return {"pfi": imp.pfi(ctx.model, X, y, loss=ctx.loss, n_repeats=p.n_repeats,
                           features=_pfi_cfi_features(ctx),
                           n_jobs=ctx.config.n_jobs, random_state=ctx.seed, progress=ctx.progress)}


def _cfi(ctx):
    p = ctx.params.cfi
    X, y = ctx.rows("cfi")
    fit = sampler_frame(ctx, "cfi", X)
    return {"cfi": imp.cfi(ctx.model, X, y, loss=ctx.loss, n_repeats=p.n_repeats,
                           X_fit=None if fit is X else fit, features=_pfi_cfi_features(ctx),
                           n_jobs=ctx.config.n_jobs, random_state=ctx.seed, progress=ctx.progress)}


def sampler_frame(ctx, step, X):
    """The features the conditional sampler of ``step`` ("cfi", "sage") learns the dependence from: training rows,
    as many as the step's row budget on the test rows allows -- CFI's on them alone, conditional SAGE's after the
    rows ``X`` it explains.

    Fitted on the few test rows of a small table alone, the default subgroup sampler's leaves held 2 rows (10 test
    rows: at most a quarter of them), each row's draws were nearly its own value, and CFI of a feature independent of
    the others came out at a sixteenth of its PFI (spector, PSI: 0.010 against 0.167) while conditional SAGE of
    another fell below 0. The sampler needs no target, so the training rows' features add rows to learn
    P(x_S | x_-S) from without a leak. CFI's rows then draw from other rows than their own: honest draws, which for a
    feature independent of the others give CFI = PFI in expectation whatever the leaf size (3 independent normals,
    10 test rows, 15 seeds: CFI / the known answer 0.97-1.03 with 22 or 200 training rows, 0.80-0.86 with the test
    rows added to them, whose own leaves they help cut). Conditional SAGE draws the rows of the sampler's data
    cross-fitted (:class:`imlkit.samplers.SubgroupSampler`), honest as well, and needs X's rows first in it to draw
    them by index. The budget keeps the step's cost (bike: CFI's sampler on 6,051 training rows instead of the 2,594
    test rows; SAGE's 512 test rows already fill its budget, so it is unchanged). ``X`` itself (the sampler then fitted
    on the rows explained, as before) when there is no other row: a fitted model scored on every row of one table (its
    training rows may be those rows), training rows whose column types differ from the test rows', or SAGE's budget
    already filled. The training rows used are recorded as the step's (``ctx.row_use``).
    """
    import pandas as pd

    if ctx.evaluation == "all_rows" or ctx.X_train is None or ctx.X_train is ctx.X_test or not len(ctx.X_train):
        return X
    if list(ctx.X_train.columns) != list(X.columns) or list(ctx.X_train.dtypes) != list(X.dtypes):
        return X
    budget = ctx.budget(step, "test")
    with_X = step == "sage"
    # the training rows' budget: the step's, less the rows X already takes in the frame (SAGE)
    room = len(ctx.X_train) if budget is None else int(budget) - (len(X) if with_X else 0)
    if room <= 0:
        return X
    idx = ctx.row_index(step, "train", room)
    if budget is None:   # --full: every row, said so in section 7's table (not "the number of training rows")
        ctx.row_use[(step, "train")] = dataclasses.replace(ctx.row_use[(step, "train")], budget=None)
    more = (ctx.X_train if idx is None else ctx.X_train.iloc[idx]).reset_index(drop=True)
    if not with_X:
        return more
    frame = pd.concat([X.reset_index(drop=True), more], ignore_index=True)
    return frame if list(frame.dtypes) == list(X.dtypes) else X


def sampler_rows_words(ctx, step):
    """Which rows the conditional sampler of ``step`` was fitted on, from the rows the step recorded, or None.

    CFI: "the features of all 22 training rows (no target), not of the 10 test rows it explains, whose draws then never
    hold their own values"; SAGE: "the features of 32 rows: the 10 test rows it explains and all 22 training rows
    (no target), each row drawing from rows of the other half (cross-fitted)"."""
    test = ctx.row_use.get((step, "test"))
    if test is None:
        return None
    train = ctx.row_use.get((step, "train"))
    rows = ctx.eval_rows
    if train is None:
        return f"the features of the {test.used:,} {rows} it explains (no target)"
    every = "all " if train.used == train.available else ""
    cap = ("" if train.used == train.available else
           f" (of {train.available:,}, as many as its row budget of {ctx.budget(step, 'test'):,} allows)")
    if step == "cfi":
        return (f"the features of {every}{train.used:,} training rows{cap} (no target), not of the {test.used:,} "
                f"{rows} it explains, so that a row's draws never hold its own value")
    return (f"the features of {test.used + train.used:,} rows: the {test.used:,} {rows} it explains and {every}"
            f"{train.used:,} training rows{cap} (no target), each of its rows drawing from rows of the other half of "
            f"them (cross-fitted)")


def _pfi_cfi_features(ctx):
    # ``imlkit importance`` prints one method's table of every feature (no budget sentence there)
    return None if ctx.params.every_feature else budgeted_features(ctx, group=False)


def _budget_note(ctx, computed):
    """The sentence that says which methods ran on a feature budget, on which features, how they were chosen and why."""
    budget = ctx.params.max_features
    p = len(ctx.X_test.columns)
    used = [METHOD_LABELS.get(k, k) for k, r in computed.items()
            if k.split("_")[0] in BUDGETED and len(r.feature_names) < p]
    if budget is None or p <= budget or not used:
        return None
    alone = [METHOD_LABELS[k] for k in NO_GROUP if k in computed and len(computed[k].feature_names) < p]
    from ._claims import name_list  # (_claims imports this module)

    shown = name_list(screen_ranking(ctx)[:budget])
    who = _and(used)
    info = screen_info(ctx) or {"screened": p, "unused": 0}
    screen = (f"a screen: PFI with one permutation of each of the {info['screened']:,} features the model splits on"
              f" (the other {info['unused']:,} are never used by a split of its trees, so permuting them changes no "
              f"prediction: their PFI and CFI are exactly 0)" if info["unused"] else
              f"a screen: PFI with one permutation of each of the {info['screened']:,} features")
    screen += _screen_rows_words(info, budget, p)
    return (f"Feature budget: the cost of {who} grows with the number of features, so with {p:,} features "
            f"they ran on the {budget} ranked first by {screen} -- {shown}"
            + (f"; {_and([u for u in used if u not in alone])} also on one group, '{OTHERS}', holding the other "
               f"{p - budget:,} features together ({budget + 1} entries)" if len(alone) < len(used) else "")
            + ". Rerun with --max-features N to change the budget or --full for every feature.")


def _screen_rows_words(info, budget, p):
    """Which rows the screen ranked on, and what that means for the verdicts' level (see ``_ranking._screen_rows``).

    The verdicts read each method's intervals (and LOCO's and PIMP's tests) at a level over the entries shown; that
    level covers the entries only when choosing them did not read the same rows.
    """
    where, n = info.get("rows"), info.get("n_rows")
    rows = f" {n:,}" if n else ""
    if where == "train":
        return (f", on{rows} training rows (not the rows the intervals and tests below read, so choosing on them "
                f"does not select those rows' noise)")
    if where == "same":
        return (f", on the{rows} rows the methods read (a fitted model scored on every row of one table leaves no "
                f"others): the verdicts read PFI's, CFI's and SAGE's intervals at the Bonferroni level over all "
                f"{p:,} screened features, which covers choosing {budget} of them on these rows; LOCO's and PIMP's "
                f"tests are adjusted over the entries shown only, which does not cover that choice, so a screened "
                f"feature whose test clears 0 narrowly may be chance")
    return ""


def _sampler_sentence(ctx, computed):
    """" CFI draws a feature's values given the other features from a sampler fitted on ..." (with a leading space),
    or "": which rows CFI's and conditional SAGE's draws were learnt from (:func:`sampler_frame`)."""
    parts = []
    for key, step in (("cfi", "cfi"), ("sage_conditional", "sage")):
        words = sampler_rows_words(ctx, step) if key in computed else None
        if words:
            parts.append(f"{METHOD_LABELS.get(key, key)} draws a feature's values given the other features from a "
                         f"sampler fitted on {words}")
    return f" {'; '.join(parts)}." if parts else ""


def _and(labels):
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def reused_full_fit(ctx, method):
    """The report's model when LOCO/LOFO's full fit (PIMP's model on the real target) would repeat its fit
    exactly, else None.

    imlkit fitted it (not a model given fitted, whose rows imlkit cannot know) from the learner the
    refits clone, with fixed random states, one refit per feature, and the refits run in this process
    (no --n-jobs, no --scheduler); :func:`imlkit.importance._refit.reuse_full_fit` further requires
    that the refits' training rows are the model's own (within the row budget).
    """
    from ..importance._refit import full_fit_reusable
    from ._shared import fitted_outside

    if fitted_outside(ctx) or ctx.learner is None:
        return None
    # Only when the refits run in this process, as the model's fit did: a worker may run a learner's
    # own threads differently (HistGradientBoosting sums gradients over its OpenMP threads), and the
    # full and the reduced fits must then come from the same place, as they did before.
    if ctx.config.scheduler or ctx.n_jobs not in (None, 1):
        return None
    n_refits = getattr(getattr(ctx.params, method), "n_refits", 1)
    return ctx.model if full_fit_reusable(ctx.model, ctx.learner, n_refits) else None


@contextlib.contextmanager
def _full_fit_offer(ctx, method):
    """Offer the report's model as LOCO/LOFO's full fit and PIMP's model on the real target; section 7 says
    when it was taken."""
    from ..importance._refit import reuse_full_fit

    with reuse_full_fit(reused_full_fit(ctx, method), ctx.X_train, ctx.y_train) as record:
        yield
    if record["used"]:
        ctx.full_fit_used.add(method)


def _loco(ctx):
    # aggregate is left to the API's "auto": the median for regression, the mean for a
    # classifier (whose median of Δ is 0 when most rows are predicted with certainty).
    p = ctx.params.loco
    with ctx.refit_backend(), _full_fit_offer(ctx, "loco"):
        r = imp.loco(ctx.learner, *ctx.rows("loco", "train"), *ctx.rows("loco"),
                     loss=method_loss(ctx.task, ctx.loss, "loco"),
                     features=budgeted_features(ctx), test=p.test, p_adjust=p.p_adjust, n_refits=p.n_refits,
                     n_jobs=ctx.n_jobs,
                     random_state=ctx.seed, progress=ctx.progress)
    return {"loco": r}


def _lofo(ctx):
    p = ctx.params.lofo
    with ctx.refit_backend(), _full_fit_offer(ctx, "lofo"):
        r = imp.lofo(ctx.learner, *ctx.rows("lofo", "train"), *ctx.rows("lofo"),
                     loss=method_loss(ctx.task, ctx.loss, "lofo"),
                     features=budgeted_features(ctx), relation=p.relation, n_jobs=ctx.n_jobs, random_state=ctx.seed,
                     progress=ctx.progress)
    return {"lofo": r}


#: Cells (rows x columns) of the hybrid rows SAGE builds per model call in the report (~64 MB of float64).
SAGE_CHUNK_CELLS = 1 << 23


def _sage(ctx):
    p = ctx.params.sage
    X, y = ctx.rows("sage")
    # SAGE stacks up to 2**19 hybrid rows per call whatever the width; on 2,308 columns that peaked at
    # 3.4 GB (0.96 GB with this bound, the same time). Bound the call by cells (no change up to 16 columns).
    chunk = int(min(1 << 19, max(4096, SAGE_CHUNK_CELLS // max(1, X.shape[1]))))
    out = {}
    for removal in ctx.config.sage_removals:
        sampler = None
        if removal == "conditional":
            # learnt from the training rows' features too (sampler_frame); X's rows first, so they draw by index
            fit = sampler_frame(ctx, "sage", X)
            sampler = None if fit is X else SubgroupSampler().fit(fit)
        out[f"sage_{removal}"] = imp.sage(ctx.model, X, y, loss=ctx.loss, removal=removal, **p.run(removal).to_dict(),
                                          sampler=sampler, features=budgeted_features(ctx), max_rows=chunk,
                                          n_jobs=ctx.config.n_jobs, random_state=ctx.seed, progress=ctx.progress)
    return out


def _pimp(ctx):
    # ``--n-null`` reaches ctx.params through method_params (the step's logged parameters say it)
    p = ctx.params.pimp
    with ctx.refit_backend(), _full_fit_offer(ctx, "pimp"):   # its model on the real target is the report's
        r = imp.pimp(ctx.learner, *ctx.rows("pimp", "train"), *ctx.rows("pimp"), importance=p.importance,
                     n_repeats=p.n_repeats, loss=ctx.loss, n_null=p.n_null, features=budgeted_features(ctx),
                     distribution=p.distribution,
                     p_adjust=p.p_adjust, sequential=True,   # stops only where the decisions are settled
                     n_jobs=ctx.n_jobs, random_state=ctx.seed, progress=ctx.progress)
    return {"pimp": r}


def pimp_entries(ctx):
    """How many entries PIMP would test: every feature, or within the feature budget its top features + one group."""
    budget = ctx.params.max_features
    p = len(ctx.X_test.columns)
    return (budget + 1, True) if budget is not None and p > budget + 1 else (p, False)


def pimp_cannot_reject(ctx):
    """One sentence when PIMP's null refits could not reject any feature whatever the data, else None.

    Below ``MIN_PARAMETRIC_NULL`` refits (or with ``distribution="empirical"``) PIMP uses the
    empirical null, whose smallest p-value is 1/(B + 1); Holm or Bonferroni over m entries then
    leaves every adjusted p-value >= min(1, m/(B + 1)) (>= 1/(B + 1) uncorrected). When that
    floor is above ``alpha`` it is known before any refit, and the refits could support no
    claim either way: the report does not pay for them (``--quick``'s 10 null refits over 9
    features: floor 9/11, on any table) and says how many would do. m is the number of entries
    PIMP would test (:func:`pimp_entries`).
    """
    from ..importance._pimp import MIN_PARAMETRIC_NULL, resolution

    params = ctx.params.pimp
    B, adj, alpha = params.n_null, params.p_adjust, 0.05
    empirical_only = params.distribution == "empirical"
    if B >= MIN_PARAMETRIC_NULL and not empirical_only:
        return None
    m, budgeted = pimp_entries(ctx)
    if m == 0:
        return None
    floor, needed = resolution(np.full(m, 0.5), ["empirical"] * m, B, adj, alpha)
    if floor.min() <= alpha:
        return None
    need = int(np.nanmax(needed))
    c = 1 if adj is None or m == 1 else m
    # one feature: no correction to speak of (engel: "the holm correction over 1 features", review r4)
    over = ("one feature (no correction for multiple tests)" if m == 1 else
            f"the {adj} correction over {m} entries (the feature budget)" if budgeted and adj else
            f"the {adj} correction over {m} features" if adj else "no correction")
    rerun = (f"Rerun with --n-null {need} (at least) to run it." if empirical_only or need <= MIN_PARAMETRIC_NULL
             else f"Rerun with --n-null {MIN_PARAMETRIC_NULL} or more to run it: from {MIN_PARAMETRIC_NULL} "
                  f"refits PIMP fits a null distribution to each feature's null importances where one fits; "
                  f"a feature left on the empirical null needs --n-null {need} to reach {alpha}.")
    return (f"PIMP was not run: with {B} null refits (empirical null) and {over}, the smallest adjusted p-value any "
            f"feature could reach is min(1, {c}/{B + 1}) = {fmt(float(floor.min()))}, above {alpha}, whatever the "
            f"data, so its refits could support no claim either way. {rerun}")


#: ``--quick``: a refit method (LOCO, LOFO, PIMP) whose fits would take longer than this many seconds in all, judged
#: from the model's own fit, is not run, and the report says so with the numbers. ISLP NCI60 (14 classes x 6,830
#: genes): each gradient-boosting fit 9.7 s, LOCO's 17 fits about 165 s, a report that did not finish in 20 minutes.
#: The fit's time is the smaller of its wall and CPU seconds (:func:`_model_fit_seconds`), so that the load of a shared
#: machine does not decide which methods the same command runs (review rev8 r3-1: Khan's 3.4 s CPU fit took 13.5 s
#: wall under load, and LOCO was left out). 30 s, half of the minute --quick promises: with 120 s ISLP Khan (63 x
#: 2,308 genes, a 3.2 s fit) ran LOCO's 17 fits and took 92 s CPU in all (review rev8).
QUICK_REFIT_SECONDS = 30.0


def _model_fit_seconds(ctx):
    """Seconds the report's own fit of the model took (its step in ``ctx.log``), or None (a model given fitted).

    The smaller of its wall and CPU seconds: wall seconds grow with the machine's load (the process waits for a core)
    and CPU seconds with the threads a fit uses (HistGradientBoosting's OpenMP) -- the smaller is what the fit costs on
    an idle machine, nearly the same from run to run.
    """
    for e in getattr(ctx, "log", ()):
        if e.step.startswith("fit the model") and e.seconds is not None and not e.step.endswith("(failed)"):
            cpu = getattr(e, "cpu_seconds", None)
            return float(e.seconds if cpu is None else min(e.seconds, cpu))
    return None


def refits_over_quick_budget(ctx, method):
    """One sentence when ``--quick``'s refit budget (``QUICK_REFIT_SECONDS``) leaves ``method`` out, else None.

    The estimate is (number of fits) x (the model's own fit time): LOCO fits every entry ``n_refits`` times plus the
    full model, LOFO every entry once plus the full model, PIMP the model once plus ``n_null`` times; an entry is a
    feature, or within the feature budget one of its top features or the group of the others (:func:`pimp_entries`
    counts them). Refits run on at most the model's training rows, so the estimate is not low for that reason.
    """
    if not getattr(ctx.config, "quick", False):
        return None
    fit = _model_fit_seconds(ctx)
    if fit is None:
        return None
    entries = pimp_entries(ctx)[0]
    if method == "loco":
        n = entries * ctx.params.loco.n_refits + 1
    elif method == "lofo":
        n = entries + 1
    else:
        n = ctx.params.pimp.n_null + 1
    cost = n * fit
    if cost <= QUICK_REFIT_SECONDS:
        return None
    label = METHOD_LABELS.get(method, method.upper())
    return (f"{label} was not run: --quick keeps the refits under about {QUICK_REFIT_SECONDS:.0f} s, and its {n} fits "
            f"of the learner would take about {cost:,.0f} s (the model's own fit took {fit:.1f} s, the smaller of its "
            f"wall and CPU seconds; {entries:,} entries). Run the report without --quick to include it.")


_COMPUTE = {"pfi": _pfi, "cfi": _cfi, "loco": _loco, "lofo": _lofo, "sage": _sage, "pimp": _pimp}
_REFIT = ("loco", "lofo", "pimp")


def compute_importance(ctx, method):
    """Run one importance method (``pfi``, ``cfi``, ``loco``, ``lofo``, ``sage``, ``pimp``) into ctx."""
    params = getattr(ctx.params, method).to_dict()
    budget = ctx.params.max_features
    every = method in NO_GROUP and ctx.params.every_feature
    # a grouping method is budgeted from budget + 2 features on (see budgeted_features)
    if (method in BUDGETED and budget is not None and not every
            and len(ctx.X_test.columns) > budget + (0 if method in NO_GROUP else 1)):
        screen_ranking(ctx)  # its own step, before this method's
        group = "" if method in NO_GROUP else f" + '{OTHERS}'"
        params["features"] = f"the {budget} ranked first by the screen{group}"
    if method in _REFIT:
        params["learner"] = type(ctx.learner).__name__
        params["backend"] = f"dask ({ctx.config.scheduler})" if ctx.config.scheduler else "joblib/loky"
    # the loss this method uses (LOCO/LOFO choose their own): section 7 shows the same label as section 3
    loss = method_loss(ctx.task, ctx.loss, method)
    with ctx.step(METHOD_LABELS.get(method, method.upper()), loss=loss, random_state=ctx.seed,
                  **params) as entry:
        results = _COMPUTE[method](ctx)
        if method == "cfi" or "sage_conditional" in results:
            rows = sampler_rows_words(ctx, method)
            if rows:
                entry.parameters["sampler_fitted_on"] = rows
        if method in ctx.full_fit_used:
            entry.parameters["full_fit"] = "the report's model (the same learner, rows and random_state: not refitted)"
    info = screen_info(ctx) if method in BUDGETED else None
    for key, r in results.items():
        if info and info.get("rows") == "same" and len(r.feature_names) < len(ctx.X_test.columns):
            # chosen on the rows the method read (a fitted model and one table): the family that covers the choice
            # is every screened feature (Bonferroni's union bound holds whatever chose them); for the reading
            r.info["chosen_from"] = int(info["screened"])
        ctx.importance.set(key, r)
        if key != method:
            entry.parts[key] = r.info.get("seconds")
    return results


def _run(ctx, method):
    compute_importance(ctx, method)
    return []


def _interval(lo, hi):
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f"[{_num3(lo)}, {_num3(hi)}]"


def p_cell(p):
    """A p-value as a table cell: the number, or ``"< 1e-16"`` below :data:`imlkit._display.P_SHOWN_FLOOR` (never
    "0" nor "6.09e-284": no test here resolves a tail that far; see there)."""
    if p is None or not np.isfinite(float(p)) or float(p) >= P_SHOWN_FLOOR:
        return p
    return p_text(p)


def _floor_cell(floor, family):
    """PIMP's smallest reachable adjusted p-value: a fitted tail has none (its floor is 0), said so, not "0"."""
    if family != "empirical" and np.isfinite(float(floor)) and float(floor) == 0:
        return f"none ({family} tail)"
    return p_cell(floor)


def _num3(v):
    s = f"{v:.3g}"
    return "0" if s == "-0" else s


def _snapped(r):
    """Importance, ci_low, ci_high of ``r`` with rounding noise shown as 0.

    The scale is the method's largest |value| or the model's loss, whichever is larger: a LOCO
    median of 1e-15 beside a loss of 0.05 is a difference of two equal losses, not a number.
    """
    arrays = [np.asarray(a, dtype=float) for a in (r.importance, r.ci_low, r.ci_high)]
    finite = np.concatenate([a[np.isfinite(a)] for a in arrays])
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    if r.baseline_loss is not None and np.isfinite(r.baseline_loss):
        scale = max(scale, abs(float(r.baseline_loss)))
    return [snap_zero(a, scale) for a in arrays]


def _question_table(methods, pimp_base=None):
    rows = []
    for m in methods:
        answers = imp.INTERPRETATION_TABLE.get(m, {})
        label = METHOD_LABELS.get(m, m)
        if m == "pimp" and pimp_base:
            label = f"PIMP (p-values of {str(pimp_base).upper()})"
        rows.append([label] + [_ANSWER_TEXT.get(answers.get(q), answers.get(q, "")) for q in (1, 2, 3)])
    return table(["method"] + list(imp.QUESTIONS), rows,
                 caption="Which question a non-zero importance answers (the course's table; Ewald et al. 2024)")


def side_by_side_rows(results):
    """One row per feature: each method's importance with its interval, and its adjusted p-value if any."""
    order = []
    for r in results.values():
        for f in r.to_frame().index:
            if f not in order:
                order.append(f)
    cols = ["feature"]
    for key, r in results.items():
        cols.append(f"{METHOD_LABELS.get(key, key)} [{int(round(100 * r.params.get('confidence_level', 0.95)))}% CI]")
        if r.p_adjusted is not None:
            # LOCO applies the Bonferroni-compatible correction whatever was asked (its info says so)
            adj = r.info.get("p_adjust_applied") or r.params.get("p_adjust", "adj.")
            cols.append(f"{METHOD_LABELS.get(key, key)} p ({adj})")
    rows = []
    snapped = {key: _snapped(r) for key, r in results.items()}
    for f in order:
        row = [f]
        for key, r in results.items():
            if f in r.feature_names:
                j = list(r.feature_names).index(f)
                value, low, high = (a[j] for a in snapped[key])
                # the value above its interval: the template shows these cells as preformatted lines,
                # so a number never breaks (a browser breaks "1.46e-07" after its "-")
                row.append(f"{fmt(value)}\n{_interval(low, high)}".strip())
                if r.p_adjusted is not None:
                    row.append(p_cell(r.p_adjusted[j]))
            else:
                row += [""] + ([""] if r.p_adjusted is not None else [])
        rows.append(row)
    return cols, rows


def _collapsed(block, top=TABLE_TOP):
    """A table block showing its first ``top`` rows (ranked by the first method), the rest behind a summary line
    (:func:`._blocks.collapse_ranked`, shared with section 5's mean |SHAP| table)."""
    return collapse_ranked(block, top)


def _side_by_side_caption(results):
    """The caption says which intervals are simultaneous (LOCO/LOFO with a correction: Bonferroni level)."""
    simultaneous = {METHOD_LABELS.get(k, k): r.info["p_adjust_applied"] for k, r in results.items()
                    if r.info.get("p_adjust_applied")}
    text_ = "Importance side by side (each in its own units; intervals at the 95% level"
    # PFI/CFI/SAGE intervals are each at 95% for one feature alone: over many features some clear 0 by chance, so the
    # reading's verdicts take them at the Bonferroni level over the entries (its rules say so, with m)
    marginal = [METHOD_LABELS.get(k, k) for k, r in results.items() if cl.family_level(r) is not None]
    if marginal:
        text_ += (f"; {cl.name_list(marginal)}: marginal intervals, each for its feature alone (the automatic reading "
                  f"judges them at the Bonferroni level over the features)")
    for label, how in simultaneous.items():
        text_ += f"; {label}: intervals simultaneous over features (Bonferroni level)"
        # Holm rejects whatever Bonferroni rejects and possibly more, and has no simultaneous intervals
        # of its own: a Holm-significant feature's interval may hold 0 (the caveats name it).
        text_ += (", p-values Holm-adjusted, so a significant feature's interval may still include 0 (named in the "
                  "caveats)" if how == "holm" else ", so 'significant' agrees with the interval excluding 0")
    tiny = any(getattr(r, "p_adjusted", None) is not None and _has_tiny_p(r.p_adjusted) for r in results.values())
    return text_ + (f"; {P_FLOOR_NOTE}" if tiny else "") + ")"


def _loco_of_one_feature(ctx):
    """Why LOCO is not computed on a table with one feature, or None: leaving the only feature out leaves the learner no
    column, and the refit it would be compared with is a constant -- section 2's baseline (statsmodels engel: "1
    part(s) of this report failed ... Leaving out 'income' removes every column of X_train")."""
    cols = list(ctx.X_test.columns)
    if len(cols) != 1:
        return None
    from ._fit import CLASS_FREQUENCIES

    base = "mean" if ctx.task == "regression" else CLASS_FREQUENCIES
    return (f"LOCO: not computed, because the model has one feature ({cols[0]}): leaving it out leaves the learner no "
            f"column, so the refit without it would be a constant, and LOCO would measure the model's gain over a "
            f"constant. Section 2 makes that comparison: the model against the {base} baseline on the same test rows, "
            f"with paired bootstrap intervals.")


def section_importance(ctx):
    """Importance of every selected method, the question table, PIMP, and each method's caveats.

    Each method, the comparison figure and the PIMP part run in their own guard: a failing
    method becomes a warning box here and the others are still shown.
    """
    failed, skipped = [], []
    for method in ("pfi", "cfi", "loco", "lofo", "sage", "pimp"):
        if not ctx.methods(method):
            continue
        if method in _REFIT and ctx.learner is None:
            ctx.notes.append(f"{method.upper()} needs refits, but the model cannot be cloned (it is not a "
                             f"scikit-learn estimator); it was left out.")
            continue
        skip = pimp_cannot_reject(ctx) if method == "pimp" else None
        if skip:
            skipped.append(text(skip))
            # section 7's table of every step says so too (no refit ran: its seconds are the decision's)
            asked = ctx.params.pimp
            with ctx.step("PIMP (not run: its null refits could reject nothing)", n_null=asked.n_null,
                          p_adjust=asked.p_adjust, entries=pimp_entries(ctx)[0], see="section 3"):
                pass
            continue
        alone = _loco_of_one_feature(ctx) if method == "loco" else None
        if alone:
            skipped.append(text(alone))
            with ctx.step("LOCO (not run: the model has one feature)", see="section 3"):
                pass
            continue
        over = refits_over_quick_budget(ctx, method) if method in _REFIT else None
        if over:
            skipped.append(text(over))
            with ctx.step(f"{METHOD_LABELS.get(method, method.upper())} (not run: over --quick's refit budget)",
                          see="section 3"):
                pass
            continue
        failed += ctx.guard(METHOD_LABELS.get(method, method.upper()), lambda method=method: _run(ctx, method))
    computed = ctx.importance.results()
    results = ctx.importance.compared()
    pimp = ctx.importance.pimp
    blocks = [_question_table(list(computed), pimp.params.get("importance") if pimp is not None else None)]
    blocks += failed + skipped
    if not computed:
        if not failed:
            blocks.append(text("No importance method was selected."))
        return Section("importance", "3. Feature importance", blocks)
    note = _budget_note(ctx, computed)
    if note:
        blocks.append(text(note))
    losses = ", ".join(f"{METHOD_LABELS.get(k, k)}: {r.loss}" for k, r in computed.items())
    if ctx.evaluation == "all_rows":
        where = ("PFI, CFI and SAGE explain the fitted model on all the table's rows (possibly its training rows); "
                 f"LOCO, LOFO and PIMP refit the learner on the training rows of {ctx.split_words}.")
    else:
        where = ("PFI, CFI and SAGE explain the fitted model on test data; LOCO, LOFO and PIMP refit the learner on "
                 "the training data.")
    blocks.append(text(f"Losses: {losses}. {where}{_sampler_sentence(ctx, computed)}"))
    if results:
        cols, rows = side_by_side_rows(results)
        blocks.append(_collapsed(table(cols, rows, caption=_side_by_side_caption(results), css="wide")))
        blocks += ctx.guard("figure: importance side by side", lambda: _comparison_figure(results), kind="figure")
    if pimp is not None:
        blocks += ctx.guard("PIMP tables and figure", lambda: _pimp_blocks(pimp), kind="part")
    caveats = []
    for key in ("sage_marginal", "sage_conditional"):
        r = getattr(ctx.importance, key)
        # a constant model's SAGE sampled nothing: its own note (among the result's warnings) says so, not
        # "converged after 0 orderings ... 0 x its largest |value|" (sage7)
        if r is not None and "n_permutations" in r.extra and "constant_prediction" not in r.extra:
            caveats.append(_sage_caveat(ctx, key, r))
    by_text = {}
    for key, r in computed.items():
        for w in r.warnings:
            if key.startswith("sage") and "did not converge" in w:
                continue  # said above, with the command-line option that changes it
            by_text.setdefault(cli_advice(w), []).append(METHOD_LABELS.get(key, key))
    caveats += group_caveats(by_text)
    if caveats:
        blocks.append(bullets(caveats, title="Caveats found while computing"))
    return Section("importance", "3. Feature importance", blocks)


#: A feature name quoted in a method's warning, and the numbers in it (what varies between features).
_QUOTED = re.compile(r"'([^']+)'")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")
#: Features listed in a grouped caveat before "and N others".
CAVEAT_LIST = 10


def group_caveats(by_text):
    """One line per kind of caveat: the messages that differ only in the feature they name (and its numbers).

    ``by_text`` maps a message to the methods that raised it. Messages with the same methods that
    become equal once their first quoted name and their numbers are blanked are one kind; the line
    keeps the message once (the name and the varying numbers shown as "…") and lists the features
    with their numbers, e.g. ``PFI, PIMP (3 features): Feature '…' is strongly dependent (R² = …)…:
    weight (0.92), displacement (0.96), …``.
    """
    kinds = {}
    for message, methods in by_text.items():
        named = _QUOTED.search(message)
        if named is None:
            kinds.setdefault((message, tuple(methods)), []).append((None, message))
            continue
        blank = message[:named.start()] + "'…'" + message[named.end():]
        kinds.setdefault((_NUMBER.sub("#", blank), tuple(methods)), []).append((named.group(1), blank))
    out = []
    for (_, methods), members in kinds.items():
        who = ", ".join(methods)
        if len(members) == 1:
            name, blank = members[0]
            out.append(f"{who}: {blank.replace(chr(39) + '…' + chr(39), repr(name)) if name else blank}")
            continue
        numbers = [_NUMBER.findall(blank) for _, blank in members]
        varying = [i for i in range(len(numbers[0])) if len({tuple(n)[i] for n in numbers}) > 1]
        shown = members[0][1]
        for i in sorted(varying, reverse=True):  # blank the numbers that differ, from the end
            match = list(_NUMBER.finditer(shown))[i]
            shown = shown[:match.start()] + "…" + shown[match.end():]
        names = [name + (f" ({', '.join(n[i] for i in varying)})" if varying else "")
                 for (name, _), n in zip(members, numbers)]
        more = f" and {_others(len(names) - CAVEAT_LIST)}" if len(names) > CAVEAT_LIST else ""
        out.append(f"{who} ({len(members)} features): {shown} -- {', '.join(names[:CAVEAT_LIST])}{more}.")
    return out


def _comparison_figure(results):
    with report_style():
        nfeat = len({f for r in results.values() for f in r.feature_names})
        fig, ax = new_figure(figsize=(8, 0.06 * len(results) * min(nfeat, 15) + 0.25 * min(nfeat, 15) + 1.2))
        draw_importance_comparison(results, ax[0, 0], labels=METHOD_LABELS)
        # the whiskers are the tables' intervals: per-feature (marginal) for PFI, CFI and SAGE, which the
        # reading only uses widened to the Bonferroni level -- a whisker clearing 0 is not a claim
        marginal = [METHOD_LABELS.get(k, k) for k, r in results.items() if cl.family_level(r) is not None]
        caption = ("Whiskers: each method's interval from the table, scaled like its bars"
                   + (f"; for {', '.join(marginal)} they are per-feature (marginal) intervals, which the automatic "
                      "reading widens to the Bonferroni level over the method's features before calling a "
                      "feature important" if marginal else "") + ".")
        return [figure_block(fig, "Grouped bar chart of every method's relative importance", caption)]


def _sage_caveat(ctx, key, r):
    """What a SAGE run did: converged, or stopped at its budget -- with the option that raises it."""
    n_rows = ctx.row_use[("sage", "test")].used
    n = r.extra["n_permutations"]
    tol = r.params.get("tolerance")
    if r.extra.get("converged") and "values" in r.extra and not n:
        return (f"{METHOD_LABELS[key]}: computed exactly over every coalition of the features on {n_rows} "
                f"{ctx.eval_rows} (no sampled orderings, so no standard error).")
    if r.extra.get("converged"):
        # the rule of importance._sage._converged: max SE <= tolerance x (max value - min value); when all values
        # are (numerically) equal that range is 0 and the rule uses the largest |value| (or |v(N)|) instead
        phi = np.asarray(r.importance, dtype=float)
        gap = float(phi.max() - phi.min()) if phi.size else 0.0
        size = max(float(np.abs(phi).max()) if phi.size else 0.0, abs(float(r.extra.get("v_all", 0.0))))
        scale = "the range of its values (largest minus smallest)" if gap > 1e-9 * size else "its largest |value|"
        ratio = r.extra.get("ratio")
        shown = (f"is {float(ratio):.3g} x {scale}, within the tolerance {tol}" if ratio is not None
                 and np.isfinite(ratio) else f"is at most {tol} x {scale}")
        return (f"{METHOD_LABELS[key]}: converged after {n} orderings on {n_rows} {ctx.eval_rows}: its largest "
                f"standard error {shown}.")
    return (f"{METHOD_LABELS[key]} stopped after {n} orderings (its budget) on {n_rows} {ctx.eval_rows} before "
            f"reaching tolerance {tol}: its values are estimates with standard errors shown (the intervals in the "
            f"table). "
            f"Allow more orderings with --sage-orderings (now {r.params.get('max_permutations', n)}).")


def _pimp_blocks(r):
    """PIMP's table (with each feature's smallest reachable adjusted p-value), its verdict and null histograms.

    A feature whose ``p_floor`` exceeds alpha could not be significant with these null refits
    whatever its importance: when its observed importance exceeds every null value the text
    says PIMP cannot tell (and how many refits would do), never that there is no evidence; when
    no feature could be significant, one line says so (``--quick``'s 10 refits).
    """
    frame = r.to_frame()
    alpha = r.params.get("alpha", 0.05)
    B = r.params.get("n_null")
    adj = r.params.get("p_adjust", "holm")
    has_floor = "p_floor" in frame
    family = dict(zip(r.feature_names, r.extra.get("distribution", ("empirical",) * len(r.feature_names))))
    rows = [[f, row["importance"], p_cell(row.get("p_value")), p_cell(row.get("p_adjusted"))]
            + ([_floor_cell(row["p_floor"], family.get(f, "empirical"))] if has_floor else [])
            + [bool(row.get("significant"))]
            for f, row in frame.iterrows()]
    base = r.params.get("importance", "pfi")
    out = [table(["feature", f"observed {str(base).upper()}", "p-value", f"p ({adj})"]
                 + (["smallest reachable p"] if has_floor else []) + [f"significant at {alpha}"], rows,
                 caption=f"PIMP: {B} refits on a permuted target give each feature's null distribution "
                         f"({r.params.get('distribution')}; the empirical null below 30 refits)"
                         + ("; smallest reachable p: the adjusted p-value the feature would get had its observed "
                            "importance beaten every null refit (its resolution; a fitted tail has none)"
                            if has_floor else "")
                         + (f"; {P_FLOOR_NOTE}" if _has_tiny_p(list(frame.get("p_value", [])))
                            or _has_tiny_p(list(frame.get("p_adjusted", []))) else ""))]
    sig = [f for f, row in frame.iterrows() if bool(row.get("significant"))]
    from ._claims import name_list  # (_claims imports this module)

    entries = _entries_words(frame.index)
    out.append(text(f"After {adj} adjustment, {len(sig)} of {entries} {'is' if len(sig) == 1 else 'are'} "
                    f"significantly important at level {alpha}" + (f": {name_list(sig)}." if sig else ".")))
    seq = r.extra.get("sequential") or {}
    if seq.get("stopped"):  # sequential PIMP: the p-values are those of the refits run, the decisions the full run's
        k = seq["n_null_run"]
        out.append(text(f"Sequential PIMP stopped after {k} of {B} null refits: however the other {B - k} turned "
                        f"out, the decisions above would be the same. The p-values are those of the {k} refits run; "
                        f"the smallest reachable p is that of all {B}."))
    # What the refits cannot resolve: nothing rejectable at all, or features at the floor of their null.
    said = []
    if hasattr(r, "cannot_tell"):
        if r.rejects_nothing():
            need = int(np.nanmax(r.extra["n_null_needed"]))
            said.append(f"With {B} null refits and the {adj} correction over {entries}, PIMP cannot "
                        f"reject any feature at level {alpha}, however large its importance (the smallest adjusted "
                        f"p-value any feature could reach is {fmt(np.nanmin(r.extra['p_floor']))}): its p-values "
                        f"here say nothing either way. At least {need} null refits are needed (rerun with "
                        f"--n-null {need}).")
        stuck = r.cannot_tell()
        order = [f for f in frame.index if f in stuck]     # largest importance first
        if order and said:  # nothing can be rejected (said above): name the features beyond their whole null
            who = ", ".join(order[:10]) + (f" and {_others(len(order) - 10)}" if len(order) > 10 else "")
            verb, its, they, do = (("lies", "its", "it matters", "it does") if len(order) == 1
                                   else ("lie", "their", "they matter", "they do"))
            said.append(f"{who} {verb} beyond all {B} of {its} null values: PIMP cannot tell with {B} null refits "
                        f"whether {they}, and an adjusted p-value above {alpha} here is not evidence that {do} not.")
        elif len(order) == 1:
            f = order[0]
            said.append(f"PIMP cannot tell with {B} null refits whether {f} matters: its observed importance exceeds "
                        f"all {B} null values, but after the {adj} correction the smallest adjusted p-value it could "
                        f"reach is above {alpha}. At least {stuck[f]} null refits are needed (rerun with --n-null "
                        f"{stuck[f]}); an adjusted p-value above {alpha} here is not evidence that it does not matter.")
        elif order:
            need = max(stuck.values())
            who = ", ".join(f"{f} (at least {stuck[f]} needed)" for f in order[:10])
            who += f" and {_others(len(order) - 10)}" if len(order) > 10 else ""
            said.append(f"PIMP cannot tell with {B} null refits whether these features matter: {who}. Their observed "
                        f"importance exceeds all {B} null values, but after the {adj} correction the smallest "
                        f"adjusted p-value they could reach is above {alpha}. At least {need} null refits are needed "
                        f"(rerun with --n-null {need}); an adjusted p-value above {alpha} here is not evidence that "
                        f"they do not matter.")
    out += [text(t) for t in said]
    with report_style():
        k = min(len(r.feature_names), 12)
        fig, axes = new_figure(nrows=int(np.ceil(k / 4)), ncols=4, figsize=(9, 1.9 * np.ceil(k / 4)))
        r.plot(kind="null", ax=axes.ravel()[:k], max_features=k)
        for a in axes.ravel()[k:]:
            a.set_axis_off()
        out.append(figure_block(fig, "PIMP null distributions with the observed importance marked"))
    return out


def _entries_words(names):
    """"10 features", or under the feature budget "16 entries (15 features and the group 'all other features')": the
    group is one entry of the test and of the correction, not one feature (digits: "0 of 16 features")."""
    names = [str(f) for f in names]
    if OTHERS not in names:
        return f"{len(names):,} features"
    k = len(names) - 1
    return f"{len(names):,} entries ({k:,} feature{'s' if k != 1 else ''} and the group '{OTHERS}')"


#: API advice in the methods' warnings -> what the command line offers (``imlkit report --help``).
_CLI_ADVICE = (
    ("use n_refits > 1 to see their spread", "rerun the report with --n-refits 5 to see their spread"),
    ("Raise max_permutations or the tolerance.", "Rerun the report with a larger --sage-orderings."),
    # the report fits the conditional sampler on every row it may (sampler_frame): what is left is more rows
    ("Fit the sampler on more rows of the same features (no target needed), or on other rows than those explained.",
     "The report fitted it on every row it could (section 3 says which); only more rows -- separate test rows "
     "(--test-data), from which the sampler would learn on other rows than those explained, or a larger --max-rows "
     "where a row budget cut them -- make its leaves larger."),
)


def cli_advice(message):
    """A method's warning rewritten for the report: only command-line options that exist.

    The API's advice (``n_refits``, ``max_permutations``, PIMP's ``n_null``) becomes the
    report's options (``--n-refits``, ``--sage-orderings``, ``--n-null``); a Python list of more
    than 10 feature names is shortened to its first 10 "and N others".
    """
    for api, cli in _CLI_ADVICE:
        message = message.replace(api, cli)
    # LOCO's note about an explicit test: the estimand it reports is the useful part
    message = re.sub(r"; use test='auto' for the [a-z-]+\.", ".", message)
    message = re.sub(r"Use n_null >= (\d+)(, or a parametric null \(.*?\))?\.", r"Rerun the report with --n-null \1.",
                     message)
    return re.sub(r"\[('[^']*'(?:, '[^']*'){10,})\]", _shorten_names, message)


def _others(n):
    """"1 other", "3 others" (``_claims.n_others``; _claims imports this module)."""
    return f"{n} other" if n == 1 else f"{n} others"


def _shorten_names(match):
    names = re.findall(r"'([^']*)'", match.group(1))
    return f"{', '.join(names[:10])} and {_others(len(names) - 10)}"
