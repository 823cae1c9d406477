"""
A GAM on the wage data
======================

The course's GAM figure on the ``Wage`` data (:func:`imlkit.datasets.load_wage`): natural
splines in ``year`` (4 degrees of freedom) and ``age`` (5), and a step function in
``education``. Holding the other terms fixed, the wage rises with age up to the middle of
working life and falls after it, and increases with every education level
(``tests/models/test_gam.py``).
"""
from imlkit.datasets import load_wage
from imlkit.models import GAM

X, y = load_wage()
gam = GAM(terms={"year": ("ns", 4), "age": ("ns", 5), "education": "factor"}).fit(X, y)
print(gam.summary().round(3))

# %%
# One panel per term: the partial effect with its standard-error band.
gam.plot(["year", "age", "education"], figsize=(10, 3.2))
