"""`torch` as a script sees it: dtypes, tensor constructors, `*_like`, `torch.testing.make_tensor`,
`torch.Tensor` for isinstance, `torch.cuda`'s queries. Nothing else of torch exists for a script."""

from __future__ import annotations

import math
from typing import Any

import torch

from hfuse.loader.limits import INT_BITS
from hfuse.loader.tensors import (
    JOINS,
    MEMORY_FORMATS,
    TENSOR_FUNCTIONS,
    TORCH_DTYPES,
    InputTensor,
    Step,
    TensorType,
    TorchDtype,
    TorchMemoryFormat,
    UncomputedTorchDtype,
    check_bytes,
    check_plain,
    check_rank,
    is_cpu,
    new_tensor,
    refuse_uncomputed_dtypes,
)
from hfuse.loader.torch_cuda import TorchCuda
from hfuse.loader.values import MISSING, CallSite, Interpreted, describe, is_number

# constructor -> keyword arguments it takes besides dtype / device / requires_grad
_CONSTRUCTORS = {
    "randn": (), "rand": (), "ones": (), "zeros": (), "empty": (),
    "full": ("size", "fill_value"), "arange": ("start", "end", "step"), "randint": ("low", "high", "size"),
    "tensor": (), "make_tensor": ("low", "high", "exclude_zero"), "empty_strided": ("size", "stride"),
    "randn_like": (), "rand_like": (), "zeros_like": (), "ones_like": (), "empty_like": (),
    "full_like": ("fill_value",), "cat": ("dim",), "stack": ("dim",),
}  # fmt: skip
_SHAPE_FIRST = frozenset({"randn", "rand", "ones", "zeros", "empty", "make_tensor"})


# the submodules a script may import (`import torch.nn.functional as F`): what a test computes with them
# after running the fusion is its eager reference, passed over; a definition finds nothing in them
SUBMODULES = frozenset({"torch.testing", "torch.nn", "torch.nn.functional", "torch.special", "torch.linalg"})


class TorchNamespace(Interpreted):
    """`torch` and its submodules, reduced to dtypes and tensor constructors (`torch.testing.make_tensor`,
    `torch.nn.Parameter`)."""

    def __init__(self, label: str = "torch"):
        self.label = label

    def attribute(self, name: str) -> Any:
        if f"{self.label}.{name}" in SUBMODULES:
            return TorchNamespace(f"{self.label}.{name}")
        if self.label == "torch.testing":
            return TorchConstructor(name) if name == "make_tensor" else MISSING
        if self.label == "torch.nn":
            return TorchParameter() if name == "Parameter" else MISSING
        if self.label != "torch":
            return MISSING
        if name == "Tensor":
            return TensorClass()
        if name == "device":
            return TorchDevice()
        if name == "cuda":
            return TorchCuda()
        if name == "range":
            return TorchRange()
        if name in TORCH_DTYPES:
            return TorchDtype(name)
        if isinstance(getattr(torch, name, None), torch.dtype):
            return UncomputedTorchDtype(name)
        if name in MEMORY_FORMATS:
            return TorchMemoryFormat(name)
        if name in _CONSTRUCTORS and name != "make_tensor":
            return TorchConstructor(name)
        if name in TENSOR_FUNCTIONS:
            return TorchTensorFunction(name)
        return MISSING


class TensorClass(TensorType):
    """`torch.Tensor`: a type for isinstance, and `torch.Tensor([4, 3, 2, 1])`, a float32 torch.tensor."""

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        if kwargs or len(args) != 1 or not isinstance(args[0], list | tuple):
            raise site.error("torch.Tensor takes a list of numbers; write torch.tensor(values, dtype=...)")
        return TorchConstructor("tensor").call(site, args, {"dtype": TorchDtype("float32")})


