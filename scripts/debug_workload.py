#!/usr/bin/env python3
"""Find out why a Pathways workload failed: see SKILL.md, or run with --help."""

from pathways_workload.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
