"""What the effect results say in words: ``explain()`` of EffectResult, HStatisticResult, RegionalResult and
HeterogeneityResult.

The rule is the project's: every sentence is a claim that carries the numbers behind it, read from the result's
own arrays; a shape ("increases monotonically") is said only when every step of the curve has that sign up to a
stated tolerance, and a small effect is called small with its numbers, never "no effect" (a flat average can hide
opposite effects in different rows, and a grid says nothing between its points).
"""
from __future__ import annotations

import numpy as np

from .._display import num, pct
from ._grid import MIN_BAND_ROWS

__all__ = ["num", "pct", "explain_effect", "explain_hstat", "explain_regional", "explain_heterogeneity",
           "MONOTONE_TOLERANCE", "SMALL_EFFECT_SHARE", "ROUNDING", "FEW_H_ROWS", "SMALL_JOINT_PD",
           "MATERIAL_EFFECT_SHARE", "RowEffects", "row_effects", "row_effect_words", "pct_beside"]

#: A step of a curve counts as going the other way only when it is larger than this share of the curve's range.
MONOTONE_TOLERANCE = 0.01
#: An effect whose range is below this share of the spread of the predictions (the ICE values) is called small.
SMALL_EFFECT_SHARE = 0.05
#: A range within this share of the curve's largest |value| is rounding (the display's ZERO_RTOL).
ROUNDING = 1e-9
#: A curve's change within this many standard errors of 0 settles no direction.
SETTLED_Z = 2.0
#: Below this many rows the H-statistic is called noisy (its partial dependences average over the same rows).
FEW_H_ROWS = 100
#: A pair's joint PD whose root mean square is below this share of the prediction's makes H² an unstable ratio.
SMALL_JOINT_PD = 0.1
#: The rows' own effects of a feature differ materially from their region's (REPID) when the root mean square over
#: the rows of how far each is from it (:func:`row_effect_spread`) is at least this share of the effect's range;
#: the report's ``MATERIAL_REGIONAL_SHARE`` is this number.
MATERIAL_EFFECT_SHARE = 0.1






def _positional(v, digits):
    """``v`` rounded to ``digits`` significant digits, written out without an exponent (thousands with commas)."""
    s = np.format_float_positional(float(v), precision=digits, unique=False, fractional=False, trim="-")
    if s in ("-0", "0", "-0."):
        return "0"
    sign, body = ("-", s[1:]) if s.startswith("-") else ("", s)
    whole, _, frac = body.partition(".")
    if len(whole) > 4:
        whole = f"{int(whole):,}"
    return sign + whole + (f".{frac}" if frac else "")


def _loc(v, grid=None):
    """A position on the x-axis (a grid value, an interval edge, a split threshold) as text.

    :func:`num`'s 3 significant digits are for magnitudes; a position must name its value. Integer-valued numbers
    are written exactly (``2003``, ``35,620``); others with the fewest significant digits (at least 3)
    for which the values of ``grid`` stay distinct and its first
    and last values do not round outside the grid's range.
    """
    v = float(v)
    if not np.isfinite(v):
        return num(v)
    if v == np.round(v) and abs(v) < 1e15:
        return _positional(v, 17)
    g = np.asarray([] if grid is None else grid, dtype=float).ravel()
    g = g[np.isfinite(g)]
    lo, hi = (float(g.min()), float(g.max())) if g.size else (v, v)
    for digits in range(3, 18):
        if not g.size:
            if digits >= 4 or float(_positional(v, digits).replace(",", "")) == v:
                return _positional(v, digits)
            continue
        texts = [_positional(x, digits) for x in g]
        vals = [float(t.replace(",", "")) for t in texts]
        distinct = len(set(texts)) == len(set(g.tolist()))
        slack = ROUNDING * max(abs(lo), abs(hi))
        inside = lo - slack <= min(vals) and max(vals) <= hi + slack
        if distinct and inside:
            return _positional(v, digits)
    return repr(v)


def _value(v, categorical, grid=None):
    """A grid value as text: a level as it is, a number as a position (:func:`_loc`, with the grid it is on)."""
    if categorical:
        return repr(v) if isinstance(v, str) else str(v)
    try:
        return _loc(v, grid)
    except (TypeError, ValueError):
        return str(v)


def _of(output):
    """``"the prediction"`` / ``"P(class=1)"``: what the numbers are in units of."""
    out = str(output or "prediction")
    if out == "link":
        return "the linear predictor (link scale)"
    return "the prediction" if out == "prediction" else out


def _rows(info, params):
    n = info.get("n_rows") if info else None
    return f"{int(n):,} rows" if n is not None else "the rows given"


# ---------------------------------------------------------------------------------------------------- EffectResult

_EFFECT_TITLES = {
    "pd": ("Partial dependence (PD; Friedman 2001)",
           "The average prediction when x_j is set to each grid value for every row, the other features kept as "
           "they are: a marginal effect, so where x_j depends on other features it averages over combinations "
           "the data do not hold (extrapolation)."),
    "ice": ("Individual conditional expectation (ICE; Goldstein et al. 2015) with their mean, the PD",
            "One curve per row: its prediction as x_j is set to each grid value, the other features kept as they "
            "are; their mean is the PD (Friedman 2001). Marginal: where x_j depends on other features the curves "
            "pass through combinations the data do not hold (extrapolation)."),
    "ale": ("Accumulated local effects (ALE; Apley & Zhu 2020)",
            "The prediction's differences across each interval of x_j, averaged over the rows whose x_j lies in "
            "that interval, accumulated over the intervals and centred to mean 0 over the data: the other "
            "features keep values that occur with x_j there, so it does not extrapolate across the data (it is "
            "a change relative to the average, not a level)."),
    "gam": ("A GAM's partial effect", "The fitted term of x_j in the GAM's additive predictor."),
}


def _centre_words(center):
    if center == "first":
        return ("c-ICE: each curve is anchored at the first grid point (minus its value there), so the curves show "
                "the change from that point.")
    if center == "mean":
        return "c-ICE: each curve minus its own mean over the grid, so the curves show their shapes, not levels."
    return None


def explain_effect(r):
    """The words of :meth:`EffectResult.explain`."""
    title, what = _EFFECT_TITLES.get(r.method, (f"{r.method} effect", ""))
    names = tuple(r.feature_names)
    what = what.replace("x_j", names[0]) if len(names) == 1 else (
        f"The average prediction when {names[0]} and {names[1]} are set together to each combination of grid values "
        f"for every row, the other features kept as they are: a marginal effect, so where they depend on other "
        f"features it averages over combinations the data do not hold (extrapolation).")
    lines = [f"{title} of {' × '.join(names)} on {_of(r.output)}.", what]
    centre = _centre_words(r.params.get("center")) if r.method == "ice" else None
    if centre:
        lines[1] += " " + centre
    lines.append("")
    if len(names) == 2 and np.ndim(r.average) == 2:
        lines += _effect_2d(r)
        return "\n".join(lines)
    avg = np.asarray(r.average, dtype=float)
    grid = np.asarray(r.grid)
    lines += _grid_lines(r, grid)
    ind = None if r.individual is None else np.asarray(r.individual, dtype=float)
    if avg.ndim == 2:   # one curve per class
        classes = list(r.extra.get("classes", range(avg.shape[1])))
        for k, c in enumerate(classes):
            lines.append(f"P(class={c}):")
            lines += ["  " + s for s in _curve_lines(r, grid, avg[:, k], None if ind is None else ind[:, :, k],
                                                     f"P(class={c})")]
    else:
        lines += _curve_lines(r, grid, avg, ind, _of(r.output))
    notes = _effect_notes(r)
    if notes:
        lines += [""] + notes
    return "\n".join(lines)


