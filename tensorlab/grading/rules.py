"""A question's rules (``Question.forbidden``: names a function answer must not use), checked on
source code: ``rule_check`` is THE check, used by batch grading and by the inline ``check`` alike
(the same source gives the same verdict). Cells are read as IPython runs them (``transform``);
what an answer's name is bound to is followed through the notebook's cells; code the grader
cannot follow (run-time lookups, rebinding by loops or ``global``, unknown modules, magics that
run other code) breaks the rules too, with the reason. ``names_used`` reads a live function
instead (inline, when there is no source to read).
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

from .verdict import Verdict

if TYPE_CHECKING:
    from .model import Question


def _names_in_code(code, seen: set) -> set[str]:
    """Every global, attribute and method name a code object (and its nested code) uses."""
    if id(code) in seen:
        return set()
    seen.add(id(code))
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_in_code(const, seen)
    return names


def names_used(fn) -> set[str]:
    """The names a learner's function uses, following helper functions it calls (defined in
    the same namespace, or in its closure) so a rule cannot be dodged by a helper; a global
    module counts as its name (``np`` -> ``numpy``), another global callable as its
    ``__name__`` (an alias)."""
    import types

    seen: set = set()
    names: set[str] = set()
    todo = [fn]
    done: set[int] = set()
    while todo:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        code = getattr(f, "__code__", None)
        if code is None or id(f) in done:
            continue
        done.add(id(f))
        found = _names_in_code(code, seen)
        names |= found
        if f is not getattr(fn, "__func__", fn) and isinstance(f.__name__, str):
            names.add(f.__name__)  # a helper or an alias: ri = tensorlab.Tensor.repeat_interleave
        scope = dict(getattr(f, "__globals__", {}) or {})
        for cell in getattr(f, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, types.FunctionType):
                todo.append(value)
            elif isinstance(value, types.ModuleType):
                names.update(value.__name__.split("."))
            elif callable(value) and isinstance(getattr(value, "__name__", None), str):
                names.add(value.__name__)
        for name in found:
            value = scope.get(name)
            if isinstance(value, types.FunctionType) and value.__globals__ is f.__globals__:
                todo.append(value)
            elif isinstance(value, types.ModuleType):  # np.repeat goes through numpy
                names.update(value.__name__.split("."))
            elif callable(value) and isinstance(getattr(value, "__name__", None), str):
                names.add(value.__name__)  # ri = tensorlab.Tensor.repeat_interleave
    return names


def _node_names(node) -> tuple[set[str], set[str]]:
    """(every name, attribute, import and string constant ``node`` mentions; its free variable
    names). Free: read and not bound inside ``node`` (parameters, assignments, loop and
    comprehension variables are local), so a helper's local ``x`` is never taken for a global."""
    import ast

    used: set[str] = set()
    loaded: set[str] = set()
    local: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            used.add(sub.id)
            (loaded if isinstance(sub.ctx, ast.Load) else local).add(sub.id)
        elif isinstance(sub, ast.Attribute):
            used.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            used.add(sub.value)  # getattr(x, "repeat_interleave")
        elif isinstance(sub, ast.arg):
            local.add(sub.arg)
        elif (
            isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and sub is not node
        ):
            local.add(sub.name)  # a function defined inside the answer is its own local
        elif isinstance(sub, ast.Call) and _code_magic(sub) is not None:
            for text in _code_magic(sub):  # x = %time f(x)
                used |= names_in_source(text)
        elif (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Name)
            and sub.func.id in ("exec", "eval", "compile")
        ):
            for arg in sub.args[:1]:  # exec("x.repeat_interleave(r)")
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    used |= names_in_source(arg.value)
                else:  # code built at run time, reached from the answer: see rule_check
                    used.add(RUN_TIME_CODE)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            if isinstance(sub, ast.ImportFrom) and sub.module:
                used.update(sub.module.split("."))
            for alias in sub.names:
                used.update(alias.name.split("."))
                local.add(alias.asname or alias.name.split(".")[0])
    return used, loaded - local


