"""The script's `inputs = [...]` list: torch tensor constructors read from the AST, allocated later.

Each constructor call and tensor method is first replayed on torch's `meta` device, which
computes shapes, strides and dtypes without allocating; sizes are checked against
HFUSE_MAX_RANK and HFUSE_MAX_INPUT_BYTES there. `materialize` then replays the same recipe
on the chosen device. Only the functions, methods and dtypes named in the tables below exist.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from hfuse import settings
from hfuse.dtypes import DataType
from hfuse.errors import LimitError
from hfuse.ir import Fusion, Value
from hfuse.loader.interpreter import MISSING, CallSite, Interpreted, describe, is_number
from hfuse.units import format_size

TORCH_DTYPES = {
    "float32": torch.float32, "float": torch.float32,
    "float64": torch.float64, "double": torch.float64,
    "float16": torch.float16, "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
    "int64": torch.int64, "long": torch.int64,
    "int32": torch.int32, "int": torch.int32,
    "int16": torch.int16, "short": torch.int16,
    "int8": torch.int8, "uint8": torch.uint8, "uint64": torch.uint64,
    "bool": torch.bool,
    "complex64": torch.complex64, "cfloat": torch.complex64,
    "complex128": torch.complex128, "cdouble": torch.complex128,
}  # fmt: skip

# constructor -> keyword arguments it takes besides dtype / device / requires_grad
_CONSTRUCTORS = {
    "randn": (), "rand": (), "ones": (), "zeros": (), "empty": (),
    "full": ("size", "fill_value"), "arange": ("start", "end", "step"), "randint": ("low", "high", "size"),
    "tensor": (), "make_tensor": ("low", "high", "exclude_zero"),
}  # fmt: skip
_SHAPE_FIRST = frozenset({"randn", "rand", "ones", "zeros", "empty", "make_tensor"})
_CAST_METHODS = {
    "float": torch.float32,
    "double": torch.float64,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "int": torch.int32,
    "long": torch.int64,
    "bool": torch.bool,
}
_LAYOUT_METHODS = frozenset(
    {"as_strided", "triu", "tril", "t", "transpose", "permute", "contiguous", "unsqueeze", "expand"}
)
_DEVICE_METHODS = frozenset({"cuda", "cpu", "to", "requires_grad_"})


class TorchDtype(Interpreted):
    def __init__(self, name: str):
        self.label = f"torch.{name}"
        self.dtype = TORCH_DTYPES[name]


class TorchNamespace(Interpreted):
    """`torch` and `torch.testing`, reduced to dtypes and tensor constructors."""

    def __init__(self, label: str = "torch"):
        self.label = label

    def attribute(self, name: str) -> Any:
        if self.label == "torch.testing":
            return TorchConstructor(name) if name == "make_tensor" else MISSING
        if name == "testing":
            return TorchNamespace("torch.testing")
        if name in TORCH_DTYPES:
            return TorchDtype(name)
        if name in _CONSTRUCTORS and name != "make_tensor":
            return TorchConstructor(name)
        return MISSING


@dataclass(frozen=True, slots=True)
class Step:
    """One call of a recipe: a torch constructor (first step) or a tensor method."""

    name: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()
    site: CallSite | None = field(default=None, compare=False)  # where the script makes this call


class InputTensor(Interpreted):
    """A tensor of the inputs list: its meta twin (shape, strides, dtype) and how to make it for real."""

    label = "an input tensor"

    def __init__(self, meta: torch.Tensor, steps: tuple[Step, ...], on_cpu: bool, nbytes: int):
        self.meta = meta
        self.steps = steps
        self.on_cpu = on_cpu
        self.nbytes = nbytes

    def attribute(self, name: str) -> Any:
        if name == "shape":
            return tuple(self.meta.shape)
        if name == "ndim":
            return self.meta.dim()
        if name in _LAYOUT_METHODS or name in _DEVICE_METHODS or name in _CAST_METHODS:
            return TensorMethod(self, name)
        return MISSING


class TensorMethod(Interpreted):
    def __init__(self, tensor: InputTensor, name: str):
        self.tensor = tensor
        self.name = name
        self.label = f"the tensor method {name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        tensor = self.tensor
        on_cpu = tensor.on_cpu
        if self.name in _DEVICE_METHODS:
            if self.name == "requires_grad_":
                return tensor
            if self.name != "to":
                _no_extra(site, self.name, args[1:] if self.name == "cuda" else args, kwargs)
                return _with_step(site, tensor, None, self.name == "cpu")
            dtype, on_cpu = _to_arguments(site, args, kwargs, on_cpu)
            step = Step("to", (dtype,)) if dtype is not None else None
            return _with_step(site, tensor, step, on_cpu)
        if self.name in _CAST_METHODS:
            _no_extra(site, self.name, args, kwargs)
            return _with_step(site, tensor, Step("to", (_CAST_METHODS[self.name],)), on_cpu)
        for value in [*args, *kwargs.values()]:
            _check_plain(site, self.name, value)
        if self.name == "as_strided":
            _check_strided(site, tensor, args, kwargs)
        return _with_step(site, tensor, Step(self.name, tuple(args), tuple(kwargs.items())), on_cpu)


class TorchConstructor(Interpreted):
    def __init__(self, name: str):
        self.name = name
        self.label = f"torch.testing.{name}" if name == "make_tensor" else f"torch.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> InputTensor:
        kwargs = dict(kwargs)
        kwargs.pop("requires_grad", None)
        on_cpu = _is_cpu(site, kwargs.pop("device", None))
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
        for value in [*args, *kwargs.values()]:
            _check_plain(site, self.label, value)
        if self.name in _SHAPE_FIRST:
            shape = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
            _check_shape(site, self.label, shape, dtype.dtype if dtype else torch.float32)
        elif self.name == "full":
            _check_shape(site, self.label, args[0] if args else kwargs.get("size"), torch.float64)
        elif self.name == "randint":
            shape = kwargs["size"] if "size" in kwargs else (args[-1] if args else None)
            _check_shape(site, self.label, shape, torch.int64)
        elif self.name == "arange":
            _check_arange(site, args, kwargs)
        typed = {"dtype": dtype.dtype} if dtype is not None else {}
        if self.name == "make_tensor" and dtype is None:
            raise site.error("torch.testing.make_tensor needs dtype=, e.g. dtype=torch.float32")
        step = Step(self.name, tuple(args), tuple({**kwargs, **typed}.items()), site)
        try:
            meta = _replay(step, None, torch.device("meta"))
        except (RuntimeError, TypeError, ValueError) as err:
            raise site.error(f"{self.label}: {_first_line(err)}") from None
        return _checked(site, InputTensor(meta, (step,), on_cpu, _storage_bytes(meta)))


def _first_line(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def _check_plain(site: CallSite, where: str, value: Any) -> None:
    """Arguments of constructors and methods: numbers, strings, dtypes and lists of them."""
    if isinstance(value, list | tuple):
        for item in value:
            _check_plain(site, where, item)
    elif isinstance(value, TorchDtype):
        return
    elif not (is_number(value) or value is None):
        raise site.error(
            f"{where}: {describe(value)} is not an argument it takes; pass numbers and lists of numbers"
        )


def _no_extra(site: CallSite, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    if args or kwargs:
        raise site.error(f".{name}() takes no arguments here")


def _is_cpu(site: CallSite, device: Any) -> bool:
    """The script's device: 'cpu' stays on the CPU; 'cuda', 'cuda:N' or N mean the chosen device."""
    if device is None or (isinstance(device, int) and not isinstance(device, bool)):
        return False
    if isinstance(device, str) and (device in ("cpu", "cuda") or device.startswith("cuda:")):
        return device == "cpu"
    raise site.error(f"device={device!r:.40} is not a device; write 'cuda', 'cuda:0' or 'cpu'")


