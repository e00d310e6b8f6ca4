"""Text container logs as the export reader's records: batches of entries made from lines."""

from __future__ import annotations

from collections.abc import Iterator

from pathways_workload.sources.records import Record
from pathways_workload.sources.stream import Stream
from pathways_workload.sources.text_logs import TextLogs


def _lines(stream: Stream) -> Iterator[bytes]:
    """The rest of the stream line by line, its buffer first (a last line may lack its break)."""
    while True:
        cut = stream.buffer.rfind(b"\n") + 1
        if cut:
            yield from stream.drop(cut).split(b"\n")[:-1]
        if stream.eof or not stream.more():
            break
    if stream.buffer:
        yield stream.drop(len(stream.buffer))


def text_batches(stream: Stream, text: TextLogs, number: int, size: int) -> Iterator[list[Record]]:
    """The entries of export number `number`, text logs from the stream's start, in batches
    of `size`."""
    export, batch = stream.export, []
    for made in text.records(export.name, export.path, _lines(stream)):
        order = (number, made.line)
        batch.append(Record(made.raw, export, line=made.line, order=order, parsed=made.entry))
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
