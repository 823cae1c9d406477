"""The options declared once (imlkit._options): each method's signature, spec and docstring agree,
and a spec checks and records as the methods always did."""
import inspect
import re

import numpy as np
import pytest
from numpydoc.docscrape import FunctionDoc
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit._options import (
    CONFIDENCE_LEVEL,
    ENGINE,
    FEATURES,
    GRID_TYPE,
    LOSS,
    MAX_ROWS,
    N_JOBS,
    N_REPEATS,
    N_SAMPLES,
    PROGRESS,
    RANDOM_STATE,
    RELATION,
    Option,
    Spec,
    integer,
)
from imlkit._record import HAPPENED
from imlkit._validation import ValidationError
from imlkit.effects import _ale, _heterogeneity, _hstat, _ice, _repid
from imlkit.importance import _loco, _perturbation, _pimp, _sage, _sage_value
from imlkit.local import _shap

#: Every public method that declares its options, with its spec. Its options are its parameters with
#: a default, except the optional data (X_test, y_test, SHAP's y); the others (model, X, y, learner, ...,
#: feature, coalition) are data.
DECLARED = [
    (ik.pfi, _perturbation.SPECS["pfi"]),
    (ik.cfi, _perturbation.SPECS["cfi"]),
    (ik.loco, _loco.SPECS["loco"]),
    (ik.lofo, _loco.SPECS["lofo"]),
    (ik.sage, _sage.SPEC),
    (ik.sage_value, _sage_value.VALUE_SPEC),
    (ik.pimp, _pimp.SPEC),
    (ik.ice, _ice.SPECS["ice"]),
    (ik.partial_dependence, _ice.SPECS["pd"]),
    (ik.ale, _ale.SPEC),
    (ik.h_statistic, _hstat.SPEC),
    (ik.repid, _repid.SPEC),
    (ik.ice_heterogeneity, _heterogeneity.SPEC),
    (ik.shap, _shap.SPEC),
]
DATA_WITH_DEFAULT = ("X_test", "y_test", "y")
_IDS = [f.__name__ for f, _ in DECLARED]


def _options_of(func):
    return [p.name for p in inspect.signature(func).parameters.values()
            if p.default is not p.empty and p.name not in DATA_WITH_DEFAULT]


def _documented(func):
    """Names of the numpydoc Parameters section; an entry "Other parameters ...: as :func:`g`" adds g's."""
    names = []
    for p in FunctionDoc(func)["Parameters"]:
        ref = re.search(r"as :func:`(\w+)`", p.name)
        if ref:
            names += _documented(getattr(ik, ref.group(1)))
        else:
            names += [n.strip() for n in p.name.split(",")]
    return names


def test_every_public_method_declares_its_options():
    # prepare_columns prepares a table (no result, no params): not a method
    public = {n for n in ik.__all__ if inspect.isfunction(getattr(ik, n))} - {"prepare_columns"}
    assert sorted(public - set(_IDS)) == []


@pytest.mark.parametrize("func, spec", DECLARED, ids=_IDS)
def test_signature_spec_and_docstring_name_the_same_options(func, spec):
    options = _options_of(func)
    assert sorted(spec.names) == sorted(options)
    documented = set(_documented(func))
    assert [o for o in options if o not in documented] == [], "options without a Parameters entry"
    data = [p for p in inspect.signature(func).parameters if p not in options]
    # an entry of the function's own section names an option or a data argument, nothing else
    own = [n.strip() for p in FunctionDoc(func)["Parameters"] if ":func:" not in p.name for n in p.name.split(",")]
    assert [n for n in own if n not in options and n not in data] == []


@pytest.mark.parametrize("func, spec", DECLARED, ids=_IDS)
def test_spec_records_no_fact_of_the_run_and_every_option_has_a_doc_line(func, spec):
    for o in spec:
        assert o.doc and "\n" not in o.doc
        if o.record is not False:
            assert o.name not in HAPPENED


# ----------------------------------------------------------------------------- checks and messages
@pytest.mark.parametrize("option, value, error, message", [
    (N_REPEATS, 0, ValidationError, "'n_repeats' must be an int >= 1; got 0."),
    (N_REPEATS, 2.5, TypeError, "'n_repeats' must be an int >= 1; got 2.5."),
    (N_JOBS, 0, ValidationError, "'n_jobs' must be None, -1 or an int >= 1; got 0."),
    (RANDOM_STATE, -1, ValidationError, "'random_state' must be None, an int >= 0 or a numpy Generator; got -1."),
    (RANDOM_STATE, "a", TypeError, "'random_state' must be None, an int >= 0 or a numpy Generator; got 'a'."),
    (MAX_ROWS, 0, ValidationError, "'max_rows' must be an int >= 1 or None; got 0."),
    (PROGRESS, 1, TypeError, "'progress' must be True or False; got 1."),
    (CONFIDENCE_LEVEL, 1.0, ValidationError, "'confidence_level' must be a number > 0.0 and < 1.0; got 1.0."),
    (RELATION, "diff", ValidationError, "'relation' must be one of 'difference', 'ratio'; got 'diff'."),
    (ENGINE, "gpu", ValidationError, "'engine' must be one of 'auto', 'trees', 'predict'; got 'gpu'."),
    (GRID_TYPE, "log", ValidationError, "'grid_type' must be one of 'quantile', 'uniform'; got 'log'."),
    (N_SAMPLES, 0, ValidationError, "'n_samples' must be an int >= 1 or None; got 0."),
])
def test_shared_option_messages(option, value, error, message):
    with pytest.raises(error, match=re.escape(message)):
        Spec("t", option).check({option.name: value})


