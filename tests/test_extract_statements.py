import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlx.extract import effect_rules, statements
from mlx.extract.statements import extract_statements


@pytest.mark.parametrize("text, pct, direction", [
    ("It improves single-flow throughput by about 7% on a 25G link.", 7.0, "improvement"),
    # a range: its middle
    ("We see a throughput improvement of 15-20 % with the series.", 17.5, "improvement"),
    ("The new path is 2x faster for small packets.", 100.0, "improvement"),
    # no number: a claim without a percent
    ("Jason's commit made a big performance improvement.", None, "improvement"),
    ("kernel test robot noticed a -25.7% regression of netperf.Throughput_Mbps on:", -25.7,
     "regression"),
    # "reduces latency" is an improvement
    ("It reduces latency by 10% in our tests.", 10.0, "improvement"),
])
def test_prose(text: str, pct, direction: str) -> None:
    (s,) = extract_statements(text)
    assert (s.kind, s.stated_pct, s.direction) == ("prose", pct, direction)


@pytest.mark.parametrize("text", [
    "This patch improves the error handling.",  # no size stated
    "Use %d in the format string; it is faster to read.",  # "%d" is no percent of an effect
    "diff --git a/x b/x\n+\t/* 2x faster */\n",  # code
    # a diffstat before the diff
    " net/foo/Makefile                  |  2 +-\n net/foo/bar.c | 88 ++++++++-------\n"
    " 2 files changed, 50 insertions(+), 40 deletions(-) which improves nothing\n",
    # an effect denied with a contraction
    "I ran the benchmark again. This doesn't yield a performance degradation.",
    # a figure cited to doubt it
    "I looked at the profile. But nothing that could explain a -69.4% regression.",
    # a hedge: what seems to have happened to an older version
    "The TX performance degradation observed in v2 seems to have improved.",
    # an effect in an aside, of other patches
    "This fixes a crash (the rest of the series is a performance improvement, less urgent).",
    # a functional result, not a measurement
    "I tried the firmware from the vendor image. But the result was the same.",
    # two alternatives compared, the change neither of them
    "On the 1G ports I saw no difference between flushing per packet and per NAPI poll.",
    # a possibility: what "can" be improved, what improving "can help"
    "Latency can be improved further with poll periods below 3 ms, at a cost in CPU time.",
    "Moving the copy out of the hot path can help improving the link utilisation.",
    # a level a share rises to is no size of a change (and here no effect of the patch)
    "This is the data on the 96 cpu machine. When I only run wrk tests, the softirq of\n"
    "the system will rapidly increase to 25%:",
])
def test_no_statement(text: str) -> None:
    assert extract_statements(text) == []


def test_quoted_statement_marked() -> None:
    (s,) = extract_statements("> It is 3 times faster now.\n\nI doubt it.\n")
    assert s.quoted and s.stated_pct == 200.0


def test_robot_table() -> None:
    text = """\
a5b1a8c1e5ae7ddc 8b27dae5a22b6d98bd1b7f9e2e6
---------------- ---------------------------
         %stddev     %change         %stddev
             \\          |                \\
     10455           -25.7%       7768        netperf.Throughput_Mbps
      2.31 ±  2%     +12.0%       2.59 ±  3%  netperf.time.elapsed_time
"""
    rows = [s for s in extract_statements(text) if s.kind == "robot"]
    assert [(r.metric, r.baseline_value, r.patched_value, r.stated_pct) for r in rows] == [
        ("netperf.Throughput_Mbps", 10455.0, 7768.0, -25.7),
        ("netperf.time.elapsed_time", 2.31, 2.59, 12.0)]
    assert rows[0].base_commit == "a5b1a8c1e5ae7ddc"
    assert rows[0].head_commit == "8b27dae5a22b6d98bd1b7f9e2e6"


