"""The automatic reading beneath the importance table: where the methods disagree, and why.

Every sentence is a :class:`~imlkit.report._claims.Claim` built here from the results' numbers
and written by ``_claims.render`` from them; ``_claims.check`` verifies each against the rules
stated at the top of the reading (see ``_claims``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._dependence import dependence_partner
from .._display import snap_zero
from . import _claims as cl
from ._blocks import bullets, heading, text
from ._labels import OTHERS
from ._ranking import H_SE_Z, _y_fit, _y_of, h_beyond_share, h_clears, most_important, single_features
from ._scores import largest_gain as _gain
from ._shared import split_is_ordered, undecided_words

__all__ = ["disagreements", "h_verdict", "most_important", "reading_blocks", "reading_claims", "unsettled",
           "Paragraph"]

#: How many of a method's largest the "not settled" and "small" lists look at.
TOP = 5
H_INTERACTION = cl.H_INTERACTION


@dataclass(frozen=True)
class Paragraph:
    """One block of the reading: a title (a bulleted list) or none (one paragraph per item).

    ``items`` is a tuple of tuples of claims: one item is one paragraph (or one bullet), and no
    claim in it may contradict another (``_claims.consistent``).
    """

    items: tuple
    title: str | None = None


def _evidence_by_method(results, y_of=None, y_fit=None):
    """The converged methods' evidence (an unconverged estimate creates no verdict; see :func:`_unconverged`)."""
    return {m: e for m, e in cl.evidence_by_method(results, y_of, y_fit).items()
            if all(x.readable for x in e.values())}


def _unconverged(results, y_of=None, y_fit=None):
    """One claim per method whose estimate did not converge (SAGE's ``extra["converged"]``): "unconverged"
    (not read) or "near_converged" (read, within ``NEAR_CONVERGED`` x its tolerance)."""
    out = []
    for m, e in cl.evidence_by_method(results, y_of, y_fit).items():
        x = next(iter(e.values()))
        if not x.converged:
            out.append(cl.Claim("near_converged" if x.readable else "unconverged", methods=(m,), evidence=(x,)))
    return out


def _partners(X, f, k=3):
    """Up to ``k`` other numeric features most correlated with ``f``, as ``((name, |r|), ...)``."""
    if X is None or f not in X.columns or isinstance(X[f].dtype, pd.CategoricalDtype):
        return ()
    num = [c for c in X.columns if c != f and not isinstance(X[c].dtype, pd.CategoricalDtype)]
    if not num:
        return ()
    corr = X[num].astype(float).corrwith(X[f].astype(float)).abs().dropna().sort_values(ascending=False)
    return tuple((str(c), float(min(1.0, v))) for c, v in corr.iloc[:k].items())


def _partner(X, f):
    """The other numeric feature most correlated with ``f`` and |r| (None when there is none)."""
    found = _partners(X, f, 1)
    return found[0] if found else None


def h_verdict(f, h_overall, h_halves=None):
    """``(verdict, H² on all rows, (half 1, half 2))`` of ``f``'s interaction, by section 4's rule.

    "strong": above ``H_INTERACTION`` in both halves of the rows (on all rows when the halves did not run);
    "weak": at or below it on all rows and in each half; "unsettled": above it on all rows or in one half, not in
    both -- not distinguishable from the threshold at these rows; "beyond": above 1 on all rows or in a half
    (:func:`~imlkit.report._ranking.h_beyond_share`), no share of the prediction's variance; None: no H² for ``f``.
    """
    h = np.nan if h_overall is None or h_overall.get(f) is None else float(h_overall[f])
    halves = None if not h_halves or f not in h_halves else tuple(float(v) for v in h_halves[f])
    if not np.isfinite(h):
        return None, h, halves
    if h_beyond_share(h, halves):
        return "beyond", h, halves
    if halves is None or not all(np.isfinite(halves)):
        return ("strong" if h > cl.H_INTERACTION else "weak"), h, None
    if min(halves) > cl.H_INTERACTION:
        return "strong", h, halves
    return ("unsettled" if max(h, *halves) > cl.H_INTERACTION else "weak"), h, halves


