"""Inherently interpretable models, each a scikit-learn estimator that explains itself.

The names load on first use (``imlkit._lazy``): ``GLM`` does not import RuleFit's or the GAM's
dependencies.
"""
from .._lazy import lazy_exports as _lazy_exports

__all__ = ["GLM", "GAM", "DecisionTree", "NaiveBayes", "explain_neighbors", "OneR", "RIPPER",
           "RuleFit", "Rule", "RuleSet", "DecisionList", "tree_rules"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "GLM": "._glm", "GAM": "._gam", "DecisionTree": "._decision_tree", "NaiveBayes": "._naive_bayes",
    "explain_neighbors": "._neighbors", "OneR": "._oner", "RIPPER": "._ripper", "RuleFit": "._rulefit",
    "Rule": "._rules", "RuleSet": "._rules", "DecisionList": "._rules", "tree_rules": "._rules_from_tree",
})