class TorchDevice(Interpreted):
    """`torch.device("cuda")`, `torch.device("cuda", 0)`: the device's name, as a script may also write it."""

    label = "torch.device"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> str:
        given = [*args, *kwargs.values()]
        if kwargs.keys() - {"type", "index"} or not 1 <= len(given) <= 2 or not isinstance(given[0], str):
            raise site.error(
                "torch.device takes a device's name and an optional index: torch.device('cuda', 0)"
            )
        name = given[0] if len(given) == 1 else f"{given[0]}:{given[1]}"
        is_cpu(site, name)  # refuses anything but cpu, cuda and cuda:N
        return name


class TorchParameter(Interpreted):
    """`torch.nn.Parameter(t)`: the tensor itself, since gradients play no part in a fusion's inputs."""

    label = "torch.nn.Parameter"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        if set(kwargs) - {"requires_grad"} or len(args) != 1 or not isinstance(args[0], InputTensor):
            raise site.error("torch.nn.Parameter takes an input tensor (and requires_grad=)")
        return args[0]


class TorchTensorFunction(Interpreted):
    """`torch.sqrt(x)` and the like: the tensor method of the same name, on an input tensor."""

    def __init__(self, name: str):
        self.name = name
        self.label = f"torch.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if not args or not isinstance(args[0], InputTensor):
            raise site.error(f"{self.label} takes an input tensor first")
        return args[0].attribute(self.name).call(site, list(args[1:]), kwargs)


class TorchRange(Interpreted):
    """`torch.range(start, end, step=1)`, torch's deprecated range: its end is included and its dtype is
    float32 unless given. Made as the torch.arange of the same numbers."""

    label = "torch.range"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        bounds = {"step": 1, **dict(zip(("start", "end", "step"), args, strict=False))}
        bounds.update((k, kwargs.pop(k)) for k in ("start", "end", "step") if k in kwargs)
        if len(args) > 3 or not all(
            is_number(bounds.get(k)) and not isinstance(bounds[k], complex) and math.isfinite(bounds[k])
            for k in ("start", "end", "step")
        ):
            raise site.error("torch.range(start, end, step=1) takes finite numbers")
        start, end, step = bounds["start"], bounds["end"], bounds["step"]
        if step == 0 or (end - start) / step < 0:
            raise site.error(
                f"torch.range({start!r}, {end!r}, {step!r}): the step's sign must lead from start to end"
            )
        # arange's end is excluded: half a step past the last number
        last = math.floor((end - start) / step) if (end - start) / step < 2**INT_BITS else 2**INT_BITS
        arange_end = start + (last + 0.5) * step
        kwargs.setdefault("dtype", TorchDtype("float32"))
        return TorchConstructor("arange").call(site, [start, arange_end, step], kwargs)