def _grid_lines(r, grid):
    rows = _rows(r.info, r.params)
    if r.method == "ale" and not r.categorical:
        cnt = np.asarray(r.extra.get("bin_count", []))
        a, b = _loc(grid[0], grid), _loc(grid[-1], grid)
        if len(grid) == 2:   # one interval: "between 2 edges ... holding n to n each" says nothing (r3 F10)
            line = (f"Interval: one, from {r.feature} = {a} to {b}"
                    + (f", holding {int(cnt.sum()):,} of the {rows}" if cnt.size else f" ({rows})")
                    + " -- the ALE is the average local difference across it, a straight line between the 2 edges.")
        else:
            line = (f"Intervals: {len(grid) - 1} between {len(grid)} edges at quantiles of {r.feature}, from {a} "
                    f"to {b}" + (f", holding {int(cnt.min()):,} to {int(cnt.max()):,} of the {rows} each"
                                 if cnt.size else f" ({rows})") + ".")
        capped = r.info.get("bins_capped") if r.info else None
        return [line] + ([capped] if capped else [])
    if r.method == "ale":
        order = r.extra.get("level_order", "")
        return [f"Levels: {len(grid)} ({', '.join(_value(v, True) for v in grid[:8])}"
                f"{', ...' if len(grid) > 8 else ''}), in {order or 'the order used'}; {rows}."]
    if r.categorical:
        return [f"Grid: the {len(grid)} levels of {r.feature} ({', '.join(_value(v, True) for v in grid[:8])}"
                f"{', ...' if len(grid) > 8 else ''}); {rows}."]
    kind = r.params.get("grid_type")
    return [f"Grid: {len(grid)} points of {r.feature} from {_loc(grid[0], grid)} to {_loc(grid[-1], grid)}"
            + (f" ({kind})" if kind else "") + (f"; averaged over {rows}." if r.method in ("pd", "ice") else
                                                f"; {rows}.")]


def _curve_lines(r, grid, avg, ind, unit):
    """Size, shape and (for ICE) heterogeneity of one curve."""
    what = {"ale": "ALE", "gam": "partial effect"}.get(r.method, "PD")
    if r.method == "ice" and r.params.get("center") in ("mean", "first"):
        what = {"mean": "centred PD", "first": "anchored PD"}[r.params["center"]]
    ordered = not r.categorical or (r.method == "ale" and r.extra.get("level_order") == "category order")
    lo, hi = int(np.argmin(avg)), int(np.argmax(avg))
    size = float(avg[hi] - avg[lo])
    scale = float(np.max(np.abs(avg))) if avg.size else 0.0
    out = []
    flat = size <= ROUNDING * scale or size == 0.0
    at = f"{r.feature} = {{}}"
    if flat:
        out.append(f"The {what} is flat over the grid up to rounding: its range (max − min) is {num(size)} "
                   f"in the units of {unit}" + (f" (at the level {num(avg[0])})" if what == "PD" else "") + ". A "
                   f"flat average says the rows' changes cancel or vanish at these grid values, not that the model "
                   f"ignores {r.feature}" + (" (the ICE curves below show the rows)." if ind is not None else
                                            " (ik.ice shows each row's curve)."))
    else:
        x_lo, x_hi = (at.format(_value(grid[x], r.categorical, grid)) for x in (lo, hi))
        out.append(f"Size: the {what} ranges from {num(avg[lo])} at {x_lo} to {num(avg[hi])} at {x_hi}: a range of "
                   f"{num(size)} in the units of {unit}.")
        out += _small_lines(r, size, ind, unit, what)
        if ordered and len(avg) >= 2:
            unsettled = _unsettled(r, grid, avg, ind, size, what)
            out += unsettled or _shape_lines(r, grid, avg, size, what, _step_se(r, avg, ind))
        elif len(avg) >= 2:
            out += _unsettled_levels(r, grid, avg, ind, lo, hi, what)
    if ind is not None and ind.ndim == 2 and ind.shape[0] > 1:
        out += _ice_spread_lines(r, grid, avg, ind, size, unit, ordered)
    if r.ci_low is not None and not flat and np.ndim(r.ci_low) == 1:
        half = (np.asarray(r.ci_high, dtype=float) - np.asarray(r.ci_low, dtype=float)) / 2
        level = r.params.get("confidence_level", 0.95)
        gap = _band_gap_words(r, grid, half)
        if gap is not None and not np.isfinite(half[1:]).any():
            out.append(gap)
            return out
        k = int(np.nanargmax(half))
        covers = ("" if r.method == "gam" else
                  " It covers how the rows' local differences spread for this fitted model only: not how the "
                  "model would change if refitted on other data, nor the uncertainty of the relationship in the "
                  "data.")
        if half[k] <= ROUNDING * max(scale, size):
            why = ("the term's standard errors are 0" if r.method == "gam" else
                   "the local differences within each interval are the same for every row")
            tail = "" if half[k] == 0 else f" (at most ±{num(half[k])}, floating-point rounding)"
            out.append(f"Its pointwise {pct(level)} band has width 0{' up to rounding' if tail else ''} at every "
                       f"grid point{' where it is given' if gap else ''}{tail}: "
                       f"{why}.{covers}" + (f" {gap}" if gap else ""))
            return out
        source = ("from the term's Bayesian standard errors" if r.method == "gam" else
                  "from the spread of the local differences within each interval, with Student's t quantile on "
                  "the Welch-Satterthwaite degrees of freedom of their sum")
        out.append(f"Its pointwise {pct(level)} band ({source}) is at most ±{num(half[k])} wide"
                   + (" where it is given" if gap else "") + f", at {at.format(_value(grid[k], r.categorical, grid))}; "
                   f"the range is {num(size / half[k])} times that half-width.{covers}" + (f" {gap}" if gap else ""))
    return out


