"""nvFuser's functions of plain values that scripts import beside FusionDefinition, computed here as
nvFuser computes them: `compute_contiguity(sizes, strides)`, `compute_tensor_descriptor(sizes, strides)`,
`version()` and `nvfuser.nvfuser_version.Version`.
"""

from __future__ import annotations

import re
from typing import Any

from hfuse.loader.values import MISSING, CallSite, Interpreted, describe

# the nvFuser release whose Python API the loader reads; `version()` answers it
NVFUSER_VERSION = "0.2.36"
_RELEASE = re.compile(r"v?(\d+(?:\.\d+)*)(?:\+.*)?")
_COMPARISONS = {
    "<": tuple.__lt__,
    "<=": tuple.__le__,
    ">": tuple.__gt__,
    ">=": tuple.__ge__,
    "==": tuple.__eq__,
    "!=": tuple.__ne__,
}
_REFLECTED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _sizes_and_strides(site: CallSite, name: str, args: list[Any], kwargs: dict[str, Any]):
    given = dict(zip(("sizes", "strides"), args, strict=False)) | kwargs
    sizes, strides = given.get("sizes"), given.get("strides")
    if (
        len(args) > 2
        or set(kwargs) - {"sizes", "strides"}
        or not all(
            isinstance(v, list | tuple) and all(isinstance(n, int) and not isinstance(n, bool) for n in v)
            for v in (sizes, strides)
        )
    ):
        raise site.error(f"{name}(sizes, strides) takes two lists of whole numbers")
    if len(sizes) != len(strides):
        raise site.error(f"{name}: sizes and strides must have the same number of dimensions")
    site.charge(len(sizes))
    return list(sizes), list(strides)


def compute_contiguity(sizes: list[int], strides: list[int]) -> list[bool | None]:
    """Each dim's contiguity in the given order: None for a broadcast (stride 0 or size 1), else whether
    its stride is the next non-broadcast dim's stride times size (1 for the innermost one)."""
    real = [
        i for i, (size, stride) in enumerate(zip(sizes, strides, strict=True)) if stride != 0 and size != 1
    ]
    contiguity: list[bool | None] = [None] * len(sizes)
    for i, inner in zip(real, [*real[1:], None], strict=False):  # None after the innermost
        expected = 1 if inner is None else strides[inner] * sizes[inner]
        contiguity[i] = strides[i] == expected
    return contiguity


def compute_tensor_descriptor(sizes: list[int], strides: list[int]) -> tuple[list[bool | None], list[int]]:
    """The contiguity (in allocation order, outermost first) and stride order (per dim, 0 innermost) that
    `fd.define_tensor` takes for a tensor of these sizes and strides. Dims are ordered by decreasing
    stride, stably; a stride-0 dim keeps its own position."""
    order = sorted((i for i, s in enumerate(strides) if s != 0), key=lambda i: -strides[i])
    for i, stride in enumerate(strides):
        if stride == 0:
            order.insert(i, i)
    rank = len(sizes)
    contiguity = compute_contiguity([sizes[i] for i in order], [strides[i] for i in order])
    stride_order = [0] * rank
    for position, dim in enumerate(order):
        stride_order[dim] = rank - 1 - position
    return contiguity, stride_order


class ContiguityFunction(Interpreted):
    label = "compute_contiguity"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> list[bool | None]:
        return compute_contiguity(*_sizes_and_strides(site, self.label, args, kwargs))


class TensorDescriptorFunction(Interpreted):
    label = "compute_tensor_descriptor"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], list[int]]:
        sizes, strides = _sizes_and_strides(site, self.label, args, kwargs)
        negative = [i for i, s in enumerate(strides) if s < 0]
        if negative:
            raise site.error(
                f"{self.label}: strides[{negative[0]}] is {strides[negative[0]]}; negative strides are "
                "not supported"
            )
        return compute_tensor_descriptor(sizes, strides)


class Version(Interpreted):
    """A release number, `version()` or `Version("0.2.0")`: it compares with another or with a string
    such as "0.0.0" (a local part after + is left out, as nvFuser does)."""

    label = "a version"

    def __init__(self, release: tuple[int, ...]):
        self.release = release

    def operate(self, site: CallSite, symbol: str, other: Any, reflected: bool) -> Any:
        if symbol not in _COMPARISONS:
            return MISSING
        theirs = other.release if isinstance(other, Version) else _release(site, other)
        if reflected:
            symbol = _REFLECTED[symbol]
        width = max(len(self.release), len(theirs))
        return _COMPARISONS[symbol](_padded(self.release, width), _padded(theirs, width))

    def equals(self, site: CallSite, other: Any, equal) -> Any:
        return self.operate(site, "==", other, reflected=False)

    def shown(self) -> str:
        return ".".join(map(str, self.release))


class VersionClass(Interpreted):
    """`nvfuser.nvfuser_version.Version("0.0.0")`."""

    label = "Version"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Version:
        if kwargs or len(args) != 1:
            raise site.error('Version() takes one version string, such as Version("0.2.0")')
        return Version(_release(site, args[0]))


class VersionFunction(Interpreted):
    """`nvfuser.version()`: the release the loader reads the API of."""

    label = "version"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Version:
        if args or kwargs:
            raise site.error("version() takes no arguments")
        return Version(_release(site, NVFUSER_VERSION))


def _release(site: CallSite, text: Any) -> tuple[int, ...]:
    match = _RELEASE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise site.error(f"{describe(text):.60} is not a version; write one such as '0.2.0'")
    return tuple(int(part) for part in match.group(1).split("."))


def _padded(release: tuple[int, ...], width: int) -> tuple[int, ...]:
    return release + (0,) * (width - len(release))


# what `from nvfuser import ...` finds of them, and what `nvfuser.nvfuser_version` holds
HELPERS = {
    "compute_contiguity": ContiguityFunction(),
    "compute_tensor_descriptor": TensorDescriptorFunction(),
    "version": VersionFunction(),
}
VERSION_MODULE_NAMES = {"Version": VersionClass()}
