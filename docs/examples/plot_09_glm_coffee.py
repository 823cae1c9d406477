"""
A Poisson GLM: the coffee example
=================================

The course's Poisson regression (Molnar, *Interpretable Machine Learning*, Table 5.3): the
number of coffees a day given stress (1..10), hours of sleep and whether it is a working day,
simulated from ``log E[coffees] = −0.16 + 0.12·stress − 0.15·sleep + 0.80·1(work = yes)``
(:func:`imlkit.datasets.make_coffee`). The fitted weights recover the course's table, and
``exp(weight)`` reads as a factor on the expected count (``tests/models/test_glm.py``).
"""
from imlkit.datasets import make_coffee
from imlkit.models import GLM

X, y = make_coffee(n=300, random_state=3)
glm = GLM(family="poisson").fit(X, y)
print(glm.summary()[["weight", "ci_low", "ci_high", "exp_weight"]].round(3))

# %%
# The reading the course gives, generated from the fit:
for line in glm.interpret():
    print(line)

# %%
# exp(weight) with its interval.
glm.plot()