def _band_gap_words(r, grid, half):
    """Where an ALE's band is not given (NaN: at and beyond an interval of fewer than ``MIN_BAND_ROWS`` rows), as a
    sentence; None where it is given at every grid point."""
    if r.method != "ale" or np.isfinite(half).all():
        return None

    cnt = np.asarray(r.extra.get("bin_count", []), dtype=int)
    first = int(np.flatnonzero(~np.isfinite(half))[0])
    what = "intervals" if not r.categorical else "pairs of neighbouring levels"
    unit = "local differences" if r.categorical else "rows"
    lo_hi = (f"{int(cnt.min()):,} {unit} each" if cnt.size and cnt.min() == cnt.max() else
             f"{int(cnt.min()):,} to {int(cnt.max()):,} {unit}" if cnt.size else "")
    held = f" (the {what} hold {lo_hi})" if cnt.size else ""
    small = int(np.sum(cnt < MIN_BAND_ROWS)) if cnt.size else 0
    level = r.params.get("confidence_level", 0.95)
    lead = (f"No band from {r.feature} = {_value(grid[first], r.categorical, grid)} on" if first > 1 else
            f"No pointwise {pct(level)} band (beyond the first {'edge' if not r.categorical else 'level'}, where the "
            f"accumulation starts)")
    return (f"{lead}: the band at a grid point accumulates every interval before it, and {small} of the "
            f"{max(cnt.size, len(grid) - 1)} {what} hold{'s' if small == 1 else ''} fewer than {MIN_BAND_ROWS} "
            f"{unit}{held} -- one row has no "
            f"spread to estimate, and two to four leave the spread (1 to 3 degrees of freedom) and the normality a "
            f"t band assumes unjudged, so no band is given there.")


def _small_lines(r, size, ind, unit, what):
    """Whether the range is small against the spread of the ICE values (the only spread of the predictions an
    effect result holds: uncentred ICE curves)."""
    if ind is None or ind.ndim != 2 or r.params.get("center") is not None:
        return []
    sd = float(np.std(ind))
    if sd <= 0:
        return []
    share = size / sd
    if share < SMALL_EFFECT_SHARE:
        return [f"The effect is small: its range {num(size)} is {pct(share)} of the spread of the ICE values "
                f"(standard deviation {num(sd)} over rows and grid points), below the {pct(SMALL_EFFECT_SHARE)} "
                f"this explanation calls small; small is not none."]
    return [f"Its range is {pct(share)} of the spread of the ICE values (standard deviation {num(sd)} over rows "
            f"and grid points)."]


def _unsettled(r, grid, avg, ind, size, what):
    """A sentence when the curve's change is within the sampling error the result holds (then no shape is claimed):
    ICE curves give the standard error of the PD's change from the first to the last grid point (the spread of the
    rows' changes / sqrt(n)); ALE's band, the accumulated standard error of its local differences."""
    if ind is not None and ind.ndim == 2 and ind.shape[0] > 1:
        ends = ind[:, -1] - ind[:, 0]
        se = float(np.std(ends, ddof=1) / np.sqrt(len(ends)))
        change = float(avg[-1] - avg[0])
        if abs(change) <= SETTLED_Z * se:
            return [f"Shape: not settled by these rows -- from the first to the last grid point the PD changes by "
                    f"{num(change)}, within {SETTLED_Z:g} standard errors of 0 (SE {num(se)}, from the spread of "
                    f"the {len(ends):,} curves' changes); the direction of the average is sampling noise here, "
                    f"whatever its steps."]
    halves = _ale_half_widths(r)
    if halves is not None and np.isfinite(halves).any():
        half = float(np.nanmax(halves))   # where the band is given (NaN beyond an interval of too few rows)
        if size <= half:
            level = r.params.get("confidence_level", 0.95)
            return [f"Shape: not settled -- the ALE's range {num(size)} is within its pointwise {pct(level)} band's "
                    f"largest half-width {num(half)}, so its steps are not told apart from the noise of the local "
                    f"differences."]
    return []


def _ale_half_widths(r):
    """The half-widths of a one-curve ALE's pointwise band at each grid point, or None (no band, or not an ALE)."""
    if r.method != "ale" or r.ci_low is None or np.ndim(r.ci_low) != 1:
        return None
    return (np.asarray(r.ci_high, dtype=float) - np.asarray(r.ci_low, dtype=float)) / 2


def _unsettled_levels(r, grid, avg, ind, lo, hi, what):
    """Unordered levels: whether the order of the lowest and the highest level is told apart from the sampling
    error the result holds -- ICE: the rows' differences between the two levels (SE = their sd / sqrt(n)); ALE: its
    band at the two levels; a PD alone holds no sampling error, which is then said."""
    a, b = _value(grid[hi], True), _value(grid[lo], True)
    diff = float(avg[hi] - avg[lo])
    head = f"Which of {a} and {b} gives the larger {what} is not settled by these rows: they differ by {num(diff)}"
    if ind is not None and ind.ndim == 2 and ind.shape[0] > 1:
        d = ind[:, hi] - ind[:, lo]
        se = float(np.std(d, ddof=1) / np.sqrt(len(d)))
        if diff <= SETTLED_Z * se:
            return [f"{head}, within {SETTLED_Z:g} standard errors (SE {num(se)}, from the spread of the "
                    f"{len(d):,} rows' differences between the two levels); the order of the levels is sampling "
                    f"noise here."]
        return []
    half = _ale_half_widths(r)
    if half is not None:
        width = float(max(half[hi], half[lo]))
        if not np.isfinite(width):
            return [f"Which of {a} and {b} gives the larger {what} is not tested: the band is not given at these "
                    f"levels (a pair of neighbouring levels before them holds fewer than {MIN_BAND_ROWS} rows)."]
        if diff <= width:
            level = r.params.get("confidence_level", 0.95)
            return [f"{head}, within the pointwise {pct(level)} band's half-width at these levels ({num(width)}): "
                    f"one level's value lies inside the other's band, so their order is not told apart from the "
                    f"noise of the local differences."]
        return []
    if r.method == "pd":
        return ["Which level gives the larger PD is not tested here: a PD holds no sampling error (ik.ice on the "
                "same rows gives it, from the rows' differences between the levels)."]
    return []


def _step_se(r, avg, ind):
    """The standard error of each step of the curve where the result holds it (else None): ICE, the spread of the
    rows' steps / sqrt(n); ALE, the spread of the local differences within each interval / sqrt(their count)."""
    m = len(avg)
    if ind is not None and ind.ndim == 2 and ind.shape[0] > 1 and ind.shape[1] == m:
        d = np.diff(ind, axis=1)
        return np.std(d, axis=0, ddof=1) / np.sqrt(d.shape[0])
    if r.method == "ale" and not r.categorical:

        sd = np.asarray(r.extra.get("bin_std", []), dtype=float)
        cnt = np.asarray(r.extra.get("bin_count", []), dtype=float)
        if sd.shape == cnt.shape == (m - 1,):
            # an interval of fewer rows has no standard error worth the name (the band's rule): NaN, not 0
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(cnt >= MIN_BAND_ROWS, sd / np.sqrt(cnt), np.nan)
    return None


