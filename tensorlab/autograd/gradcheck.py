"""``gradcheck`` and ``gradgradcheck`` (``torch/autograd/gradcheck.py``): compare the gradients
autograd computes (analytical, one backward per output element; or, in ``fast_mode``, one
vector-Jacobian-vector product) with central finite differences (numerical), with torch's
defaults (``eps=1e-6, atol=1e-5, rtol=1e-3``), its checks (reentrant backward, gradients
multiplied by ``grad_output``, zero gradients for zero/undefined output gradients) and its error
messages; ``raise_exception=False`` returns ``False`` instead of raising ``GradcheckError``.

What tensorlab has not: forward-mode AD (``check_forward_ad``, ``check_fwd_over_rev``), sparse
and MKLDNN inputs, complex dtypes (tensorlab has none); ``check_batched_grad`` computes the batch one vector after
another (there is no ``vmap``) and draws the same random vectors as torch.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable
from itertools import product

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` and ``gradgradcheck`` when a check fails."""


def _tl():
    import tensorlab

    return tensorlab


def _is_tensor(x) -> bool:
    return isinstance(x, _tl().Tensor)


def _is_float_or_complex_tensor(obj) -> bool:
    return _is_tensor(obj) and (obj.is_floating_point() or _is_complex(obj))


def _is_complex(t) -> bool:
    return bool(getattr(t.dtype, "is_complex", False))


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _iter_tensors(x, only_requiring_grad: bool = False) -> Iterable:
    if _is_tensor(x):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _no_forward_ad(what: str):
    return NotImplementedError(
        f"tensorlab has no forward-mode AD: {what}=True is not supported (torch checks the "
        "Jacobian computed with forward mode as well)"
    )


# ----------------------------------------------------------------------------- numerical side
def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(
            "Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{on_index}by {eps}, but got: shapes {output1.shape} and {output2.shape}."
        )
    if output1.dtype != output2.dtype:
        raise AssertionError(
            "Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{on_index}by {eps}, but got: dtypes {output1.dtype} and {output2.dtype}."
        )


def _compute_numerical_gradient(fn, entry, v, norm_v, nbhd_checks_fn) -> tuple:
    """Central difference: ``(f(x + v) - f(x - v)) / (2 |v|)``, moving ``entry`` in place."""
    orig = entry.clone()
    entry.copy_(orig - v)
    outa = fn()
    entry.copy_(orig + v)
    outb = fn()
    entry.copy_(orig)

    def compute(a, b):
        nbhd_checks_fn(a, b)
        return ((b - a) / (2 * norm_v)).detach().reshape(-1)

    return tuple(compute(a, b) for a, b in zip(outa, outb))


def _with_prepare_inputs(fn, inputs):
    def wrapped_fn():
        return tuple(a.clone() for a in _as_tuple(fn(*_as_tuple(inputs))))

    return wrapped_fn


def _jvps(ds_dx_tup) -> list:
    jvps = []
    for ds_dx in ds_dx_tup:
        if _is_complex(ds_dx):
            raise AssertionError("Expected ds_dx to be real-valued, not complex.")
        jvps.append(ds_dx)
    return jvps


def _get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs, eps, input=None):
    tl = _tl()
    columns: dict[int, list] = {}
    input = inputs[input_idx] if input is None else input
    if not input.requires_grad:
        raise AssertionError("Expected input to have requires_grad=True")
    x = input.data
    wrapped_fn = _with_prepare_inputs(fn, inputs)
    for d_idx, idx in enumerate(product(*[range(m) for m in x.size()])):
        nbhd = functools.partial(_check_outputs_same_dtype_and_shape, idx=idx, eps=eps)
        columns[d_idx] = _jvps(_compute_numerical_gradient(wrapped_fn, x[idx], eps, eps, nbhd))
    jacobians = tuple(
        o.new_zeros((input.numel(), o.numel()), layout=tl.strided)
        for o in outputs
        if _is_float_or_complex_tensor(o)
    )
    for i, jacobian in enumerate(jacobians):
        for k, v in columns.items():
            jacobian[k] = v[i]
    return jacobians


