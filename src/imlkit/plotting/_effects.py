"""PLACEHOLDER: being written by another issue; replaced before landing."""


def plot_effect(*a, **k):  # PLACEHOLDER
    raise NotImplementedError('plot_effect is not implemented yet')
