"""Package list for setuptools (metadata lives in pyproject.toml).

The repository keeps the content under ``theorems/`` and installs it as ``dpproofs_theorems``.
"""

from setuptools import find_packages, setup

CONTENT_FOLDER, CONTENT_PACKAGE = "theorems", "dpproofs_theorems"

content = [CONTENT_PACKAGE + name[len(CONTENT_FOLDER):] for name in find_packages(include=[CONTENT_FOLDER, CONTENT_FOLDER + ".*"])]
setup(
    packages=find_packages(include=["dpproofs", "dpproofs.*"]) + content,
    package_dir={CONTENT_PACKAGE: CONTENT_FOLDER},
)