def _get_numerical_jacobian(fn, inputs, outputs=None, target=None, eps=1e-3) -> list:
    jacobians = []
    if outputs is None:
        outputs = _as_tuple(fn(*_as_tuple(inputs)))
    if any(_is_complex(o) for o in outputs):
        raise ValueError(
            "Expected output to be non-complex. get_numerical_jacobian no longer supports "
            "functions that return complex outputs."
        )
    if target is None:
        target = inputs
    inp_indices = [i for i, a in enumerate(target) if _is_tensor(a) and a.requires_grad]
    for inp, inp_idx in zip(_iter_tensors(target, True), inp_indices):
        jacobians += [
            _get_numerical_jacobian_wrt_specific_input(fn, inp_idx, inputs, outputs, eps, inp)
        ]
    return jacobians


# ---------------------------------------------------------------------------- analytical side
FAILED_NONDET_MSG = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _stack_and_check_tensors(list_of_list_of_tensors, inputs, numel_outputs):
    tl = _tl()
    out_jacobians = tuple(
        t.new_zeros((t.numel(), numel_outputs), layout=tl.strided)
        for t in inputs
        if _is_float_or_complex_tensor(t) and t.requires_grad
    )
    diff_input_list = list(_iter_tensors(inputs, True))
    correct_grad_sizes = True
    correct_grad_types = True
    for i, tensor_list in enumerate(list_of_list_of_tensors):
        inp = diff_input_list[i]
        out_jacobian = out_jacobians[i]
        for j, tensor in enumerate(tensor_list):
            if tensor is not None and tensor.size() != inp.size():
                correct_grad_sizes = False
            elif tensor is not None and tensor.dtype != inp.dtype:
                correct_grad_types = False
            if tensor is None:
                out_jacobian[:, j].zero_()
            else:
                if out_jacobian[:, j].numel() != tensor.numel():
                    raise AssertionError(
                        f"Expected out_jacobian column to have {tensor.numel()} elements, but "
                        f"got {out_jacobian[:, j].numel()}"
                    )
                out_jacobian[:, j] = tensor.reshape(-1)
    return out_jacobians, correct_grad_sizes, correct_grad_types


def _check_jacobians_equal(j1, j2, atol) -> bool:
    for j1_x, j2_x in zip(j1, j2):
        if j1_x.numel() != 0 and (j1_x - j2_x).abs().max() > atol:
            return False
    return True


def _compute_analytical_jacobian_rows(vjp_fn, sample_output) -> list:
    tl = _tl()
    grad_out_base = tl.zeros_like(sample_output, memory_format=tl.contiguous_format)
    flat_grad_out = grad_out_base.view(-1)
    rows: list = []
    for j in range(flat_grad_out.numel()):
        flat_grad_out.zero_()
        flat_grad_out[j] = 1.0
        grad_inputs = vjp_fn(grad_out_base)
        for i, d_x in enumerate(grad_inputs):
            if j == 0:
                rows.append([])
            rows[i] += [d_x.clone() if _is_tensor(d_x) else None]
    return rows


def _check_analytical_jacobian_attributes(
    inputs, output, nondet_tol, check_grad_dtypes, fast_mode=False, v=None
) -> tuple:
    tl = _tl()
    diff_input_list = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return tl.autograd.grad(
            output, diff_input_list, grad_output, retain_graph=True, allow_unused=True
        )

    if fast_mode:
        vjps1 = _get_analytical_vjps_wrt_specific_output(vjp_fn, output.clone(), v)
        vjps2 = _get_analytical_vjps_wrt_specific_output(vjp_fn, output.clone(), v)
    else:
        vjps1 = _compute_analytical_jacobian_rows(vjp_fn, output.clone())
        vjps2 = _compute_analytical_jacobian_rows(vjp_fn, output.clone())
    output_numel = output.numel() if not fast_mode else 1
    jacobians1, types_ok, sizes_ok = _stack_and_check_tensors(vjps1, inputs, output_numel)
    jacobians2, _, _ = _stack_and_check_tensors(vjps2, inputs, output_numel)
    reentrant = _check_jacobians_equal(jacobians1, jacobians2, nondet_tol)
    # torch's names are swapped here (types_ok holds the size check): kept for the same results
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + FAILED_NONDET_MSG
        )
    return jacobians1


def _get_analytical_vjps_wrt_specific_output(vjp_fn, sample_output, v) -> list:
    grad_inputs = vjp_fn(v.reshape(sample_output.shape))
    return [[vjp.clone() if _is_tensor(vjp) else None] for vjp in grad_inputs]


def _get_analytical_jacobian(inputs, outputs, input_idx, output_idx):
    jacobians = _check_analytical_jacobian_attributes(
        inputs, outputs[output_idx], nondet_tol=float("inf"), check_grad_dtypes=False
    )
    return jacobians[input_idx]


