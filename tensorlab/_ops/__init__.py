"""The ops: each module is a family (as ATen's ``native/`` files are); each op is a row of the
table in :mod:`.native_functions` (how to add one is written there). The modules import in any
order: nothing is attached to ``Tensor`` or ``tensorlab`` until :func:`.native_functions.build`
reads the table, once, below."""

from . import (  # noqa: F401
    arithmetic,
    comparison,
    copies,
    creation,
    deprecated,
    distributions,
    from_data,
    indexing,
    linalg,
    reduce,
    scatter_gather,
    shape_ops,
    sorting,
    tensor_new,
    unary,
    view_methods,
    views,
)
from .native_functions import build

build()