def transform(source: str) -> str:
    """``source`` as IPython runs it: magics, ``!shell`` lines and ``?help`` turned into Python
    by IPython's own input transformer (unchanged when IPython is not installed)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with ipykernel and nbclient
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - what IPython cannot transform it cannot run either
        return source


def _parse(source: str):
    """The AST of a cell as IPython would run it (``transform``, then parse), or None. Cached
    by the text (a notebook's cells are read once per question): never mutate the tree."""
    if not isinstance(source, str):
        return None
    return _parse_text(source)


@functools.lru_cache(maxsize=4096)
def _parse_text(source: str):
    import ast

    try:
        tree = ast.parse(transform(source))
        return _expand_code_magics(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _code_magic(node) -> list[str] | None:
    """The code strings of a ``%time``/``%%time``-like magic call (transformed), else None."""
    import ast

    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("run_line_magic", "run_cell_magic")
        and isinstance(node.func.value, ast.Call)
        and isinstance(node.func.value.func, ast.Name)
        and node.func.value.func.id == "get_ipython"
    ):
        return None
    args = [_const_str(a) for a in node.args]
    if not args or args[0] not in _CODE_MAGICS or None in args:
        return None
    return [a for a in args[1:] if a]


def _expand_code_magics(tree):
    """Top-level ``%time x = f()`` / ``%%time`` cells replaced by the code they run (so what
    that code binds is seen as the cell's own top-level bindings)."""
    import ast

    body = []
    for stmt in tree.body:
        code = _code_magic(stmt.value) if isinstance(stmt, ast.Expr) else None
        if code is None:
            body.append(stmt)
            continue
        for text in code:
            try:
                body.extend(_expand_code_magics(ast.parse(transform(text))).body)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                body.append(stmt)
    tree.body = body
    return tree


def names_in_source(source: str) -> set[str]:
    """Every name, attribute, imported module and string constant a source mentions."""
    tree = _parse(source)
    return set() if tree is None else _node_names(tree)[0]


def _top_statements(tree) -> list:
    """The statements that run at a cell's top level: its body and, inside it, the bodies of
    ``if``/``try``/``with`` blocks (never a function, a class or a loop)."""
    import ast

    out = []
    todo = list(reversed(tree.body))
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If):
            todo.extend(reversed(node.body + node.orelse))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            blocks = node.body + [s for h in node.handlers for s in h.body]
            todo.extend(reversed(blocks + node.orelse + node.finalbody))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            todo.extend(reversed(node.body))
    return out