def _reasons(f, high, low, r2, h_overall, X, ev=None, h_halves=None, h_se=None):
    """The claims that explain why methods disagree about ``f`` (each from its numbers).

    ``h_se``: each feature's bootstrap SE of H². An interaction is a reason ("SAGE splits an interaction") only when
    its H² also lies more than 1.645 SEs above the threshold, and "not explained by a strong interaction" only when
    it lies that far below: wine's proline (H² 0.119, SE 0.0177, halves 0.114 and 0.137) is neither.
    """
    out = []
    dep = np.nan if r2 is None else float(r2.get(f, np.nan))
    verdict, h, halves = h_verdict(f, h_overall, h_halves)
    se = None if not h_se else h_se.get(f)
    if verdict == "strong" and not h_clears(h, se, cl.H_INTERACTION):
        verdict = "unsettled"
    elif verdict == "weak" and se is not None and np.isfinite(se) and h + H_SE_Z * se > cl.H_INTERACTION:
        verdict = "unsettled"
    h_nums = {} if halves is None else dict(halves=halves)
    sides = {"high": tuple(high), "low": tuple(low)}
    # CFI finding f important says f carries information about y the other features do not (question 3) and the
    # fitted model uses it (question 1): then neither "its information is largely available through them, so LOCO
    # finds little unique contribution" (wine's alcohol: CFI important, LOCO negligible) nor "the model itself barely
    # uses f" is what the numbers show (conditional SAGE also credits shared information, so it does not count here)
    unique = "cfi" in high
    # "while SAGE (marginal) also counts the model's behaviour on unrealistic, extrapolated points" explains a marginal
    # method above a conditional one; beside a marginal method that is itself low (wine's od280: marginal SAGE
    # important, PFI -- which extrapolates at least as much -- negligible) it explains nothing
    marginal_too = any(m in cl.MARGINAL for m in low)
    if np.isfinite(dep) and dep >= cl.R2_STRONG:
        if unique or marginal_too:  # how each removal credits a dependent feature, not shared information/extrapolation
            sides = {"high": tuple(high), "low": tuple(m for m in low if m not in cl.CONDITIONAL)}
        nums = dict(sides, r2=dep, threshold=cl.R2_STRONG)
        # section 1's rule names the column that carries most of the dependence, categoricals included (bike: day,
        # near copy of mnth, η² 0.99 -- the reading had named season, |r| 0.825, the best numeric one; review r4)
        best = dependence_partner(X, f) if X is not None and f in X.columns else None
        if best is not None and best[3]:
            nums.update(partner=best[0], partner_eta2=float(min(1.0, best[1])))
        elif partner := _partner(X, f):   # a numeric partner: its |r|, as before (computed only when needed)
            nums.update(partner=partner[0], partner_r=partner[1])
        # the partner is the single column most associated with f, not necessarily the carrier of its dependence:
        # when it explains less than half of the R² from all the others, the dependence is joint (statsmodels
        # scotland: COUTAX_FEMALEUNEMP, r² 0.44 of COUTAX's R² 0.99; review rev8) -- section 1's rule, said here too
        own = nums.get("partner_eta2", nums.get("partner_r", np.nan) ** 2 if "partner_r" in nums else np.nan)
        if np.isfinite(own):
            nums.update(partner_r2=float(own), joint=bool(own < dep / 2))
        # the low side's values entirely below 0: the sentence explains a negative value differently from a small one
        below = tuple((m, float(ev[m][f].estimate), float(ev[m][f].low), float(ev[m][f].high))
                      for m in nums["low"] if ev is not None and m in ev and f in ev[m] and ev[m][f].below_null())
        if below:
            nums["below"] = below
        out.append(cl.Claim("dependence", (f,), numbers=nums))
    elif np.isfinite(dep) and dep >= cl.R2_WEAK:
        out.append(cl.Claim("moderate_dependence", (f,), numbers=dict(r2=dep, weak=cl.R2_WEAK, strong=cl.R2_STRONG)))
    # "the model barely uses f" only where it is negligible or below 0 for a method of question 1 (not merely
    # small beside the largest) and none finds it important; "takes it from correlated features" only when
    # the others predict it (R² >= R2_STRONG), with that R² and the partners in the sentence
    marginal_low = tuple(m for m in low if m in cl.MARGINAL
                         and (ev is None or ev[m][f].negligible() or ev[m][f].below_null()))
    if ("sage_conditional" in high and marginal_low and not set(high) & set(cl.MARGINAL) and "cfi" not in high
            and np.isfinite(dep) and dep >= cl.R2_STRONG):
        out.append(cl.Claim("info_vs_use", (f,), numbers=dict(high=tuple(high), low=marginal_low, r2=dep,
                                                               threshold=cl.R2_STRONG, partners=_partners(X, f))))
    # "SAGE splits an interaction among the players" explains a SAGE value smaller than PFI's, not one below 0
    # (Publication: posres, PFI important, marginal SAGE entirely below 0, "explained" by the split), nor a
    # disagreement whose other side is no SAGE at all
    sage_low = tuple(m for m in low if m in ("sage_marginal", "sage_conditional")
                     and (ev is None or not ev[m][f].below_null()))
    if verdict == "strong" and "pfi" in high and sage_low:
        out.append(cl.Claim("interaction", (f,), numbers=dict(high=tuple(high), low=sage_low, h2=h,
                                                               threshold=cl.H_INTERACTION, **h_nums)))
    refit_low = tuple(m for m in low if m in cl.REFIT)
    judged_high = tuple(m for m in high if m not in cl.REFIT)
    if refit_low and judged_high:
        out.append(cl.Claim("refit", (f,), numbers=dict(high=judged_high, low=refit_low)))
    if np.isfinite(dep) and dep < cl.R2_WEAK:
        nums = dict(r2=dep, threshold=cl.R2_WEAK)
        if verdict == "weak":
            nums.update(h2=h, h_threshold=cl.H_INTERACTION, **h_nums)
        out.append(cl.Claim("not_dependence", (f,), numbers=nums))
    return out


