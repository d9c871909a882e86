"""Torch tensors of a script's inputs: recipes replayed on the meta device now, on a real device later.

An `InputTensor` is one step of a recipe (a constructor, a tensor method, an operator) applied to
the tensors it names. The step is replayed at once on torch's `meta` device, which computes shape,
strides and dtype without allocating; the rank and bytes are checked there. `inputs.materialize`
replays the same steps on the chosen device. Only the methods and operators in the tables below
exist, and their arguments are numbers, dtypes, lists of them, slices or other input tensors.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from hfuse import settings
from hfuse.loader.budget import TORCH_CALL_STEPS
from hfuse.loader.values import MISSING, CallSite, Interpreted, TypeValue, describe, is_number
from hfuse.units import format_size

META = torch.device("meta")

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
_DTYPE_NAMES = {dtype: name for name, dtype in reversed(TORCH_DTYPES.items())}

_CAST_METHODS = {
    "float": torch.float32,
    "double": torch.float64,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "int": torch.int32,
    "long": torch.int64,
    "bool": torch.bool,
}
# method -> how torch replays it; every one gives a new tensor or a view, and in-place ones return it
# torch functions of one tensor that are these methods: torch.sqrt(x) is x.sqrt()
TENSOR_FUNCTIONS = frozenset({
    "t", "transpose", "permute", "unsqueeze", "squeeze", "reshape", "flatten", "narrow", "triu", "tril",
    "clone", "abs", "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "clamp",
    "clamp_min", "clamp_max", "sign", "round", "floor", "ceil", "reciprocal", "square", "pow", "sum", "mean",
    "var", "std", "amax", "amin", "argsort", "topk", "sort", "kthvalue",
})  # fmt: skip
# methods that give a (values, indices) pair: each part is replayed as its own step
_PAIRED_METHODS = ("topk", "sort", "kthvalue")
_PAIR_PARTS = ("values", "indices")
_METHODS: dict[str, Callable[..., torch.Tensor]] = {
    name: getattr(torch.Tensor, name)
    for name in (
        "as_strided", "contiguous", "expand", "expand_as", "view", "detach", "repeat", "to",
        "uniform_", "normal_", "fill_", "zero_", *TENSOR_FUNCTIONS,
    )
}  # fmt: skip
_METHODS.update(
    {
        f"{name}.{part}": lambda t, *args, _name=name, _part=part, **kwargs: getattr(
            getattr(torch.Tensor, _name)(t, *args, **kwargs), _part
        )
        for name in _PAIRED_METHODS
        for part in _PAIR_PARTS
    }
)
_DEVICE_METHODS = frozenset({"cuda", "cpu", "to", "requires_grad_"})
# facts of a tensor a script reads: name -> what they give
_FACTS: dict[str, Callable[[torch.Tensor, tuple[Any, ...]], Any]] = {
    "size": lambda t, args: tuple(t.shape) if not args else t.shape[args[0]],
    "stride": lambda t, args: tuple(t.stride()) if not args else t.stride(args[0]),
    "dim": lambda t, args: t.dim(),
    "numel": lambda t, args: t.numel(),
    "element_size": lambda t, args: t.element_size(),
    "is_contiguous": lambda t, args: t.is_contiguous(),
    # not the tensor's real address (the server's memory is none of a script's business): its offset from
    # a 256-byte-aligned base, so that questions of alignment (`data_ptr() % 16`) answer as on a GPU
    "data_ptr": lambda t, args: _ALIGNED_BASE + t.storage_offset() * t.element_size(),
}
_ALIGNED_BASE = 1 << 40
_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge,
}  # fmt: skip
_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "abs": operator.abs}

_SERIALS = itertools.count()


class TorchDtype(Interpreted):
    def __init__(self, name: str):
        self.label = f"torch.{name}"
        self.dtype = TORCH_DTYPES[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TorchDtype) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(self.dtype)

    def shown(self) -> str:
        return self.label


class UncomputedTorchDtype(Interpreted):
    """A torch dtype hfuse does not compute with (torch.float8_e8m0fnu, torch.uint16, ...): a script may
    name it, as in a list of dtypes it sweeps, and compare it; each other use is refused, naming it."""

    def __init__(self, name: str):
        self.name = name
        self.label = f"torch.{name} (a dtype hfuse does not compute with)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UncomputedTorchDtype) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def shown(self) -> str:
        return f"torch.{self.name}"


def refuse_uncomputed_dtypes(site: CallSite, values: list[Any]) -> None:
    for value in values:
        if isinstance(value, UncomputedTorchDtype):
            names = ", ".join(sorted(set(_DTYPE_NAMES.values())))
            raise site.error(f"torch.{value.name}: hfuse does not compute with this dtype; use {names}")


class TorchMemoryFormat(Interpreted):
    """`torch.channels_last` and the other memory formats `.to()` and `.contiguous()` take."""

    def __init__(self, name: str):
        self.label = f"torch.{name}"
        self.memory_format = MEMORY_FORMATS[name]

    def shown(self) -> str:
        return self.label


MEMORY_FORMATS = {
    "channels_last": torch.channels_last,
    "channels_last_3d": torch.channels_last_3d,
    "contiguous_format": torch.contiguous_format,
    "preserve_format": torch.preserve_format,
}


@dataclass(frozen=True, slots=True)
class Step:
    """One call of a recipe: a torch constructor, a tensor method or an operator, with its arguments."""

    name: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()
    site: CallSite | None = field(default=None, compare=False)  # where the script makes this call

    @property
    def label(self) -> str:
        if self.name == "make_tensor":
            return "torch.testing.make_tensor"
        return (
            f".{self.name}"
            if self.name in _METHODS or self.name in ("move", "operator", "[]")
            else f"torch.{self.name}"
        )


class InputTensor(Interpreted):
    """A tensor of the inputs: its meta twin (shape, strides, dtype) and the step that makes it for real.

    `base` is the tensor a method applies to; tensors among the step's arguments are made first too.
    `own_bytes` is the storage this step allocates (0 for a view); `serial` orders the steps as written.
    """

    label = "an input tensor"

    def __init__(
        self, meta: torch.Tensor, step: Step, base: InputTensor | None, on_cpu: bool, own_bytes: int
    ):
        self.meta = meta
        self.step = step
        self.base = base
        self.on_cpu = on_cpu
        self.own_bytes = own_bytes
        self.serial = next(_SERIALS)

    def attribute(self, name: str) -> Any:
        if name == "shape":
            return tuple(self.meta.shape)
        if name == "ndim":
            return self.meta.dim()
        if name == "dtype":
            return TorchDtype(_DTYPE_NAMES[self.meta.dtype])
        if (
            name in _METHODS
            or name in _DEVICE_METHODS
            or name in _CAST_METHODS
            or name in _FACTS
            or name == "type"
        ):
            return TensorMethod(self, name)
        return MISSING

    def operate(self, site: CallSite, symbol: str, other: Any, reflected: bool) -> Any:
        if other is MISSING:
            if symbol not in _UNARY:
                return MISSING
            return new_tensor(site, Step("operator", (symbol,)), self, self.on_cpu)
        if symbol not in _OPERATORS or not (is_number(other) or isinstance(other, InputTensor)):
            return MISSING
        return new_tensor(site, Step("operator", (symbol, other, reflected)), self, self.on_cpu)

    def item(self, site: CallSite, index: Any) -> InputTensor:
        parts = index if isinstance(index, tuple) else (index,)
        if not all(p is None or p is Ellipsis or isinstance(p, int | slice) for p in parts):
            raise site.error("an input tensor is indexed with whole numbers, slices, None and ...")
        return new_tensor(site, Step("[]", (index,)), self, self.on_cpu)

    def shown(self) -> str:
        return f"<tensor of shape {list(self.meta.shape)}, {self.meta.dtype}>"


class TensorType(TypeValue):
    """`torch.Tensor`, for isinstance."""

    label = "torch.Tensor"

    def holds(self, value: Any) -> bool:
        return isinstance(value, InputTensor)


class TensorMethod(Interpreted):
    def __init__(self, tensor: InputTensor, name: str):
        self.tensor = tensor
        self.name = name
        self.label = f"the tensor method {name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        tensor, name = self.tensor, self.name
        refuse_uncomputed_dtypes(site, [*args, *kwargs.values()])
        if name in _FACTS:
            if kwargs or len(args) > 1 or not all(isinstance(a, int) for a in args):
                raise site.error(f".{name}() takes at most one whole number")
            try:
                return _FACTS[name](tensor.meta, tuple(args))
            except (IndexError, RuntimeError) as err:
                raise site.error(f".{name}: {first_line(err)}") from None
        if name in _DEVICE_METHODS and name != "to":
            if name == "requires_grad_":
                return tensor
            _no_extra(site, name, args[1:] if name == "cuda" else args, kwargs)
            return new_tensor(site, Step("move", ()), tensor, name == "cpu")
        if name == "to":
            layout = kwargs.get("memory_format")
            if layout is not None and not isinstance(layout, TorchMemoryFormat):
                raise site.error(
                    f".to(): memory_format takes torch.channels_last and the like, not {describe(layout)}"
                )
            dtype, on_cpu = _to_arguments(
                site, args, {k: v for k, v in kwargs.items() if k != "memory_format"}, tensor.on_cpu
            )
            moved = tensor if on_cpu == tensor.on_cpu else new_tensor(site, Step("move", ()), tensor, on_cpu)
            cast = moved if dtype is None else new_tensor(site, Step("to", (dtype,)), moved, on_cpu)
            arranged = Step("contiguous", (), (("memory_format", layout),))
            return cast if layout is None else new_tensor(site, arranged, cast, on_cpu)
        if name in _CAST_METHODS:
            _no_extra(site, name, args, kwargs)
            return new_tensor(site, Step("to", (_CAST_METHODS[name],)), tensor, tensor.on_cpu)
        if name == "type":
            if kwargs or len(args) != 1 or not isinstance(args[0], TorchDtype):
                raise site.error(".type() takes a torch dtype here, as in .type(torch.float16)")
            return new_tensor(site, Step("to", (args[0].dtype,)), tensor, tensor.on_cpu)
        for value in [*args, *kwargs.values()]:
            check_plain(site, f".{name}", value, tensors=name == "expand_as")
        if name == "as_strided":
            _check_strided(site, tensor, args, kwargs)
        if name in _PAIRED_METHODS:
            return tuple(
                new_tensor(
                    site, Step(f"{name}.{part}", tuple(args), tuple(kwargs.items())), tensor, tensor.on_cpu
                )
                for part in _PAIR_PARTS
            )
        return new_tensor(site, Step(name, tuple(args), tuple(kwargs.items())), tensor, tensor.on_cpu)


def new_tensor(site: CallSite, step: Step, base: InputTensor | None, on_cpu: bool) -> InputTensor:
    """The tensor `step` makes (from `base`, for a method): replayed on the meta device and checked."""
    step = replace(step, site=site)
    site.charge(TORCH_CALL_STEPS)
    try:
        meta = replay(step, None if base is None else base.meta, META, None)
    except (RuntimeError, TypeError, ValueError, IndexError) as err:
        raise site.error(f"{step.label}: {first_line(err)}") from None
    view = base is not None and (meta is base.meta or meta._is_view())
    tensor = InputTensor(meta, step, base, on_cpu, 0 if view else storage_bytes(meta))
    check_rank(site, meta.dim())
    check_bytes(site, storage_bytes(meta))
    return tensor


def replay(
    step: Step, base: torch.Tensor | None, device: torch.device, made: dict[int, torch.Tensor] | None
) -> torch.Tensor:
    """Runs one step on `device`; tensors among its arguments are taken from `made` (their meta twins
    when `made` is None)."""
    args = tuple(_argument(a, device, made) for a in step.args)
    kwargs = {k: _argument(v, device, made) for k, v in step.kwargs}
    if base is None:
        if device.type == "meta" and step.name in _RANDOM:
            return _random_on_meta(step.name, args, kwargs)
        if step.name in JOINS:
            return JOINS[step.name](*args, **kwargs)
        return CONSTRUCTORS[step.name](*args, device=device, **kwargs)
    if step.name == "move":
        return base.to(device)
    if step.name == "[]":
        return base[args[0]]
    if step.name == "operator":
        if len(args) == 1:
            return _UNARY[args[0]](base)
        symbol, other, reflected = args
        return _OPERATORS[symbol](other, base) if reflected else _OPERATORS[symbol](base, other)
    return _METHODS[step.name](base, *args, **kwargs)


_RANDOM = frozenset({"randn", "rand", "randint", "make_tensor", "randn_like", "rand_like"})


def _random_on_meta(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> torch.Tensor:
    """A random tensor's meta twin: an empty one, which torch makes far faster on the meta device."""
    if name.endswith("_like"):
        return torch.empty_like(args[0], dtype=kwargs.get("dtype"), device=META)
    if name == "randint":
        size = kwargs["size"] if "size" in kwargs else args[-1]
        return torch.empty(size, dtype=kwargs.get("dtype", torch.int64), device=META)
    shape = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
    return torch.empty(shape, dtype=kwargs.get("dtype"), device=META)


