"""Tests of the Logging query language engine."""
