"""Allow-lists: a question with a rule says what an answer may use (``Allowed``), never only
what it must not (a list of forbidden names is side-stepped by a sibling op, a general library
or an alias nobody thought of).

``allow_violation`` reads source code (batch grading, and the inline check in a notebook): the
answer's definition and, transitively, every helper, alias and import it reaches through the
notebook's cells (``rules._follow``'s walk). Everything it reaches must be plain Python
(``PYTHON``), an attribute or function the question lists (``Allowed.names``) or part of a
module the question allows whole (``Allowed.whole``: ``math``). ``names_violation`` does the
same on a live function's names (``rules.names_used``) when no source can be read.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

# Plain Python an answer may always use: builtins that compute (no I/O, no run-time lookups),
# exceptions, and the methods of numbers, strings and containers.
PYTHON_BUILTINS = frozenset(
    "abs all any bool dict divmod enumerate filter float frozenset int isinstance len list map "
    "max min pow range reversed round set slice sorted str sum tuple zip iter next print repr "
    "hash issubclass callable format chr ord bin hex oct complex True False None "
    "NotImplemented Ellipsis".split()
) | frozenset(n for n in dir(builtins) if n.endswith(("Error", "Exception", "Warning")))
PYTHON_METHODS = frozenset(
    "append extend insert pop remove index count copy reverse sort clear items keys values get "
    "setdefault update add discard union intersection difference issubset issuperset join split "
    "strip lower upper startswith endswith format replace real imag conjugate is_integer "
    "bit_length as_integer_ratio numerator denominator".split()
)
PYTHON = PYTHON_BUILTINS | PYTHON_METHODS
PYTHON_SAYS = "plain Python (arithmetic, loops, if, tuples and lists, len/range/min/max/sum...)"


@dataclass(frozen=True)
class Allowed:
    """What a function answer may use besides plain Python.

    ``says``: what is allowed, in the learner's words (shown in every rule message and in the
    notebook). ``names``: functions, methods and attributes it may use, wherever they come from
    (``view``, ``repeat``, ``shape``; a module-level function such as ``np.prod`` as ``prod``).
    ``modules``: modules it may import, for their listed ``names`` only; ``whole``: modules whose
    every attribute is allowed (``math``). ``requires``: names of which the answer must use at
    least one (the exercise says "with conv2d").
    """

    says: str
    names: frozenset[str] = frozenset()
    modules: frozenset[str] = frozenset()
    whole: frozenset[str] = frozenset()
    requires: frozenset[str] = frozenset()

    def __post_init__(self):
        for f in ("names", "modules", "whole", "requires"):
            object.__setattr__(self, f, frozenset(getattr(self, f)))

    def permits(self, name: str) -> bool:
        return name in PYTHON or name in self.names

    def module_ok(self, module: str) -> bool:
        top = module.split(".")[0]
        return top in self.modules or top in self.whole

    def whole_names(self) -> frozenset[str]:
        """Every attribute of the modules allowed whole (for ``names_violation``)."""
        import importlib

        out: set[str] = set()
        for m in self.whole:
            try:
                out.update(dir(importlib.import_module(m)))
            except ImportError:  # pragma: no cover - only standard modules are allowed whole
                pass
        return frozenset(out)


# What derive questions allow: the rule written as arithmetic, never an op run on tensors
# (numpy for its arithmetic on numbers only: an array of the sizes asked for cannot exist).
_STDLIB = frozenset({"math", "functools", "itertools", "operator", "fractions"})
DERIVE = Allowed(
    says=PYTHON_SAYS + ", the math module and numpy's arithmetic (np.prod, np.cumprod, "
    "np.floor, np.ceil...): write the rule, do not build tensors or run the operation",
    names=frozenset(
        "prod cumprod floor ceil floor_divide gcd lcm maximum minimum item tolist multiply add "
        "subtract dot".split()
    ),
    modules=frozenset({"numpy"}),
    whole=_STDLIB,
)


def with_numpy(says: str, names=(), modules=(), requires=()) -> Allowed:
    """An allow-list of plain Python, numpy (all of it, and its arrays' methods) and ``names``
    (e.g. some of tensorlab's functions, with ``modules=("tensorlab",)``)."""
    import numpy as np

    array = frozenset(n for n in dir(np.ndarray) if not n.startswith("_"))
    return Allowed(
        says=says,
        names=array | frozenset(names) | {"T"},
        modules=frozenset(modules),
        whole=_STDLIB | {"numpy"},
        requires=frozenset(requires),
    )


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _text(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - a name for a message only
        text = getattr(node, "attr", "") or getattr(node, "id", "?")
    return text if len(text) <= 60 else text[:59] + "…"


def _module_aliases(trees: list[ast.AST]) -> dict[str, str]:
    """Name -> module for every ``import m`` / ``import m as n`` at any level of the cells."""
    out: dict[str, str] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        out[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        out[top] = top
    return out


def node_violations(
    allowed: Allowed, node: ast.AST, bound: set[str], aliases: dict[str, str]
) -> list[str]:
    """The constructs in ``node`` the allow-list does not permit (as source text), in order.
    ``bound``: names the notebook binds at top level (followed as helpers, checked where they
    are defined); ``aliases``: name -> module of the cells' imports."""
    from .rules import _node_names

    free = _node_names(node)[1]
    out: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import):
            for alias in sub.names:
                if not allowed.module_ok(alias.name):
                    out.append(f"import {alias.name}")
        elif isinstance(sub, ast.ImportFrom):
            module = sub.module or ""
            if sub.level or not allowed.module_ok(module):
                names = ", ".join(a.name for a in sub.names)
                out.append(f"from {'.' * sub.level}{module} import {names}")
            elif module.split(".")[0] not in allowed.whole:
                for alias in sub.names:
                    if not allowed.permits(alias.name):
                        out.append(f"from {module} import {alias.name}")
        elif isinstance(sub, ast.Attribute):
            if allowed.permits(sub.attr):
                continue
            root = _root(sub)
            if isinstance(root, ast.Name) and root.id in aliases:
                if aliases[root.id].split(".")[0] in allowed.whole:
                    continue
            out.append(_text(sub))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id == "getattr" and len(sub.args) >= 2:
                attr = sub.args[1]
                if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                    if not allowed.permits(attr.value):
                        out.append(f"getattr(..., {attr.value!r})")
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in free:
            if sub.id in bound or allowed.permits(sub.id):
                continue
            out.append(sub.id)
    return out


def allow_violation(allowed: Allowed, name: str, source: str, context=()) -> str | None:
    """The message for an answer (``name`` defined in ``source``, with the notebook's cells
    ``context``) that reaches constructs ``allowed`` does not permit, else None."""
    from .rules import _follow_nodes, _parse

    nodes, bound, owner, _ = _follow_nodes(name, source, context)
    trees = [t for t in (_parse(s) for s in (*context, source)) if t is not None]
    aliases = _module_aliases(trees)
    found: list[tuple[str, str | None]] = []
    for node, where in zip(nodes, owner):
        for bad in node_violations(allowed, node, bound, aliases):
            if bad in [b for b, _ in found]:
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = bad.split()[1].split(".")[0]
                if bad.startswith("import ") and any(b.startswith(module + ".") for b, _ in found):
                    continue  # `tensorlab.tensor` already says it
                where = name
            found.append((bad, where if where != name else None))
    if found:
        return message(allowed, found)
    if allowed.requires:
        reached: set[str] = set()
        for node in nodes:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute):
                    reached.add(sub.attr)
                elif isinstance(sub, ast.Name):
                    reached.add(sub.id)
                elif isinstance(sub, ast.alias):
                    reached.add(sub.name.split(".")[-1])
        if not reached & allowed.requires:
            return missing_message(allowed)
    return None


def missing_message(allowed: Allowed) -> str:
    names = " or ".join(f"`{n}`" for n in sorted(allowed.requires))
    return f"your function does not use {names}, which this exercise asks for. Allowed: {allowed.says}."


def message(allowed: Allowed, found: list[tuple[str, str | None]]) -> str:
    """``found``: (construct, the helper it is in, or None for the answer itself)."""
    parts = []
    for bad, helper in found[:6]:
        through = f" (in `{helper}`, which it uses)" if helper else ""
        parts.append(f"`{bad}`{through}")
    more = f" and {len(found) - 6} more" if len(found) > 6 else ""
    return (
        f"your function uses {', '.join(parts)}{more}, which this exercise does not allow. "
        f"Allowed: {allowed.says}."
    )


def names_violation(allowed: Allowed, fn) -> str | None:
    """``allow_violation`` for a live function whose source cannot be read (not a notebook's
    cell): every global, attribute and closure name its code uses must be allowed; a helper
    defined in the same module is followed, a global bound to a module counts as that module,
    one bound to another callable as that callable (an alias), one bound to a constant is fine."""
    import types

    from .rules import _names_in_code

    extra = allowed.whole_names()
    found: list[tuple[str, str | None]] = []
    seen_names: set[str] = set()
    home = getattr(getattr(fn, "__func__", fn), "__module__", None)
    todo, done = [getattr(fn, "__func__", fn)], set()
    while todo:
        f = todo.pop()
        code = getattr(f, "__code__", None)
        if code is None or id(f) in done:
            continue
        done.add(id(f))
        env = dict(getattr(f, "__globals__", {}) or {})
        for var, cell in zip(code.co_freevars, getattr(f, "__closure__", None) or ()):
            try:
                env[var] = cell.cell_contents
            except ValueError:
                continue
        where = None if f is getattr(fn, "__func__", fn) else f.__name__
        for n in sorted(_names_in_code(code, set()) | set(code.co_freevars)):
            value = env.get(n, _UNBOUND)
            seen_names.add(n)
            if value is not _UNBOUND and isinstance(getattr(value, "__name__", None), str):
                seen_names.add(value.__name__)
            if isinstance(value, types.FunctionType) and value.__module__ == home:
                todo.append(value)  # a helper of the learner's
                continue
            if isinstance(value, types.ModuleType):
                if not allowed.module_ok(value.__name__):
                    found.append((f"import {value.__name__}", where))
                continue
            if value is not _UNBOUND and not callable(value):
                continue  # a constant
            if value is not _UNBOUND:  # a callable bound in the notebook: judged by what it is
                alias = getattr(value, "__name__", None)
                if not (isinstance(alias, str) and (allowed.permits(alias) or alias in extra)):
                    found.append((f"{n} (= {alias})" if alias and alias != n else n, where))
                continue
            if not (allowed.permits(n) or n in extra):
                found.append((n, where))
    if found:
        return message(allowed, found)
    if allowed.requires and not seen_names & allowed.requires:
        return missing_message(allowed)
    return None


_UNBOUND = object()
