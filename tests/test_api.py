import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest

import mlx
from mlx.errors import MlxError, NotMailError, StoreError
from mlx.ingest.split import write_mboxrd

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ["uid", "message_id", "date", "from_name", "from_addr", "to", "cc", "subject",
            "in_reply_to", "references", "list_id", "body", "source", "offset", "defects",
            "thread_id", "parent_id", "depth", "patch_id"]


def mail(mid: str, body: str = "hello\n", list_id: str = "netdev.vger.kernel.org") -> bytes:
    return (f"From: A <a@example.org>\nSubject: s {mid}\nMessage-ID: <{mid}>\n"
            f"List-Id: <{list_id}>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n{body}").encode()


def test_sample_data_contract(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    report = mlx.ingest([str(ROOT / "data")], store=store, workers=2)
    assert report.balanced and report.errors == 0
    archive = mlx.load(store)
    msgs = archive.messages
    assert set(CONTRACT) <= set(msgs.columns)
    assert set(CONTRACT) <= set(archive.table("messages").columns)
    # by column, and by row with DuckDB
    assert list(archive.table("messages", columns=["uid", "subject"]).columns) == [
        "uid", "subject"]
    assert len(archive.table("results", where="tool = 'iperf3'")) == (
        archive.results.tool == "iperf3").sum()
    assert list(archive.errors.columns[:4]) == ["source", "offset", "length", "reason"]
    assert len(msgs) == 6 and msgs.uid.is_unique
    assert str(msgs.date.dtype) == "datetime64[us, UTC]"
    # missing is NA, never ""
    for col in ("from_name", "subject", "list_id", "body", "message_id"):
        assert not (msgs[col] == "").any()
    seed = msgs[msgs.body.str.contains("w/napi_gro_receive", na=False)].iloc[0]
    lines = seed.body.splitlines()
    assert ("[SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162             sender"
            in lines)
    assert ("https://git.zx2c4.com/WireGuard/commit/?id=95951af7249912a4356b9a03cf3addc7e3f8f724"
            in seed.body)
    text = msgs[msgs.defects.apply(lambda d: "text-rendering" in d)].iloc[0]
    assert text.subject == "Re: [PATCH v2 net] wireguard: use DEV_STATS_INC()"
    assert "=== 4in4 TCP_STREAM: 901.05 Mbits/sec ===" in text.body
    # seeds: results and hardware tables, keyed to the message and its patch
    res = archive.results
    seed0 = res[res.uid == text.uid]
    assert len(seed0) == 16 and (seed0.patch_id == text.patch_id).all()
    seed2 = res[res.uid == seed.uid]
    assert list(seed2.value) == [390.0, 389.0, 252.0, 251.0, 498.0, 498.0]
    hw = archive.hardware
    hosts = hw[hw.uid == text.uid].groupby("host").kind.apply(list).to_dict()
    assert hosts == {"Client": ["os", "cpu", "memory", "nic"],
                     "Server": ["kernel", "cpu", "memory", "nic"]}
    hosts = hw[hw.uid == seed.uid].dropna(subset=["host"]).groupby("host").kind.apply(set)
    assert hosts.to_dict() == {"pbx4": {"cpu", "nic", "kernel", "arch"}, "pbx": {"cpu", "nic"}}


def test_reingest_adds_nothing_and_growth_adds_only_new(tmp_path: Path) -> None:
    path = tmp_path / "list.mbox"
    path.write_bytes(write_mboxrd([mail("1@x"), mail("2@x")]))
    store = str(tmp_path / "s")
    first = mlx.ingest([str(path)], store=store, workers=1)
    assert (first.raw, first.stored) == (2, 2)
    again = mlx.ingest([str(path)], store=store, workers=1)
    assert (again.raw, again.stored, again.unchanged) == (0, 0, 1)
    with open(path, "ab") as fh:
        fh.write(write_mboxrd([mail("3@x")]))
    grown = mlx.ingest([str(path)], store=store, workers=1)
    assert (grown.raw, grown.stored, grown.already) == (1, 1, 0)
    assert sorted(mlx.load(store).messages.message_id) == ["1@x", "2@x", "3@x"]
    # the same bytes under another name are recognised as stored
    copy = tmp_path / "copy.mbox"
    shutil.copy(path, copy)
    dup = mlx.ingest([str(copy)], store=store, workers=2)
    assert (dup.raw, dup.stored, dup.already) == (3, 0, 3) and dup.balanced


def test_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "list.mbox"
    path.write_bytes(write_mboxrd([
        mail("1@x"),
        mail("1@x"),  # delivered twice: one stored
        mail("1@x", body="changed body\n"),  # a resend with a changed body: kept
        mail("1@x", list_id="linux-kernel.vger.kernel.org"),  # cross-posted: once per list
        b"\x00\x01\x02 binary junk\n",  # one junk chunk: an error row, the rest stands
    ]))
    store = str(tmp_path / "s")
    report = mlx.ingest([str(path)], store=store, workers=1)
    assert (report.raw, report.stored, report.duplicates, report.errors) == (5, 3, 1, 1)
    assert report.balanced
    errors = mlx.load(store).errors
    assert errors.iloc[0].offset > 0 and "no mail headers" in errors.iloc[0].reason
    # re-reading a changed file does not repeat its error row
    path.write_bytes(path.read_bytes() + write_mboxrd([mail("9@x")]))
    os.utime(path, (1, 1))
    assert mlx.ingest([str(path)], store=store, workers=1).errors == 0
    assert len(mlx.load(store).errors) == 1


def test_bad_input_leaves_store_unchanged(tmp_path: Path) -> None:
    store = tmp_path / "s"
    good = tmp_path / "a.mbox"
    good.write_bytes(write_mboxrd([mail("1@x")]))
    mlx.ingest([str(good)], store=str(store), workers=1)
    before = json.loads((store / "mlx-store.json").read_text())
    png = tmp_path / "x.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(NotMailError):
        mlx.ingest([str(good), str(png)], store=str(store))
    assert json.loads((store / "mlx-store.json").read_text()) == before


def test_load_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not an mlx store"):
        _ = mlx.load(str(tmp_path)).messages


def test_engines_agree(tmp_path: Path) -> None:
    one = mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "1"), workers=1)
    two = mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "2"), workers=2)
    assert one.stored == two.stored
    a = mlx.load(str(tmp_path / "1")).messages.sort_values("uid").reset_index(drop=True)
    b = mlx.load(str(tmp_path / "2")).messages.sort_values("uid").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_huge_message_is_bounded(tmp_path: Path) -> None:
    attachment = "QUFB" * (12 << 20)  # 48 MB of base64, one line per 76 chars below
    lines = "\n".join(attachment[i:i + 76] for i in range(0, len(attachment), 76))
    big = (f"From: a@example.org\nSubject: big\nMessage-ID: <big@x>\nMIME-Version: 1.0\n"
           f"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\n"
           f"see attached\n--B\nContent-Type: application/octet-stream; name=dump.bin\n"
           f"Content-Transfer-Encoding: base64\n\n{lines}\n--B--\n").encode()
    path = tmp_path / "big.mbox"
    path.write_bytes(write_mboxrd([big, mail("after@x")]))
    store = str(tmp_path / "s")
    report = mlx.ingest([str(path)], store=store, workers=1)
    assert (report.raw, report.stored) == (2, 2)
    msgs = mlx.load(store).messages.set_index("message_id")
    assert "truncated" in msgs.loc["big@x", "defects"]
    assert msgs.loc["big@x", "body"] == "see attached"  # the CRLF before a boundary is its own
    assert msgs.loc["big@x", "attachments"][0]["content_type"] == "application/octet-stream"
    assert msgs.loc["after@x", "offset"] == len(write_mboxrd([big]))


