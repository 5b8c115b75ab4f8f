"""Exact ground truth: ``finite`` (finite mechanisms with rational probabilities, pairs, adaptive
compositions), ``subsampled`` (subsampled mechanisms enumerated over every batch of a small
dataset: finite bases, and the Gaussian sum query as a pair of finite Gaussian mixtures) and
``mixtures`` (the Renyi and hockey-stick divergences of two finite Gaussian mixtures, precise and
in rigorous balls). No paper's own construction lives here: those are in the paper packages. May
import :mod:`dpproofs.math` and ``errors``."""