@pytest.mark.parametrize("text, expected", [
    # a further percent of the same sentence is an effect of its own
    ("The change slowed down performance by about 8.1% with gre and 12.6% with vxlan.",
     [(8.1, "regression"), (12.6, "regression")]),
    # a factor in words
    ("Dynack nearly provides double the bandwidth at closer range.", [(100.0, "improvement")]),
    # no change stated
    ("With and without the patch the results are identical within statistical errors.",
     [(None, "no-change")]),
    ("We see no difference between the patched and the stock kernel in throughput.",
     [(None, "no-change")]),
    # "at least 70%", a benchmark named as the measure, lower as a verb, factors
    ("With the patch it hits a 70%+ regression in netperf.", [(70.0, "regression")]),
    ("The patch caused a huge (49%) drop for some netperf cases.", [(49.0, "regression")]),
    ("It lowers the CPU cost by 12%.", [(12.0, "improvement")]),
    ("This patch improves throughput for small messages by x2 ~ x4.", [(200.0, "improvement")]),
    # a reduction of what is better lower is an improvement
    ("AQL is able to reduce latency by an order of magnitude.", [(None, "improvement")]),
    # a sentence that starts with "Results"
    ("Results are the same within the noise of the runs.", [(None, "no-change")]),
    # a difference denied, "that I could notice" no hedge
    ("I ran the benchmark between v2 and this one and there is no difference that I could\n"
     "notice.", [(None, "no-change")]),
    # the effect said by comparing with and without the change
    ("I will drop that part, as the throughput is higher without that code.",
     [(None, "regression")]),
    ("Latency is lower with this patch applied on both boxes.", [(None, "improvement")]),
    # "drops performance" regresses, whatever else the sentence names
    ("This makes the vcpu compute the csum and drops performance.", [(None, "regression")]),
    # two percents before one effect word (typo and all)
    ("On the two platforms we saw 64% and 41% regresson.", [(64.0, "regression"),
                                                           (41.0, "regression")]),
    # a range "from A% to B%" is one effect, its middle
    ("The new helper is faster, with the gain varying from 4% to 96% by case.",
     [(50.0, "improvement")]),
    # "changed from A% to B%": the effect is B now
    ("With more clients the regression is changed from 58.5% to 61.2%",
     [(61.2, "regression")]),
    # a hedge in parentheses does not hedge the sentence
    ("Since the two patches have a performance impact (and possibly other side-effects)\n"
     "a separate build is added.", [(None, "regression")]),
    # a noun phrase "the performance drop is significant"
    ("The performance drop is significant with the series applied.", [(None, "regression")]),
    # a factor before the noun it sizes; "perf" for performance
    ("With the series I see a 4x speed increase:", [(300.0, "improvement")]),
    ("Perf is about the same regardless of the changes in v3.", [(None, "no-change")]),
    # "can" where it hedges the effect, not a sentence that says "can" elsewhere
    ("Since the patches have a performance impact a separate build is added, so that\n"
     "users of small devices can still use the rest.", [(None, "regression")]),
])
def test_more_statement_shapes(text: str, expected: list) -> None:
    got = [(s.stated_pct, s.direction) for s in extract_statements(text)]
    assert sorted(got, key=str) == sorted(expected, key=str)


def test_pasted_commit_statement_is_quoted() -> None:
    body = ("Is this in 23.05?\n\ncommit 0123456789abcdef0123456789abcdef01234567\n"
            "Author: Ann Other <ann@example.org>\n\n    foo: batch bar\n\n"
            "    This improves throughput by 12% on small boxes.\n\nThanks\n")
    (s,) = extract_statements(body, "Re: foo: batch bar")
    assert s.quoted and s.stated_pct == 12.0


def test_a_reply_behind_a_list_tag_is_a_reply() -> None:
    """The statements and the claims tell postings from replies as the patch layer does."""
    from mlx.extract.statements import is_reply
    assert is_reply("[OpenWrt-Devel] Re: [PATCH] ath79: add support for a router")
    assert is_reply("RE: [EXT] [PATCH 04/11] mmc: sdio: move")
    assert not is_reply("[PATCH net] tcp: fix the probe timer")
    assert not is_reply(None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([
    "results", "are", "identical", "Results", "ARE", "the same", "No", "noticeable", "difference",
    "Performance", "is", "higher", "with", "without", "this", "patch", "latency", "Lower",
    "big", "Huge", "improvement", "regression", "doubles", "the", "throughput", "Twice", "as",
    "fast", "overhead", "speed", "clock ", "pps", " ", " ", "\n", ".", ",", "3", "x"]),
    max_size=16))
