"""Inherently interpretable models, each a scikit-learn estimator that explains itself."""
from ._gam import GAM
from ._glm import GLM
from ._naive_bayes import NaiveBayes
from ._neighbors import explain_neighbors
from ._oner import OneR
from ._ripper import RIPPER
from ._rulefit import RuleFit
from ._rules import DecisionList, Rule, RuleSet
from ._tree import DecisionTree
from ._tree_rules import tree_rules

__all__ = ["GLM", "GAM", "DecisionTree", "NaiveBayes", "explain_neighbors", "OneR", "RIPPER",
           "RuleFit", "Rule", "RuleSet", "DecisionList", "tree_rules"]
