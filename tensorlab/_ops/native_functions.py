"""The op table: every op's public bindings, built once (as PyTorch reads native_functions.yaml).

How to add an op
----------------
1. Write it as a plain function in the ``_ops`` module of its family (``arithmetic``, ``unary``,
   ``reduce``, ``distributions``, ...; a new module goes into the import list of
   ``_ops/__init__.py``; an op written elsewhere, e.g. in ``nn/``, is imported by one listed there).
2. Put one ``@op`` row on it::

       from ..autograd import formulas as AG
       from ..autograd.views import same_as
       from .native_functions import op

       @op("frac", formula=AG.unary_node("frac"))  # tensorlab.frac and Tensor.frac
       def frac(input, *, out=None) -> Tensor: ...

       @op("frac_", function=False, inplace=same_as(frac))  # Tensor.frac_ only
       def frac_(self) -> Tensor: ...

   - names: the first is ``tensorlab.<name>`` and a method; more names are more methods
     (``@op("sub_", "subtract_", function=False)``); ``function=False``: a method only; ``function="other"``: the
     function under another name; ``method=False``: ``tensorlab.<name>`` only;
   - ``operators=("__add__", "__radd__")``: Python operators (they return ``NotImplemented`` for
     operands PyTorch refuses);
   - ``formula=make_node(result, *args, **kwargs)`` records the op for autograd (see
     ``autograd/formulas.py``); ``inplace=make_node(old, *args, **kwargs)`` (or
     ``same_as(op)``) records an in-place method. The decorated name is the final function:
     other modules call it and get autograd;
   - another name for an existing op: ``alias("fix", "trunc")`` (function and method) or
     ``alias("fix_", "trunc_", function=False)``.
3. ``out=``: if ``torch.<name>`` takes ``out=``, either let the function take ``out=None``
   itself, or add the name to :data:`OUT` below and the table adds it. Either way ``out=`` with
   an input that requires grad raises (:func:`~tensorlab.autograd.graph.check_out_grad`).
4. Keyword spellings (``axis=``, ``keepdims=``, ``x=``...) are given to every op of the families
   in :data:`KEYWORD_FAMILIES`; methods named in :data:`COUNT_FROM_SELF` report argument positions
   after ``self`` in their ``TypeError``.

Nothing touches ``Tensor`` or ``tensorlab`` at import: :func:`build` (called once, at the end of
``tensorlab/_ops/__init__.py``) reads the table, so the op modules import in any order.
``tensor_method(*names, function=...)`` and ``module_function(name)`` (here, or from
``tensorlab._tensor``) are rows without a formula: the older spelling, still accepted; so is
``@differentiable(make_node, name)`` under them.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from collections.abc import Callable

from .._meta import NoMetaKernel, meta_function
from .._tensor import MODULE_FUNCTIONS, Tensor
from ..autograd.graph import check_out_grad, differentiable
from ..autograd.views import inplace_differentiable

# ---------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------


class alias:
    """A row naming an existing op's implementation under another name."""

    def __init__(self, name: str, target: str, *, function: bool = True, method: bool = True):
        self.target = target
        if method:
            _add(METHODS, name, self)
        if function:
            _add(FUNCTIONS, name, self)


METHODS: dict[str, Callable | alias] = {}  # Tensor.<name>
FUNCTIONS: dict[str, Callable | alias] = {}  # tensorlab.<name>
_BUILT = []


def _add(table: dict, name: str, fn) -> None:
    if name in table:
        raise RuntimeError(f"op table: {name!r} is registered twice")
    if _BUILT:  # a late row (a module imported after build): install it at once
        table[name] = fn
        _install(table, name)
        return
    table[name] = fn


def op(
    *names: str,
    function: bool | str = True,
    method: bool = True,
    operators: tuple[str, ...] = (),
    formula: Callable | None = None,
    inplace: Callable | None = None,
):
    """One row of the table for the decorated function (see the module docstring)."""

    def deco(fn):
        if formula is not None:
            fn = differentiable(formula, names[0])(fn)
        if inplace is not None:
            fn = inplace_differentiable(inplace)(fn)
        if method:
            for n in names:
                _add(METHODS, n, fn)
        for n in operators:
            _add(METHODS, n, _operator(fn))
        if function:
            _add(FUNCTIONS, function if isinstance(function, str) else names[0], fn)
        return fn

    return deco


