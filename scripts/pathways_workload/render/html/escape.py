"""Workload text made safe for the page: HTML text and attributes, and JSON inside a script.

Every log line is text the workload wrote and may contain markup; nothing
from a log entry reaches the page except through these functions. Its control
characters are shown as the text report shows them (`visible_text`): a
right-to-left override would otherwise show a pod name or a line reordered.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from pathways_workload.visible_text import visible

# In an inline <script>, these could end the script (`</script>`), open a comment state
# (`<!--`), or end a JavaScript line (U+2028, U+2029).
_SCRIPT_UNSAFE = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_SCRIPT_UNSAFE_RE = re.compile("[<>&\u2028\u2029]")


def text(value: object) -> str:
    """Text for an element's content or a quoted attribute value: CRLF line ends read as
    newlines, other control characters but tab shown as `\\xNN` or `\\uXXXX`."""
    return html.escape(visible(str(value).replace("\r\n", "\n")), quote=True)


def script_json(value: Any) -> str:
    """JSON to put inside `<script type="application/json">`: it cannot end the script."""
    encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _SCRIPT_UNSAFE_RE.sub(lambda found: _SCRIPT_UNSAFE[found.group()], encoded)
