"""Safe tokenising and parsing of a claim text and its conditions into sympy relations.

Every token is checked against the whitelist of the claim grammar (numbers, names, the arithmetic
operators and one comparison) before sympy sees the text; decimals are exact rationals, ``^``
means ``**``; an unknown function, a keyword, an attribute access, a literal power too large to
evaluate or a value that is not a finite real is an :class:`~dpproofs.InvalidArgument`.
"""

import io
import keyword
import math
import re
import tokenize

import sympy
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr, rationalize

from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.errors import InvalidArgument, InvalidArgumentType

__all__ = ["parse_claim", "parse_condition", "is_variable_name", "MAX_TEXT", "MAX_LITERAL_EXPONENT",
           "FUNCTIONS", "CONSTANTS"]

#: Longest claim or condition text accepted.
MAX_TEXT = 2000
#: Largest numeric exponent accepted in a literal power (``2**10**6`` would hang sympy), and the
#: largest decimal exponent of a number literal (``1e100000000`` would be a 10^8-digit integer).
MAX_LITERAL_EXPONENT = 10_000
#: Largest number of decimal digits of a literal's value, powers of literals included
#: (``(10**10000)**10000`` has 10^8 of them).
MAX_LITERAL_DIGITS = 100_000

_COMPARISONS = ("<=", ">=", "<", ">")
_RELATION_CLASSES = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}
_ALLOWED_OPS = {"+", "-", "*", "/", "**", "^", "(", ")", ","} | set(_COMPARISONS)

#: The elementary functions a claim may call, by name.
_ELEMENTARY = dict(
    log=sympy.log, exp=sympy.exp, sqrt=sympy.sqrt, erfc=sympy.erfc,
    Min=sympy.Min, Max=sympy.Max, Abs=sympy.Abs,
    tanh=sympy.tanh, sinh=sympy.sinh, cosh=sympy.cosh, binomial=sympy.binomial,
)


def _functions():
    """Functions a claim may call, by name: the vocabulary as it is now (content packages'
    quantities included, :func:`dpproofs.checker.vocabulary.namespace`) plus the elementary ones."""
    found = dict(vocabulary.namespace())
    found.update(_ELEMENTARY)
    return found
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E}


