"""Interventional Shapley values of one prediction, or of one row's loss: :func:`shap`.

The value function of row x is SAGE's marginal one restricted to that row
(:mod:`imlkit.importance._sage_value`): f_S(x) = 1/B Σ_b f(x_S, z_b,S̄) over fixed background
rows z_1..z_B. Three ways to its Shapley values, one game:

* trees (``engine="auto"``, prediction output, single-column players): interventional
  TreeSHAP in numba (:mod:`imlkit._trees._shap_kernels`) on the tree engine's node arrays,
  exact, checked against brute force on one pair at first use;
* ``exact=True`` (or ``"auto"`` with at most :data:`MAX_AUTO_EXACT` players): all 2^m
  coalitions of every row through SAGE's stacked ``coalition_predictions``;
* for ``output="loss"`` of a tree model, and for a probability that is not affine in the
  trees' raw score (a boosted classifier's), the game's f_S(x) comes from the trees
  (:func:`imlkit._trees._shap_kernels.coalition_kernel`), checked against the stacked
  predictions on a few coalitions first;
* otherwise SAGE's permutation estimator (:func:`imlkit.importance._sage._estimate`, the same
  batches, Welford tracker and convergence rule) run on a one-row view of the game, one seed
  per row, so the numbers do not depend on ``n_jobs``.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._model import check_fitted, is_classifier_model
from .._options import (
    ENGINE,
    FEATURES,
    LOSS,
    MAX_ROWS,
    N_JOBS,
    PROGRESS,
    RANDOM_STATE,
    Option,
    Spec,
    choice,
    integer,
    number,
)
from .._parallel import parallel_map
from .._timing import Timer
from .._validation import ValidationError, check_bool, check_choice, check_X, check_y
from ..importance._sage import RunOptions, _estimate
from ..importance._sage_value import GameOptions, build_game, players_of_features
from ._result import ShapResult
from ._shapley import shapley_matrix as _shapley_matrix

__all__ = ["shap", "MAX_AUTO_EXACT", "MAX_EXACT"]

OUTPUTS = ("prediction", "loss")
LINKS = ("identity", "logit")
#: ``exact="auto"`` enumerates coalitions up to this many players (2^10 coalitions per row).
MAX_AUTO_EXACT = 10
#: ``exact=True`` refuses more players than this.
MAX_EXACT = 14
#: Hybrid rows predicted per task of the exact enumeration (bounds memory and shows progress).
_EXACT_BLOCK_ROWS = 1 << 21
#: Orderings per batch of the permutation estimator (each costs m−1 coalitions × B rows).
_BATCH = 32
#: Orderings per row when ``n_permutations=None`` and the tolerance is not reached.
DEFAULT_PERMUTATION_CAP = 512
_EPS = 1e-12


class _Output:
    """The explained output of a model as a callable ``X -> (n,)``: predict, P(class), or its logit.

    A module-level class (not a closure) so process workers can pickle it.
    """

    def __init__(self, model, column, link):
        self.model = model
        self.column = column
        self.link = link

    def __call__(self, X):
        if self.column is None:
            fn = self.model.predict if hasattr(self.model, "predict") else self.model
            out = np.asarray(fn(X), dtype=float).reshape(len(X), -1)[:, 0]
        else:
            out = np.asarray(self.model.predict_proba(X), dtype=float)[:, self.column]
        if self.link == "logit":
            p = np.clip(out, _EPS, 1 - _EPS)
            out = np.log(p) - np.log1p(-p)
        return out


def _resolve_class(model, class_):
    """(column of predict_proba or None, label text, classes)."""
    if not is_classifier_model(model):
        if class_ is not None:
            raise ValidationError(f"'class_' is only for classifiers; the model ({type(model).__name__}) is not one "
                                  f"(got class_={class_!r}).")
        return None, "prediction", None
    if not hasattr(model, "predict_proba"):
        raise ValidationError(f"output='prediction' of a classifier explains a probability, but the model "
                              f"({type(model).__name__}) has no predict_proba.")
    classes = np.asarray(getattr(model, "classes_", []))
    if len(classes) < 2:
        raise ValidationError("output='prediction' of a classifier needs the model's 'classes_'.")
    if class_ is None:
        return len(classes) - 1, f"P(class={classes[-1]})", classes
    hit = np.flatnonzero(classes == class_)
    if len(hit) != 1:
        raise ValidationError(f"'class_' must be one of the model's classes {classes.tolist()}; got {class_!r}.")
    return int(hit[0]), f"P(class={class_})", classes




# ---------------------------------------------------------------------- payoffs of one game
def _payoff(game, output, rows, pred):
    """The row's value of a coalition up to a constant: f_S(x) or −sign·ℓ(y, f_S(x))."""
    if output == "prediction":
        return np.asarray(pred, dtype=float).reshape(len(rows))
    return -game.pointwise_loss(rows, pred)