def test_maildir_file_with_from_line(tmp_path: Path) -> None:
    maildir = tmp_path / "md"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "cur" / "1:2,S").write_bytes(b"From a@b Mon Jun  3 09:12:44 2019\n" + mail("m@x"))
    report = mlx.ingest([str(maildir)], store=str(tmp_path / "s"), workers=1)
    assert (report.stored, report.errors) == (1, 0)


IPERF_SUM = "[SUM]   0.00-10.00  sec  1.10 GBytes   943 Mbits/sec                  receiver\n"


def test_duplicates_across_chunks_are_dropped_with_their_rows(tmp_path: Path) -> None:
    # two files are two chunks: the copy in the second is dropped by the driver,
    # and so are the results rows its worker extracted
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x", IPERF_SUM), mail("2@x")]))
    (tmp_path / "b.mbox").write_bytes(write_mboxrd([mail("1@x", IPERF_SUM), mail("3@x")]))
    store = str(tmp_path / "s")
    report = mlx.ingest([str(tmp_path / "a.mbox"), str(tmp_path / "b.mbox")], store=store,
                        workers=2)
    assert (report.raw, report.stored, report.duplicates) == (4, 3, 1) and report.balanced
    archive = mlx.load(store)
    assert sorted(archive.messages.message_id) == ["1@x", "2@x", "3@x"]
    assert archive.results.message_id.tolist() == ["1@x"]