def _disagreement_claims(ev, r2=None, h_overall=None, X=None, h_halves=None, h_se=None):
    """``[(disagreement claim, [reason claims])]``: important for one method, negligible or below 0 for another."""
    out = []
    features = list(dict.fromkeys(f for e in ev.values() for f in e))
    for f in features:
        high = [m for m, e in ev.items() if f in e and e[f].important()]
        low = [m for m, e in ev.items() if f in e and m not in high
               and (e[f].negligible() or e[f].below_null() or e[f].small_beside())]
        if not high or not low:
            continue
        claim = cl.Claim("disagreement", (f,), methods=tuple(high), low=tuple(low),
                         evidence=tuple(ev[m][f] for m in high + low))
        out.append((claim, _reasons(f, high, low, r2, h_overall, X, ev, h_halves, h_se)))
    return out


def disagreements(results, r2=None, h_overall=None, X=None, y=None, h_halves=None):
    """Features that one method finds important and another negligible or below 0 -- by their uncertainty.

    Importances are compared relative to each method's largest value (methods have different
    units); the rules are those of :mod:`imlkit.report._claims`; ``y`` the test target (the yardstick of the
    shares; None: unknown); ``h_halves`` each feature's H² on each half of the rows (section 4's rule of a strong
    interaction, :func:`h_verdict`). Returns a list of dicts:
    feature, high (methods), low (methods), reason (the explaining sentences).
    """
    found = _disagreement_claims(_evidence_by_method(results, None if y is None else (lambda m: y)), r2,
                                 h_overall, X, h_halves)
    return [{"feature": c.features[0], "high": list(c.methods), "low": list(c.low),
             "reason": " ".join(r.text() for r in reasons)} for c, reasons in found]


def _top_of(e, k=TOP):
    return sorted((x for x in e.values() if x.rank <= k and np.isfinite(x.estimate)), key=lambda x: x.rank)


def unsettled(results):
    """Features among a method's top 5, at least 10% of its largest, whose interval (or test) includes 0.

    Returns ``{method: [features]}``: the data do not say whether they matter for that method.
    """
    out = {}
    for m, e in _evidence_by_method(results).items():
        vague = [x.feature for x in _top_of(e) if _is_unsettled(x)]
        if vague:
            out[m] = vague
    return out


def _is_unsettled(x):
    # an interval of width 0 does not include 0: it decides nothing (its own claim, ``zero_width``)
    return x.share >= cl.IMPORTANT_SHARE and not x.above_null() and not x.below_null() and not x.zero_width


