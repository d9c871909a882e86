"""FusionDefinition: the nvFuser Python API (legacy `nvfuser` and `nvfuser_direct` flavours).

Calls are recorded in canonical form (records.py); `fusion(inputs)` binds them to concrete
inputs (binding.py) and caches one Fusion per input signature; `execute` runs that Fusion with
the torch reference ("eager") or the hfuse runtime.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NamedTuple

import torch

from hfuse import settings
from hfuse.backends import EAGER, HFUSE
from hfuse.dtypes import DataType, python_dtype
from hfuse.errors import DefinitionError, HfuseError, LimitError, ValidationError, loc_of
from hfuse.frontend import legacy
from hfuse.frontend.binding import (
    build,
    coerce,
    draw_seed,
    example_tensors,
    input_records,
    signature,
    with_seeds,
)
from hfuse.frontend.handles import Handle, Scalar, Tensor, Vector
from hfuse.frontend.operands import NUMBER_TYPES
from hfuse.frontend.ops import Ops
from hfuse.frontend.records import (
    Call,
    Constant,
    Extent,
    OutputRecord,
    Record,
    ScalarInput,
    TensorInput,
    TensorSpec,
    print_records,
)
from hfuse.ir import Fusion, Op

# keywords of nvFuser's execute that change nothing in hfuse
IGNORED_EXECUTE_KEYWORDS = frozenset({
    "override_user_schedule", "capture_debug_output", "print_repro", "save_repro_inputs",
    "_enable_options", "_disable_options",
})  # fmt: skip


class LastRun(NamedTuple):  # a tuple: made on every call, and cheaper to make than a dataclass
    backend: str
    fusion: Fusion
    profile: Any  # FusionProfile when execute(profile=True) ran on the runtime
    compiled: Any  # the runtime's compiled fusion; None for the eager backend


class _Prepared(NamedTuple):
    """A runtime plan kept for one (backend, alias_outputs), and the LastRun its cached calls report."""

    plan: Any  # the runtime's Plan
    last: LastRun


@dataclass(slots=True)
class _Bound:
    """What the calls with one `_inputs_key` share."""

    fusion: Fusion
    has_scalars: bool  # some input is a Python number (fusion_ir shows their values)
    cpu_scalars: bool  # some input is a 0-d CPU tensor (`_cpu_scalars_on_the_run_device`)
    plans: dict[tuple[str, bool], _Prepared] = field(default_factory=dict)  # by (backend, alias_outputs)
    recent: tuple[Fusion, dict[str, Any]] = field(init=False)  # `_recent` when there are no scalars

    def __post_init__(self) -> None:
        self.recent = (self.fusion, {})


@functools.cache
def _runtime() -> ModuleType:
    """hfuse.runtime, imported on the first run (its `prepare` brings in Triton)."""
    import hfuse.runtime

    return hfuse.runtime


MAX_INPUT_KEYS = 64  # input layouts (and scalar values) remembered per definition


def flat_inputs(inputs: Sequence[Any] | None) -> list[Any] | None:
    """The inputs with each list or tuple (the values of a define_vector(n)) spread in place."""
    if inputs is None:
        return None
    flat: list[Any] = []
    for x in inputs:
        if isinstance(x, (list, tuple)):  # a tuple of types: `list | tuple` would be built on every input
            flat.extend(x)
        else:
            flat.append(x)
    return flat


def _has_cpu_scalars(inputs: list[Any]) -> bool:
    return any(type(x) is torch.Tensor and not x.dim() and x.device.type == "cpu" for x in inputs)


def _cpu_scalars_on_the_run_device(inputs: list[Any]) -> list[Any]:
    """nvFuser takes a 0-d CPU tensor (`is_cpu=True`, what `from_pytorch` makes of one) beside GPU tensors
    as a scalar: here it goes to the device the kernels run on, and so do the outputs made from it alone,
    for every backend alike."""
    from hfuse.runtime.device import run_device

    device = run_device()
    if device.type == "cpu":
        return inputs
    return [x.to(device) if type(x) is torch.Tensor and not x.dim() else x for x in inputs]


def _write_in_place(fusion: Fusion, inputs: Sequence[Any], results: list[torch.Tensor]) -> list[torch.Tensor]:
    """Outputs added with `alias_input` are written into that input and not returned, as nvFuser does."""
    positions = {name: i for i, name in enumerate(fusion.inputs)}
    for out, result in zip(fusion.outputs, results, strict=True):
        if out.alias_input is not None:
            inputs[positions[out.alias_input]].copy_(result)
    return [r for r, out in zip(results, fusion.outputs, strict=True) if out.alias_input is None]


def _inputs_key(inputs: Sequence[Any] | None) -> tuple | None:
    """Layouts, dtypes and devices of the tensors, types and values of the scalars: finer than the
    binding's `signature`, which leaves out the scalars that shape nothing, and much cheaper to make."""
    if inputs is None:
        return None
    key = []  # a loop: a comprehension (or a generator) costs more than the key itself for a few inputs
    for x in inputs:
        if isinstance(x, torch.Tensor):
            key.append((x.dtype, x.shape, x.stride(), x.device))
        else:
            key.append((type(x), x))
    return tuple(key)


