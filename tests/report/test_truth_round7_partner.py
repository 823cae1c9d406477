"""Review r4, F2: section 1 names mnth as the column that carries day's dependence (η² 0.99 from its 12 level means);
the reading named season (|r| 0.825), the best *numeric* column, for the same dependence."""
import imlkit as ik
from imlkit._dependence import dependence_partner
from imlkit.report import _claims as cl
from imlkit.report._reading import _reasons


def test_the_reading_names_the_partner_section_1_names():
    X, _ = ik.datasets.load_bike()
    found = dependence_partner(X, "day")
    assert found[0] == "mnth" and found[3]        # section 1's partner: the categorical month
    claims = _reasons("day", ["pfi"], ["sage_marginal"], {"day": 0.99}, None, X)
    dep = next(c for c in claims if c.kind == "dependence")
    assert cl.check(dep) == []
    text = dep.text()
    assert f"most with mnth (η² = {cl.num(found[1])}, adjusted, from its levels)" in text
    assert "season" not in text


def test_a_numeric_partner_keeps_its_r():
    X, _ = ik.datasets.load_bike()
    found = dependence_partner(X, "atemp")
    assert not found[3]
    dep = next(c for c in _reasons("atemp", ["pfi"], ["sage_marginal"], {"atemp": 0.98}, None, X)
               if c.kind == "dependence")
    assert f"most with {found[0]} (|r| = " in dep.text()