def _exact_block(game, output, rows, bits, matrix):
    """φ (q, m) of rows ``rows`` by enumerating every coalition."""
    q, k = len(rows), len(bits)
    values = np.empty((q, k))
    values[:, 0] = _payoff(game, output, rows, np.broadcast_to(game.empty_pred, (q,) + game.empty_pred.shape))
    values[:, -1] = _payoff(game, output, rows, game.full_pred[rows])
    if k > 2:
        mid = bits[1:-1]
        pair_rows = np.repeat(rows, len(mid))
        pred = game.coalition_predictions(pair_rows, np.tile(mid, (q, 1)), None)
        values[:, 1:-1] = _payoff(game, output, pair_rows, pred).reshape(q, len(mid))
    return values @ matrix


class _RowGame:
    """A one-row view of a SAGE game for :func:`imlkit.importance._sage._sage_batch`.

    Its "loss" is minus the row's payoff, so SAGE's credit L(S) − L(S ∪ j) is the payoff's
    increment v_x(S ∪ j) − v_x(S): the permutation estimator then estimates the row's
    Shapley values with SAGE's batches, tracker and stopping rule unchanged.
    """

    def __init__(self, game, output, row):
        self.game = game
        self.output = output
        self.row = int(row)
        self.X = game.X.iloc[[self.row]]
        self.players = game.players
        self.empty_pred = game.empty_pred
        self.full_pred = game.full_pred[[self.row]]

    def _rows(self, rows):
        return np.full(len(rows), self.row, dtype=np.intp)

    def coalition_predictions(self, rows, masks, rng):
        return self.game.coalition_predictions(self._rows(rows), masks, rng)

    def pointwise_loss(self, rows, pred):
        return -_payoff(self.game, self.output, self._rows(rows), pred)


def _permutation_row(game, output, row, options, seed):
    rg = _RowGame(game, output, row)
    empty = _payoff(game, output, np.array([row]), game.empty_pred[None])[0]
    full = _payoff(game, output, np.array([row]), game.full_pred[[row]])[0]
    phi, se, run = _estimate(rg, options, seed, full - empty)
    return phi, se, run["n_permutations"], run["converged"]


# ---------------------------------------------------------------------- the public function
def _check_link(name, link, call):
    return None if link is None else check_choice(name, link, LINKS)


def _check_exact(name, exact, call):
    return exact if exact == "auto" else check_bool(name, exact)


#: SHAP's options, in the order they are checked and recorded (defaults: the signature).
SPEC = Spec(
    "shap",
    Option("output", choice(OUTPUTS), "explain each row's prediction or each row's loss"),
    LOSS.but(doc="output='loss': the loss explained (None: by task); resolved against the model"),
    Option("link", _check_link, "the scale of a classifier's explained probability (None: 'identity')"),
    Option("class_", None, "the explained class of a classifier; resolved against the model's classes"),
    FEATURES,
    Option("exact", _check_exact, "'auto', True or False: enumerate every coalition, or sample orderings"),
    Option("n_background", integer(1), "background rows each coalition is averaged over (a seeded sample)"),
    Option("n_permutations", integer(2, allow_none=True), "orderings per row (None: until the tolerance is met)"),
    Option("tolerance", number(0.0, low_inclusive=False), "stop a row's orderings once the largest standard error "
           "is this share of the range of its values"),
    ENGINE, N_JOBS, MAX_ROWS, RANDOM_STATE, PROGRESS,
    Option("background", None, "rows to remove features with (None: a sample of X); checked by build_game",
           record=lambda b: None if b is None else "given"),
)


