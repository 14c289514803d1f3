"""Authored questions of every kind, loaded from solution code as assign and the grader load
them: value questions, hidden inputs from a hypothesis strategy, validation of both."""

from __future__ import annotations

import numpy as np
import pytest

from tensorlab.grading import authoring, registry
from tensorlab.grading.encode import MISSING, roundtrip
from tensorlab.grading.judge import judge_function, judge_value
from tensorlab.grading.model import make_cases

STRATEGY = """
import tensorlab
from hypothesis import strategies as st
from tensorlab.grading.authoring import misconception, question

def total(xs):
    return sum(xs)

question(
    "kinds.total",
    name="total",
    strategy=st.tuples(st.lists(st.integers(-50, 50), min_size=1, max_size=6)),
    n_cases=12,
    public=[([1, 2, 3],)],
    misconceptions=[misconception("first", "you returned the first item", answer=lambda xs: xs[0])],
)
"""

VALUE = """
import tensorlab
from tensorlab.grading.authoring import misconception, question

answer_shape = (2, 3)

question(
    "kinds.shape",
    name="answer_shape",
    kind="value",
    misconceptions=[misconception("swapped", "rows and columns swapped", answer=(3, 2))],
)
"""


def _load(source: str):
    return authoring.load_code([(0, source)], "kinds.ipynb")


def test_hidden_inputs_from_a_strategy_are_seeded():
    ((q, index),) = _load(STRATEGY)
    assert index == 0 and q.notebook == "kinds"
    a = q.cases(np.random.default_rng(5))
    b = q.cases(np.random.default_rng(5))
    c = q.cases(np.random.default_rng(6))
    assert a == b and a != c
    assert a[0] == ([1, 2, 3],) and len(a) == 13  # the public input, then 12 drawn
    assert all(isinstance(x, tuple) and isinstance(x[0], list) for x in a)
    assert authoring.validate(q) is None
    results = [roundtrip(sum(args[0])) for args in make_cases(q, 0)]
    assert judge_function(q, results, 0).passed
    wrong = [roundtrip(args[0][0]) for args in make_cases(q, 0)]
    v = judge_function(q, wrong, 0)
    assert v.status == "failed" and v.misconception.key == "first"


def test_a_value_question_judges_against_the_solution_value():
    ((q, _),) = _load(VALUE)
    assert q.kind == "value" and authoring.validate(q) is None
    assert judge_value(q, roundtrip((2, 3))).passed
    v = judge_value(q, roundtrip((3, 2)))
    assert v.status == "failed" and v.misconception.key == "swapped"
    data = authoring.check_data(q)
    assert data["cases"] == [] and "(2, 3)" not in repr(data)  # its value does not ship
    public = authoring.public_question(q.id, data)
    # the learner's self-check is honest: a fingerprint of the value ships, never the value
    wrong = authoring.judge_public(public, roundtrip((9, 9)))
    assert wrong.status == "failed" and wrong.stage == "values", wrong
    assert authoring.judge_public(public, roundtrip((2, 3))).passed
    assert authoring.judge_public(public, roundtrip([2, 3])).passed  # a list, as the grader
    assert authoring.judge_public(public, MISSING).status == "not_attempted"


def test_a_value_misconception_equal_to_the_answer_is_refused():
    ((q, _),) = _load(VALUE.replace("answer=(3, 2)", "answer=(2, 3)"))
    assert authoring.validate(q) == "misconception 'swapped' equals the reference"


def test_an_unseeded_strategy_free_generator_is_refused():
    src = STRATEGY.replace(
        "strategy=st.tuples(st.lists(st.integers(-50, 50), min_size=1, max_size=6)),",
        "cases=lambda rng: [([int(x) for x in np.random.randint(0, 9, 3)],) for _ in range(4)],",
    ).replace("import tensorlab\n", "import tensorlab\nimport numpy as np\n")
    ((q, _),) = _load(src)
    assert "unseeded randomness" in authoring.validate(q)


def test_authored_ids_may_not_shadow_built_in_questions():
    with pytest.raises(ValueError, match="built-in"):
        registry.register([registry.all_questions()[0]])


def test_bad_declarations_are_clear_errors():
    with pytest.raises(authoring.LoadError, match="kind must be one of"):
        _load(VALUE.replace('kind="value"', 'kind="matrix"'))
    with pytest.raises(authoring.LoadError, match="needs public inputs"):
        _load(
            STRATEGY.replace(
                "strategy=st.tuples(st.lists(st.integers(-50, 50), min_size=1, max_size=6)),", ""
            ).replace("public=[([1, 2, 3],)],", "")
        )
