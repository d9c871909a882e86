"""How sizes are written for people."""

from __future__ import annotations


def format_bytes(count: int) -> str:
    """Decimal units, as bandwidth figures are quoted (1 MB = 1e6 bytes)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


def format_size(nbytes: int) -> str:
    """A size as memory is counted (binary units), with the exact count: 1.5 GiB (1610612736 bytes)."""
    if nbytes < 1024:
        return f"{nbytes} bytes"
    value = float(nbytes)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.1f} {unit} ({nbytes} bytes)"
