"""Section 2: the model and its test performance next to simple baselines."""
from __future__ import annotations

from ._context import Section, table, text
from ._figures import draw_performance, figure_block, new_figure, report_style
from ._models import baseline_models, main_metric, performance

__all__ = ["section_model"]


def section_model(ctx):
    """Test metrics of the black box, the mean/majority baseline and a GLM."""
    perf = {ctx.model_label: ctx.performance[ctx.model_label]}
    for name, est in baseline_models(ctx.task, ctx.X_train, ctx.y_train).items():
        with ctx.step(f"baseline: {name}", estimator=type(est).__name__):
            est.fit(ctx.X_train, ctx.y_train)
            perf[name] = performance(est, ctx.X_test, ctx.y_test, ctx.task)
    ctx.performance.update(perf)
    metrics = list(next(iter(perf.values())))
    rows = [[name] + [m.get(k) for k in metrics] for name, m in perf.items()]
    key = main_metric(ctx.task)
    blocks = [text(f"The model: {ctx.model_label}. Trained on {len(ctx.X_train):,} rows, evaluated on "
                   f"{len(ctx.X_test):,} held-out test rows."),
              table(["model"] + metrics, rows, caption="Test performance")]
    bb = perf[ctx.model_label][key]
    better = [n for n, m in perf.items() if n != ctx.model_label and
              (m[key] < bb if ctx.task == "regression" else m[key] > bb)]
    if better:
        blocks.append(text(f"Caution: {', '.join(better)} beat(s) the model on test {key}; interpreting the "
                           f"model explains a model that is not the best available."))
    else:
        glm = [n for n in perf if n.startswith("GLM")]
        if glm:
            g = perf[glm[0]][key]
            blocks.append(text(f"The model improves test {key} from {g:.4g} ({glm[0]}) to {bb:.4g}."))
    with report_style():
        fig, ax = new_figure(figsize=(6, 0.4 * len(perf) + 1.2))
        draw_performance(perf, key, ax[0, 0])
        blocks.append(figure_block(fig, f"Bar chart of test {key} per model"))
    return Section("model", "2. Model and baselines", blocks)
