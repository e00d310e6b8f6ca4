"""`ip_in_net(field, "subnet")` in GoogleSQL, with the meaning `lql.networks` gives it.

GoogleSQL has no "address in subnet" function, so the test is built from
its Net functions: the value must be text shaped like an address or range
(`lql.networks.ADDRESS_OR_RANGE`, at most `MAX_LENGTH` characters), its
address part must convert (`NET.SAFE_IP_FROM_STRING`, NULL otherwise) to as
many bytes as the subnet's (so IPv4 is never inside an IPv6 subnet, and
`::ffff:10.1.2.3` is IPv6), its prefix length (the whole address when it has
none) must be at least the subnet's and at most the address's bits, and its
address cut to the subnet's prefix (`NET.IP_TRUNC`) must be the subnet's
network. `NET.IP_TRUNC` is evaluated only inside `IF` on an address of the
right length, since it fails on a prefix longer than the address.

What only real BigQuery can settle: whether `NET.SAFE_IP_FROM_STRING`
accepts exactly the addresses Python's `ipaddress` does (IPv4 octets with
leading zeros, for one); offline, DuckDB runs `ipaddress` (`emulation`).
"""

from __future__ import annotations

from pathways_workload.analytics import sql
from pathways_workload.lql import networks

_SHAPE = "^" + networks.ADDRESS_OR_RANGE.pattern + "$"
_ADDRESS_PART = "^[^/]*"
_PREFIX_PART = "/([0-9]+)$"


def ip_in_net(value: str, network: networks.Network) -> str:
    """SQL that is TRUE when the STRING `value` is an address or range inside `network`."""
    width = network.max_prefixlen // 8
    address = f"NET.SAFE_IP_FROM_STRING(REGEXP_EXTRACT({value}, {sql.string(_ADDRESS_PART)}))"
    prefix = (
        f"COALESCE(SAFE_CAST(REGEXP_EXTRACT({value}, {sql.string(_PREFIX_PART)}) AS INT64), "
        f"{network.max_prefixlen})"
    )
    truncated = (
        f"IF(BYTE_LENGTH({address}) = {width}, NET.IP_TRUNC({address}, {network.prefixlen}), NULL)"
    )
    return (
        f"(LENGTH({value}) <= {networks.MAX_LENGTH}"
        f" AND REGEXP_CONTAINS({value}, {sql.string(_SHAPE)})"
        f" AND BYTE_LENGTH({address}) = {width}"
        f" AND {prefix} BETWEEN {network.prefixlen} AND {network.max_prefixlen}"
        f" AND {truncated} = NET.IP_FROM_STRING({sql.string(str(network.network_address))}))"
    )
