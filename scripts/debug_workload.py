#!/usr/bin/env python3
"""Find out why a Pathways workload failed: see SKILL.md, or run with --help."""

import sys

if __name__ == "__main__":
    try:
        from pathways_workload.dependencies import missing_message

        if message := missing_message():
            sys.stderr.write(message + "\n")
            raise SystemExit(2)
        from pathways_workload.cli import main
    except KeyboardInterrupt:  # Ctrl-C while Python loads the tool: as `main` says it
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None

    raise SystemExit(main())
