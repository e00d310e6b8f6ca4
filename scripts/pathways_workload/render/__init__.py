"""Renderers: reports and printed commands as text, JSON or Markdown."""
