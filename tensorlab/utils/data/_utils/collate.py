"""``default_collate``: a list of samples -> one batch, as ``torch.utils.data`` builds it.

Tensors are stacked along a new first dim; Python floats become a float64 tensor, ints an int64
tensor (bools a bool tensor); numpy arrays and scalars become tensors; strings stay a list;
dicts, namedtuples, tuples and lists are collated field by field (a tuple comes back as a list).
"""

from __future__ import annotations

import collections.abc
import re

import numpy as np

_STR_OBJ = re.compile(r"[SaUO]")
ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(data):
    """Without batching (``batch_size=None``): numpy arrays and scalars become tensors."""
    from ...._ops.creation import as_tensor
    from ...._tensor import Tensor

    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and _STR_OBJ.search(data.dtype.str) is None:
        return as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    from ...._ops.copies import stack
    from ...._ops.creation import as_tensor, tensor
    from ...._tensor import Tensor

    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, (np.ndarray, np.generic)) and not isinstance(elem, (np.str_, np.bytes_)):
        if isinstance(elem, np.ndarray):
            if _STR_OBJ.search(elem.dtype.str) is not None:
                raise TypeError(ERR.format(elem.dtype))
            return default_collate([as_tensor(b) for b in batch])
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return elem_type([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(ERR.format(elem_type))
