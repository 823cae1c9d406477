"""Which interpretation question each importance method answers.

The course (Ewald et al., "A guide to feature importance methods for scientific inference",
2024, and the lecture slides) separates three questions:

1. Is x_j causal for the prediction (does the model use x_j)?
2. Does x_j carry prediction-relevant information about y?
3. Does the model (or learner) need access to x_j to reach its performance
   (unique contribution given the other features)?

A method answers a question "yes" when a non-zero importance implies the property,
"partly" when it does so only one way or under conditions (typically: the property implies a
non-zero importance, but a non-zero importance does not imply the property),
"approximately (through the refitted learner)" for the refit methods' question (3), whose
answer is about the learner rather than the fitted model, and "no" otherwise. Every cell
follows the course's "implications" slides (PFI, CFI, marginal and conditional SAGE, LOCO).
"""
from __future__ import annotations

__all__ = ["QUESTIONS", "INTERPRETATION_TABLE", "explain_method"]

QUESTIONS = (
    "(1) Is x_j causal for the prediction (does the model rely on it)?",
    "(2) Does x_j carry prediction-relevant information about y?",
    "(3) Does the model need access to x_j for its performance (unique contribution)?",
)

# method -> (title, {question: (answer, reason)}, remark)
_METHODS = {
    "pfi": (
        "Permutation feature importance (PFI, marginal sampling)",
        {1: ("yes", "PFI_j != 0 implies the model relies on x_j; the converse does not hold "
                    "(a feature the model uses can have PFI 0 on data where it does not matter)."),
         2: ("no", "PFI_j != 0 can come from extrapolation: permuting x_j breaks its dependence on the "
                   "other features and the model is evaluated on unrealistic points."),
         3: ("no", "Marginal permutation does not isolate a feature's unique contribution "
                   "(see the extrapolation example).")},
        "Increase in loss when the feature's information is destroyed by a marginal permutation.",
    ),
    "cfi": (
        "Conditional feature importance (CFI, conditional sampling)",
        {1: ("yes", "CFI_j != 0 implies the model relies on x_j; CFI_j = 0 does not rule it out "
                       "(a feature whose information is shared with others gets CFI 0)."),
         2: ("no", "CFI_j != 0 says x_j and y are dependent given x_-j, not that x_j alone carries information "
                   "about y: with y = x_1·x_2 (x_1, x_2 independent, symmetric about 0) x_1 ⊥ y, yet a model that "
                   "learned the product has CFI_1 > 0. (Conversely CFI_j = 0 when x_-j shares x_j's information.)"),
         3: ("yes", "CFI_j != 0 implies x_j contributes unique information about y given x_-j "
                    "(x_j and y dependent given x_-j); it only uncovers relationships the model exploits, "
                    "and only as far as the sampler draws from the true P(x_j | x_-j) (the default "
                    "subgroup sampler assumes no distribution; the Gaussian one is exact only for "
                    "Gaussian data).")},
        "Increase in loss when x_j is replaced by draws from P(x_j | x_-j): its unique contribution.",
    ),
    "loco": (
        "Leave-one-covariate-out (LOCO, refits)",
        {1: ("no", "The learner is refitted, so the importance is not about the fitted model's use of x_j."),
         2: ("no", "LOCO_j != 0 says the learner does better with x_j given the other features, not that x_j "
                   "alone carries information about y: with y = x_1·x_2 (x_1, x_2 independent, symmetric about 0) "
                   "x_1 ⊥ y, yet the learner refitted without x_1 loses the product, so LOCO_1 > 0. (Conversely a "
                   "feature correlated with y can have LOCO 0 when another feature takes its place.)"),
         3: ("approximately (through the refitted learner)",
             "LOCO estimates the generalisation error of the learner on the data without x_j, so it "
             "says approximately whether the *learner* (not the fitted model) needs access to x_j.")},
        "Generalisation error of the learner refitted without x_j minus that of the full learner.",
    ),
    "lofo": (
        "Leave-one-feature-out (LOFO, refits)",
        {1: ("no", "The learner is refitted, so the importance is not about the fitted model's use of x_j."),
         2: ("no", "As LOCO: LOFO_j != 0 says the learner does better with x_j given the other features, not "
                   "that x_j alone carries information about y (y = x_1·x_2: x_1 ⊥ y, LOFO_1 > 0). (Conversely "
                   "correlated copies share credit: each copy can have LOFO 0.)"),
         3: ("approximately (through the refitted learner)",
             "As LOCO: whether the *learner* (not the fitted model) needs x_j to reach its performance; "
             "negative values mean the learner does better without it.")},
        "Test loss of the learner refitted without x_j minus (or divided by) the full learner's.",
    ),
    "sage_marginal": (
        "SAGE with marginal removal (Shapley values of the loss reduction)",
        {1: ("yes", "phi_j can only be non-zero if x_j is used by the model (as for PFI); "
                    "phi_j may be zero although the model uses x_j."),
         2: ("no", "Value functions may be non-zero through extrapolation, or zero through underfitting."),
         3: ("no", "Marginal value functions give no insight into unique contributions.")},
        "Fair (Shapley) share of the model's loss reduction, features removed by marginal sampling.",
    ),
    "sage_conditional": (
        "SAGE with conditional removal (Shapley values of the loss reduction)",
        {1: ("no", "phi_j may be non-zero although the model does not use x_j directly, "
                   "and zero although it does."),
         2: ("partly", "For a loss-optimal model v({j}) measures the information x_j carries about y "
                       "(mutual information for cross-entropy), so prediction-relevance implies phi_j != 0; "
                       "but x_j ⊥ y does not imply x_j ⊥ y | x_S, so phi_j may be non-zero although "
                       "x_j ⊥ y."),
         3: ("partly", "For a loss-optimal model the surplus v(all) - v(all without j) is the conditional "
                       "mutual information I(y; x_j | x_-j), so a unique contribution implies phi_j != 0; "
                       "but x_j ⊥ y | x_-j does not imply x_j ⊥ y | x_S, so phi_j may be non-zero "
                       "without one.")},
        "Fair (Shapley) share of the loss reduction, features removed by conditional sampling.",
    ),
    "shap_mean_abs": (
        "SHAP importance (mean |SHAP| of the prediction, interventional)",
        {1: ("yes", "Interventional SHAP of x_j is zero for every row when the model does not use x_j, so a "
                    "non-zero mean |phi_j| implies the model relies on x_j (as PFI); like PFI it may come from "
                    "hybrid points off the data (x_j combined with background values of the others)."),
         2: ("no", "It describes how the predictions move with x_j, not whether x_j tells anything about y: "
                   "the target is never used."),
         3: ("no", "Marginal (interventional) removal gives no insight into unique contributions.")},
        "How far, on average, x_j moves each prediction away from the mean prediction (no loss, no y).",
    ),
    "shap_loss_mean": (
        "Loss SHAP (Shapley values of each row's loss, interventional); their mean is marginal SAGE (of several "
        "features on the same background; one feature's SAGE takes the rows' mean prediction as f_∅)",
        {1: ("yes", "As marginal SAGE, which it averages to: non-zero only if the model uses x_j."),
         2: ("no", "Marginal removal: values may be non-zero through extrapolation, or zero through underfitting."),
         3: ("no", "Marginal value functions give no insight into unique contributions.")},
        "Per-row Shapley share of the loss reduction; the mean over rows is marginal SAGE on the same background.",
    ),
    "pimp": (
        "PIMP (permutation test of an importance against refits on a permuted target)",
        {1: ("as base", "PIMP answers the question of the importance it tests (see below) and adds a "
                        "p-value: is the importance larger than under no association with y?"),
         2: ("as base", ""),
         3: ("as base", "")},
        "p-value of the observed importance under the null distribution from refits on permuted targets.",
    ),
}

