"""Restrictions of a tuning space: Python callables, or expression strings compiled safely.

Kernel Tuner's convention is a restriction string such as ``"MWG % (MDIMC * VWM) == 0"``
evaluated with `eval`. A space can come from a file a user hands us, so `eval` is out: the
string is parsed with `ast` and only a small arithmetic-and-logic grammar is accepted
(names of the space's parameters, numbers, strings, booleans, ``+ - * / // % **`` on
numbers only (``'x' * 10**12`` would exhaust memory),
comparisons including chains and ``in``/``not in`` over tuples of constants, ``and``,
``or``, ``not``, ``x if c else y``). Anything else (a call, an attribute, a subscript, a
lambda, a name that is not a parameter) is refused when the space is built, in one line
naming the restriction. The accepted tree is compiled once into nested closures, so
checking a config costs a few Python calls and no parsing.

A restriction knows the parameters it reads (`names`): a string's are its `Name` nodes; a
callable's are unknown (every parameter), so it is checked on complete configs only. The
space checks a string as soon as the prefix of the product it enumerates binds all its
names, which prunes whole sub-products.
"""

from __future__ import annotations

import ast
import dataclasses
import operator
from collections.abc import Callable, Mapping
from typing import Any

Config = Mapping[str, Any]
Evaluator = Callable[[Config], Any]

# The largest exponent `**` accepts: `2 ** 10 ** 9` would hang the process.
MAX_EXPONENT = 64

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_CONSTANT_TYPES = (bool, int, float, str)


class RestrictionError(ValueError):
    """A restriction string outside the accepted grammar, or one that fails on a config."""


@dataclasses.dataclass(frozen=True)
class Restriction:
    """One compiled restriction: `check(config) -> bool`, the parameters it reads
    (None: unknown, check complete configs only) and its text for messages."""

    label: str
    names: frozenset[str] | None
    function: Callable[[Config], Any]

    def check(self, config: Config) -> bool:
        try:
            return bool(self.function(config))
        except RestrictionError:
            raise
        except Exception as error:  # a user's callable or arithmetic (x % 0) failing
            raise RestrictionError(
                f"restriction {self.label!r} failed on {dict(config)}: "
                f"{type(error).__name__}: {error}"
            ) from None


def make(restriction: object, params: tuple[str, ...]) -> Restriction:
    """A `Restriction` from a string or a callable; anything else is refused."""
    if isinstance(restriction, str):
        return compile_expression(restriction, params)
    if callable(restriction):
        label = getattr(restriction, "__name__", type(restriction).__name__)
        return Restriction(label, None, restriction)
    raise TypeError(
        f"restriction {restriction!r}: expected an expression string or a callable "
        f"config -> bool, got {type(restriction).__name__}"
    )


def compile_expression(text: str, params: tuple[str, ...]) -> Restriction:
    """Parse `text` with `ast` (never `eval`), check every node, compile to a closure."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise RestrictionError(f"restriction {text!r}: not an expression ({error.msg})") from None
    compiler = _Compiler(text, frozenset(params))
    function = compiler.compile(tree.body)
    return Restriction(text, frozenset(compiler.names), function)


class _Compiler:
    def __init__(self, text: str, params: frozenset[str]) -> None:
        self.text = text
        self.params = params
        self.names: set[str] = set()

    def refuse(self, node: ast.AST, what: str | None = None) -> RestrictionError:
        shown = what or f"{type(node).__name__} ({ast.unparse(node)!r})"
        return RestrictionError(
            f"restriction {self.text!r}: {shown} is not allowed (only parameter names, "
            f"constants, arithmetic, comparisons, and/or/not)"
        )

    def compile(self, node: ast.AST) -> Evaluator:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise self.refuse(node)
        return method(node)

    def _Constant(self, node: ast.Constant) -> Evaluator:
        value = node.value
        if not isinstance(value, _CONSTANT_TYPES):
            raise self.refuse(node)
        return lambda config: value

    def _Name(self, node: ast.Name) -> Evaluator:
        name = node.id
        if name in ("True", "False"):  # only reached on old Pythons; kept for clarity
            value = name == "True"
            return lambda config: value
        if name not in self.params:
            raise self.refuse(node, f"the name {name!r} (not a parameter of the space)")
        self.names.add(name)
        return lambda config: config[name]

    def _Tuple(self, node: ast.Tuple) -> Evaluator:
        # only as a constant collection (the right side of `in`)
        values = []
        for element in node.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, _CONSTANT_TYPES)):
                raise self.refuse(element, "a non-constant inside a tuple")
            values.append(element.value)
        frozen = tuple(values)
        return lambda config: frozen

    _List = _Tuple
    _Set = _Tuple

    def _UnaryOp(self, node: ast.UnaryOp) -> Evaluator:
        operand = self.compile(node.operand)
        if isinstance(node.op, ast.Not):
            return lambda config: not operand(config)
        if isinstance(node.op, ast.USub):
            return lambda config: -operand(config)
        if isinstance(node.op, ast.UAdd):
            return lambda config: +operand(config)
        raise self.refuse(node)

    def _BinOp(self, node: ast.BinOp) -> Evaluator:
        left, right = self.compile(node.left), self.compile(node.right)
        if isinstance(node.op, ast.Pow):
            text = self.text

            def power(config: Config) -> Any:
                base, exponent = left(config), right(config)
                if isinstance(base, str) or isinstance(exponent, str):
                    raise RestrictionError(f"restriction {text!r}: arithmetic on a string")
                if abs(exponent) > MAX_EXPONENT:
                    raise RestrictionError(
                        f"restriction {text!r}: exponent {exponent} exceeds {MAX_EXPONENT}"
                    )
                return base ** exponent
            return power
        op = _BINARY.get(type(node.op))
        if op is None:
            raise self.refuse(node, f"the operator {type(node.op).__name__}")
        text = self.text

        def arithmetic(config: Config) -> Any:
            a, b = left(config), right(config)
            if isinstance(a, str) or isinstance(b, str):  # 'x' * 10**12 would exhaust memory
                raise RestrictionError(f"restriction {text!r}: arithmetic on a string")
            return op(a, b)
        return arithmetic

    def _BoolOp(self, node: ast.BoolOp) -> Evaluator:
        parts = [self.compile(value) for value in node.values]
        if isinstance(node.op, ast.And):
            return lambda config: all(part(config) for part in parts)
        return lambda config: any(part(config) for part in parts)

    def _Compare(self, node: ast.Compare) -> Evaluator:
        operands = [self.compile(node.left)] + [self.compile(c) for c in node.comparators]
        ops = []
        for op in node.ops:
            function = _COMPARE.get(type(op))
            if function is None:
                raise self.refuse(node, f"the comparison {type(op).__name__}")
            ops.append(function)

        def compare(config: Config) -> bool:
            left = operands[0](config)
            for op, operand in zip(ops, operands[1:]):
                right = operand(config)
                if not op(left, right):
                    return False
                left = right
            return True
        return compare

    def _IfExp(self, node: ast.IfExp) -> Evaluator:
        test, body, orelse = self.compile(node.test), self.compile(node.body), self.compile(node.orelse)
        return lambda config: body(config) if test(config) else orelse(config)