def _argument(value: Any, device: torch.device, made: dict[int, torch.Tensor] | None) -> Any:
    if isinstance(value, InputTensor):
        if made is None:
            return value.meta
        tensor = made[value.serial]
        return tensor if tensor.device == device or tensor.dim() == 0 else tensor.to(device)
    if isinstance(value, TorchDtype):
        return value.dtype
    if isinstance(value, TorchMemoryFormat):
        return value.memory_format
    if isinstance(value, list | tuple):
        return type(value)(_argument(v, device, made) for v in value)
    return value


CONSTRUCTORS: dict[str, Callable[..., torch.Tensor]] = {
    "randn": torch.randn, "rand": torch.rand, "ones": torch.ones, "zeros": torch.zeros, "empty": torch.empty,
    "full": torch.full, "arange": torch.arange, "randint": torch.randint, "tensor": torch.tensor,
    "empty_strided": torch.empty_strided, "make_tensor": torch.testing.make_tensor,
    "randn_like": torch.randn_like, "rand_like": torch.rand_like, "zeros_like": torch.zeros_like,
    "ones_like": torch.ones_like, "empty_like": torch.empty_like, "full_like": torch.full_like,
}  # fmt: skip
JOINS: dict[str, Callable[..., torch.Tensor]] = {"cat": torch.cat, "stack": torch.stack}  # of input tensors


