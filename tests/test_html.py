"""`--format=html` and `--output`: one self-contained page, workload text kept as text,
size budgets, and the flags' errors. (tests/test_html_browser.py opens the pages.)"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from pathways_workload.render.html.escape import script_json
from pathways_workload.render.html.triage import triage_page
from pathways_workload.timestamps import parse_timestamp_ns
from tests.corpus.large import export
from tests.helpers import container_entry, node_event, run_cli
from tests.html_report import (
    HOSTILE,
    LONG_TAIL,
    hostile_export,
    long_root_cause_report,
    report_data,
    structure,
    write_report,
)
from tests.test_incidents import INCIDENTS, NAMES, expected, target_args
from tests.test_survived import HEALTHY, RETRY, _line

CONSOLE = "https://console.cloud.google.com/logs/query;"


@pytest.mark.parametrize("name", NAMES)
def test_every_incident_gives_one_self_contained_page_under_a_megabyte(
    name: str, tmp_path: Path
) -> None:
    path, err = write_report(tmp_path, name)
    page = path.read_text(encoding="utf-8")
    assert len(page.encode()) < 1_000_000
    assert err.splitlines()[-1] == f"report written to {path}"
    parsed = structure(page)
    assert not parsed.tags("link") and not parsed.tags("img") and not parsed.tags("iframe")
    assert all("src" not in attrs for _, attrs in parsed.elements)
    for _, attrs in parsed.elements:
        href = attrs.get("href")
        assert href is None or href.startswith(("#s-", CONSOLE)), href
    assert [attrs.get("type") for attrs in parsed.tags("script")] == ["application/json", None]


def test_the_policy_allows_only_the_page_script_and_no_network(tmp_path: Path) -> None:
    path, _ = write_report(tmp_path, "lost-connection-to-peer")
    parsed = structure(path.read_text(encoding="utf-8"))
    (policy,) = [a["content"] for a in parsed.tags("meta") if a.get("http-equiv")]
    assert policy is not None and "default-src 'none'" in policy
    digest = hashlib.sha256(parsed.scripts[-1].encode()).digest()
    assert f"script-src 'sha256-{base64.b64encode(digest).decode()}'" in policy


def test_the_page_holds_the_root_cause_tables_and_a_lane_per_host(tmp_path: Path) -> None:
    planted = expected("lost-connection-to-peer")
    path, _ = write_report(tmp_path, "lost-connection-to-peer")
    page = path.read_text(encoding="utf-8")
    parsed = structure(page)
    hosts = [a for _, a in parsed.elements if str(a.get("data-lane", "")).startswith("host/")]
    assert len(hosts) == len({(h["slice"], h["host"]) for h in planted["failing_hosts"]}) == 6
    (root,) = [attrs for _, attrs in parsed.elements if attrs.get("id") == "root-mark"]
    assert "k-root" in str(root["class"])
    assert planted["root_cause"]["message_contains"] in "".join(parsed.text)
    for table in ("hosts-table", "checks-table"):
        assert any(attrs.get("id") == table for _, attrs in parsed.elements)
    copies = [a for a in parsed.tags("button") if "copy" in str(a.get("class"))]
    links = [a for a in parsed.tags("a") if str(a.get("href")).startswith(CONSOLE)]
    checks = json.loads(
        run_cli(*target_args("lost-connection-to-peer", True), "--action=triage", "--format=json")[
            1
        ]
    )["checks"]
    assert len(copies) == len(links) == len(checks)
    assert report_data(page)["root_cause"]["timestamp"] == planted["root_cause"]["timestamp"]


@pytest.mark.parametrize("name", ["megascale-hang-detected", "topology-mismatch"])
def test_the_page_names_the_lead_and_the_lowest_failing_host(name: str, tmp_path: Path) -> None:
    """As the text report does: here the lead (the host that failed first) is not the root
    cause's host, and only the lead line says which host to look at."""
    hosts = expected(name)["failing_hosts"]
    lowest = min(hosts, key=lambda h: (int(h["slice"]), int(h["host"])))
    path, _ = write_report(tmp_path, name)
    shown = " ".join(structure(path.read_text(encoding="utf-8")).text)
    assert f"Lead: {hosts[0]['pod']}" in shown
    assert f"lowest index: {lowest['pod']}" in shown