def _pimp_resolution(r):
    """PIMP's ``to_frame()`` (input order) with ``p_floor`` and ``n_null_needed`` for every feature.

    ``p_floor`` is the smallest adjusted p-value a feature's null could give; ``n_null_needed``
    the fewest null refits that bring it to alpha (:class:`~imlkit.importance.PimpResult`'s
    columns). A result without them (an ImportanceResult of method "pimp" built elsewhere) gets
    them from the same :func:`imlkit.importance._pimp.resolution`.
    """
    frame = r.to_frame(sort=False)
    if "p_floor" not in frame or "n_null_needed" not in frame:
        from ..importance._pimp import resolution

        dist = r.extra.get("distribution", ("empirical",) * len(frame))
        frame["p_floor"], frame["n_null_needed"] = resolution(
            r.p_value, dist, int(r.params.get("n_null", 0)), r.params.get("p_adjust"),
            float(r.params.get("alpha", 0.05)))
    return frame


def _pimp_claims(pimp):
    if pimp is None or pimp.p_adjusted is None:
        return []
    frame = _pimp_resolution(pimp).sort_values("importance", ascending=False, kind="stable")
    alpha = float(pimp.params.get("alpha", 0.05))
    n_null = int(pimp.params.get("n_null", 0))
    p, floor = frame["p_adjusted"].to_numpy(float), frame["p_floor"].to_numpy(float)
    null = pimp.extra.get("null")
    if null is not None and np.shape(null)[1] != n_null:
        null = None   # a sequential run stopped early: "above k of n_null" would count refits never run
    # rounding noise is 0 before it is compared with the null: a constant column's observed PFI of 1.1e-16
    # "above 9 of 10 null values" is round-off against round-off (the model does not use the column)
    observed = np.asarray(pimp.importance, dtype=float)
    scale = np.nanmax(np.abs(observed)) if np.isfinite(observed).any() else 0.0
    if pimp.baseline_loss is not None and np.isfinite(pimp.baseline_loss):
        scale = max(scale, abs(float(pimp.baseline_loss)))
    observed = snap_zero(observed, scale)
    below = pd.Series(np.sum(snap_zero(np.asarray(null, dtype=float), scale) < observed[:, None], axis=1)
                      if null is not None else np.full(len(pimp.feature_names), -1), index=list(pimp.feature_names))
    unused = (pd.Series(observed, index=list(pimp.feature_names)).reindex(frame.index) == 0).to_numpy()
    # a p-value below what the null refits can resolve (a parametric tail) does not make a feature matter
    # "cannot tell with B refits (at least N needed)" only at the floor -- the observed importance beyond every null
    # value, as PimpResult.cannot_tell and section 3's PIMP paragraph say: College's Private, observed above 16 of 60
    # null values, was "cannot tell ... at least 319 are needed", as if more refits could make it significant
    raw_all = pd.Series(np.asarray(pimp.p_value, dtype=float), index=list(pimp.feature_names)).reindex(frame.index)
    at_floor = ((below.reindex(frame.index) == n_null).to_numpy()
                | (raw_all.to_numpy() <= (1.0 + 1e-9) / (n_null + 1)))
    groups = {"pimp_unused": unused, "pimp_matters": (p <= alpha) & (floor <= alpha) & ~unused,
              "pimp_cannot_tell": (floor > alpha) & at_floor & ~unused,
              "pimp_no_evidence": (p > alpha) & ((floor <= alpha) | ~at_floor) & ~unused}
    out = []
    for kind, mask in groups.items():
        if not mask.any():
            continue
        sub = frame[mask]
        nums = dict(alpha=alpha, n_null=n_null, p_adjusted=tuple(sub["p_adjusted"].astype(float)),
                    p_floor=tuple(sub["p_floor"].astype(float)), n_below=tuple(below.reindex(sub.index)))
        # a raw p-value below 1/(B + 1) on a fitted family is that family's tail beyond every null value
        raw = raw_all.reindex(sub.index)
        fam = pd.Series(list(pimp.extra.get("distribution", ("empirical",) * len(pimp.feature_names))),
                        index=list(pimp.feature_names)).reindex(sub.index)
        nums["tail"] = tuple(str(d) if d != "empirical" and r < 1.0 / (n_null + 1) else ""
                             for d, r in zip(fam, raw))
        if kind == "pimp_unused":
            nums["observed"] = tuple(0.0 for _ in range(len(sub)))
        if kind == "pimp_cannot_tell":
            nums["needed"] = int(np.nanmax(sub["n_null_needed"].to_numpy(float)))
        out.append(cl.Claim(kind, tuple(str(f) for f in sub.index), methods=("pimp",), numbers=nums))
    return out