class TorchConstructor(Interpreted):
    def __init__(self, name: str):
        self.name = name
        self.label = f"torch.testing.{name}" if name == "make_tensor" else f"torch.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        refuse_uncomputed_dtypes(site, [*args, *kwargs.values()])
        kwargs = dict(kwargs)
        kwargs.pop("requires_grad", None)
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        if dtype is not None and not isinstance(dtype, TorchDtype):
            raise site.error(
                f"{self.label}: dtype must be a torch dtype such as torch.float32, not {describe(dtype)}"
            )
        unknown = set(kwargs) - set(_CONSTRUCTORS[self.name])
        if unknown:
            raise site.error(
                f"{self.label}: the argument {sorted(unknown)[0]} is not supported; use shape, dtype, device"
                + "".join(f", {k}" for k in _CONSTRUCTORS[self.name])
            )
        if self.name in JOINS:
            return self._join(site, args, kwargs)
        like = self.name.endswith("_like")
        if like and (not args or not isinstance(args[0], InputTensor)):
            raise site.error(f"{self.label} takes an input tensor first")
        for value in [*(args[1:] if like else args), *kwargs.values()]:
            check_plain(site, self.label, value)
        on_cpu = args[0].on_cpu if like and device is None else is_cpu(site, device)
        self._check_size(site, args, kwargs, dtype.dtype if dtype else torch.float32)
        if self.name == "make_tensor" and dtype is None:
            raise site.error("torch.testing.make_tensor needs dtype=, e.g. dtype=torch.float32")
        typed = {"dtype": dtype.dtype} if dtype is not None else {}
        return new_tensor(
            site, Step(self.name, tuple(args), tuple({**kwargs, **typed}.items())), None, on_cpu
        )

    def _join(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        """torch.cat or torch.stack of input tensors."""
        tensors = args[0] if args else None
        if (
            len(args) > 2
            or not isinstance(tensors, list | tuple)
            or not tensors
            or not all(isinstance(t, InputTensor) for t in tensors)
        ):
            raise site.error(f"{self.label} takes a list of input tensors and a dim")
        check_plain(site, self.label, [*args[1:], *kwargs.values()])
        step = Step(self.name, (list(tensors), *args[1:]), tuple(kwargs.items()))
        return new_tensor(site, step, None, tensors[0].on_cpu)

    def _check_size(
        self, site: CallSite, args: list[Any], kwargs: dict[str, Any], dtype: torch.dtype
    ) -> None:
        """Shape, rank and bytes, before torch sees the arguments."""
        if self.name in _SHAPE_FIRST:
            shape = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
            _check_shape(site, self.label, shape, dtype)
        elif self.name == "full":
            _check_shape(site, self.label, args[0] if args else kwargs.get("size"), torch.float64)
        elif self.name == "randint":
            shape = kwargs["size"] if "size" in kwargs else (args[-1] if args else None)
            _check_shape(site, self.label, shape, torch.int64)
        elif self.name == "arange":
            _check_arange(site, args, kwargs)
        elif self.name == "empty_strided":
            named = dict(zip(("size", "stride"), args, strict=False)) | kwargs
            _check_strides(site, named.get("size"), named.get("stride"), dtype)


def _check_shape(site: CallSite, where: str, shape: Any, dtype: torch.dtype) -> None:
    if not isinstance(shape, list | tuple) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in shape
    ):
        raise site.error(f"{where}: the shape must be whole numbers, given as arguments or as one list")
    negative = [n for n in shape if n < 0]
    if negative:
        raise site.error(f"{where}: the extent {negative[0]} is negative; extents are 0 or more")
    check_rank(site, len(shape))
    check_bytes(site, math.prod(shape) * dtype.itemsize)


def _check_strides(site: CallSite, size: Any, stride: Any, dtype: torch.dtype) -> None:
    _check_shape(site, "torch.empty_strided", size, dtype)
    if (
        not isinstance(stride, list | tuple)
        or len(stride) != len(size)
        or not all(isinstance(s, int) and s >= 0 for s in stride)
    ):
        raise site.error("torch.empty_strided: the strides are one non-negative whole number per dim")
    reach = 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if all(size) else 0
    check_bytes(site, reach * dtype.itemsize)


def _check_arange(site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> None:
    bounds = {
        "start": 0,
        "step": 1,
        **dict(zip(("end",) if len(args) == 1 else ("start", "end", "step"), args, strict=False)),
    }
    bounds.update(kwargs)
    if not all(
        is_number(bounds.get(k)) and not isinstance(bounds[k], complex) for k in ("start", "end", "step")
    ):
        raise site.error(
            "torch.arange needs numbers: arange(end), arange(start, end) or arange(start, end, step)"
        )
    start, end, step = bounds["start"], bounds["end"], bounds["step"]
    if not all(math.isfinite(v) for v in (start, end, step)):
        raise site.error(
            f"torch.arange({start!r}, {end!r}, {step!r}): start, end and step must be finite numbers"
        )
    if step == 0:
        raise site.error("torch.arange: step must not be zero")
    count = (end - start) / step  # a float: a tiny step makes it overflow to inf, never raise
    if not abs(count) < 2**INT_BITS:
        raise site.limit(
            f"torch.arange({start!r}, {end!r}, {step!r}) would hold more numbers than fit in 64 bits; "
            "use a larger step or a shorter range (this bound is fixed, no setting changes it)"
        )
    check_bytes(site, max(math.ceil(count), 0) * 8)