def test_staged_parts_of_a_crashed_run_are_not_read(tmp_path: Path) -> None:
    store = tmp_path / "s"
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    mlx.ingest([str(tmp_path / "a.mbox")], store=str(store), workers=1)
    # a run that died after its workers staged parts, before the driver took them
    stale = store / "staging" / "20260101T000000-dead00"
    stale.mkdir(parents=True)
    shutil.copy(next((store / "messages").glob("*.parquet")), stale / "x-messages.parquet")
    half = store / "messages" / "part-20260101T000000-dead00-c000001.parquet.tmp"
    half.write_bytes(b"PAR1 half a file")
    assert len(mlx.load(str(store)).messages) == 1
    (tmp_path / "b.mbox").write_bytes(write_mboxrd([mail("2@x")]))
    report = mlx.ingest([str(tmp_path / "b.mbox")], store=str(store), workers=1)
    assert report.stored == 1 and not (store / "staging").exists() and not half.exists()
    assert sorted(mlx.load(str(store)).messages.message_id) == ["1@x", "2@x"]


@pytest.mark.parametrize("url", ["memory://mlx-test-store", "file://{tmp}/s"])
def test_store_at_an_fsspec_url(tmp_path: Path, url: str) -> None:
    url = url.format(tmp=tmp_path)
    report = mlx.ingest([str(ROOT / "data")], store=url, workers=1 if "memory" in url else 2)
    assert report.stored == 6 and report.errors == 0
    plain = str(tmp_path / "plain")
    mlx.ingest([str(ROOT / "data")], store=plain, workers=1)
    by_url, by_path = mlx.load(url), mlx.load(plain)
    for name in ("messages", "results", "patches", "claims"):
        a, b = (getattr(arch, name).astype(str) for arch in (by_url, by_path))
        assert len(a) > 0, name
        key = [c for c in a.columns if c != "source"]  # the sources' paths are the same
        pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True),
                                      b.sort_values(key).reset_index(drop=True), obj=name)
    again = mlx.ingest([str(ROOT / "data")], store=url, workers=1)
    assert again.stored == 0 and again.unchanged > 0


def test_a_crash_between_a_chunks_parts_loses_and_doubles_nothing(tmp_path: Path,
                                                                  monkeypatch) -> None:
    from mlx.store import Store
    path = tmp_path / "a.mbox"
    path.write_bytes(write_mboxrd([mail("1@x", IPERF_SUM), mail("2@x")]))
    store = str(tmp_path / "s")
    real_take = Store.take

    def die_before_messages(self, staged, keep=None):  # type: ignore[no-untyped-def]
        self.ensure()
        self.fs.mv(staged["results"], self.path_of("results", f"part-{self.run}-c000001.parquet"))
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "take", die_before_messages)
    with pytest.raises(KeyboardInterrupt):
        mlx.ingest([str(path)], store=store, workers=1)
    assert mlx.load(store).results.empty  # the chunk's rows are not read half committed
    monkeypatch.setattr(Store, "take", real_take)
    report = mlx.ingest([str(path)], store=store, workers=1)
    assert (report.raw, report.stored) == (2, 2)
    archive = mlx.load(store)
    assert sorted(archive.messages.message_id) == ["1@x", "2@x"]
    assert archive.results.message_id.tolist() == ["1@x"]