def _shape_lines(r, grid, avg, size, what, step_se=None):
    d = np.diff(avg)
    tol = MONOTONE_TOLERANCE * size
    m = len(avg)
    up, down = bool(np.all(d >= -tol)), bool(np.all(d <= tol))
    tol_words = f"{pct(MONOTONE_TOLERANCE)} of the range, {num(tol)}"
    if up and not down:
        worst = float(d.min())
        return [f"Shape: increasing over its {m} grid points -- no step goes down by more than {tol_words}"
                + (f" (the largest step down is {num(-worst)})." if worst < 0 else "; every step is ≥ 0.")]
    if down and not up:
        worst = float(d.max())
        return [f"Shape: decreasing over its {m} grid points -- no step goes up by more than {tol_words}"
                + (f" (the largest step up is {num(worst)})." if worst > 0 else "; every step is ≤ 0.")]
    keep = np.abs(d) > tol
    noise_words = ""
    if step_se is not None:
        # a step within SETTLED_Z standard errors of 0 settles no direction: it is not counted (r3 F5)
        unknown = keep & ~np.isfinite(step_se)
        noisy = keep & ~unknown & ~(np.abs(d) > SETTLED_Z * np.nan_to_num(step_se, nan=np.inf))
        keep &= ~(noisy | unknown)
        larger = int((np.abs(d) > tol).sum())
        parts = ([f"{int(noisy.sum())} of the {larger} larger steps are within {SETTLED_Z:g} standard errors of 0"]
                 if noisy.any() else [])
        if unknown.any():

            parts.append(f"{int(unknown.sum())} {'' if parts else f'of the {larger} larger steps '}have no "
                         f"standard error (an ALE interval of fewer than {MIN_BAND_ROWS} rows)")
        noise_words = (f"; {' and '.join(parts)} and are not counted either" if parts else
                       f"; every counted step is outside {SETTLED_Z:g} standard errors of 0")
    big = d[keep]
    changes = int(np.sum(np.sign(big[1:]) != np.sign(big[:-1]))) if big.size > 1 else 0
    rise, fall = float(d[d > 0].sum()), float(-d[d < 0].sum())
    lo, hi = int(np.argmin(avg)), int(np.argmax(avg))
    where = {0: "at the first grid point", m - 1: "at the last grid point"}
    at_hi, at_lo = (where.get(x, f"inside the grid, at {r.feature} = {_loc(grid[x], grid)}") for x in (hi, lo))
    turns = (f"change direction {changes} time{'s' if changes != 1 else ''}" if big.size else
             "no step is counted for a direction")
    return [f"Shape: not monotone -- its steps rise by {num(rise)} and fall by {num(fall)} in total, and {turns} "
            f"(steps within {tol_words}, ignored{noise_words}); the maximum lies {at_hi}, the minimum {at_lo}."]


def _ice_spread_lines(r, grid, avg, ind, size, unit, ordered):
    """How differently the rows' curves run: the mean-centred curves' spread around their mean, and (ordered grids)
    the change from the first to the last grid point of each curve against the PD's."""
    C = ind - ind.mean(axis=1, keepdims=True)
    rms = float(np.sqrt(np.mean((C - C.mean(axis=0)) ** 2)))
    n = ind.shape[0]
    scale = max(size, float(np.max(np.ptp(ind, axis=1))))
    if rms <= ROUNDING * max(scale, float(np.max(np.abs(ind)))) or rms == 0.0:
        return [f"Heterogeneity: the {n:,} ICE curves are parallel up to rounding (mean-centred, they differ from "
                f"their mean by {num(rms)}, root mean square): on these rows the effect of {r.feature} has the same "
                f"shape for every row (no interaction with the other features shows here)."]
    if size <= 0:
        ref = "while the PD itself is flat"
    elif rms > size:   # a share of a smaller (possibly noise-level) range is no reading aid (r3 F6)
        ref = (f"larger than the PD's range ({num(size)}): the rows' effects go different ways and largely cancel "
               f"in the average")
    else:
        ref = f"{pct(rms / size)} of the PD's range"
    if size > 0 and rms < SMALL_EFFECT_SHARE * size:
        ref += f", below the {pct(SMALL_EFFECT_SHARE)} this explanation calls small"
    out = [f"Heterogeneity: mean-centred, the {n:,} ICE curves differ from their mean by {num(rms)} (root mean "
           f"square over rows and grid points; {ref}): the effect of {r.feature} differs between rows, i.e. it "
           f"interacts with other features"
           + (" -- on the probability scale, where a model additive on the log-odds shows this too (the logistic "
              "link couples the features)." if str(r.output or "").startswith("P(class") else ".")]
    if ordered and len(grid) >= 2:
        ends = ind[:, -1] - ind[:, 0]
        pd_end = float(avg[-1] - avg[0])
        sd = float(np.std(ends))
        line = (f"From {r.feature} = {_loc(grid[0], grid)} to {_loc(grid[-1], grid)} the PD changes by "
                f"{num(pd_end)}; the rows' curves change by {num(np.min(ends))} to {num(np.max(ends))} (standard "
                f"deviation {num(sd)})")
        tol = MONOTONE_TOLERANCE * scale
        if abs(pd_end) > tol:
            against = float(np.mean((np.sign(ends) == -np.sign(pd_end)) & (np.abs(ends) > tol)))
            line += (f", and {pct(against)} of them go the other way (by more than {pct(MONOTONE_TOLERANCE)} of the "
                     f"largest curve's range, {num(tol)}).")
        else:
            line += "."
        out.append(line)
    return out


def _effect_notes(r):
    notes = []
    if r.method in ("pd", "ice") and not r.categorical:
        notes.append("The curve is evaluated at the grid points only; nothing is said between them.")
    if r.info and r.info.get("engine_note"):
        notes.append(f"Engine: {r.info['engine_note']}")
    picked = [s for s in r.params.get("selection", ()) if isinstance(s, dict) and "rows" in s] \
        if isinstance(r.params.get("selection"), (list, tuple)) else []
    if picked:
        notes.append(f"A cohort: {r.info.get('n_rows', '?'):,} of the curves; the average is this cohort's PD.")
    return notes


def _effect_2d(r):
    a, b = r.feature_names
    ga, gb = (np.asarray(g) for g in r.grid)
    P = np.asarray(r.average, dtype=float)
    cats = r.extra.get("categorical", (False, False))
    lines = [f"Grid: {len(ga)} values of {a} × {len(gb)} values of {b} ({len(ga) * len(gb)} combinations); "
             f"averaged over {_rows(r.info, r.params)}."]
    i, j = np.unravel_index(int(np.argmax(P)), P.shape)
    k, m = np.unravel_index(int(np.argmin(P)), P.shape)
    size = float(P[i, j] - P[k, m])
    scale = float(np.max(np.abs(P)))
    if size <= ROUNDING * scale or size == 0.0:
        lines.append(f"The joint PD is flat over the grid up to rounding: its range is {num(size)} in the units of "
                     f"{_of(r.output)}; a flat average is not evidence that the model ignores {a} and {b}.")
        return lines
    va = [_value(ga[x], cats[0], None if cats[0] else ga) for x in (k, i)]
    vb = [_value(gb[x], cats[1], None if cats[1] else gb) for x in (m, j)]
    lines.append(f"Size: the joint PD ranges from {num(P[k, m])} at ({a} = {va[0]}, {b} = {vb[0]}) to "
                 f"{num(P[i, j])} at ({a} = {va[1]}, {b} = {vb[1]}): a range of {num(size)} in the units of "
                 f"{_of(r.output)}.")
    D = P - P.mean()
    resid = D - D.mean(axis=1, keepdims=True) - D.mean(axis=0, keepdims=True)
    share = float(np.sum(resid ** 2) / np.sum(D ** 2)) if np.sum(D ** 2) > 0 else 0.0
    lines.append(f"Of the joint PD's variation over the grid, {pct(share)} is not the sum of a function of {a} and "
                 f"one of {b} (grid points weighted equally -- not the data's distribution, so this is not "
                 f"Friedman's H², which ik.h_statistic computes on the rows).")
    return lines