def first_line(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def storage_bytes(meta: torch.Tensor) -> int:
    return meta.untyped_storage().nbytes()


def check_plain(site: CallSite, where: str, value: Any, tensors: bool = False) -> None:
    """Arguments of constructors and methods: numbers, strings, dtypes and lists of them."""
    if isinstance(value, list | tuple):
        for item in value:
            check_plain(site, where, item, tensors)
    elif isinstance(value, TorchDtype | TorchMemoryFormat) or (tensors and isinstance(value, InputTensor)):
        return
    elif not (is_number(value) or value is None):
        raise site.error(
            f"{where}: {describe(value)} is not an argument it takes; pass numbers and lists of numbers"
        )


def _no_extra(site: CallSite, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    if args or kwargs:
        raise site.error(f".{name}() takes no arguments here")


def is_cpu(site: CallSite, device: Any) -> bool:
    """The script's device: 'cpu' stays on the CPU; 'cuda', 'cuda:N' or N mean the chosen device."""
    if device is None or (isinstance(device, int) and not isinstance(device, bool)):
        return False
    if isinstance(device, str) and (device in ("cpu", "cuda") or device.startswith("cuda:")):
        return device == "cpu"
    shown = f"{device!r:.40}" if isinstance(device, str) else describe(device)
    raise site.error(f"device={shown} is not a device; write 'cuda', 'cuda:0' or 'cpu'")


def _to_arguments(site: CallSite, args: list[Any], kwargs: dict[str, Any], on_cpu: bool) -> tuple[Any, bool]:
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    if "device" in kwargs:
        on_cpu = is_cpu(site, kwargs.pop("device"))
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise site.error(
            f".to(): the argument {sorted(kwargs)[0]} is not supported; "
            "pass a dtype, a device or a memory_format"
        )
    for arg in args:
        if isinstance(arg, TorchDtype):
            dtype = arg
        else:
            on_cpu = is_cpu(site, arg)
    return (dtype.dtype if dtype is not None else None), on_cpu


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
    check_rank(site, len(size))
    reach = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if all(size) else 0
    available = tensor.meta.untyped_storage().nbytes() // tensor.meta.element_size()
    if reach > available:
        raise site.error(
            f".as_strided: these sizes and strides reach element {reach - 1}; the tensor holds {available}"
        )


def check_rank(site: CallSite, rank: int) -> None:
    limit = settings.MAX_RANK.as_int()
    if rank > limit:
        raise site.limit(
            f"a tensor of rank {rank} is above the limit of {limit} (set {settings.MAX_RANK.env})"
        )


def check_bytes(site: CallSite, nbytes: int) -> None:
    limit = settings.MAX_INPUT_BYTES.as_bytes()
    if nbytes > limit:
        raise site.limit(
            f"this input needs {format_size(nbytes)}; the inputs may take {format_size(limit)} in all "
            f"(set {settings.MAX_INPUT_BYTES.env})"
        )