@pytest.mark.parametrize("action", ["triage", "errors"])
def test_workload_text_stays_text(action: str, tmp_path: Path) -> None:
    logs = hostile_export(tmp_path)
    out = tmp_path / "report.html"
    code, _, err = run_cli(
        f"--logs_file={logs}",
        "--jobset_name=llama-train",
        f"--action={action}",
        "--format=html",
        f"--output={out}",
    )
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    parsed = structure(page)
    assert len(parsed.tags("script")) == 2
    assert not parsed.tags("img") and not [
        t for t, _ in parsed.elements if t == "svg" and _.get("onload")
    ]
    assert not any(key.startswith("on") for _, attrs in parsed.elements for key in attrs)
    shown = "".join(parsed.text)
    for line in HOSTILE:
        assert line.split("\u2028")[0] in shown
    assert "\u2028" not in parsed.scripts[0] and "</" not in parsed.scripts[0]
    if action == "triage":
        assert report_data(page)["root_cause"]["message"] in HOSTILE


@pytest.mark.parametrize("action", ["triage", "errors"])
def test_bidirectional_controls_are_shown_not_obeyed(action: str, tmp_path: Path) -> None:
    """A right-to-left override in a line would show it reordered (`evil` reads `live`):
    the page shows it as `\\u202e`, as the text report does."""
    line = "Check failed: device \u202eevil\u202c busy \x1b[31m\r\n"
    logs = tmp_path / "bidi.json"
    logs.write_text(json.dumps([container_entry(line, pod="llama-train-worker-0-0-\u202eab")]))
    out = tmp_path / "report.html"
    code, _, err = run_cli(
        f"--logs_file={logs}",
        "--jobset_name=llama-train",
        f"--action={action}",
        "--format=html",
        f"--output={out}",
    )
    assert code == 0, err
    shown = "".join(structure(out.read_text(encoding="utf-8")).text)
    assert "Check failed: device \\u202eevil\\u202c busy \\x1b[31m" in shown
    assert "llama-train-worker-0-0-\\u202eab" in shown
    assert not re.search("[\u202a-\u202e\u2066-\u2069\x1b\r]", shown) and "\\x0d" not in shown


def test_script_json_cannot_end_a_script_and_reads_back() -> None:
    value = {"line": "</script><!-- \u2028\u2029 & <b>", "n": [1, "x"]}
    encoded = script_json(value)
    assert not re.search("[<>&\u2028\u2029]", encoded)
    assert json.loads(encoded) == value


def test_the_1024_host_report_is_collapsed_per_slice_and_under_five_megabytes(
    tmp_path: Path,
) -> None:
    path, planted = export("cascade-1024")
    out = tmp_path / "big.html"
    code, _, err = run_cli(
        f"--logs_file={path}",
        *planted.target(),
        "--action=triage",
        "--format=html",
        f"--output={out}",
    )
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert len(page.encode()) < 5_000_000
    parsed = structure(page)
    slices = [
        a for a in parsed.tags("details") if str(a.get("data-group", "")).startswith("slice/")
    ]
    assert len(slices) == 16 and all("open" not in a for a in slices)
    hosts = [a for _, a in parsed.elements if str(a.get("data-lane", "")).startswith("host/")]
    assert len(hosts) == 1024
    assert [a for _, a in parsed.elements if a.get("id") == "root-mark"]
    lane = [a for _, a in parsed.elements if a.get("data-lane") == f"host/{planted.root_host}"]
    assert lane and "root" in str(lane[0]["class"])


@pytest.mark.parametrize("action", ["pods", "preflight", "versions", "neighbors"])
def test_report_actions_without_a_page_say_so(action: str) -> None:
    code, out, err = run_cli(*target_args("two-failures"), f"--action={action}", "--format=html")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"error: --format=html: --action={action} has no HTML report (triage and the entry "
        "actions have one); use --format=text or --format=json"
    )


def test_a_report_without_a_page_is_refused_before_the_export_is_read(tmp_path: Path) -> None:
    """--duration alone reads the export for its end; the flags are checked first."""
    missing = tmp_path / "not-there.jsonl"
    args = ["--jobset_name=j", f"--logs_file={missing}", "--duration=30m", "--format=html"]
    code, out, err = run_cli(*args, "--action=pods")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "error: --format=html: --action=pods has no HTML report (triage and the entry "
        "actions have one); use --format=text or --format=json"
    ]


