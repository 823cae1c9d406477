"""Results you can slice (issue 24 item 6): ``r["temp"]``, ``r[["temp", "hum"]]``, ``r.top(k)``, rows of
ICE and SHAP results -- the same type, the full result's numbers, plots and tables that work.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from numpy.testing import assert_allclose, assert_array_equal  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402

import imlkit as ik  # noqa: E402
from imlkit import ValidationError  # noqa: E402

NAMES = ["temp", "hum", "wind", "noise"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 4)), columns=NAMES)
    y = 3 * X["temp"] + 2 * X["hum"] - X["wind"] + rng.normal(scale=0.5, size=120)
    return X, y


@pytest.fixture(scope="module")
def linear(data):
    X, y = data
    return LinearRegression().fit(X[:80], y[:80])


def _interaction(X):
    """A model with an interaction (temp x hum) as a plain callable: effects and H have something to find."""
    X = np.asarray(X, dtype=float)
    return 3 * X[:, 0] * (X[:, 1] > 0) + 2 * X[:, 1] - X[:, 2]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------------------- importance

METHODS = ["pfi", "cfi", "loco", "lofo", "pimp", "sage", "sage_exact"]


@pytest.fixture(scope="module")
def importance_results(data, linear):
    X, y = data
    Xtr, ytr, Xte, yte = X[:80], y[:80], X[80:], y[80:]
    return {
        "pfi": ik.pfi(linear, Xte, yte, n_repeats=5, random_state=0),
        "cfi": ik.cfi(linear, Xte, yte, n_repeats=3, X_fit=Xtr, random_state=0),
        "loco": ik.loco(LinearRegression(), Xtr, ytr, Xte, yte, random_state=0),
        "lofo": ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, random_state=0),
        "pimp": ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, n_null=30, n_repeats=2, random_state=0),
        "sage": ik.sage(linear, Xte, yte, n_background=16, max_permutations=64, batch_size=16, random_state=0),
        "sage_exact": ik.sage(linear, Xte, yte, n_background=16, exact=True, random_state=0),
    }


#: The per-feature fields of an ImportanceResult and the per-feature extras (with their axis).
FIELDS = ["importance", "std", "ci_low", "ci_high", "repeats", "quantiles", "p_value", "p_adjusted",
          "observation_importance"]
EXTRAS = {"null": 0, "distribution": 0, "p_floor": 0, "n_null_needed": 0, "fold_importance": 0,
          "hodges_lehmann": 0, "holm_beyond_interval": 0, "trace": 1, "trace_se": 1}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", METHODS)
def test_importance_slice_holds_the_full_numbers(importance_results, method):
    full = importance_results[method]
    part = full[["hum", "temp"]]
    assert type(part) is type(full)
    assert part.feature_names == ("hum", "temp")
    pos = [1, 0]
    for name in FIELDS:
        value = getattr(full, name)
        if value is None:
            assert getattr(part, name) is None
        else:
            assert_array_equal(getattr(part, name), np.asarray(value)[pos])
    for name, axis in EXTRAS.items():
        if name in full.extra:
            assert_array_equal(np.asarray(part.extra[name]), np.take(np.asarray(full.extra[name]), pos, axis=axis))
    # the whole-run facts are kept, the parameters too, plus the record of the selection
    assert part.baseline_loss == full.baseline_loss and part.loss == full.loss and part.method == full.method
    assert {k: v for k, v in part.params.items() if k != "selection"} == full.params
    assert part.params["selection"] == ({"features": ("hum", "temp")},)
    assert set(part.groups) == {"hum", "temp"}
    # the table is the full table's rows
    frame, full_frame = part.to_frame(sort=False), full.to_frame(sort=False)
    pd.testing.assert_frame_equal(frame, full_frame.loc[["hum", "temp"]])
    if method != "pimp":  # PIMP's explain names the features it cannot tell about: those of the slice
        assert part.explain() == full.explain()
    else:
        assert part.explain().startswith(full.explain().split("\n")[0])
    part.plot()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", METHODS)
def test_importance_top_orders_by_importance(importance_results, method):
    full = importance_results[method]
    top = full.top(2)
    expected = [full.feature_names[j] for j in np.argsort(-full.importance, kind="stable")[:2]]
    assert list(top.feature_names) == expected
    assert_array_equal(top.importance, np.sort(full.importance)[::-1][:2])
    assert top.params["selection"] == ({"top": 2, "by": "importance"},)
    assert list(full.top(10).feature_names) == list(full.to_frame().index)  # k > m keeps all, sorted


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_importance_slice_plots_every_kind(importance_results):
    pfi = importance_results["pfi"][["temp", "wind"]]
    pfi.plot("box")
    pfi.plot("bar", interval="ci")
    axes = importance_results["pimp"].top(2).plot("null")
    assert len(np.ravel(axes)) >= 2
    ax = importance_results["sage"][["temp", "noise"]].plot("convergence")
    assert len(ax.get_lines()) >= 2
    pimp = importance_results["pimp"]["temp"]
    assert type(pimp).__name__ == "PimpResult"
    assert "p_floor" in pimp.to_frame().columns
    pimp.explain()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_importance_slices_chain(importance_results):
    full = importance_results["loco"]
    twice = full[["temp", "hum", "wind"]][["wind", "temp"]]
    once = full[["wind", "temp"]]
    for name in FIELDS:
        if getattr(full, name) is not None:
            assert_array_equal(getattr(twice, name), getattr(once, name))
    assert len(twice.params["selection"]) == 2
    assert_array_equal(full["wind"].importance, full.importance[[2]])


@pytest.mark.parametrize("key, match", [
    ("nope", r"Unknown feature 'nope' in this PFI result; available: 'temp', 'hum', 'wind', 'noise'\."),
    (["temp", "nope", "gone"], r"Unknown features 'nope', 'gone' in this PFI result; available: 'temp', 'hum'"),
    (0, r"Select the features of this PFI result by name .* got 0\. Available: 'temp'"),
    (["temp", "temp"], r"Each feature may be selected once; 'temp' repeated"),
])
def test_importance_bad_key(importance_results, key, match):
    with pytest.raises(ValidationError, match=match):
        importance_results["pfi"][key]


def test_importance_bad_k(importance_results):
    with pytest.raises(ValidationError, match=r"'k' must be an int >= 1; got 0"):
        importance_results["pfi"].top(0)


# ----------------------------------------------------------------------------- effects

@pytest.fixture(scope="module")
def X_effects(data):
    return data[0].iloc[:80].reset_index(drop=True)


def test_ice_cohort_is_the_rows_and_their_pd(X_effects):
    full = ik.ice(_interaction, X_effects, "temp", grid=8, random_state=0)
    mask = X_effects["hum"].to_numpy()[full.extra["row_index"]] > 0
    part = full[mask]
    assert type(part) is type(full)
    assert_array_equal(part.individual, full.individual[mask])
    assert_array_equal(part.feature_values, full.feature_values[mask])
    assert_array_equal(part.extra["row_index"], full.extra["row_index"][mask])
    # the cohort's PD: the mean of its curves (for this model, slope 3 in temp where hum > 0)
    assert_allclose(part.average, full.individual[mask].mean(axis=0), rtol=1e-12)
    assert_allclose(np.diff(part.average) / np.diff(part.grid), 3.0, rtol=1e-9)
    assert_array_equal(part.grid, full.grid)
    assert part.params["selection"][0]["rows"] == int(mask.sum())
    assert part.info["n_rows"] == int(mask.sum())
    assert_array_equal(full[:5].individual, full.individual[:5])
    assert_array_equal(full[[3, 0]].individual, full.individual[[3, 0]])
    assert full[2].individual.shape == (1, 8)
    part.plot()
    assert len(part.to_frame()) == 8
    assert set(part.individual_frame()["row"]) == set(full.extra["row_index"][mask])


def test_ice_cohort_weighted_and_centred(X_effects):
    w = np.linspace(1, 2, len(X_effects))
    full = ik.ice(_interaction, X_effects, "temp", grid=6, center="first", sample_weight=w)
    rows = np.arange(10, 40)
    part = full[rows]
    ws = w[full.extra["row_index"]][rows]
    assert_allclose(part.average, (ws[:, None] * full.individual[rows]).sum(0) / ws.sum(), rtol=1e-12)
    assert "uncentered_average" not in part.extra  # the cohort's uncentred curves are not kept


def test_one_feature_effects_select_themselves_only(X_effects):
    pd_ = ik.partial_dependence(_interaction, X_effects, "temp", grid=6)
    same = pd_["temp"]
    assert_array_equal(same.average, pd_.average)
    assert same.params["selection"] == ({"features": ("temp",)},)
    with pytest.raises(ValidationError, match=r"This PD result is about \('temp',\) only; \['hum'\] not in it\. "
                                              r"Another feature's effect: ik\.partial_dependence"):
        pd_["hum"]
    with pytest.raises(ValidationError, match=r"holds no individual curves to select rows from .*ik\.ice"):
        pd_[:5]
    with pytest.raises(ValidationError, match=r"top\(k\) ranks features; this PD result is about"):
        pd_.top(2)
    ale = ik.ale(_interaction, X_effects, "hum", bins=5)
    assert_array_equal(ale["hum"].average, ale.average)
    ale["hum"].plot()
    two = ik.partial_dependence(_interaction, X_effects, ("temp", "hum"), grid=4)
    assert_array_equal(two[["temp", "hum"]].average, two.average)
    with pytest.raises(ValidationError, match=r"joint effect of \('temp', 'hum'\); it cannot be split"):
        two["temp"]


def test_h_statistic_by_feature_pair_and_top(X_effects):
    h = ik.h_statistic(_interaction, X_effects, pairs="all", n_samples=40, random_state=0)
    part = h["temp"]
    assert type(part) is type(h)
    assert part.feature_names == ("temp",)
    assert_array_equal(part.overall, h.overall[[0]])
    involved = (h.pairwise["feature_1"] == "temp") | (h.pairwise["feature_2"] == "temp")
    pd.testing.assert_frame_equal(part.pairwise, h.pairwise[involved].reset_index(drop=True))
    assert len(part.pairwise) == 3
    pair = h["hum", "temp"]  # either order
    assert len(pair.pairwise) == 1 and set(pair.pairwise.iloc[0][["feature_1", "feature_2"]]) == {"temp", "hum"}
    assert set(pair.feature_names) == {"temp", "hum"}
    two_pairs = h[[("temp", "hum"), ("wind", "noise")]]
    assert len(two_pairs.pairwise) == 2 and set(two_pairs.feature_names) == set(NAMES)
    top = h.top(2)
    assert list(top.feature_names) == [h.feature_names[j] for j in np.argsort(-h.overall, kind="stable")[:2]]
    assert top.params["selection"] == ({"top": 2, "by": "overall H2"},)
    part.plot()
    part.plot("pairwise")
    assert list(part.to_frame().index) == ["temp"]
    with pytest.raises(ValidationError, match=r"Unknown pair \('temp', 'nope'\) in this H-statistic result; "
                                              r"available pairs: \("):
        h["temp", "nope"]
    with pytest.raises(ValidationError, match=r"Unknown feature 'nope' in this H-statistic result; available: "):
        h["nope"]


def test_heterogeneity_by_feature(X_effects):
    het = ik.ice_heterogeneity(_interaction, X_effects, grid=6, n_samples=40, random_state=0)
    part = het[["hum", "temp"]]
    assert type(part) is type(het)
    assert_array_equal(part.heterogeneity, het.heterogeneity[[1, 0]])
    assert_array_equal(part.grid_sizes, het.grid_sizes[[1, 0]])
    assert part.top in ("hum", "temp")  # ``top`` stays the most heterogeneous feature's name
    with pytest.raises(ValidationError, match=r"Unknown feature 'x9' in this c-ICE heterogeneity result"):
        het["x9"]


def test_repid_selects_its_feature_only(X_effects):
    g = ik.repid(_interaction, X_effects, "temp", grid=6, min_node_size=15, max_depth=1)
    assert g["temp"].regions == g.regions
    with pytest.raises(ValidationError, match=r"This REPID result is about \('temp',\) only; \['hum'\] not in it\. "
                                              r"Another feature's effect: ik\.repid"):
        g["hum"]
    with pytest.raises(ValidationError, match=r"holds no rows to select"):
        g[:3]
    with pytest.raises(ValidationError, match=r"top\(k\) ranks features"):
        g.top(1)


# ----------------------------------------------------------------------------- SHAP

@pytest.fixture(scope="module")
def shap_result(data, linear):
    X, _ = data
    return ik.shap(linear, X.iloc[:30], background=X.iloc[80:100], random_state=0)


def _check_shap_part(full, part, rows, cols):
    assert type(part) is type(full)
    assert_array_equal(part.values, full.values[np.ix_(rows, cols)])
    assert_array_equal(part.std, full.std[np.ix_(rows, cols)])
    assert_array_equal(part.base_values, full.base_values[rows])
    pd.testing.assert_frame_equal(part.data, full.data.iloc[rows])
    assert part.feature_names == tuple(full.feature_names[j] for j in cols)
    for name in ("fx", "n_permutations", "converged"):
        if name in full.extra:
            assert_array_equal(part.extra[name], np.asarray(full.extra[name])[rows])


def test_shap_rows_features_and_cohorts(shap_result):
    s = shap_result
    n = len(s.values)
    _check_shap_part(s, s["temp"], np.arange(n), [0])
    _check_shap_part(s, s[["hum", "temp"]], np.arange(n), [1, 0])
    _check_shap_part(s, s[:5], np.arange(5), [0, 1, 2, 3])
    _check_shap_part(s, s[3], [3], [0, 1, 2, 3])
    _check_shap_part(s, s[[7, 2]], [7, 2], [0, 1, 2, 3])
    _check_shap_part(s, s[:5, ["wind", "hum"]], np.arange(5), [2, 1])
    mask = (s.data["temp"] > 0).to_numpy()
    _check_shap_part(s, s[mask], np.flatnonzero(mask), [0, 1, 2, 3])
    _check_shap_part(s, s[s.data["temp"] > 0, "temp"], np.flatnonzero(mask), [0])  # a pandas mask
    assert s[:5, "temp"].params["selection"][0]["features"] == ("temp",)
    assert s[:5].params["selection"][0]["rows"] == 5
    # the rows of a prediction SHAP still add up to their predictions (every player kept)
    cohort = s[mask]
    assert_allclose(cohort.base_values + cohort.values.sum(1), np.asarray(s.extra["fx"])[mask], rtol=1e-9, atol=1e-9)


def test_shap_top_orders_by_mean_abs(shap_result):
    s = shap_result
    order = np.argsort(-np.abs(s.values).mean(axis=0), kind="stable")[:2]
    top = s.top(2)
    _check_shap_part(s, top, np.arange(len(s.values)), order)
    assert top.params["selection"] == ({"top": 2, "by": "mean |phi|"},)
    assert list(top.feature_names) == list(s.importance().to_frame().index[:2])


def test_shap_loss_top_orders_by_mean(data, linear):
    X, y = data
    s = ik.shap(linear, X.iloc[:30], background=X.iloc[80:100], y=y.iloc[:30], output="loss", random_state=0)
    order = np.argsort(-s.values.mean(axis=0), kind="stable")[:3]
    assert list(s.top(3).feature_names) == [s.feature_names[j] for j in order]
    assert s.top(3).params["selection"][0]["by"] == "mean phi"


def test_shap_slices_plot_and_tabulate(shap_result):
    s = shap_result
    s[3].plot("waterfall")
    s.top(2).plot("beeswarm")
    s[:10, "temp"].plot("dependence", feature="temp")
    s[:10].plot("bar")
    assert s[:5].to_frame().shape == (5, 5)
    assert_allclose(s[:10].importance().importance, np.abs(s.values[:10]).mean(axis=0), rtol=1e-12)
    assert "SHAP" in s["temp"].explain()
    assert "5 rows" in repr(s[:5])


@pytest.mark.parametrize("key, match", [
    ("nope", r"Unknown feature 'nope' in this SHAP result; available: 'temp', 'hum', 'wind', 'noise'\."),
    ((slice(None), "nope"), r"Unknown feature 'nope'"),
    (np.ones(5, dtype=bool), r"A boolean mask of rows of this SHAP result \(30 rows\) must have length 30"),
    (30, r"Row 30 is out of range for this SHAP result \(30 rows\) with 30 rows"),
    (np.zeros(30, dtype=bool), r"The selection keeps no row"),
    (1.5, r"Select the rows of this SHAP result .* got 1\.5"),
])
def test_shap_bad_key(shap_result, key, match):
    with pytest.raises(ValidationError, match=match):
        shap_result[key]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_results_are_not_sequences(importance_results, shap_result, X_effects):
    # __getitem__ selects; without __iter__ = None, iter(r) would call r[0], r[1], ... and fail oddly
    ice = ik.ice(_interaction, X_effects, "temp", grid=4)
    het = ik.ice_heterogeneity(_interaction, X_effects, grid=4, n_samples=20, random_state=0)
    for result in (importance_results["pfi"], shap_result, ice, het):
        with pytest.raises(TypeError, match="not iterable"):
            iter(result)
        with pytest.raises(TypeError):
            "temp" in result  # noqa: B015