def _top_claim(ev):
    firsts = tuple(next(x for x in e.values() if x.rank == 1) for e in ev.values())
    # each method's runner-up: "ranks X first" is read as settled unless the sentence says the intervals overlap
    seconds = tuple(next((x for x in e.values() if x.rank == 2), None) for e in ev.values())
    return cl.Claim("top", tuple(dict.fromkeys(x.feature for x in firsts)), methods=tuple(ev), evidence=firsts,
                    numbers=dict(second=seconds))


def _zero_width_claims(ev):
    """The intervals of width 0 around a non-zero value (:attr:`~imlkit.report._claims.Evidence.zero_width`), which
    the verdicts do not read: one claim per reason (``why``: one feature, every coalition, or samples all alike)."""
    by_why = {}
    for m, e in ev.items():
        flat = [x for x in sorted(e.values(), key=lambda x: x.rank) if x.zero_width]
        if not flat:
            continue
        sage = m in ("sage_marginal", "sage_conditional")
        why = ("one_feature" if sage and len(e) == 1 else "exact" if sage and flat[0].n_orderings == 0
               else "sampled")
        by_why.setdefault(why, []).extend(flat)
    return [cl.Claim("zero_width", tuple(dict.fromkeys(x.feature for x in flat)),
                     methods=tuple(dict.fromkeys(x.method for x in flat)), evidence=tuple(flat),
                     numbers=dict(why=why)) for why, flat in by_why.items()]


def _counts_claim(ev, results, y_of, y_fit):
    """How many features are important for every method that scores them, for some and for none: the counts section
    4's "the 2 most important features by how many of the 4 methods find each important: proline (3 of 4) ..."
    rests on (:func:`~imlkit.report._claims.ranked_features`, the same call), which the reading did not state -- wine's
    proline, "3 of 4" in section 4, appeared in the reading only as CFI's first place."""
    ranked = cl.ranked_features(results, y_of=y_of, y_fit=y_fit)
    features = {f for e in ev.values() for f in e if f != OTHERS}
    every = tuple((r.feature, r.important_for, r.n_methods, r.undecided) for r in ranked
                  if r.n_important == r.n_methods)
    some = tuple((r.feature, r.important_for, r.n_methods, r.undecided) for r in ranked
                 if 0 < r.n_important < r.n_methods)
    return cl.Claim("counts", tuple(r.feature for r in ranked), methods=tuple(ev),
                    numbers=dict(methods=tuple(ev), n_features=len(features), every=every, some=some))


def _per_method(ev, kind, keep, top_only=True):
    out = []
    for m, e in ev.items():
        # by rank: the largest first (the most negative last)
        chosen = [x for x in (_top_of(e) if top_only else sorted(e.values(), key=lambda x: x.rank)) if keep(x)]
        if kind == "below_zero":
            chosen = chosen[::-1]  # the most negative first
        if chosen:
            out.append(cl.Claim(kind, tuple(x.feature for x in chosen), methods=(m,), evidence=tuple(chosen),
                                numbers=dict(share=cl.IMPORTANT_SHARE, loss_share=cl.LOSS_SHARE)))
    return out


def _no_yardstick(results, ev, y_of, y_fit=None):
    """``{method: (loss, constant's loss, model's loss)}`` of the methods whose model does not beat the best constant
    prediction in the method's loss on its rows (randhie's counts: a squared-error model and LOCO's absolute error),
    so their numbers carry no share of what the features explain together; SAGE's own yardstick is left out."""
    out = {}
    for m, e in ev.items():
        x = next(iter(e.values()))
        r = results[m]
        if np.isfinite(x.explained) or "v_all" in (getattr(r, "extra", None) or {}) or r.baseline_loss is None:
            continue
        const = cl.best_constant_loss(r.loss, y_of(m), y_fit)
        model = float(r.baseline_loss)
        if np.isfinite(const) and np.isfinite(model) and const <= model:
            out[m] = (str(r.loss), float(const), model)
    return out


