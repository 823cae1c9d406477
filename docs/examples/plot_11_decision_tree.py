"""
A decision tree, split by split
===============================

The course's 10-row tax table (home owner, marital status, annual income -> defaulted). The
teaching tree :class:`imlkit.models.DecisionTree` records every split it makes in
``split_trace_``: the parent's Gini impurity, the children's weighted impurity and the gain.
The best split of the annual income falls between 95 and 100 with weighted Gini 0.300 (the
course rounds the threshold to 97), as ``tests/models/test_decision_tree.py`` checks against the course's
table.
"""
import numpy as np
import pandas as pd

from imlkit.models import DecisionTree

X = pd.DataFrame({
    "home": ["Yes", "No", "No", "Yes", "No", "No", "Yes", "No", "No", "No"],
    "marital": ["Single", "Married", "Single", "Married", "Divorced", "Married", "Divorced", "Single",
                "Married", "Single"],
    "income": [125.0, 100, 70, 120, 95, 60, 220, 85, 75, 90],
})
y = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])

# %%
# The best split of the income alone (a one-feature stump), as in the course's Gini row.
stump = DecisionTree(criterion="gini", max_depth=1).fit(X[["income"]], y)
print(stump.split_trace_[["rule", "parent_impurity", "children_impurity", "gain"]].round(3))

# %%
# The course's Gini row: the weighted impurity of the children for every cut between two
# neighbouring incomes (computed here by hand), with the stump's choice marked.
import matplotlib.pyplot as plt  # noqa: E402


def gini(labels):
    p = np.mean(labels == "Yes") if len(labels) else 0.0
    return 2 * p * (1 - p)


values = np.sort(X["income"].unique())
cuts = (values[:-1] + values[1:]) / 2
weighted = [(np.sum(X["income"] <= c) * gini(y[X["income"] <= c])
             + np.sum(X["income"] > c) * gini(y[X["income"] > c])) / len(y) for c in cuts]
fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.plot(cuts, weighted, marker="o")
ax.axvline(stump.split_trace_["threshold"].iloc[0], color="C3", linestyle="--", label="the stump's cut")
ax.set_xlabel("cut point of the annual income")
ax.set_ylabel("weighted Gini of the children")
ax.legend()

# %%
# The whole tree on the three features and its splits.
tree = DecisionTree(criterion="gini").fit(X, y)
print(tree.export_text())
print(tree.split_trace_[["rule", "parent_impurity", "children_impurity", "gain"]].round(3))
