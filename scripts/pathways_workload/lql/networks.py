"""IP addresses and CIDR ranges, as `ip_in_net(field, "subnet")` reads them.

Legal text is an IPv4 or IPv6 address (`10.1.2.3`, `1:2::3`), optionally
with a prefix length (`10.1.2.0/24`, `1:2::/48`), with nothing around it: no
spaces, zone (`%eth0`), port or netmask form. A range written with host bits
set stands for its network (`10.1.2.3/24` is `10.1.2.0/24`). An address is
the range of that one address. Addresses of one IP version are never inside a
range of the other, so `::ffff:10.1.2.3` is not in `10.0.0.0/8`.
"""

from __future__ import annotations

import functools
import ipaddress
import re

from pathways_workload.lql import diagnostics, nodes

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

ADDRESS_OR_RANGE = re.compile(r"[0-9A-Fa-f:.]+(?:/[0-9]{1,3})?")
# Longer than the longest legal text ("ffff:...:ffff:255.255.255.255/128" is 49).
MAX_LENGTH = 64
# Distinct addresses whose reading is kept (client addresses repeat a lot).
PARSED_CACHE_SIZE = 4096


def parse_network(text: str) -> Network | None:
    """Read an address or CIDR range; None when the text is not a legal one."""
    if len(text) > MAX_LENGTH or ADDRESS_OR_RANGE.fullmatch(text) is None:
        return None
    return _parse(text)


@functools.lru_cache(maxsize=PARSED_CACHE_SIZE)
def _parse(text: str) -> Network | None:
    """Read text already shaped like an address or range."""
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def subnet(literal: nodes.Literal, filter_text: str) -> Network:
    """The subnet argument of ip_in_net, read.

    Raises:
        diagnostics.LqlSyntaxError: the literal is not a legal address or CIDR range.
    """
    network = parse_network(literal.text)
    if network is None:
        raise diagnostics.LqlSyntaxError(
            f"{diagnostics.shorten(literal.text)} at "
            f"{diagnostics.position(filter_text, literal.start)} is not an IP address or CIDR "
            'range, such as "10.1.2.3", "10.1.2.0/24" or "1:2::/48"',
            filter_text,
            literal.start,
        )
    return network


def contains(network: Network, value: object) -> bool:
    """Tell whether a field value is a string holding an address or range inside `network`."""
    if not isinstance(value, str):
        return False
    found = parse_network(value)
    if found is None or found.version != network.version:
        return False
    first, last = int(network.network_address), int(network.broadcast_address)
    return first <= int(found.network_address) and int(found.broadcast_address) <= last
