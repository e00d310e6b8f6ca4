"""The recorded-incident corpus: a small engine and one spec per incident.

`python3 tests/fixtures/incidents/generate.py` writes every incident of `specs/` (its export,
its expected file) and the corpus README into tests/fixtures/incidents, the same bytes on every
run; tests/test_corpus.py checks the checked-in files are what it writes.

- `specs/`: one module per incident: its story (`STORY`) and `build()`, which plants it with
  beats and writes down what was planted.
- `beats/`: what incidents are made of: pod life cycle, start-up, periodic lines, failures and
  their cascades, restarts, neighbours, and one module per failure class.
- `layouts.py`: xpk and Cluster Toolkit JobSets (slices x hosts), LeaderWorkerSet groups,
  plain pods; node, pod and label naming.
- `wording.py`: the row types every planted line is (guessed or unverified), and the guesses
  most incidents share.
- `incident.py`: one incident being recorded: entries from rows, through `tests.logentry`.
- `expect.py`: the expected file, written from what was planted, and the plan's own checks.
- `writer.py`: the gcloud-style JSON array, JSON Lines (optionally gzipped) and the README.
- `model.py`, `cluster.py`, `dice.py`, `clock.py`: nodes, pods and runs; the cluster's state;
  the seeded randomness; time and its formats.
- `build.py`: the list of specs and the command that writes the corpus.
"""