_GLOBALS = {
    "Integer": sympy.Integer, "Float": sympy.Float, "Rational": sympy.Rational,
    "Add": sympy.Add, "Mul": sympy.Mul, "Pow": sympy.Pow, "__builtins__": {},
}
_NUMBER = re.compile(r"^(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][+-]?\d+)?$")
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _tokens(text, what):
    """Python tokens of ``text``, after checking each against the whitelist of the claim grammar."""
    if not isinstance(text, str):
        raise InvalidArgumentType(f"{what}={text!r} must be a str, not {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise InvalidArgument(f"{what} is longer than {MAX_TEXT} characters")
    stripped = text.strip()
    if not stripped:
        raise InvalidArgument(f"{what} is empty")
    if "\n" in stripped or "\r" in stripped:
        raise InvalidArgument(f"{what}={text!r} must be on one line")
    if stripped.count("(") != stripped.count(")"):
        raise InvalidArgument(f"{what}={text!r}: unbalanced parentheses")
    try:
        raw = list(tokenize.generate_tokens(io.StringIO(stripped).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as error:
        raise InvalidArgument(f"{what}={text!r}: syntax error ({error})") from None
    functions = _functions()
    tokens = []
    for tok in raw:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NUMBER:
            match = _NUMBER.match(tok.string)
            if not match:
                raise InvalidArgument(f"{what}={text!r}: {tok.string!r} is not a real decimal number")
            if match.group(2) and abs(int(match.group(2)[1:])) > MAX_LITERAL_EXPONENT:
                raise InvalidArgument(f"{what}={text!r}: the literal {tok.string!r} has an exponent beyond "
                                      f"+-{MAX_LITERAL_EXPONENT}")
            if len(match.group(1)) > MAX_LITERAL_DIGITS:
                raise InvalidArgument(f"{what}={text!r}: a literal has more than {MAX_LITERAL_DIGITS} digits")
        elif tok.type == tokenize.NAME:
            if tok.string in _GLOBALS:
                raise InvalidArgument(f"{what}={text!r}: {tok.string!r} is a name the parser reserves for numbers "
                                      f"({', '.join(sorted(n for n in _GLOBALS if n[0] != '_'))}); call the variable "
                                      "something else")
            if keyword.iskeyword(tok.string) or not _IDENTIFIER.match(tok.string):
                hint = " (use e.g. 'lam')" if tok.string == "lambda" else ""
                raise InvalidArgument(f"{what}={text!r}: {tok.string!r} cannot be a name here{hint}")
        elif tok.type == tokenize.OP:
            if tok.string not in _ALLOWED_OPS:
                hint = "; write one relation with <, <=, > or >=" if tok.string in ("==", "!=", "=") else ""
                raise InvalidArgument(f"{what}={text!r}: operator {tok.string!r} is not allowed{hint}")
        else:
            raise InvalidArgument(f"{what}={text!r}: unexpected {tok.string!r}")
        tokens.append(tok)
    for tok, following in zip(tokens, tokens[1:] + [None]):
        called = following is not None and following.string == "("
        if tok.type == tokenize.NAME:
            if called and tok.string not in functions:
                known = ", ".join(sorted(functions))
                raise InvalidArgument(f"{what}={text!r}: unknown function {tok.string!r} (known: {known})")
            if not called and tok.string in functions:
                raise InvalidArgument(f"{what}={text!r}: function {tok.string!r} must be called with arguments")
    return stripped, tokens


def _split(stripped, tokens, what):
    """Split at top-level comparison operators: ``[expr_text, op, expr_text, op, ...]``."""
    depth, pieces, start = 0, [], 0
    for tok in tokens:
        if tok.string == "(":
            depth += 1
        elif tok.string == ")":
            depth -= 1
            if depth < 0:
                raise InvalidArgument(f"{what}={stripped!r}: unbalanced parentheses")
        elif tok.string in _COMPARISONS:
            if depth != 0:
                raise InvalidArgument(f"{what}={stripped!r}: comparison {tok.string!r} inside parentheses")
            column = tok.start[1]
            pieces += [stripped[start:column], tok.string]
            start = tok.end[1]
    if depth != 0:
        raise InvalidArgument(f"{what}={stripped!r}: unbalanced parentheses")
    pieces.append(stripped[start:])
    for index in range(0, len(pieces), 2):
        if not pieces[index].strip():
            raise InvalidArgument(f"{what}={stripped!r}: a side of a comparison is empty")
    return pieces


def _local_dict(names, integers):
    local = _functions()
    local.update(_CONSTANTS)
    for name in names:
        if name not in local:
            local[name] = (
                sympy.Symbol(name, integer=True) if name in integers else sympy.Symbol(name, real=True)
            )
    return local


_TRANSFORMS = (auto_number, rationalize, convert_xor)


def _parse_expression(text, local, what):
    """Parse one side (no comparison) safely; validate the tree."""
    try:
        raw = parse_expr(text, local_dict=local, global_dict=dict(_GLOBALS), transformations=_TRANSFORMS,
                         evaluate=False)
        _check_literal_powers(raw, what)
        expr = parse_expr(text, local_dict=local, global_dict=dict(_GLOBALS), transformations=_TRANSFORMS)
        if _guarded_calls(raw) - _guarded_calls(expr):
            # sympy's evaluation removed a call whose domain can fail (exp(log(x)) -> x,
            # log(x, 0) -> 0): the claim is checked as written
            expr = raw
    except InvalidArgument:
        raise
    except TypeError as error:
        raise InvalidArgument(f"{what}: {text.strip()!r}: wrong arguments ({error})") from None
    except Exception as error:  # SyntaxError, TokenError, sympy errors: all are bad input here
        raise InvalidArgument(f"{what}: cannot parse {text.strip()!r} ({type(error).__name__}: {error})") from None
    _check_tree(expr, text, what)
    return expr


def _guarded_calls(expr):
    """The calls in ``expr`` whose arguments have a domain (functions, real powers, divisions)."""
    found = set()
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Function) or (
            isinstance(node, sympy.Pow) and node.base.free_symbols and not node.exp.is_integer
        ) or (isinstance(node, sympy.Pow) and node.exp.is_negative and node.base.free_symbols):
            found.add(node)
    return found


def _check_literal_powers(expr, what):
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and not node.free_symbols:
            base, exponent = node.args
            try:
                size = abs(float(sympy.N(exponent, 15)))
            except (TypeError, ValueError, OverflowError):
                size = math.inf
            if size > MAX_LITERAL_EXPONENT and sympy.N(abs(base), 15) != 1:
                raise InvalidArgument(f"{what}: the literal power {node} is too large to evaluate")
    if _digits(expr) > MAX_LITERAL_DIGITS:
        raise InvalidArgument(f"{what}: a literal value has more than {MAX_LITERAL_DIGITS} decimal digits "
                              "(too large to evaluate)")


def _digits(node):
    """An upper estimate of the decimal digits of the largest literal value built from constants
    in the unevaluated tree ``node`` (0 for anything that depends on a variable), without
    evaluating it: digits(a**b) ~ b digits(a), digits(a*b) ~ digits(a) + digits(b)."""
    if node.free_symbols:
        return max((_digits(arg) for arg in node.args), default=0)
    if node.is_Integer or node.is_Rational:
        return max(len(str(abs(node.p))), len(str(abs(node.q))))
    if node.is_Number:
        return 20
    if isinstance(node, sympy.Pow):
        base, exponent = node.args
        try:
            magnitude = abs(float(sympy.N(exponent, 15))) if _digits(exponent) <= 300 else math.inf
        except (TypeError, ValueError, OverflowError):
            magnitude = math.inf
        return _digits(base) * magnitude + 1
    return sum(_digits(arg) for arg in node.args) + 1


def _check_tree(expr, text, what):
    boolean = (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction,
               sympy.logic.boolalg.BooleanAtom)
    if not isinstance(expr, sympy.Expr) or isinstance(expr, boolean):
        raise InvalidArgument(f"{what}: {text.strip()!r} is not a real-valued expression")
    for node in sympy.preorder_traversal(expr):
        if node in (sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or node is sympy.I:
            raise InvalidArgument(f"{what}: {text.strip()!r} is not finite and real (it evaluates to {node})")
        if node.is_Atom and not (node.is_Symbol or node.is_Number or node in (sympy.pi, sympy.E)):
            raise InvalidArgument(f"{what}: {text.strip()!r} contains {node}, which is not a real number")
    if not arithmetic.ball_supported(expr):
        raise InvalidArgument(f"{what}: {text.strip()!r} uses a function the evaluators do not know")


def _names(tokens):
    functions = _functions()
    return {t.string for t in tokens if t.type == tokenize.NAME and t.string not in functions
            and t.string not in _CONSTANTS}


def _parse_chain(text, what, integers):
    stripped, tokens = _tokens(text, what)
    pieces = _split(stripped, tokens, what)
    local = _local_dict(_names(tokens), integers)
    expressions = [_parse_expression(p, local, what) for p in pieces[0::2]]
    return stripped, list(zip(expressions, pieces[1::2], expressions[1:]))


def _relation(lhs, op, rhs):
    return _RELATION_CLASSES[op](lhs, rhs, evaluate=False)


def parse_claim(text, integers=()):
    """The sympy relation of a claim text: exactly one comparison."""
    stripped, links = _parse_chain(text, "claim", set(integers))
    if len(links) != 1:
        raise InvalidArgument(
            f"claim={stripped!r} must be exactly one relation (<=, <, >=, >), found {len(links)}; "
            "put conditions in 'where'"
        )
    return _relation(*links[0])


def parse_condition(text, integers=()):
    """The sympy relations of one condition text (a chain ``a < b <= c`` gives two)."""
    stripped, links = _parse_chain(text, "where", set(integers))
    if not links:
        raise InvalidArgument(f"where={stripped!r} must be a comparison such as '0 < q < 1'")
    return [_relation(*link) for link in links]


def is_variable_name(name):
    """Whether ``name`` can name a variable (an identifier that is no function, constant or
    name the parser reserves)."""
    return (isinstance(name, str) and bool(_IDENTIFIER.match(name)) and name not in _functions()
            and name not in _CONSTANTS and name not in _GLOBALS)


#: The constants a claim may use, by name (``FUNCTIONS``, the functions, is computed when read:
#: content packages add quantities).
CONSTANTS = _CONSTANTS


def __getattr__(name):
    if name == "FUNCTIONS":
        return _functions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