def test_a_failed_link_pass_is_redone_by_the_next_run(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    store = str(tmp_path / "s")
    mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1)
    (tmp_path / "b.mbox").write_bytes(write_mboxrd([mail("2@x")]))

    def killed(path: str) -> dict[str, int]:
        raise MemoryError("the worker running the link pass was killed")

    monkeypatch.setattr("mlx.api.link_store", killed)
    with pytest.raises(MemoryError):
        mlx.ingest([str(tmp_path / "b.mbox")], store=store, workers=1)
    monkeypatch.undo()
    again = mlx.ingest([str(tmp_path / "b.mbox")], store=store, workers=1)
    assert again.stored == 0 and again.linked["threads"] == 2
    assert mlx.load(store).messages.thread_id.notna().all()


def test_a_link_pass_that_fails_keeps_the_messages_and_says_why(tmp_path: Path,
                                                                monkeypatch) -> None:
    """A fault of the whole link pass (no thread's isolation caught it) is an errors row
    of stage link; the run ends, the messages stay, the next run links; strict raises."""
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    store = str(tmp_path / "s")

    def broken(path: str) -> dict[str, int]:
        raise ValueError("a rule that fails on every store")

    monkeypatch.setattr("mlx.api.link_store", broken)
    report = mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1)
    assert report.stored == 1 and report.linked == {"link_errors": 1, "link_failed": 1}
    errors = mlx.load(store).errors
    assert errors[["stage", "concerns"]].values.tolist() == [["link", "the whole link pass"]]
    assert errors.reason.tolist() == ["ValueError: a rule that fails on every store"]
    with pytest.raises(ValueError):
        mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1, strict=True)
    monkeypatch.undo()
    again = mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1)
    assert again.stored == 0 and again.linked["threads"] == 1
    assert mlx.load(store).errors.empty  # the full pass replaced the link's errors


def test_store_under_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    assert mlx.ingest([str(tmp_path / "a.mbox")], store="~/s", workers=1).stored == 1
    assert len(mlx.load(str(tmp_path / "s")).messages) == 1


def test_nothing_to_read_still_makes_a_store(tmp_path: Path) -> None:
    import subprocess
    epoch = tmp_path / "0.git"
    subprocess.run(["git", "init", "-q", "--bare", str(epoch)], check=True)
    report = mlx.ingest([str(epoch)], store=str(tmp_path / "s"), workers=2)
    assert report.raw == 0 and mlx.load(str(tmp_path / "s")).messages.empty


def test_a_copy_of_a_stored_message_is_already_stored(tmp_path: Path) -> None:
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    store = str(tmp_path / "s")
    mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1)
    (tmp_path / "b.mbox").write_bytes(write_mboxrd([mail("1@x"), mail("1@x")]))
    report = mlx.ingest([str(tmp_path / "b.mbox")], store=store, workers=1)
    assert (report.raw, report.already, report.duplicates) == (2, 2, 0)


def test_a_chunk_of_copies_only_leaves_no_part_and_no_staging(tmp_path: Path) -> None:
    # an archive ingested twice (an mbox and its public-inbox epoch): every message of the
    # second is a copy, so its chunk's staged parts are dropped unread, no empty part stays
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x", IPERF_SUM), mail("2@x")]))
    (tmp_path / "b.mbox").write_bytes(write_mboxrd([mail("2@x"), mail("1@x", IPERF_SUM)]))
    store = tmp_path / "s"
    mlx.ingest([str(tmp_path / "a.mbox")], store=str(store), workers=1)
    def parts() -> list[str]:  # (the subjects' parses are a cache the link reads, kept)
        return sorted(str(p.relative_to(store)) for p in store.rglob("part-*.parquet")
                      if "subject_parses" not in str(p))
    before = parts()
    report = mlx.ingest([str(tmp_path / "b.mbox")], store=str(store), workers=1)
    assert (report.raw, report.stored, report.already) == (2, 0, 2) and report.balanced
    assert parts() == before and "messages" in " ".join(before)
    assert mlx.load(str(store)).results.message_id.tolist() == ["1@x"]


def _die_on_second(chunk):  # type: ignore[no-untyped-def]
    if chunk.start == 100:
        os._exit(9)  # as the kernel's OOM killer would
    time.sleep(0.2)
    return chunk