# ------------------------------------------------------------------------------------------------ HStatisticResult

def explain_hstat(h):
    """The words of :meth:`HStatisticResult.explain`."""
    n = int(h.n_samples)
    names = list(h.feature_names)
    H = np.asarray(h.overall, dtype=float)
    un = None if h.overall_unnormalized is None else np.asarray(h.overall_unnormalized, dtype=float)
    se = None if h.overall_se is None else np.asarray(h.overall_se, dtype=float)
    lines = [f"Friedman's H-statistic (Friedman & Popescu 2008) on {_of(h.output)}, computed on {n:,} rows.",
             "Overall H_j²: the share of the variance of the prediction over these rows that is x_j's interaction "
             "with all other features, Σ(f − PD_j − PD_-j)² / Σ f² (0: f is a function of x_j plus a function of "
             "the others at these rows). Pairwise H_jk²: the share of the variance of the joint PD of x_j and x_k "
             "not explained by the sum of their one-way PDs (all functions centred).", ""]
    if str(h.output) == "P(class)":
        lines[1] += " Here f is the vector of class probabilities (squares summed over the classes)."

    def with_se(v, s):
        return f"{num(v)}" + (f" (SE {num(s)})" if s is not None and np.isfinite(s) else "")

    # Var(f) over the rows: H_j² = h_un_j² / Var(f) for any feature with H_j² > 0
    var_f = None
    if un is not None:
        ok = np.isfinite(H) & (H > 0) & np.isfinite(un)
        if ok.any():
            j = int(np.flatnonzero(ok)[np.argmax(H[ok])])
            var_f = float(un[j] ** 2 / H[j])
    if len(names):
        order = [j for j in np.argsort(-np.nan_to_num(H, nan=-np.inf), kind="stable")]
        finite = [j for j in order if np.isfinite(H[j])]
        zero = sorted(j for j in finite if abs(H[j]) <= ROUNDING)
        nonzero = [j for j in finite if abs(H[j]) > ROUNDING]
        if nonzero:
            top = nonzero[:3]
            items = "; ".join(f"{names[j]} {with_se(H[j], None if se is None else se[j])}"
                              + (f", i.e. its interaction part moves the prediction by {num(un[j])} (root mean "
                                 f"square)" if un is not None else "") for j in top)
            lines.append(f"Largest overall H²: {items}.")
            if len(top) > 1 and se is not None:
                lines += _unsettled_first(names[top[0]], names[top[1]], H[top[0]], H[top[1]], se[top[0]],
                                          se[top[1]], n)
            rest = nonzero[3:]
            if rest:
                lines.append(f"The other {len(rest)} feature{'s' if len(rest) > 1 else ''} with H² above rounding: "
                             f"at most {num(H[rest[0]])}.")
        if zero:
            zn = [names[j] for j in zero]
            lines.append(f"H² is 0 up to rounding (|H²| ≤ {ROUNDING:g}) for {', '.join(zn[:8])}"
                         f"{f' and {len(zn) - 8} others' if len(zn) > 8 else ''}: on these rows the prediction is "
                         f"additive in {'that feature' if len(zn) == 1 else 'each of them'} and the rest.")
        nan = [names[j] for j in order if not np.isfinite(H[j])]
        if nan:
            lines.append(f"H² is undefined (0/0: the prediction does not vary over these rows) for {', '.join(nan)}.")
    pw = h.pairwise
    if len(pw):
        v = pw["h2"].to_numpy(dtype=float)
        top = [i for i in range(len(pw)) if np.isfinite(v[i]) and abs(v[i]) > ROUNDING][:3]
        n_zero = int(np.sum(np.isfinite(v) & (np.abs(v) <= ROUNDING)))
        items = []
        for i in top:
            row = pw.iloc[i]
            s = row.get("h2_se", np.nan)
            items.append(f"{row['feature_1']} × {row['feature_2']} {with_se(row['h2'], s)}"
                         + (f", interaction part {num(row['h_unnormalized'])} (root mean square)"
                            if "h_unnormalized" in pw else ""))
        n_top = min(int(h.params.get("n_top", len(names)) or len(names)), len(names))
        which = {"top": f"the pairs among the {n_top} features of largest overall H²",
                 "all": "every pair of the features", "list": "the pairs asked for"}.get(
            h.params.get("pairs") if isinstance(h.params.get("pairs"), str) else "list", "the pairs asked for")
        fin = H[np.isfinite(H)]
        if h.params.get("pairs") == "top" and fin.size and np.all(np.abs(fin) <= ROUNDING) and n_top < len(names):
            which += (f"; every overall H² is 0 up to rounding (at most {num(np.max(np.abs(fin)))}), so which "
                      f"{n_top} features these are was decided by rounding noise: the pairs are arbitrary")
        head = f"Pairwise H² ({len(pw)} pair{'s' if len(pw) != 1 else ''}: {which})"
        if items:
            lines.append(f"{head}; largest: " + "; ".join(items) + "."
                         + (f" {n_zero} pair{'s are' if n_zero != 1 else ' is'} at 0 up to rounding."
                            if n_zero else ""))
        elif not np.isfinite(v).any():
            lines.append(f"{head}: every one is undefined (0/0: the joint PDs do not vary over these rows).")
        elif n_zero == len(pw):
            lines.append(f"{head}: every one is 0 up to rounding (|H²| ≤ {ROUNDING:g}): on these rows each pair's "
                         f"joint PD is the sum of its one-way PDs.")
        if len(top) > 1 and "h2_se" in pw:
            a, b = pw.iloc[top[0]], pw.iloc[top[1]]
            lines += _unsettled_first(f"{a['feature_1']} × {a['feature_2']}", f"{b['feature_1']} × {b['feature_2']}",
                                      a["h2"], b["h2"], a["h2_se"], b["h2_se"], n)
        if h.params.get("pairs") == "top":
            lines.append("Pairs not computed are not in the table: that is not evidence that they do not interact.")
        over = pw[v > 1.0]
        if len(over):
            lines.append("A pairwise H² above 1 is not a share: the two features' own effects cancel in their joint "
                         "PD, whose variation is smaller than the interaction part: "
                         + "; ".join(f"{a} × {b} ({num(x)})" for a, b, x in
                                     over[["feature_1", "feature_2", "h2"]].itertuples(index=False)) + ".")
        if var_f is not None and "h_unnormalized" in pw:
            unstable = []
            for a, b, x, u in pw[["feature_1", "feature_2", "h2", "h_unnormalized"]].itertuples(index=False):
                # only a large H² can be an artefact of a small denominator (r3 F8)
                if np.isfinite(x) and x >= SMALL_EFFECT_SHARE and np.isfinite(u):
                    joint = float(np.sqrt(u ** 2 / x))
                    if joint < SMALL_JOINT_PD * np.sqrt(var_f):
                        unstable.append(f"{a} × {b} (H² {num(x)}; joint PD {num(joint)} against "
                                        f"{num(np.sqrt(var_f))})")
            if unstable:
                lines.append(f"Unstable ratios: where the joint PD of a pair varies little, H² divides by a small "
                             f"number and can be large although the interaction moves the prediction by almost "
                             f"nothing. H² is at least {pct(SMALL_EFFECT_SHARE)} while the joint PD's root mean "
                             f"square is below {pct(SMALL_JOINT_PD)} of the prediction's for "
                             + "; ".join(unstable[:5]) + ".")
    lines.append("")
    maxse = None
    if se is not None and np.isfinite(se).any():
        maxse = float(np.nanmax(se))
    boot = h.extra.get("n_boot", 0)
    base = (f"Sampling: the partial dependences average over the same {n:,} rows at which H² is summed"
            + (f"; the SEs are bootstraps over those rows ({boot} resamples; largest overall SE {num(maxse)}), "
               f"their sampling error, not the bias of H² at small n." if boot and maxse is not None else "."))
    if n < FEW_H_ROWS:
        base += (f" With fewer than {FEW_H_ROWS} rows H² is noisy: read small differences between features as "
                 f"unsettled.")
    lines.append(base)
    out = str(h.output or "")
    if out.startswith("P(class"):
        lines.append(f"Scale: H² is computed on the probability {out}; a model additive on the log-odds (a "
                     f"logistic regression without interaction terms) has H² > 0 on this scale, because the "
                     f"logistic link couples the features' effects -- H² > 0 here does not say the model has "
                     f"interaction terms.")
    return "\n".join(lines)


