"""The text report's picture of how a failure spread: the first error of each slice after the
root cause, checked against what the incidents planted."""

from __future__ import annotations

from pathways_workload.timestamps import parse_timestamp_ns
from tests.corpus.large import export
from tests.helpers import run_cli
from tests.test_incidents import expected, target_args


def test_the_markdown_report_pictures_the_first_error_per_slice() -> None:
    planted = expected("lost-connection-to-peer")
    code, out, err = run_cli(*target_args("lost-connection-to-peer", True), "--action=triage")
    assert code == 0, err
    block = out.split("First error per slice", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    rows = {line.split("  ")[0]: line for line in block.splitlines()[1:]}
    root_slice = next(
        h["slice"] for h in planted["failing_hosts"] if h["pod"] == planted["root_cause"]["pod"]
    )
    assert set(rows) == {"slice 0", "slice 1"}
    assert "◆" in rows[f"slice {root_slice}"]
    for label, row in rows.items():
        count = sum(1 for h in planted["failing_hosts"] if f"slice {h['slice']}" == label)
        assert f"{count} of 3 hosts" in row


def test_a_large_cascade_fits_in_eight_rows() -> None:
    path, planted = export("cascade-1024")
    code, out, err = run_cli(
        f"--logs_file={path}",
        *planted.target(),
        "--action=triage",
    )
    assert code == 0, err
    block = out.split("First error per slice", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    rows = block.splitlines()[1:]
    assert len(rows) == 8
    assert all(row.split("  ")[0].startswith("slices ") for row in rows)
    root_slice = int(planted.root_host.split("/")[0])
    (marked,) = [row for row in rows if "◆" in row]
    low, high = marked.split()[1].split("-")
    assert int(low) <= root_slice <= int(high)
    assert sum(int(row.split(" of ")[0].split()[-1]) for row in rows) == len(planted.failing_pods)


def test_a_slice_that_failed_before_the_root_cause_says_how_long_before() -> None:
    """In the Megascale hang, host 1/1 went quiet minutes before the detector's line (the root
    cause): its slice's first error is that long before it, not "+0 µs"."""
    planted = expected("megascale-hang-detected")
    code, out, err = run_cli(*target_args("megascale-hang-detected", True), "--action=triage")
    assert code == 0, err
    (row,) = [line for line in out.splitlines() if line.startswith("slice 1 ")]
    quiet = next(h for h in planted["failing_hosts"] if h["slice"] == "1")
    before = parse_timestamp_ns(planted["root_cause"]["timestamp"]) - parse_timestamp_ns(
        quiet["first_error_time"]
    )
    assert f"first {before / 10**9:.1f} s before the root cause" in row
