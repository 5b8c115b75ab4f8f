"""The convention by which a theorem module contributes figures and tables to its page.

A result module (one that defines ``CLAIMS``) may define, next to its mathematics,

* ``FIGURES = (Figure(file, caption, draw), ...)``: ``draw(path)`` writes a PNG to ``path``;
  the page of the module's result shows it with the caption, and so do the library's pages named
  in ``also_on`` (``"accountant.md"``, ``"notes.md"``);
* ``TABLES = (function, ...)``: each ``function()`` returns a list of dicts with the same keys
  (one dict per row), shown on the page as a slack table.

Both are measured (drawn, computed) only by a full ``dpproofs report``; the stored result carries
the fingerprint of the code that made it (:mod:`dpproofs.docgen.fingerprint`; for a figure, also
the fingerprints of its module's claims, whose sides it may draw). A figure must
compute through the shared evaluator, ``dpproofs.math.conversions`` and the module's own claims and
helpers, never through retyped formulas. Importing this module is cheap (matplotlib is imported
by :func:`pyplot`, inside a draw function).
"""

import dataclasses
from collections.abc import Callable

__all__ = ["Figure", "pyplot", "save"]


@dataclasses.dataclass(frozen=True)
class Figure:
    """One figure of a result page: file name under ``docs/figures/``, caption, ``draw(path)``,
    and the other pages that show it too."""

    file: str
    caption: str
    draw: Callable
    also_on: tuple = ()


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend with the docs' style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 110, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
    return plt


def save(fig, path):
    """Write ``fig`` to ``path`` (no timestamp in the metadata) and close it."""
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