def _unsettled_first(a, b, ha, hb, sa, sb, n):
    """A sentence when the two largest H² are within ``SETTLED_Z`` standard errors of their difference (the
    bootstrap SEs combined as if independent): which is the larger is then not settled at these rows."""
    if not (np.isfinite(sa) and np.isfinite(sb)):
        return []
    se = float(np.hypot(sa, sb))
    diff = float(ha - hb)
    if se > 0 and diff <= SETTLED_Z * se:
        return [f"Which of {a} and {b} is larger is not settled at {n:,} rows: they differ by {num(diff)}, within "
                f"{SETTLED_Z:g} standard errors of the difference ({num(se)}, their bootstrap SEs combined)."]
    return []


# -------------------------------------------------------------------------------------------------- RegionalResult

def pct_beside(v, threshold, digits=1):
    """``v`` as a percentage with ``digits`` decimals, or more where fewer would print it on the other side of
    ``threshold`` than it lies (College's Outstate: 0.09996 of the range printed "10.0%, below the 10% needed").

    Examples
    --------
    >>> pct_beside(0.09996, 0.1), pct_beside(0.123, 0.1), pct_beside(0.1, 0.1, 0)
    ('9.996%', '12.3%', '10%')
    """
    v = float(v)
    if not np.isfinite(v):
        return f"{v:.{digits}%}"
    below = v < threshold
    for d in range(digits, digits + 8):
        said = round(100 * v, d)
        if (said / 100 < threshold) == below:
            return f"{said:.{d}f}%"
    return f"{100 * v:.12g}%"


class RowEffects:
    """How far the rows' own effects of a REPID feature are from their region's and from the overall one.

    Attributes
    ----------
    within, within_max : float
        Root mean square over the rows, and largest, of the range over the grid of each row's centred ICE curve
        minus its region's (:func:`~imlkit.effects._repid.row_effect_spread`); for several classes, those of the
        class ``label`` names.
    total, total_max : float
        The same around the overall centred curve.
    span : float
        The effect's range: the largest range (max − min over the grid) of the global and the regional PDs (so a
        pure interaction, whose global PD is flat, still has a scale); for several classes, that class's.
    label : str
        ", for class c" when the result explains several classes (the class whose rows' effects are furthest
        apart relative to its range), else "".
    """

    label = ""   # ", for class c" where the result explains several classes

    def __init__(self, within, within_max, total, total_max, span):
        self.within, self.within_max, self.total, self.total_max, self.span = (
            float(within), float(within_max), float(total), float(total_max), float(span))

    def share(self, v):
        """``v`` as a share of the effect's range (inf where the range is 0 and ``v`` is not)."""
        return v / self.span if self.span > 0 else (0.0 if v == 0 else np.inf)


def row_effects(g):
    """The :class:`RowEffects` of a REPID result, or None when it does not hold them (a result from before they
    were recorded): the per-point spreads it holds then bound them only from below, which cannot show that the
    rows' effects are alike."""
    ex = getattr(g, "extra", None) or {}
    keys = ("row_effect_within", "row_effect_within_max", "row_effect_total", "row_effect_total_max")
    if any(ex.get(k) is None for k in keys):
        return None
    vals = [np.atleast_1d(np.asarray(ex[k], dtype=float)) for k in keys]
    # the effect's range per class (max − min over the grid, the largest of the global and the regional PDs)
    spans = np.max([np.atleast_1d(np.ptp(np.asarray(c, dtype=float), axis=0))
                    for c in [g.average, *(r.average for r in g.regions)]], axis=0)
    e = RowEffects(*(v[0] for v in vals), spans[0])
    if len(spans) > 1:
        # several classes: the class whose rows' effects are furthest apart, on its own effect's range
        with np.errstate(divide="ignore", invalid="ignore"):
            worst = np.nan_to_num(np.maximum(vals[0], vals[2]) / spans, nan=0.0, posinf=np.inf)
        c = int(np.argmax(worst))
        e = RowEffects(*(v[c] for v in vals), spans[c])
        classes = ex.get("classes")
        e.label = f", for class {classes[c] if classes is not None else c}"
    return e


