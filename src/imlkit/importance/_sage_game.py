"""The SAGE game: v(S) = R(f_∅) − R(f_S) for one model, rows, loss and set of players.

:class:`SageGame` evaluates f_S on stacked hybrid rows (the predict path); the tree engine's game
(:mod:`._sage_trees`) subclasses it and takes f_S from the trees. :mod:`._sage_value` builds games
and holds the public :func:`~imlkit.importance.sage_value`; see its docstring for the removal
kinds and the common random numbers.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._model import DEFAULT_MAX_ROWS, stack_frame

__all__ = ["SageGame"]

#: Hybrid rows built at once when the user sets no ``max_rows``: ~50 MB for 12 float columns.
_CHUNK_ROWS = 1 << 19
#: Outputs per hybrid row up to which a chunk keeps ``_CHUNK_ROWS`` rows (2^19 x 8 doubles = 32 MB of predictions).
_CHUNK_OUTPUTS = 8


def variance_groups(b):
    """G, the groups of B/G background rows whose means estimate a B-row mean's variance: the largest
    divisor of B up to 8 (B itself, groups of one row, when no divisor from 2 to 8 exists)."""
    for g in range(min(8, b), 1, -1):
        if b % g == 0:
            return g
    return b


class SageGame:
    """v(S) for coalitions of players over (a subset of) the evaluation rows.

    Parameters
    ----------
    predictor : Predictor
    X : DataFrame, shape (n, p)
    y : ndarray, shape (n,)
        Encoded for the loss (class positions for probability losses).
    loss : Loss
    players : list of list of str, length m
        The columns of each player.
    removal : {"marginal", "conditional"}
    background : DataFrame, shape (B, p)
        Marginal draws of the dropped features; its mean prediction is f_∅ until
        :meth:`empty_from_rows` takes f_∅ from every row of X instead.
    sampler : Sampler or None
        Fitted conditional sampler (conditional removal only).
    n_draws : int
        B: draws of the dropped features averaged per prediction.
    classes : ndarray or None
        Set when a label loss is evaluated on probabilities: f_S is the class with the
        largest mean probability.
    vote : bool
        A label loss on a model without probabilities: f_S is the most frequent label.
    """

    def __init__(self, *, predictor, X, y, loss, players, removal, background, sampler, n_draws,
                 classes=None, vote=False, max_rows=None, sampler_fit_on_X=False):
        self.predictor = predictor
        self.X = X
        self.y = y
        self.loss = loss
        self.players = players
        self.removal = removal
        self.background = background
        self.sampler = sampler
        self.n_draws = n_draws
        self.classes = classes
        self.vote = vote
        self.max_rows = max_rows
        # The sampler was fitted on X itself: draws can be taken as row indices of X and the
        # hybrid rows built from X's arrays (the lean path of _conditional). So they can when X's
        # rows are the first rows of the sampler's data (the features of more rows after them,
        # e.g. the report's training rows): the arrays then hold those further rows after X's.
        self._more_rows = None
        if not sampler_fit_on_X and removal == "conditional":
            self._more_rows = _rows_after(sampler, X)
            sampler_fit_on_X = self._more_rows is not None
        self.sampler_fit_on_X = sampler_fit_on_X
        cols = list(X.columns)
        # Column membership of each player: (m, p) bool, used to expand player masks.
        self.player_columns = np.zeros((len(players), len(cols)), dtype=bool)
        for k, pc in enumerate(players):
            self.player_columns[k, [cols.index(c) for c in pc]] = True
        self._prepare_arrays()
        self.fixed_columns = self._fixed_columns()
        self.full_pred = predictor.predict(X, context="the unperturbed data")
        bg_pred = predictor.predict(background, context="the background rows")
        #: f_∅ from the background rows (SHAP's base value; SAGE's until :meth:`empty_from_rows`).
        self.background_empty_pred = self._average(bg_pred[None])[0]
        self.empty_pred = self.background_empty_pred
        #: Where f_∅ comes from: "background" (its B rows) or "rows" (every row of X).
        self.empty_source = "background"
        #: B when the permutation estimator draws B rows of X afresh for every sample (ordering)
        #: instead of using ``background`` (:meth:`background_per_sample`); 0 otherwise.
        self.fresh_background = 0

    def choose_empty(self, background_given):
        """Take f_∅ from every row of X where that keeps the game's properties; returns where it came from.

        Conditional removal, and marginal removal of a single player with a background drawn from
        X, take the rows' mean prediction (:meth:`empty_from_rows`). Marginal removal of several
        players keeps the background's: only then is a feature the model does not use a null player
        exactly (f_{S∪j} = f_S for every S, ∅ included, as the hybrid rows are the same). A
        background the caller gave is the reference distribution of marginal removal: its mean stays.
        """
        if self.removal == "conditional" or (not background_given and len(self.players) == 1):
            self.empty_from_rows()
        return self.empty_source

    def empty_from_rows(self):
        """Take f_∅, the prediction without any feature, from the model's predictions on every row of X.

        f_∅ = E[f(X)] (Covert et al. 2020). The mean over the B background rows estimates it with
        an error of variance Var f / B, and every convex loss of it is biased upward (Jensen): by
        about Var f / B for squared error, far more for the log loss of many classes, so that
        v(N) = R(f_∅) − R(f), the total the SAGE values sum to, was inflated by the background's
        size (engel, 16 rows: 64,700 for 51,232). The predictions on every row of X are computed
        for v(N) anyway: their mean (mean probability vector; majority label for a label-only
        model) is exactly "the model's mean prediction" on these rows, at no extra cost.
        """
        self.empty_pred = self.rows_empty_pred()
        self.empty_source = "rows"

    def background_per_sample(self):
        """Let the permutation estimator draw a fresh background for every sample; returns whether it will.

        Marginal removal of several players with a background drawn from X: one fixed sample of B
        rows makes every v(S) a function of that sample, and the orderings' standard error leaves its
        noise out (ISLP Auto, 32 rows: acceleration -1.36 [-2.05, -0.67] with one background, +0.40
        [-0.08, 0.88] with another). With B rows of X drawn afresh for every (row, ordering) sample,
        the samples are i.i.d. over (row, ordering, background) and their standard error covers all
        three. When X has at most B rows every row is the background and nothing is drawn.
        """
        if self.removal == "marginal" and len(self.players) > 1 and len(self.X) > self.n_draws:
            self.fresh_background = self.n_draws
        return bool(self.fresh_background)

    def draw_backgrounds(self, n_samples, rng):
        """(n_samples, B) rows of X, each sample's B drawn without replacement (:meth:`background_per_sample`)."""
        n, b = len(self.X), self.fresh_background
        return np.stack([rng.choice(n, size=b, replace=False) for _ in range(n_samples)]).astype(np.intp)

    #: Losses whose value of a B-row mean is corrected for the mean's variance (:meth:`background_losses`).
    SQUARE_LOSSES = ("squared_error", "brier")

    def background_losses(self, rows, masks, keys, backgrounds):
        """Losses of pairs (row i, coalition S) completed by their sample's background rows: ``(loss, f̂_S, corr)``.

        ``loss`` (q,) is L(y_i, f̂_S(x_i)) minus ``corr`` (q,), and ``f̂_S`` (q[, k]) the mean prediction
        over the B rows. A squared loss (squared error; Brier over the classes) of a B-row mean is biased
        upward by the mean's variance (Jensen): E (y − f̂)² = (y − f)² + Var f̂, with f the mean over every
        row of X. Drawn without replacement from the n rows, Var f̂ = (1 − B/n) σ²/B. With the B rows in
        G groups of B/G (:func:`variance_groups`) and s²_G the variance of the G group means (divisor
        G − 1), E s²_G = σ² G/B (the groups' covariance −σ²/n cancels the finite-population term), so
        corr = (1 − B/n) s²_G/G is an unbiased estimate of Var f̂ and the corrected loss is unbiased for
        the loss of f_S over every row of X; the same predictions giving the same correction, a feature
        the model does not use still changes nothing. (G groups, not B rows: the tree engine then adds
        G counts per leaf instead of keeping every row's score.) Other losses are not corrected (``corr``
        0): their bias is O(1/B).
        """
        rows = np.asarray(rows, dtype=np.intp)
        b, n = self.fresh_background, len(self.X)
        square = (self.loss.name in self.SQUARE_LOSSES and not self.vote and self.classes is None and b > 1
                  and self.full_pred.dtype.kind in "fc")
        if not square:
            pred = self.coalition_predictions(rows, masks, None, keys=keys, backgrounds=backgrounds)
            return self.pointwise_loss(rows, pred), pred, np.zeros(len(rows))
        g = variance_groups(b)
        grouped = self.coalition_predictions(rows, masks, None, keys=keys, backgrounds=backgrounds, groups=g)
        pred = grouped.mean(axis=1)
        var = grouped.var(axis=1, ddof=1)
        corr = (1.0 - b / n) / g * (var.reshape(len(rows), -1).sum(axis=1))
        return self.pointwise_loss(rows, pred) - corr, pred, corr

    def risks_empty(self, preds):
        """R(c) over every row of X for each constant prediction c of ``preds`` (s[, k]): (s,)."""
        n = len(self.X)
        out = np.empty(len(preds))
        step = max(1, (1 << 20) // max(n, 1))
        rows = np.arange(n)
        for a in range(0, len(preds), step):
            c = preds[a:a + step]
            pred = np.repeat(c, n, axis=0)
            out[a:a + len(c)] = self.pointwise_loss(np.tile(rows, len(c)), pred).reshape(len(c), n).mean(axis=1)
        return out

    def rows_empty_pred(self):
        """The model's mean prediction over every row of X (mean probability vector; majority label)."""
        return self._average(self.full_pred[None])[0]

    def constant_prediction(self, rtol=1e-12, more=None):
        """The model's one prediction when it predicts the same for every row of X (to rounding), else None.

        Equal means a spread (max − min, per class for probabilities) of at most ``rtol`` x the
        scale: 1 for probabilities, else the larger of the target's sd and the largest |prediction|;
        a label-only model's labels must be identical. ``more``: further predictions (of
        coalitions, shaped like ``full_pred``'s rows) that must equal it too.
        """
        pred = self.full_pred if more is None else np.concatenate([self.full_pred, np.asarray(more)])
        if len(pred) == 0:
            return None
        if self.vote or pred.dtype.kind not in "biufc":
            return pred[0] if bool(np.all(pred == pred[0])) else None
        pred = np.asarray(pred, dtype=float)
        if pred.ndim > 1:
            scale = 1.0
        else:
            y = np.asarray(self.y)
            spread = float(np.std(y)) if y.dtype.kind in "biuf" and np.isfinite(y).all() else 0.0
            scale = max(spread, float(np.max(np.abs(pred))))
        if np.max(np.ptp(pred, axis=0)) <= rtol * scale:
            return pred[0]
        return None

    def _fixed_columns(self):
        """(p,) bool: columns whose value a conditional draw cannot change.

        A column constant in X (and, with the same value, in the sampler's fitted data) takes
        that value whether it is kept or drawn, and conditioning on a constant is conditioning
        on nothing. Treating it as always kept gives the sampler the same dropped set with and
        without the column, so -- with common random numbers -- the column is a null player
        of the estimated game exactly, as it is of the true one (its φ is 0, not noise).
        """
        fixed = np.zeros(len(self.X.columns), dtype=bool)
        if self.removal != "conditional" or len(self.X) == 0:
            return fixed
        fit = getattr(self.sampler, "X_fit_", None)
        for k, c in enumerate(self.X.columns):
            col = self.X[c]
            if col.nunique(dropna=False) != 1:
                continue
            if fit is not None:
                other = fit[c] if c in fit.columns else None
                if other is None or other.nunique(dropna=False) != 1 or \
                        not pd.concat([col.iloc[:1], other.iloc[:1]], ignore_index=True).nunique(dropna=False) == 1:
                    continue
            fixed[k] = True
        return fixed

    def common_noise(self, n_keys, rng):
        """The conditional draws' randomness for ``n_keys`` (row, ordering) samples, or None.

        Passed (with ``keys``) to :meth:`coalition_predictions`, it makes every coalition of a
        sample use the same noise (common random numbers): f_S and f_{S∪j} then differ only
        where the two conditionals differ. None for marginal removal (no draws) and for a
        sampler that cannot draw from given noise.
        """
        if self.removal != "conditional":
            return None
        return self.sampler.common_noise(n_keys, self.n_draws, rng)

    # ------------------------------------------------------------------ data layout
    def _prepare_arrays(self):
        """Column arrays for fast hybrid rows; one 2-D array when all columns share a dtype."""
        X, bg, more = self.X, self.background, self._more_rows
        # the rows a drawn index may point to: X's, then the sampler's further rows (indices n, n + 1, ...)
        src = X if more is None else pd.concat([X, more], ignore_index=True)
        dtypes = set(X.dtypes) | set(bg.dtypes)
        self._homogeneous = (len(dtypes) == 1 and not isinstance(next(iter(dtypes)), pd.CategoricalDtype)
                             and next(iter(dtypes)).kind in "biufc")
        if self._homogeneous:
            self._xa = src.to_numpy()
            self._ba = bg.to_numpy()
            return
        self._xcols, self._bcols, self._cats = [], [], []
        for c in X.columns:
            s, b = src[c], bg[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                # Codes of the background under X's categories, so both index one dtype.
                self._xcols.append(s.cat.codes.to_numpy())
                self._bcols.append(pd.Categorical(b, dtype=s.dtype).codes)
                self._cats.append(s.dtype)
            else:
                self._xcols.append(s.to_numpy())
                self._bcols.append(b.to_numpy())
                self._cats.append(None)

    def _hybrid_from_rows(self, rows, keep, idx):
        """Source rows of x_{rows,S} completed by rows ``idx`` of X: (B, q) draws -> (B*q, p) ints.

        Entry ``[b*q + i, k]`` is the row of X whose column k hybrid row ``b*q + i`` takes:
        ``rows[i]`` for the kept columns (``keep``, (p,)), ``idx[b, i]`` for the others -- the
        layout of :func:`imlkit._model.stack_frame`. The values are gathered later, once per
        predict call for all coalitions (:meth:`_frame_from_arrays`).
        """
        B, q = idx.shape
        src = np.where(keep[None, None, :], np.asarray(rows)[None, :, None], idx[:, :, None])
        return src.reshape(B * q, -1)

    def _frame_from_arrays(self, parts):
        """One DataFrame from the source-row arrays of several ``_hybrid_from_rows`` calls.

        Concatenating the (small) index arrays and gathering every column once costs one
        gather per column and one pandas construction per predict call instead of per coalition.
        """
        src = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if self._homogeneous:
            a = self._xa[src, np.arange(src.shape[1])[None, :]]
            return pd.DataFrame(a, columns=self.X.columns, copy=False)
        return self._frame_of([col[src[:, k]] for k, col in enumerate(self._xcols)])

    def _hybrid_frame(self, rows, colmask):
        """Rows (q, B) of x_{rows,S} completed by background rows: DataFrame of q*B rows."""
        if self._homogeneous:
            a = np.where(colmask[:, None, :], self._xa[rows][:, None, :], self._ba[None, :, :])
            a = a.reshape(-1, a.shape[-1])
            return pd.DataFrame(a, columns=self.X.columns, copy=False)
        return self._frame_of([np.where(colmask[:, k, None], self._xcols[k][rows][:, None],
                                        self._bcols[k][None, :]).reshape(-1)
                               for k in range(len(self.X.columns))])

    def _frame_of(self, columns):
        """Encoded column arrays (one per column of X) -> a DataFrame with X's dtypes."""
        cols = {}
        for k, (name, v) in enumerate(zip(self.X.columns, columns)):
            cat = self._cats[k]
            if cat is not None:
                v = pd.Categorical.from_codes(v, dtype=cat)
            elif self.X[name].dtype.kind not in "biufcM":
                v = pd.Series(v, dtype=self.X[name].dtype)
            cols[name] = v
        return pd.DataFrame(cols, columns=self.X.columns, copy=False)

    # ------------------------------------------------------------------ predictions
    def _average(self, pred):
        """(q, B[, k]) predictions -> (q[, k]) prediction of f_S (mean, or majority label)."""
        if self.vote:
            labels, codes = np.unique(pred, return_inverse=True)
            codes = codes.reshape(pred.shape)
            counts = np.zeros(codes.shape[:1] + (len(labels),))
            for j in range(len(labels)):
                counts[:, j] = (codes == j).sum(axis=1)
            return labels[np.argmax(counts, axis=1)]
        return pred.mean(axis=1)

    def _rows_per_chunk(self):
        """Pairs (row, coalition) predicted per call: ``limit`` hybrid rows over ``n_draws`` draws each, and fewer
        when the model has many outputs per row -- 2^19 hybrid rows of a 1,000-class model's probabilities are 4.2 GB
        (review rev8 r3-12: a 3.15 GiB report); rows x outputs stay at most ``limit`` x ``_CHUNK_OUTPUTS``."""
        limit = self.max_rows or min(DEFAULT_MAX_ROWS, _CHUNK_ROWS)
        outputs = int(np.prod(np.shape(self.full_pred)[1:], dtype=np.int64)) if self.full_pred is not None else 1
        if outputs > _CHUNK_OUTPUTS:
            limit = max(1, limit * _CHUNK_OUTPUTS // outputs)
        return max(1, limit // max(self.n_draws, 1))

    def coalition_predictions(self, rows, masks, rng, keys=None, noise=None, backgrounds=None, groups=0):
        """f_S(x_i) for pairs (row i, coalition S).

        Parameters
        ----------
        rows : ndarray of int, shape (q,)
        masks : ndarray of bool, shape (q, m)
            Players in the coalition.
        rng : numpy Generator
            Conditional draws (unused for marginal removal) when no ``noise`` is given.
        keys : ndarray of int, shape (q,), optional
            The sample of each pair: pairs with the same key use the same row of ``noise``.
        noise : ndarray, optional
            :meth:`common_noise` of the samples (conditional removal).
        backgrounds : ndarray of int, shape (n_keys, B), optional
            Marginal removal: each sample's background rows of X (:meth:`draw_backgrounds`),
            the pair's indexed by ``keys``; None: the fixed ``background``.
        groups : int
            With ``backgrounds``: the mean predictions of G = ``groups`` consecutive groups of B/G
            background rows, (q, G[, k]), not the mean of all B (0).

        Returns
        -------
        ndarray, shape (q,) or (q, k)
        """
        rows = np.asarray(rows, dtype=np.intp)
        masks = np.asarray(masks, dtype=bool)
        q = len(rows)
        fixed = self.fixed_columns
        if fixed.any():
            # Fixed columns (constant, see _fixed_columns) count as kept: a coalition that keeps
            # every other column is f itself, one that keeps none of them is the empty one.
            kept = masks.astype(np.uint8) @ self.player_columns[:, ~fixed].astype(np.uint8) > 0
            full, empty = kept.all(axis=1), ~kept.any(axis=1)
        else:
            full, empty = masks.all(axis=1), ~masks.any(axis=1)
        if backgrounds is not None:  # the empty coalition too is its pair's background (marginal SAGE's samples)
            empty = np.zeros_like(empty)
        mid = np.flatnonzero(~(full | empty))
        shape = (q, groups) if groups else (q,)
        out = np.empty(shape + self.empty_pred.shape, dtype=np.result_type(self.full_pred, self.empty_pred))
        out[full] = self.full_pred[rows[full]][:, None] if groups else self.full_pred[rows[full]]
        out[empty] = self.empty_pred
        if len(mid):
            colmask = masks[mid].astype(np.uint8) @ self.player_columns.astype(np.uint8) > 0
            if self.removal == "marginal":
                bg = None if backgrounds is None else np.asarray(backgrounds)[np.asarray(keys)[mid]]
                out[mid] = self._marginal(rows[mid], colmask, bg, groups)
            else:
                common = None if noise is None or keys is None else (np.asarray(keys)[mid], noise)
                out[mid] = self._conditional(rows[mid], colmask | fixed, rng, common)
        return out

    def _marginal(self, rows, colmask, backgrounds=None, groups=0):
        """f_S of pairs (q,) completed by the fixed background, or by each pair's ``backgrounds`` (q, B) rows of X
        (``groups``: the mean of each of that many consecutive groups of them, (q, groups))."""
        B = len(self.background) if backgrounds is None else backgrounds.shape[1]
        step = self._rows_per_chunk()
        parts = []
        for s in range(0, len(rows), step):
            if backgrounds is None:
                frame = self._hybrid_frame(rows[s:s + step], colmask[s:s + step])
            else:
                # Source row of every cell, (q, B, p) -> (q*B, p): the pair's row where kept, else its background's.
                src = np.where(colmask[s:s + step, None, :], rows[s:s + step, None, None],
                               backgrounds[s:s + step, :, None])
                frame = self._frame_from_arrays([src.reshape(-1, src.shape[-1])])
            pred = self.predictor.predict(frame, context="coalitions completed by background rows")
            pred = pred.reshape((-1, B) + pred.shape[1:])
            parts.append(pred.reshape((len(pred), groups, B // groups) + pred.shape[2:]).mean(axis=2) if groups
                         else self._average(pred))
        return np.concatenate(parts, axis=0)

    def _conditional(self, rows, colmask, rng, common=None):
        """One sampler call per distinct dropped set, but few predict calls: the stacked frames
        of all sets are concatenated up to the row budget, because per-call overhead (thread
        start-up in tree ensembles) dominates many small calls.

        ``common``: ``(keys, noise)``, the noise row of every pair (common random numbers);
        None draws from ``rng``."""
        B = self.n_draws
        cols = np.asarray(self.X.columns)
        uniq, inverse = np.unique(colmask, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        budget = self._rows_per_chunk()
        done_rows, done_vals = [], []
        pending, pending_rows = [], 0

        def flush():
            if all(isinstance(f, np.ndarray) for _, f in pending):
                frame = self._frame_from_arrays([f for _, f in pending])
            else:
                frames = [f if not isinstance(f, np.ndarray) else self._frame_from_arrays([f]) for _, f in pending]
                frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
            pred = self.predictor.predict(frame, context="coalitions completed by conditional draws")
            start = 0
            for part, _f in pending:
                size = B * len(part)
                block = pred[start:start + size]
                start += size
                # stack_frame puts draw r of every row in block r: (B, q) -> (q, B).
                block = np.moveaxis(block.reshape((B, len(part)) + block.shape[1:]), 0, 1)
                done_rows.append(part)
                done_vals.append(self._average(block))
            pending.clear()

        for u in range(len(uniq)):
            sel = np.flatnonzero(inverse == u)
            dropped = list(cols[~uniq[u]])
            for s in range(0, len(sel), budget):
                part = sel[s:s + budget]
                part_noise = None if common is None else common[1][common[0][part]]
                idx = None
                if self.sampler_fit_on_X:
                    idx = self.sampler.fit_row_indices(rows[part], dropped, B, rng,
                                                       uniforms=None if part_noise is None else part_noise.T)
                if idx is not None:
                    # Lean path: indices of X drawn within the cached subgroups, hybrid rows
                    # from X's arrays -- no frame is built, checked or encoded per coalition.
                    frame = self._hybrid_from_rows(rows[part], uniq[u], idx)
                else:
                    Xr = self.X.iloc[rows[part]].reset_index(drop=True)
                    if part_noise is None:
                        draws = self.sampler.sample(Xr, dropped, n_samples=B, rng=rng)
                    else:
                        draws = self.sampler.sample_with_noise(Xr, dropped, part_noise)
                    frame = stack_frame(Xr, B, draws)
                pending.append((part, frame))
                pending_rows += len(part)
                if pending_rows >= budget:
                    flush()
                    pending_rows = 0
        if pending:
            flush()
        vals = np.concatenate(done_vals, axis=0)
        return vals[np.argsort(np.concatenate(done_rows), kind="stable")]

    # ------------------------------------------------------------------ losses
    def pointwise_loss(self, rows, pred):
        """L(y_i, f_S(x_i)) times the loss sign (so smaller is always better), shape (q,)."""
        if self.classes is not None:
            pred = np.asarray(self.classes)[np.argmax(pred, axis=1)]
        return self.loss.sign * np.asarray(self.loss.pointwise(self.y[rows], pred), dtype=float)

    def risk_empty(self, pred=None):
        """R(f_∅) over all rows; ``pred``: another constant prediction in place of f_∅."""
        pred = self.empty_pred if pred is None else pred
        rows = np.arange(len(self.X))
        empty = np.broadcast_to(pred, (len(rows),) + np.shape(pred))
        return float(self.pointwise_loss(rows, empty).mean())

    def risk_full(self):
        rows = np.arange(len(self.X))
        return float(self.pointwise_loss(rows, self.full_pred).mean())

    def value(self, mask, rng):
        """v(S) over all rows (in loss units; for scores the sign is flipped so v grows with S)."""
        mask = np.asarray(mask, dtype=bool)
        n = len(self.X)
        rows = np.arange(n)
        pred = self.coalition_predictions(rows, np.broadcast_to(mask, (n, len(mask))), rng,
                                          keys=rows, noise=self.common_noise(n, rng))
        return self.risk_empty() - float(self.pointwise_loss(rows, pred).mean())


# ---------------------------------------------------------------------- construction


def _rows_after(sampler, X):
    """The sampler's fitted rows after X's when X is the first ``len(X)`` rows of its data (same columns and
    dtypes, same values), else None: those rows then draw by index as rows of X do (:meth:`SageGame._conditional`)."""
    fit = getattr(sampler, "X_fit_", None)
    if fit is None or len(fit) <= len(X) or list(fit.columns) != list(X.columns) or \
            list(fit.dtypes) != list(X.dtypes):
        return None
    head = fit.iloc[:len(X)].reset_index(drop=True)
    if not head.equals(X.reset_index(drop=True)):
        return None
    return fit.iloc[len(X):].reset_index(drop=True)
