"""Notebook 06: after lessons 12 and 13 - repeat versus repeat_interleave, writes to a leaf that
requires grad, a finite-difference gradient check, a no_grad update, and a missing zero_grad."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._refs import correlate_valid, draw_ints, int_tuples, small_ints
from ._rules import NO_AUTOGRAD

NB = "06_autograd"


# ---------------------------------------------------------------------------- lesson 12: repeat
def _repeat_sources(n, r, interleave):
    if interleave:
        return tuple(i for i in range(n) for _ in range(r))
    return tuple(i for _ in range(r) for i in range(n))


def _repeat_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(3, 2, False), (3, 2, True)]
    for n, r, flag in draw_ints(rng, [(1, 6), (1, 4), (0, 1)], 10):
        cases.append((n, r, bool(flag)))
    return cases


def _repeat_strategy():
    from hypothesis import strategies as st

    return st.tuples(st.integers(1, 4), st.integers(1, 3), st.booleans())


REPEAT_SOURCES = Question(
    id="autograd.repeat_sources",
    notebook=NB,
    name="repeat_sources",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    prompt=(
        "Write repeat_sources(n, r, interleave): for a 1-D tensor x of length n, the indices of "
        "x that x.repeat_interleave(r) (interleave=True) or x.repeat(r) (interleave=False) "
        "reads, in order, as a tuple of ints. E.g. the result y of x.repeat(2) for n = 2 is "
        "x[0], x[1], x[0], x[1]."
    ),
    todo="Write repeat_sources: which element of x does each element of the result copy?",
    reference=_repeat_sources,
    cases=_repeat_cases,
    strategy=_repeat_strategy,
    misconceptions=(
        Misconception(
            "swapped",
            "repeat tiles the WHOLE tensor (like np.tile): 0, 1, 2, 0, 1, 2. repeat_interleave "
            "repeats each element in place (like np.repeat): 0, 0, 1, 1, 2, 2.",
            lambda n, r, inter: _repeat_sources(n, r, not inter),
        ),
        Misconception(
            "always_tiled",
            "repeat_interleave does not tile: it keeps each element's copies next to each other.",
            lambda n, r, inter: _repeat_sources(n, r, False),
        ),
        Misconception(
            "always_interleaved",
            "repeat does not interleave: it copies the whole tensor r times, one copy after "
            "another (torch's repeat is numpy's tile, not numpy's repeat).",
            lambda n, r, inter: _repeat_sources(n, r, True),
        ),
    ),
    hints=(
        "Run tensorlab.arange(3).repeat(2) and tensorlab.arange(3).repeat_interleave(2): the "
        "values are the indices.",
        "One of them is np.tile, the other np.repeat.",
    ),
)


LEAF_STATEMENTS = (
    "w[0] = 5.0",
    "w.view(3)[0] = 5.0",
    "with tensorlab.no_grad(): w[0] = 5.0",
    "w.data[0] = 5.0",
    "w.detach()[0] = 5.0",
    "w.clone()[0] = 5.0",
)

LEAF_WRITES = Question(
    id="autograd.leaf_writes",
    notebook=NB,
    name="leaf_writes",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "Each statement runs on a fresh w = tensorlab.ones(3, requires_grad=True): "
        f"{'; '.join(LEAF_STATEMENTS)}. Which run (True) and which raise RuntimeError (False)? "
        "Predict first, then check your reasons."
    ),
    todo="Set leaf_writes to a tuple of 6 bools, one per statement, in order.",
    reference=lambda: (False, False, True, True, True, True),
    misconceptions=(
        Misconception(
            "views_escape",
            "a view of a leaf that requires grad is guarded like the leaf itself: writing "
            "through w.view(3) is an in-place write to w's memory, and autograd refuses it.",
            (False, True, True, True, True, True),
        ),
        Misconception(
            "no_grad_no_help",
            "inside no_grad nothing is recorded, so an in-place write to a leaf is allowed: "
            "that is how optimisers update weights.",
            (False, False, False, True, True, True),
        ),
        Misconception(
            "detached_guarded",
            "w.data and w.detach() share w's memory but do not require grad: autograd does not "
            "guard them (which is exactly why lessons 11-12 warn against writing through them).",
            (False, False, True, False, False, True),
        ),
        Misconception(
            "clone_guarded",
            "w.clone() is a new tensor that is not a leaf (it has a grad_fn): in-place writes "
            "to a non-leaf are recorded, not refused.",
            (False, False, True, True, True, False),
        ),
    ),
    hints=(
        "The rule is about a LEAF that requires grad, and about tensors sharing its memory "
        "while still tracked by autograd.",
        "Which of these results have requires_grad=True and share w's memory? Check "
        "t.requires_grad, t.is_leaf and t.untyped_storage().data_ptr().",
    ),
)


# ---------------------------------------------------------------------------- lesson 13: gradients
POWER = 4  # the loss is (conv2d(x, w) ** 4).sum(): not quadratic, so eps matters


def _loss(x, w, power=POWER):
    return float(np.sum(correlate_valid(x, w) ** power))


def _exact_grad(x, w, eps=None):
    """d/dw of sum(correlate_valid(x, w) ** 4), by the chain rule (loops, float64): what
    backward() gives, which the central difference only approaches as eps -> 0."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    out = correlate_valid(x, w)
    M, N = w.shape
    grad = np.zeros_like(w)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            grad += POWER * out[i, j] ** (POWER - 1) * x[i : i + M, j : j + N]
    return grad


