"""Pure arithmetic on tensor layouts: (shape, stride, storage_offset).

Nothing here touches memory or imports another tensorlab module. Every view op in
``tensorlab`` is "compute a new layout with one of these functions, keep the storage".
Strides are counted in elements, as PyTorch counts them.

The rules follow PyTorch 2.13 (``c10/core/Contiguity.h`` and ``aten/src/ATen/TensorUtils.cpp``,
mirrored in ``torch/_prims_common/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Shape = tuple[int, ...]
Stride = tuple[int, ...]


def _fmt(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def numel(shape: Sequence[int]) -> int:
    """Number of elements of a tensor of this shape (1 for a 0-dim tensor)."""
    n = 1
    for s in shape:
        n *= s
    return n


def contiguous_strides(shape: Sequence[int]) -> Stride:
    """Row-major strides PyTorch gives a fresh tensor.

    Size-1 and size-0 dims are treated as size 1 when multiplying, so
    ``contiguous_strides((4, 1, 5)) == (5, 5, 1)`` and ``contiguous_strides((2, 0, 3)) == (3, 3, 1)``.
    """
    strides = [0] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


_CONTIG: dict = {}


def contiguous_info(shape: tuple[int, ...]) -> tuple[Stride, int]:
    """``(contiguous_strides(shape), numel(shape))`` for a tuple ``shape``, memoised (the hot
    paths ask it for the same few shapes again and again)."""
    info = _CONTIG.get(shape)
    if info is None:
        if len(_CONTIG) > 4096:
            _CONTIG.clear()
        info = _CONTIG[shape] = (contiguous_strides(shape), numel(shape))
    return info


def is_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """PyTorch's contiguity: row-major order, ignoring dims of size 1; empty tensors are contiguous."""
    if numel(shape) == 0:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size == 1:
            continue
        if st != expected:
            return False
        expected *= size
    return True


def wrap_dim(dim: int, ndim: int, *, scalar_ok: bool = True) -> int:
    """Turn a possibly negative ``dim`` into an index in ``range(ndim)``.

    A 0-dim tensor accepts dims -1 and 0 (as PyTorch does). Raises ``IndexError`` with PyTorch's text.
    """
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    rank = ndim
    if rank <= 0:
        if not scalar_ok:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        rank = 1
    lo, hi = -rank, rank - 1
    if dim < lo or dim > hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim + rank if dim < 0 else dim


def wrap_dims(dims: Iterable[int], ndim: int) -> tuple[int, ...]:
    """``wrap_dim`` for several dims; a repeated dim raises ``RuntimeError`` like PyTorch."""
    out = []
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def infer_size(shape: Sequence[int], total: int) -> Shape:
    """Resolve a single ``-1`` in ``shape`` so the product equals ``total`` (PyTorch's ``infer_size``)."""
    shape = tuple(int(s) for s in shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_fmt(shape)}")
    shown = "[" + ", ".join(str(s) for s in shape) + "]"
    if infer is None:
        if known != total:
            raise RuntimeError(f"shape '{shown}' is invalid for input of size {total}")
        return shape
    if known == 0 or total % known != 0:
        if known == 0 and total == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {shown} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        raise RuntimeError(f"shape '{shown}' is invalid for input of size {total}")
    out = list(shape)
    out[infer] = total // known
    return tuple(out)


