"""The report in a real browser: headless Chromium (Debian's ``chromium``) renders the
index and a patch page with ``--dump-dom``, after the page's script ran.

Skipped when no Chromium is installed, unless ``MLX_REQUIRE_BROWSER`` is set (``.ci/run``
installs Chromium and sets it, so CI never skips this silently)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mlx
from mlx.ingest.split import write_mboxrd
from mlx.report.export import report

ROOT = Path(__file__).resolve().parent.parent
BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(b)), None)
if BROWSER is None and os.environ.get("MLX_REQUIRE_BROWSER"):
    raise RuntimeError("MLX_REQUIRE_BROWSER is set but no chromium is installed")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="chromium not installed")

# a hostile message: markup in headers and body, javascript: archive URLs
HOSTILE = (b'From: "<b>Eve</b>" <eve@example.org>\n'
           b"Subject: [PATCH] evil: <script>alert(1)</script> \"><img src=x onerror=alert(2)>\n"
           b"Message-ID: <hostile@example.org>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
           b"List-Id: <evil.example.org>\nArchived-At: <javascript:alert(3)>\n"
           b"List-Archive: <javascript:alert(4)>\n\n"
           b"Before patch: \"><img src=x onerror=alert(5)>\n"
           b"=== 1in1 TCP_STREAM: 100.00 Mbits/sec ===\n"
           b"After patch: <script>alert(6)</script>\n"
           b"=== 1in1 TCP_STREAM: 150.00 Mbits/sec ===\n"
           b"Signed-off-by: Eve <eve@example.org>\n---\n"
           b"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n")


def dump(url: str) -> str:
    out = subprocess.run([str(BROWSER), "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=5000", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    (tmp / "h.mbox").write_bytes(write_mboxrd([HOSTILE]))
    store = str(tmp / "s")
    mlx.ingest([str(ROOT / "data"), str(tmp / "h.mbox")], store=store, workers=1)
    report(mlx.load(store), str(tmp / "r"))
    return tmp / "r"


def rows(dom: str) -> list[str]:
    body = dom[dom.index("<tbody>"):dom.index("</tbody>")]
    return re.findall(r"<tr\b[^>]*>.*?</tr>", body, re.S)


def test_the_script_builds_the_claims_table(site: Path) -> None:
    dom = dump((site / "index.html").as_uri())
    assert 'id="claims" data-ready="1"' in dom
    claims = mlx.load(str(site.parent / "s")).claims
    got = rows(dom)
    assert len(got) == len(claims) > 10
    assert f"{len(claims)} of {len(claims)} claims shown" in dom
    assert not [r for r in got if "hidden" in r.split(">", 1)[0]]


def test_a_filter_in_the_url_hides_the_other_rows(site: Path) -> None:
    dom = dump((site / "index.html").as_uri() + "#q=wireguard%20dev_stats")
    got = rows(dom)
    shown = [r for r in got if "hidden" not in r.split(">", 1)[0]]
    # seed 000: the eight claims of "wireguard: use DEV_STATS_INC()" (every word matches)
    assert len(shown) == 8 and all("DEV_STATS_INC" in r for r in shown)
    assert f"8 of {len(got)} claims shown" in dom
    # "wireguard" alone also matches seed 002's list, wireguard.lists.zx2c4.com
    dom = dump((site / "index.html").as_uri() + "#q=wireguard")
    assert f"11 of {len(got)} claims shown" in dom
    dom = dump((site / "index.html").as_uri() + "#verdict=improvement&min=50")
    shown = [r for r in rows(dom) if "hidden" not in r.split(">", 1)[0]]
    assert shown and all("improvement" in r for r in shown)


def test_seed_claims_link_to_their_message_and_lines(site: Path) -> None:
    claims = mlx.load(str(site.parent / "s")).claims
    for title, n in (("wireguard: use DEV_STATS_INC()", 8),
                     ("receive: use gro call instead of plain call", 2)):
        mine = claims[(claims.title == title) & (claims.kind == "measured")]
        assert len(mine) == n
        page = site / "patches" / f"{mine.patch_id.iloc[0]}.html"
        dom = dump(page.as_uri())
        sections = re.findall(r"<section>.*?</section>", dom, re.S)
        measured = [s for s in sections if "measured claim" in s]
        assert len(measured) == n
        for s in measured:
            assert re.search(r'href="\.\./messages/\w+\.html"', s)  # its message
            assert re.search(r'href="\.\./messages/\w+\.html#L\d+"', s)  # its lines
            assert "<mark>" in s  # the source lines, marked in the excerpt
        target = re.search(r'href="\.\./(messages/\w+\.html)#L(\d+)"', measured[0])
        assert target is not None
        message = (site / target.group(1)).read_text()
        assert f'id="L{target.group(2)}"' in message


def test_hostile_mail_is_no_live_markup(site: Path) -> None:
    for page in [site / "index.html", *(site / "patches").glob("*.html"),
                 *(site / "messages").glob("*.html")]:
        dom = dump(page.as_uri())
        assert not re.search(r"<img[^>]*onerror", dom), page
        assert "<b>Eve" not in dom, page
        assert not re.search(r'href="\s*javascript:', dom, re.I), page
        assert not re.search(r"<script>\s*alert", dom), page
    evil = next(p for p in (site / "messages").glob("*.html")
                if "hostile@example.org" in p.read_text())
    dom = dump(evil.as_uri())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "on its archive" not in dom  # no javascript: archive link at all
