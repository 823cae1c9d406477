"""The report's per-method parameters: typed, frozen records read by attribute (issue 24, item 5)."""
import dataclasses

import pytest

from imlkit.report import method_params
from imlkit.report._config import MethodParams, SageParams, SageRunParams, row_budgets


def test_parameters_are_read_by_attribute_and_frozen():
    p = method_params(False)
    assert isinstance(p, MethodParams) and isinstance(p.sage, SageParams)
    assert isinstance(p.sage.marginal, SageRunParams) and p.sage.run("conditional") is p.sage.conditional
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.pimp.n_null = 3
    with pytest.raises(AttributeError):
        p.sage.marginal.n_backgrounds  # noqa: B018 - a misspelt name is an AttributeError, not a silent None
    with pytest.raises(KeyError):
        p.sage.run("interventional")


def test_to_dict_is_the_logged_record_in_field_order():
    # section 7 and the progress log print these dicts: nested records become dicts, order kept
    p = method_params(True)
    assert p.sage.to_dict() == {"rows": 256,
                                "marginal": {"n_background": 32, "tolerance": 0.05, "max_permutations": 1024,
                                             "batch_size": 256},
                                "conditional": {"n_background": 16, "tolerance": 0.1, "max_permutations": 64,
                                                "batch_size": 64}}
    assert list(p.pimp.to_dict()) == ["importance", "n_null", "n_repeats", "distribution", "p_adjust"]
    assert list(p.repid.to_dict()) == ["rows", "grid", "max_depth", "min_node_size", "min_improvement"]
    whole = p.to_dict()
    assert whole["effects"] == {"n_features": 2, "grid": 15, "ice_rows": 150, "ale_bins": 15}
    assert whole["rows"] == row_budgets(True) and whole["max_features"] is None and whole["every_feature"] is False


def test_budgets_and_overrides_reach_the_records():
    p = method_params(False, max_rows=1000, n_refits=4, sage_orderings=16, n_null=7)
    rows = row_budgets(False, max_rows=1000)
    assert p.rows == rows
    assert (p.sage.rows, p.effects.ice_rows, p.hstat.n_samples, p.repid.rows) == (
        rows["sage"]["test"], rows["ice"]["test"], rows["hstat"]["test"], rows["repid"]["test"])
    assert p.loco.n_refits == 4 and p.pimp.n_null == 7
    assert p.sage.marginal.max_permutations == p.sage.conditional.max_permutations == 16
    # the other fields keep their defaults
    d = method_params(False)
    assert p.sage.marginal.n_background == d.sage.marginal.n_background == 64
    assert p.pimp.n_repeats == d.pimp.n_repeats and p.models == d.models
    full = method_params(False, full=True)
    assert full.rows["pfi"]["test"] is None and full.sage.rows == d.sage.rows


def test_prepare_context_sets_the_feature_budget(tmp_path):
    import numpy as np
    import pandas as pd

    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(40, 4)), columns=["a", "b", "c", "y"])
    ctx = prepare_context(ReportConfig(data=frame, target="y", model="glm", quick=True, max_features=2))
    assert ctx.params.max_features == 2 and ctx.params.every_feature is False
    assert ctx.params.pfi == method_params(True).pfi
    assert prepare_context(ReportConfig(data=frame, target="y", model="glm", full=True)).params.max_features is None
