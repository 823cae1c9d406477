"""The SAGE value function v(S) = R(f_∅) − R(f_S), evaluated on stacked copies of the data.

A *game* holds everything v(S) needs: the model (as a Predictor), the evaluation rows and
their targets, the loss, the players (single columns or groups of columns) and the way the
dropped features are removed:

* marginal removal: f_S(x_S) = 1/B Σ_b f(x_S, z_b,-S), with z_1..z_B rows of a background
  sample of X (Covert et al.'s "marginal imputer"): one fixed sample for v(S) and the exact
  values, a fresh one for every sample of the permutation estimator
  (:meth:`SageGame.background_per_sample`);
* conditional removal: f_S(x_S) = 1/B Σ_b f(x_S, x̃_b,-S), x̃_b,-S ~ P(X_-S | X_S = x_S),
  drawn by a conditional sampler of :mod:`imlkit.samplers`.

Conditional draws take their randomness from :meth:`SageGame.common_noise` when the caller
passes it: one noise row per sample, shared by all of its coalitions (common random numbers),
so that a player that does not change the conditional gets a credit of exactly 0. Columns
constant in X are kept in every coalition (:meth:`SageGame._fixed_columns`).

f_∅ is the model's mean prediction (the mean probability vector for a classifier) over every
evaluation row for conditional removal and for one player, else over the background rows
(:meth:`SageGame.choose_empty` says why), and f_N = f itself. Every (row, coalition) pair of a call is expanded into B
hybrid rows and all of them are predicted in as few stacked calls as ``max_rows`` allows.

For a tree ensemble with marginal removal, :func:`engine_game` swaps in the game of
:mod:`._sage_trees`, whose f_S comes from the trees (the same numbers to rounding).

The estimators (:mod:`._sage`) and :func:`sage_value` use the same game, so v(S), the exact
Shapley values and the permutation estimate refer to the same quantity.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._model import Predictor
from .._options import ENGINE, LOSS, MAX_ROWS, RANDOM_STATE, Option, Spec
from .._validation import (
    ValidationError,
    check_choice,
    check_int,
    check_same_columns,
    check_X,
    resolve_feature,
    resolve_features,
)
from ..samplers import make_sampler
from ._common import prepare
from ._sage_game import SageGame

__all__ = ["sage_value", "SageGame", "GameOptions", "REMOVALS", "build_game", "engine_game", "players_of_features"]

REMOVALS = ("marginal", "conditional")



@dataclass(frozen=True)
class GameOptions:
    """What defines a SAGE game, as the public functions were given it (:func:`build_game` checks it).

    Attributes
    ----------
    loss, removal, sampler, n_background, background, max_rows
        The parameters of :func:`imlkit.sage` / :func:`sage_value` of these names.
    """

    loss: Any
    removal: str
    sampler: Any
    n_background: int
    background: Any
    max_rows: int | None


def players_of_features(features):
    """``players_of(columns)`` for :func:`build_game`: the players named by ``features`` (names,
    indices or groups ``{name: [columns]}``), every other column a player of its own.

    Players must not overlap, and a group may not take the name of a column outside it.
    """
    def players_of(columns):
        named = resolve_features(features, columns)
        used = [c for cols in named.values() for c in cols]
        dup = sorted({c for c in used if used.count(c) > 1})
        if dup:
            raise ValidationError(f"'features' puts column(s) {dup} in more than one player; players must not overlap.")
        rest = [c for c in columns if c not in used]
        clash = [c for c in rest if c in named]
        if clash:
            raise ValidationError(f"'features' names a group {clash[0]!r} like a column that is not in it; "
                                  "rename the group.")
        named.update({c: [c] for c in rest})
        return named

    return players_of


def build_game(model, X, y, players_of, options, bg_seed):
    """Validate the shared inputs and return ``(game, players dict)``.

    ``players_of(columns)`` maps the frame's columns to ``{name: [columns]}``; ``options`` is a
    :class:`GameOptions`; ``bg_seed`` draws the background rows.
    """
    loss, sampler, background, max_rows = options.loss, options.sampler, options.background, options.max_rows
    removal = options.removal
    check_choice("removal", removal, REMOVALS)
    n_background = check_int("n_background", options.n_background, min_value=1)
    X, y, loss_obj, predictor = prepare(model, X, y, loss, max_rows)
    if loss_obj.pointwise is None:
        from .._losses import require_pointwise
        require_pointwise(loss_obj, "SAGE")
    classes, vote = None, False
    if loss_obj.needs_labels:
        if hasattr(model, "predict_proba"):
            # Averaging labels is meaningless; average probabilities and take the likeliest class.
            predictor = Predictor(model, output="proba", as_frame=predictor.as_frame, max_rows=max_rows)
            classes = predictor.classes
            if classes is None:
                raise ValidationError("A label loss with a predict_proba model needs the model's 'classes_'.")
        else:
            vote = True
    players = players_of(X.columns)
    if background is None:
        rng = np.random.default_rng(bg_seed)
        idx = np.sort(rng.choice(len(X), size=min(n_background, len(X)), replace=False))
        bg = X.iloc[idx].reset_index(drop=True)
    else:
        bg, _ = check_X(background, "background")
        check_same_columns(X, bg, "X", "background")
        bg = bg.reset_index(drop=True)
    if removal == "marginal":
        if sampler is not None:
            raise ValidationError("'sampler' is used only with removal='conditional'; got removal='marginal' "
                                  f"and sampler={sampler!r}.")
        sampler_obj = None
    else:
        sampler_obj = make_sampler("auto" if sampler is None else sampler, X)
    fit_on_X = sampler_obj is not None and getattr(sampler_obj, "X_fit_", None) is not None and \
        sampler_obj.X_fit_.shape == X.shape and sampler_obj.X_fit_.equals(X)
    game = SageGame(predictor=predictor, X=X, y=y, loss=loss_obj, players=list(players.values()), removal=removal,
                    background=bg, sampler=sampler_obj,
                    n_draws=len(bg) if removal == "marginal" else n_background, classes=classes,
                    vote=vote, max_rows=max_rows, sampler_fit_on_X=fit_on_X)
    return game, players


def engine_game(model, game, engine):
    """The game whose f_S the method uses, and the params that record it: ``(game, params)``.

    Marginal removal of a tree ensemble the tree engine supports takes f_S from the trees
    (:func:`._sage_trees.tree_game`, checked against the game's own predictions first);
    everything else predicts. ``engine="trees"`` raises when the trees are not used.
    """
    from ._sage_trees import tree_game

    fast, note = tree_game(model, game, engine)
    params = {"engine": "predict" if fast is game else "trees"}
    if note:
        params["engine_note"] = note
    if engine == "trees" and fast is game:
        raise ValidationError(f"engine='trees': {note or 'the model has no trees the engine reads'}. "
                              "Use engine='auto' or 'predict'.")
    return fast, params


def _coalition_columns(coalition, columns):
    """Columns of a coalition: a name, an index or a list of them; [] is the empty set."""
    if coalition is None:
        raise TypeError("'coalition' must be a column name, an index or a list of them; got None.")
    if isinstance(coalition, (str, int, np.integer)):
        coalition = [coalition]
    coalition = list(coalition)
    cols = [resolve_feature(c, columns, "coalition") for c in coalition]
    if len(set(cols)) != len(cols):
        raise ValidationError(f"'coalition' lists a column twice: {cols}.")
    return cols


#: The options of a SAGE game that sage and sage_value share (checked by build_game, where X is known).
REMOVAL = Option("removal", None, "'marginal' or 'conditional'; checked by build_game")
SAMPLER = Option("sampler", None, "conditional removal's sampler; built by build_game, recorded as its repr",
                 record=False)
N_BACKGROUND = Option("n_background", None, "background rows (or conditional draws) per coalition; checked by "
                      "build_game")
BACKGROUND = Option("background", None, "rows to remove features with (None: drawn from X); checked by build_game",
                    record=lambda b: None if b is None else "given")
#: sage_value's options, in the order they are checked (it returns a number: nothing is recorded).
VALUE_SPEC = Spec("sage_value", REMOVAL, SAMPLER, N_BACKGROUND, LOSS, MAX_ROWS, RANDOM_STATE, BACKGROUND, ENGINE)


def sage_value(model, X, y, coalition, *, removal="marginal", sampler=None, n_background=128, loss=None,
               max_rows=None, random_state=None, background=None, engine="auto"):
    """The SAGE value function v(S) = R(f_∅) − R(f_S) of one coalition S.

    Parameters
    ----------
    model : fitted estimator or callable
    X : DataFrame or array, shape (n, p)
        Evaluation data; the risks are means over its rows.
    y : array-like, shape (n,)
    coalition : str, int or list
        The columns in S (names or indices); ``[]`` is the empty set (v = 0).
    removal : {"marginal", "conditional"}
        How the features outside S are removed: averaged over rows of a background sample
        (marginal) or over draws from P(X_-S | X_S = x_S) (conditional).
    sampler : str or Sampler, optional
        Conditional sampler (default ``"auto"``: the distribution-free subgroup sampler);
        conditional removal only.
    n_background : int, default 128
        B: background rows (marginal) or conditional draws per row averaged in f_S.
    loss : str or callable, optional
        As :func:`imlkit.pfi`; classifiers are evaluated on probabilities (a label loss such
        as ``"zero_one"`` uses the class with the largest mean probability).
    max_rows : int, optional
        At most this many rows per model call.
    random_state : None, int or numpy Generator
        Draws the background rows and the conditional samples. :func:`imlkit.sage` with the
        same ``random_state`` uses the same background rows.
    background : DataFrame or array, shape (B, p), optional
        Rows to marginalise over instead of a sample of X (then ``n_background`` is unused
        for marginal removal).
    engine : {"auto", "trees", "predict"}
        Marginal removal: f_S of a tree ensemble from its trees (``"auto"``, ``"trees"``) or
        from the predictions of the hybrid rows (``"predict"``); as :func:`imlkit.sage`.

    Returns
    -------
    float
        v(S) in loss units; for scores (accuracy) the sign is flipped so v grows with S.

    Notes
    -----
    f_S(x_S) = E[f(X) | X_S = x_S] ≈ 1/B Σ_b f(x_S, x̃_b,-S), f_∅ = the mean prediction over
    the rows of X (conditional removal, or X of one column) or over the background rows
    (marginal removal of several columns: :meth:`SageGame.choose_empty`), and
    v(S) = 1/n Σ_i L(y_i, f_∅) − 1/n Σ_i L(y_i, f_S(x_i,S)).
    Marginal v(S) is zero for features the model does not use; conditional v(S) measures
    the information x_S carries about y that the model exploits (for the loss-optimal model
    and squared error, Var(y) − E[Var(y | X_S)]).

    References
    ----------
    Covert, Lundberg & Lee (2020). Understanding global feature contributions with additive
    importance measures. NeurIPS 33.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2)); y = X[:, 0] + 0.1 * rng.normal(size=500)
    >>> f = lambda A: A[:, 0]
    >>> round(sage_value(f, X, y, ["x1"], n_background=64, random_state=0), 2)
    0.0
    >>> round(sage_value(f, X, y, [], random_state=0), 2)
    0.0
    """
    seed = VALUE_SPEC.check(locals())["seed"]
    frame, _ = check_X(X)
    cols = _coalition_columns(coalition, frame.columns)
    bg_seed, draw_seed = seed.spawn(2)
    options = GameOptions(loss=loss, removal=removal, sampler=sampler, n_background=n_background,
                          background=background, max_rows=max_rows)
    game, players = build_game(model, X, y, lambda c: {k: [k] for k in c}, options, bg_seed)
    game.choose_empty(background is not None)   # the f_∅ sage() uses, so that v(S) is the game it sums
    if not cols:
        return 0.0
    mask = np.array([name in cols for name in players])
    if mask.all():
        return game.risk_empty() - game.risk_full()
    game, _ = engine_game(model, game, engine)
    return game.value(mask, np.random.default_rng(draw_seed))