def test_print_mode_has_no_page() -> None:
    code, out, err = run_cli(
        "--project=my-project", "--jobset_name=j", "--action=triage", "--format=html"
    )
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith("error: --format=html draws what the queries found")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_output_gets_what_stdout_would(fmt: str, tmp_path: Path) -> None:
    args = [*target_args("two-failures", True), "--action=triage", f"--format={fmt}"]
    code, out, _ = run_cli(*args)
    path, _ = write_report(tmp_path, "two-failures", fmt=fmt)
    assert code == 0
    assert path.read_text(encoding="utf-8") == out
    assert path.stat().st_mode & 0o777 != 0o600  # a normal file, not the temporary one's mode
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.parametrize("where", ["missing-folder/report.html", "."])
def test_an_unwritable_output_is_one_line_and_exit_74(where: str, tmp_path: Path) -> None:
    target = tmp_path / where
    code, out, err = run_cli(*target_args("two-failures"), "--action=triage", f"--output={target}")
    assert (code, out) == (74, "")
    (line,) = err.splitlines()
    assert line.startswith(f"error: --output={target}: cannot write it (")
    assert line.endswith("); choose a writable path")


def test_a_failed_run_leaves_no_report(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"timestamp": ')
    target = tmp_path / "report.html"
    target.write_text("the earlier report")
    code, _, err = run_cli(
        f"--logs_file={broken}",
        "--jobset_name=j",
        "--action=triage",
        "--format=html",
        f"--output={target}",
    )
    assert code == 5, err
    assert target.read_text() == "the earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json", "report.html"]


@pytest.mark.parametrize(
    ("window", "label"),
    [
        (
            ("--start_time=2026-11-01T00:00:00Z", "--end_time=2026-12-01T00:00:00Z"),
            r"\d{4}-\d\d-\d\d",
        ),
        (
            ("--start_time=2026-11-16T00:00:00Z", "--end_time=2026-11-18T00:00:00Z"),
            r"\d\d-\d\d \d\d:\d\d",
        ),
    ],
)
def test_an_axis_over_days_names_the_dates_in_a_few_ticks(
    window: tuple[str, ...], label: str
) -> None:
    args = [a for a in target_args("host-oom-worker") if not a.startswith(("--start", "--end"))]
    code, out, err = run_cli(*args, *window, "--action=triage", "--format=html")
    assert code == 0, err
    ticks = re.findall(r'class="tick"[^>]*>([^<]*)<', out)
    assert 2 <= len(ticks) <= 8
    assert all(re.fullmatch(label, tick) for tick in ticks), ticks


def test_an_empty_export_gives_a_small_page(tmp_path: Path) -> None:
    """Its window runs from 1970 to tomorrow: the axis takes a few ticks, not one a day."""
    path = tmp_path / "empty.json"
    path.write_text("[]")
    code, out, err = run_cli(
        f"--logs_file={path}", "--jobset_name=x", "--action=triage", "--format=html"
    )
    assert code == 0, err
    assert len(out) < 200_000
    assert len(re.findall(r'class="tick"', out)) <= 8


def _hosts_rows(page: str) -> list[str]:
    table = page[page.index('id="hosts-table"') :]
    table = table[: table.index("</table>")]
    return re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]  # the header row first


def test_hosts_are_ordered_by_instant_whatever_the_spelling(tmp_path: Path) -> None:
    """A whole-second time (`…:33Z`, as protobuf writes zero nanoseconds) is earlier than
    `…:33.7Z`, though its text sorts after it."""
    entries = json.loads((INCIDENTS / "lost-connection-to-peer.json").read_text())
    root = expected("lost-connection-to-peer")["root_cause"]
    (line,) = [e for e in entries if e.get("timestamp") == root["timestamp"]]
    line["timestamp"] = root["timestamp"].split(".")[0] + "Z"
    export = tmp_path / "whole-second.json"
    export.write_text(json.dumps(entries))
    page_path = tmp_path / "page.html"
    code, _, err = run_cli(
        f"--logs_file={export}",
        "--jobset_name=llama-train",
        "--action=triage",
        "--format=html",
        f"--output={page_path}",
    )
    assert code == 0, err
    rows = _hosts_rows(page_path.read_text(encoding="utf-8"))
    assert root["pod"].rsplit("-", 1)[0] in rows[0]
    stamps = re.findall(r'class="ts" data-sort="(t[0-9]+)"', "".join(rows))
    firsts = stamps[0::2]  # each row: its first error, then its last line
    assert firsts == sorted(firsts)