def row_effect_words(g, feature=None, min_node_size=None):
    """The one rule, for the report and :meth:`RegionalResult.explain`, on whether the effect of a REPID feature is
    about the same for every row: ``(kind, words)``.

    ``kind``: ``"unsearched"`` when no split was made because the rows are fewer than 2 · ``min_node_size`` (REPID
    could look for no region: no evidence either way, so "about the same for every row" is never said, only how
    far the rows' own effects are from the overall one); ``"same"`` when the rows' own effects are within
    :data:`MATERIAL_EFFECT_SHARE` of the effect's range of their region's, in root mean square over the rows,
    *and* around the overall curve (each part small is not both together); ``"differs"`` otherwise;
    ``"unknown"`` when the result does not hold the rows' effects. ``words``: a clause, lower case, to follow a
    semicolon or start a sentence.

    Each row's own effect is measured on the scale of the effect: the range over the grid of its centred ICE curve
    minus its region's (:func:`~imlkit.effects._repid.row_effect_spread`), which for a linear ICE curve is the
    difference of the row's slope from the region's times the grid's width, and for a binary feature the
    difference of the row's effect Δ_i from the region's mean. The spread of the centred curves at one grid
    point is about half of that at the ends of a symmetric grid, so a rule reading it had let the effect vary by
    twice the share (spector's PSI: per-row effects 0.32 to 0.53 were "about the same for every row").
    """
    f = feature or g.feature
    share = MATERIAL_EFFECT_SHARE
    n = int(g.tree[0].n)
    split = any(not getattr(nd, "is_leaf", True) for nd in g.tree)
    unsearched = not split and min_node_size is not None and n < 2 * min_node_size
    e = row_effects(g)
    if e is None:
        if unsearched:
            return "unsearched", (f"REPID could look for no region, which is no evidence either way about whether "
                                  f"the effect of {f} is the same for every row")
        return "unknown", (f"this result does not hold how far the rows' own effects of {f} are from their "
                           f"region's, so whether the effect is about the same for every row is not judged")
    what = (f"each row's own effect of {f}{e.label} (the range over the grid of its centred ICE curve minus "
            + ("its region's" if split else "the overall one") + ")")
    if unsearched:
        above = e.share(e.total) >= share
        return "unsearched", (
            f"REPID could look for no region, which is no evidence either way about whether the effect of {f} "
            f"differs between groups of rows; {what} differs from the overall effect by {num(e.total)} in root mean "
            f"square over the {n:,} rows, {pct_beside(e.share(e.total), share)} of the effect's range "
            f"{num(e.span)} (the furthest row {num(e.total_max)}, {pct(e.share(e.total_max))}), "
            + (f"above the {pct(share)} that would matter: on these rows the effect of {f} is not the same for "
               f"every row." if above else
               f"below the {pct(share)} that would matter on these rows."))
    numbers = (f"{what} differs from " + ("its region's" if split else "the overall effect")
               + f" by {num(e.within)} in root mean square over the {n:,} rows, "
               f"{pct_beside(e.share(e.within), share)} of the effect's range {num(e.span)} (the furthest row "
               f"{num(e.within_max)}, {pct(e.share(e.within_max))})")
    if e.share(e.within) >= share:
        return "differs", (f"{numbers}, above the {pct(share)} that would matter: the effect of {f} is not the "
                           f"same for every row.")
    if e.share(e.total) >= share:
        # each part below the share, not together (star98's MLPRegressor: regions 8.5% apart, curves within them 7%)
        return "differs", (f"{numbers}, below the {pct(share)} that would matter, yet around the overall curve "
                           f"they differ by {num(e.total)} in root mean square "
                           f"({pct_beside(e.share(e.total), share)}), above it: the effect of {f} is not the same "
                           f"for every row; the regions' curves and the rows within a region each stay below "
                           f"the share, not together.")
    if e.share(e.within_max) < share:
        return "same", (f"{numbers}, below the {pct(share)} that would matter: the effect of {f} is about the same "
                        f"for every row.")
    return "same", (f"{numbers}, below the {pct(share)} that would matter in root mean square: the effect of {f} is "
                    f"about the same for the typical row, though the furthest row's differs by more.")


def explain_regional(g):
    """The words of :meth:`RegionalResult.explain`."""
    f = g.feature
    root = g.tree[0]
    m = int(np.size(g.regions[0].centered_average)) if g.regions else int(np.size(g.grid))
    n = int(root.n)
    gamma = g.params.get("min_improvement", 0.1)
    depth = g.params.get("max_depth")
    size = g.params.get("min_node_size")
    root_h = root.risk / (n * m) if n and m else 0.0
    span = float(np.ptp(np.ravel(np.asarray(g.average, dtype=float))))
    lines = [f"REPID regional effects (Herbinger et al. 2022) of {f} on {_of(g.output)}, from {n:,} rows and "
             f"{np.size(g.grid)} grid points.",
             f"REPID splits the rows by other features so that the mean-centred ICE curves of {f} within each region "
             f"are alike; a region's heterogeneity is the mean squared deviation of its centred curves from their "
             f"mean, and a split's improvement (intImp) is the share of the root's heterogeneity it removes.", ""]
    lines.append(f"Before any split: heterogeneity {num(root_h)} (root mean square {num(np.sqrt(root_h))}, against "
                 f"a range of {num(span)} of the global PD).")
    splits = [nd for nd in g.tree if not nd.is_leaf]
    if not splits:
        floor = g.extra.get("rounding_floor")
        if g.extra.get("equal_up_to_rounding"):
            lines.append(f"No split: the centred ICE curves coincide up to rounding (root mean square "
                         f"{num(np.sqrt(root_h))}, at most REPID's rounding floor {num(floor)}), so the effect of "
                         f"{f} has the same shape for every row of these and there is nothing to split.")
        elif size is not None and n < 2 * size:
            words = row_effect_words(g, f, size)[1]
            lines.append(f"No split could be made: each region needs at least {size:,} rows (min_node_size), so a "
                         f"split needs {2 * size:,} and there are {n:,}. {words[0].upper()}{words[1:]}"
                         + ("" if words.endswith(".") else "."))
        else:
            lines.append(f"No split met REPID's stopping rule: a first split must remove at least {pct(gamma)} of "
                         f"the heterogeneity (min_improvement γ = {gamma}), with at least {size:,} rows on each "
                         f"side, and no single split on "
                         + f"{', '.join(g.split_features[:8])}{' and others' if len(g.split_features) > 8 else ''} "
                         + "removes that much (the result does not record how much the best one removed). The "
                         + f"heterogeneity stays at root mean square {num(np.sqrt(root_h))}"
                         + (f" ({pct(np.sqrt(root_h) / span)} of the PD's range)" if span > 0 else "")
                         + "; that no split met the rule is not evidence that the effect is the same for every row.")
            lines.append(_row_effect_line(g, f, size))
        return "\n".join(lines)
    lines.append("Splits (breadth first):")
    by_id = {nd.id: nd for nd in g.tree}
    for nd in splits:
        where = _rule_text(g, nd.id)
        thr = (f"{nd.feature} = {nd.level!r} against the rest" if nd.kind == "nominal" else
               f"{_split_text(nd, 'left')} / {_split_text(nd, 'right')}")
        kids = by_id[nd.left].n, by_id[nd.right].n
        lines.append(f"- in {where} ({nd.n:,} rows): {thr} ({kids[0]:,} and {kids[1]:,} rows), removing "
                     f"{pct(nd.int_imp)} of the root's heterogeneity.")
    leaves = sum(r.risk for r in g.regions)
    kept = leaves / root.risk if root.risk > 0 else 0.0
    left_h = leaves / (n * m) if n and m else 0.0
    lines.append(f"After the splits: heterogeneity {num(left_h)} (root mean square {num(np.sqrt(left_h))}), "
                 f"{pct(kept)} of the root's; the splits removed {pct(1 - kept)}.")
    lines.append("Regions:")
    for r in g.regions:
        avg = np.asarray(r.average, dtype=float)
        lines.append(f"- {_rule_text(g, r.node)}: {r.n:,} rows, heterogeneity {num(r.heterogeneity)}, regional PD from "
                     f"{num(np.min(avg))} to {num(np.max(avg))} (range {num(np.ptp(avg))}; global {num(span)}).")
    scores = g.interaction_scores[g.interaction_scores > 0]
    best = {c: max(nd.int_imp for nd in splits if nd.feature == c) for c in scores.index}

    def split_words(c):
        k = _n_splits(g, c)
        if k == 1:
            return f"{c} (its split removes {pct(best[c])})"
        return (f"{c} (its largest single split removes {pct(best[c])}; its {k} splits, in different regions, "
                f"remove {pct(scores[c])} together)")

    # γ is REPID's bar for one split: a feature meets it only through a single split, never through a sum
    strong = [c for c in scores.index if best[c] >= gamma]
    weak = [c for c in scores.index if c not in strong]
    if strong:
        lines.append("Interaction: the effect of " + f + " depends on "
                     + ", ".join(split_words(c) for c in strong)
                     + f" -- {'a single split' if len(strong) == 1 else 'each has a single split'} removing at "
                       f"least the {pct(gamma)} (γ) REPID asks of a first split"
                     + (f"; but all of the heterogeneity is small: root mean square {num(np.sqrt(root_h))}, "
                        f"{pct(np.sqrt(root_h) / span)} of the PD's range, below the {pct(SMALL_EFFECT_SHARE)} this "
                        f"explanation calls small." if span > 0 and np.sqrt(root_h) < SMALL_EFFECT_SHARE * span
                        else "."))
    if weak:
        one = len(weak) == 1
        lines.append("Splits below the root pass a relative bar (γ × their parent's intImp): "
                     + ", ".join(split_words(c) for c in weak)
                     + f" shape{'s' if one else ''} the regions, but no single split on "
                       f"{'it' if one else 'them'} removes γ = {pct(gamma)} of the heterogeneity"
                     + (" (a sum over splits in different regions is not a split meeting γ)."
                        if any(scores[c] >= gamma for c in weak) else "."))
    lines.append(_row_effect_line(g, f, size))
    if depth is not None:
        reached = max(nd.depth for nd in g.tree)
        if reached >= depth and left_h > 0:
            lines.append(f"The tree reached max_depth = {depth}; the heterogeneity left may be split further by a "
                         f"deeper tree.")
    if str(g.output or "").startswith("P(class"):
        lines.append("These regions are of a probability: a model additive on the log-odds has regions on this "
                     "scale too (the logistic link couples the features), so they do not say the model has "
                     "interaction terms.")
    return "\n".join(lines)


