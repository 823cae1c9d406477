"""PLACEHOLDER: being written by another issue; replaced before landing."""


def loco(*a, **k):  # PLACEHOLDER
    raise NotImplementedError('loco is not implemented yet')


def lofo(*a, **k):  # PLACEHOLDER
    raise NotImplementedError('lofo is not implemented yet')