def _to_arguments(site: CallSite, args: list[Any], kwargs: dict[str, Any], on_cpu: bool) -> tuple[Any, bool]:
    dtype = kwargs.pop("dtype", None)
    if "device" in kwargs:
        on_cpu = _is_cpu(site, kwargs.pop("device"))
    if kwargs:
        raise site.error(
            f".to(): the argument {sorted(kwargs)[0]} is not supported; pass a dtype and/or a device"
        )
    for arg in args:
        if isinstance(arg, TorchDtype):
            dtype = arg
        else:
            on_cpu = _is_cpu(site, arg)
    return (dtype.dtype if dtype is not None else None), on_cpu


def _check_shape(site: CallSite, where: str, shape: Any, dtype: torch.dtype) -> None:
    if not isinstance(shape, list | tuple) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in shape
    ):
        raise site.error(f"{where}: the shape must be whole numbers, given as arguments or as one list")
    negative = [n for n in shape if n < 0]
    if negative:
        raise site.error(f"{where}: the extent {negative[0]} is negative; extents are 0 or more")
    _check_rank(site, len(shape))
    _check_bytes(site, math.prod(shape) * dtype.itemsize)


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
    if bounds["step"] == 0:
        raise site.error("torch.arange: step must not be zero")
    length = math.ceil((bounds["end"] - bounds["start"]) / bounds["step"])
    if not math.isfinite(length):
        raise site.error("torch.arange: the bounds must be finite")
    _check_bytes(site, max(length, 0) * 8)


