"""One module per recorded incident: its story as data and the beats that plant it.

Each module has `STORY` and `build() -> Incident`; `SPECS` lists them in the corpus README's
order.
"""