def _no_better_numbers(ctx):
    """The "could not be shown to beat the baseline" claim's numbers: the rows, the differences, whether even the
    interval's most favourable end is a small gain (then: "describe noise"), and other models that beat it."""
    check = ctx.model_check
    nums = dict(baseline=check.no_better_than, small_gain=cl.NOISE_GAIN)
    X = getattr(ctx, "X_test", None)
    if X is not None:
        nums["n_rows"] = len(X)
        nums["rows_word"] = getattr(ctx, "eval_rows", "test rows")
        nums["maybe_training"] = getattr(ctx, "evaluation", "split") == "all_rows"
    decision = getattr(check, "decision", None) or {}
    nums["differences"] = {m: tuple(float(v) for v in d["difference"]) for m, d in decision.items()}
    gains = [_gain(d["difference"], m, float(d["baseline"])) for m, d in decision.items()]
    # a deciding measure these rows could not judge may show what the judged ones do not (1,000 classes: the Brier
    # score worse, ROC AUC 0.61 [0.60, 0.62] not judged): then no "noise" (section 2's rule, review rev8 r3-8)
    nums["unjudged"] = [m for m in (getattr(check, "undecided", None) or {}) if m not in decision]
    nums["noise"] = (bool(gains) and all(np.isfinite(g) and g < cl.NOISE_GAIN for g in gains)
                     and not nums["unjudged"])
    # Other models of section 2 (the GLM) that beat the same baseline: {name: (measures,)}, recorded by section 2's
    # verdict (ModelCheck.others_beating_baseline); read with getattr for contexts built without it.
    nums["others"] = dict(getattr(check, "others_beating_baseline", None) or {})
    nums.update(_constant_numbers(ctx, nums["differences"]))
    return nums


def _constant_numbers(ctx, differences):
    """When the model scores exactly as the baseline and predicts one value on every scored row (regression): that
    value ("constant") and, when it is the reason, why it cannot split ("constant_why", :func:`no_split_reason`;
    statsmodels statecrime: min_samples_leaf 20 on 35 training rows) -- for the claim to say so instead of "it may
    predict the same for every row"."""
    from ._shared import constant_prediction, no_split_reason

    flat = bool(differences) and all(tuple(d) == (0.0, 0.0, 0.0) for d in differences.values())
    X, model = getattr(ctx, "X_test", None), getattr(ctx, "model", None)
    if not flat or X is None or model is None or getattr(ctx, "task", None) != "regression":
        return {}
    try:
        one = constant_prediction(np.asarray(model.predict(X)))
    except Exception:  # noqa: BLE001 -- a model that cannot say is not called constant
        return {}
    if one is None:
        return {}
    why = no_split_reason(ctx)
    return {"constant": one, **({"constant_why": why} if why else {})}


