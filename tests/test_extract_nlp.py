"""spaCy as the extractors' NLP engine (mlx.extract.nlp): built once, loaded only by them."""

import subprocess
import sys

import pytest

from mlx.extract import nlp


def test_the_pipelines_are_built_once_whoever_asks_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from mlx.extract import statements
    from mlx.pipeline import warm_up
    for name in ("_ENGLISH", "_EFFECTS", "_HARDWARE"):
        monkeypatch.setattr(nlp, name, None)
    warm = warm_up(("statements", "hardware"))
    patterns = statements.effect_patterns
    built = nlp.effects(patterns), nlp.hardware()  # wait for the warm-up's build, build no other
    warm.join()
    assert (nlp.effects(patterns), nlp.hardware()) == built
    assert nlp.hardware().vocab is nlp.english().vocab  # one Vocab for both pipelines
    assert [s.stated_pct for s in statements.extract_statements(
        "This patch improves throughput by 7% on our test rig.\n", "[PATCH] net: x")] == [7.0]


def _modules(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join("
                          "sorted(sys.modules)))"], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_reading_a_store_loads_no_spacy_and_no_extractor() -> None:
    """``mlx info``, ``claims``, ``sql``, ``show`` and ``report`` read the store: they pay
    for no NLP and no extractor's patterns."""
    for code in ("import mlx.store", "import mlx.archive", "import mlx; mlx.load"):
        loaded = _modules(code)
        assert "spacy" not in loaded, code
        assert not {m for m in loaded if m.startswith("mlx.extract")}, code


def test_an_ingest_with_statements_loads_spacy(tmp_path) -> None:
    mail = tmp_path / "a.mbox"
    mail.write_text("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: A <a@x>\nSubject: [PATCH] "
                    "net: faster\nMessage-ID: <1@x>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n"
                    "This patch improves throughput by 7% on our test rig.\n\n")
    loaded = _modules(f"import mlx; r = mlx.ingest([{str(mail)!r}], store={str(tmp_path / 's')!r}"
                      f", workers=1); assert len(mlx.load({str(tmp_path / 's')!r}).statements)")
    assert "spacy" in loaded and "spacy.matcher" in loaded


def test_of_two_labels_on_one_span_the_first_pattern_wins() -> None:
    """spaCy's own filter picks by a set's order there; mlx keeps the first pattern."""
    import spacy
    nlp_ = spacy.blank("en")
    nlp._register()
    ruler = nlp_.add_pipe("span_ruler", config={
        "annotate_ents": True, "spans_key": None,
        "ents_filter": {"@misc": "mlx.first_pattern_longest.v1"}})
    ruler.add_patterns([{"label": "cpu", "pattern": [{"LOWER": "ipq8074"}], "id": "0"},
                        {"label": "wifi", "pattern": [{"LOWER": "ipq8074"}], "id": "1"},
                        {"label": "board", "pattern": [{"LOWER": "ipq8074"},
                                                       {"LOWER": "board"}], "id": "2"}])
    assert [(e.label_, e.text) for e in nlp_("an IPQ8074 here").ents] == [("cpu", "IPQ8074")]
    # the longest match wins over the first pattern
    assert [(e.label_, e.text) for e in nlp_("an IPQ8074 board").ents] == [
        ("board", "IPQ8074 board")]


def test_the_hardware_tokenizer_keeps_model_numbers_whole() -> None:
    doc = nlp.hardware().make_doc("(Intel(R) Xeon(R) CPU E5-2620 v4, 6.7.0-rc1)")
    assert [t.text for t in doc] == ["(", "Intel(R)", "Xeon(R)", "CPU", "E5-2620", "v4", ",",
                                     "6.7.0-rc1", ")"]


def test_a_memory_zone_gives_back_the_strings_a_chunk_added(monkeypatch) -> None:
    """Once the Vocab has grown by ZONE_FREE_STRINGS, a chunk's strings go with its zone;
    before, they stay (the tokenizers cache the words of a process's first chunks)."""
    from mlx.extract.hardware import extract_hardware
    nlp.hardware()
    strings = nlp.english().vocab.strings
    before = len(strings)
    with nlp.zone():
        extract_hardware("Tested on a Xeon E5-2699 with qzx9321-unique-token-a7 and more.\n")
    assert len(strings) > before  # kept: the Vocab is young
    monkeypatch.setattr(nlp, "ZONE_FREE_STRINGS", 0)
    before = len(strings)
    with nlp.zone():
        extract_hardware("Tested on a Xeon E5-2699 with qzx9321-unique-token-b8 and more.\n")
    assert len(strings) == before
