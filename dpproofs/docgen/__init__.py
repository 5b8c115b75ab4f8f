"""The documentation generator behind ``dpproofs report`` (``docs/*.md``, ``docs/figures/*.png``).

Kept out of the library core: only :mod:`dpproofs.cli.report` imports it. It knows no
theorem and no paper: everything comes through :mod:`dpproofs.checker.registry` -- the result modules
(``CLAIMS``, and their ``FIGURES`` and ``TABLES``, see :mod:`dpproofs.docgen.figures`), the
notes (``NUMERIC_CLAIMS``) and the papers' citations (each paper package's ``CITATION``).

* :mod:`.site` -- :func:`~dpproofs.docgen.site.render_pages`, ``stale_pages``, ``generate``;
* :mod:`.pages` -- one function per page kind (theorem, papers, index, accountant, verify, notes);
* :mod:`.readme` -- the values in README.md's Python examples, between markers;
* :mod:`.measure` -- the measuring parts and the store under ``docs/_measured/``;
* :mod:`.fingerprint` -- digests of the data and the code behind every stored measurement;
* :mod:`.markdown` -- docstrings to Markdown (rst-to-myst);
* :mod:`.figures` -- the ``Figure`` convention for theorem modules.
"""

from dpproofs.docgen.figures import Figure, pyplot, save

__all__ = ["Figure", "pyplot", "save"]