def _interactions_claim(ctx, h, h_halves):
    """Section 4's rule of a strong interaction: above ``H_INTERACTION`` in both halves of the H-statistic's rows;
    the features above it on all rows or in one half only are "not distinguishable from it at N rows", with their
    halves (Lag1's H² of 0.11 on 120 rows, halves 0.08 and 0.14, is no strong interaction)."""
    verdicts = {f: h_verdict(f, h, h_halves) for f in h}
    # above it in both halves, but within H_SE_Z bootstrap SEs of it on all rows: not shown to be strong
    strong = sorted((f for f, v in verdicts.items() if v[0] == "strong"), key=lambda f: -verdicts[f][1])
    unsettled = sorted((f for f, v in verdicts.items() if v[0] == "unsettled"), key=lambda f: -verdicts[f][1])
    beyond = sorted((f for f, v in verdicts.items() if v[0] == "beyond"), key=lambda f: -verdicts[f][1])
    if not strong and not unsettled and not beyond:
        return None
    # the strong ones (both halves above) whose own bootstrap SE does not tell them from the threshold (fair's children:
    # H² 0.235, SE 0.137, halves 0.11 and 0.694): (feature, H², SE), for the sentence to say so (_claims renders it)
    # -- they are not "strong interactions" (wide's x2: H² 0.131, SE 0.0191, halves 0.155 and 0.102), so the heading
    # lists only the features that also clear the threshold by that margin; the others are said to be close
    h_se = getattr(ctx.effects, "h_se", None) or {}
    close = [f for f in strong if f in h_se and not h_clears(verdicts[f][1], h_se[f], cl.H_INTERACTION)]
    se_close = tuple((f, float(verdicts[f][1]), float(h_se[f])) for f in close)
    strong = [f for f in strong if f not in close]
    return cl.Claim("interactions", tuple(strong), numbers=dict(se_close=se_close, se_z=H_SE_Z,
        close_halves=tuple(verdicts[f][2] for f in close),
        h2=tuple(verdicts[f][1] for f in strong), halves=tuple(verdicts[f][2] for f in strong),
        unsettled=tuple(unsettled), unsettled_h2=tuple(verdicts[f][1] for f in unsettled),
        unsettled_halves=tuple(verdicts[f][2] for f in unsettled), beyond=tuple(beyond),
        beyond_h2=tuple(verdicts[f][1] for f in beyond), beyond_halves=tuple(verdicts[f][2] for f in beyond),
        n_rows=getattr(ctx.effects, "h_rows", None),
        threshold=cl.H_INTERACTION, probability=getattr(ctx, "task", None) == "classification"))


def reading_claims(ctx):
    """The reading as :class:`Paragraph` records of claims, in the order the report shows them."""
    results = single_features(ctx.importance.compared())
    y_of, y_fit = _y_of(ctx), _y_fit(ctx)
    out = []
    nb = ctx.model_check.no_better_than
    if nb:
        out.append(Paragraph(((cl.Claim("no_better", numbers=_no_better_numbers(ctx)),),)))
    check = ctx.model_check
    undecided = check.undecided  # section 2: measures too few rows could not decide
    if not nb and undecided and not check.deciding and check.baseline:
        out.append(Paragraph(((cl.Claim("too_few", numbers=dict(
            baseline=check.baseline, n_rows=len(ctx.X_test), rows_word=getattr(ctx, "eval_rows", "test rows"),
            why=undecided_words(undecided))),),)))
    unconverged = _unconverged(results, y_of, y_fit)
    if unconverged:
        out.append(Paragraph(tuple((c,) for c in unconverged)))
    ev = _evidence_by_method(results, y_of, y_fit)
    if ev:
        rules = dict(important_share=cl.IMPORTANT_SHARE, negligible_share=cl.NEGLIGIBLE_SHARE,
                     loss_share=cl.LOSS_SHARE)
        if getattr(ctx, "evaluation", "split") == "all_rows":  # a fitted model and one table: LOCO/LOFO refit
            own = "ordered split of the table (its last rows)" if split_is_ordered(ctx) else "seeded split of the table"
            rules["refit_rows"] = f"the scoring rows of the refits' own {own}"
        families = {}
        for m in ev:
            x = next(iter(ev[m].values()))
            fam = cl.family_level(results[m])
            if x.family and fam is not None and not x.tested:
                families[m] = fam
                if fam[0] > len(results[m].feature_names):  # chosen on these rows from more (family_level)
                    rules.setdefault("chosen", {})[m] = len(results[m].feature_names)
        if families:
            rules["families"] = families
        # marginal SAGE of several features sums to its background sample's total, not the rows': the rules
        # sentence gives both numbers (sage7)
        totals = {m: (float(r.extra["v_all"]), cl.sage_total(r.extra), int(r.info["background_rows"]),
                      r.extra["empty"], r.loss in ("squared_error", "brier"))
                  for m, r in results.items() if m in ev and r.extra.get("empty") in ("background", "backgrounds")
                  and "loss_empty_rows" in r.extra and r.info.get("background_rows")}
        if totals:
            rules["sage_totals"] = totals
        unknown = _no_yardstick(results, ev, y_of, y_fit)
        if unknown:
            rules["no_yardstick"] = unknown
        out.append(Paragraph(((cl.Claim("rules", methods=tuple(ev), numbers=rules),),)))
        out.append(Paragraph(((_top_claim(ev),),)))
        flat = _zero_width_claims(ev)
        if flat:
            out.append(Paragraph(tuple((c,) for c in flat)))
        out.append(Paragraph(((_counts_claim(ev, results, y_of, y_fit),),)))
        h = ctx.effects.h_overall
        h_halves = getattr(ctx.effects, "h_halves", None)
        # the partners' |r| on the rows section 1's R² and correlation table read (all rows), not on the test rows:
        # wine's "R² = 0.594 ..., most with proline (|r| = 0.663)" beside section 1's 0.6437
        data = getattr(ctx, "data", None)
        X_dep = data.X if data is not None and hasattr(data, "X") else ctx.X_test
        found = _disagreement_claims(ev, ctx.data_outputs.dependence_r2, h, X_dep, h_halves,
                                     getattr(ctx.effects, "h_se", None))
        if found:
            out.append(Paragraph(tuple((c, *reasons) for c, reasons in found),
                                 title="Where the methods disagree (important for one method; negligible, below 0 or "
                                       "small beside its largest for another; the numbers: estimate, interval, "
                                       "adjusted p-value when tested, share of the method's largest, share of what "
                                       "the features explain together)"))
        elif len(ev) > 1:
            out.append(Paragraph(((cl.Claim("no_disagreement", methods=tuple(ev), numbers=dict(n_found=0)),),)))
        vague = _per_method(ev, "unsettled", _is_unsettled)
        if vague:
            out.append(Paragraph(tuple((c,) for c in vague),
                                 title=f"Among a method's {TOP} largest and at least {cl.pct(cl.IMPORTANT_SHARE)} of "
                                       f"it, but the interval (or adjusted p-value) includes 0: the data do not "
                                       f"settle these"))
        small = _per_method(ev, "small", lambda x: x.above_null() and x.loss_share < cl.LOSS_SHARE)
        if small:
            out.append(Paragraph(tuple((c,) for c in small), title=f"Above 0 but too small to matter (among a "
                                                                   f"method's {TOP} largest)"))
        in_disagreement = {c.features[0] for c, _ in found}
        below = _per_method(ev, "below_zero", lambda x: x.below_null() and x.feature not in in_disagreement,
                            top_only=False)
        if below:
            out.append(Paragraph(tuple((c,) for c in below), title="Below 0"))
        if h is not None:
            claim = _interactions_claim(ctx, h, h_halves)
            if claim is not None:
                out.append(Paragraph(((claim,),)))
    pimp = _pimp_claims(ctx.importance.pimp)
    if pimp:
        out.append(Paragraph(tuple((c,) for c in pimp)))
    return out