def _check_strided(site: CallSite, tensor: InputTensor, args: list[Any], kwargs: dict[str, Any]) -> None:
    named = dict(zip(("size", "stride", "storage_offset"), args, strict=False)) | kwargs
    size, stride, offset = named.get("size"), named.get("stride"), named.get("storage_offset", 0)
    for what, value in (("size", size), ("stride", stride)):
        if not isinstance(value, list | tuple) or not all(isinstance(n, int) and n >= 0 for n in value):
            raise site.error(f".as_strided: {what} must be a list of non-negative whole numbers")
    if len(size) != len(stride) or not isinstance(offset, int) or offset < 0:
        raise site.error(
            ".as_strided(size, stride[, storage_offset]): size and stride need one entry per dim"
        )
    _check_rank(site, len(size))
    reach = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if all(size) else 0
    available = tensor.meta.untyped_storage().nbytes() // tensor.meta.element_size()
    if reach > available:
        raise site.error(
            f".as_strided: these sizes and strides reach element {reach - 1}; the tensor holds {available}"
        )


def _check_rank(site: CallSite, rank: int) -> None:
    limit = settings.MAX_RANK.as_int()
    if rank > limit:
        raise site.limit(
            f"a tensor of rank {rank} is above the limit of {limit} (set {settings.MAX_RANK.env})"
        )


def _check_bytes(site: CallSite, nbytes: int) -> None:
    limit = settings.MAX_INPUT_BYTES.as_bytes()
    if nbytes > limit:
        raise site.limit(
            f"this input needs {format_size(nbytes)}; the inputs may take {format_size(limit)} in all "
            f"(set {settings.MAX_INPUT_BYTES.env})"
        )


def _checked(site: CallSite, tensor: InputTensor) -> InputTensor:
    _check_rank(site, tensor.meta.dim())
    _check_bytes(site, tensor.nbytes)
    return tensor


def _storage_bytes(meta: torch.Tensor) -> int:
    return meta.untyped_storage().nbytes()


def _with_step(site: CallSite, tensor: InputTensor, step: Step | None, on_cpu: bool) -> InputTensor:
    if step is None:
        return InputTensor(tensor.meta, tensor.steps, on_cpu, tensor.nbytes)
    step = replace(step, site=site)
    try:
        meta = _replay(step, tensor.meta, torch.device("meta"))
    except (RuntimeError, TypeError, ValueError, IndexError) as err:
        raise site.error(f".{step.name}: {_first_line(err)}") from None
    return _checked(
        site, InputTensor(meta, (*tensor.steps, step), on_cpu, max(tensor.nbytes, _storage_bytes(meta)))
    )


def _replay(step: Step, tensor: torch.Tensor | None, device: torch.device) -> torch.Tensor:
    kwargs = dict(step.kwargs)
    args = tuple(a.dtype if isinstance(a, TorchDtype) else a for a in step.args)
    if tensor is not None:
        return _TENSOR_METHODS[step.name](tensor, *args, **kwargs)
    if step.name == "make_tensor" and device.type == "meta":
        shape = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
        return torch.empty(shape, dtype=kwargs["dtype"], device=device)
    return _CONSTRUCTOR_FUNCTIONS[step.name](*args, device=device, **kwargs)


