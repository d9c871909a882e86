"""How sizes are written for people."""

from __future__ import annotations


def format_bytes(count: int) -> str:
    """Decimal units, as bandwidth figures are quoted (1 MB = 1e6 bytes)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"
