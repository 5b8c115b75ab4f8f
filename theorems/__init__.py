"""dpproofs_theorems: the content package of dpproofs (installed from the repository's ``theorems/``).

One module per paper result, each exporting ``CLAIMS``; each paper package (``abadi2016``,
``mironov2017``, ...) carries its citation as ``CITATION``. The library finds this package through
the ``dpproofs.content`` entry point (see :mod:`dpproofs.checker.registry`); it never imports it by name.
"""

from dpproofs.checker.registry import all_claims, modules, select

__all__ = ["all_claims", "select", "modules", "TOUR"]

#: The tour's steps about this package's claims (docs/index.md; ``dpproofs.docgen.measure.tour``):
#: (title, argv of ``dpproofs``).
TOUR = (
    ("check registered claims (a mutant the checker must refute)",
     ("check", "mironov2017.lemma1.bun_steinke", "--prefix", "--examples", "20")),
    ("the notes' numbers", ("claims", "notes.composition.basic", "notes.composition.drv",
                            "notes.composition.corollary1", "notes.gaussian100.*")),
)
