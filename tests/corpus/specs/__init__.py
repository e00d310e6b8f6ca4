"""One module per recorded incident: `STORY` (what it is) and `build()` (the beats that plant it,
then what was planted). `tests.corpus.build.SPECS` lists them in the corpus README's order."""