def _top_level(tree) -> dict[str, list]:
    """What each module-level name of a cell is bound by: def, class, assignment or import."""
    import ast

    bound: dict[str, list] = {}
    for node in _top_statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name) and node.value is not None:
                        bound.setdefault(sub.id, []).append(node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.setdefault(alias.asname or alias.name.split(".")[0], []).append(node)
    return bound


def _stray_bindings(tree) -> set[str]:
    """Module-level names a cell binds other than by what ``_top_level`` follows: a loop target,
    ``with ... as``, ``except ... as``, ``:=``, ``del``, a ``global`` in a function."""
    import ast

    followed: set[int] = set()
    for node in _top_statements(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                followed.update(id(sub) for sub in ast.walk(t) if isinstance(sub, ast.Name))
    comps = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    out: set[str] = set()
    stack: list = [(tree, False, frozenset())]
    while stack:
        node, in_scope, declared = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            declared = frozenset(
                n for sub in ast.walk(node) if isinstance(sub, ast.Global) for n in sub.names
            )
            in_scope = True
        local: set[int] = set()
        if isinstance(node, comps):
            for gen in node.generators:
                local.update(id(sub) for sub in ast.walk(gen.target))
        if isinstance(node, ast.NamedExpr) and (not in_scope or node.target.id in declared):
            out.add(node.target.id)
        elif isinstance(node, ast.NamedExpr):
            out.add(node.target.id)  # := in a comprehension binds the enclosing scope
        elif (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, (ast.Store, ast.Del))
            and id(node) not in followed
            and (not in_scope or node.id in declared)
        ):
            out.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name and not in_scope:
            out.add(node.name)
        for child in ast.iter_child_nodes(node):
            if id(child) not in local:
                stack.append((child, in_scope, declared))
    return out


def answer_names(name: str, source: str, context: list[str] | tuple[str, ...] = ()) -> set[str]:
    """The names the learner's ``name`` uses, from source code only (batch grading: the grader
    reads the answer cell it spliced in, it never asks the kernel).

    The definition of ``name`` in the answer cell ``source`` (a ``def``, or an assignment such
    as a lambda), else the whole cell; then, transitively, what each free name it reads is bound
    to at the top level of the notebook's cells (``context``: every cell that ran, in order;
    helpers, aliases such as ``ri = tensorlab.Tensor.repeat_interleave``, imports such as
    ``np`` -> ``numpy``). The batch counterpart of ``names_used`` (which follows the live
    function), so a rule cannot be dodged by a helper or an alias; a test the learner wrote
    in the same cell (``assert interleave(x, 2).equal(x.repeat_interleave(2))``) is not counted.
    """
    return _follow(name, source, context)[0]


def _follow(name: str, source: str, context) -> tuple[set[str], set[str]]:
    """(what ``answer_names`` returns, the global names followed on the way, ``name`` first)."""
    nodes, _, _, seen = _follow_nodes(name, source, context)
    used: set[str] = set()
    for node in nodes:
        used |= _node_names(node)[0]
    return used, seen


def _follow_nodes(name: str, source: str, context) -> tuple[list, set[str], list[str], set[str]]:
    """(every definition the answer ``name`` reaches: its own, then the helpers, aliases and
    imports its free names are bound to at the top level of the cells, transitively; every
    name the cells bind at top level; for each node, the name it was reached as; every free
    name followed, ``name`` first)."""
    tree = _parse(source)
    bound: dict[str, list] = {}
    for text in (*context, source):
        other = _parse(text)
        if other is not None:
            for key, nodes in _top_level(other).items():
                bound.setdefault(key, []).extend(nodes)
    own = _top_level(tree).get(name) if tree is not None else None
    start = own or ([tree] if tree is not None else [])
    # every other top-level binding of the answer's name in the cells is followed too (a later
    # cell's `interleave = ...` replaces the answer cell's own)
    start = start + [n for n in bound.get(name, ()) if not any(n is m for m in start)]
    out: list = []
    owners: list[str] = []
    todo: list[str] = []
    for node in start:
        out.append(node)
        owners.append(name)
        todo.extend(_node_names(node)[1])
    seen = {name}
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for node in bound.get(n, ()):
            out.append(node)
            owners.append(n)
            todo.extend(_node_names(node)[1])
    return out, set(bound), owners, seen


# Modules a learner's cell may import when a question has rules: anything else (importlib,
# operator.methodcaller, ctypes, a module the notebook wrote itself...) can run code the
# grader cannot read, so the rules cannot be verified.
RULE_IMPORTS = frozenset(
    "numpy tensorlab math cmath random itertools functools collections typing dataclasses "
    "fractions decimal statistics time timeit matplotlib scipy torch IPython ipywidgets "
    "warnings copy pprint textwrap string re json enum abc contextlib __future__ os sys pathlib "
    "glob csv operator heapq bisect array".split()
)
# Calls and attributes through which a name is looked up or bound at run time.
_DYNAMIC_CALLS = frozenset(
    "globals vars locals exec eval compile __import__ setattr delattr getattr "
    "methodcaller attrgetter".split()
)
_DYNAMIC_ATTRS = frozenset(
    "__dict__ __globals__ __code__ __closure__ __builtins__ __getattribute__ __setattr__ "
    "__getattr__ __defaults__ __kwdefaults__ modules user_ns user_global_ns run_cell "
    "run_code push ex ev f_globals f_locals f_back".split()
)
# IPython magics (after IPython's transformation: get_ipython().run_line_magic(...)): those
# whose argument is code are read as code, harmless ones are allowed, any other is not.
_CODE_MAGICS = frozenset({"time", "timeit", "prun", "capture"})
_SAFE_MAGICS = frozenset(
    "matplotlib pinfo pinfo2 psearch pdoc pdef psource who whos who_ls pwd precision "
    "config autosave pprint reset reset_selective xdel history hist lsmagic magic page pdb "
    "debug tb xmode env cd ls pip conda".split()
)
_SAFE_IPYTHON_CALLS = frozenset({"system", "getoutput"})


def _const_str(node) -> str | None:
    import ast

    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _magic_code(call) -> tuple[list[str], str | None]:
    """(code strings run by an IPython magic call, why it cannot be verified) for a
    ``get_ipython().run_line_magic/run_cell_magic/system/getoutput(...)`` call node."""
    method = call.func.attr
    if method in _SAFE_IPYTHON_CALLS:
        return [], None
    args = [_const_str(a) for a in call.args]
    if method not in ("run_line_magic", "run_cell_magic") or not args or None in args:
        return [], f"`get_ipython().{method}` is used"
    magic = args[0]
    if magic in _SAFE_MAGICS:
        return [], None
    if magic in _CODE_MAGICS:
        return [a for a in args[1:] if a], None
    return [], f"the magic `%{magic}` is used"


def _module_names(trees: list) -> set[str]:
    """Names bound to imported modules at the top level of the cells."""
    import ast

    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def _unverifiable(name: str, sources: list[str], relevant=None) -> str | None:
    """Why the grader cannot follow what the cells bind at run time (None when it can): a name
    bound or looked up at run time (``globals()``, ``exec`` of a built string, a string-built
    ``getattr``, ``sys.modules``), a library attribute reassigned (``tensorlab.Tensor.view =
    ...``), an import of a module that is not a known library, an IPython magic that runs code
    the grader cannot read, a cell mentioning ``name`` that does not parse; the names
    ``rule_check`` follows must also not be bound by a loop, ``with``, ``:=``, ``global``...
    (``_stray_bindings``). Exec'd constant strings and ``%time`` code are read as cells.
    ``relevant(module)``: whether reassigning an attribute of ``module`` can change what the
    answer may run (an allow-list: only the modules it allows, and ``builtins``); None: all."""
    import ast

    todo = list(sources)
    trees = []
    while todo:
        text = todo.pop(0)
        tree = _parse(text)
        if tree is None:  # a cell IPython cannot parse never runs: it binds nothing
            continue
        trees.append(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if (
                isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Call)
                and isinstance(f.value.func, ast.Name)
                and f.value.func.id == "get_ipython"
            ):
                code, why = _magic_code(node)
                if why:
                    return why
                todo.extend(code)
            elif isinstance(f, ast.Name) and f.id in ("exec", "eval", "compile"):
                text = _const_str(node.args[0]) if node.args else None
                if text is not None:
                    todo.append(text)
                elif not _isolated(node):
                    return f"`{f.id}` runs code built at run time"
    modules = _module_names(trees)
    from .allow import _module_aliases

    aliases = _module_aliases(trees)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Name) and f.id in ("exec", "eval", "compile"):
                    continue
                fname = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if fname == "getattr" and len(node.args) >= 2 and _const_str(node.args[1]):
                    continue
                if fname in _DYNAMIC_CALLS:
                    return f"`{fname}` looks a name up at run time"
            elif isinstance(node, ast.Name) and node.id in _DYNAMIC_CALLS | {"__builtins__"}:
                if isinstance(node.ctx, ast.Load) and node.id not in ("exec", "eval", "compile"):
                    if not _called_directly(node, tree):
                        return f"`{node.id}` is passed around"
            elif isinstance(node, ast.Attribute):
                if node.attr in _DYNAMIC_ATTRS:
                    return f"`{node.attr}` is used"
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    root = node.value
                    while isinstance(root, ast.Attribute):
                        root = root.value
                    if isinstance(root, ast.Name) and root.id in modules:
                        module = aliases.get(root.id, root.id)
                        if relevant is None or relevant(module):
                            return f"an attribute of the module `{root.id}` is reassigned"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                for m in mods:
                    if isinstance(node, ast.ImportFrom) and node.level:
                        return "a relative import is used"
                    if m.split(".")[0] not in RULE_IMPORTS and not _installed(m):
                        return f"the module `{m}` is imported"
    return None


