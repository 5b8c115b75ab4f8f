"""Exact ground truth: ``finite`` (finite mechanisms with rational probabilities, pairs, adaptive
compositions) and ``subsampled`` (subsampled mechanisms enumerated over every batch of a small
dataset). May import :mod:`dpproofs.math` and ``errors``."""