def reading_blocks(ctx):
    """Plain-language blocks: the rules, agreement on the top features, disagreements with reasons, PIMP.

    Every sentence is a claim written from its numbers (see :func:`reading_claims`).
    """
    blocks = [heading("Automatic reading")]
    grouped = [k for k, r in ctx.importance.compared().items()
               if OTHERS in [str(f) for f in r.feature_names] and len(r.feature_names) > 1]
    if grouped:
        r = ctx.importance.compared()[grouped[0]]
        members = [str(f) for f in r.groups.get(OTHERS, ())] if getattr(r, "groups", None) else []
        n = len(members)
        who = cl.name_list([cl.label(k) for k in grouped])
        if n == 1:  # one feature under the group's name is that feature, not a group (OJ: 16 features, budget 15)
            blocks.append(text(f"The entry '{OTHERS}', which {who} also scored under the feature budget, is one "
                               f"feature, {members[0]}: its values in the table above are {members[0]}'s alone. The "
                               f"reading below compares the features ranked first by the screen and so does not "
                               f"read {members[0]}; each share of a method's largest is of its largest among them."))
        else:
            held = f" ({n:,} features held together)" if n else ""
            blocks.append(text(f"The group '{OTHERS}'{held}, which {who} also scored under the feature budget, is "
                               f"not one feature: the reading below compares single features, and each share of a "
                               f"method's largest is of its largest single feature; the group's values are in the "
                               f"table above."))
    for para in reading_claims(ctx):
        sentences = [" ".join(c.text() for c in item) for item in para.items]
        if para.title:
            blocks.append(bullets(sentences, title=para.title))
        else:
            blocks += [text(s) for s in sentences]
    return blocks
