"""The named rules that say a value in prose is no measurement (mlx.extract.measured.RULES):
each rule's own example is rejected, by that rule."""

import pytest

from mlx.extract import inline, measured


@pytest.mark.parametrize("rule", measured.RULES, ids=lambda r: r.name)
def test_each_rule_rejects_its_example(rule: measured.Rule) -> None:
    p = measured.Paragraph.of([rule.example])
    spots = [measured.Spot(p, m.start(2), m.end(), m.group(3))
             for m in inline.VALUE.finditer(p.text)]
    assert spots, rule.example  # the example holds a value
    assert any(rule.rejects(s) for s in spots), rule.example
    assert not inline.parse_prose([rule.example]) or rule.name == "table or code line"


def test_rejections_name_the_rule() -> None:
    """What benchmarks/accuracy.py --misses prints beside a value mlx did not take."""
    assert inline.rejections(["Speed: 1000Mb/s", "we got 941 Mbit/s with the patch"]) == [
        (0, 1000.0, "capacity field")]
