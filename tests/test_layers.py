"""The library's layers, read from the source with ``ast`` (nothing is imported): imports go one
way, down the layers of :data:`LAYERS` (imports inside functions count); no import cycle among the
modules of ``dpproofs/``; the library never imports its content package; and the accountant path
imports neither sympy, Hypothesis nor flint at module level."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "dpproofs"

#: The only library modules that may import the content package: none (content is found by entry
#: point, :mod:`dpproofs.checker.registry`).
MAY_IMPORT_CONTENT = set()

#: The layers, bottom first: a module may import its own layer and the layers listed before it.
#: ``dpproofs`` itself (the public facade) and ``dpproofs.__main__`` sit above all of them.
LAYERS = (
    ("foundation", ("dpproofs.errors", "dpproofs._validate")),
    # the task runner (in one process or on Dask): imports the foundation only, so that any layer
    # above (the checker, the sweep) can hand it pure tasks
    ("execution", ("dpproofs.parallel",)),
    ("math", ("dpproofs.math",)),
    ("mechanisms", ("dpproofs.mechanisms", "dpproofs.mechanisms_allocation", "dpproofs.mechanisms_shuffle",
                    "dpproofs.mechanisms_truncated", "dpproofs.mechanisms_bounded_range")),
    ("accountant", ("dpproofs.accountant",)),
    ("checker", ("dpproofs.checker",)),
    ("verification", ("dpproofs.verification",)),
    ("integrations", ("dpproofs.integrations",)),
    ("cli", ("dpproofs.cli",)),
    ("docgen", ("dpproofs.docgen",)),
)
#: Edges allowed against the direction, each with its reason.
UPWARD_EXCEPTIONS = {
    # `dpproofs report` is the documentation generator's front end: the command loads it by name,
    # inside run(), and nothing else of the CLI reaches the docgen.
    ("dpproofs.cli.report", "dpproofs.docgen"),
    ("dpproofs.cli.report", "dpproofs.docgen.site"),
}
CONTENT = "dpproofs_theorems"
#: The modules ``import dpproofs`` and an epsilon query load.
ACCOUNTANT_PATH = (
    "dpproofs", "dpproofs.accountant.rdp", "dpproofs.mechanisms", "dpproofs.accountant.exact",
    "dpproofs.math.conversions", "dpproofs.math.fast", "dpproofs.errors", "dpproofs._validate",
)
HEAVY = ("sympy", "hypothesis", "flint")


def module_name(path, root=PACKAGE):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root=PACKAGE):
    """``{module name: path}`` of every module under ``root``."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imports(path, name, *, module_level_only=False):
    """The absolute names ``path`` (module ``name``) imports: ``import a.b`` gives ``a.b``;
    ``from a import b`` gives ``a.b`` and ``a`` (b may be a module or a name in a); relative
    imports are resolved. With ``module_level_only``, imports inside functions are left out."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if not (module_level_only and nested):
                if isinstance(child, ast.Import):
                    found.update(alias.name for alias in child.names)
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        anchor = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                        base = ".".join(anchor + ([base] if base else []))
                    found.add(base)
                    found.update(f"{base}.{alias.name}" for alias in child.names)
            visit(child, nested)

    visit(tree, False)
    return found


def _packages(name):
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def import_graph(root=PACKAGE, *, module_level_only=False):
    """``{module: set of modules of the package it imports}``, function-level imports included
    (unless ``module_level_only``). Importing ``a.b.c`` also runs ``a/__init__`` and
    ``a/b/__init__``: edges go to those packages too, except to the importer's own packages
    (which Python has loaded before the importer)."""
    known = modules(root)
    graph = {}
    for name, path in known.items():
        targets = set()
        for imported in imports(path, name, module_level_only=module_level_only):
            if imported not in known:
                continue
            targets |= ({imported} | _packages(imported)) - _packages(name) - {name}
        graph[name] = targets & set(known)
    return graph


def find_cycle(graph):
    """One cycle of ``graph`` as a list of nodes (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def layer_of(name):
    """The index in :data:`LAYERS` of module ``name``, or None for the facade."""
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return index
    return None


def upward_imports(graph):
    """The edges of ``graph`` that go up the layers (not excepted), as sorted ``(importer, imported)``."""
    found = []
    for name, targets in graph.items():
        low = layer_of(name)
        for target in targets:
            high = layer_of(target)
            if low is not None and high is not None and high > low and (name, target) not in UPWARD_EXCEPTIONS:
                found.append((name, target))
    return sorted(found)


def test_every_library_module_belongs_to_a_layer():
    unplaced = sorted(n for n in modules() if layer_of(n) is None and n not in ("dpproofs", "dpproofs.__main__"))
    assert unplaced == []


def test_imports_go_down_the_layers_counting_imports_inside_functions():
    assert upward_imports(import_graph()) == []


@pytest.mark.parametrize("importer, imported", [
    ("dpproofs.math.fast", "dpproofs.mechanisms"),
    ("dpproofs.accountant.rdp", "dpproofs.checker.vocabulary"),
    ("dpproofs.checker.claims", "dpproofs.verification"),
    ("dpproofs.mechanisms", "dpproofs.accountant.rdp"),
])
def test_the_layer_rule_catches_a_mutant_import_against_the_direction(importer, imported):
    graph = import_graph()
    graph[importer] = set(graph[importer]) | {imported}
    assert (importer, imported) in upward_imports(graph)


def test_the_library_has_no_import_cycle_counting_imports_inside_functions():
    graph = import_graph()
    assert len(graph) > 20 and graph["dpproofs.checker.claims"]  # the graph was built from the source
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_sees_a_cycle_made_by_a_function_level_import(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def f():\n    from pkg.a import g\n")
    (package / "c.py").write_text("from . import a\n")
    graph = import_graph(package)
    assert graph["pkg.b"] == {"pkg.a"} and graph["pkg.c"] == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
    (package / "b.py").write_text("def f():\n    return 1\n")
    assert find_cycle(import_graph(package)) is None


def test_no_library_module_imports_the_content_package():
    offenders = sorted(
        name for name, path in modules().items()
        if name not in MAY_IMPORT_CONTENT
        and any(i == CONTENT or i.startswith(CONTENT + ".") for i in imports(path, name))
    )
    assert offenders == []


@pytest.mark.parametrize("name", ACCOUNTANT_PATH)
def test_the_accountant_path_imports_no_sympy_hypothesis_or_flint_at_module_level(name):
    path = modules()[name]
    heavy = sorted(i for i in imports(path, name, module_level_only=True) if i.split(".")[0] in HEAVY)
    assert heavy == [], f"{name} imports {heavy} at module level"


def test_the_accountant_path_loads_no_module_that_imports_sympy_hypothesis_or_flint():
    graph = import_graph(module_level_only=True)
    loaded, todo = set(), list(ACCOUNTANT_PATH)
    while todo:
        name = todo.pop()
        if name not in loaded:
            loaded.add(name)
            todo.extend(graph[name])
    known = modules()
    heavy = sorted(name for name in loaded
                   if any(i.split(".")[0] in HEAVY for i in imports(known[name], name, module_level_only=True)))
    assert heavy == [], f"the accountant path loads {heavy} at module level"