_CONSTRUCTOR_FUNCTIONS = {
    "randn": torch.randn, "rand": torch.rand, "ones": torch.ones, "zeros": torch.zeros, "empty": torch.empty,
    "full": torch.full, "arange": torch.arange, "randint": torch.randint, "tensor": torch.tensor,
    "make_tensor": torch.testing.make_tensor,
}  # fmt: skip
_TENSOR_METHODS = {
    "as_strided": torch.Tensor.as_strided, "triu": torch.Tensor.triu, "tril": torch.Tensor.tril,
    "t": torch.Tensor.t, "transpose": torch.Tensor.transpose, "permute": torch.Tensor.permute,
    "contiguous": torch.Tensor.contiguous, "unsqueeze": torch.Tensor.unsqueeze, "expand": torch.Tensor.expand,
    "to": torch.Tensor.to,
}  # fmt: skip


def check_total_bytes(site: CallSite, inputs: list[Any]) -> None:
    _check_bytes(site, sum(value.nbytes for value in inputs if isinstance(value, InputTensor)))


def materialize(inputs: list[Any], device: torch.device) -> list[Any]:
    """The real inputs: each recipe replayed on `device` (or the CPU, where the script said 'cpu')."""
    made = []
    for value in inputs:
        if not isinstance(value, InputTensor):
            made.append(value)
            continue
        target = torch.device("cpu") if value.on_cpu else device
        tensor = None
        for step in value.steps:
            try:
                tensor = _replay(step, tensor, target)
            except (RuntimeError, TypeError, ValueError, IndexError) as err:
                # Values the meta device does not look at: bounds of randint, low < high, ragged lists.
                assert step.site is not None
                what = f".{step.name}" if tensor is not None else TorchConstructor(step.name).label
                raise step.site.error(f"{what}: {_first_line(err)}") from None
        made.append(tensor)
    return made


def meta_twins(inputs: list[Any]) -> list[Any]:
    """The inputs with every tensor on the meta device (a 0-dim CPU tensor, nvFuser's CPU scalar, stays
    one): the definition can be built from these before anything is allocated."""
    twins = []
    for value in inputs:
        if isinstance(value, InputTensor) and value.on_cpu and value.meta.dim() == 0:
            twins.append(torch.empty((), dtype=value.meta.dtype))
        else:
            twins.append(value.meta if isinstance(value, InputTensor) else value)
    return twins


def is_input_list(value: Any) -> bool:
    """Tensors and numbers; a list of numbers gives the values of a define_vector(n)."""
    return isinstance(value, list | tuple) and all(
        isinstance(v, InputTensor) or is_number(v) or (isinstance(v, list | tuple) and all(map(is_number, v)))
        for v in value
    )


def random_inputs(fusion: Fusion, device: torch.device) -> list[Any]:
    """Inputs for a script without an inputs list: random tensors laid out as the definition says."""
    values = [fusion.value(name) for name in fusion.inputs]
    total = sum(_storage_elements(v.shape, v.strides) * v.dtype.itemsize for v in values if v.is_tensor)
    limit = settings.MAX_INPUT_BYTES.as_bytes()
    if total > limit:
        raise LimitError(
            f"the definition's inputs need {format_size(total)}; the inputs may take {format_size(limit)} "
            f"in all (set {settings.MAX_INPUT_BYTES.env})"
        )
    return [_random_tensor(v, device) if v.is_tensor else _EXAMPLE_SCALARS[_kind(v.dtype)] for v in values]


_EXAMPLE_SCALARS = {"float": 0.5, "int": 3, "bool": True, "complex": 0.5 + 0.25j}


def _kind(dtype: DataType) -> str:
    if dtype is DataType.Bool:
        return "bool"
    if dtype.is_complex:
        return "complex"
    return "int" if dtype.is_int else "float"


def _storage_elements(shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    if not all(shape):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))


def _random_tensor(value: Value, device: torch.device) -> torch.Tensor:
    count = _storage_elements(value.shape, value.strides)
    kind = _kind(value.dtype)
    if kind == "bool":
        flat = torch.randint(0, 2, (count,), device=device).bool()
    elif kind == "int":
        flat = torch.randint(0, 10, (count,), device=device).to(value.dtype.torch)
    else:
        flat = torch.randn(
            count, device=device, dtype=torch.complex64 if kind == "complex" else torch.float32
        )
        flat = flat.to(value.dtype.torch)
    return flat.as_strided(value.shape, value.strides)
