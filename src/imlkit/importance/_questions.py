"""Which interpretation question each importance method answers.

The course (Ewald et al., "A guide to feature importance methods for scientific inference",
2024, and the lecture slides) separates three questions:

1. Is x_j causal for the prediction (does the model use x_j)?
2. Does x_j carry prediction-relevant information about y?
3. Does the model (or learner) need access to x_j to reach its performance
   (unique contribution given the other features)?

A method answers a question "yes" when a non-zero importance implies the property,
"partly" when it does so only one way or under conditions, and "no" otherwise.
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
         2: ("no", "If x_j depends on y only through information it shares with x_-j, CFI_j = 0."),
         3: ("yes", "CFI_j != 0 implies x_j contributes unique information about y given x_-j, "
                    "among the relationships the model exploits.")},
        "Increase in loss when x_j is replaced by draws from P(x_j | x_-j): its unique contribution.",
    ),
    "loco": (
        "Leave-one-covariate-out (LOCO, refits)",
        {1: ("no", "The learner is refitted, so the importance is not about the fitted model's use of x_j."),
         2: ("no", "A feature correlated with y can have LOCO 0 when another feature takes its place."),
         3: ("yes", "Approximately: whether the *learner* needs access to x_j to reach its performance.")},
        "Generalisation error of the learner refitted without x_j minus that of the full learner.",
    ),
    "lofo": (
        "Leave-one-feature-out (LOFO, refits)",
        {1: ("no", "The learner is refitted, so the importance is not about the fitted model's use of x_j."),
         2: ("no", "Correlated copies share credit: each copy can have LOFO 0."),
         3: ("yes", "Whether the learner needs x_j to reach its performance; negative values mean "
                    "the learner does better without it.")},
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
         2: ("yes", "For a loss-optimal model v({j}) measures the information x_j carries about y "
                    "(mutual information for cross-entropy); phi_j may also be non-zero for a feature "
                    "that is only conditionally dependent on y."),
         3: ("partly", "The surplus v(all) - v(all without j) measures the unique contribution, "
                       "but phi_j averages over all coalitions and may be non-zero without one.")},
        "Fair (Shapley) share of the loss reduction, features removed by conditional sampling.",
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
    if method == "pimp" and params.get("importance") in _METHODS:
        lines += ["", "Underlying importance:", explain_method(params["importance"], (), {})]
    if warnings:
        lines += ["", "Warnings:"] + [f"- {w}" for w in warnings]
    return "\n".join(lines)