def test_a_worker_that_dies_is_one_clear_error() -> None:
    from mlx.engine.local import LocalEngine
    from mlx.ingest.chunks import MboxRange
    chunks = [MboxRange("/x/list.mbox", start, start + 100, None) for start in (0, 100, 200)]
    # the pool fails every chunk in flight: the one that killed its worker is among them
    with pytest.raises(MlxError, match=r"^a worker process died with (one of )?.*"
                                       r"/x/list.mbox bytes 100-200.* in flight "
                                       r"\(BrokenProcessPool"):
        with LocalEngine(2) as eng:
            list(eng.map(_die_on_second, chunks))


def test_stored_uids_come_from_the_link_and_the_parts_since(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    from mlx.schema import MESSAGES
    from mlx.store import Store
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x"), mail("2@x")]))
    (tmp_path / "b.mbox").write_bytes(write_mboxrd([mail("3@x")]))
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    mlx.ingest([str(tmp_path / "a.mbox")], store=one, workers=1)
    mlx.ingest([str(tmp_path / "b.mbox")], store=two, workers=1)
    # a part stored after the last link pass (as a run that died before its link leaves)
    (later,) = Store(two).part_paths("messages")
    shutil.copy(later, Path(one) / "messages" / "part-later-c000001.parquet")
    st = Store(one)
    every = set(st.read("messages", MESSAGES, ["uid"]).column("uid").to_pylist())
    assert len(every) == 3
    read = Store.read
    tables: list[str] = []
    monkeypatch.setattr(Store, "read", lambda self, table, *a, **k: (
        tables.append(table), read(self, table, *a, **k))[1])
    assert st.stored_uids() == every and "messages" not in tables  # no part read but one
    # a part the link pass read has changed: its uids come from the parts themselves
    (first,) = [p for p in Store(one).part_paths("messages") if "later" not in p]
    pq.write_table(pq.read_table(first).slice(0, 1), first)
    assert st.stored_uids() == set(read(st, "messages", MESSAGES, ["uid"]).column(
        "uid").to_pylist()) and "messages" in tables


def test_a_run_with_nothing_new_reads_no_stored_uid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlx.store import Store
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    store = str(tmp_path / "s")
    mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1)

    def unread(self: Store) -> set[str]:
        raise AssertionError("read the stored uids")
    monkeypatch.setattr(Store, "stored_uids", unread)
    report = mlx.ingest([str(tmp_path / "a.mbox")], store=store, workers=1)
    assert (report.raw, report.unchanged) == (0, 1)


WARMED: list[str] = []


def _warmed() -> list[str]:
    return WARMED


def test_the_pool_forks_after_the_warm_up_has_finished() -> None:
    import threading

    from mlx.engine.local import LocalEngine

    def slow() -> None:
        time.sleep(0.3)
        WARMED.append("built")
    WARMED.clear()
    warm = threading.Thread(target=slow)
    warm.start()
    with LocalEngine(2, warm) as eng:
        # the worker forked once the thread had finished: it holds what the thread built
        assert eng.call(_warmed) == ["built"]
    assert not warm.is_alive()


def test_headers_are_messages_without_bodies(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    mlx.ingest([str(ROOT / "data")], store=store, workers=1)
    headers = mlx.load(store).headers  # read without the bodies
    assert "body" not in headers.columns and {"thread_id", "patch_id"} <= set(headers.columns)
    messages = mlx.load(store).messages
    pd.testing.assert_frame_equal(headers, messages[list(headers.columns)])


def test_one_ingest_at_a_time(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys
    (tmp_path / "a.mbox").write_bytes(write_mboxrd([mail("1@x")]))
    store = tmp_path / "s"
    store.mkdir()
    lock = store / "ingest.lock"
    # a live ingest on this host (this very process stands in for it)
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                                "since": "2026-11-30T06:00:00Z"}))
    with pytest.raises(StoreError, match=r"another mlx ingest is writing this store \(pid "
                                         rf"{os.getpid()} .*remove .*ingest.lock if it died"):
        mlx.ingest([str(tmp_path / "a.mbox")], store=str(store), workers=1)
    # one that died: its lock is taken over, and released at the end
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": int(dead)}))
    assert mlx.ingest([str(tmp_path / "a.mbox")], store=str(store), workers=1).stored == 1
    assert not lock.exists()


