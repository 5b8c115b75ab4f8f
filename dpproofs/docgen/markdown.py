"""Docstrings (reStructuredText) to Markdown, with rst-to-myst (docutils' parser, mdformat's writer).

``rst-to-myst`` parses the reST with docutils and writes MyST Markdown through markdown-it and
mdformat. Two adjustments make its output plain enough for any Markdown viewer:

* a table without a header row (the vocabulary table of :mod:`dpproofs.checker.vocabulary`) has no
  Markdown form, and rst-to-myst would keep it as an ``{eval-rst}`` block: such two-column
  tables are turned into definition lists in the docutils tree before writing;
* Python-domain roles (``:func:`x```, ``:mod:`x```, ...) have no meaning outside Sphinx: they are
  written as plain code spans.
"""

import io
import re
import warnings

__all__ = ["rst_to_markdown"]

_ROLE = re.compile(r"\{(?:py:)?(?:func|mod|class|data|meth|attr|exc|obj)\}`~?([^`]+)`")


def _headerless_tables_to_definitions(document):
    from docutils import nodes

    for table in list(document.findall(nodes.table)):
        groups = [g for g in table.children if isinstance(g, nodes.tgroup)]
        if len(groups) != 1 or int(groups[0].get("cols", 0)) != 2:
            continue
        if any(isinstance(part, nodes.thead) for part in groups[0].children):
            continue
        body = next(part for part in groups[0].children if isinstance(part, nodes.tbody))
        items = nodes.definition_list()
        for row in body.children:
            term_entry, definition_entry = row.children
            term = nodes.term("", "", *[child for p in term_entry.children for child in p.children])
            definition = nodes.definition("", *definition_entry.children)
            items += nodes.definition_list_item("", term, definition)
        table.replace_self(items)


def rst_to_markdown(text):
    """Markdown for the reST ``text`` (a docstring)."""
    from rst_to_myst.mdformat_render import from_tokens
    from rst_to_myst.markdownit import MarkdownItRenderer
    from rst_to_myst.parser import to_docutils_ast

    stream = io.StringIO()
    with warnings.catch_warnings():  # rst-to-myst 0.4 calls docutils' deprecated Node.traverse
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        document, stream = to_docutils_ast(text, use_sphinx=False, warning_stream=stream)
        _headerless_tables_to_definitions(document)
        output = MarkdownItRenderer(document, warning_stream=stream).to_tokens()
        markdown = from_tokens(output, warning_stream=stream)
    return _ROLE.sub(lambda m: f"`{m.group(1)}`", markdown).strip()