def tensor_method(*names: str, function: bool | str = True):
    """``@op(*names, function=...)``: the older spelling of a row without a formula."""
    return op(*names, function=function)


def module_function(name: str | None = None):
    """A row for ``tensorlab.<name>`` only (a function that is not a method)."""

    def deco(fn):
        _add(FUNCTIONS, name or fn.__name__, fn)
        return fn

    return deco


def _operator(fn):
    """Operators return NotImplemented for operands PyTorch would not accept (Python raises)."""
    from ._elementwise import _dunder

    return _dunder(fn)


# functions whose Python binding takes out= (asked of torch 2.13.0: the schemas with an out
# overload, minus those the Python binding does not expose)
OUT = set(
    """abs absolute acos acosh add all amax amin any arccos arccosh arcsin arcsinh arctan arctan2
    arctanh argmax argmin asin asinh atan atan2 atanh bitwise_and bitwise_not bitwise_or
    bitwise_xor bitwise_left_shift bitwise_right_shift ceil clamp clamp_max clamp_min clip column_stack cos cosh cross cumprod cumsum
    diag diff div divide dstack eq erf erfc exp exp2 expm1 fix floor floor_divide fmod gather ge
    greater greater_equal gt index_add index_copy index_select le lerp less
    less_equal log log10 log1p log2 logcumsumexp logical_and logical_not logical_or logical_xor
    logsumexp lt masked_select max maximum mean min minimum mul multiply ne neg negative nonzero
    norm not_equal pow prod reciprocal remainder round row_stack rsqrt scatter scatter_add
    scatter_reduce sigmoid sign sin sinh sqrt square std sub subtract sum take take_along_dim
    tan tanh tril triu true_divide trunc var where cat concat concatenate stack hstack vstack
    """.split()
)
# tuple results: out=(values, indices) is not supported here
_TUPLE_RESULTS = {"max", "min"}

# the families whose ops take PyTorch's keyword spellings (the module an op is written in)
KEYWORD_FAMILIES = {
    "tensorlab._ops." + m
    for m in "arithmetic comparison unary reduce copies scatter_gather shape_ops".split()
}

# methods whose TypeError counts argument positions after ``self``, as PyTorch's messages do:
# "add(): argument 'other' (position 1) must be Tensor"
COUNT_FROM_SELF = set(
    "add sub subtract rsub mul multiply div divide true_divide floor_divide remainder fmod pow "
    "maximum minimum eq ne lt le gt ge not_equal less less_equal greater greater_equal "
    "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor bitwise_left_shift "
    "bitwise_right_shift isclose allclose "
    "equal lerp dot mv mm bmm outer ger matmul".split()
)

# ---------------------------------------------------------------------------------------------
# keyword forms: python_arg_parser.cpp's numpy_compatibility_arg_names, dims varargs, out=
# ---------------------------------------------------------------------------------------------

ALIASES = {"axis": "dim", "keepdims": "keepdim", "x2": "other"}
INPUT_ALIASES = ("x", "a", "x1")
# ops whose dims are varargs in tensorlab and a ``dims`` sequence in PyTorch's signature
_DIMS_VARARGS = {"flip", "tile"}


def _params(fn) -> dict:
    try:
        return dict(inspect.signature(inspect.unwrap(fn)).parameters)
    except (TypeError, ValueError):
        return {}