@pytest.mark.parametrize("call, error, message", [
    (lambda X, y, m: ik.pfi(m, X, y, n_repeats=0), ValidationError, "'n_repeats' must be an int >= 1; got 0."),
    (lambda X, y, m: ik.cfi(m, X, y, relation="x"), ValidationError, "'relation' must be one of"),
    (lambda X, y, m: ik.loco(LinearRegression(), X, y, X, y, cv=1), ValidationError, "'cv' must be an int >= 2"),
    (lambda X, y, m: ik.lofo(LinearRegression(), X, y, X, y, variant="x"), ValidationError, "'variant' must be one"),
    (lambda X, y, m: ik.sage(m, X, y, antithetic=True, batch_size=2), ValidationError,
     "'batch_size' must be an int >= 4; got 2."),
    (lambda X, y, m: ik.sage(m, X, y, max_permutations=1), ValidationError,
     "'max_permutations' must be an int >= 2 or None; got 1."),
    (lambda X, y, m: ik.sage_value(m, X, y, [0], engine="x"), ValidationError, "'engine' must be one of"),
    (lambda X, y, m: ik.pimp(LinearRegression(), X, y, X, y, importance="shap"), ValidationError,
     "'importance' must be one of 'pfi', 'cfi', 'loco'; got 'shap'."),
    (lambda X, y, m: ik.pimp(LinearRegression(), X, y, X, y, alpha=0), ValidationError, "'alpha' must be a number"),
    (lambda X, y, m: ik.ice(m, X, 0, center="median"), ValidationError,
     "'center' must be one of None, 'mean', 'first'; got 'median'."),
    (lambda X, y, m: ik.partial_dependence(m, X, 0, n_samples=0), ValidationError, "'n_samples' must be an int >= 1"),
    (lambda X, y, m: ik.ale(m, X, 0, bins=[1.0]), ValidationError,
     "'bins' as edges must hold at least 2 distinct finite values; got 1."),
    (lambda X, y, m: ik.ale(m, X, 0, min_bin_size=0), ValidationError, "'min_bin_size' must be an int >= 1; got 0."),
    (lambda X, y, m: ik.h_statistic(m, X, n_top=1), ValidationError, "'n_top' must be an int >= 2; got 1."),
    (lambda X, y, m: ik.h_statistic(m, X, n_samples=None), TypeError, "'n_samples' must be an int >= 2; got None."),
    (lambda X, y, m: ik.repid(m, X, 0, min_improvement=-1), ValidationError,
     "'min_improvement' must be a number >= 0.0; got -1.0."),
    (lambda X, y, m: ik.ice_heterogeneity(m, X, grid=2.0), ValidationError, "'grid' must be an int >= 2; got 2.0."),
    (lambda X, y, m: ik.ice_heterogeneity(m, X, grid_type="log"), ValidationError, "'grid_type' must be one of"),
    # None was let through by the old shared check: PFI computed a ratio for relation=None, and a None
    # level or PIMP's n_repeats=None ended in an arithmetic TypeError (PIMP: a ModelError blaming the learner)
    (lambda X, y, m: ik.pfi(m, X, y, relation=None), ValidationError,
     "'relation' must be one of 'difference', 'ratio'; got None."),
    (lambda X, y, m: ik.loco(LinearRegression(), X, y, X, y, confidence_level=None), TypeError,
     "'confidence_level' must be a number > 0.0 and < 1.0; got None."),
    (lambda X, y, m: ik.pimp(LinearRegression(), X, y, X, y, n_repeats=None), TypeError,
     "'n_repeats' must be an int >= 1; got None."),
    (lambda X, y, m: ik.shap(m, X, link="probit"), ValidationError,
     "'link' must be one of 'identity', 'logit'; got 'probit'."),
    (lambda X, y, m: ik.shap(m, X, exact="yes"), TypeError, "'exact' must be True or False; got 'yes'."),
    (lambda X, y, m: ik.shap(m, X, n_permutations=1), ValidationError,
     "'n_permutations' must be an int >= 2 or None; got 1."),
])
def test_methods_raise_the_shared_messages(call, error, message):
    X, y, model = _data()
    with pytest.raises(error, match=re.escape(message)):
        call(X, y, model)


