"""Index arithmetic as Triton source text: linear positions, reshape runs, broadcasting.

Positions are strings (a name, a literal, or a small expression); these helpers skip the `// 1`,
`% n` and `* 0` that cannot matter, so generated index math stays short.
"""

from __future__ import annotations

from collections.abc import Sequence

from hfuse.errors import KernelError


def is_literal(text: str) -> bool:
    return text.lstrip("-").replace(".", "", 1).isdigit()


def term(text: str) -> str:
    return f"({text})" if text.startswith("-") or " " in text else text


def delinearize(linear: str, extents: Sequence[int]) -> list[str]:
    """Row-major positions over `extents` of a linear position, without `// 1` or `% n` that cannot matter."""
    parts, inner = [], 1
    for k in range(len(extents) - 1, -1, -1):
        if extents[k] == 1:
            parts.append("0")
        else:
            text = linear if inner == 1 else f"{term(linear)} // {inner}"
            if any(e != 1 for e in extents[:k]):
                text = f"{term(text)} % {extents[k]}"
            parts.append(text)
        inner *= extents[k]
    return parts[::-1]


def linearize(dims: Sequence[str], extents: Sequence[int]) -> str:
    terms, inner = [], 1
    for k in range(len(extents) - 1, -1, -1):
        if extents[k] != 1 and dims[k] != "0":
            terms.append(dims[k] if inner == 1 else f"{term(dims[k])} * {inner}")
        inner *= extents[k]
    return " + ".join(reversed(terms)) or "0"


def reshape_runs(in_shape: Sequence[int], out_shape: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """The shortest runs of input and output dims with equal products, in order."""
    runs: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(in_shape) or j < len(out_shape):
        run_in, run_out, p_in, p_out = [], [], 1, 1
        if i < len(in_shape):
            run_in.append(i)
            p_in, i = in_shape[i], i + 1
        if j < len(out_shape):
            run_out.append(j)
            p_out, j = out_shape[j], j + 1
        while p_in != p_out:
            if p_in < p_out and i < len(in_shape):
                run_in.append(i)
                p_in, i = p_in * in_shape[i], i + 1
            elif j < len(out_shape):
                run_out.append(j)
                p_out, j = p_out * out_shape[j], j + 1
            else:
                raise KernelError(
                    f"reshape from {list(in_shape)} to {list(out_shape)} changes the element count"
                )
        runs.append((run_in, run_out))
    return runs


def broadcast_dims(dims: Sequence[str], out_shape: Sequence[int], in_shape: Sequence[int]) -> tuple[str, ...]:
    """The index of an operand broadcast (right-aligned, numpy rules) to `out_shape`."""
    offset = len(out_shape) - len(in_shape)
    return tuple("0" if in_shape[k] == 1 else dims[k + offset] for k in range(len(in_shape)))


def is_plain(text: str) -> bool:
    return text.replace("_", "").isalnum() or is_literal(text)