def test_folded_patterns_match_as_case_insensitive_ones(words: list[str]) -> None:
    """Folded runs a pattern on lowercased text: it finds what the IGNORECASE pattern finds."""
    import re

    from mlx.extract import sizes
    from mlx.extract import statements as s
    text = " ".join(words)
    for pattern in (s.NO_CHANGE, s.COMPARED, sizes.ADJECTIVE, sizes.SIZE_WORD,
                    effect_rules.PERF_NOUN, s.EFFECT_WORDS):
        assert (pattern.search(text) is None) == \
            (re.search(pattern.rx.pattern, text, re.IGNORECASE) is None), pattern.rx.pattern
    assert (sizes.SIZE_NUMBER.search(text) is None) == \
        (re.search(r"\d[ \t]?(?:%|(?:x|times)\b)|\bx\d{1,3}\b", text) is None)


@pytest.mark.parametrize("body,subject", [
    # an earlier version's effect, told in the next version's cover letter
    ("Foo hook, 4th iteration:\n\nPreviously the bar path suffered a performance degradation "
     "with this series applied.  Not anymore, see patch [1/5].\n",
     "[PATCH nf-next v4 0/5] Foo hook"),
    # a proposal states no effect
    ("I propose to apply the full series to master, as there are no obvious issues, and the "
     "performance regression fix can get better testing this way.\n",
     "[PATCH 0/2] musl: fix the lock-skipping"),
    # another, later series' effect
    ("Preparing for upcoming xtables-restore performance improvements I noticed a few "
     "things to smooth out.\n", "[PATCH 0/4] xtables: small fixes"),
    # a kind of use, not an effect: "higher throughput scenarios"
    ("This patch improves support for higher throughput scenarios on big boxes.\n",
     "[PATCH] netfilter: xt_recent: raise the hitcount limit"),
])
def test_no_effect_of_this_change(body: str, subject: str) -> None:
    assert extract_statements(body, subject) == []


@pytest.mark.parametrize("sentence", [
    "Previously, every lookup walked the whole list; with this patch throughput improves by 35%.",
    "The proposed patch significantly improves throughput on our systems.",
    "This removes the per-packet preparation step and noticeably improves throughput.",
])
def test_an_effect_beside_such_words_is_kept(sentence: str) -> None:
    assert [r.direction for r in extract_statements(f"Hi.\n\n{sentence}\n",
                                                    "[PATCH v3 0/3] foo: bar")] == ["improvement"]


def test_a_statement_gives_the_line_its_sentence_starts_on() -> None:
    body = ("Hello,\n\nThis change reduces the ratio of tx completions from 1/2 to\n"
            "1/32 of the packets sent. This results in significant performance\n"
            "improvement on the TX path.\n")
    rows = extract_statements(body, "[PATCH v2] ath10k: reduce tx completions")
    assert [(r.line_no, r.direction) for r in rows] == [(4, "improvement")], rows


def test_the_paragraph_cache_keeps_what_it_returns_when_it_fills(monkeypatch) -> None:
    from mlx.extract import statements
    from mlx.text import TextCache
    monkeypatch.setattr(statements, "READ", TextCache(60, len))
    text = "This patch improves throughput by 7% on my box."
    first = statements._read([text])
    again = statements._read([text, "And this change reduces latency by 5% there."])
    assert again[0] is first[0] and len(again) == 2


@given(st.lists(st.sampled_from(["Results ", "it ", "are ", "look ", "the same", "identical",
                                 "No ", "noticeable ", "difference", "within noise", "on par",
                                 "change in performance", "impact on performance", ". ",
                                 "throughput ", "IS ", "Unchanged"]), max_size=8))