def test_sql_and_stored_claims(tmp_path: Path) -> None:
    """SQL over the parts agrees with the frames; stored claims re-verdicted with another
    noise threshold equal claims paired afresh with it."""
    from mlx.analyse.claims import build_claims, claim_frames
    store = str(tmp_path / "s")
    mlx.ingest([str(ROOT / "data")], store=store, workers=1)
    archive = mlx.load(store)
    assert archive.sql("select count(*) as n from messages").n[0] == len(archive.messages)
    got = archive.sql("select tool, count(*) as n from results group by tool order by tool")
    want = archive.results.groupby("tool").size()
    assert dict(zip(got.tool, got.n, strict=True)) == want.to_dict()
    assert archive.sql("select count(*) as n from claims").n[0] == len(archive.claims)
    for noise in (0.001, 1.0, 50.0):
        stored = archive.claims_table(noise)
        fresh = build_claims(claim_frames(archive), noise)
        assert list(stored.verdict.astype(str)) == list(fresh.verdict.astype(str))
    with pytest.raises(MlxError, match="^SQL: "):
        archive.sql("select nope from results")
    with pytest.raises(MlxError, match=r"^SQL: .*nope.* \(tables: messages, errors, results, "
                                       r"hardware, statements, threads, patches, reports, "
                                       r"claims\)$"):
        archive.sql("select * from nope")
    with pytest.raises(MlxError, match=r"^SQL: [^(]*$"):  # no table list for a function
        archive.sql("select nope(1)")


def test_sql_sets_up_only_the_views_a_query_names(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A view binds by reading every part's footer: a query of the claims lists no part,
    one of the messages lists only theirs (and joins the link columns)."""
    store = str(tmp_path / "s")
    mlx.ingest([str(ROOT / "data")], store=store, workers=1)
    archive = mlx.load(store)
    n_claims, threaded = len(archive.claims), archive.headers.thread_id.notna().sum()
    listed: list[str] = []
    real = archive.store.part_paths

    def spy(table: str) -> list[str]:
        listed.append(table)
        return real(table)
    monkeypatch.setattr(archive.store, "part_paths", spy)
    assert archive.sql("SELECT count(*) AS n FROM Claims").n[0] == n_claims
    assert listed == []
    got = archive.sql("select count(thread_id) as n from messages")
    assert got.n[0] == threaded > 0
    assert listed == ["messages"]
    listed.clear()
    archive.sql("select count(*) from results r join statements s using (uid)")
    assert sorted(listed) == ["results", "statements"]
    # a query that names no table (how a user finds them) sees every view
    shown = set(archive.sql("SHOW TABLES").name)
    assert {"messages", "results", "claims", "threads", "patches"} <= shown


def test_no_duckdb_connection_outlives_its_query(tmp_path: Path) -> None:
    """A notebook queries a store, then ingests more: forked workers must inherit no DuckDB
    connection, since one that a worker's collector destroys crashes it (the link worker
    did, after `mlx sql`)."""
    import gc

    import duckdb
    store = str(tmp_path / "s")
    mlx.ingest([str(ROOT / "data" / "seeds")], store=store, workers=2)
    archive = mlx.load(store)
    assert archive.sql("select count(*) as n from messages").n[0] == 2
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, duckdb.DuckDBPyConnection)]
    report = mlx.ingest([str(ROOT / "data" / "sample.mboxrd")], store=store, workers=2)
    assert report.stored == 4 and archive.sql("select count(*) as n from messages").n[0] == 6


def test_an_in_process_ingest_leaves_the_callers_collector_alone(tmp_path: Path) -> None:
    """Workers freeze what their first chunk built; a caller's own process (a notebook,
    a user's Pool worker) does not get its heap frozen by an in-process ingest."""
    import gc
    import multiprocessing

    before = gc.get_freeze_count()
    mlx.ingest(str(ROOT / "data" / "sample.mboxrd"), store=str(tmp_path / "s"), workers=1)
    assert gc.get_freeze_count() == before
    with multiprocessing.get_context("fork").Pool(1) as pool:  # a user's own worker
        assert pool.apply(_ingest_and_count_freezes, (str(tmp_path / "p"),)) == 0