def view_strides(
    old_shape: Sequence[int], old_stride: Sequence[int], new_shape: Sequence[int]
) -> Stride | None:
    """Strides that let ``new_shape`` view memory laid out as (old_shape, old_stride), or ``None``.

    PyTorch's ``computeStride``: walk the old dims from the right in *chunks* of dims that are
    contiguous with each other; each chunk must be covered exactly by a run of new dims.
    """
    old_shape, old_stride, new_shape = tuple(old_shape), tuple(old_stride), tuple(new_shape)
    if len(old_shape) == 0:
        return (1,) * len(new_shape)
    total = numel(old_shape)
    if total == 0 and old_shape == new_shape:
        return old_stride
    new_stride = [0] * len(new_shape)
    if total == 0:
        for d in range(len(new_shape) - 1, -1, -1):
            if d == len(new_shape) - 1:
                new_stride[d] = 1
            else:
                new_stride[d] = max(new_shape[d + 1], 1) * new_stride[d + 1]
        return tuple(new_stride)

    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
        )
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def contiguous_chunks(shape: Sequence[int], stride: Sequence[int]) -> list[list[int]]:
    """Group dims into the runs that ``view_strides`` treats as one block of memory (left to right).

    Size-1 dims join the chunk to their right. Used by ``explain_view`` to say *why* a view fails.
    """
    if not shape:
        return []
    chunks: list[list[int]] = []
    current = [len(shape) - 1]
    tensor_numel = shape[-1]
    base = stride[-1]
    for d in range(len(shape) - 2, -1, -1):
        if shape[d] == 1 or stride[d] == tensor_numel * base:
            current.insert(0, d)
            tensor_numel *= shape[d]
        else:
            chunks.insert(0, current)
            current = [d]
            tensor_numel = shape[d]
            base = stride[d]
    chunks.insert(0, current)
    return chunks


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """Broadcast shapes right-aligned; raises PyTorch's ``RuntimeError`` when two sizes clash.

    As ATen's ``infer_size``, shapes are combined pairwise from the left (the running result is
    "tensor a"), each pair walked from its trailing dim, so the dim named is the last that clashes.
    """
    out: list[int] = []
    for shape in shapes:
        ndim = max(len(out), len(shape))
        a = [1] * (ndim - len(out)) + list(out)
        b = [1] * (ndim - len(shape)) + list(shape)
        for j in range(ndim - 1, -1, -1):
            if a[j] == b[j] or b[j] == 1:
                continue
            if a[j] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a[j]}) must match the size of tensor b ({b[j]}) "
                    f"at non-singleton dimension {j}"
                )
            a[j] = b[j]
        out = a
    return tuple(out)


def expand_layout(
    shape: Sequence[int], stride: Sequence[int], new_shape: Sequence[int]
) -> tuple[Shape, Stride]:
    """Layout of ``expand(new_shape)`` (PyTorch's ``inferExpandGeometry``), right to left.

    A stretched size-1 dim gets stride 0; ``-1`` keeps a size; a new leading dim of size 1 gets the
    stride that would make it contiguous with the dim after it.
    """
    new_shape = tuple(int(s) for s in new_shape)
    nd = len(new_shape)
    out_shape, out_stride = [0] * nd, [0] * nd
    for i in range(nd - 1, -1, -1):
        dim = len(shape) - (nd - i)
        if dim >= 0:
            size, st = shape[dim], stride[dim]
        else:
            size = 1
            st = out_shape[i + 1] * out_stride[i + 1] if i + 1 < nd else 0
        target = new_shape[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {_fmt(new_shape)}.  "
                    f"Tensor sizes: {_fmt(shape)}"
                )
            size, st = target, 0
        if size < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {size}: {_fmt(new_shape)}"
            )
        out_shape[i], out_stride[i] = size, st
    return tuple(out_shape), tuple(out_stride)


def unsqueeze_layout(shape: Sequence[int], stride: Sequence[int], dim: int) -> tuple[Shape, Stride]:
    """Insert a size-1 dim at ``dim`` (already wrapped into ``range(ndim + 1)``)."""
    new_stride = 1 if dim >= len(shape) else shape[dim] * stride[dim]
    return (
        tuple(shape[:dim]) + (1,) + tuple(shape[dim:]),
        tuple(stride[:dim]) + (new_stride,) + tuple(stride[dim:]),
    )


def permute_layout(
    shape: Sequence[int], stride: Sequence[int], order: Sequence[int]
) -> tuple[Shape, Stride]:
    """Reorder dims: new dim ``i`` is old dim ``order[i]``."""
    return tuple(shape[d] for d in order), tuple(stride[d] for d in order)