#: One row per method, one column per question: the answers for the report's table.
INTERPRETATION_TABLE = {
    m: {q: ans for q, (ans, _) in qs.items()} for m, (_, qs, _) in _METHODS.items()
}


def explain_method(method, warnings=(), params=None):
    """A plain-text explanation: what the method measures, its answer to each question, caveats."""
    params = params or {}
    if method not in _METHODS:
        return f"{method}: no interpretation notes available."
    title, qs, remark = _METHODS[method]
    lines = [title, remark, ""]
    for q, text in enumerate(QUESTIONS, start=1):
        ans, reason = qs[q]
        lines.append(f"{text} -> {ans}." + (f" {reason}" if reason else ""))
    if method == "lofo" and params.get("variant") == "permuted_copy":
        lines += ["", "Variant: x_j was replaced by a permuted copy in the training and test data (not dropped) and "
                      "the learner refitted on as many features; the permutation is one more source of randomness."]
    if method in ("sage_marginal", "sage_conditional"):
        # a one-feature table's SAGE came out 637 [637, 637]: "above 0 by its interval" was its sign alone
        # computed exactly over every coalition, no ordering is sampled, but the coalitions between none and all
        # still average background rows or conditional draws (sage7): only one feature samples nothing at all
        exact = ("computed exactly over every coalition, as here" if params.get("exact")
                 else "computed exactly over every coalition")
        lines += ["", "Its interval covers the Monte-Carlo sampling of feature orderings (and, for marginal SAGE, of "
                      "the background rows each ordering draws) on the rows given, not the "
                      "sampling of the data. With one feature (a single ordering and no coalition between none and "
                      "all: the value is exactly v(N) on these rows) nothing is sampled; " + exact + ", no ordering "
                      "is sampled, but the coalitions still average a sample of background rows or conditional "
                      "draws. Either way the interval has width 0: it then says nothing about whether the value is "
                      "above 0 beyond these rows."]
    if method == "pimp" and params.get("importance") in _METHODS:
        lines += ["", "Underlying importance:", explain_method(params["importance"], (), {})]
    if warnings:
        lines += ["", "Warnings:"] + [f"- {w}" for w in warnings]
    return "\n".join(lines)