@settings(max_examples=500, deadline=None)
def test_no_change_words_are_in_every_match(parts: list[str]) -> None:
    """NO_CHANGE's substring test first never loses a match of its pattern."""
    from mlx.extract.statements import NO_CHANGE
    text = "".join(parts)
    assert (NO_CHANGE.search(text) is None) == (NO_CHANGE.rx.search(text.lower()) is None)


@pytest.mark.parametrize("rule", effect_rules.EFFECT_RULES + effect_rules.UNSIZED_RULES,
                         ids=lambda r: r.name)
def test_each_effect_rule_turns_its_example_down(rule) -> None:
    """The tables' examples are their test cases (read as a reply's paragraph where the
    rule is about replies); ``rejections`` names the rule."""
    subject = "Re: [PATCH] net: foo" if rule.name in ("another version's effect",
                                                      "another doer") else None
    assert extract_statements(rule.example, subject) == []
    assert {why for _, _, why in statements.rejections(rule.example, subject)} == {rule.name}


@pytest.mark.parametrize(("text", "direction", "pct"), [
    ("With this series we get 14.5% higher throughput.", "improvement", 14.5),
    ("The patch gives 10% lower latency.", "improvement", 10.0),
    ("This change yields ~14% better throughput on arm64.", "improvement", 14.0),
    ("This reduces latency by 14-20%.", "improvement", 17.0),  # a range: its middle
])
def test_sized_comparatives_and_ranges_are_stated_effects(text: str, direction: str,
                                                          pct: float) -> None:
    """A percent right before a comparative ("14% higher") sizes an effect, and a range
    after an effect word ("by 14-20%", three tokens to spaCy) gives its middle."""
    (s,) = extract_statements(text, "[PATCH net-next] net: batch the tx path")
    assert (s.direction, s.stated_pct) == (direction, pct)


def test_a_change_log_states_no_effect_of_the_change() -> None:
    """What a version changed ("Changes in v2:", "v2 -> v3:", and the notes below a
    patch's "---" after such a heading) is over an earlier version: no claim; the commit
    message above it is read."""
    body = ("Batch the tx completions.\n\nThis patch improves throughput by 10%.\n\n"
            "Signed-off-by: Pat Cher <pat@example.org>\n---\nChanges in v2:\n"
            "- Send the rows nested.\n\nThis should be safer now. Also the idea of a "
            "second queue showed a nice performance improvement of 4%.\n\n"
            " net/foo.c | 2 +-\n")
    got = extract_statements(body, "[PATCH net-next v2] net: foo: batch tx completions")
    assert [(s.line_no, s.stated_pct) for s in got] == [(3, 10.0)]
    cover = "v2 -> v3:\n - The lookups are 3% faster.\n"
    assert extract_statements(cover, "[PATCH v3 0/2] net: foo") == []


@pytest.mark.parametrize(("text", "kept"), [
    ("This patch reduces memory consumption by ~32% in this case.", []),
    ("Under the same configuration, the used memory decreased by 20% with the new image.", []),
    ("Build as a module it can provide 50% reduction in run-time memory use.", []),
    # the memory is another effect's noun: the performance one stays
    ("Thumb-2 code is denser, reducing RAM usage and improving performance due to a better "
     "instruction cache footprint.", [("improvement", None)]),
])
def test_a_memory_footprint_is_no_performance_effect(text: str, kept: list) -> None:
    """Memory consumption, footprint and use are sizes, not run time: an effect whose own
    words (a few on either side, within its clause) name them is no claim."""
    got = extract_statements(text, "[PATCH] arm: build with thumb-2")
    assert [(s.direction, s.stated_pct) for s in got] == kept


