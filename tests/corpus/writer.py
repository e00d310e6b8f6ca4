"""Writing incidents: the gcloud-style JSON array, JSON Lines as a log sink writes them
(optionally gzipped), the expected files and the corpus README."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from pathlib import Path
from typing import IO

from tests.corpus.clock import NS
from tests.corpus.incident import Incident
from tests.corpus.wording import COMMON_GUESSES, GUESSED, UNVERIFIED
from tests.logentry import Entry

MINUTE = 60 * NS
README_HEAD = """\
# Recorded incidents

Synthetic `gcloud logging read --format=json` exports of Pathways on Cloud workloads on GKE, with
the expected findings beside each (`<name>.expected.json`, written from what was planted).
Everything here, this file included, is written by `generate.py` from the corpus engine and the
incident specs in `tests/corpus/`; rerun `python3 tests/fixtures/incidents/generate.py` after
changing them (`tests/test_corpus.py` fails when these files are not what it writes). Coordinates:
project `pw-demo`, cluster `pw-cluster`, location `us-east5`, namespace `default`; each window is
the issue time ± 30 minutes. Every incident also holds an unrelated JobSet named `<workload>-eval`
that crashes (`shard_index < num_shards`, `c4-validation-00007-of-00008`) and a TensorBoard pod.

`failing_hosts` lists the TPU hosts with failure evidence before the teardown, earliest first (the
head pod is not a host; hosts that only got the teardown SIGTERM are not listed). Every planted
wording is a row of the engine or a spec, flagged guessed (no public source confirms it) or
unverified (no public source is cited for it yet); the `guessed` field of each expected file lists
the guessed wordings its export contains, and the last column counts the distinct rows it uses.

Extra keys some expected files carry: `co_tenant` (the foreign pod that caused the failure),
`controller` (where the root cause of a never-started JobSet was logged), `restart_attempt` on
failures (two-failures), `last_step_before_failure`.
"""
COLUMNS = (
    "file",
    "scenario",
    "layout",
    "planted",
    "guessed wording (beyond the common list)",
    "rows: guessed / unverified",
)


def export_text(rows: Iterable[tuple[int, Entry]]) -> str:
    """What `gcloud logging read --format=json` prints: newest first, keys sorted."""
    ordered = sorted(rows, key=lambda row: (row[0], row[1]["insertId"]), reverse=True)
    return (
        json.dumps([entry for _, entry in ordered], indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
    )


def json_lines(rows: Iterable[tuple[int, Entry]], seed: int) -> Iterator[str]:
    """One entry per line, minute by minute, in a random order within each minute (a log
    sink's files are only roughly in order)."""
    shuffle = random.Random(seed).shuffle
    ordered = sorted(rows, key=lambda row: (row[0], row[1]["insertId"]))
    for _, minute in groupby(ordered, key=lambda row: row[0] // MINUTE):
        entries = [entry for _, entry in minute]
        shuffle(entries)
        for entry in entries:
            yield json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def write_json_lines(path: Path, inc: Incident) -> None:
    """The incident as JSON Lines; gzipped (with no name or time in the header) for `.gz`."""
    with path.open("wb") as raw:
        out: IO[bytes] = raw
        if path.suffix == ".gz":
            out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
        with out:
            for line in json_lines(inc.rows, inc.story.seed):
                out.write(line.encode("utf-8") + b"\n")


def write_incident(folder: Path, inc: Incident) -> int:
    """`<slug>.json` and `<slug>.expected.json`. Returns the export's size in bytes."""
    text = export_text(inc.rows)
    (folder / f"{inc.story.slug}.json").write_text(text, encoding="utf-8")
    expected = json.dumps(inc.expected, indent=2, ensure_ascii=False) + "\n"
    (folder / f"{inc.story.slug}.expected.json").write_text(expected, encoding="utf-8")
    return len(text)


def readme(incidents: Iterable[Incident]) -> str:
    """The corpus README: one row per incident, then the guesses most incidents share."""
    lines = [README_HEAD, _row(COLUMNS), _row(["---"] * len(COLUMNS))]
    for inc in incidents:
        story = inc.story
        own = [g for g in inc.expected["guessed"] if g not in COMMON_GUESSES]
        scenario = "-" if story.scenario is None else story.scenario
        guesses = "; ".join(own or ["only the common guesses"]).replace("|", "/")
        summary = story.summary.replace("|", "/")
        flags = [row.flag for row in inc.wordings]
        counts = f"{flags.count(GUESSED)} / {flags.count(UNVERIFIED)}"
        cells = [f"`{story.slug}.json`", str(scenario), story.layout, summary, guesses, counts]
        lines.append(_row(cells))
    lines += ["", "Common guesses (most incidents):", ""]
    lines += [f"- {guess}" for guess in COMMON_GUESSES]
    return "\n".join(lines) + "\n"


def _row(cells: Sequence[str]) -> str:
    return f"| {' | '.join(cells)} |"