def _fd(x, w, eps, *, forward=False, half=True, power=POWER):
    """The central (or forward) difference of the loss, one entry of w at a time."""
    w = np.asarray(w, np.float64)
    g = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        up, down = w.copy(), w.copy()
        up[idx] += eps
        down[idx] -= eps
        if forward:
            g[idx] = (_loss(x, up, power) - _loss(x, w, power)) / eps
        else:
            g[idx] = (_loss(x, up, power) - _loss(x, down, power)) / (2 * eps if half else eps)
    return g


def _fd_all_at_once(x, w, eps):
    w = np.asarray(w, np.float64)
    value = (_loss(x, w + eps) - _loss(x, w - eps)) / (2 * eps)
    return np.full_like(w, value)


def _autograd_grad(x, w, eps):
    """The gradient from backward(): exact, so it skips what the exercise is about."""
    import tensorlab
    import tensorlab.nn.functional as F

    wt = tensorlab.tensor(np.asarray(w, np.float64), requires_grad=True)
    xt = tensorlab.tensor(np.asarray(x, np.float64))
    (F.conv2d(xt[None, None], wt[None, None]) ** POWER).sum().backward()
    return wt.grad.numpy()


def _grad_cases(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for eps in (0.5, 0.25, 0.1, 0.5, 0.125, 0.5):
        H, W = (int(v) for v in rng.integers(3, 7, size=2))
        M, N = int(rng.integers(2, min(H, 3) + 1)), int(rng.integers(2, min(W, 3) + 1))
        cases.append((small_ints(rng, (H, W), -2, 3), small_ints(rng, (M, N), -2, 3), eps))
    return cases


def _grad_strategy():
    from ._refs import image_and_kernel_strategy

    return image_and_kernel_strategy(4).map(lambda p: (p[0], p[1], 0.5))


NUMERICAL_GRAD = Question(
    id="autograd.numerical_grad",
    notebook=NB,
    name="numerical_grad",
    kind="function",
    assessment="implement",
    allowed=NO_AUTOGRAD,
    prompt=(
        "Write numerical_grad(x, w, eps): the central-difference estimate of the gradient of "
        "loss(w) = (conv2d(x, w) ** 4).sum() (single channel, no padding, x and w 2-D float64 "
        "arrays) with respect to every entry of w, nudging one entry at a time by +eps and "
        "-eps. Return a float64 array of w's shape. It is the check lesson 13 runs on "
        "backward(), so it must not use autograd (no backward(), no torch.autograd)."
    ),
    todo=(
        "Write numerical_grad without autograd: for each entry of w, the loss with that entry "
        "nudged up and down by eps, divided by the distance between the nudges."
    ),
    reference=lambda x, w, eps: _fd(x, w, eps),
    cases=_grad_cases,
    strategy=_grad_strategy,
    expect=Expect(rtol=1e-6, atol=1e-6),
    misconceptions=(
        Misconception(
            "forbidden",
            "that is the exact gradient, what backward() computes. A finite difference is "
            "the independent check of backward(), so it must not use autograd; and for this "
            "non-quadratic loss the central difference differs from the exact gradient by a "
            "term of order eps ** 2, which is what the grader's eps = 0.5 shows.",
            _autograd_grad,
            variants=(_exact_grad,),
        ),
        Misconception(
            "forward_difference",
            "that is the one-sided difference (loss(w + eps) - loss(w)) / eps: its error grows "
            "with eps. Nudge both ways and divide by 2 * eps.",
            lambda x, w, eps: _fd(x, w, eps, forward=True),
        ),
        Misconception(
            "no_half",
            "the two nudges are 2 * eps apart: divide the difference by 2 * eps, not eps.",
            lambda x, w, eps: _fd(x, w, eps, half=False),
        ),
        Misconception(
            "all_at_once",
            "nudge ONE entry at a time: moving every entry together measures the slope along "
            "one direction, not each partial derivative.",
            _fd_all_at_once,
        ),
        Misconception(
            "wrong_power",
            "the loss is the FOURTH power of the output, summed: (conv2d(x, w) ** 4).sum().",
            lambda x, w, eps: _fd(x, w, eps, power=2),
            variants=(lambda x, w, eps: _fd(x, w, eps, power=1),),
        ),
    ),
    hints=(
        "A partial derivative is the slope when only one entry moves: copy w, change one entry.",
        "(loss(w + eps * e_k) - loss(w - eps * e_k)) / (2 * eps), where e_k is 1 at entry k "
        "and 0 elsewhere. With eps = 0.5 it is NOT w.grad: the two agree only as eps shrinks "
        "(lesson 13 plots the error against eps).",
    ),
)


def _mse_grad(x, y, w):
    out = correlate_valid(x, w)
    M, N = w.shape
    g = np.zeros_like(w)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            g += 2 * (out[i, j] - y[i, j]) * x[i : i + M, j : j + N]
    return g / out.size


def _sgd(x, y, w0, lr, steps, *, accumulate=False, sign=1.0, sum_loss=False):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    w = np.array(w0, dtype=np.float64)
    acc = np.zeros_like(w)
    for _ in range(steps):
        g = _mse_grad(x, y, w) * (y.size if sum_loss else 1)
        acc = acc + g if accumulate else g
        w = w - sign * lr * acc
    return w


def _sgd_cases(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for steps in (3, 1, 2, 4, 5, 3):
        H, W = (int(v) for v in rng.integers(4, 7, size=2))
        x = small_ints(rng, (H, W), -2, 3)
        true_w = small_ints(rng, (3, 3), -1, 2)
        y = correlate_valid(x, true_w)
        cases.append((x, y, small_ints(rng, (3, 3), -1, 2), 0.01, steps))
    return cases


def _sgd_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        H, W = draw(st.integers(2, 4)), draw(st.integers(2, 4))
        n = H * W
        x = np.array(draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)), float)
        x = x.reshape(H, W)
        w0 = np.array(draw(st.lists(st.integers(-1, 1), min_size=4, max_size=4)), float)
        y = correlate_valid(x, np.ones((2, 2)))
        return (x, y, w0.reshape(2, 2), 0.01, draw(st.integers(1, 3)))

    return args()