@functools.lru_cache(maxsize=1024)
def _installed(module: str) -> bool:
    """Whether ``module``'s top-level package is installed in this Python environment (which
    the grading kernel shares, read-only): found under ``sys.prefix``, not a file a notebook
    could have written next to itself. Nothing is imported."""
    import importlib.util
    import sys

    top = module.split(".")[0]
    if not top.isidentifier():
        return False
    if top in sys.builtin_module_names:
        return True
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    origin = getattr(spec, "origin", None) if spec is not None else None
    if not origin or origin in ("built-in", "frozen"):
        return spec is not None and origin in ("built-in", "frozen")
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    where = os.path.realpath(origin)
    return any(where.startswith(root + os.sep) for root in roots)


RUN_TIME_CODE = "<code built at run time>"  # in answer_names: exec/eval of a non-constant


def _isolated(call) -> bool:
    """Whether an ``exec``/``eval`` call runs in a namespace of its own (a dict literal or
    ``dict(...)`` as its globals): it cannot bind the notebook's names. (If the answer reaches
    it, ``rule_check`` still refuses it: what it runs cannot be read.)"""
    import ast

    if len(call.args) < 2:
        return False
    g = call.args[1]
    return isinstance(g, ast.Dict) or (
        isinstance(g, ast.Call) and isinstance(g.func, ast.Name) and g.func.id == "dict"
    )


