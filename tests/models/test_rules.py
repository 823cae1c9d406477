"""Rule, RuleSet, DecisionList and tree_rules on the course's tables."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.tree import DecisionTreeClassifier

from imlkit._validation import ValidationError
from imlkit.models import DecisionList, Rule, RuleSet, tree_rules
from imlkit.models._rules import Condition, rule_masks

# the 10-row tax table of the course (Tid 1..10)
TAX = pd.DataFrame({
    "refund": ["Yes", "No", "No", "Yes", "No", "No", "Yes", "No", "No", "No"],
    "status": ["Single", "Married", "Single", "Married", "Divorced", "Married", "Divorced", "Single",
               "Married", "Single"],
    "income": [125, 100, 70, 120, 95, 60, 220, 85, 75, 90],
})
EVADE = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])

# the course's vertebrate table: blood, give birth, can fly, live in water -> class
ANIMALS = pd.DataFrame([
    ("warm", "yes", "no", "no", "mammals"), ("cold", "no", "no", "no", "reptiles"),
    ("cold", "no", "no", "yes", "fishes"), ("warm", "yes", "no", "yes", "mammals"),
    ("cold", "no", "no", "sometimes", "amphibians"), ("cold", "no", "no", "no", "reptiles"),
    ("warm", "yes", "yes", "no", "mammals"), ("warm", "no", "yes", "no", "birds"),
    ("warm", "yes", "no", "no", "mammals"), ("cold", "yes", "no", "yes", "fishes"),
    ("cold", "no", "no", "sometimes", "reptiles"), ("warm", "no", "no", "sometimes", "birds"),
    ("warm", "yes", "no", "no", "mammals"), ("cold", "no", "no", "yes", "fishes"),
    ("cold", "no", "no", "sometimes", "amphibians"), ("cold", "no", "no", "no", "reptiles"),
    ("warm", "no", "no", "no", "mammals"), ("warm", "no", "yes", "no", "birds"),
    ("warm", "yes", "no", "yes", "mammals"), ("warm", "no", "yes", "no", "birds"),
], columns=["blood", "birth", "fly", "water", "cls"])
R1_R5 = [
    Rule([("birth", "==", "no"), ("fly", "==", "yes")], "birds"),
    Rule([("birth", "==", "no"), ("water", "==", "yes")], "fishes"),
    Rule([("birth", "==", "yes"), ("blood", "==", "warm")], "mammals"),
    Rule([("birth", "==", "no"), ("fly", "==", "no")], "reptiles"),
    Rule([("water", "==", "sometimes")], "amphibians"),
]


def test_tax_single_coverage_and_accuracy():
    # course: (Status=Single) -> No has coverage 40% and accuracy 50%
    r = Rule([("status", "==", "Single")], "No")
    assert_allclose(r.coverage(TAX), 0.4)
    assert_allclose(r.accuracy(TAX, EVADE), 0.5)


def test_tax_rule_with_numeric_condition_and_empty_coverage():
    # (Taxable Income < 50K) AND (Refund = Yes) -> No covers none of the 10 rows
    r = Rule([("income", "<", 50), ("refund", "==", "Yes")], "No")
    assert r.coverage(TAX) == 0.0
    assert np.isnan(r.accuracy(TAX, EVADE))
    r2 = Rule([("income", "between", (80, 100))], "Yes")  # 85, 90, 95, 100
    assert_allclose(r2.coverage(TAX), 0.4)
    assert_allclose(r2.accuracy(TAX, EVADE), 0.75)
    assert str(r2) == "IF 80 < income <= 100 THEN 'Yes'"


def test_course_rule_set_is_neither_exclusive_nor_exhaustive():
    X = ANIMALS.drop(columns="cls")
    rs = RuleSet(R1_R5, default="unknown")
    # turtle (cold, no, no, sometimes) triggers R4 and R5; leopard shark (cold, yes) triggers none
    assert not rs.is_mutually_exclusive(X)
    assert not rs.is_exhaustive(X)
    ex = rs.explain(X)
    assert ex.loc[10, "rules"] == [3, 4]
    assert ex.loc[9, "prediction"] == "unknown" and ex.loc[9, "text"] == "default"
    dl = DecisionList(R1_R5, default="unknown")
    pred = dl.predict(X)
    assert pred[10] == "reptiles"  # R4 ranks above R5
    assert dl.explain(X).loc[10, "rule"] == 3
    assert dl.explain(X).loc[9, "rule"] == -1


def test_ruleset_voting_and_weights():
    X = pd.DataFrame({"a": [1, 5, 9]})
    rules = [Rule([("a", "<=", 6)], "lo"), Rule([("a", ">=", 4)], "hi"), Rule([("a", ">", 0)], "hi")]
    # a=1: one vote each (a tie: "lo" has the first rule); a=5: two votes for "hi"
    assert RuleSet(rules, default="?").predict(X).tolist() == ["lo", "hi", "hi"]
    # a heavy first rule wins the middle row
    assert RuleSet(rules, default="?", weights=[3, 1, 1]).predict(X).tolist() == ["lo", "lo", "hi"]
    # a tie goes to the class whose first rule comes first
    assert RuleSet(rules[:2], default="?").predict(X).tolist() == ["lo", "lo", "hi"]


def test_conditions_missing_categorical_and_simplify():
    X = pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0],
                      "c": pd.Categorical(["lo", "hi", None, "mid"], categories=["lo", "mid", "hi"], ordered=True)})
    assert Condition("x", "<=", 10).mask(X).tolist() == [True, False, True, True]
    assert Condition("x", "isna").mask(X).tolist() == [False, True, False, False]
    assert Condition("c", "<=", "mid").mask(X).tolist() == [True, False, False, True]
    assert Condition("c", "in", ("lo", "hi")).mask(X).tolist() == [True, True, False, False]
    assert Condition("c", "!=", "lo").mask(X).tolist() == [False, True, True, True]
    r = Rule([("x", ">", 1), ("x", "<=", 5), ("x", "<=", 3.5), ("c", "==", "lo")], "y").simplify()
    assert [str(c) for c in r.conditions] == ["1 < x <= 3.5", "c == 'lo'"]
    assert_allclose(rule_masks([r], X)[:, 0], Rule(r.conditions).mask(X))


def test_array_input_uses_x_names():
    arr = np.array([[0.0, 1.0], [2.0, 3.0]])
    assert Rule([("x1", ">", 2)]).mask(arr).tolist() == [False, True]


def test_tree_rules_match_decision_path():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    y = np.where(X.a + X.b > 0.5, "p", "n")
    tree = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X, y)
    tab = tree_rules(tree)
    assert len(tab) == tree.tree_.node_count
    assert (len(tab) - 1) == 2 * (tree.get_n_leaves() - 1)  # Friedman & Popescu's 2(t - 1)
    assert tab.loc[0, "text"] == "TRUE"
    assert set().union(*[r.features for r in tab["rule"]]) <= {"a", "b", "c"}
    path = tree.decision_path(X).toarray().astype(bool)
    for node, rule in zip(tab["node"], tab["rule"]):
        assert np.array_equal(rule.mask(X), path[:, node])
    leaves = tab[tab.is_leaf]
    assert leaves["n_samples"].sum() == 200


@pytest.mark.parametrize("make, exc, match", [
    (lambda: Condition("x", "~", 1), ValidationError, "'op' must be one of"),
    (lambda: Condition("x", "between", 3), ValidationError, r"must be \(low, high\)"),
    (lambda: Rule([("x",)]), TypeError, "must be a Condition or a tuple"),
    (lambda: RuleSet(["IF x"], default=1), TypeError, "list of Rule objects"),
    (lambda: RuleSet([Rule([("a", ">", 1)], 1)], default=0, weights=[1, 2]), ValidationError, "one entry per rule"),
    (lambda: Rule([("zzz", ">", 1)]).mask(TAX), ValidationError, "Unknown feature 'zzz'"),
    (lambda: Rule([("s", "<=", "a")]).mask(pd.DataFrame({"s": pd.Categorical(["a"])})), ValidationError,
     "unordered categorical"),
    (lambda: tree_rules(object()), TypeError, "fitted scikit-learn decision tree"),
])
def test_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()
