"""The shipped accountant as claims: ``dpproofs.Accountant`` and ``dpproofs.calibrate_sigma``, called
exactly as a user calls them, held against exact privacy profiles and exact Rényi divergences.

* :mod:`.epsilon` - ``acc.epsilon(delta)`` is (epsilon, delta)-DP for the exact profile (Gaussian,
  T-fold Gaussian, Laplace, T-fold randomized response, one sampled-Gaussian step), in every mode
  (both conversions, ``refine``, ``certified``); for T sampled-Gaussian steps it is at least the
  conversion of the exact RDP at the order it reports; the conversion at any order of the
  accountant's curve is valid (mutants: ``alpha`` for ``alpha - 1``, the ``log(1 - 1/alpha)`` term
  doubled);
* :mod:`.delta` - ``acc.delta(epsilon)`` bounds the exact profile (same mechanisms and modes);
* :mod:`.calibrate` - ``calibrate_sigma`` never overshoots its target and is within its stated
  ``1e-6`` relative of the smallest sigma;
* :mod:`.relations` - under ``relation="replace_one"`` (fixed-size batches, ``FixedBatchGaussian``, and
  Poisson sampling) the accountant's RDP curve and epsilon are at least those of pairs that
  neighbouring datasets realise (mutants: sigma not halved, WBK19 without its j >= 3 terms, Mironov's
  Prop. 11 without its factor, add/remove accounting of a replace-one run);
* :mod:`.rdp` - the accountant's RDP curve, inflated by its documented tolerance, is at least the
  exact RDP (sampled Gaussian at integer and fractional orders, both directions, Gaussian,
  Laplace, randomized response); :mod:`.repeat_and_select` - the ``RepeatAndSelect`` curve of a
  Gaussian run is at least Theorem 2 of Papernot & Steinke 2022 (arXiv 2110.03620v2) at its best
  ``lambda_hat`` (mutant: the ``log(mean)/(lambda - 1)`` term dropped); :mod:`.rdp_bounded_range` - the
  ``BoundedRange`` curve (the exponential mechanism) is at least every two-point bounded-range pair's
  exact Rényi divergence (mutant: half the curve).
* :mod:`.pld` - ``PLDAccountant``'s bracket contains the exact tight epsilon (Gaussian, sampled
  Gaussian); :mod:`.pld_replace_one` - under replace-one its upper end is above every neighbouring
  pair that exists and has an exact profile (the Gaussian, fixed-size batches, Poisson).
* :mod:`.pld_mixture_of_gaussians` - ``PLDAccountant``'s bracket for one ``MixtureOfGaussians`` step
  contains the exact tight epsilon (the exact profile of two Gaussian mixtures, certified in arb;
  mutant: the pair without its largest component).
* :mod:`.pld_allocation` - ``PLDAccountant``'s bracket for one epoch of ``RandomAllocationGaussian``
  (balls-in-bins, t in {1, 2}) contains the exact one-epoch delta (a lognormal call/put in closed
  form inside one quadrature, certified in arb; mutants: the bound of twice the steps, the remove
  direction alone); :mod:`.pld_allocation_error_tails` - its upper one-step PLD covers the worst error
  its lattice law allows on any tail (mutant: the tail masses dropped).
* :mod:`.pld_atom_grid` - ``PLDAccountant``'s bracket for ledgers with loss atoms, whose upper grid has
  a point just below the heaviest atom: T randomized-response steps against the optimal composition
  of eps-DP mechanisms, one Laplace step against its closed form (mutant: the grid's shift recorded
  twice).
* :mod:`.pld_lower_one_step` - ``PLDAccountant``'s lower one-step PLD of a sampled Gaussian stays below
  the exact one-step profile on a grid centred on a heavy cell and with lifted shares merged into the
  next grid point (mutants: the centring offset dropped, every lifted share doubled).
* :mod:`.pld_trivial` - ``PLDAccountant``'s exact answer 0 where the composition's total variation
  bound ``1 - (1 - q)^T`` is at most delta, and the exact one-step profile at 0 is at most ``q``
  (mutants: the bound at half the rate, ``q/2``).
* :mod:`.sampled_laplace` - ``SampledLaplace`` (Poisson-subsampled Laplace) in both accountants:
  the RDP curve against the exact divergence of both directions, the PLD bracket against the
  exact one-step profile (mutants: the RDP bound without its weight or with a truncated
  chi-square, the PLD ends moved inward).

Claim ids start with ``accountant.<part>``; ``dpproofs check 'accountant.*'`` runs exactly these.
The accountant's answers enter statements through the ``accountant_*`` functions that
:mod:`.quantities` registers in the vocabulary (floats, exact as balls), so the exact side certifies
every verdict.
"""

#: What this package checks (used by the generated docs).
CITATION = (
    "the shipped dpproofs accountant (dpproofs.Accountant, dpproofs.calibrate_sigma): RDP composition, "
    "Mironov 2017 (arXiv 1702.07476v3) Prop. 1, conversions Prop. 3 and Balle, Barthe, Gaboardi, Hsu & "
    "Sato 2020 (arXiv 1905.09982v3) Thm 21, held against exact privacy profiles"
)

# the accountant_* vocabulary functions the claims of this package use
from dpproofs_theorems.accountant import quantities  # noqa: E402,F401