def with_keywords(fn, name: str, *, method: bool):
    """``fn`` accepting PyTorch's keyword spellings (and ``out=`` for functions in :data:`OUT`).
    (``fn``'s signature is read on the first call with keywords: importing stays fast.)"""
    from ._elementwise import store_out

    varargs = name in _DIMS_VARARGS
    cache = {}

    def params() -> dict:
        if "p" not in cache:
            cache["p"] = _params(fn)
        return cache["p"]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            params_ = params()
            give_out = not method and name in OUT and "out" not in params_
            for alias_, canon in ALIASES.items():
                if alias_ in kwargs and alias_ not in params_:
                    if canon in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument '{canon}'")
                    kwargs[canon] = kwargs.pop(alias_)
            if not method and "input" in params_ and "input" not in kwargs:
                for alias_ in INPUT_ALIASES:
                    if alias_ in kwargs and alias_ not in params_:
                        kwargs["input"] = kwargs.pop(alias_)
                        break
            if varargs and "dims" in kwargs:
                dims = kwargs.pop("dims")
                if "input" in kwargs and not args:
                    args = (kwargs.pop("input"),)
                args = (*args, *(dims if isinstance(dims, (tuple, list)) else (dims,)))
            if not method and "out" in kwargs and name not in OUT:
                raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
            if give_out and "out" in kwargs:
                out = kwargs.pop("out")
                if out is None:
                    return fn(*args, **kwargs)
                check_out_grad(name, args, kwargs)
                result = fn(*args, **kwargs)
                if (
                    isinstance(result, tuple)
                    or name in _TUPLE_RESULTS
                    and not isinstance(result, Tensor)
                ):
                    raise TypeError(f"{name}(): out= with a tuple result is not supported")
                return store_out(result, out)
        try:  # (a try costs nothing until it catches)
            return fn(*args, **kwargs)
        except NoMetaKernel:  # a meta tensor reached a numpy kernel: its MetaTensor method
            return meta_function(name, fn, args, kwargs, method)

    return wrapper


_POSITION = re.compile(r"^(\w+\(\): argument '\w+' \(position )(\d+)(\) must be .*)$", re.S)


def count_from_self(fn):
    """The method form of ``fn``: its TypeError counts argument positions after ``self``."""

    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            m = _POSITION.match(str(e))
            if not m or "'input'" in str(e):
                raise
            raise TypeError(f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}") from None

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    return method


# ---------------------------------------------------------------------------------------------
# build: read the table once
# ---------------------------------------------------------------------------------------------


def _resolve(table: dict, name: str):
    fn = table[name]
    seen = {name}
    while isinstance(fn, alias):
        if fn.target in seen:
            raise RuntimeError(f"op table: alias cycle at {name!r}")
        seen.add(fn.target)
        fn = table.get(fn.target) or METHODS.get(fn.target) or FUNCTIONS[fn.target]
    return fn


def _family(fn) -> str | None:
    return getattr(inspect.unwrap(fn), "__module__", None)


def _install(table: dict, name: str) -> None:
    fn = _resolve(table, name)
    keywords = _family(fn) in KEYWORD_FAMILIES
    if table is FUNCTIONS:
        fn = MODULE_FUNCTIONS[name] = with_keywords(fn, name, method=False) if keywords else fn
        package = sys.modules.get("tensorlab")
        if _BUILT and package is not None and name not in vars(package):
            setattr(package, name, fn)  # a late row: tensorlab/__init__ has read the table
        return
    if not name.startswith("__"):
        if name in COUNT_FROM_SELF:
            fn = count_from_self(fn)
        if keywords:
            fn = with_keywords(fn, name, method=True)
    setattr(Tensor, name, fn)


# in-place methods that torch also exposes as functions (``torch.sin_(t)``: the method on t);
# those tensorlab has as methods become functions too (asked of torch 2.13.0: ``dir(torch)``)
INPLACE_FUNCTIONS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ as_strided_ "
    "asin_ asinh_ atan_ atanh_ ceil_ celu_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ "
    "cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ "
    "index_put_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ "
    "rad2deg_ reciprocal_ relu_ resize_as_ round_ rsqrt_ selu_ sigmoid_ sin_ sinc_ sinh_ "
    "sqrt_ square_ tan_ tanh_ threshold_ trunc_ xlogy_ zero_"
).split()


def _inplace_function(name: str, method):
    """``torch.<name>_(input, ...)``: the method, with the function's argument error."""

    @functools.wraps(method)
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    return fn


def build() -> None:
    """Install every row: ``Tensor`` methods and operators, ``tensorlab.<name>`` functions."""
    if _BUILT:
        return
    for name in INPLACE_FUNCTIONS:
        if name in METHODS and name not in FUNCTIONS:
            FUNCTIONS[name] = _inplace_function(name, _resolve(METHODS, name))
    for table in (METHODS, FUNCTIONS):
        for name in table:
            _install(table, name)
    _BUILT.append(True)