def shap(model, X, *, background=None, y=None, output="prediction", loss=None, link=None, class_=None,
         features=None, exact="auto", n_background=100, n_permutations=None, tolerance=0.05, engine="auto",
         n_jobs=None, random_state=None, max_rows=None, progress=False):
    """Interventional Shapley values (SHAP) of each row's prediction, or of each row's loss.

    Parameters
    ----------
    model : fitted estimator or callable
        Anything with ``predict`` (``predict_proba`` for classifiers) or ``X -> ŷ``.
    X : DataFrame or array, shape (n, p)
        The rows to explain.
    background : DataFrame or array, shape (B, p), optional
        Rows the absent features are averaged over (default: ``n_background`` rows of X drawn
        with ``random_state``, the same rows :func:`imlkit.sage` draws with that seed).
    y : array-like, shape (n,), optional
        Targets of the rows; required by ``output="loss"``.
    output : {"prediction", "loss"}
        What is explained: the prediction f(x) (``"prediction"``) or the row's loss
        ℓ(y, f(x)) (``"loss"``, see Notes).
    loss : str or callable, optional
        ``output="loss"`` only: as :func:`imlkit.sage` (default squared error, or log loss for
        classifiers).
    link : {None, "identity", "logit"}
        Classifiers with ``output="prediction"``: explain the probability of ``class_``
        (None/"identity") or its log-odds log(p/(1−p)) (``"logit"``: the margin of a binary
        boosted model).
    class_ : label, optional
        The class whose probability is explained (default: the last of ``classes_``, the
        positive class of a binary model).
    features : None, list or dict
        The players: columns or groups (``{"weather": ["temp", "hum"]}``) that enter and
        leave coalitions together; columns not named join as single players.
    exact : {"auto", True, False}
        Enumerate all 2^m coalitions (``"auto"``: when m ≤ 10; at most 14 players) instead of
        sampling orderings. Tree models with single-column players are always exact.
    n_background : int, default 100
        Background rows drawn from X when ``background`` is None.
    n_permutations : int, optional
        Upper bound on the orderings per row of the permutation estimator (default: until
        convergence, at most 512).
    tolerance : float, default 0.05
        Permutation estimator: stop a row when its largest standard error ≤ tolerance × (max φ
        − min φ), SAGE's rule.
    engine : {"auto", "trees", "predict"}
        ``"auto"`` uses exact interventional TreeSHAP for a model the tree engine supports
        (prediction output), and for ``output="loss"`` lets the trees compute each
        f_S(x) = 1/B Σ_b f(x_S, z_b,S̄) with the background rows walked together (models whose
        output is affine in their trees: regression, forests); ``"trees"`` insists; ``"predict"``
        never uses them. A probability with no closed-form TreeSHAP (a boosted classifier's,
        ``link=None``) is enumerated or sampled as below with each coalition's f_S(x) from the
        trees (``info["engine"] == "trees"`` and an ``engine_note`` saying so): the same game
        and values as ``"predict"`` up to rounding, at a fraction of its cost (10 classes,
        1,000 trees, 9 features, 40 rows x 32 background rows: 24 s -> 2 s); ``"trees"``
        still means closed-form TreeSHAP only.
    n_jobs : int, optional
        Rows (blocks of rows) in parallel; the numbers do not depend on it.
    random_state : None, int or numpy Generator
        Draws the background rows and the orderings.
    max_rows : int, optional
        At most this many rows per model call.
    progress : bool

    Returns
    -------
    ShapResult
        ``values`` (n, m), ``base_values`` (n,), ``data`` (the explained rows), ``std``
        (n, m; 0 when exact), ``extra`` with the engine and, for sampling, the orderings
        and convergence of each row; ``info`` with ``seconds``, ``n_rows``, ``engine``
        (and ``engine_note``) and ``background_rows``.

    Notes
    -----
    With background rows z_1..z_B and f_S(x) = 1/B Σ_b f(x_S, z_b,S̄):

    * ``output="prediction"``: φ_j(x) is the Shapley value of v_x(S) = f_S(x). Efficiency:
      Σ_j φ_j(x) = f(x) − E_b f(z_b) = f(x) − ``base_values``. For a linear model
      φ_j = β_j (x_j − mean_b z_bj).
    * ``output="loss"``: φ_j(x) is the Shapley value of
      v_x(S) = ℓ(y, f_∅) − ℓ(y, f_S(x)), f_∅ = E_b f(z_b): positive when x_j *lowers* the
      row's loss. Σ_j φ_j = ℓ(y, f_∅) − ℓ(y, f(x)) with ``base_values`` = ℓ(y, f_∅), and the
      mean of φ_j over the rows is marginal SAGE (:func:`imlkit.sage` with ``removal="marginal"``
      on the same rows and background): SAGE is the average loss-SHAP value.

    shap's per-reference loss explanation (``TreeExplainer(model_output="log_loss")``) is a
    different game: it explains ℓ(y, f(x_S, z_b,S̄)) for each background row and averages the
    *losses*, 1/B Σ_b ℓ(y, f(x_S, z_b)), whereas here the *predictions* are averaged first,
    ℓ(y, 1/B Σ_b f(x_S, z_b)) -- SAGE's value function. For squared error the two differ by
    the variance of the hybrid predictions over the background rows, so shap's version does
    not average to SAGE.

    References
    ----------
    Lundberg & Lee (2017). A unified approach to interpreting model predictions. NeurIPS 30.
    Lundberg et al. (2020). From local explanations to global understanding with explainable
    AI for trees. Nature Machine Intelligence 2, 56-67.
    Covert, Lundberg & Lee (2020). Understanding global feature contributions with additive
    importance measures. NeurIPS 33.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> f = lambda A: 2 * A[:, 0] - A[:, 1]
    >>> r = shap(f, X[:5], background=X[100:150])
    >>> bool(np.allclose(r.values[:, 0], 2 * (X[:5, 0] - X[100:150, 0].mean())))
    True
    >>> bool(np.allclose(r.values.sum(axis=1), f(X[:5]) - r.base_values))
    True
    """
    call = SPEC.check(locals())
    params = SPEC.record(call)
    exact, n_permutations, tolerance, seed = call["exact"], call["n_permutations"], call["tolerance"], call["seed"]
    check_fitted(model)
    frame, was_frame = check_X(X)
    n = len(frame)
    bg_seed, perm_root = seed.spawn(2)

    if output == "loss":
        if y is None:
            raise ValidationError("output='loss' explains each row's loss and needs its targets: pass y.")
        if link is not None or class_ is not None:
            raise ValidationError("'link' and 'class_' choose the explained prediction; with output='loss' the "
                                  "loss is explained (leave them None).")
        game_model, game_y, game_loss, label = model, y, loss, None
    else:
        if loss is not None:
            raise ValidationError(f"'loss' is used only with output='loss'; got loss={loss!r} with "
                                  f"output='prediction'.")
        if y is not None:
            check_y(y, n)
        column, label, _ = _resolve_class(model, class_)
        if link == "logit":
            if column is None:
                raise ValidationError("link='logit' explains the log-odds of a class probability; the model is not "
                                      "a classifier.")
            label = f"logit {label}"
        fn = _Output(model, column, link)
        game_model, game_y, game_loss = fn, np.zeros(n), "squared_error"

    with Timer() as timer:
        options = GameOptions(loss=game_loss, removal="marginal", sampler=None, n_background=n_background,
                              background=background, max_rows=max_rows)
        game, players = build_game(game_model, frame if was_frame else frame.to_numpy(), game_y,
                                   players_of_features(features), options, bg_seed)
        if output == "loss":
            label = f"loss {game.loss.name}"
        m = len(players)
        names = tuple(players)
        extra = {"n_background": len(game.background)}
        warns = []
        phi = None
        if output == "prediction" and all(len(c) == 1 for c in players.values()):
            from ._tree_shap import tree_values

            phi, note = tree_values(model, fn, game, engine, n_jobs)
            extra["engine"] = "trees" if phi is not None else "predict"
            if phi is None and engine == "auto":
                # No closed form for this output (a boosted model's probability): the same game,
                # enumerated or sampled below, with its coalitions' means from the trees.
                from ._tree_shap import tree_output_game

                game, why = tree_output_game(model, fn, game, engine)
                if getattr(game, "coalitions_from_trees", False):
                    extra["engine"] = "trees"
                    note = ("TreeSHAP has no closed form for this output; its coalitions' values (the mean over "
                            "the background rows of the hybrid rows' output) came from the trees")
                elif why and not note:
                    note = why
            if note:
                extra["engine_note"] = note
        elif output == "loss":
            # The sampled or enumerated loss game, with f_S(x) from the trees when the model allows.
            from ._tree_shap import tree_game

            game, note = tree_game(model, game, engine)
            extra["engine"] = "trees" if game.__class__.__name__ == "_TreeGame" else "predict"
            if note:
                extra["engine_note"] = note
            if engine == "trees" and extra["engine"] != "trees":
                raise ValidationError(f"engine='trees': {note}. Use engine='auto' or 'predict'.")
        elif engine == "trees":
            raise ValidationError("engine='trees' computes prediction SHAP of single columns; grouped features "
                                  "use the model's predictions (engine='auto' or 'predict').")
        else:
            extra["engine"] = "predict"
        std = np.zeros((n, m))
        if phi is not None:
            extra.update(exact=True, n_permutations=np.zeros(n, dtype=int), converged=np.ones(n, dtype=bool))
        else:
            use_exact = (m <= MAX_AUTO_EXACT) if exact == "auto" else exact
            if use_exact and m > MAX_EXACT:
                raise ValidationError(f"'exact=True' enumerates 2^m coalitions per row and allows at most {MAX_EXACT} "
                                      f"players; got {m}. Use exact=False or group features.")
            if use_exact:
                phi = _run_exact(game, output, m, n_jobs, progress, max_rows)
                extra.update(exact=True, n_permutations=np.zeros(n, dtype=int), converged=np.ones(n, dtype=bool))
            else:
                run = RunOptions(tolerance=tolerance, max_permutations=n_permutations or DEFAULT_PERMUTATION_CAP,
                                 antithetic=True, batch_size=_BATCH, n_jobs=1, progress=False, control_variate=False)
                seeds = perm_root.spawn(n)
                out = parallel_map(_permutation_row, [(game, output, i, run, seeds[i]) for i in range(n)],
                                   n_jobs=n_jobs, progress=progress, desc="SHAP")
                phi = np.array([o[0] for o in out]).reshape(n, m)
                std = np.array([o[1] for o in out]).reshape(n, m)
                conv = np.array([o[3] for o in out], dtype=bool)
                extra.update(exact=False, n_permutations=np.array([o[2] for o in out]), converged=conv)
                if not conv.all():
                    warns.append(f"{int((~conv).sum())} of {n} rows did not converge within their orderings (tolerance "
                                 f"{tolerance}); their standard errors are in 'std'. Raise n_permutations or the "
                                 "tolerance.")
                    warnings.warn(warns[-1], stacklevel=2)
        rows = np.arange(n)
        empty = np.broadcast_to(game.empty_pred, (n,) + game.empty_pred.shape)
        if output == "prediction":
            base = np.full(n, float(np.asarray(game.empty_pred, dtype=float).reshape(-1)[0]))
            fx = np.asarray(game.full_pred, dtype=float).reshape(n)
        else:
            base = game.pointwise_loss(rows, empty)
            fx = game.pointwise_loss(rows, game.full_pred)
        extra["fx"] = fx
    # the engine that ran (the argument engine= only chooses it) and the facts of the run: result.info
    params.update(loss=None if output == "prediction" else game.loss.name, seconds=timer.seconds, n_rows=n,
                  background_rows=len(game.background),
                  **{k: extra[k] for k in ("engine", "engine_note") if k in extra})
    return ShapResult(method=f"shap_{output}", feature_names=names, values=np.asarray(phi, dtype=float),
                      base_values=np.asarray(base, dtype=float), data=frame, output=label, std=std,
                      groups=dict(players),
                      params=params, warnings=tuple(warns), extra=extra)


def _run_exact(game, output, m, n_jobs, progress, max_rows):
    matrix, bits = _shapley_matrix(m)
    n = len(game.X)
    per_row = max(1, (2 ** m) * len(game.background))
    step = max(1, min(n, _EXACT_BLOCK_ROWS // per_row))
    blocks = [np.arange(s, min(n, s + step)) for s in range(0, n, step)]
    parts = parallel_map(_exact_block, [(game, output, b, bits, matrix) for b in blocks], n_jobs=n_jobs,
                         progress=progress, desc="SHAP")
    return np.concatenate(parts, axis=0)