def _row_effect_line(g, f, size):
    """:func:`row_effect_words` as a sentence of its own."""
    words = row_effect_words(g, f, size)[1]
    return "Rows: " + words + ("" if words.endswith(".") else ".")


def _rule_text(g, node_id):
    """The path to a node as one condition per feature: the thresholds of repeated numeric splits on a feature
    merged into one interval (``123.5 < CompPrice <= 144.5``), numbers as positions (:func:`_loc`)."""
    by_id = {nd.id: nd for nd in g.tree}
    path = []
    nd = by_id[node_id]
    while nd.parent is not None:
        parent = by_id[nd.parent]
        path.append((parent, "left" if parent.left == nd.id else "right"))
        nd = parent
    bounds, order, other = {}, [], []
    for parent, side in reversed(path):
        f = parent.feature
        if parent.kind == "numeric":
            lo, hi = bounds.get(f, (-np.inf, np.inf))
            t = float(parent.threshold)
            bounds[f] = (lo, min(hi, t)) if side == "left" else (max(lo, t), hi)
            if f not in order:
                order.append(f)
        else:
            c = parent.condition(side)
            if c not in other:
                other.append(c)
    parts = []
    for f in order:
        lo, hi = bounds[f]
        if np.isfinite(lo) and np.isfinite(hi):
            parts.append(f"{_loc(lo)} < {f} <= {_loc(hi)}")
        elif np.isfinite(hi):
            parts.append(f"{f} <= {_loc(hi)}")
        else:
            parts.append(f"{f} > {_loc(lo)}")
    return " & ".join(parts + other) or "all rows"


def _split_text(nd, side):
    if nd.kind == "numeric":
        return f"{nd.feature} <= {_loc(nd.threshold)}" if side == "left" else f"{nd.feature} > {_loc(nd.threshold)}"
    return nd.condition(side)


def _n_splits(g, feature):
    return sum(1 for nd in g.tree if nd.feature == feature)


# --------------------------------------------------------------------------------------------- HeterogeneityResult

def explain_heterogeneity(h):
    """The words of :meth:`HeterogeneityResult.explain`."""
    names = list(h.feature_names)
    v = np.asarray(h.heterogeneity, dtype=float)
    sizes = np.asarray(h.grid_sizes, dtype=int)
    lines = [f"c-ICE heterogeneity (Goldstein et al. 2015; Herbinger et al. 2022) of {len(names)} feature"
             f"{'s' if len(names) != 1 else ''} on {_of(h.output)}, from {int(h.n_samples):,} rows.",
             "For each feature: the mean over its grid of the variance across rows of its mean-centred ICE curves "
             "(REPID's root risk per row and grid point). 0 when the feature enters additively; it is in squared "
             "units of the output and grows with the size of the feature's effect, so it ranks features for REPID "
             "and is not a share like H².", ""]
    floors = h.extra.get("rounding_floor", {}) or {}
    at_floor = set(h.extra.get("at_rounding_floor", ()) or ())
    constant = set(h.extra.get("constant", ()) or ())
    order = np.argsort(-v, kind="stable")
    items = []
    for j in order:
        f = names[j]
        if f in constant:
            continue
        tail = " (equal up to rounding)" if f in at_floor else ""
        items.append(f"{f} {num(v[j])} (root mean square {num(np.sqrt(max(v[j], 0)))}; {sizes[j]} grid points)"
                     f"{tail}")
    if items:
        lines.append("Ranking: " + "; ".join(items[:10]) + (f"; and {len(items) - 10} more." if len(items) > 10
                                                              else "."))
    if h.extra.get("equal_up_to_rounding"):
        lines.append("Every feature's centred curves are equal up to rounding (sqrt(H_j) at most its rounding floor, "
                     f"largest floor {num(max(floors.values()) if floors else 0)}): the model is additive in "
                     "these features on these rows, and the ranking orders rounding noise.")
    elif at_floor:
        af = [f for f in names if f in at_floor and f not in constant]
        if af:
            lines.append(f"Equal up to rounding (sqrt(H_j) at most the rounding floor τ_j): {', '.join(af)} -- "
                         f"additive on these rows; their order among themselves is rounding noise.")
        top = names[int(order[0])]
        if top not in at_floor:
            lines.append(f"Most heterogeneous: {top} ({num(v[order[0]])}); REPID on {top} is where regions are "
                         f"worth looking for.")
    else:
        top = names[int(order[0])]
        lines.append(f"Most heterogeneous: {top} ({num(v[order[0]])}); REPID on {top} is where regions are worth "
                     f"looking for.")
    if constant:
        lines.append(f"Constant on these rows (one value, heterogeneity 0 by definition): "
                     f"{', '.join(sorted(constant))}.")
    return "\n".join(lines)
