"""
Rules: OneR and naive Bayes on the course's tables
==================================================

OneR picks the one feature whose rules ("IF size == 'small' THEN 'low'", ...) make the fewest
errors on the training data. On the course's house-value table that is ``size`` with 3 errors
(``location`` and ``pets`` make 4; ``tests/models/test_oner.py``).

Naive Bayes multiplies per-feature likelihoods; :meth:`imlkit.models.NaiveBayes.explain`
prints each factor, so the course's tax-evasion computation can be read off row by row
(``tests/models/test_naive_bayes.py``).
"""
import numpy as np
import pandas as pd

from imlkit.models import NaiveBayes, OneR

house = pd.DataFrame([
    ("good", "small", "yes", "high"), ("good", "big", "no", "high"), ("good", "big", "no", "high"),
    ("bad", "medium", "no", "medium"), ("good", "medium", "only cats", "medium"),
    ("good", "small", "only cats", "medium"), ("bad", "medium", "yes", "medium"),
    ("bad", "small", "yes", "low"), ("bad", "medium", "yes", "low"), ("bad", "small", "no", "low"),
], columns=["location", "size", "pets", "value"])

oner = OneR().fit(house.drop(columns="value"), house["value"])
print("chosen feature:", oner.feature_)
print("errors per feature:", oner.errors_.to_dict())
print(oner.rules_)

ax = oner.errors_.plot.barh(figsize=(5, 2.2), xlabel="training errors (of 10 rows)")
ax.set_title("OneR: errors of each feature's rules")
ax.figure.set_layout_engine("constrained")

# %%
# Naive Bayes on the tax-evasion table: is a divorced non-refunder with income 120 an evader?
X = pd.DataFrame({
    "Refund": ["Yes", "No", "No", "Yes", "No", "No", "Yes", "No", "No", "No"],
    "Marital Status": ["Single", "Married", "Single", "Married", "Divorced", "Married", "Divorced",
                       "Single", "Married", "Single"],
    "Taxable Income": [125.0, 100, 70, 120, 95, 60, 220, 85, 75, 90],
})
y = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
query = pd.DataFrame({"Refund": ["No"], "Marital Status": ["Divorced"], "Taxable Income": [120.0]})

nb = NaiveBayes(alpha=0).fit(X, y)
ex = nb.explain(query)
print(ex.columns.tolist())
print(ex[["class", "term", "factor"]].to_string(index=False))
for c, p in zip(nb.classes_, nb.predict_proba(query)[0]):
    print(f"P({c} | x) = {p:.7f}")