@pytest.mark.parametrize(("text", "subject", "expected"), [
    # which way an effect goes is read off the measure nearest its phrase, not any word of
    # the sentence ("message size" is a setting, the throughput tools the measure)
    ("The tcp_bw test shows more than x3 increase with small message sizes, and the same "
     "with the other throughput tools.", "[PATCH net-next] net/smc: cork small sends",
     [(200.0, "improvement")]),
    ("CPU usage dropped by 15% at the same throughput.", "[PATCH] net: foo: batch irqs",
     [(15.0, "improvement")]),
    ("Throughput increased by 12% while the CPU cost stayed flat.", "[PATCH] net: foo: batch irqs",
     [(12.0, "improvement")]),
    # a percent is sized by the effect word next to it ("drop" of "tc drop rule" is a name)
    ("With the series the tc drop rule now adds ~7% overhead at 14 Mpps.",
     "[PATCH net-next] net/sched: foo", [(7.0, "regression")]),
    # in a reply, an effect another doer has: a rule, a suggestion, the writer's other patch
    ("Your numbers look high. On my box a single nft counter rule added ~5% overhead at "
     "10 Mpps.", "Re: [PATCH nf-next] netfilter: foo", []),
    ("You can increase throughput by 15% by pinning the irqs to one core.",
     "Re: [PATCH net] net: foo: bar", []),
    ("Last year I wrote a patch that cached the lookups, which helped a few netperf cases "
     "but caused a huge (30%) drop in others.", "Re: [PATCH] mm: memcg: foo", []),
    # against the series' own earlier version: the effect as its authors tell it (its
    # ``versus`` says against what)
    ("Improved performance of the page pool benchmark compared to v6:",
     "[PATCH net-next v7 0/3] foo", [(None, "improvement")]),
    # what a suggested fix and a knob could do to the change's regression
    ("With the batch raised to 128, the regression could be reduced to -12.4%.",
     "Re: [PATCH] mm: memcg: foo", []),
    # a preparation patch telling what the patch after it does; a cover letter's "next
    # patch" is of its own series
    ("This is a preparation patch: a followup change will use the new helper for inserts "
     "too.\nThis greatly improves insertion performance.",
     "[PATCH nf-next 1/2] netfilter: pipapo: split the lookup", []),
    ("Patch 1 adds a helper, the next patch uses it for inserts.\nThis greatly improves "
     "insertion performance.", "[PATCH nf-next 0/2] netfilter: pipapo: faster inserts",
     [(None, "improvement")]),
    # a reviewer's own measurement of the change, without a size and without naming it
    ("Two problems: 1) traffic loss with existing policies; 2) a performance drop in the\n"
     "encapsulation path, which I have measured below.", "Re: [PATCH net-next] net: foo",
     [(None, "regression")]),
    # a tester's own measurement: "increase" and "boost" after "a 10%" are nouns, no verb
    # of another doer
    ("I get a 10% increase in throughput on my box.", "Re: [PATCH net] net: foo: bar",
     [(10.0, "improvement")]),
    ("On my box I see a 15% boost in throughput.", "Re: [PATCH net] net: foo: bar",
     [(15.0, "improvement")]),
    # ... and the change's own effect in a reply stays
    ("With your patch applied single-flow throughput improved by 10% on my box.",
     "Re: [PATCH net] net: foo: bar", [(10.0, "improvement")]),
    ("Throughput of the mesh links greatly improved, by upwards of 50% in iperf.",
     "Re: [PATCH] mac80211: foo", [(50.0, "improvement")]),
    # a no-change said beside the change's presence and absence
    ("Performance is about the same with or without the changes in this revision.",
     "[PATCH v7 0/9] mips: foo: a new fast path", [(None, "no-change")]),
    ("I ran it on tmpfs, and the numbers with and without the tagging were statistically "
     "equal.", "Re: [PATCH v2] mm: foo tagging", [(None, "no-change")]),
    ("Throughput is unchanged with this patch.", "[PATCH] net: foo", [(None, "no-change")]),
    ("The two runs are equal in size.", "Re: [PATCH] net: foo", []),
    # a factor with a capital X is the same factor
    ("This patch makes the GCM path 2X faster on arm64.", "[PATCH] crypto: foo", [(100.0,
                                                                                 "improvement")]),
    ("With this series decryption is 3X faster.", "[PATCH 0/3] crypto: foo",
     [(200.0, "improvement")]),
])
def test_what_an_effect_is_of(text: str, subject: str, expected: list) -> None:
    """An effect's direction is read off the measure it is on, its size off the phrase
    next to the number, and it is the change's only when no other doer has it."""
    got = [(s.stated_pct, s.direction) for s in extract_statements(text, subject)]
    assert got == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("This speeds up memcpy throughput by about 30% on a 24Kc core.", [(30.0, "improvement")]),
    ("On Octeon this improves the hash rate by a factor of 3.", [(200.0, "improvement")]),
    ("With the series, throughput is roughly doubled for large buffers.",
     [(100.0, "improvement")]),
    ("The interrupt latency is reduced by half.", [(50.0, "improvement")]),
    # "in half of the runs" is a share of them, no size (and without one, nothing asserted
    # of a performance)
    ("The regression shows up in half of the runs with the series.", []),
    # "half" alone reduces nothing
    ("With the patch latency increased by 20% for half of the flows.", [(20.0, "regression")]),
    ("This cuts the softirq overhead roughly in half.", [(50.0, "improvement")]),
    ("This makes the syscall path 12% quicker.", [(12.0, "improvement")]),
    ("Measured with lmbench, the context switch time drops by 8%.", [(8.0, "improvement")]),
    ("It saves about 10% of CPU time in the softirq.", [(10.0, "improvement")]),
    ("I found a way to make the bulk loads almost twice as fast by reusing the handle.",
     [(100.0, "improvement")]),
    ("There is a slight performance penalty of 2% on small packets.", [(2.0, "regression")]),
    ("A 4-fold speedup of the checksum loop on big-endian boards.", [(300.0, "improvement")]),
    # sizes of memory or of code stay no claim
    ("It saves about 10% of memory on small boards.", []),
    ("The table is 4 times as big now.", []),
    # a ratio of clocks, and a protocol's mechanism, are no effect of the change
    ("I think the sysclock is 200 MHz, so it's 4 times as fast.", []),
    ("The sender halved its congestion window (as if halving its sending\nrate). 2 RTTs "
     "with CWR mean two reductions.", []),
])
def test_effect_words_of_every_subsystem(text: str, expected: list) -> None:
    """Effects as commit messages outside networking state them: "speeds up", "by a factor
    of 3", "doubled", "by half", "quicker", "penalty", "saves", "N-fold"."""
    got = [(s.stated_pct, s.direction) for s in extract_statements(text, "[PATCH] MIPS: foo")]
    assert got == expected