def _called_directly(name_node, tree) -> bool:
    """Whether this Name node is the function of a call (``getattr(x, 'a')`` is read apart)."""
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.func is name_node:
            return True
    return False


def latest_cells(history: list[str]) -> list[str]:
    """An input history (IPython's ``In``) reduced to what still counts, in order: a cell is
    dropped when every name it binds at the top level is bound again by a later cell (an answer
    cell edited and run again replaces its earlier runs). For a notebook run once from top to
    bottom, the cells themselves: the inline check then reads what batch grading reads."""
    kept: list[str] = []
    later: set[str] = set()
    for text in reversed(history):
        tree = _parse(text)
        if tree is None:
            continue
        names = set(_top_level(tree))
        if names and names <= later:
            continue
        later |= names
        kept.append(text)
    return kept[::-1]


def rule_check(
    q: Question, source: str, context: list[str] | tuple[str, ...] = (), name: str | None = None
) -> str | None:
    """The message for an answer that breaks ``q``'s rules, else None: THE rule check, used by
    both batch grading and the inline ``check`` (same source, same verdict).

    ``source``: the cell that defines the answer; ``context``: every cell that ran, in order
    (it may include ``source``); ``name``: the answer's name (``q.name``). Cells are read as
    IPython runs them (``transform``). An answer whose binding the grader cannot follow
    (``_unverifiable``) breaks the rules too: they cannot be checked."""
    if not has_rules(q):
        return None
    name = name or q.name
    cells = [*context, source] if source not in context else list(context)
    allowed = getattr(q, "allowed", None)
    relevant = None
    if allowed is not None and getattr(q, "assessment", "") == "derive":
        # numbers in, numbers out: a patched module the answer may not use cannot change it
        # (an implement question's arguments are tensors: a patched method changes them)

        def relevant(module: str) -> bool:
            return allowed.module_ok(module) or module.split(".")[0] == "builtins"

    why = _unverifiable(name, cells, relevant)
    used, followed = _follow(name, source, context)
    if why is None and RUN_TIME_CODE in used:
        why = (
            "it runs code built at run time (`exec` or `eval` of a string that is not written out)"
        )
    if why is None:
        stray: set[str] = set()
        for text in cells:
            tree = _parse(text)
            if tree is not None:
                stray |= _stray_bindings(tree)
        bad = sorted(followed & stray, key=lambda n: (n != name, n))
        if bad:
            why = f"`{bad[0]}` is bound by a loop, `with`, `:=`, `del` or a `global` statement"
    if why is not None:
        allowed = q.allowed.says if getattr(q, "allowed", None) is not None else q.todo
        return (
            f"the grader cannot check this exercise's rules on your code: {why}. Define "
            f"`{name}` with a plain `def` and call only what the exercise allows: {allowed}"
        )
    if getattr(q, "allowed", None) is not None:
        from .allow import allow_violation

        broken = allow_violation(q.allowed, name, source, context)
        if broken is not None:
            return broken
    return rule_violation(q, used)


def has_rules(q) -> bool:
    """Whether ``q`` restricts what an answer may use (an allow-list or forbidden names)."""
    return bool(q.forbidden) or getattr(q, "allowed", None) is not None


def rule_violation(q: Question, used: set[str]) -> str | None:
    """The message for an answer that uses a name the question forbids (None when it keeps the
    rules). ``used``: ``names_used(fn)`` inline, ``answer_names(...)`` in batch grading."""
    bad = sorted(n for n in (q.forbidden or ()) if n in used)
    if not bad:
        return None
    listed = ", ".join(f"`{n}`" for n in bad)
    return f"your function uses {listed}, which this exercise rules out: {q.todo}"


def with_rules(q: Question, verdict: Verdict, broken: str | None) -> Verdict:
    """``verdict``, or the rules' failed verdict when the answer breaks ``q``'s rules
    (``broken``: ``rule_check``'s message) and was judged at all (batch and inline alike)."""
    if broken and verdict.status in ("passed", "failed"):
        return rule_verdict(q, broken)
    return verdict


def rule_verdict(q: Question, message: str) -> Verdict:
    """A failed verdict for a broken rule, attributed to the ``forbidden`` misconception."""
    m = next((m for m in q.misconceptions if m.key == "forbidden"), None)
    return Verdict(q.id, "failed", "rules", message, m)