def test_check_runs_in_the_spec_order_and_normalises():
    spec = Spec("t", N_REPEATS, RELATION, RANDOM_STATE)
    with pytest.raises(ValidationError, match="'n_repeats'"):   # the first bad option in the spec's order
        spec.check(dict(n_repeats=0, relation="x", random_state=0))
    out = spec.check(dict(n_repeats=np.int64(3), relation="ratio", random_state=7, unrelated=1))
    assert type(out["n_repeats"]) is int and out["n_repeats"] == 3
    assert out["random_state"] == 7 and isinstance(out["seed"], np.random.SeedSequence)
    assert out["seed"].entropy == 7 and "unrelated" not in out
    with pytest.raises(TypeError, match="no value for option"):
        spec.check(dict(n_repeats=3))


def test_a_check_reads_the_options_checked_before_it():
    spec = Spec("t", Option("k", integer(1), "k"),
                Option("m", lambda name, v, call: integer(call["k"])(name, v, call), "m >= k"))
    assert spec.check(dict(k=np.int64(3), m=3)) == dict(k=3, m=3)
    with pytest.raises(ValidationError, match=re.escape("'m' must be an int >= 3; got 2.")):
        spec.check(dict(k=3, m=2))


def test_record_rules():
    spec = Spec("t", LOSS, FEATURES, RANDOM_STATE, PROGRESS, ENGINE)

    def my_loss(y, p):
        return (y - p) ** 2

    rec = spec.record(dict(loss=my_loss, features={"g": ["a", "b"]}, random_state=np.random.default_rng(0),
                           progress=True, engine="auto"))
    assert rec == dict(loss="my_loss", features={"g": ["a", "b"]}, random_state="Generator")
    assert spec.record(dict(loss=None, features=None, random_state=3, progress=False, engine="trees")) == \
        dict(loss=None, features=None, random_state=3)


def test_a_spec_refuses_a_duplicate_and_a_recorded_fact_of_the_run():
    with pytest.raises(ValueError, match="twice"):
        Spec("t", N_JOBS, N_JOBS)
    with pytest.raises(ValueError, match="facts of the run"):
        Spec("t", Option("seconds", None, "a time limit"))
    Spec("t", Option("engine", None, "not recorded", record=False))   # a fact's name, not recorded: fine


# ----------------------------------------------------------------------------- the record of a call
def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    return X, y, LinearRegression().fit(X, y)


def test_params_hold_the_recorded_options_as_checked():
    X, y, model = _data()
    r = ik.pfi(model, X, y, n_repeats=np.int64(2), random_state=np.random.default_rng(1), progress=False,
               engine="predict")
    recorded = [o.name for o in _perturbation.SPECS["pfi"] if o.record is not False]
    assert list(r.params)[:len(recorded)] == recorded
    assert type(r.params["n_repeats"]) is int and r.params["n_repeats"] == 2   # normalised
    assert r.params["random_state"] == "Generator"
    assert r.params["loss"] == "squared_error"          # the loss as resolved
    assert "progress" not in r.params and r.info["engine"] == "predict"
    e = ik.partial_dependence(model, X, 0, grid=[0.0, 1.0], random_state=0)
    assert e.params["grid"] == "explicit" and e.params["center"] is None   # PD records center=None as ICE
    r = ik.loco(LinearRegression(), X[:40], y[:40], X[40:], y[40:], cv=None, random_state=0)
    assert r.params["variant"] == "drop" and r.params["cv"] is None   # LOCO records variant="drop" as LOFO


def test_options_objects_are_built_from_the_spec():
    opts = _perturbation.PerturbationOptions.checked(
        "cfi", sampler="gaussian", X_fit=None, loss=None, features=None, n_repeats=np.int64(3), relation="ratio",
        confidence_level=0.9, max_rows=np.int64(100), n_jobs=None, random_state=4, progress=False, engine="auto")
    assert opts.n_repeats == 3 and type(opts.max_rows) is int and opts.seed.entropy == 4
    assert opts.params() == dict(loss=None, features=None, n_repeats=3, relation="ratio", confidence_level=0.9,
                                 max_rows=100, n_jobs=None, random_state=4)
    with pytest.raises(AttributeError):   # frozen
        opts.n_repeats = 5


@pytest.mark.parametrize("call", [
    lambda f, X, y: ik.pfi(f, X, y, engine="gpu"),
    lambda f, X, y: ik.sage(f, X, y, max_rows=0),
    lambda f, X, y: ik.ice(f, X, 0, grid_type="log"),
    lambda f, X, y: ik.shap(f, X, n_jobs=0),
], ids=["pfi", "sage", "ice", "shap"])
def test_a_bad_option_fails_before_the_model_is_called(call):
    X, y, _ = _data()
    calls = []

    def model(A):
        calls.append(len(A))
        return np.asarray(A)[:, 0]

    with pytest.raises(ValidationError):
        call(model, X, y)
    assert calls == []
