"""The automatic reading as claims: each sentence is written from the numbers it carries, and checks them.

A :class:`Claim` is one sentence of the reading (one kind, the features and methods it is about,
and every number that justifies it). :func:`render` writes the sentence *from those numbers* (so
the reader sees them) and :func:`check` verifies the claim against them with the rules below; the
tests walk the reading of every corpus table and check each claim. One method's numbers about one
feature are an :class:`Evidence`.

The rules (stated in the report, above the claims):

- *important* for a method: the interval lies above the null value (or, for a method with a test,
  the adjusted p-value is <= its alpha), the estimate is at least ``IMPORTANT_SHARE`` of the
  method's largest, and at least ``LOSS_SHARE`` of what the features explain together when that is
  known (a LOCO median of 1e-7 is not important, however small its p-value); an estimate that did
  not converge (SAGE) is important for nothing;
- *what the features explain together* (the one yardstick of every share, :func:`explained_loss`):
  the loss without any feature minus the model's loss, in the method's loss on its rows;
- *negligible*: the interval's upper end lies at or below ``NEGLIGIBLE_SHARE`` of the method's
  largest, is not below the null value and is below ``LOSS_SHARE`` of what the features explain
  together, and no test puts it above 0; small beside the largest but not negligible is said as
  such, with the share that matters ("small beside lstat (1.7% of it) but 7.9% of ...");
- *below 0*: the whole interval lies below the null value -- the loss is lower without the
  feature (the model does worse with it, in that method's sense), never called negligible;
- "not explained by linear dependence" only when the feature's R² on the others is below
  ``R2_WEAK``; a dependence story (and "the model takes it from correlated features") only when it
  is at least ``R2_STRONG``, with that R² and the correlated features in the sentence;
- PFI/CFI intervals are the spread over permutations: they cover permutation noise only, not the
  sampling of the data; SAGE's cover the sampling of orderings and of its background rows or conditional draws (not
  of the conditional sampler's fit); LOCO/LOFO's are tests
  over the test rows (given the refitted models);
- every verdict on an interval ("above 0", "below 0", "negligible", a first place) reads it at the
  Bonferroni level over the m entries the method reports, ``1 - (1 - level)/m``, when the method's
  own intervals are marginal (PFI/CFI's t-intervals over repeats, SAGE's normal ones:
  :func:`simultaneous_interval`); LOCO/LOFO's are simultaneous already, and a test's p-values are
  read adjusted (Bonferroni's when the run applied none). The tables keep the marginal intervals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._display import num, p_is, pct, snap_zero
from .._losses import LOG_LOSS_EPS
from ._labels import METHOD_LABELS, OTHERS
from ._scores import worse

__all__ = ["Claim", "Evidence", "evidence", "render", "check", "consistent", "name_list", "num",
           "IMPORTANT_SHARE", "NEGLIGIBLE_SHARE", "LOSS_SHARE", "R2_STRONG", "R2_WEAK", "H_INTERACTION",
           "NOISE_GAIN", "best_constant_loss", "explained_loss", "sage_total", "ranked_features", "ranking_words",
           "no_important_words"]

#: Important: estimate >= this share of the method's largest (and the interval excludes the null).
IMPORTANT_SHARE = 0.10
#: Negligible: the interval's upper end <= this share of the method's largest.
NEGLIGIBLE_SHARE = 0.05
#: Important also needs an estimate >= this share of the model's loss (when the result records it).
LOSS_SHARE = 0.01
#: R² of a feature on the others at or above which the reading tells a dependence story.
R2_STRONG = 0.5
#: R² below which the reading may say a difference is "not explained by linear dependence".
R2_WEAK = 0.25
#: "Describes noise" only when even the most favourable end of the model-minus-baseline interval improves
#: on the baseline's score by less than this share of it (else: "could not be shown to beat it").
NOISE_GAIN = 0.02
#: An unconverged SAGE estimate whose largest standard error is within this multiple of its tolerance is
#: still read (its intervals, built from that standard error, are wider than SAGE aimed for but valid; the
#: reading says so once); beyond it (0.25-0.7 x the range after 64 orderings at --quick) it creates no
#: verdict: no "important", no "first", no disagreement, no place in the ranking.
NEAR_CONVERGED = 2.0
#: An untested interval whose width is at most this share of the estimate's size has width 0 (:attr:`Evidence.
#: zero_width`): conditional SAGE of a single feature came out [683, 683] with a standard error of 1.1e-13.
ZERO_WIDTH_RTOL = 1e-9
#: Overall H² above which a feature is said to interact.
H_INTERACTION = 0.1
#: Friedman's H² of a feature is a share of the centred prediction's variance, at most 1; an estimate above 1 by more
#: than the strong-interaction threshold (0.1) is no share of anything: the part the additive PDs leave is larger than
#: the centred prediction itself (a class whose probability barely varies; 1,000 classes: x16's H² 8.97, halves 8.98
#: and 0.193), so it is no strong interaction (review rev8). A little above 1 is a share near 1 plus sampling noise
#: (y = a·b, a pure interaction: H² 0.999, halves 0.925 and 1.03).
H_SHARE_MAX = 1.1
#: Losses whose baseline (the model's risk) is a loss the importance can be a share of.
POINTWISE_LOSSES = ("squared_error", "absolute_error", "log_loss", "brier", "zero_one")
#: Features named in a list before "and N others".
LIST_MAX = 8

LABELS = METHOD_LABELS
MARGINAL = ("pfi", "sage_marginal")
#: The methods of question 1 (does the fitted model use x_j): a feature all of them put at exactly 0 [0, 0] is unused.
USE_METHODS = ("pfi", "cfi", "sage_marginal")
CONDITIONAL = ("cfi", "sage_conditional", "loco", "lofo")
REFIT = ("loco", "lofo")
#: How each method removes a feature: drawn without regard to the others, drawn given them, or refitted without it.
REMOVAL = {"pfi": "marginal", "sage_marginal": "marginal", "cfi": "conditional", "sage_conditional": "conditional",
           "loco": "refit", "lofo": "refit"}
REMOVAL_WORDS = {"marginal": "both remove it by drawing it without regard to the others",
                 "conditional": "both remove it by drawing it given the others",
                 "refit": "both remove it by refitting the learner without it"}
#: What each method's interval covers (how the sentence names it).
INTERVAL_WORDS = {"pfi": "permutation spread", "cfi": "permutation spread", "sage_marginal": "Monte-Carlo interval",
                  "sage_conditional": "Monte-Carlo interval"}


def label(method):
    return LABELS.get(method, str(method))






def n_others(n):
    """"1 other", "3 others": the tail of a shortened list."""
    return f"{n} other" if n == 1 else f"{n} others"


def name_list(names, k=LIST_MAX):
    """``a, b and c``; beyond ``k``: the first ``k`` "and N others" (the list keeps the caller's order)."""
    names = [str(n) for n in names]
    if len(names) > k:
        return f"{', '.join(names[:k])} and {n_others(len(names) - k)}"
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


# --------------------------------------------------------------------------- evidence
#: Beyond this multiple of what the features explain together a share is not printed as a percentage
#: (the yardstick is then tiny: the model barely beats a constant in that loss).
SHARE_MAX = 10.0


def best_constant_loss(loss, y, fitted_on=None):
    """The loss of the best constant prediction on the rows ``y``, in the pointwise loss ``loss``.

    squared error: the variance of ``y`` (the mean); absolute error: the mean distance to the
    median; log loss: the entropy of the class frequencies; Brier (summed over classes):
    ``1 - sum_k p_k**2``; zero-one: ``1 - max_k p_k``. NaN for another loss or no rows.

    ``fitted_on``: the target of the rows the constant is fitted on (the training rows: what a model without
    features learns), scored on ``y``. Without it the constant is fitted on ``y`` itself -- the best constant
    *in hindsight*, which no model could have chosen without the labels it is scored on: lower than any fitted
    constant's loss, most of all when ``y`` lacks a class of the training rows (the in-hindsight constant gives
    it probability 0, the model and every refit must not), which shrinks the yardstick and inflates every share
    of it (sklearn's wine, test rows of two of the three classes: PFI of proline 131% of what the features
    explain together in hindsight, 74% against the training rows' class frequencies).
    """
    if y is None or loss not in POINTWISE_LOSSES:
        return math.nan
    y = np.asarray(y)
    if not len(y):
        return math.nan
    fit = y if fitted_on is None else np.asarray(fitted_on)
    if not len(fit):
        return math.nan
    if loss in ("squared_error", "absolute_error"):
        v = y.astype(float)
        v = v[np.isfinite(v)]
        f = fit.astype(float)
        f = f[np.isfinite(f)]
        if not len(v) or not len(f):
            return math.nan
        if loss == "squared_error":
            return float(np.mean((v - f.mean()) ** 2))
        return float(np.mean(np.abs(v - np.median(f))))
    names, counts = np.unique(fit.astype(str), return_counts=True)
    p = dict(zip(names, counts / counts.sum()))
    ys = y.astype(str)
    p_true = np.array([p.get(c, 0.0) for c in ys])
    if loss == "log_loss":
        return float(np.mean(-np.log(np.clip(p_true, LOG_LOSS_EPS, 1.0))))  # the clip of the report's scores
    if loss == "brier":
        return float(np.mean(sum(q * q for q in p.values()) - 2.0 * p_true + 1.0))
    mode = names[int(np.argmax(counts))]
    return float(np.mean(ys != mode))


def sage_total(extra):
    """SAGE's "what the features explain together": the loss of the model's mean prediction over the rows minus the
    model's, from a result's ``extra``.

    ``extra["loss_empty_rows"] - (extra["loss_empty"] - extra["v_all"])`` when recorded, else ``v_all``. The two
    agree when the run took f_∅ from the rows (conditional SAGE, one feature: its values then sum to it exactly);
    marginal SAGE of several features takes f_∅ from its background rows (a feature the model does not use is then
    exactly 0), and its values sum to ``v_all``, the loss of that sample's mean prediction minus the model's, which
    misses the rows' total by the background's sampling (digits, log loss, 32 rows: 2.41 for 2.23). The total divided
    by is the one the sentence names, not the sample's.
    """
    v = float(extra["v_all"])
    rows, empty = extra.get("loss_empty_rows"), extra.get("loss_empty")
    if rows is None or empty is None:
        return v
    total = float(rows) - (float(empty) - v)
    return total if math.isfinite(total) else v


def explained_loss(result, y=None, y_fit=None):
    """The yardstick of every "share of the loss" in the reading: what the features explain together.

    ``L(no feature) - L(model)`` in the method's own loss, on the rows the method used: for SAGE
    the loss of the model's mean prediction over those rows minus the model's (:func:`sage_total`; the values of
    conditional SAGE, and of a single feature, sum to it exactly); for the other methods the loss of the best constant
    prediction on the rows ``y`` (:func:`best_constant_loss`) minus the model's loss there
    (``result.baseline_loss``) -- fitted on ``y_fit``, the training rows' target, when given (see
    :func:`best_constant_loss`: a constant in hindsight on ``y`` makes the yardstick too small). NaN when it
    cannot be known (a score or custom loss, no rows) or
    when the model does not beat the constant in that loss (<= 0: nothing to take a share of).

    Why this yardstick and not the model's loss: one importance is a loss *difference*; the model's
    own loss is no scale for it (a near-perfect model with log loss 0.007 made every SAGE value
    "9343% of the model's loss", and a model no better than the mean made every value a small share
    of a large loss). What the features explain together is the total any removal can cost for
    SAGE (whose values sum to it, exactly or up to its background's sampling) and the natural unit for the others,
    the same concept for every method; the report states it next to each share.
    """
    extra = getattr(result, "extra", None) or {}
    if "v_all" in extra:
        v = sage_total(extra)
        return v if math.isfinite(v) and v > 0 else math.nan
    base = result.baseline_loss
    if base is None or not np.isfinite(base):
        return math.nan
    v = best_constant_loss(result.loss, y, y_fit) - float(base)
    return v if math.isfinite(v) and v > 0 else math.nan


@dataclass(frozen=True)
class Evidence:
    """One method's numbers about one feature, measured from the method's null value (0; 1 for a ratio).

    ``estimate``, ``low``, ``high``: importance and interval minus the null value (NaN: no
    interval); ``largest``: the method's largest |estimate|, of ``largest_feature``; ``loss``:
    the model's loss the result records (NaN for a score or an unknown loss); ``explained``: what
    the features explain together (:func:`explained_loss`, the yardstick of ``loss_share``; NaN
    unknown); ``p_adjusted`` (NaN without a test) and ``alpha``; ``rank``: 1 = the method's
    largest; ``converged``/``ratio``/``n_orderings``/``tolerance``: SAGE's convergence (largest
    SE / range of the values after ``n_orderings`` orderings).
    """

    method: str
    feature: str
    estimate: float
    low: float
    high: float
    largest: float
    null: float = 0.0
    loss: float = math.nan
    p_adjusted: float = math.nan
    alpha: float = 0.05
    rank: int = 0
    explained: float = math.nan
    largest_feature: str = ""
    #: The method's largest |estimate| is a value below 0 (its "largest" is then a size, not a first place).
    largest_below: bool = False
    converged: bool = True
    ratio: float = math.nan
    n_orderings: int = 0
    tolerance: float = math.nan
    #: The table's (marginal) interval minus the null value; ``low``/``high`` are then at the Bonferroni level over
    #: ``family`` entries (``family_level`` = 1 - (1 - level)/family); ``family`` 0: ``low``/``high`` are the
    #: method's own (simultaneous or tested) interval.
    marginal_low: float = math.nan
    marginal_high: float = math.nan
    family: int = 0
    family_level: float = math.nan
    #: SAGE: where its prediction without any feature came from ("rows": the mean over the rows it used;
    #: "background": over its background rows); "" for the other methods.
    empty: str = ""
    #: CFI / conditional SAGE whose rows drew from their own leaves of fewer than imlkit.samplers.MIN_LEAF_ROWS rows
    #: (``extra["sampler_shrinks"]``; the result's warning says so): shrunk towards 0 and possibly below it, so the
    #: value is never read as negligible, small beside the largest or below 0 (an interval above 0 still is).
    shrunk: bool = False

    @property
    def readable(self):
        """Converged, or short of it by at most ``NEAR_CONVERGED`` x the tolerance: its verdicts may be read."""
        if self.converged:
            return True
        return math.isfinite(self.ratio) and math.isfinite(self.tolerance) and \
            self.ratio <= NEAR_CONVERGED * self.tolerance

    @property
    def share(self):
        """Estimate / the method's largest."""
        return self.estimate / self.largest if self.largest > 0 else math.nan

    def _of_explained(self, v):
        if not self.explained > 0:
            return math.nan
        if self.null == 1.0:  # a ratio L_without / L_model: (ratio - 1) * L_model is the loss difference
            return v * self.loss / self.explained if self.loss > 0 else math.nan
        return v / self.explained

    @property
    def loss_share(self):
        """Estimate / what the features explain together (NaN when that is unknown)."""
        return self._of_explained(self.estimate)

    @property
    def high_share(self):
        """The interval's upper end / what the features explain together."""
        return self._of_explained(self.high)

    @property
    def has_interval(self):
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def tested(self):
        return math.isfinite(self.p_adjusted)

    @property
    def zero_width(self):
        """An untested interval of width 0 (up to rounding) around a non-zero estimate: it decides no side of 0.

        SAGE's interval covers its own Monte-Carlo sampling (of orderings, and of rows within the rows it read), PFI's
        and CFI's the spread over permutations; none covers the sampling of the data. Where no ordering is left to
        sample -- one feature, whose single ordering gives SAGE exactly the loss of the model's mean prediction over
        these rows minus the model's (no background row enters it); SAGE computed over every coalition, whose
        coalitions between none and all still average a sample of background rows -- the width is 0, and "the
        interval lies above 0" is only the sign of the estimate, however small and whatever the rows (a one-feature
        table: SAGE of bmi 637 [637, 637], "important" by that rule alone). Such an interval is no evidence for a
        side: the verdicts "above 0" and "below 0" do not read it (:meth:`above_null`, :meth:`below_null`), so the
        method does not count the feature important (or below 0), and the reading says why (``zero_width`` claims).
        An estimate of exactly 0 with width 0 (a feature whose every credit is 0: the model does not use it) stays
        what it is, 0."""
        if self.tested or not self.has_interval or self.estimate == 0:
            return False
        scale = max(abs(self.estimate), self.largest if math.isfinite(self.largest) else 0.0)
        return self.high - self.low <= ZERO_WIDTH_RTOL * scale

    def significant(self):
        """A test puts it above 0 (adjusted p <= alpha)."""
        return self.tested and self.p_adjusted <= self.alpha and self.estimate > 0

    def above_null(self):
        """The method's uncertainty says the importance is above its null value (never an interval of width 0:
        :attr:`zero_width`)."""
        if self.tested:
            return self.significant()
        return self.has_interval and self.low > 0 and not self.zero_width

    def below_null(self):
        """The whole interval lies below the null value (the loss is lower without the feature); never an interval
        of width 0 (:attr:`zero_width`)."""
        return self.has_interval and self.high < 0 and not self.zero_width and not self.shrunk

    def practical(self):
        """Large enough to matter: a share of the method's largest and of what the features explain."""
        big = self.share >= IMPORTANT_SHARE
        return big and (not math.isfinite(self.loss_share) or self.loss_share >= LOSS_SHARE)

    def important(self):
        return self.readable and self.above_null() and self.practical()

    def relatively_small(self):
        """The interval's upper end lies between 0 and ``NEGLIGIBLE_SHARE`` of the method's largest (the
        interval may reach below 0: the value is then not told apart from 0, and at most small)."""
        return (self.has_interval and self.largest > 0 and 0 <= self.high
                and self.high <= NEGLIGIBLE_SHARE * self.largest and not self.shrunk)

    def negligible(self):
        """Small beside the largest *and* in absolute terms: the interval's upper end below ``LOSS_SHARE``
        of what the features explain together (when that is known) and no test puts it above 0."""
        if not self.relatively_small() or self.significant():
            return False
        return not math.isfinite(self.high_share) or self.high_share < LOSS_SHARE

    def small_beside(self):
        """Relatively small (:meth:`relatively_small`) but not negligible: a share of the loss that matters
        or a significant test -- "small beside the largest, but ..."."""
        return self.relatively_small() and not self.negligible() and not self.important()

    def share_words(self):
        """This estimate as a share of what the features explain together, said so that it means something."""
        s = self.loss_share
        if not math.isfinite(s):
            return ""
        if abs(s) > SHARE_MAX:
            return f"{num(s)} times what the features explain together ({num(self.explained)})"
        return f"{pct(s)} of what the features explain together"

    def p_words(self):
        """The adjusted p-value beside the level it is judged at: LOCO's one-sided test rejects at 0.025 for a 95%
        level, so "adjusted p = 0.0392" alone reads as significant to a reader who assumes 0.05."""
        side = "at most" if self.p_adjusted <= self.alpha else "above"
        return f"adjusted p {p_is(self.p_adjusted)}, {side} the level {num(self.alpha)}"

    def words(self):
        """The numbers as the sentences show them: value, interval (named by what it covers), p, size."""
        shift = self.null
        out = [num(self.estimate + shift)]
        if self.has_interval:
            out.append(f"{INTERVAL_WORDS.get(self.method, 'interval')}{self.family_words()} [{num(self.low + shift)}, "
                       f"{num(self.high + shift)}]")
            if self.family and not self.tested and (self.marginal_low > 0) != (self.low > 0):
                # the table's interval clears 0 where the simultaneous one does not: both, so the reader sees why
                out.append(f"marginal [{num(self.marginal_low + shift)}, {num(self.marginal_high + shift)}]")
        else:
            out.append("no interval")
        if self.tested:
            out.append(self.p_words())
        if self.straddles_below():
            # a share of an estimate below 0 whose interval reaches above 0 ("-0.26% of its largest" beside
            # [-2.22, 1.99]) says nothing; the upper end's share is what the verdicts read
            if self.largest > 0:
                out.append(f"upper end {pct(self.high / self.largest)} of {self.largest_words()}")
            if math.isfinite(self.high_share):
                out.append(f"upper end {pct(self.high_share)} of what the features explain together")
            return ", ".join(out)
        if math.isfinite(self.share):
            out.append(f"{pct(self.share)} of {self.largest_words()}")
        if self.share_words():
            out.append(self.share_words())
        return ", ".join(out)

    def family_words(self):
        """" simultaneous over 16" when the interval is the reading's Bonferroni-level one (see the rules)."""
        return f" simultaneous over {self.family}" if self.family and not self.tested else ""

    def straddles_below(self):
        """An estimate at or below 0 whose interval reaches above 0: not told apart from 0."""
        return self.has_interval and self.estimate <= 0 < self.high and self.low < 0

    def largest_words(self):
        """What "its largest" is: the method's largest value, or -- when the largest |value| is below 0 (statecrime's
        PFI of single, -1.09, beside hs_grad's 0.507 ranked first) -- that size, named, so "47% of its largest" does
        not read as a first place at half of another positive value."""
        if not self.largest_below:
            return "its largest"
        who = f"the group '{OTHERS}'" if self.largest_feature == OTHERS else self.largest_feature or "a feature"
        return f"its largest |value| ({who}: {num(self.null - self.largest)}, below {num(self.null)})"

    def small_words(self):
        """Why a relatively small value is not negligible, from its numbers."""
        why = []
        if math.isfinite(self.high_share) and self.high_share >= LOSS_SHARE:
            why.append(self.share_words() if math.isfinite(self.loss_share) and self.loss_share >= LOSS_SHARE
                       else f"its interval reaches {pct(self.high_share)} of what the features explain together")
        if self.significant():
            why.append(self.p_words())
        if self.largest_feature == OTHERS:  # the budget's group named as one, not "small beside all other features"
            who = f"the group '{OTHERS}'"
        elif self.largest_below:
            who = self.largest_words()
        else:
            who = self.largest_feature or "its largest"
        if self.estimate <= 0:
            # "small beside Outstate (-0.26% of it) but its interval reaches 1.6% ..." (College, SAGE of Books): a
            # negative share beside an interval reaching above 0 -- what is known is the upper end
            why = [w.replace("its interval reaches", "that upper end is") for w in why]
            tail = f", though {' and '.join(why)}" if why else ""
            return (f"not told apart from 0 and at most small beside {who} (its interval's upper end is "
                    f"{pct(self.high / self.largest)} of it){tail}")
        tail = f", though {' and '.join(why)}" if why else ""
        return f"small beside {who} ({pct(self.share)} of it){tail}"


def _critical(level, df=None):
    """The two-sided critical value of a ``level`` interval: Student's t with ``df`` degrees of freedom, or normal."""
    from scipy import special

    q = 0.5 + float(level) / 2.0
    return float(special.stdtrit(df, q)) if df else float(special.ndtri(q))


def family_level(result):
    """``(m, level, simultaneous level)`` of a result whose per-feature intervals are marginal, else None.

    PFI's and CFI's t-intervals over repeats and SAGE's normal intervals are each at ``confidence_level`` on their
    own: over m features about ``(1 - level) / 2`` of the features with no importance have an interval above 0 by
    chance (a 2,000-column table: conditional SAGE called two of 16 noise entries important). The reading judges
    them at the Bonferroni level ``1 - (1 - level) / m`` over the m entries the method reports, as LOCO's own
    simultaneous intervals are. None for a tested result whose p-values are adjusted, for intervals the method made
    simultaneous itself (LOCO/LOFO's ``interval_adjust``) and for a single entry.

    A result whose entries were chosen on the rows it read (the feature budget's screen on the rows of a fitted model
    scored on one table: ``info["chosen_from"]``, the number screened) is read at the Bonferroni level over every
    screened feature: the union bound holds whatever chose the entries, so the choice is covered.
    """
    params, info = getattr(result, "params", None) or {}, getattr(result, "info", None) or {}
    if info.get("interval_adjust") or info.get("p_adjust_applied"):
        return None
    if getattr(result, "p_adjusted", None) is not None and not ("p_adjust" in params and params["p_adjust"] is None):
        return None  # adjusted (a result that does not record its adjustment is taken at its word)
    m = max(len(getattr(result, "feature_names", ())), int(info.get("chosen_from", 0)))
    if m < 2:
        return None
    level = float(params.get("confidence_level", 0.95))
    return m, level, 1.0 - (1.0 - level) / m


def simultaneous_interval(result):
    """``(low, high)`` of ``result`` at the Bonferroni level over its m entries (:func:`family_level`), from the
    interval's half-width: the marginal half-width is ``c(level) x SE`` (t with r - 1 degrees of freedom for PFI/CFI's
    r repeats, normal for SAGE), so the simultaneous one is ``c(1 - (1 - level) / m) x SE``. The stored interval when
    it is already simultaneous, or not symmetric about the estimate (it cannot be rescaled)."""
    low, high = np.asarray(result.ci_low, dtype=float), np.asarray(result.ci_high, dtype=float)
    fam = family_level(result)
    if fam is None or result.p_adjusted is not None:  # a test's verdict is its p-value (Bonferroni-adjusted here)
        return low, high
    m, level, sim = fam
    est = np.asarray(result.importance, dtype=float)
    ok = np.isfinite(low) & np.isfinite(high)
    scale = max(1.0, float(np.max(np.abs(est[np.isfinite(est)])))) if np.isfinite(est).any() else 1.0
    if not np.allclose(((low + high) / 2)[ok], est[ok], rtol=1e-7, atol=1e-9 * scale):
        return low, high
    reps = getattr(result, "repeats", None)
    df = None
    if result.method in ("pfi", "cfi") and reps is not None and np.ndim(reps) == 2 and np.shape(reps)[1] >= 2:
        df = np.shape(reps)[1] - 1
    factor = _critical(sim, df) / _critical(level, df)
    half = (high - low) / 2 * factor
    return est - half, est + half


def evidence(result, y=None, y_fit=None):
    """``{feature: Evidence}`` of one ImportanceResult (empty when it has no finite, non-zero value).

    ``y``: the target on the rows the method used, ``y_fit`` the training rows' (for the yardstick,
    :func:`explained_loss`). ``low``/``high``
    are the interval the verdicts read: at the Bonferroni level over the method's entries when its own intervals
    are marginal (:func:`simultaneous_interval`); ``marginal_low``/``marginal_high`` the table's.
    """
    null = 1.0 if result.params.get("relation") == "ratio" else 0.0
    eff = np.asarray(result.importance, dtype=float) - null
    sim_low, sim_high = simultaneous_interval(result)
    low, high = sim_low - null, sim_high - null
    m_low = np.asarray(result.ci_low, dtype=float) - null
    m_high = np.asarray(result.ci_high, dtype=float) - null
    fam = family_level(result)
    # the family is the reading's when it changed something: the interval rescaled or the p-values adjusted
    if fam is not None and result.p_adjusted is None and np.array_equal(sim_low, np.asarray(result.ci_low, float),
                                                                        equal_nan=True):
        fam = None
    # rounding noise (a LOCO median of 1e-13 beside a loss of 0.05) is 0, as in the table
    finite = np.concatenate([a[np.isfinite(a)] for a in (eff, low, high)])
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    base = result.baseline_loss
    if null == 0.0 and base is not None and np.isfinite(base):
        scale = max(scale, abs(float(base)))
    eff, low, high, m_low, m_high = (snap_zero(a, scale) for a in (eff, low, high, m_low, m_high))
    if not eff.size or not np.isfinite(eff).any():
        return {}
    largest = float(np.nanmax(np.abs(eff)))
    if not largest > 0:
        return {}
    p = (np.full(eff.shape, np.nan) if result.p_adjusted is None
         else np.asarray(result.p_adjusted, dtype=float))
    if fam is not None and result.p_adjusted is not None:  # a test run without a correction: Bonferroni's here
        p = np.minimum(1.0, p * fam[0])
    if result.loss not in POINTWISE_LOSSES:
        loss = math.nan  # a score or a custom loss: no loss to take a share of
    else:
        loss = float(base) if base is not None and np.isfinite(base) and base > 0 else math.nan
    explained = explained_loss(result, y, y_fit)
    order = np.argsort(-np.where(np.isfinite(eff), eff, -np.inf), kind="stable")
    rank = np.empty(len(eff), dtype=int)
    rank[order] = np.arange(1, len(eff) + 1)
    alpha = float(result.params.get("alpha", 0.05))
    names = [str(f) for f in result.feature_names]
    j_top = int(np.nanargmax(np.abs(eff)))
    top, top_below = names[j_top], bool(eff[j_top] < 0)
    extra = getattr(result, "extra", None) or {}
    conv = dict(converged=bool(extra.get("converged", True)), ratio=float(extra.get("ratio", math.nan)),
                n_orderings=int(extra.get("n_permutations", 0) or 0),
                tolerance=float(result.params.get("tolerance", math.nan) or math.nan))
    return {f: Evidence(method=result.method if result.method in LABELS else str(result.method),
                        feature=f, estimate=float(eff[j]), low=float(low[j]), high=float(high[j]),
                        largest=largest, null=null, loss=loss, p_adjusted=float(p[j]), alpha=alpha,
                        rank=int(rank[j]), explained=explained, largest_feature=top,
                        largest_below=top_below, marginal_low=float(m_low[j]), marginal_high=float(m_high[j]),
                        family=0 if fam is None else fam[0], family_level=math.nan if fam is None else fam[2],
                        empty=str(extra.get("empty", "")), shrunk=bool(extra.get("sampler_shrinks", False)),
                        **conv)
            for j, f in enumerate(names)}


# --------------------------------------------------------------------------- claims
@dataclass(frozen=True)
class Claim:
    """One sentence of the reading and the numbers that justify it.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    features : tuple of str
    methods : tuple of str
        The methods the sentence speaks for (for ``disagreement``: the methods that find the
        feature important; ``low`` holds the others).
    evidence : tuple of Evidence
        The methods' numbers the sentence shows (``disagreement``: of ``methods`` then ``low``).
    low : tuple of str
        ``disagreement``: the methods for which the feature is negligible or below 0.
    numbers : dict
        Other numbers (R², H², |r|, thresholds, PIMP's p-values and floors, ...).
    """

    kind: str
    features: tuple = ()
    methods: tuple = ()
    evidence: tuple = ()
    low: tuple = ()
    numbers: dict = field(default_factory=dict)

    def text(self):
        return render(self)

    def check(self):
        return check(self)

    def verdicts(self):
        """``{(feature, method): verdict}`` this claim asserts; two claims in a paragraph must agree."""
        out = {}
        if self.kind == "disagreement":
            out.update({(e.feature, e.method): "important" if e.method in self.methods else "not important"
                        for e in self.evidence})
        elif self.kind == "zero_width":
            out.update({(e.feature, e.method): "not decided" for e in self.evidence})
        elif self.kind in ("unsettled", "small", "below_zero"):
            out.update({(e.feature, e.method): "not important" if self.kind == "below_zero" else self.kind
                        for e in self.evidence})
        elif self.features:  # the reasons name the methods on each side in their numbers
            for side, verdict in (("high", "important"), ("low", "not important")):
                out.update({(self.features[0], m): verdict for m in self.numbers.get(side, ())})
        return out


def _ev(claim, method=None, feature=None):
    return [e for e in claim.evidence if (method is None or e.method == method)
            and (feature is None or e.feature == feature)]


# ----- rendering
def _r_rules(c):
    n, present = c.numbers, set(c.methods)
    covers = []
    perm = [label(m) for m in ("pfi", "cfi") if m in present]
    if perm:
        covers.append(f"{' and '.join(perm)} intervals are the spread over permutations: they cover permutation "
                      f"noise only, not the sampling of the data.")
    # marginal SAGE draws its background afresh for every ordering (sage8), so its intervals cover those rows' sampling
    # too; conditional SAGE's draws are taken per ordering as well, but the sampler's fit to these rows is one
    if "sage_marginal" in present:
        covers.append(f"{label('sage_marginal')}'s intervals cover the sampling of feature orderings and of the "
                      f"background rows its coalitions of several features average over: each ordering draws its own "
                      f"(every row when there are no more rows than the background's size).")
    if "sage_conditional" in present:
        covers.append(f"{label('sage_conditional')}'s intervals cover the sampling of feature orderings and of its "
                      f"conditional draws, not that of the sampler's fit to these rows, which moves how the total is "
                      f"split among the features.")
    refit = [label(m) for m in REFIT if m in present]
    if refit:
        covers.append(f"{' and '.join(refit)} intervals come from a test over {n.get('refit_rows', 'the test rows')}.")
    unknown = n.get("no_yardstick") or {}
    if unknown:
        # the shares of the yardstick vanish from these methods' numbers: say why, with the two losses
        items = [f"{label(m)} ({loss}: the constant's {num(const)} against the model's {num(model)})"
                 for m, (loss, const, model) in unknown.items()]
        covers.append(f"For {name_list(items)} the model does not beat the training rows' best constant in that "
                      f"loss on the method's rows, so nothing is explained to take a share of: no share of what the "
                      f"features explain together is given there, and only the share of the method's largest |value| "
                      f"applies.")
    families = n.get("families") or {}
    if families:
        # PFI/CFI/SAGE intervals are each at their level alone: over m entries about (1 - level)/2 of those with no
        # importance clear 0 by chance, so the verdicts read them at the Bonferroni level (LOCO's are simultaneous)
        chosen = n.get("chosen") or {}  # {method: entries shown} of those chosen on these rows (family_level)
        items = [f"{label(m)} over its {k:,} entries at {_level(sim)}" if m not in chosen else
                 f"{label(m)} over the {k:,} features its {chosen[m]:,} entries were chosen from, at {_level(sim)}"
                 for m, (k, level, sim) in families.items()]
        levels = {level for k, level, sim in families.values()}
        marg = _level(next(iter(levels))) if len(levels) == 1 else "their level"
        chance = pct((1 - max(levels)) / 2)
        covers.append(f"The table's intervals of {name_list([label(m) for m in families])} are marginal: each is at "
                      f"{marg} for its feature alone, so over many features about {chance} "
                      f"of those whose importance on these rows is 0 would clear 0 by chance. The verdicts here "
                      f"read them at the Bonferroni level over the entries the method reports (1 - (1 - level)/m): "
                      f"{name_list(items)}; "
                      f"these are the intervals below marked \"simultaneous over m\".")
    return (f"How to read this: a feature is called important for a method when the method's interval (or "
            f"adjusted p-value) puts it above 0, it is at least {pct(n['important_share'])} of the method's largest "
            f"|value| and at least {pct(n['loss_share'])} of what the features explain together; negligible when "
            f"its interval's upper end lies between 0 and {pct(n['negligible_share'])} of the method's largest |value| "
            f"and below {pct(n['loss_share'])} of what the features explain together, and no test puts it above 0. "
            f"What the features explain together is the loss without any feature minus the model's loss, in the "
            f"method's loss on the rows it used: the loss of the best constant fitted on the training rows (what a "
            f"model without features learns) minus the model's ({_sage_total_words(present, n)}). "
            + " ".join(covers))


def _sage_total_words(present, n):
    """What SAGE's yardstick is and what its values sum to (:func:`sage_total`), for the SAGE methods present;
    ``n["sage_totals"]`` (``{method: (sum of its values, total, background rows)}``), when given, adds the numbers."""
    out = "for SAGE, the loss of the model's mean prediction over the rows it used minus the model's"
    sage = [m for m in ("sage_conditional", "sage_marginal") if m in present]
    if not sage:
        return out
    totals = n.get("sage_totals") or {}
    parts = []
    if "sage_conditional" in present:
        parts.append(f"{label('sage_conditional')}'s values sum to it exactly")
    if "sage_marginal" in present:
        own = totals.get("sage_marginal")
        gap = (f" (here {num(own[0])} over {own[2]:,} background rows against {num(own[1])})"
               if own and not math.isclose(own[0], own[1], rel_tol=1e-9, abs_tol=0.0) else "")
        head = (f"{label('sage_marginal')}'s for a single feature too" if parts else
                f"{label('sage_marginal')}'s values sum to it exactly for a single feature")
        if own and len(own) > 3 and own[3] == "backgrounds":
            # a fresh background per ordering (sage8): the sum is the mean over the orderings of their backgrounds'
            # totals, corrected (squared error, Brier) for the variance of a B-row mean
            fixed = (f", corrected for the variance of a {own[2]:,}-row mean so that it estimates this total without "
                     f"bias" if own[4] else "")
            parts.append(f"{head}; with several features each ordering takes the prediction without any feature from "
                         f"its own {own[2]:,} background rows, drawn afresh (so that a feature the model does not use "
                         f"gets exactly 0), and its values sum to the mean over the orderings of the loss of their "
                         f"background's mean prediction minus the model's{fixed} (here {num(own[0])} against "
                         f"{num(own[1])})")
            return out + ": " + "; ".join(parts)
        parts.append(f"{head}; with several features it takes the prediction without any feature from its background "
                     f"rows (so that a feature the model does not use gets exactly 0), and its values sum to the loss "
                     f"of that sample's mean prediction minus the model's, which differs from this total by the "
                     f"sampling of those rows{gap}")
    return out + ": " + "; ".join(parts)


def _level(v):
    """A confidence level as a percentage with the digits that tell it from 100% (0.996875 -> "99.69%")."""
    p = 100 * float(v)
    miss = 100 - p
    d = max(0, math.ceil(-math.log10(miss)) + 1) if miss > 0 else 0
    t = f"{p:.{d}f}"
    return (t.rstrip("0").rstrip(".") if "." in t else t) + "%"


def _r_no_better(c):
    n = c.numbers
    rows_word = n.get("rows_word", "test rows")
    rows = f" on {n['n_rows']:,} {rows_word}" if n.get("n_rows") else ""
    if rows and n.get("maybe_training"):  # a fitted model and one table: these rows may have fitted the model
        rows += " (rows it may have been fitted on, where a model looks its best)"
    diffs = "; ".join(f"{m} {num(v)} [{num(lo)}, {num(hi)}]" for m, (v, lo, hi) in n.get("differences", {}).items())
    diffs = f" (the model minus the baseline: {diffs})" if diffs else ""
    s = f"Read this with care: the model could not be shown to beat the {n['baseline']} baseline{rows}{diffs}. "
    # a measure whose whole interval favours the baseline shows the model worse there (Smarket: Brier score 0.132
    # [0.0662, 0.193] above the majority class's), which "could not be shown to beat" alone leaves unsaid
    lost = [m for m, d in (n.get("differences") or {}).items() if worse(d, m)]
    if lost:
        s += (f"On {name_list(lost)} the whole interval favours the baseline: there the model is worse than the "
              f"{n['baseline']} baseline. ")
    flat = n.get("differences") and all(v == lo == hi == 0 for v, lo, hi in n["differences"].values())
    if flat:
        # the value and, when it is the reason, why the model cannot split (statecrime: HGB's min_samples_leaf = 20
        # on 35 training rows) -- passed by the reading as "constant" / "constant_why" (sect7)
        one, why = n.get("constant"), n.get("constant_why")
        if one is not None:
            s += (f"The model scores exactly as the baseline on every measure, with no spread: it predicts the same "
                  f"value, {num(one)}, for every one of these rows{f' ({why})' if why else ''}, so the importances "
                  f"below have nothing to describe.")
        else:
            s += ("The model scores exactly as the baseline on every measure, with no spread (it may predict the "
                  "same for every row): the importances below have nothing to describe.")
    elif n.get("noise"):
        # every interval wholly on the baseline's side (star98's proportion, a user's MLPRegressor: RMSE difference
        # 0.0873 [0.0312, 0.147]) is no gain "by less than 2%": the model is worse at every end of every interval
        if lost and len(lost) == len(n["differences"]):
            s += ("Even the end of each interval most in the model's favour is worse than the baseline (no gain at "
                  "all), so the importances below describe noise (how a model that predicts worse than the "
                  "baseline reacts to its features), not structure in the data.")
        else:
            s += (f"Even the end of each interval most in the model's favour improves on the baseline by less than "
                  f"{pct(n['small_gain'])} of the baseline's score, so the importances below describe noise (how the "
                  f"model reacts to features that do not help it predict), not structure in the data.")
    elif n.get("unjudged") and lost and len(lost) == len(n["differences"]):
        u = n["unjudged"]
        s += (f"{name_list(u)} {'were' if len(u) > 1 else 'was'} not judged (too few {rows_word}) and may show what "
              f"{name_list(lost)} does not, so this is no sign that the model learned nothing: read the importances "
              f"below as what the model does, not as structure the data confirm.")
    else:
        which = "The other intervals" if lost else "The intervals"
        s += (f"{which} also allow a real improvement, so this says these {rows_word} cannot show one, not that "
              f"there is none: read the importances below as what the model does, not as structure the data confirm.")
    others = n.get("others") or {}
    if others:
        s += " " + "; ".join(f"{name} does beat the baseline on {name_list(ms)}" for name, ms in others.items()) + "."
    return s


def _r_too_few(c):
    n = c.numbers
    rows_word = n.get("rows_word", "test rows")
    return (f"Read this with care: there are too few {rows_word} to decide whether the model beats the "
            f"{n['baseline']} baseline ({n['why']}), so section 2 takes no verdict: the importances below describe "
            f"what the model does on these rows, not structure the data are shown to confirm.")


def _c_too_few(c):
    n = c.numbers
    bad = [] if n.get("baseline") else ["no baseline named"]
    if not n.get("why"):
        bad.append("'too few rows' without the rule and the numbers behind it")
    return bad


def unsettled_first(first, second):
    """The first and the second of a method whose intervals overlap: the intervals do not settle the first place."""
    return (second is not None and first.has_interval and second.has_interval and first.low <= second.high)


def _overlaps(c):
    """" For PFI the first place is not settled: ..." -- each method whose first and second intervals overlap."""
    seconds = c.numbers.get("second") or (None,) * len(c.evidence)
    items = [f"{label(e.method)}{e.family_words()}: {e.feature} {num(e.estimate + e.null)} [{num(e.low + e.null)}, "
             f"{num(e.high + e.null)}], {s.feature} {num(s.estimate + s.null)} [{num(s.low + s.null)}, "
             f"{num(s.high + s.null)}]" for e, s in zip(c.evidence, seconds) if unsettled_first(e, s)]
    if not items:
        return ""
    return (f" The intervals do not settle the first place where the first and the second overlap "
            f"({'; '.join(items)}).")


def _bracket(e):
    """``[low, high]`` of an evidence's interval on the method's scale."""
    return f"[{num(e.low + e.null)}, {num(e.high + e.null)}]"


def _none_above(e):
    """A method's first place whose value is not above 0 while its interval does not lie wholly below 0 (nor has width
    0): the method puts no feature above 0, so it has no first feature to name (credit card's CFI: INCOMESQ 0 [0, 0],
    every other feature at or below 0)."""
    return not e.estimate > 0 and not e.below_null() and not e.zero_width


def _r_top(c):
    none = [i for i, e in enumerate(c.evidence) if _none_above(e)]
    if none:
        ms = [c.evidence[i] for i in none]
        said = (f"{name_list([label(e.method) for e in ms])} put{'s' if len(ms) == 1 else ''} no feature above 0 ("
                + "; ".join(f"{label(e.method) + ': ' if len(ms) > 1 else 'its largest value: '}{e.feature} "
                            f"{num(e.estimate + e.null)} {_bracket(e)}" for e in ms) + ").")
        keep = [i for i in range(len(c.evidence)) if i not in none]
        if not keep:
            return said
        seconds = c.numbers.get("second") or (None,) * len(c.evidence)
        rest = Claim("top", tuple(dict.fromkeys(c.evidence[i].feature for i in keep)),
                     methods=tuple(c.evidence[i].method for i in keep), evidence=tuple(c.evidence[i] for i in keep),
                     numbers=dict(c.numbers, second=tuple(seconds[i] for i in keep), partial=True))
        return f"{_r_top(rest)} {said}"
    firsts = {e.method: e.feature for e in c.evidence}
    # a first place whose whole interval lies below 0 is no "interval includes 0" (Portfolio, one feature X: SAGE
    # -0.244 [-0.244, -0.244] was said to include 0): it is the method's largest value and still below 0
    vague = [label(e.method) for e in c.evidence if not e.above_null() and not e.below_null() and not e.zero_width]
    below = [label(e.method) for e in c.evidence if e.below_null()]
    # an interval of width 0 neither includes 0 nor clears it (Evidence.zero_width): one feature's SAGE [637, 637]
    flat = [label(e.method) for e in c.evidence if e.zero_width]
    tie = _overlaps(c)
    if len(firsts) == 1:
        e = c.evidence[0]
        verdict = ("its interval (or adjusted p-value) puts it above 0" if e.above_null() else
                   "its whole interval lies below 0: even the method's largest value is below 0" if e.below_null()
                   else f"its interval has width 0 ({_bracket(e)}), which decides no side of 0 (see below)"
                   if e.zero_width else "its interval includes 0")
        return f"{label(e.method)} ranks {e.feature} first, and {verdict}.{tie}"

    def sides(its):
        out = [f"for {name_list(vague)} {its} interval includes 0"] if vague else []
        if flat:
            out.append(f"for {name_list(flat)} {its} interval has width 0, which decides no side of 0 (see below)")
        if below:
            out.append(f"for {name_list(below)} {its} whole interval lies below 0 (even the method's largest value "
                       f"is below 0)")
        return out

    if len(set(firsts.values())) == 1:
        f = c.features[0]
        said = sides("its")
        # not every method read when another puts no feature above 0 (``partial``): name those that rank f first
        who = (name_list([label(m) for m in firsts]) if c.numbers.get("partial") else
               f"All {len(firsts)} methods")
        if not said:
            return (f"{who} rank {f} first, and each method's interval (or adjusted p-value) "
                    f"puts it above 0.{tie}")
        return f"{who} rank {f} first, but {', and '.join(said)}.{tie}"
    groups = {}
    for e in c.evidence:
        groups.setdefault(e.feature, []).append(label(e.method))
    parts = "; ".join(f"{f} for {name_list(ms)}" for f, ms in groups.items())
    said = sides("the first feature's")
    tail = f" ({'; '.join(said)})" if said else ""
    return f"The first feature differs between methods: {parts}{tail}.{tie}"


def _r_disagreement(c):
    f = c.features[0]
    hi = [f"{label(e.method)} ({e.words()})" for e in c.evidence if e.method in c.methods]
    below = [f"{label(e.method)} ({e.words()})" for e in c.evidence if e.method in c.low and e.below_null()]
    negl = [f"{label(e.method)} ({e.words()})" for e in c.evidence if e.method in c.low and e.negligible()]
    small = [f"for {label(e.method)} ({e.words()}) {e.small_words()}" for e in c.evidence
             if e.method in c.low and e.small_beside()]
    low = []
    if negl:
        low.append(f"negligible for {'; '.join(negl)}")
    low += small
    if below:
        low.append(f"entirely below 0 for {'; '.join(below)} -- the loss is lower without {f}: the model does worse "
                   f"with it in that method's sense")
    return f"{f}: important for {'; '.join(hi)}, but {', and '.join(low)}."


def _r_dependence(c):
    f, n = c.features[0], c.numbers
    assoc = ("" if not n.get("partner") else
             f"η² = {num(n['partner_eta2'])}, adjusted, from its levels" if "partner_eta2" in n
             else f"|r| = {num(n['partner_r'])}")
    if not n.get("partner"):
        with_ = ""
    elif n.get("joint"):
        with_ = (f"; the single column most associated with it, {n['partner']} ({assoc}), explains "
                 f"{num(n['partner_r2'])} of its variance alone, less than half of that R²: the dependence is joint")
    else:
        with_ = f", most with {n['partner']} ({assoc})"
    head = (f"{f} is strongly dependent on the other features (R² = {num(n['r2'])} >= {n['threshold']}{with_})")
    marginal = [label(m) for m in n.get("high", ()) if m in MARGINAL]
    conditional = [label(m) for m in n.get("low", ()) if m in CONDITIONAL]
    if marginal and conditional:
        return (f"{head}: its information is largely available through them, so {name_list(conditional)} "
                f"{'finds' if len(conditional) == 1 else 'find'} little unique contribution, while "
                f"{name_list(marginal)} also {'counts' if len(marginal) == 1 else 'count'} the model's behaviour on "
                f"unrealistic, extrapolated points.")
    high, low = n.get("high", ()), n.get("low", ())
    same = [(h, lo) for h in high for lo in low if REMOVAL.get(h) is not None and REMOVAL.get(h) == REMOVAL.get(lo)]
    if not same:
        return (f"{head}: how a method removes it (permuting it alone, sampling it given the others, refitting "
                f"without it) decides how much credit it gets, so methods that remove it differently can rank it "
                f"differently.")
    # hitters (a random forest): PFI and CFI find Years important, SAGE (marginal) negligible -- PFI and marginal
    # SAGE remove it the same way, so the removal story explains nothing here; what differs is the coalitions
    kinds = list(dict.fromkeys(REMOVAL[h] for h, _ in same))
    def group(k):
        hi = [label(m) for m in high if REMOVAL.get(m) == k]
        lo = [label(m) for m in low if REMOVAL.get(m) == k]
        return (f"{name_list(hi)}, which find{'s' if len(hi) == 1 else ''} it important, and {name_list(lo)}, which "
                f"do{'es' if len(lo) == 1 else ''} not, {REMOVAL_WORDS[k]}")

    groups = "; and ".join(group(k) for k in kinds)
    s = f"{head}, but {groups}, so how a method removes {f} itself does not explain this difference"
    coalition = [(h, lo) for h, lo in same if {h, lo} & {"sage_marginal", "sage_conditional"}
                 and not {h, lo} <= {"sage_marginal", "sage_conditional"}]
    if coalition:
        h, lo = coalition[0]
        sage, other = (h, lo) if h.startswith("sage") else (lo, h)
        below = {m: (e, lo_, hi_) for m, e, lo_, hi_ in n.get("below", ())}
        if sage in below:
            # ISLP Credit's Income (marginal SAGE -16,800 [-31,300, -2,250], PFI important): sharing credit only
            # shrinks a positive value toward 0, it cannot make the whole interval negative; the other features'
            # removal can -- PFI keeps them at their values, marginal SAGE draws them too, without regard to f
            e, lo_, hi_ = below[sage]
            partner = f" ({n['partner']} among them)" if n.get("partner") else ""
            s += (f"; what differs is how they treat the other features: {label(other)} keeps them at their "
                  f"values, {label(sage)} averages over coalitions in which they are drawn without regard to "
                  f"{f} as well{partner}, so it adds {f}'s real values to combinations the data may not have. "
                  f"{label(sage)}'s value, {num(e)} [{num(lo_)}, {num(hi_)}], lies entirely below 0: averaged "
                  f"over those coalitions, adding {f} raised the loss, which sharing its credit with the features it "
                  f"depends on cannot do (sharing only shrinks a positive value toward 0)")
        else:
            s += (f"; what differs is what they measure it against: {label(other)} measures what it adds to all "
                  f"the other features together, {label(sage)} averages what it adds over coalitions of the "
                  f"others, which can share its credit with the features it depends on")
    return s + "."


def _r_moderate(c):
    n = c.numbers
    return (f"{c.features[0]} is moderately dependent on the other features (R² = {num(n['r2'])}, between "
            f"{n['weak']} and {n['strong']}): dependence may explain part of the difference.")


def _r_independent(c):
    n = c.numbers
    s = (f"The methods answer different questions (see the table above); for {c.features[0]} the difference is not "
         f"explained by linear dependence (R² = {num(n['r2'])} < {n['threshold']})")
    if "h2" in n:
        hv = n.get("halves")
        s += (f" or a strong interaction (overall H² = {num(n['h2'])} <= {n['h_threshold']}"
              + (f", and in each half of its rows: {num(hv[0])} and {num(hv[1])})" if hv else ")"))
    return s + "."


def _partners(n):
    return name_list([f"{p} (|r| = {num(r)})" for p, r in n.get("partners", ())])


def _r_info_vs_use(c):
    f, n = c.features[0], c.numbers
    low = name_list([label(m) for m in n["low"]])
    verb = "shows" if len(n["low"]) == 1 else "show"
    with_ = f", most with {_partners(n)}" if n.get("partners") else ""
    return (f"{f} is predictable from the other features (R² = {num(n['r2'])} >= {n['threshold']}{with_}), so the "
            f"model can take its information from them: conditional SAGE credits the information {f} carries about "
            f"the target (question 2), while {low} {verb} that the model itself barely uses {f} (question 1).")


def _r_interaction(c):
    n = c.numbers
    sage = name_list([label(m) for m in n.get("low", ())])
    hv = n.get("halves")
    each = f", and in each half of its rows: {num(hv[0])} and {num(hv[1])}" if hv else ""
    return (f"{c.features[0]} interacts with other features (overall H² = {num(n['h2'])} > {n['threshold']}{each}): "
            f"PFI "
            f"credits each feature of an interaction with its full effect, {sage or 'SAGE'} splits it among the "
            f"players.")


def _r_refit(c):
    low, high = c.numbers["low"], c.numbers["high"]
    refit = "refits" if len(low) == 1 else "refit"
    judge = "judges" if len(high) == 1 else "judge"
    return (f"{name_list([label(m) for m in low])} {refit} the learner without the feature, and the refitted model "
            f"can compensate for it; {name_list([label(m) for m in high])} {judge} the fitted model, which cannot.")


def _r_unconverged(c):
    e = c.evidence[0]
    return (f"{label(e.method)} did not converge: after {e.n_orderings} orderings its largest standard error is "
            f"{num(e.ratio)} x the range of its values (the tolerance is {num(e.tolerance)}), so its values (in the "
            f"table) are not read here: they call no feature important, first or in disagreement.")


def _r_near_converged(c):
    e = c.evidence[0]
    return (f"{label(e.method)} stopped after {e.n_orderings} orderings a little short of its tolerance: its largest "
            f"standard error is {num(e.ratio)} x the range of its values (the tolerance is {num(e.tolerance)}; up to "
            f"{num(NEAR_CONVERGED)} times it is read), so its intervals are wider than it aimed for.")


def _r_no_disagreement(c):
    return (f"No disagreement the intervals support: no feature is important for one of the {len(c.methods)} methods "
            f"and negligible, below 0 or small beside its largest for another.")


def _items(c):
    """Each feature with its numbers; beyond ``LIST_MAX``, "and N others" (their numbers are in the table)."""
    items = [f"{e.feature} ({e.words()})" for e in c.evidence[:LIST_MAX]]
    rest = len(c.evidence) - LIST_MAX
    return "; ".join(items) + (f"; and {n_others(rest)} (see the table above)" if rest > 0 else "")


#: Why a method's interval has width 0 (the ``why`` of a ``zero_width`` claim).
ZERO_WIDTH_WHY = {
    "one_feature": ("with one feature there is a single ordering and no coalition between none and all, so SAGE's "
                    "value is exactly the loss of the model's mean prediction over these rows minus the model's: no "
                    "ordering and no background row enters it, and its sampling has nothing left to vary (the rows "
                    "themselves are still a sample of the data)"),
    # an API result with the caller's background for marginal removal: f_∅ is that background's mean prediction
    "one_feature_background": ("with one feature there is a single ordering, so SAGE's value is the loss of the mean "
                               "prediction over its background rows minus the model's: no ordering noise, but "
                               "other background rows would give another value"),
    "exact": ("it was computed over every coalition, without sampling orderings (with several features its "
              "coalitions between none and all still average a sample of background rows or conditional draws, "
              "which the interval does not cover)"),
    "sampled": "every sample it drew gave the same value",
}


def _r_zero_width(c):
    methods = list(dict.fromkeys(e.method for e in c.evidence))
    sage = all(m in ("sage_marginal", "sage_conditional") for m in methods)
    covers = ("SAGE's intervals cover the sampling of feature orderings only (its Monte-Carlo estimate on these rows), "
              "not the sampling of the data" if sage else
              "these intervals are the spread over each method's own repeats, not the sampling of the data")
    why = c.numbers.get("why")
    if why == "one_feature" and any(e.empty == "background" for e in c.evidence):
        why = "one_feature_background"
    why = ZERO_WIDTH_WHY.get(why, ZERO_WIDTH_WHY["sampled"])
    one = len(c.evidence) == 1
    items = "; ".join(f"{label(m)}: " + ", ".join(f"{e.feature} {num(e.estimate + e.null)} {_bracket(e)}"
                                                  for e in c.evidence if e.method == m) for m in methods)
    features = list(dict.fromkeys(e.feature for e in c.evidence))
    return (f"{'An interval' if one else 'Intervals'} of width 0 ({items}): {covers}, and here, {why}. A width of 0 "
            f"would put any value other than 0, however small, above or below 0, so it is no evidence for either "
            f"side: for {name_list([label(m) for m in methods])} the reading calls {name_list(features)} neither "
            f"important nor below 0.")


def _r_counts(c):
    n = c.numbers
    every, some = n["every"], n["some"]
    k = len(n["methods"])
    scored = f"{n['n_features']:,} feature{'' if n['n_features'] == 1 else 's'}"
    head = (f"Counted by these rules over the {k} methods read here ({name_list([label(m) for m in n['methods']])}), "
            f"of the {scored} they score: " if k > 1 else
            f"Counted by these rules for {label(n['methods'][0])}, the one method read here, of the {scored} it "
            f"scores: ")
    parts = []
    if not every and not some:
        return head + ("none is important for any of them." if k > 1 else "none is important for it.")
    if every:
        who = (f"every method that scores {'it' if len(every) == 1 else 'them'}" if k > 1 else "it")
        parts.append(f"{len(every)} {'feature is' if len(every) == 1 else 'features are'} important for {who} "
                     f"({name_list([f for f, *_ in every])})")
    else:
        parts.append(f"no feature is important for all {k}")
    if some:
        items = [f"{f} ({len(ms)} of {m}: {name_list([label(x) for x in ms])}"
                 + (f"; not decided by {name_list([label(x) for x in und])}: interval of width 0" if und else "") + ")"
                 for f, ms, m, und in some]
        parts.append(f"{len(some)} for some: {name_list(items)}")
    rest = n["n_features"] - len(every) - len(some)
    if rest:
        parts.append(f"{'the other ' if every or some else ''}{rest:,} for none")
    tail = (" Sections 4-6 take their most important features in this order (by that count, then by rank)."
            if every or some else "")
    return head + "; ".join(parts) + "." + tail


def _c_counts(c):
    n, bad = c.numbers, []
    bad += [f"{f}: important for {len(ms)} of {m} said to be every method" for f, ms, m, _ in n["every"]
            if len(ms) != m]
    bad += [f"{f}: important for {len(ms)} of {m} said to be some" for f, ms, m, _ in n["some"]
            if not 0 < len(ms) < m]
    if len(n["every"]) + len(n["some"]) > n["n_features"]:
        bad.append("more features counted than scored")
    return bad


def _r_unsettled(c):
    return f"{label(c.methods[0])}: {_items(c)}."


def _r_small(c):
    return (f"{label(c.methods[0])}: above 0, but less than {pct(c.numbers['loss_share'])} of what the features "
            f"explain together, so not called important: {_items(c)}.")


def _r_below_zero(c):
    return (f"{label(c.methods[0])}: the whole interval lies below 0 -- the loss is lower without these features, so "
            f"the model does worse with them in that method's sense: {_items(c)}.")


def _h_item(f, h, halves):
    return f"{f} (H² = {num(h)}" + (f"; halves {num(halves[0])} and {num(halves[1])})" if halves else ")")


def _r_interactions(c):
    n = c.numbers
    t, rows = n["threshold"], n.get("n_rows")
    on = f"{rows:,} rows" if rows else "its rows"
    halves = n.get("halves") or (None,) * len(c.features)
    close = n.get("se_close") or ()
    close_halves = n.get("close_halves") or (None,) * len(close)
    with_halves = (any(h is not None for h in halves) or any(h is not None for h in n.get("unsettled_halves", ()))
                   or any(h is not None for h in close_halves))
    z = n.get("se_z", 1.645)
    rule = (f"H² > {t} in each half of the H-statistic's {on}, as section 4 reads it" if with_halves
            else f"overall H² > {t} on the H-statistic's {on}")
    if close:
        rule += f", and more than {z:g} bootstrap standard errors above {t} on all rows"
    items = [_h_item(f, h, hv) for f, h, hv in zip(c.features, n["h2"], halves)]
    # strong by the halves, yet within z bootstrap SEs of the threshold (fair's children: H² 0.235, SE 0.137; wide's
    # x2: H² 0.131, SE 0.0191): not shown to interact strongly, so never listed among the strong ones
    close_items = [f"{f} (H² = {num(h)}, SE {num(se)}: {num(h)} − {z:g} × {num(se)} = {num(h - z * se)}"
                   + (f"; halves {num(hv[0])} and {num(hv[1])})" if hv else ")")
                   for (f, h, se), hv in zip(close, close_halves)]
    where = "in both halves" if with_halves else "on all rows"
    if items:
        s = (f"Features with strong interactions ({rule}): {name_list(items)}. Their PD curves average over "
             f"heterogeneous ICE curves (sections 4-5).")
        if close:
            s += (f" Above {t} {where} but within {z:g} bootstrap standard errors of it, so not shown to interact "
                  f"strongly: {name_list(close_items)}.")
    elif close:
        s = (f"No feature is shown to interact strongly: {name_list(close_items)} "
             f"{'is' if len(close) == 1 else 'are'} above {t} {where} but within {z:g} bootstrap standard errors of "
             f"it, so {'its' if len(close) == 1 else 'their'} own standard error{'' if len(close) == 1 else 's'} "
             f"do{'es' if len(close) == 1 else ''} not tell {'it' if len(close) == 1 else 'them'} apart from it.")
    else:
        s = f"No feature has a strong interaction ({rule})."
    unsettled = [_h_item(f, h, hv) for f, h, hv in zip(n.get("unsettled", ()), n.get("unsettled_h2", ()),
                                                          n.get("unsettled_halves", ()))]
    if unsettled:
        s += (f" Above {t} on all rows or in one half but not in both, so not distinguishable from {t} at {on}: "
              f"{name_list(unsettled)}.")
    beyond = [_h_item(f, h, hv) for f, h, hv in zip(n.get("beyond", ()), n.get("beyond_h2", ()),
                                                      n.get("beyond_halves", ()))]
    if beyond:
        s += (f" Above {H_SHARE_MAX:g} on all rows or in a half, so no share of the prediction's variance (a share is "
              f"at most 1) and not read as a strong interaction: {name_list(beyond)}.")
    if n.get("probability"):
        # a logistic regression pipeline on Credit (Student): H² of 0.65-0.72 for a model additive in the log-odds
        s += (" These are interactions of the predicted probability: a model additive in the log-odds (a logistic "
              "regression) has them too, through its link alone, so they need not be interactions of the features "
              "in the model's own scale.")
    return s


def _pimp_items(c):
    n = c.numbers
    below = n.get("n_below", (-1,) * len(c.features))
    tails = n.get("tail", ("",) * len(c.features))
    out = []
    shared = _shared_tail(c)
    for f, p, k, tail in zip(c.features, n["p_adjusted"], below, tails):
        s = f"{f} (adjusted p {p_is(p)}"
        if tail and not shared:  # the raw p-value lies below 1/(B + 1): only the fitted family's tail puts it there
            s += f" from a fitted {tail} tail, finer than {n['n_null']} null values resolve"
        out.append(s + (f"; observed above {k} of {n['n_null']} null values)" if k >= 0 else ")"))
    return out


def _shared_tail(c):
    """The family when every feature of a PIMP claim (more than one) has its p-value from that fitted tail."""
    tails = c.numbers.get("tail") or ()
    return tails[0] if len(tails) > 1 and tails[0] and len(set(tails)) == 1 else ""


def _tail_tail(c):
    """Said once after the list when every p-value comes from one fitted family's tail (Bikeshare: eight times)."""
    fam = _shared_tail(c)
    return (f" Each of these p-values comes from a fitted {fam} tail, finer than {c.numbers['n_null']} null values "
            f"resolve." if fam else "")


def _r_pimp_unused(c):
    return (f"PIMP: the model does not use {name_list(c.features)}: the observed importance is 0 (up to rounding), "
            f"so {'its p-value compares' if len(c.features) == 1 else 'their p-values compare'} rounding noise "
            f"with rounding noise and {'says' if len(c.features) == 1 else 'say'} nothing.")


def _r_pimp_matters(c):
    n = c.numbers
    return (f"PIMP: these features matter more than under a target unrelated to the features (adjusted p <= "
            f"{n['alpha']}): {name_list(_pimp_items(c))}.{_tail_tail(c)}")


def _r_pimp_cannot_tell(c):
    n = c.numbers
    one = len(c.features) == 1
    floor = f"is {num(n['p_floor'][0])}" if one else f"is at least {num(min(n['p_floor']))}"
    return (f"PIMP cannot tell with {n['n_null']} null refits (at least {n['needed']} are needed): for "
            f"{name_list(_pimp_items(c))}, the smallest adjusted p-value {'its null' if one else 'their nulls'} "
            f"could give {floor} > {n['alpha']}, so not rejecting says nothing about {'it' if one else 'them'}."
            f"{_tail_tail(c)}")


def _r_pimp_no_evidence(c):
    # Not "no evidence": a feature can fail the corrected test and still be the model's most important
    # one by PFI (a near-copy takes its place under the null refits). The sentence says what the test
    # could not show, with its numbers, and that not rejecting is not a finding of no effect.
    n = c.numbers
    # a feature whose floor is above alpha is here only when its observed importance lies inside its null (the
    # reading's grouping): no observed value could have been significant, and it is not beyond its whole null
    high = [f for f, fl in zip(c.features, n["p_floor"]) if fl > n["alpha"]]
    floors = [fl for fl in n["p_floor"] if fl <= n["alpha"]]
    floor = max(floors) if floors else 0.0
    reach = f"; adjusted p-values down to {num(floor)} were reachable" if floor > 0 else ""
    s = (f"PIMP could not show, at the level corrected for the number of features, that these features matter "
         f"more than under a target unrelated to the features (adjusted p > {n['alpha']}{reach}): "
         f"{name_list(_pimp_items(c))}.{_tail_tail(c)}")
    if high:
        one = len(high) == 1
        s += (f" With {n['n_null']} null refits {name_list(high)} could not have reached {n['alpha']} whatever "
              f"{'its' if one else 'their'} importance (the smallest adjusted p-value "
              f"{'its null' if one else 'their nulls'} could give is "
              f"{num(min(fl for fl in n['p_floor'] if fl > n['alpha']))}{'' if one else ' or more'}); unlike a "
              f"feature beyond all its null values, {'its' if one else 'their'} observed importance also lies inside "
              f"{'its' if one else 'their'} null values (the counts above).")
    return s + " Not rejecting is not evidence that they do not matter."


_RENDER = {"rules": _r_rules, "no_better": _r_no_better, "top": _r_top, "disagreement": _r_disagreement,
           "dependence": _r_dependence, "moderate_dependence": _r_moderate, "not_dependence": _r_independent,
           "info_vs_use": _r_info_vs_use, "interaction": _r_interaction, "refit": _r_refit,
           "no_disagreement": _r_no_disagreement, "unconverged": _r_unconverged,
           "near_converged": _r_near_converged,
           "unsettled": _r_unsettled, "small": _r_small, "zero_width": _r_zero_width, "counts": _r_counts,
           "below_zero": _r_below_zero, "interactions": _r_interactions, "pimp_matters": _r_pimp_matters,
           "pimp_cannot_tell": _r_pimp_cannot_tell, "pimp_no_evidence": _r_pimp_no_evidence,
           "pimp_unused": _r_pimp_unused, "too_few": _r_too_few}
KINDS = tuple(_RENDER)


def render(claim):
    """The sentence of ``claim``, written from its numbers."""
    if claim.kind not in _RENDER:
        raise ValueError(f"'kind' must be one of {', '.join(KINDS)}; got {claim.kind!r}.")
    return _RENDER[claim.kind](claim)


# ----- checking
def _c_rules(c):
    n = c.numbers
    want = {"important_share": IMPORTANT_SHARE, "negligible_share": NEGLIGIBLE_SHARE, "loss_share": LOSS_SHARE}
    bad = [f"rule {k} = {n.get(k)} but the reading uses {v}" for k, v in want.items() if n.get(k) != v]
    bad += [f"{label(m)}: simultaneous level {sim} is not 1 - (1 - {level})/{k}"
            for m, (k, level, sim) in (n.get("families") or {}).items()
            if not (k >= 2 and math.isclose(sim, 1 - (1 - level) / k, rel_tol=1e-12))]
    return bad + [f"{label(m)}: the constant's loss {const} is below the model's {model}, yet said not to beat it"
                  for m, (_, const, model) in (n.get("no_yardstick") or {}).items() if const > model]


def _c_no_better(c):
    n = c.numbers
    bad = [] if n.get("baseline") else ["no baseline named"]
    if n.get("noise") and not (n.get("differences") and n.get("small_gain") == NOISE_GAIN):
        bad.append("'describe noise' without the differences that show the gain is small")
    if n.get("noise") and n.get("unjudged"):
        bad.append("'describe noise' while a deciding measure was not judged")
    return bad


def _c_top(c):
    bad = [f"{e.feature} is not {label(e.method)}'s largest (rank {e.rank})" for e in c.evidence if e.rank != 1]
    bad += [f"{label(e.method)} did not converge" for e in c.evidence if not e.readable]
    same = len({e.feature for e in c.evidence}) == 1
    if same != (len(c.features) == 1):
        bad.append("'all rank X first' said of different features" if same else "one feature for different firsts")
    return bad


def _c_disagreement(c):
    bad = []
    if set(c.methods) & set(c.low):
        bad.append(f"{set(c.methods) & set(c.low)} both important and not")
    if not c.methods or not c.low:
        bad.append("a disagreement needs both sides")
    for e in c.evidence:
        if e.method in c.methods and not e.important():
            bad.append(f"{e.feature} called important for {label(e.method)}: {e.words()}")
        if e.method in c.low and not (e.negligible() or e.below_null() or e.small_beside()):
            bad.append(f"{e.feature} called negligible/below 0 for {label(e.method)}: {e.words()}")
        if e.method not in c.methods and e.method not in c.low:
            bad.append(f"evidence of {e.method} is on neither side")
        if not e.readable:
            bad.append(f"{label(e.method)} did not converge but takes a side")
    return bad


def _c_dependence(c):
    n = c.numbers
    bad = [] if n["r2"] >= n["threshold"] == R2_STRONG else [f"R² {n['r2']} below {R2_STRONG}"]
    bad += [f"{m}'s interval [{lo}, {hi}] called entirely below 0" for m, _, lo, hi in n.get("below", ())
            if not (hi < 0 and lo <= hi)]
    if n.get("partner") and "partner_r" in n and not 0 <= n["partner_r"] <= 1 + 1e-12:
        bad.append(f"|r| = {n['partner_r']}")
    if n.get("partner") and "partner_eta2" in n and not n["partner_eta2"] <= 1 + 1e-12:
        bad.append(f"η² = {n['partner_eta2']}")
    if "joint" in n and n["joint"] != (n["partner_r2"] < n["r2"] / 2):
        bad.append(f"joint = {n['joint']} with the partner's {n['partner_r2']} of R² {n['r2']}")
    return bad


def _c_moderate(c):
    n = c.numbers
    return [] if R2_WEAK <= n["r2"] < R2_STRONG and (n["weak"], n["strong"]) == (R2_WEAK, R2_STRONG) else [
        f"R² {n['r2']} is not moderate"]


def _c_independent(c):
    n = c.numbers
    bad = [] if n["r2"] < n["threshold"] == R2_WEAK else [f"'not explained by linear dependence' with R² {n['r2']}"]
    if "h2" in n and not max(n["h2"], *(n.get("halves") or ())) <= n["h_threshold"] == H_INTERACTION:
        bad.append(f"'no strong interaction' with H² {n['h2']} (halves {n.get('halves')})")
    return bad


def _c_info_vs_use(c):
    n = c.numbers
    low, high = set(n["low"]), set(n["high"])
    bad = [] if "sage_conditional" in high else ["conditional SAGE does not find it important"]
    if not n.get("r2", -1) >= n.get("threshold") == R2_STRONG:
        bad.append(f"'takes its information from correlated features' with R² {n.get('r2')}")
    if high & set(MARGINAL):
        bad.append(f"'the model barely uses it' while {high & set(MARGINAL)} find it important")
    if not low or not low <= set(MARGINAL):
        bad.append(f"'barely uses' said for {low}")
    return bad


def _c_interaction(c):
    n = c.numbers
    strong = min(n["halves"]) if n.get("halves") else n["h2"]
    bad = [] if strong > n["threshold"] == H_INTERACTION else [f"H² {n['h2']} (halves {n.get('halves')}) is not strong"]
    sage = set(n.get("low", ())) & {"sage_marginal", "sage_conditional"}
    bad += [] if sage else ["'SAGE splits it' without SAGE on the other side"]
    return bad + ([] if "pfi" in n["high"] else ["PFI does not find it important"])


def _c_refit(c):
    n = c.numbers
    ok = set(n["low"]) <= set(REFIT) and n["low"] and n["high"] and not set(n["high"]) & set(REFIT)
    return [] if ok else [f"refit sentence with low {n['low']} and high {n['high']}"]


def _c_unconverged(c):
    return [f"{label(e.method)} converged or nearly ({e.ratio} vs {e.tolerance})" for e in c.evidence if e.readable]


def _c_near_converged(c):
    return [f"{label(e.method)}: converged or far from it ({e.ratio} vs {e.tolerance})" for e in c.evidence
            if e.converged or not e.readable]


def _c_no_disagreement(c):
    return [] if c.numbers.get("n_found") == 0 else ["disagreements were found"]


def _c_unsettled(c):
    return [f"{e.feature} is settled for {label(e.method)}: {e.words()}" for e in c.evidence
            if e.above_null() or e.below_null() or e.zero_width or e.share < IMPORTANT_SHARE]


def _c_zero_width(c):
    bad = [f"{e.feature}'s interval for {label(e.method)} is not of width 0: {e.words()}" for e in c.evidence
           if not e.zero_width]
    return bad


def _c_small(c):
    return [f"{e.feature} is not small-but-above-0 for {label(e.method)}: {e.words()}" for e in c.evidence
            if not (e.above_null() and e.loss_share < c.numbers["loss_share"] == LOSS_SHARE)]


def _c_below_zero(c):
    return [f"{e.feature} is not below 0 for {label(e.method)}: {e.words()}" for e in c.evidence if not e.below_null()]


def _c_interactions(c):
    n = c.numbers
    halves = n.get("halves") or (None,) * len(c.features)
    bad = [f"{f}: H² {h} not above {H_INTERACTION}" for f, h, hv in zip(c.features, n["h2"], halves)
           if not (n["threshold"] == H_INTERACTION and (min(hv) if hv else h) > H_INTERACTION)]
    z = n.get("se_z", 1.645)
    for f, h, se in n.get("se_close") or ():
        if f in c.features:
            bad.append(f"{f}: listed as a strong interaction, yet within {z} SEs ({se}) of {n['threshold']}")
        if h - z * se > n["threshold"]:
            bad.append(f"{f}: H² {h} − {z} × SE {se} is above {n['threshold']}: its SE does tell it apart")
    for (f, h, _), hv in zip(n.get("se_close") or (), n.get("close_halves") or ()):
        if not (min(hv) if hv else h) > n["threshold"]:
            bad.append(f"{f}: H² {h}, halves {hv} is not above {n['threshold']} in both halves")
    for f, h, hv in zip(n.get("unsettled", ()), n.get("unsettled_h2", ()), n.get("unsettled_halves", ())):
        if hv is None or min(hv) > H_INTERACTION or max(h, *hv) <= H_INTERACTION:
            bad.append(f"{f}: H² {h}, halves {hv} is not 'not distinguishable from {H_INTERACTION}'")
    for f, h, hv in zip(c.features, n["h2"], halves):
        if max((h, *(hv or ()))) > H_SHARE_MAX:
            bad.append(f"{f}: H² {h}, halves {hv} above {H_SHARE_MAX} (no share) listed as a strong interaction")
    for f, h, hv in zip(n.get("beyond", ()), n.get("beyond_h2", ()), n.get("beyond_halves", ())):
        if not max((h, *(hv or ()))) > H_SHARE_MAX:
            bad.append(f"{f}: H² {h}, halves {hv} said to be above {H_SHARE_MAX}")
    return bad


def _c_pimp(c):
    n, bad = c.numbers, []
    below = n.get("n_below", (-1,) * len(c.features))
    for f, p, floor, k in zip(c.features, n["p_adjusted"], n["p_floor"], below):
        if c.kind == "pimp_matters" and not (p <= n["alpha"] and floor <= n["alpha"]):
            bad.append(f"{f}: adjusted p {p} (floor {floor}) but said to matter")
        if c.kind == "pimp_no_evidence" and not p > n["alpha"]:
            bad.append(f"{f}: adjusted p {p} <= alpha but 'no evidence'")
        if c.kind == "pimp_cannot_tell" and not floor > n["alpha"]:
            bad.append(f"{f}: floor {floor} <= alpha, so the refits could tell")
        if c.kind == "pimp_no_evidence" and not floor <= n["alpha"] and not 0 <= k < n["n_null"]:
            bad.append(f"{f}: floor {floor} > alpha and at the floor, 'could not show' would hide that it could not")
    if c.kind == "pimp_unused" and any(v != 0 for v in n["observed"]):
        bad.append(f"observed importances {n['observed']} are not 0")
    if c.kind == "pimp_cannot_tell" and not n["needed"] > n["n_null"]:
        bad.append(f"{n['needed']} refits needed but {n['n_null']} were run")
    return bad


_CHECK = {"rules": _c_rules, "no_better": _c_no_better, "top": _c_top, "disagreement": _c_disagreement,
          "dependence": _c_dependence, "moderate_dependence": _c_moderate, "not_dependence": _c_independent,
          "info_vs_use": _c_info_vs_use, "interaction": _c_interaction, "refit": _c_refit,
          "no_disagreement": _c_no_disagreement, "unconverged": _c_unconverged,
          "near_converged": _c_near_converged,
          "unsettled": _c_unsettled, "small": _c_small, "zero_width": _c_zero_width, "counts": _c_counts,
          "below_zero": _c_below_zero, "interactions": _c_interactions, "pimp_matters": _c_pimp,
          "pimp_cannot_tell": _c_pimp, "pimp_no_evidence": _c_pimp, "pimp_unused": _c_pimp, "too_few": _c_too_few}


def check(claim):
    """What is wrong with ``claim`` given its own numbers: a list of reasons (empty: it holds)."""
    if claim.kind not in _CHECK:
        raise ValueError(f"'kind' must be one of {', '.join(KINDS)}; got {claim.kind!r}.")
    return _CHECK[claim.kind](claim)


def consistent(paragraph):
    """Contradictions inside one paragraph (a list of claims): a feature given two verdicts for one method."""
    seen, bad = {}, []
    for claim in paragraph:
        for key, verdict in claim.verdicts().items():
            if seen.setdefault(key, verdict) != verdict:
                bad.append(f"{key[0]} is {seen[key]} and {verdict} for {label(key[1])}")
    return bad


# --------------------------------------------------------------------------- the ranking
def evidence_by_method(results, y_of=None, y_fit=None):
    """``{method: {feature: Evidence}}`` of every result with a finite, non-zero value.

    ``y_of(method)``: the target on the rows that method used (None: the yardstick is unknown); ``y_fit``: the
    training rows' target, on which the yardstick's constant is fitted (None: in hindsight on each method's rows).
    """
    out = {}
    for m, r in results.items():
        ev = evidence(r, None if y_of is None else y_of(m), y_fit)
        if ev:
            out[m] = ev
    return out


@dataclass(frozen=True)
class Ranked:
    """One feature's place in :func:`ranked_features`: for how many converged methods it is important
    (``important_for``, of ``n_methods``), its median rank over those (``rank_where_important``; NaN
    when none) and over every method (``median_rank``); 1 = a method's largest."""

    feature: str
    important_for: tuple
    n_methods: int
    median_rank: float
    rank_where_important: float = math.nan
    #: the methods for which it is above 0 and not negligible (what put a feature important for none in the list)
    open_for: tuple = ()
    #: the methods whose interval for it has width 0 (:attr:`Evidence.zero_width`): they decide nothing about it
    undecided: tuple = ()
    #: those of ``open_for`` whose interval includes 0 (no test puts it above 0): not negligible only because the
    #: interval reaches high, not because the estimate is large
    uncertain_for: tuple = ()

    @property
    def n_important(self):
        return len(self.important_for)


def ranked_features(results, k=None, y_of=None, fill=False, y_fit=None):
    """The "most important" features by the reading's own rules, most important first.

    Each feature is ranked by the number of converged methods for which it is *important*
    (:meth:`Evidence.important`: the interval or adjusted p-value puts it above 0, at least
    ``IMPORTANT_SHARE`` of the method's largest and ``LOSS_SHARE`` of what the features explain
    together), ties broken by its median rank over the methods that find it important (its rank
    among the others' unimportant tail is noise: a negative CFI must not sink a feature that PFI and
    SAGE rank first), then by its median rank over every method. An estimate that did not
    converge (SAGE's ``extra["converged"]``, beyond ``NEAR_CONVERGED`` x its tolerance) takes no
    part: its noise would pick the features. A summed relative score would let one noisy method
    outvote the others, and a negative value of one method cancel a first place for three.

    Parameters
    ----------
    results : dict
        ``{method: ImportanceResult}`` (the report's ``ctx.importance.compared()``).
    k : int or None
        At most this many (None: all).
    y_of : callable or None
        ``method -> y`` on the rows that method used (the yardstick of the shares).
    fill : bool
        After the important features, add those that are neither important for any method nor
        negligible or below 0 for every method (by median rank) -- never one that is negligible or
        below 0 for every method. Only when at least one feature is important.

    Returns
    -------
    list of Ranked
        Empty when no feature is important for any converged method (the caller says so with
        :func:`no_important_words`).
    """
    ev = {m: e for m, e in evidence_by_method(results, y_of, y_fit).items()
          if all(x.readable for x in e.values())}
    # the feature budget's "all other features" group is no feature to show an effect of
    features = [f for f in dict.fromkeys(f for e in ev.values() for f in e) if f != OTHERS]
    rows = []
    for f in features:
        xs = [e[f] for e in ev.values() if f in e]
        imp = tuple(x.method for x in xs if x.important())
        open_for = tuple(x.method for x in xs if not (x.negligible() or x.below_null() or x.estimate <= 0))
        # a feature the fitted model does not use -- every method of question 1 it has gives exactly 0 [0, 0]
        # (ISLP Weekly's Year: PFI, CFI and marginal SAGE all 0, the trees never split on it) -- is not filled in
        # on another method's noise (conditional SAGE 0.0255 [-0.0345, 0.0854]): its effects would be flat lines
        uses = [x for x in xs if x.method in USE_METHODS]
        unused = bool(uses) and all(x.estimate == 0 and x.low == 0 and x.high == 0 for x in uses)
        out_of_it = not open_for or unused
        where = [x.rank for x in xs if x.method in imp]
        uncertain = tuple(x.method for x in xs if x.method in open_for and x.has_interval and x.low <= 0
                          and not x.significant())
        rows.append((Ranked(f, imp, len(xs), float(np.median([x.rank for x in xs])),
                            float(np.median(where)) if where else math.nan, open_for,
                            tuple(x.method for x in xs if x.zero_width), uncertain), out_of_it))
    important = [r for r, _ in rows if r.n_important]
    if not important:
        return []
    important.sort(key=lambda r: (-r.n_important, r.rank_where_important, r.median_rank))
    if fill:
        important += sorted((r for r, out in rows if not r.n_important and not out), key=lambda r: r.median_rank)
    return important if k is None else important[:k]


def ranking_words(ranked):
    """How the caller names the features it took from :func:`ranked_features`, with the counts that justify it.

    "the 2 most important features by how many of the 4 methods find each important: a (4 of 4) and
    b (3 of 4)"; with one method "the 2 features important for PFI: a and b"; a feature added by
    ``fill`` says "important for none".
    """
    if not ranked:
        return "no feature"
    n = max(r.n_methods for r in ranked)
    plural = len(ranked) > 1
    if n == 1:
        method = next(r.important_for[0] for r in ranked if r.important_for)
        imp = [r.feature for r in ranked if r.n_important]
        rest = [r.feature for r in ranked if not r.n_important]
        if not rest:
            head = f"the {len(ranked)} features" if plural else "the feature"
            return f"{head} important for {label(method)}: {name_list(imp)}"
        # one parenthesis after the last name read as said of the whole list (anes96: "PID, selfLR, ClinLR and
        # DoleLR (not important for it, not negligible)", PID being 0.739 of PFI's 0.739): each group says its own
        return (f"the features ranked first for {label(method)}: {name_list(imp)} (important for it), then "
                f"{name_list(rest)} (not important for it, not negligible)")
    # a feature added by ``fill`` is important for no method: it is not "most important", and what kept it in the
    # list is that some method gives it a positive estimate that is not negligible -- named, not "not negligible for
    # all" (which reads as every method); not "above 0", which reads as shown above 0 (ISLP Default's student: every
    # interval included 0)
    items = [f"{r.feature} ({r.n_important} of {r.n_methods}{_undecided_words(r)})" if r.n_important
             else f"{r.feature} (important for none of {r.n_methods}; {_open_words(r)}{_undecided_words(r)})"
             for r in ranked]
    if all(r.n_important for r in ranked):
        head = f"the {len(ranked)} most important features" if plural else "the most important feature"
    else:
        head = f"the {len(ranked)} features ranked first" if plural else "the feature ranked first"
    return f"{head} by how many of the {n} methods find each important: {name_list(items)}"


def _open_words(r):
    """Why a feature important for no method was kept (:attr:`Ranked.open_for`), saying when only a wide interval
    keeps it from negligible: "a positive estimate whose interval includes 0 but reaches too high to call it
    negligible, for SAGE (conditional)" -- not "not negligible", which reads as shown to matter."""
    sure = [label(m) for m in r.open_for if m not in r.uncertain_for]
    wide = [label(m) for m in r.uncertain_for]
    parts = []
    if sure:
        parts.append(f"a positive estimate, not negligible, for {name_list(sure)}")
    if wide:
        one = len(wide) == 1
        parts.append(f"a positive estimate whose interval{'' if one else 's'} include{'s' if one else ''} 0 but "
                     f"reach{'es' if one else ''} too high to call it negligible, for {name_list(wide)}")
    return "; ".join(parts) if parts else "a positive estimate, not negligible, for some"


def _undecided_words(r):
    """"; not decided by SAGE (marginal), whose interval has width 0" for a :class:`Ranked` with such methods."""
    if not r.undecided:
        return ""
    one = len(r.undecided) == 1
    return (f"; not decided by {name_list([label(m) for m in r.undecided])}, whose interval"
            f"{'' if one else 's'} of width 0 decide{'s' if one else ''} no side of 0")


def no_important_words(results, y_of=None, y_fit=None):
    """The sentence for a caller that found no important feature (:func:`ranked_features` empty)."""
    vals = [np.asarray(a, dtype=float) for r in results.values() for a in (r.importance, r.ci_low, r.ci_high)]
    vals = np.concatenate([v[np.isfinite(v)] for v in vals]) if vals else np.zeros(0)
    nulls = {1.0 if r.params.get("relation") == "ratio" else 0.0 for r in results.values()}
    if not results:
        return "no importance was computed, so no feature can be called important"
    if vals.size and len(nulls) == 1:
        null = nulls.pop()
        if np.all(np.abs(vals - null) <= 1e-12 * max(1.0, abs(null))):
            return f"no feature is important for any method: every importance is {num(null)} [{num(null)}, {num(null)}]"
    ev = evidence_by_method(results, y_of, y_fit)
    unconv = [label(m) for m, e in ev.items() if not all(x.readable for x in e.values())]
    tail = f" ({name_list(unconv)} did not converge and is not counted)" if unconv else ""
    flat = [f"{label(m)} ({name_list([x.feature for x in e.values() if x.zero_width])})" for m, e in ev.items()
            if label(m) not in unconv and any(x.zero_width for x in e.values())]
    if flat:  # SAGE of a single feature, [637, 637]: its sign alone would have made it important
        tail += (f"; intervals of width 0 decide no side of 0 and are not read: {name_list(flat)}")
    return (f"no feature is important for any method by the reading's rules (above 0 by its interval or test, at "
            f"least {pct(IMPORTANT_SHARE)} of the method's largest and {pct(LOSS_SHARE)} of what the features explain "
            f"together){tail}")
