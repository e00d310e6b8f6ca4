#!/usr/bin/env python3
"""Find out why a Pathways workload failed: see SKILL.md, or run with --help."""

import sys

from pathways_workload.dependencies import missing_message

if __name__ == "__main__":
    if message := missing_message():
        sys.stderr.write(message + "\n")
        raise SystemExit(2)
    from pathways_workload.cli import main

    raise SystemExit(main())