# -------------------------------------------------------------------------------- the checks
def _check_inputs(tupled_inputs) -> bool:
    tl = _tl()
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if _is_tensor(inp) and inp.requires_grad:
            if inp.dtype != tl.float64:  # (tensorlab has no complex128)
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point "
                    "or complex. This check will likely fail if all the inputs are not of double "
                    "precision floating point or complex. ",
                    stacklevel=2,
                )
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck."
                )
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    return True


def _check_no_differentiable_outputs(func, inputs, func_out, eps) -> bool:
    tl = _tl()
    for jacobians in _get_numerical_jacobian(func, inputs, func_out, eps=eps):
        for jacobian in jacobians:
            if tl.ne(jacobian, 0).sum() > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _check_no_differentiable_outputs_fast(func, func_out, all_inputs, indices, all_u, eps, tol):
    tl = _tl()
    for inp_idx, u in zip(indices, all_u):
        for jvp in _get_numerical_jvp_wrt_specific_input(func, inp_idx, all_inputs, u, eps):
            if jvp.numel() == 0:
                continue
            if (jvp - tl.zeros_like(jvp)).abs().max() > tol:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _get_notallclose_msg(analytical, numerical, output_idx, input_idx) -> str:
    return (
        f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
        f"numerical:{numerical}\nanalytical:{analytical}\n"
    )


def _allclose_with_type_promotion(a, b, rtol, atol) -> bool:
    tl = _tl()
    promoted_type = tl.promote_types(a.dtype, b.dtype)
    return tl.allclose(a.to(dtype=promoted_type), b.to(dtype=promoted_type), rtol, atol)


