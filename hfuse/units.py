"""How sizes and durations are written for people."""

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


def format_ms(value: float | None) -> str:
    """A duration with three significant digits at most: 18.0 us, 2.41 ms, 156 ms, 1.62 s; "-" for none."""
    if value is None:
        return "-"
    if value < 1:
        return f"{value * 1000:.1f} us"
    if value < 10:
        return f"{value:.2f} ms"
    if value < 1000:
        return f"{value:.0f} ms"
    return f"{value / 1000:,.2f} s"