SGD_STEPS = Question(
    id="autograd.sgd_steps",
    notebook=NB,
    name="sgd_steps",
    kind="function",
    assessment="free",
    prompt=(
        "Write sgd_steps(x, y, w0, lr, steps) with tensorlab's autograd: start from the kernel "
        "w0 (a float64 array), and `steps` times compute loss = ((conv2d(x, w) - y) ** 2).mean() "
        "(single channel, no padding, x and y 2-D float64 arrays), call backward(), update w by "
        "w - lr * w.grad without autograd recording the update, and reset the gradient. Return "
        "the final kernel (float64 array or tensor of w0's shape)."
    ),
    todo=(
        "Write sgd_steps: the training loop of lesson 13 - forward, backward, an update that "
        "autograd must not record, and a fresh gradient for the next step."
    ),
    reference=lambda x, y, w0, lr, steps: _sgd(x, y, w0, lr, steps),
    cases=_sgd_cases,
    strategy=_sgd_strategy,
    expect=Expect(rtol=1e-6, atol=1e-9),
    misconceptions=(
        Misconception(
            "missing_zero_grad",
            "backward() ADDS to w.grad: without w.grad.zero_() (or optimizer.zero_grad()) each "
            "step uses the sum of all gradients so far.",
            lambda x, y, w0, lr, steps: _sgd(x, y, w0, lr, steps, accumulate=True),
        ),
        Misconception(
            "ascent",
            "gradient DESCENT moves against the gradient: w - lr * w.grad, not w + lr * w.grad.",
            lambda x, y, w0, lr, steps: _sgd(x, y, w0, lr, steps, sign=-1.0),
        ),
        Misconception(
            "sum_loss",
            "the loss is the MEAN of the squared errors: .sum() makes every gradient "
            "H_out * W_out times larger.",
            lambda x, y, w0, lr, steps: _sgd(x, y, w0, lr, steps, sum_loss=True),
        ),
        Misconception(
            "one_step",
            "take `steps` steps, recomputing the loss and its gradient at the new w each time.",
            lambda x, y, w0, lr, steps: _sgd(x, y, w0, lr, 1),
        ),
    ),
    hints=(
        "w = tensorlab.tensor(w0, requires_grad=True); conv2d wants (1, 1, H, W) shapes: "
        "x[None, None] and w[None, None] (indexing a tensor that requires grad is recorded, "
        "which is what you want).",
        "`w -= lr * w.grad` on a leaf that requires grad raises unless it runs inside "
        "`with tensorlab.no_grad():`. Then w.grad.zero_().",
    ),
)


