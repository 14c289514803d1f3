"""The loose comparison of the outputs nbval ignores (``tests/nbval_loose.py``): what passes and
what does not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nbval_loose import close, differences, text_of


def test_accuracies_within_ten_points_pass_and_beyond_fail():
    assert differences("MLP: test accuracy 36.3%", "MLP: test accuracy 40.2%") == []
    assert differences("MLP: shifted accuracy 40.6%", "MLP: shifted accuracy 30.5%") == [
        "40.6% (saved) is now 30.5%"
    ]


def test_numbers_within_a_quarter_pass_and_words_must_not_change():
    assert differences("loss 0.405, error 6.0e-11", "loss 0.407, error 7.0e-11") == []
    assert differences("loss 0.405", "loss 0.605") == ["0.405 (saved) is now 0.605"]
    assert differences("CNN wins", "MLP wins")
    assert differences("1 2 3", "1 2")


@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 0.2))
def test_a_number_close_to_itself_passes(x, rel):
    y = x * (1 + rel)
    assert close(f"{x!r}", f"{y!r}")


def test_pictures_are_not_read_but_their_stand_ins_are():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a 1\n"},
        {"output_type": "display_data", "data": {"image/png": "...", "text/plain": "<Figure>"}},
        {"output_type": "execute_result", "data": {"text/plain": "tensor([1])"}},
    ]
    assert text_of(outputs) == "a 1\ntensor([1])"