def _ingest_and_count_freezes(store: str) -> int:
    import gc
    before = gc.get_freeze_count()
    mlx.ingest(str(ROOT / "data" / "sample.mboxrd"), store=store, workers=1)
    return gc.get_freeze_count() - before


def test_an_extractor_raising_on_one_body_loses_only_its_rows(tmp_path: Path,
                                                              monkeypatch) -> None:
    """A bug that makes an extractor raise on one body keeps the message, marks it
    extract-failed and keeps every other message's rows; strict mode raises."""
    from mlx import pipeline
    real = pipeline.EXTRACTORS["hardware"]

    def flaky(body: str | None, subject: str | None) -> list:
        if body and "Tested on" in body:
            raise ValueError("boom")
        return real.fn(body, subject)
    monkeypatch.setitem(pipeline.EXTRACTORS, "hardware", pipeline.Extractor(
        real.name, real.table, real.schema, flaky))
    path = tmp_path / "a.mbox"
    path.write_bytes(write_mboxrd([
        mail("a@x", "Tested on my box: iperf3 gives 940 Mbits/sec.\n"),
        mail("b@x", "Client: RHEL9.2, CPU Intel E5-2620, NIC I350\n  941 Mbits/sec\n")]))
    mlx.ingest(str(path), store=str(tmp_path / "s"), workers=1)
    archive = mlx.load(str(tmp_path / "s"))
    defects = dict(zip(archive.messages.message_id, archive.messages.defects, strict=True))
    assert "extract-failed" in list(defects["a@x"]) and "extract-failed" not in list(defects["b@x"])
    assert len(archive.results[archive.results.message_id == "a@x"]) == 1  # its other rows
    assert len(archive.hardware) and set(archive.hardware.message_id) == {"b@x"}
    with pytest.raises(ValueError):
        mlx.ingest(str(path), store=str(tmp_path / "strict"), workers=1, strict=True)


def test_dask_frames_read_every_part_as_the_tables_schema(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """archive.dask gives the stored rows; a part an older mlx wrote without a column
    (the per-message counts) reads as nulls there instead of dropping the column; a
    column selection reads only those columns; a link table with deltas gives the live
    rows."""
    pytest.importorskip("dask.dataframe")
    import pyarrow as pa
    import pyarrow.parquet as pq
    from test_link_incremental import DATA, _ingest_in_batches, _messages

    import mlx.archive
    messages = _messages(DATA / "claims" / "shapes.mbox")
    cut = len(messages) * 9 // 10
    store = _ingest_in_batches(tmp_path, [messages[:cut], messages[cut:]]).path
    archive = mlx.load(str(store))
    results = archive.dask("results").compute(scheduler="sync")
    want = archive.table("results").drop(columns="patch_id")
    assert list(results.columns) == list(want.columns)
    assert sorted(results.uid) == sorted(want.uid) and len(results) > 0
    assert len(archive.store.link_gens()) == 1  # a delta in force
    threads = archive.dask("threads").compute(scheduler="sync")
    assert sorted(threads.thread_id) == sorted(archive.threads.thread_id)
    # the first part as an older mlx wrote it: no counts
    first = archive.store.part_paths("messages")[0]
    old = pq.read_table(first)
    pq.write_table(old.drop_columns(["n_results", "n_hardware", "n_statements"]), first)
    read: list[list[str]] = []
    real = mlx.archive.read_as

    def spy(fs: object, path: str, want: pa.Schema, uids: object = None) -> pa.Table:
        read.append(want.names)
        return real(fs, path, want, uids)
    archive = mlx.load(str(store))
    frame = archive.dask("messages")
    assert "n_results" in frame.columns
    monkeypatch.setattr(mlx.archive, "read_as", spy)
    counts = frame[["uid", "n_results"]].compute(scheduler="sync")
    assert read and all(names == ["uid", "n_results"] for names in read)
    assert len(counts) == len(archive.headers)
    assert counts.n_results.isna().sum() == old.num_rows
    with pytest.raises(MlxError, match="no table 'nope'"):
        archive.dask("nope")
