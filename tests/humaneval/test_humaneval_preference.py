"""Exact binomial and sign tests."""

import pytest

from humaneval import binomial_test, sign_test


@pytest.mark.parametrize("successes, trials, p_value", [(34, 60, 0.366), (17, 30, 0.585)])
def test_published_binomial_p_values(successes, trials, p_value):
    result = binomial_test(successes, trials)
    assert round(result.p_value, 3) == p_value
    assert result.share == successes / trials
    assert result.to_dict()["trials"] == trials


def test_binomial_by_hand():
    # 5 of 5: P = 2 * (1/2)^5 = 1/16.
    assert binomial_test(5, 5).p_value == pytest.approx(1 / 16)
    assert binomial_test(0, 5).p_value == pytest.approx(1 / 16)
    assert binomial_test(3, 6).p_value == pytest.approx(1.0)
    assert binomial_test(0, 0).p_value == 1.0 and binomial_test(0, 0).share is None
    with pytest.raises(ValueError):
        binomial_test(4, 3)


def test_sign_test():
    # 6 up, 1 down, 2 ties: two-sided exact p on 6 of 7 = 2 * 8/128 = 0.125.
    first = [3, 4, 5, 5, 2, 4, 3, 1, 5]
    second = [1, 2, 4, 3, 1, 3, 3, 1, 6]
    result = sign_test(first, second)
    assert (result.positive, result.negative, result.ties) == (6, 1, 2)
    assert result.p_value == pytest.approx(0.125)
    with pytest.raises(ValueError, match="length"):
        sign_test([1], [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        sign_test([float("nan")], [1])