def slice_layout(size: int, stride: int, start, stop, step) -> tuple[int, int, int]:
    """Basic slice of one dim -> (new size, new stride, offset added). Clamps like Python/PyTorch."""
    if step is None:
        step = 1
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start = 0 if start is None else start
    stop = size if stop is None else stop
    if start < 0:
        start += size
    if stop < 0:
        stop += size
    start = min(max(start, 0), size)
    stop = min(max(stop, start), size)
    length = (stop - start + step - 1) // step
    return length, stride * step, start * stride


def has_internal_overlap(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """True when two elements surely share one memory cell (a stride-0 dim of size > 1).

    This is the case PyTorch refuses for in-place writes ("more than one element of the
    written-to tensor refers to a single memory location").
    """
    if numel(shape) == 0:
        return False
    return any(st == 0 and size > 1 for size, st in zip(shape, stride))


def is_non_overlapping_and_dense(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """Some permutation of the dims is contiguous: no gaps, no element stored twice.

    (PyTorch counts every empty tensor as dense.)"""
    if numel(shape) == 0:
        return True
    if len(shape) == 1:
        return shape[0] < 2 or stride[0] == 1
    # dims of size < 2 sort last; the rest by increasing stride
    perm = sorted(
        range(len(shape)), key=lambda d: (shape[d] < 2, stride[d] if shape[d] >= 2 else 0)
    )
    required = 1
    for d in perm:
        if shape[d] < 2:
            return True
        if stride[d] != required:
            return False
        required *= shape[d]
    return True


def storage_span(shape: Sequence[int], stride: Sequence[int], offset: int) -> tuple[int, int]:
    """(lowest, highest + 1) storage positions the layout touches; (offset, offset) when empty."""
    if numel(shape) == 0:
        return offset, offset
    lo = hi = offset
    for size, st in zip(shape, stride):
        if st >= 0:
            hi += (size - 1) * st
        else:
            lo += (size - 1) * st
    return lo, hi + 1


def element_offsets(shape: Sequence[int], stride: Sequence[int], offset: int) -> list[int]:
    """Storage position of every element, in row-major (logical) order: offset + sum(index * stride)."""
    positions = [offset]
    for size, st in zip(shape, stride):
        positions = [p + i * st for p in positions for i in range(size)]
    return positions if numel(shape) else []


# ----------------------------------------------------------------------------- layout of new results
# PyTorch gives a freshly computed result the *memory order* of its inputs: ``(x.t() + 1)`` is
# not contiguous, it has ``x.t()``'s strides. Two rules do this, written once here.


def _insertion_sort_perm(ndim: int, should_swap) -> list[int]:
    """PyTorch's stable insertion sort of dims, fastest-moving first, starting from (n-1, ..., 0).

    ``should_swap(d0, d1)`` returns 1 if d0 must come after d1, -1 if before, 0 if undecided.
    """
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    return perm


def dense_strides_like(shape: Sequence[int], stride: Sequence[int]) -> Stride:
    """PyTorch's ``infer_dense_strides``: dense strides in the same dim order as ``stride``.

    Used for ``empty_like``/``clone``/``to`` of a tensor that has gaps or repeats (``x[:, ::2]``).
    """
    n = len(shape)
    if n == 0:
        return ()
    if n == 1:
        return (1,)

    def should_swap(d0, d1):
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    out = [0] * n
    acc = 1
    for d in _insertion_sort_perm(n, should_swap):
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)


def preserve_strides(shape: Sequence[int], stride: Sequence[int]) -> Stride:
    """Strides of ``clone()`` / ``to(dtype)`` (memory_format=preserve): the same strides when the
    tensor is dense without overlap (a transpose, a permute), else :func:`dense_strides_like`."""
    if is_non_overlapping_and_dense(shape, stride):
        return tuple(stride)
    return dense_strides_like(shape, stride)


def broadcast_strides(
    shape: Sequence[int], stride: Sequence[int], out_shape: Sequence[int]
) -> Stride:
    """An operand's strides seen in the broadcast ``out_shape`` (0 where it is broadcast)."""
    lead = len(out_shape) - len(shape)
    out = [0] * len(out_shape)
    for i, (size, st) in enumerate(zip(shape, stride)):
        out[lead + i] = 0 if (size == 1 and out_shape[lead + i] != 1) else st
    return tuple(out)


def iterator_strides(
    out_shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> Stride:
    """Strides PyTorch's TensorIterator gives a new output of ``out_shape``.

    ``operands`` are the inputs as (shape, stride), in argument order (a Python scalar is an
    operand of shape ``()``). Fast path: inputs all of ``out_shape`` and all contiguous give a
    contiguous output; all dense with identical strides give those strides. Otherwise dims are
    ordered by the first input whose strides decide (0 strides never decide; equal strides put the
    smaller dim first), and the output is dense in that order (contiguous if that is row-major).
    """
    out_shape = tuple(out_shape)
    n = len(out_shape)
    if operands and all(tuple(sh) == out_shape for sh, _ in operands):
        if all(is_contiguous(sh, st) for sh, st in operands):
            return contiguous_strides(out_shape)
        if all(is_non_overlapping_and_dense(sh, st) for sh, st in operands):
            if len({tuple(st) for _, st in operands}) == 1:
                return tuple(operands[0][1])
    if n <= 1:
        return contiguous_strides(out_shape)
    aligned = [broadcast_strides(sh, st, out_shape) for sh, st in operands]

    def should_swap(d0, d1):
        for st in aligned:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if out_shape[d0] > out_shape[d1]:
                return 1
        return 0

    perm = _insertion_sort_perm(n, should_swap)
    if perm == list(range(n - 1, -1, -1)):
        return contiguous_strides(out_shape)
    out = [0] * n
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= out_shape[d]
    return tuple(out)


# ---------------------------------------------------------------------------- memory formats
# channels_last (4-d, NHWC order in memory) and channels_last_3d (5-d, NDHWC)


def channels_last_strides(shape: Sequence[int]) -> Stride:
    """c10's ``get_channels_last_strides_{2,3}d``: dims laid out as N, spatial..., C (C fastest).

    ``(2, 3, 4, 5)`` -> ``(60, 1, 15, 3)``. Only for 4-d (``channels_last``) and 5-d
    (``channels_last_3d``) shapes.
    """
    nd = len(shape)
    order = (1, *range(nd - 1, 1, -1), 0)  # fastest first: C, W, H, (D), N
    out = [0] * nd
    acc = 1
    for d in order:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def is_channels_last_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """``is_contiguous(memory_format=channels_last[_3d])``: exactly the channels-last strides,
    size-1 dims ignored (c10's ``compute_channels_last_contiguous_{2,3}d``)."""
    nd = len(shape)
    if nd not in (4, 5):
        return False
    expected = 1
    for d in (1, *range(nd - 1, 1, -1), 0):
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_channels_last_strides(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """c10's ``is_channels_last_strides_{2,3}d``: strides *ordered* like channels-last (the test
    ``suggest_memory_format`` uses; a sliced channels-last tensor passes it)."""
    nd = len(shape)
    if nd not in (4, 5) or stride[1] == 0:
        return False
    m = 0
    for d in (1, *range(nd - 1, 1, -1), 0):
        if shape[d] == 0 or stride[d] < m:
            return False
        if d == 0 and m == stride[1]:
            return False
        m = stride[d]
        if shape[d] > 1:
            m *= shape[d]
    return True


def suggest_memory_format(shape: Sequence[int], stride: Sequence[int]) -> str:
    """``Tensor.suggest_memory_format()``: ``'channels_last'`` / ``'channels_last_3d'`` when the
    strides are ordered that way (and not plainly contiguous), else ``'contiguous_format'``."""
    if is_channels_last_strides(shape, stride):
        return "channels_last" if len(shape) == 4 else "channels_last_3d"
    return "contiguous_format"