def _first_errors(page: str) -> dict[tuple[str, str], str]:
    """(slice, host) -> the time in its row's "first error" column."""
    found = {}
    for row in _hosts_rows(page):
        cells = [
            html.unescape(re.sub(r"<[^>]+>", "", cell))
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        found[(cells[0], cells[1])] = cells[2]
    return found


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n)["failing_hosts"]])
def test_a_failing_host_shows_the_first_error_the_json_report_gives(
    name: str, tmp_path: Path
) -> None:
    """The root cause's host shows the root cause, not the kernel's `invoked oom-killer`
    line a few milliseconds before it, nor (in a hang) an older line of a component of the
    quiet host that went quiet later: the text and JSON reports name the same time."""
    args = (*target_args(name, True), "--action=triage", "--format=json")
    hosts = json.loads(run_cli(*args)[1])["failing_hosts"]
    path, _ = write_report(tmp_path, name)
    shown = _first_errors(path.read_text(encoding="utf-8"))
    for host in hosts:
        assert shown[(host["slice"], host["host"])] == host["first_error_time"], host["pod"]


def _hosts_failing(page: str) -> dict[str, str]:
    """Restart attempt -> the "hosts failing" cell of its row in the failures table."""
    table = page[page.index('id="failures"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in rows]
    return {html.unescape(row[0]): html.unescape(row[-1]) for row in cells}


@pytest.mark.parametrize("name", ["megascale-hang-detected", "elastic-restore-failure"])
def test_the_failures_table_counts_the_failing_hosts_the_json_report_gives(
    name: str, tmp_path: Path
) -> None:
    """A host that failed by going quiet (the hang a Megascale digest names) or by a host
    error of its node counts among the hosts failing in its attempt, as it does among the
    JSON report's failing hosts and in the hosts table."""
    args = (*target_args(name, True), "--action=triage", "--format=json")
    report = json.loads(run_cli(*args)[1])
    path, _ = write_report(tmp_path, name)
    attempt = report["root_cause"]["restart_attempt"]
    shown = _hosts_failing(path.read_text(encoding="utf-8"))
    assert shown[attempt] == str(len(report["failing_hosts"]))


def test_a_traceback_failure_shows_its_exception(tmp_path: Path) -> None:
    path, _ = write_report(tmp_path, "jax-version-mismatch")
    page = path.read_text(encoding="utf-8")
    failures = page[page.index('id="failures"') :]
    failures = failures[: failures.index("</table>")]
    assert "Unable to initialize backend" in failures
    assert ">Traceback (most recent call last):<" not in failures


def test_a_lane_says_how_many_of_its_lines_are_not_drawn(tmp_path: Path) -> None:
    path, _ = write_report(tmp_path, "alts-handshake-failure")
    page = path.read_text(encoding="utf-8")
    args = (*target_args("alts-handshake-failure", True), "--action=triage", "--format=json")
    lanes = json.loads(run_cli(*args)[1])["timeline"]["lanes"]
    omitted = [lane for lane in lanes if lane.get("omitted")]
    assert omitted, "the incident has a lane with more errors than are drawn"
    for lane in omitted:
        assert f"{lane['omitted']} later lines not drawn" in page
        assert f"+{lane['omitted']}<" in page


def test_a_host_lane_is_named_after_the_pod_where_it_failed(tmp_path: Path) -> None:
    """Host 0/0 ran two pods (a restart): its lane names the one that logged the root cause,
    and host 1/1's the one that went quiet, not the alphabetically last."""
    path, _ = write_report(tmp_path, "megascale-hang-detected")
    page = path.read_text(encoding="utf-8")
    assert "0/0  vmkmw<" in page and "1/1  lbrdw<" in page


@pytest.mark.parametrize("action", ["triage", "errors"])
def test_an_export_without_times_draws_no_timeline(tmp_path: Path, action: str) -> None:
    """Its window means nothing (1970 to tomorrow): no timeline is drawn over it, and triage
    gives no verdict, as the text report does."""
    export = tmp_path / "empty.json"
    export.write_text("[]")
    page_path = tmp_path / "page.html"
    code, _, err = run_cli(
        f"--logs_file={export}",
        "--jobset_name=x",
        f"--action={action}",
        "--format=html",
        f"--output={page_path}",
    )
    assert code == 0, err
    page = page_path.read_text(encoding="utf-8")
    assert 'class="ticks"' not in page  # no axis drawn
    if action == "triage":
        assert "No verdict: the window holds none of the workload" in page
        assert "No timeline. Window: " in page


def _next_steps_shown(page: str) -> list[str]:
    """The next steps the root-cause section lists, as the page shows them."""
    cause = page[page.index('id="root-cause"') :]
    cause = cause[: cause.index("</section>")]
    listed = cause.split("Next, look closer with:", 1)[1] if "Next, look closer" in cause else ""
    return [html.unescape(step) for step in re.findall(r"<li><code>(.*?)</code></li>", listed)]


@pytest.mark.parametrize("name", ["empty", "healthy-run", "lost-connection-to-peer"])
def test_the_page_lists_the_next_steps_the_json_report_does(name: str, tmp_path: Path) -> None:
    """With no verdict (nothing of the workload in the window) as with one, the root cause
    names what to run next, as the text and JSON reports do."""
    if name == "empty":
        logs = tmp_path / "empty.json"
        logs.write_text("[]")
        args: list[str] = [f"--logs_file={logs}", "--jobset_name=x"]
    else:
        args = list(target_args(name, True))
    code, out, err = run_cli(*args, "--action=triage", "--format=json")
    assert code == 0, err
    steps = json.loads(out)["next"]
    assert steps
    code, page, err = run_cli(*args, "--action=triage", "--format=html")
    assert code == 0, err
    assert _next_steps_shown(page) == steps


def test_a_megabyte_root_cause_line_is_written_once(tmp_path: Path) -> None:
    """The root cause's box, the failures table and the page's data show the line cut as the
    timeline cuts it; the evidence holds it whole."""
    page = long_root_cause_report(tmp_path).read_text(encoding="utf-8")
    assert page.count(LONG_TAIL) == 1
    assert len(page.encode()) < len(LONG_TAIL) + 1_000_000
    evidence = page[page.index("<summary>Evidence") :]
    assert LONG_TAIL in evidence[: evidence.index("</details>")]
    cause = page[page.index('<pre class="line">') :]
    cut = re.compile(r"A… \((\d+) more characters\)$")
    for shown in (cause[: cause.index("</pre>")], report_data(page)["root_cause"]["message"]):
        found = cut.search(shown)
        assert found and int(found.group(1)) > 990_000, shown[-80:]


def test_a_megabyte_last_line_is_cut_when_there_is_no_root_cause() -> None:
    """Without a root cause the page lists each container's last line, cut as the timeline
    cuts a line (the JSON report has it whole)."""
    last = {"timestamp": "2026-11-20T04:47:33Z", "where": "ns/pod/c", "message": LONG_TAIL}
    report = {"window": {"note": "a test"}, "last_lines": [last], "root_cause": None}
    page = triage_page(report)
    assert LONG_TAIL not in page and len(page) < 100_000
    assert re.search(r"A… \(\d+ more characters\)</li>", page)


def test_without_a_root_cause_the_latest_last_lines_come_first_and_the_rest_fold() -> None:
    """A healthy JobSet of 1,024 hosts has over a thousand containers: the root-cause box
    lists the latest few last lines first, as the text report does, and folds the others
    away, so the timeline is not a thousand lines down the page."""
    last = [
        {
            "timestamp": f"2026-12-01T08:{minute:02d}:00Z",
            "where": f"default/big-train-worker-0-{minute}-abcde/pathways-worker",
            "message": f"Executed {minute} programs in the last 60s",
        }
        for minute in range(30)
    ]
    report = {"window": {"note": "a test"}, "last_lines": last, "root_cause": None}
    cause = triage_page(report)
    cause = cause[cause.index('id="root-cause"') :]
    cause = cause[: cause.index("</section>")]
    shown = cause[: cause.index("<details>")]
    stamps = re.findall(r"<code>(2026-[^<]+)</code>", shown)
    assert stamps == [f"2026-12-01T08:{minute:02d}:00Z" for minute in range(29, 21, -1)]
    assert "Last line of 30 containers (latest first)" in shown
    folded = cause[cause.index("<details>") :]
    assert "… and 22 more" in folded
    assert len(re.findall(r"<code>2026-", folded)) == 22


def test_first_per_pod_groups_say_how_many_lines_each_source_matched(tmp_path: Path) -> None:
    """As the text output's `== WHERE: N of TOTAL matching lines ==`: each group's lines
    under a heading, not one table whose rows run back in time from one pod to the next."""
    args = (*target_args("lost-connection-to-peer"), "--action=workers", "--first_per_pod=1")
    text_out = run_cli(*args)[1]
    headings = re.findall(r"^== (.*): (\d+) of (\d+) matching lines ==$", text_out, re.M)
    assert headings and any(shown != total for _, shown, total in headings)
    out = tmp_path / "groups.html"
    code, _, err = run_cli(*args, "--format=html", f"--output={out}")
    assert code == 0, err
    parsed = structure(out.read_text(encoding="utf-8"))
    shown = "".join(parsed.text)
    for where, count, total in headings:
        assert f"{where}: {count} of {total} matching lines" in shown
    assert len(parsed.tags("table")) == len(headings)


def test_one_entry_is_one_log_entry(tmp_path: Path) -> None:
    out = tmp_path / "one.html"
    args = (*target_args("host-oom-worker"), "--action=node-ooms", "--limit=1")
    code, _, err = run_cli(*args, "--format=html", f"--output={out}")
    assert code == 0, err
    parsed = structure(out.read_text(encoding="utf-8"))
    assert "1 log entry" in parsed.text and "1 log entries" not in "".join(parsed.text)


def test_node_lines_of_the_workload_are_marked_as_the_text_output_marks_them(
    tmp_path: Path,
) -> None:
    """node-ooms reads the whole cluster's node OOM events: an OOM kill on a node the
    workload never ran on is not marked `[workload node]`, one on its nodes is, in the
    table and on the timeline as in the text output."""
    entries = json.loads((INCIDENTS / "host-oom-worker.json").read_text())
    other = "gke-pw-cluster-default-pool-0000-aaaa"
    killed = "Memory cgroup out of memory: Killed process 4242 (other-app)"
    entries.append(node_event("OOMKilling", killed, other, "2026-11-17T13:26:00Z"))
    logs = tmp_path / "other-node.json"
    logs.write_text(json.dumps(entries))
    args = [a for a in target_args("host-oom-worker") if not a.startswith("--logs_file")]
    args += [f"--logs_file={logs}", "--action=node-ooms"]
    text_lines = run_cli(*args)[1].splitlines()
    out = tmp_path / "node-ooms.html"
    code, _, err = run_cli(*args, "--format=html", f"--output={out}")
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    rows = re.findall(r"<tr>(.*?)</tr>", page[page.index('id="lines-table"') :], re.S)[1:]
    assert len(rows) == len(text_lines) == 5
    for row, line in zip(rows, text_lines):
        assert ("[workload node]" in row) == ("[workload node]" in line), line
        assert (other in row) == (other in line)
    titles = re.findall(r"<title>(.*?)</title>", page, re.S)
    assert sum("[workload node]" in title for title in titles) == 4


@pytest.mark.parametrize("action", ["errors", "triage"])
def test_the_page_says_the_export_lies_outside_the_window(action: str, tmp_path: Path) -> None:
    """The window given misses the export: stderr says so, but the page only said no entry
    matched and to run node-ooms and pod-events (OOM kills rarely reach container logs).
    The page holds the run's notes and warnings too."""
    args = [a for a in target_args("lost-connection-to-peer") if "_time=" not in a]
    window = ("--start_time=2020-01-01T00:00:00Z", "--end_time=2020-01-01T01:00:00Z")
    out = tmp_path / "outside.html"
    code, _, err = run_cli(*args, *window, f"--action={action}", "--format=html", f"--output={out}")
    assert code == 0, err
    (note,) = [line for line in err.splitlines() if "outside the window" in line]
    assert note.startswith("note: the export spans ")
    assert note in structure(out.read_text(encoding="utf-8")).text


@pytest.mark.parametrize("name", ["finished-run", "client-job-finished", "lost-connection-to-peer"])
def test_the_timeline_marks_when_the_run_completed(name: str, tmp_path: Path) -> None:
    """A finished run's timeline draws a line across the lanes at its completion event, named
    in the legend; a run that did not complete has no such line."""
    path, _ = write_report(tmp_path, name)
    page = path.read_text(encoding="utf-8")
    parsed = structure(page)
    lines = [a for a in parsed.tags("div") if str(a.get("class")).split() == ["bd", "done"]]
    keys = [a for a in parsed.tags("i") if str(a.get("class")).split() == ["bd-key", "done"]]
    done = expected(name).get("completed")
    if done is None:
        assert not lines and not keys
        return
    (line,) = lines
    assert len(keys) == 1
    start = parse_timestamp_ns(report_data(page)["window"]["start"])
    assert line["data-t"] == str(parse_timestamp_ns(done["timestamp"]) - start)
    assert done["message_contains"] in str(line["title"])


def test_a_root_cause_whose_time_was_guessed_says_so(tmp_path: Path) -> None:
    """A kubectl transcript's SIGTERM line without a time of its own, with nothing timed
    to beat it: the page says its time was guessed, as the text report and `time_guessed`
    in the JSON report do."""
    head = "[pod/llama-train-pathways-head-0-0-h7k2p/jax-tpu]"
    log = tmp_path / "dump.log"
    log.write_text(
        f"{head} I0809 08:37:00.500000 1 main.py:10] starting\n"
        f"{head} *** SIGTERM received by PID 1 ***\n"
    )
    args = (
        f"--logs_file={log}",
        "--jobset_name=llama-train",
        "--start_time=2026-08-09T08:00:00Z",
        "--end_time=2026-08-09T09:00:00Z",
        "--action=triage",
    )
    code, out, err = run_cli(*args, "--format=json")
    assert code == 0, err
    assert json.loads(out)["root_cause"]["time_guessed"] is True
    code, page, err = run_cli(*args, "--format=html")
    assert code == 0, err
    cause = page[page.index('id="root-cause"') :]
    cause = html.unescape(cause[: cause.index("</section>")])
    assert "Time guessed: the line has no time of its own" in cause


def test_a_warning_the_run_survived_is_on_the_page(tmp_path: Path) -> None:
    """A retried read the run went on after is no cause; the JSON report lists it among
    `survived` and the text report says so under its answer: so does the page."""
    warning = _line("pathways-worker", "WARNING", RETRY, "2026-11-26T10:20:00.000001Z")
    logs = tmp_path / "export.json"
    logs.write_text(json.dumps([*json.loads(HEALTHY.read_text()), warning]))
    args = (f"--logs_file={logs}", "--jobset_name=qwen-pretrain", "--action=triage")
    code, out, err = run_cli(*args, "--format=json")
    assert code == 0, err
    assert [row["message"] for row in json.loads(out)["survived"]] == [RETRY]
    code, page, err = run_cli(*args, "--format=html")
    assert code == 0, err
    cause = page[page.index('id="root-cause"') :]
    cause = html.unescape(cause[: cause.index("</section>")])
    assert "Survived: 1 warning(s) or node event(s) the run went on after" in cause
    assert RETRY[:60] in cause


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("jobset-name-too-long", "the JobSet controller's log: `--action=summary` around it"),
        ("lost-connection-to-peer", "read its container around it"),
    ],
)
def test_a_cause_no_known_failure_matches_says_where_to_read_on(
    name: str, said: str, tmp_path: Path
) -> None:
    """As the text report does, the page says where to read on from a cause no known failure
    matches: the log that holds that kind of line."""
    path, _ = write_report(tmp_path, name)
    page = path.read_text(encoding="utf-8")
    cause = page[page.index('id="root-cause"') :]
    cause = html.unescape(cause[: cause.index("</section>")])
    assert f"No known failure matches this line: {said}" in cause