def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_dtypes, tol):
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, tupled_inputs, func_out, eps=eps)
    numerical = list(zip(*_get_numerical_jacobian(func, tupled_inputs, func_out, eps=eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _check_analytical_jacobian_attributes(tupled_inputs, o, tol, check_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose_with_type_promotion(a, n.to(a.device), rtol, atol):
                raise GradcheckError(_get_notallclose_msg(a, n, i, j))
    return True


# ---------------------------------------------------------------------------------- fast mode
FAST_FAIL_SLOW_OK_MSG = """Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`"""  # noqa: E501


def _vec_from_tensor(x, generator, downcast_complex=False):
    tl = _tl()
    vec = tl.rand(x.numel(), generator=generator).to(dtype=x.dtype, device=x.device)
    vec /= vec.norm()
    return vec


def _make_vectors(inp_tensors, outputs):
    g_cpu = _tl().Generator()
    all_u = [_vec_from_tensor(inp, g_cpu, True) for inp in inp_tensors]
    all_v = [_vec_from_tensor(out, g_cpu) for out in outputs]
    return all_v, all_u


def _get_numerical_jvp_wrt_specific_input(fn, input_idx, inputs, u, eps) -> list:
    input_to_perturb = inputs[input_idx].data
    wrapped_fn = _with_prepare_inputs(fn, inputs)
    nbhd = functools.partial(_check_outputs_same_dtype_and_shape, eps=eps)
    u = u.reshape(input_to_perturb.shape) * eps
    return _jvps(_compute_numerical_gradient(wrapped_fn, input_to_perturb, u, eps, nbhd))


def _get_numerical_vJu(fn, inputs, inp_indices, func_out, all_u, all_v, eps) -> list:
    reduced = []
    func_out = _as_tuple(func_out)
    for inp_idx, u in zip(inp_indices, all_u):
        all_Ju = _get_numerical_jvp_wrt_specific_input(fn, inp_idx, inputs, u, eps)
        if len(all_Ju) != len(func_out):
            raise AssertionError(
                "Expected all_Ju and func_out to have the same length, but got "
                f"{len(all_Ju)} and {len(func_out)}"
            )
        filtered = [Ju for Ju, out in zip(all_Ju, func_out) if _is_float_or_complex_tensor(out)]
        reduced.append([(v * Ju).sum() for v, Ju in zip(all_v, filtered)])
    return reduced


def _get_analytical_vJu_backward_mode(inputs, outputs, nondet_tol, check_dtypes, all_v, all_u):
    reduced = []
    for output, v in zip(outputs, all_v):
        all_vJ = _check_analytical_jacobian_attributes(
            inputs, output, nondet_tol, check_dtypes, fast_mode=True, v=v
        )
        reduced.append([vJ.T.squeeze(0).dot(u) for vJ, u in zip(all_vJ, all_u)])
    return reduced


def _run_slow_mode_and_get_error(
    func, tupled_inputs, outputs, input_idx, output_idx, rtol, atol, eps
):
    tl = _tl()
    slow_numerical = _get_numerical_jacobian(func, tupled_inputs, outputs, eps=eps)[input_idx][
        output_idx
    ]
    slow_analytical = _get_analytical_jacobian(tupled_inputs, outputs, input_idx, output_idx)
    slow_max_diff = (slow_numerical - slow_analytical).abs().max()
    slow_allclose = tl.allclose(slow_analytical, slow_numerical, rtol, atol)
    msg = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
        "background \nabout fast mode. Below, we recompute numerical and analytical jacobians "
        f"in slow mode:\n\nNumerical:\n {slow_numerical}\nAnalytical:\n{slow_analytical}\n\n"
        f"The max per-element difference (slow mode) is: {slow_max_diff}.\n"
    )
    if slow_allclose:
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


def _fast_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_dtypes, nondet_tol):
    inp_tensors_idx = [i for i, t in enumerate(inputs) if _is_tensor(t) and t.requires_grad]
    inp_tensors = [inputs[i] for i in inp_tensors_idx]
    all_v, all_u = _make_vectors(inp_tensors, outputs)
    numerical_vJu = _get_numerical_vJu(func, inputs, inp_tensors_idx, func_out, all_u, all_v, eps)
    if not outputs:
        _check_no_differentiable_outputs_fast(
            func, func_out, inputs, inp_tensors_idx, all_u, eps, nondet_tol
        )
    analytical_vJu = _get_analytical_vJu_backward_mode(
        inputs, outputs, nondet_tol, check_dtypes, all_v, all_u
    )
    for i, all_numerical_for_input_i in enumerate(numerical_vJu):
        for j, n in enumerate(all_numerical_for_input_i):
            a = analytical_vJu[j][i]
            updated_atol = atol * float(all_u[i].sum()) * float(all_v[j].sum())
            if not _allclose_with_type_promotion(a, n.to(a.device), rtol, updated_atol):
                jacobians_str = _run_slow_mode_and_get_error(
                    func, inputs, outputs, i, j, rtol, atol, eps
                )
                raise GradcheckError(_get_notallclose_msg(a, n, j, i) + jacobians_str)
    return True


# ------------------------------------------------------------------- the checks after the Jacobians
FAILED_BATCHED_GRAD_MSG = """gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this."""  # noqa: E501


def _test_batched_grad(input, output, output_idx) -> bool:
    """torch vmaps the backward over two random ``grad_output``s; tensorlab (no vmap) runs them
    one after the other, drawing the same two ``randn_like`` from the global generator."""
    tl = _tl()
    diff_input_list = list(_iter_tensors(input, True))

    def vjp(v):
        results = tl.autograd.grad(output, diff_input_list, v, retain_graph=True, allow_unused=True)
        return tuple(
            g if g is not None else tl.zeros([], dtype=inp.dtype).expand(inp.shape)
            for g, inp in zip(results, diff_input_list)
        )

    grad_outputs = [tl.randn_like(output) for _ in range(2)]
    expected = [tl.stack(shards) for shards in zip(*[vjp(gO) for gO in grad_outputs])]
    try:
        result = [tl.stack(shards) for shards in zip(*[vjp(gO) for gO in grad_outputs])]
    except RuntimeError as ex:
        raise GradcheckError(
            f"While computing batched gradients, got: {ex}\n\n{FAILED_BATCHED_GRAD_MSG}"
        ) from ex
    for input_idx, (res, exp) in enumerate(zip(result, expected)):
        if not tl.allclose(res, exp):
            raise GradcheckError(
                f"For output {output_idx} and input {input_idx}:\n\n{FAILED_BATCHED_GRAD_MSG}"
                f"\n\nGot:\n{res}\n\nExpected:\n{exp}"
            )
    return True


def _test_backward_mul_by_grad_output(outputs, inputs, masked) -> bool:
    tl = _tl()
    diff_input_list = list(_iter_tensors(inputs, True))
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = tl.autograd.grad(
        outputs,
        diff_input_list,
        [tl.zeros_like(o, memory_format=tl.contiguous_format) for o in outputs],
        allow_unused=True,
    )
    for gi, di in zip(grads_input, diff_input_list):
        if gi is None:
            continue
        if masked:
            if not tl.allclose(gi, tl.zeros_like(gi)):
                raise GradcheckError("backward not multiplied by grad_output")
        elif not gi.eq(0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")
    return True


def _test_undefined_backward_mode(func, outputs, inputs) -> bool:
    """torch passes undefined output gradients (which backward formulas and custom Functions,
    materializing them, see as zeros); tensorlab passes zeros, calling ``func`` as often."""
    tl = _tl()
    diff_input_list = list(_iter_tensors(inputs, True))
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking feature is "
            "enabled by default, but it may break existing callers of this function. If this is "
            'true for you, you can call this function with "check_undefined_grad=False" to '
            "disable the feature",
            stacklevel=2,
        )

    def check_undefined_grad_support(output_to_check):
        grads_output = [
            tl.zeros_like(o, memory_format=tl.contiguous_format) for o in output_to_check
        ]
        try:
            grads_input = tl.autograd.grad(
                output_to_check, diff_input_list, grads_output, allow_unused=True
            )
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        for gi in grads_input:
            if gi is not None and not gi.eq(0).all():
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are "
                    'undefined or zero. Please look at "Notes about undefined output gradients" '
                    'in "tools/autograd/derivatives.yaml"'
                )
        return True

    outputs_to_check = [[o for o in _differentiable_outputs(func(*inputs)) if _is_tensor(o)]]
    if len(outputs_to_check[0]) > 1:
        for _ in range(len(outputs)):
            outputs_to_check.append(list(_differentiable_outputs(func(*inputs))))
    return all(check_undefined_grad_support(output) for output in outputs_to_check)


# ------------------------------------------------------------------------------ the public API
def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` (double precision tensors with
    ``requires_grad=True``) against central finite differences; ``True`` when they agree
    (``|analytical - numerical| <= atol + rtol * |numerical|`` everywhere), else a
    ``GradcheckError`` (or ``False`` with ``raise_exception=False``)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    if check_forward_ad:
        raise _no_forward_ad("check_forward_ad")
    args = dict(
        func=func,
        inputs=inputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        masked=masked,
    )
    if not raise_exception:
        try:
            return _gradcheck_helper(**args)
        except GradcheckError:
            return False
    return _gradcheck_helper(**args)


def _gradcheck_helper(
    func,
    inputs,
    eps,
    atol,
    rtol,
    nondet_tol,
    check_undefined_grad,
    check_grad_dtypes,
    check_batched_grad,
    fast_mode,
    masked,
):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    gradcheck_fn = _fast_gradcheck if fast_mode else _slow_gradcheck
    gradcheck_fn(
        func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol
    )
    for i, o in enumerate(outputs):
        if check_batched_grad:
            _test_batched_grad(tupled_inputs, o, i)
    _test_backward_mul_by_grad_output(outputs, tupled_inputs, masked)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """``gradcheck`` of the gradient of ``func``: the second derivatives, through
    ``autograd.grad(..., create_graph=True)``. Without ``grad_outputs``, random ones in
    ``[-1, 1)`` are drawn from the global generator (``torch.testing.make_tensor``)."""
    tl = _tl()
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    if check_fwd_over_rev:
        raise _no_forward_ad("check_fwd_over_rev")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            _make_grad_output(tl, x, gen_non_contig_grad_outputs) for x in outputs
        )
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = {
        i for i, x in enumerate(tupled_inputs) if _is_tensor(x) and x.requires_grad
    }
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(
            x.requires_grad_() if i in diff_input_args_indices else x
            for i, x in enumerate(args[:-num_outputs])
        )
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(
            x.requires_grad_() if i in diff_grad_output_indices else x
            for i, x in enumerate(args[-num_outputs:])
        )
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_args_indices)
        grad_inputs = tl.autograd.grad(
            outputs, diff_input_args, grad_outputs, create_graph=True, allow_unused=True
        )
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(
        new_func,
        tupled_inputs + tupled_grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        masked=masked,
    )


def _make_grad_output(tl, x, noncontiguous: bool):
    """``torch.testing.make_tensor(x.shape, low=-1, high=1, requires_grad=True)``: uniform in
    ``[-1, 1)`` from the global generator (twice as wide, every other column, if
    ``noncontiguous``)."""
    dtype = x.dtype if (x.is_floating_point() or _is_complex(x)) else tl.double
    shape = tuple(x.shape)
    noncontiguous = noncontiguous and x.numel() > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    result = tl.empty(shape, dtype=dtype).uniform_(-1, 1)
    if noncontiguous:
        result = result[..., 1::2]
    result.requires_grad = True
    return result
