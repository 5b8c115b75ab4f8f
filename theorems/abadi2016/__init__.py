

#: The paper this package checks (used by the generated docs).
CITATION = (
    "M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov, K. Talwar, L. Zhang, "
    "\"Deep Learning with Differential Privacy\", CCS 2016 (arXiv 1607.00133v2)"
)

from dpproofs_theorems.abadi2016 import quantities  # noqa: E402,F401  (registers the paper's quantities)
