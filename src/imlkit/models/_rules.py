"""PLACEHOLDER: being written by another issue; replaced before landing."""


class Rule:  # PLACEHOLDER
    def __init__(self, *a, **k):
        raise NotImplementedError('Rule is not implemented yet')


class RuleSet:  # PLACEHOLDER
    def __init__(self, *a, **k):
        raise NotImplementedError('RuleSet is not implemented yet')


class DecisionList:  # PLACEHOLDER
    def __init__(self, *a, **k):
        raise NotImplementedError('DecisionList is not implemented yet')