def test_a_fenced_block_is_code_and_splits_its_paragraph() -> None:
    """A fenced block ("```", blank lines and all) is code: its lines are no sentence, and
    the text on either side is read as two runs, each on its own lines."""
    body = ("Setup:\n1) the bridge:\n```\nbrctl addbr br0\n\nip link set br0 up\n```\n"
            "With this patch throughput improves by 12% on the bridge.\n\n"
            "```\nThis text improves nothing by 50%\n```\n")
    got = extract_statements(body, "[PATCH net-next] net: bridge: foo")
    assert [(s.stated_pct, s.line_no) for s in got] == [(12.0, 8)]


def test_an_effect_against_an_earlier_version_names_that_version() -> None:
    """"4% better than v2": the change's effect as its authors tell it, against their own
    earlier version (the statement's ``versus``, the claim's baseline label)."""
    got = extract_statements("Throughput is 4% better than v2 with the lock split.",
                             "[PATCH net-next v3 0/2] net: foo: split the lock")
    assert [(s.stated_pct, s.direction, s.versus) for s in got] == [(4.0, "improvement", "v2")]
    got = extract_statements("This improves throughput by 9% over the previous version.",
                             "[PATCH v5] net: foo")
    assert [s.versus for s in got] == ["previous version"]
    assert [s.versus for s in extract_statements("This improves throughput by 9%.",
                                                  "[PATCH v5] net: foo")] == [None]