# ---------------------------------------------------------------------------- lesson 13: zero_grad
def _forgot(w0, target, lr, steps, *, accumulate=True, first_only=False):
    w, acc = float(w0), 0.0
    g0 = 2 * (w - target)
    for _ in range(steps):
        g = g0 if first_only else 2 * (w - target)
        acc = acc + g if accumulate else g
        w = w - lr * acc
    return w


def _forgot_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(0.0, 3.0, 0.1, 3), (1.0, -2.0, 0.05, 4)]
    for w0, t, lr, steps in draw_ints(rng, [(-5, 5), (-5, 5), (1, 4), (2, 6)], 8):
        cases.append((float(w0), float(t), lr / 20, steps))
    return cases


FORGOT_ZERO_GRAD = Question(
    id="autograd.forgot_zero_grad",
    notebook=NB,
    name="forgot_zero_grad",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    prompt=(
        "A training loop forgot zero_grad: w = tensorlab.tensor(w0, requires_grad=True); then "
        "`steps` times: loss = (w - target) ** 2; loss.backward(); with tensorlab.no_grad(): "
        "w -= lr * w.grad. Write forgot_zero_grad(w0, target, lr, steps) that PREDICTS the final "
        "w as a float, with plain Python arithmetic (the grader calls it on numbers of its own)."
    ),
    todo=(
        "Write forgot_zero_grad with plain arithmetic: what is w.grad at each step when nobody "
        "resets it?"
    ),
    reference=_forgot,
    cases=_forgot_cases,
    strategy=lambda: int_tuples((-3, 3), (-3, 3), (1, 3), (1, 4)).map(
        lambda t: (float(t[0]), float(t[1]), t[2] / 10, t[3])
    ),
    expect=Expect(rtol=1e-9, atol=1e-9),
    misconceptions=(
        Misconception(
            "zero_grad_assumed",
            "that is plain gradient descent: without zero_grad, backward() adds the new "
            "gradient to the old w.grad, so each step uses the running SUM of the gradients.",
            lambda w0, t, lr, steps: _forgot(w0, t, lr, steps, accumulate=False),
        ),
        Misconception(
            "first_gradient_only",
            "backward() computes the gradient at the CURRENT w each time (2 * (w - target)) and "
            "adds it; it does not re-add the first step's gradient.",
            lambda w0, t, lr, steps: _forgot(w0, t, lr, steps, first_only=True),
        ),
    ),
    hints=(
        "d/dw (w - target) ** 2 = 2 * (w - target). Keep a running total g of what w.grad holds.",
        "At every step the running total grows by the gradient at the CURRENT w, and the "
        "update subtracts lr times the total. Check your prediction against the real loop.",
    ),
)

QUESTIONS = [REPEAT_SOURCES, LEAF_WRITES, NUMERICAL_GRAD, SGD_STEPS, FORGOT_ZERO_GRAD]
