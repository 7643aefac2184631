"""The HTML report: every claim in one table that sorts and filters, a page per patch.

``index.html`` holds the claims as JSON in a ``<script type="application/json">`` block
(every ``<`` escaped) and a small plain script that builds the table from it with
``textContent`` only, sorts it by any column, and filters it as you type (free text over
patch, list, author, test and verdict; verdict; kind; a minimum |delta|).  The filter
lives in the URL (``index.html#q=wireguard&verdict=improvement&min=5``), and rows that do
not match carry the ``hidden`` attribute.  No CDN, no network: it works from ``file://``.

``patches/<patch_id>.html`` is static: the patch's versions and series, each claim with
both values and labels, the source lines it came from (an excerpt of the message with
line numbers, escaped), author, date, the setup hardware, a link to the message on its
archive, and the patch's plot.  Every string that comes from mail is escaped, and only
``http(s)://`` URLs become links.
"""

from __future__ import annotations

import html
import json
import math
import numbers
import os
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

import pandas as pd

from mlx.analyse.repeats import missing, version_span

# lists lore.kernel.org carries, by List-Id: <netdev.vger.kernel.org> -> netdev
LORE_LIST = re.compile(r"^([a-z0-9][a-z0-9._+-]*)\.(?:vger\.kernel\.org|lists\.infradead\.org|"
                       r"lists\.linux\.dev|lists\.openwrt\.org|lists\.ozlabs\.org|"
                       r"lists\.zx2c4\.com)$", re.I)
WEB = re.compile(r"^https?://[^\s<>\"'`]+$", re.I)
EXCERPT_BEFORE, EXCERPT_AFTER = 4, 1  # body lines shown around a claim's source lines
MESSAGE_COLUMNS = ["uid", "message_id", "list_id", "archived_at", "list_archive", "body",
                   "from_name", "from_addr", "date", "subject"]
# the index table: key, heading, numeric
COLUMNS = [("patch", "patch", False), ("versions", "versions", False), ("list", "list", False),
           ("author", "author", False), ("date", "date", False), ("kind", "kind", False),
           ("test", "test", False),
           ("baseline", "baseline", True), ("patched", "patched", True),
           ("unit", "unit", False), ("delta", "delta %", True), ("verdict", "verdict", False),
           ("hardware", "hardware", False)]


def is_web(url: Any) -> bool:
    return isinstance(url, str) and bool(WEB.match(url))


def message_url(message_id: Any, list_id: Any, archived_at: Any = None,
                list_archive: Any = None) -> str | None:
    """Where a reader finds the message: its ``Archived-At``, else lore for lists lore
    carries, else the list's ``List-Archive``."""
    if is_web(archived_at):
        return str(archived_at)
    if isinstance(message_id, str) and isinstance(list_id, str) and (
            m := LORE_LIST.match(list_id)):
        mid = urllib.parse.quote(message_id, safe="@+=~!$&*.-_")
        return f"https://lore.kernel.org/{m.group(1).lower()}/{mid}/"
    return str(list_archive) if is_web(list_archive) else None


def _e(value: Any) -> str:
    if missing(value):
        return ""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.4f}".rstrip("0").rstrip(".") if abs(value) < 1e15 else f"{value:.3e}"
    return html.escape(str(value), quote=True)


def _plain(value: Any) -> Any:
    """A JSON-safe cell: None for NA, numbers as numbers, the rest as text."""
    if missing(value):
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d")
    return str(value)


def _link(url: str | None, text: str) -> str:
    return f'<a href="{_e(url)}">{text}</a>' if is_web(url) else text


STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px;color:#222}
table{border-collapse:collapse;font-size:13px;width:100%}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}
th button{font:inherit;font-weight:bold;background:none;border:0;cursor:pointer;padding:0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.improvement{color:#0072B2;font-weight:bold}.regression{color:#D55E00;font-weight:bold}
.no-change{color:#555}
pre{background:#f6f6f6;padding:6px;overflow-x:auto;font-size:12px}
mark{background:#ffe08a}img{max-width:100%}figure{margin:1em 0}
form{display:flex;gap:1em;flex-wrap:wrap;align-items:end;margin:1em 0}
label{display:flex;flex-direction:column;font-size:12px}"""

SCRIPT = r"""(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("claims-data").textContent);
  var cols = JSON.parse(document.getElementById("claims-columns").textContent);
  var table = document.getElementById("claims");
  var head = table.createTHead().insertRow();
  var body = table.createTBody();
  var sortKey = "delta", sortUp = false;
  cols.forEach(function (c) {
    var th = document.createElement("th");
    var b = document.createElement("button");
    b.type = "button"; b.textContent = c[1]; b.dataset.key = c[0];
    b.addEventListener("click", function () {
      sortUp = sortKey === c[0] ? !sortUp : true; sortKey = c[0]; sort();
    });
    th.appendChild(b); head.appendChild(th);
  });
  function safe(url) {
    return typeof url === "string" && /^(https?:\/\/|patches\/|messages\/)/i.test(url);
  }
  var rows = data.map(function (d) {
    var tr = document.createElement("tr");
    cols.forEach(function (c) {
      var td = tr.insertCell(), v = d[c[0]];
      var text = v === null || v === undefined ? "" : !c[2] ? String(v) :
        c[0] === "delta" ? (v > 0 ? "+" : "") + v.toFixed(1) : String(+v.toPrecision(6));
      if (c[0] === "delta" && text && d.kind !== "measured") text += " stated";
      if (c[2]) td.className = "num";
      if (c[0] === "verdict" && v) td.className = v;
      var url = c[0] === "patch" ? d.patch_url : (c[0] === "date" ? d.message_url : null);
      if (safe(url) && text) {
        var a = document.createElement("a"); a.href = url; a.textContent = text; td.appendChild(a);
      } else { td.textContent = text; }
      if (c[0] === "baseline" || c[0] === "patched") td.title = d[c[0] + "_label"] || "";
    });
    tr.dataset.text = [d.patch, d.list, d.author, d.test, d.metric, d.verdict, d.kind,
                       d.baseline_label, d.patched_label, d.statement]
      .filter(Boolean).join(" ").toLowerCase();
    tr.dataset.verdict = d.verdict || ""; tr.dataset.kind = d.kind || "";
    tr.dataset.delta = d.delta === null ? "" : String(Math.abs(d.delta));
    tr._d = d; body.appendChild(tr); return tr;
  });
  var form = document.getElementById("filters");
  var fields = ["q", "verdict", "kind", "min"];
  function params() {
    var p = new URLSearchParams();
    fields.forEach(function (f) { var v = form.elements[f].value.trim(); if (v) p.set(f, v); });
    return p;
  }
  function apply() {
    var q = form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var verdict = form.elements.verdict.value, kind = form.elements.kind.value;
    var min = parseFloat(form.elements.min.value);
    var shown = 0;
    rows.forEach(function (tr) {
      var ok = q.every(function (w) { return tr.dataset.text.indexOf(w) >= 0; }) &&
        (!verdict || tr.dataset.verdict === verdict) && (!kind || tr.dataset.kind === kind) &&
        (isNaN(min) || (tr.dataset.delta !== "" && parseFloat(tr.dataset.delta) >= min));
      tr.hidden = !ok; if (ok) shown++;
    });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " claims shown";
  }
  function sort() {
    var c = cols.filter(function (x) { return x[0] === sortKey; })[0];
    rows.sort(function (a, b) {
      var x = a._d[sortKey], y = b._d[sortKey];
      if (sortKey === "delta") {
        x = x === null ? null : Math.abs(x); y = y === null ? null : Math.abs(y);
      }
      var nx = x === null || x === undefined, ny = y === null || y === undefined;
      if (nx || ny) return nx === ny ? 0 : (nx ? 1 : -1);
      var r = c[2] ? x - y : String(x).localeCompare(String(y));
      return sortUp ? r : -r;
    });
    rows.forEach(function (tr) { body.appendChild(tr); });
  }
  function fromHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    fields.forEach(function (f) { form.elements[f].value = p.get(f) || ""; });
    apply();
  }
  form.addEventListener("input", function () {
    history.replaceState(null, "", "#" + params().toString()); apply();
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  window.addEventListener("hashchange", fromHash);
  sort(); fromHash();
  table.dataset.ready = "1";
})();"""


def _json_block(element_id: str, value: Any) -> str:
    """JSON inside a script element that no message text can close or comment out."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _page(title: str, body: str) -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>\n{body}\n"
            f"</body></html>\n")


def build(archive: Any, out: str, progress: Callable[[int], None] | None = None) -> str:
    """Write the report's pages and plots under ``out``; returns the index path."""
    from mlx.report import plots
    claims = archive.claims.copy()
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    os.makedirs(os.path.join(out, "patches"), exist_ok=True)
    frame = archive.headers_of(set(claims.uid.dropna()), MESSAGE_COLUMNS) if len(claims) \
        else pd.DataFrame(columns=MESSAGE_COLUMNS)
    # each cited message as a record, looked up by uid (a frame's .loc per claim costs more
    # than the page it feeds)
    msgs = dict(zip(frame.uid, frame.itertuples(index=False), strict=True))
    cited = [msgs.get(u) for u in claims.uid]
    claims["list"] = [m.list_id if m is not None else None for m in cited]
    claims["message_url"] = [
        message_url(mid, m.list_id, m.archived_at, m.list_archive) if m is not None else
        message_url(mid, None) for mid, m in zip(claims.message_id, cited, strict=True)]
    pages = sorted(p for p in claims.patch_id.dropna().unique() if re.fullmatch(r"\w+", p))
    paged = set(pages)
    claims["patch_url"] = claims.patch_id.map(
        lambda p: f"patches/{p}.html" if isinstance(p, str) and p in paged else None)
    figures = {"deltas.png": plots.delta_histogram(claims),
               "hardware.png": plots.hardware_mix(archive.hardware)}
    lists = sorted(x for x in claims.list.dropna().unique()) if len(claims) else []
    for i, name in enumerate(lists or [None]):
        sel = claims if name is None else claims[claims.list == name]
        figures[f"over-time-{i + 1}.png"] = plots.claims_over_time(
            sel, title=f"Claims over time: {name}" if name else "Claims over time")
    for name, fig in figures.items():
        fig.savefig(os.path.join(out, "plots", name), dpi=100)
    os.makedirs(os.path.join(out, "messages"), exist_ok=True)
    for uid, m in msgs.items():
        _message_page(out, str(uid), m)
    hardware = archive.hardware
    if "role" in hardware.columns:
        hardware = hardware[hardware.role.fillna("setup") == "setup"]
    setup = {uid: rows for uid, rows in hardware[hardware.uid.isin(set(claims.uid))]
             .groupby("uid")}
    patches = archive.patches  # (grouped only where a page reads them: 66,000 groups cost 18 s)
    mine = patches[patches.patch_id.isin(paged)]
    by_patch = dict(list(mine.groupby("patch_id")))
    by_series = dict(list(patches[patches.series_id.isin(set(mine.series_id.dropna()))]
                          .groupby("series_id")))
    for pid, mine in claims[claims.patch_id.isin(paged)].groupby("patch_id"):
        me = by_patch.get(pid)
        series = by_series.get(me.series_id.iloc[0]) if me is not None else None
        _patch_page(out, str(pid), mine, series, msgs, setup)
        if progress:
            progress(1)
    return _index(out, archive, claims, figures)


def _index(out: str, archive: Any, claims: pd.DataFrame, figures: dict[str, Any]) -> str:
    if "repeat_of" in claims.columns:  # one row per distinct claim, its versions listed
        claims = claims[claims.repeat_of.isna()]
    rows = [{"patch": _plain(r.title) or _plain(r.patch_id) or "",
             "versions": version_span(getattr(r, "versions", None)) or None,
             "patch_url": _plain(r.patch_url),
             "list": _plain(r.list), "author": _plain(r.author), "date": _plain(r.date),
             "message_url": _plain(r.message_url) or _local(r.uid, r.patched_line_no),
             "kind": _plain(r.kind),
             "test": " / ".join(str(x) for x in (r.test, r.metric, r.side) if _plain(x)) or None,
             "metric": _plain(r.metric), "baseline": _plain(r.baseline_value),
             "baseline_label": _plain(r.baseline_label), "patched": _plain(r.patched_value),
             "patched_label": _plain(r.patched_label), "unit": _plain(r.unit_norm),
             "delta": _plain(r.delta_pct if _plain(r.delta_pct) is not None
                             else r.stated_pct), "verdict": _plain(r.verdict),
             "hardware": _plain(r.hardware), "statement": _plain(r.statement)}
            for r in claims.itertuples()]
    # from the Parquet footers, as `mlx info` counts: no table is read for its size
    counts = {n: archive.store.row_count(n) for n in ("messages", "threads", "patches",
                                                      "results", "hardware", "claims")}
    verdicts = sorted(claims.verdict.dropna().unique()) if len(claims) else []
    kinds = sorted(claims.kind.dropna().unique()) if len(claims) else []
    options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in verdicts)
    kind_options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in kinds)
    images = "\n".join(f'<figure><img src="plots/{_e(n)}" alt="{_e(n)}"></figure>'
                       for n in figures)
    body = f"""<h1>mlx report</h1>
<p>{", ".join(f"{_e(v)} {_e(k)}" for k, v in counts.items())}.
One row per distinct claim: a claim re-posted in later versions of its series is listed
once, with the versions that carry it. The claims, and the results and hardware of the
messages they cite, as CSV in <a href="tables/">tables/</a> (every table: <code>mlx
export</code>). Click a patch for its page: the claim's values, labels and the lines of
the message they came from.</p>
<h2>Claims</h2>
<form id="filters" role="search">
<label>text (patch, list, author, test, verdict)<input name="q" type="search" size="30"></label>
<label>verdict<select name="verdict"><option value="">any</option>{options}</select></label>
<label>kind<select name="kind"><option value="">any</option>{kind_options}</select></label>
<label>minimum |delta| %<input name="min" type="number" min="0" step="any" size="6"></label>
<output id="shown" aria-live="polite"></output>
</form>
<table id="claims"></table>
<noscript><p>The claims table needs JavaScript; tables/claims.csv has the same rows.</p>
</noscript>
{_json_block("claims-data", rows)}
{_json_block("claims-columns", COLUMNS)}
<script>{SCRIPT}</script>
<h2>Plots</h2>
{images}"""
    index = os.path.join(out, "index.html")
    with open(index, "w", encoding="utf-8") as fh:
        fh.write(_page("mlx report", body))
    return index


def _message_page(out: str, uid: str, m: Any) -> None:
    """One message as it was stored: headers, and the body with an anchor per line."""
    url = message_url(m.message_id, m.list_id, m.archived_at, m.list_archive)
    lines = (m.body if isinstance(m.body, str) else "").split("\n")
    body = "\n".join(f'<span id="L{n}">{n:>5}  {_e(t)}</span>' for n, t in
                     enumerate(lines, 1))
    when = m.date.strftime("%Y-%m-%d %H:%M UTC") if pd.notna(m.date) else ""
    head = (f"<h1>{_e(m.subject)}</h1><p>From {_e(m.from_name)} &lt;{_e(m.from_addr)}&gt;, "
            f"{_e(when)}<br>Message-ID {_e(m.message_id)}<br>list {_e(m.list_id)}"
            + (f'<br>{_link(url, "on its archive")}' if url else "") + "</p>")
    with open(os.path.join(out, "messages", f"{uid}.html"), "w", encoding="utf-8") as fh:
        fh.write(_page(str(m.subject or uid), f"{head}<pre>{body}</pre>"))


def _local(uid: Any, line: Any = None) -> str | None:
    """The report's own page of a message (``messages/<uid>.html``, ``#L<n>``)."""
    if not isinstance(uid, str) or not re.fullmatch(r"\w+", uid):
        return None
    return f"messages/{uid}.html" + (f"#L{int(line)}" if _plain(line) else "")


def _excerpt(body: Any, lines: list[int]) -> str:
    """Body lines around ``lines`` (1-based), numbered, the claim's own marked."""
    if not isinstance(body, str) or not lines:
        return ""
    text = body.split("\n")
    lo = max(1, min(lines) - EXCERPT_BEFORE)
    hi = min(len(text), max(lines) + EXCERPT_AFTER)
    if lo > hi or not any(lo <= n <= hi for n in lines):
        return ""  # lines past the body's end: the claim's own lines are shown instead
    out = []
    for n in range(lo, hi + 1):
        line = _e(text[n - 1]) if n - 1 < len(text) else ""
        out.append(f"{n:>5}  " + (f"<mark>{line}</mark>" if n in lines else line))
    return "<pre>" + "\n".join(out) + "</pre>"


def _claim_section(r: Any, msgs: dict[Any, Any], setup_of: dict[Any, pd.DataFrame]) -> str:
    """A claim's section of its patch page: what it measured, its values or sentence, who
    said it when, its setup, and the message lines it came from."""
    m = msgs.get(r.uid)
    lines = [int(x) for x in (r.baseline_line_no, r.patched_line_no) if _plain(x)]
    source = _excerpt(m.body if m is not None else None, sorted(set(lines)))
    if not source:
        source = "<pre>" + "\n".join(_e(x) for x in (r.baseline_line, r.patched_line)
                                     if _plain(x)) + "</pre>"
    when = r.date.strftime("%Y-%m-%d %H:%M UTC") if pd.notna(r.date) else ""
    what = " / ".join(_e(x) for x in (r.tool, r.test, r.metric, r.side, r.section, r.config)
                      if _plain(x))
    if r.kind == "measured":
        values = (f"<p>baseline <q>{_e(r.baseline_label)}</q>: <b>{_e(r.baseline_value)}"
                  f"</b> &rarr; patched <q>{_e(r.patched_label)}</q>: "
                  f"<b>{_e(r.patched_value)}</b> {_e(r.unit_norm)} "
                  f"(<span class=\"{_e(r.verdict)}\">{_e(f'{r.delta_pct:+.1f}%')} "
                  f"{_e(r.verdict)}</span>)</p>")
    else:
        values = (f"<p><q>{_e(r.statement)}</q> &mdash; <span class=\"{_e(r.verdict)}\">"
                  f"{_e(r.verdict)}</span>"
                  + (f", stated {_e(r.stated_pct)}%" if _plain(r.stated_pct) else "")
                  + "</p>")
    setup = setup_of.get(r.uid)
    hw = (", ".join(f"{_e(h.kind)}: {_e(h.text)}" for h in setup.itertuples())
          if setup is not None else "") or _e(r.hardware) or "none named"
    local = _local(r.uid)
    line_links = ", ".join(f'<a href="../{_e(_local(r.uid, n))}">line {n}</a>'
                           for n in sorted(set(lines))) if local else ""
    return (
        f"<section><h3>{_e(r.kind)} claim{': ' + what if what else ''}</h3>{values}"
        f"<p>by {_e(r.author)}, {_e(when)} &middot; "
        + (f'<a href="../{_e(local)}">the message</a>' if local else "")
        + (f" ({line_links})" if line_links else "")
        + (f" &middot; {_link(r.message_url, 'on its archive')}" if r.message_url else "")
        + f" &middot; Message-ID {_e(r.message_id)}</p>"
        f"<p>setup: {hw}</p>{source}</section>")


def _patch_page(out: str, pid: str, claims: pd.DataFrame, series: pd.DataFrame | None,
                msgs: dict[Any, Any], setup_of: dict[Any, pd.DataFrame]) -> None:
    from mlx.report import plots
    first = claims.iloc[0]
    title = _plain(first.title) or pid
    series = series if series is not None else pd.DataFrame(
        columns=["version", "version_minor", "title", "date", "from_addr", "patch_id", "part",
                 "posting_id"])
    # one line per posting (its cover, else its first part), this patch's marked
    size = series.groupby("posting_id").size() if len(series) else pd.Series(dtype=int)
    mine = set(series.loc[series.patch_id == pid, "posting_id"])
    heads = series[series.patch_id == series.posting_id]
    versions = "".join(
        f"<li>v{_e(r.version)}{'.' + _e(r.version_minor) if _plain(r.version_minor) else ''}"
        f" {_e(r.title)} ({_e(r.date.strftime('%Y-%m-%d') if pd.notna(r.date) else '')}, "
        f"{_e(r.from_addr)}, {int(size.get(r.posting_id, 1))} "
        f"{'message' if int(size.get(r.posting_id, 1)) == 1 else 'messages'})"
        f"{' <strong>this posting</strong>' if r.posting_id in mine else ''}</li>"
        for r in heads.sort_values(["date", "part"], na_position="last").itertuples())
    sections = [_claim_section(r, msgs, setup_of) for r in claims.itertuples()]
    plot = ""
    if (claims.kind == "measured").any():  # (prose claims have no values to plot)
        fig = plots.patch_bars(claims, pid)
        fig.savefig(os.path.join(out, "patches", f"{pid}.png"), dpi=100)
        plot = (f'<h2>Plot</h2><figure><img src="{_e(pid)}.png" alt="baseline and patched '
                f'values"></figure>')
    body = (f'<p><a href="../index.html">&larr; all claims</a></p><h1>{_e(title)}</h1>'
            f"<p>patch_id {_e(pid)}</p><h2>Versions and series</h2>"
            f"<ul>{versions or '<li>not in the archive (named by the replies)</li>'}</ul>"
            f"<h2>Claims</h2>{''.join(sections)}{plot}")
    with open(os.path.join(out, "patches", f"{pid}.html"), "w", encoding="utf-8") as fh:
        fh.write(_page(str(title), body))
