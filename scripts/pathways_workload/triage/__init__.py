"""The whole first pass in one command: evidence, root cause, hosts, versions, checks."""