def _scalar_values(fusion: Fusion, inputs: Sequence[Any]) -> dict[str, Any]:
    scalars = zip(fusion.inputs, inputs, strict=False)
    return {name: value for name, value in scalars if isinstance(value, NUMBER_TYPES)}


class FusionDefinition:
    """Record a fusion with `with FusionDefinition() as fd: ...` (or a `definition(self)` method),
    then `fd.execute(inputs)`.

    The constructor takes nvFuser's arguments (id, max_length, ...) and ignores them.
    """

    def __init__(self, id: int | None = None, max_length: int = 9999, **ignored: Any) -> None:  # noqa: A002
        self.ops = Ops(self)
        self._loc: tuple[int, int] | None = None
        self._reset()

    def _reset(self) -> None:
        self._records: list[Record] = []
        self._counts = {"T": 0, "S": 0, "V": 0}
        self._cache: dict[Any, Fusion] = {}
        self._by_inputs: dict[tuple, _Bound] = {}  # the same fusions by a finer, cheaper key: _inputs_key
        self._last: LastRun | None = None
        self._recent: tuple[Fusion, dict[str, Any]] | None = None  # last fusion() and its scalar inputs
        self._drawn_seed: Scalar | None = None  # the seed of the random ops given none, once there is one
        self._unseeded = 0  # random ops given no seed so far
        self._added_inputs = 0  # fd.add_input calls of a 2022 script

    def __enter__(self) -> FusionDefinition:
        self._reset()
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        return False

    def definition(self) -> None:
        """Overridden by subclasses (the legacy subclass style); called by fusion() and execute()."""

    def schedule(self) -> None:
        """nvFuser's manual scheduling hook; hfuse schedules by itself and never calls it."""

    # recording
    def _error(self, message: str) -> DefinitionError:
        return DefinitionError(message, loc=loc_of(self._loc))

    def _record(self, record: Record) -> None:
        limit = settings.MAX_OPS.as_int()
        if len(self._records) >= limit:
            raise LimitError(
                f"the definition records more than {limit} calls; raise {settings.MAX_OPS.env} to allow more"
            )
        self._records.append(record)
        self._cache.clear()
        self._by_inputs.clear()
        self._recent = None

    def _name(self, prefix: str) -> str:
        self._counts[prefix] += 1
        return f"{prefix}{self._counts[prefix] - 1}"

    def _new_tensor(self, ndim: int) -> Tensor:
        return Tensor(self, self._name("T"), ndim)

    def _new_scalar(self) -> Scalar:
        return Scalar(self, self._name("S"))

    def _vector(self, entries: tuple[int | Scalar, ...]) -> Vector:
        return Vector(self, self._name("V"), entries)

    def _constant(self, value: Any, dtype: DataType | None, like: Tensor | None = None) -> Scalar:
        if dtype is not None:
            value = coerce(value, dtype, "define_scalar")
        out = self._new_scalar()
        self._record(Constant(out, value, dtype, like, self._loc))
        return out

    def _extent(self, tensor: Tensor, dim: int) -> Scalar:
        out = self._new_scalar()
        self._record(Extent(out, tensor, dim, self._loc))
        return out

    def _unseeded_stream(self) -> tuple[Scalar, Scalar]:
        """(seed, offset) of a random op given no rng_seed: every such op reads one Int input whose value
        hfuse draws from torch's generator at each call (unless the inputs give it), the k-th at offset k,
        as nvFuser gives the k-th op of a fusion offset k past its generator's."""
        if self._drawn_seed is None:
            self._drawn_seed = self._new_scalar()
            self._record(ScalarInput(self._drawn_seed, DataType.Int, self._loc, drawn=True))
        offset = self._constant(self._unseeded, DataType.Int)
        self._unseeded += 1
        return self._drawn_seed, offset

    def _call(self, op: Op, inputs: tuple[Handle, ...], attrs: dict[str, Any], ranks: list[int | None]):
        outputs = tuple(self._new_scalar() if rank is None else self._new_tensor(rank) for rank in ranks)
        self._record(Call(op, inputs, tuple(sorted(attrs.items())), outputs, self._loc))
        return outputs

    # inputs
    def define_tensor(self, *args: Any, **kwargs: Any) -> Tensor:
        """define_tensor(shape, contiguity=None, dtype=DataType.Float, is_cpu=False, stride_order=None), or
        define_tensor(sizes, strides, dtype=DataType.Float, static_sizes=False, is_cpu=False).

        Old spellings: symbolic_sizes= for shape=, contiguous= for contiguity=, and the 2022 form
        define_tensor(ndims, dtype=DataType.Float, is_cpu=False) or define_tensor(ndims, contiguity): every
        extent symbolic, none contiguous unless the contiguity says so."""
        if args and legacy.is_int(args[0]) and args[0] >= 0:
            shape, rest = [-1] * args[0], args[1:]
            given_contiguity = bool(rest) and isinstance(rest[0], list | tuple)
            args = (shape, *rest) if given_contiguity else (shape, None, *rest)
        renames = legacy.KEYWORD_RENAMES["define_tensor"]
        form = legacy.define_tensor_form(args, kwargs)
        bound = legacy.bind_call("fd.define_tensor", form, args, kwargs, renames, self._loc)
        dtype = self._dtype(bound["dtype"], "fd.define_tensor")
        is_cpu = bool(bound["is_cpu"])
        if form is legacy.tensor_by_strides:
            spec = self._spec_from_strides(
                bound["sizes"], bound["strides"], dtype, bool(bound["static_sizes"]), is_cpu
            )
        else:
            spec = self._spec_from_shape(
                bound["shape"], bound["contiguity"], dtype, is_cpu, bound["stride_order"]
            )
        out = self._new_tensor(len(spec.shape))
        self._record(TensorInput(out, spec, self._loc))
        return out

    def _dtype(self, dtype: Any, where: str) -> DataType:
        if not isinstance(dtype, DataType) or dtype is DataType.Null:
            raise self._error(f"{where}: dtype must be a DataType such as DataType.Float, got {dtype!r}")
        return dtype

    def _check_rank(self, rank: int, where: str) -> None:
        limit = settings.MAX_RANK.as_int()
        if rank > limit:
            raise LimitError(
                f"{where}: rank {rank} exceeds the highest rank {limit}; raise {settings.MAX_RANK.env}"
            )

    def _spec_from_shape(self, shape, contiguity, dtype, is_cpu, stride_order) -> TensorSpec:
        where = "fd.define_tensor"
        if not legacy.is_int_list(shape) or any(s < -1 for s in shape):
            raise self._error(
                f"{where}: shape must be a list of extents >= -1 (-1 = symbolic), got {shape!r}"
            )
        rank = len(shape)
        self._check_rank(rank, where)
        if contiguity is None or isinstance(contiguity, bool):
            flag = bool(contiguity)
            contiguity = [None if extent == 1 else flag for extent in shape]
        if not legacy.is_contiguity_list(contiguity) or len(contiguity) != rank:
            raise self._error(
                f"{where}: contiguity must be one True/False/None per dim ({rank} for shape {list(shape)}) "
                f"or a single bool, got {contiguity!r}"
            )
        order = tuple(stride_order or ())
        if order and (not legacy.is_int_list(order) or sorted(order) != list(range(rank))):
            raise self._error(f"{where}: stride_order {list(order)} is not a permutation of 0..{rank - 1}")
        return TensorSpec(tuple(shape), dtype, tuple(contiguity), order, is_cpu)

    def _spec_from_strides(self, sizes, strides, dtype, static_sizes, is_cpu) -> TensorSpec:
        from hfuse.layout import layout_of

        where = "fd.define_tensor"
        if not legacy.is_int_list(sizes) or not legacy.is_int_list(strides) or len(sizes) != len(strides):
            raise self._error(
                f"{where}: sizes and strides must be lists of whole numbers of one length, "
                f"got {sizes!r} and {strides!r}"
            )
        self._check_rank(len(sizes), where)
        if any(n < 0 for n in sizes) or any(s < 0 for s in strides):
            raise self._error(
                f"{where}: sizes {list(sizes)} and strides {list(strides)} must be 0 or more; torch tensors "
                "have no negative strides (a flipped view is a copy: pass torch.flip(t, dims) as the input)"
            )
        contiguity, stride_order = layout_of(sizes, strides)
        shape = tuple(sizes) if static_sizes else tuple(1 if s == 1 else -1 for s in sizes)
        return TensorSpec(
            shape, dtype, tuple(contiguity), tuple(stride_order), is_cpu, tuple(sizes), tuple(strides)
        )

    def from_pytorch(self, tensor: torch.Tensor, static_sizes: bool = False) -> Tensor:
        """A tensor input shaped and laid out like `tensor`."""
        if not isinstance(tensor, torch.Tensor):
            raise self._error(f"fd.from_pytorch: expected a torch tensor, got {type(tensor).__name__}")
        try:
            dtype = DataType.from_torch(tensor.dtype)
        except ValueError as err:
            raise self._error(f"fd.from_pytorch: {err}") from None
        is_cpu = tensor.device.type == "cpu" and tensor.dim() == 0
        return self.define_tensor(
            sizes=list(tensor.shape),
            strides=list(tensor.stride()),
            dtype=dtype,
            static_sizes=static_sizes,
            is_cpu=is_cpu,
        )

    def define_scalar(self, *args: Any, **kwargs: Any) -> Scalar:
        """define_scalar(value, dtype=None): a constant; define_scalar(None, dtype) or
        define_scalar(dtype=DataType.Double): a symbolic scalar input."""
        if args and isinstance(args[0], DataType):
            args = (None, *args)
        bound = legacy.bind_call("fd.define_scalar", legacy.scalar_form, args, kwargs, loc=self._loc)
        value, dtype = bound["value"], bound["dtype"]
        if value is None:
            dtype = self._dtype(DataType.Double if dtype is None else dtype, "fd.define_scalar")
            out = self._new_scalar()
            self._record(ScalarInput(out, dtype, self._loc))
            return out
        if not isinstance(value, NUMBER_TYPES):
            raise self._error(f"fd.define_scalar: value must be a Python number or None, got {value!r}")
        return self._constant(
            value, python_dtype(value) if dtype is None else self._dtype(dtype, "fd.define_scalar")
        )

    def define_constant(self, value: Any, dtype: DataType | None = None) -> Scalar:
        """The pre-2023 name of define_scalar(value)."""
        return self.define_scalar(value, dtype)

    def define_vector(self, values: Any, dtype: DataType = DataType.Int) -> Vector:
        """define_vector(size): `size` symbolic Int inputs; define_vector([ints and Scalars], dtype)."""
        if legacy.is_int(values):
            return self._vector(tuple(self.define_scalar(None, dtype) for _ in range(values)))
        return self._vector(self.ops._extents(values, "define_vector", "values"))

    def add_input(self, value: Any) -> None:
        """The 2022 API declared inputs with fd.add_input(t) after defining them; here defining a tensor or
        a symbolic scalar declares it, so add_input checks that the inputs are added in that order."""
        declared = self.inputs()
        if not any(value is v for v in declared):
            raise self._error(f"fd.add_input takes an input of this definition, got {value!r}")
        position = next(i for i, v in enumerate(declared) if v is value)
        if position != self._added_inputs:
            raise self._error(
                f"fd.add_input({value!r}) adds input {self._added_inputs}, but {value!r} was defined as "
                f"input {position}: define the inputs in the order they are added"
            )
        self._added_inputs += 1

    # outputs
    def add_output(
        self,
        value: Tensor | Scalar,
        stride_order: Sequence[int] | None = None,
        *,
        alias_input: Tensor | None = None,
    ) -> None:
        if isinstance(stride_order, Tensor):  # add_output(t, alias_input) written positionally
            stride_order, alias_input = None, stride_order
        if not isinstance(value, Tensor | Scalar) or value.fd is not self:
            raise self._error(f"fd.add_output: expected a Tensor or Scalar of this definition, got {value!r}")
        if alias_input is not None and not isinstance(alias_input, Tensor):
            raise self._error(f"fd.add_output: alias_input must be an input Tensor, got {alias_input!r}")
        order = None
        if stride_order:
            if not isinstance(value, Tensor) or not legacy.is_int_list(stride_order):
                raise self._error(
                    f"fd.add_output: stride_order must be a list of dims of a Tensor, got {stride_order!r}"
                )
            order = tuple(stride_order)
        self._record(OutputRecord(value, alias_input, order, self._loc))

    # building and running
    def _ensure_defined(self) -> None:
        if not self._records and type(self).definition is not FusionDefinition.definition:
            with self:
                self.definition()
        if not any(isinstance(r, OutputRecord) for r in self._records):
            raise DefinitionError("the definition has no outputs; add one with fd.add_output(tensor)")

    def fusion(self, inputs: Sequence[Any] | None = None) -> Fusion:
        """The Fusion for these inputs (their extents and strides), built once per input signature. A seed
        the inputs leave out (see `complete_inputs`) is taken as 0: it shapes nothing."""
        return self._fusion_of(self._with_seed(flat_inputs(inputs), lambda: 0))

    def complete_inputs(self, inputs: Sequence[Any]) -> list[Any]:
        """The values one run takes, one per input of the fusion (a define_vector's list spread): these
        inputs, with a seed drawn from torch's default generator in the place of the seed of random ops
        given no rng_seed, where the inputs leave it out."""
        return list(self._with_seed(flat_inputs(inputs), draw_seed))

    def _with_seed(self, flat: list[Any] | None, seed: Callable[[], int]) -> list[Any] | None:
        """Flat inputs with `seed()` in the place of a drawn seed they leave out, else the same list."""
        if not self._records:
            self._ensure_defined()
        if self._drawn_seed is None:
            return flat
        return with_seeds(self._records, flat, seed)

    def _fusion_of(self, inputs: list[Any] | None) -> Fusion:
        return self._bound(inputs).fusion

    def _bound(self, inputs: list[Any] | None) -> _Bound:
        fast_key = _inputs_key(inputs)
        bound = self._by_inputs.get(fast_key)
        if bound is None:
            self._ensure_defined()
            key = signature(self._records, inputs)
            if key not in self._cache:
                self._cache[key] = build(self._records, inputs)
            fusion = self._cache[key]
            has_scalars = any(isinstance(x, NUMBER_TYPES) for x in inputs or ())
            if len(self._by_inputs) >= MAX_INPUT_KEYS:
                self._by_inputs.clear()
            bound = _Bound(fusion, has_scalars, _has_cpu_scalars(inputs or []))
            self._by_inputs[fast_key] = bound
        recent = bound.recent
        if bound.has_scalars:  # 0.0 and -0.0 share a key: the values are taken from these inputs
            recent = (bound.fusion, _scalar_values(bound.fusion, inputs))
        self._recent = recent
        return bound

    def execute(
        self,
        inputs: Sequence[Any] | None = None,
        *,
        device: Any = None,
        profile: bool = False,
        alias_outputs: bool = True,
        backend: str = HFUSE,
        static_outputs: bool = False,
        **nvfuser_keywords: Any,
    ) -> list[torch.Tensor]:
        """Run the fusion. backend="eager" evaluates it op by op with torch; any other backend is
        compiled and launched by hfuse.runtime. `static_outputs=True`: once the plan for these inputs'
        layouts is validated, its kernels write the same output tensors on every such call, which returns
        them (the next such call overwrites them; outputs that are views of inputs or that torch computes
        are new each call). `device` and nvFuser's debugging keywords are accepted and change nothing."""
        unknown = sorted(set(nvfuser_keywords) - IGNORED_EXECUTE_KEYWORDS) if nvfuser_keywords else None
        if unknown:
            raise HfuseError(
                f"fd.execute: unknown keyword {', '.join(unknown)}; it takes inputs, device, profile, "
                f"alias_outputs, backend, static_outputs and nvFuser's "
                f"{', '.join(sorted(IGNORED_EXECUTE_KEYWORDS))}"
            )
        inputs = self._with_seed(flat_inputs(inputs) or [], draw_seed)
        bound = self._bound(inputs)  # keyed by the inputs as given: their devices decide what moves
        if bound.cpu_scalars:
            inputs = _cpu_scalars_on_the_run_device(inputs)
        fusion = bound.fusion
        if backend == EAGER:
            from hfuse.reference import evaluate

            self._last = LastRun(backend, fusion, None, None)
            return _write_in_place(fusion, inputs, evaluate(fusion, inputs))
        prepared = bound.plans.get((backend, alias_outputs))
        if prepared is None or prepared.plan.retired:
            plan = _runtime().prepare(fusion, inputs, backend=backend, alias_outputs=alias_outputs)
            prepared = bound.plans[backend, alias_outputs] = _Prepared(
                plan, LastRun(backend, fusion, None, plan.compiled)
            )
        if not profile:  # the lean call once the plan is ready, else a full run
            self._last = prepared.last
            return prepared.plan.call(inputs, static_outputs)
        outputs, fusion_profile = prepared.plan.run(inputs, profile=profile)
        self._last = prepared.last if not profile else prepared.last._replace(profile=fusion_profile)
        return outputs

    def _last_compiled(self, what: str) -> Any:
        if self._last is None or self._last.compiled is None:
            raise HfuseError(
                f"fd.{what}(): no compiled run yet; call fd.execute(inputs) with the hfuse backend first"
            )
        return self._last.compiled

    def profile(self) -> Any:
        """The FusionProfile of the last execute(..., profile=True)."""
        if self._last is None or self._last.profile is None:
            raise HfuseError("fd.profile(): no profile recorded; call fd.execute(inputs, profile=True) first")
        return self._last.profile

    def last_triton_code(self) -> str:
        """The Triton source of every kernel of the last compiled run."""
        return "\n\n".join(kernel.source for kernel in self._last_compiled("last_triton_code").kernels)

    def segmentation(self) -> Any:
        """How the last compiled run cut the fusion into kernels."""
        return self._last_compiled("segmentation").segmentation

    def validate(
        self,
        inputs: Sequence[Any],
        reference_outputs: Sequence[torch.Tensor] | None = None,
        **execute_keywords: Any,
    ) -> None:
        """Run the fusion and compare its outputs with `reference_outputs` (default: the torch reference,
        computed first on copies of the inputs, so in-place outputs do not change what it sees). An output
        outside its dtype's tolerance is compared again with the tolerance scaled by the size of the terms
        that make each element, as the runtime's validation does (`hfuse.magnitude`)."""
        from hfuse.reference import evaluate
        from hfuse.runtime.validate import compare_outputs, magnitudes_if_they_fit
        from hfuse.tolerance import reduction_size

        flat = self._with_seed(flat_inputs(inputs), draw_seed)  # the reference and the run share the seed
        fusion = self.fusion(flat)
        returned = [out for out in fusion.outputs if out.alias_input is None]
        copies = flat  # the inputs as they are before the run, for the reference and the magnitudes
        if reference_outputs is None or len(returned) < len(fusion.outputs):
            copies = [x.clone() if isinstance(x, torch.Tensor) else x for x in flat]
        if reference_outputs is None:
            expected_all = evaluate(fusion, copies)
            reference_outputs = [
                e for e, out in zip(expected_all, fusion.outputs, strict=True) if out in returned
            ]
        outputs = self.execute(flat, **execute_keywords)
        if len(outputs) != len(reference_outputs):
            raise ValidationError(
                f"fd.validate: {len(outputs)} outputs but {len(reference_outputs)} reference outputs"
            )
        compare_output = compare_outputs(lambda: magnitudes_if_they_fit(fusion, copies))
        for index, (got, expected, out) in enumerate(zip(outputs, reference_outputs, returned, strict=True)):
            dtype, size = fusion.value(out.name).dtype, reduction_size(fusion, out.name)
            result = compare_output(got, expected, dtype, size, fusion.outputs.index(out))
            if not result.ok:
                raise ValidationError(
                    f"fd.validate: output {index} ({out.name}) differs from the reference: {result.message}"
                )

    # inspection
    def fusion_ir(self, inputs: Sequence[Any] | None = None) -> str:
        """The Fusion printed as a runnable script, for these inputs or else the last ones used."""
        from hfuse.printer import print_fusion

        if inputs is not None or self._recent is None:
            self.fusion(inputs)
        assert self._recent is not None
        fusion, scalar_values = self._recent
        return print_fusion(fusion, scalar_values=scalar_values)

    def example_inputs(self) -> list[Any]:
        """Inputs the definition accepts, on the meta device: its declared extents, and 8 for each
        symbolic one (-1), in each tensor's stride order; a number for each scalar."""
        self._ensure_defined()
        return example_tensors(self._records)

    def inputs(self) -> list[Tensor | Scalar]:
        """The inputs the definition declares (not the seed hfuse draws for random ops given none)."""
        return [r.out for r in input_records(self._records) if not (isinstance(r, ScalarInput) and r.drawn)]

    def outputs(self) -> list[Tensor | Scalar]:
        return [r.value for r in self._records if isinstance(r, OutputRecord)]

    def __repr__(self) -> str:
        return print_records(self._records)
