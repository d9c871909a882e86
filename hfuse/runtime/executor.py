"""Runs a fusion: `prepare` compiles it once per (fusion, backend, aliasing, input signature) into a
`Plan`, whose `run` launches it.

The first run of a plan poisons every kernel output (NaN, or the largest integer) and is checked
against the torch reference, unless an earlier process validated the very same kernels on the same
inputs and device (see `validated`). After it, `Plan.call` is the lean cached call: output allocation
and the launches, nothing else.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import torch

from hfuse import settings
from hfuse.backends import BACKENDS, EAGER, HFUSE, INDUCTOR, STRATEGIES
from hfuse.errors import DefinitionError, UnsupportedError
from hfuse.ir import Fusion
from hfuse.pipeline import Compiled, Progress, compile_eager, compile_fusion
from hfuse.runtime import autotune, special_probe
from hfuse.runtime.device import GPU_LOCK, has_cuda, run_device
from hfuse.runtime.memory import check_run_memory, out_of_memory_detail, out_of_memory_error, run_bytes
from hfuse.runtime.output_pool import current_stream
from hfuse.runtime.parallel_compile import DryLaunch, compile_side_by_side
from hfuse.runtime.profile import build_profile
from hfuse.runtime.profile_model import FusionProfile
from hfuse.runtime.segments import (
    Env,
    Rerun,
    Segment,
    inductor_segment,
    make_segment,
    same_layout,
    torch_segment,
    writable_in_place,
)
from hfuse.runtime.timing import wall_ms
from hfuse.runtime.validate import validate_outputs
from hfuse.runtime.validated import remember, remembered_error, validation_key
from hfuse.segment.override import Merge

LeanCall = Callable[[Sequence[Any]], list[torch.Tensor]]  # a validated plan's call: inputs -> outputs


@dataclass(slots=True, eq=False)
class Plan:
    """A fusion compiled for one backend, aliasing and input signature, ready to run. Mutable only in
    what its first run learns; `retired` once `clear_cache` forgets it."""

    compiled: Compiled
    segments: tuple[Segment, ...]
    backend: str
    prepare_ms: float  # compile + import of generated modules
    run_bytes: int = 0  # what a run that does not validate allocates
    constants: tuple[tuple[str, Any], ...] = ()  # scalar constants every run puts in the environment
    inputs: tuple[str, ...] = ()  # the scheduled fusion's inputs and outputs
    outputs: tuple[str, ...] = ()
    in_place: tuple[tuple[int, int], ...] = ()  # (output, input) positions of outputs added with alias_input
    returned: tuple[int, ...] | None = None  # positions of the outputs returned; None: all of them
    fresh: bool = True  # compiled for the call that made it; no run has finished yet
    launched: bool = False  # every segment has run once (its first launch time is known)
    validated: bool = False
    retired: bool = False
    max_abs_error: float | None = None
    first_launch_ms: dict[int, float] = field(default_factory=dict)  # group id -> first launch (JIT) time
    segment_bytes: tuple[tuple[int, int], ...] | None = None  # (read, written) per segment, first profile
    fusion_bytes: tuple[int, int] = (0, 0)  # fusion inputs read, outputs written; with segment_bytes
    lean: LeanCall | None = None  # the cached call, made once the plan ran and was validated
    static_lean: LeanCall | None = None  # the same with static outputs (see `call`)
    stage_ms: dict[str, float] = field(default_factory=dict)  # what the first run spent on each stage

    @property
    def ready(self) -> bool:
        """Whether `call` is the lean cached call: the plan ran, was validated and is still cached."""
        return self.launched and self.validated and not self.retired

    def run(
        self, inputs: Sequence[Any], *, profile: bool = False, progress: Progress | None = None
    ) -> tuple[list[torch.Tensor], FusionProfile | None]:
        """Runs the plan on `inputs` and returns its outputs and, with `profile=True`, the profile. The
        first run poisons the outputs and validates them; `progress` is told each step before it starts
        ("launching kernel ..."), so that a run stopped from outside can say where it was."""
        tell = progress or _silent
        start = time.perf_counter()
        cache_hit, self.fresh = not self.fresh, False
        with GPU_LOCK:
            validating = not self.validated
            needed = run_bytes(self.compiled, validating=True) if validating else self.run_bytes
            if validating:  # later runs allocate the same; an out-of-memory there is still reported below
                check_run_memory(needed, self._run_name)
            try:
                results, reruns = _launch_and_validate(self, inputs, validating, tell)
            except Exception as err:
                out_of_memory = out_of_memory_detail(err)
                if out_of_memory is None:
                    raise
            else:
                out_of_memory = None
            if out_of_memory is not None:  # raised here, where the failed run's tensors are released
                raise out_of_memory_error(out_of_memory, needed, self._run_name)
            if self.in_place:
                _write_in_place_outputs(self, inputs, results)
            report = None
            if profile:
                host_ms = (time.perf_counter() - start) * 1e3 + (0.0 if cache_hit else self.prepare_ms)
                tell("timing the kernels")
                report = build_profile(self, reruns, host_ms, cache_hit, self.backend)
        returned = results if self.returned is None else [results[i] for i in self.returned]
        return returned, report

    def call(self, inputs: Sequence[Any], static_outputs: bool = False) -> list[torch.Tensor]:
        """The outputs for `inputs`: once the plan is `ready`, output allocation and the launches and
        nothing else; before, a full `run`. With `static_outputs`, a ready plan's kernels write buffers
        allocated once, at its first such call: every such call returns those same tensors, overwritten
        (outputs that are views of inputs, or that torch computes, are new each call)."""
        lean = self.static_lean if static_outputs else self.lean
        if lean is None:
            if not self.ready:
                return self.run(inputs)[0]
            lean = _lean(self, static_outputs)
            if static_outputs:
                self.static_lean = lean
            else:
                self.lean = lean
        return lean(inputs)

    @property
    def _run_name(self) -> str:
        return f"this run of the fusion (backend {self.backend})"


class PlanCache:
    """Plans by (fusion, backend, aliasing, input signature). A fusion seen before is found by its
    identity (no IR is hashed); an equal fusion made anew (the same script loaded again) by its value."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._by_value: dict[tuple, Plan] = {}
        # The fusion is held with its plan, so its id cannot be reused while the entry lives.
        self._by_identity: dict[tuple, tuple[Fusion, Plan]] = {}
        self._lock = threading.Lock()

    def get(self, fusion: Fusion, key: tuple) -> Plan | None:
        known = self._by_identity.get((id(fusion), *key))  # one dict read is atomic
        if known is not None and known[0] is fusion:
            return known[1]
        with self._lock:
            return self._by_value.get((fusion, *key))

    def put(self, fusion: Fusion, key: tuple, plan: Plan) -> None:
        with self._lock:
            self._by_value[(fusion, *key)] = plan
            self._by_identity[(id(fusion), *key)] = (fusion, plan)
            for entries in (self._by_value, self._by_identity):
                if len(entries) > self.size:
                    del entries[next(iter(entries))]

    def clear(self) -> None:
        with self._lock:
            for plan in self._by_value.values():
                plan.retired = True
            self._by_value.clear()
            self._by_identity.clear()


MAX_PLANS = 256  # the oldest plan is dropped beyond this (an app session may try many shapes)
_PLANS = PlanCache(MAX_PLANS)


def prepare(
    fusion: Fusion,
    inputs: Sequence[Any],
    *,
    backend: str = "hfuse",
    alias_outputs: bool = True,
    merge: Merge | None = None,
    progress: Progress | None = None,
) -> Plan:
    """The plan that runs `fusion` on inputs like these (in the order the inputs were defined): from the
    cache, or compiled now. A caller that keeps it calls `plan.call(inputs)` until `plan.retired`.
    `merge` puts two of the segmenter's segments together (see `hfuse.segment.override`)."""
    key = (backend, alias_outputs, merge, run_signature(inputs))
    plan = _PLANS.get(fusion, key)
    if plan is None:
        (progress or _silent)(f"compiling the fusion (backend {backend})")
        plan = _prepare(fusion, inputs, backend, alias_outputs, merge)
        _PLANS.put(fusion, key, plan)
    return plan


def execute(
    fusion: Fusion,
    inputs: Sequence[Any],
    *,
    backend: str = HFUSE,
    alias_outputs: bool = True,
    merge: Merge | None = None,
    profile: bool = False,
    progress: Progress | None = None,
) -> tuple[list[torch.Tensor], FusionProfile | None, Compiled]:
    """Run `fusion` on `inputs` (in the order the inputs were defined) and return its outputs, the
    profile when `profile=True`, and the compiled stages: `prepare`, then the plan's `run`."""
    plan = prepare(
        fusion, inputs, backend=backend, alias_outputs=alias_outputs, merge=merge, progress=progress
    )
    outputs, report = plan.run(inputs, profile=profile, progress=progress)
    return outputs, report, plan.compiled


def _lean(plan: Plan, static_outputs: bool) -> LeanCall:
    """The validated call: the values by position in one list (the inputs, the constants, then each
    segment's outputs), each segment's step bound once here, so that a call looks up no names."""
    poison = settings.POISON_OUTPUTS.as_bool()  # read once: reading the environment costs a call ~1 us
    positions = {name: i for i, name in enumerate(plan.inputs)}
    constants = []
    for name, value in plan.constants:
        positions[name] = len(positions)
        constants.append(value)
    steps = tuple(segment.bind(positions, poison, static_outputs) for segment in plan.segments)
    outputs = tuple(positions[name] for name in plan.outputs)
    returned = outputs if plan.returned is None else tuple(outputs[i] for i in plan.returned)
    run_name = plan._run_name
    stream_now = current_stream(run_device())
    only = returned[0] if len(returned) == 1 else None  # a list of one is made without a comprehension

    def call(inputs: Sequence[Any]) -> list[torch.Tensor]:
        values = [*inputs, *constants]
        stream = stream_now()
        with GPU_LOCK:
            try:
                for step in steps:
                    step(values, stream)
            except Exception as err:
                out_of_memory = out_of_memory_detail(err)
                if out_of_memory is None:
                    raise
            else:
                out_of_memory = None
            if out_of_memory is not None:
                values.clear()  # releases this run's tensors before the error is raised
                raise out_of_memory_error(out_of_memory, plan.run_bytes, run_name)
            if plan.in_place:
                _write_in_place_outputs(plan, inputs, [values[i] for i in outputs])
        if only is not None:
            return [values[only]]
        return [values[i] for i in returned]

    return call


def _launch_and_validate(
    plan: Plan, inputs: Sequence[Any], validating: bool, tell: Progress
) -> tuple[list[torch.Tensor], list[Rerun | None]]:
    poison = validating or settings.POISON_OUTPUTS.as_bool()
    if plan.launched:
        env, reruns = _run_segments(plan, inputs, poison=poison, tell=tell)
    else:  # the first launch of each kernel JIT-compiles it, unless its compile was done side by side
        if has_cuda():
            tell("compiling the kernels")
            forked, compile_ms = wall_ms(lambda: compile_side_by_side(_dry_launches(plan, inputs)))
            if forked:
                plan.stage_ms["compile kernels"] = compile_ms
        (env, reruns), plan.stage_ms["first launches"] = wall_ms(
            lambda: _run_segments(plan, inputs, poison=poison, tell=tell)
        )
    results = [env[name] for name in plan.outputs]
    if validating:
        key = validation_key(plan.compiled, run_signature(inputs)) if plan.compiled.passes else None
        remembered = remembered_error(key) if key else None
        if remembered is None:
            tell("checking the outputs against the torch reference")
            plan.max_abs_error = validate_outputs(plan.compiled, inputs, results, plan.stage_ms)
            if special_probe.wanted():
                tell("checking the kernels on inputs holding NaN and infinities")
                special_probe.check_special_values(
                    plan.compiled, inputs, partial(_outputs_of, plan), plan.stage_ms
                )
            if key:
                remember(key, plan.max_abs_error)
        else:
            plan.max_abs_error = remembered
        plan.validated = True
    return results, reruns


def _outputs_of(plan: Plan, inputs: Sequence[Any]) -> list[torch.Tensor]:
    """The plan's outputs on `inputs`, every kernel output poisoned first."""
    env, _ = _run_segments(plan, inputs, poison=True, tell=_silent)
    return [env[name] for name in plan.outputs]


def _silent(step: str) -> None:
    """The progress of a call that nobody follows."""


def clear_cache() -> None:
    """Forget every compiled plan, retiring the plans callers keep (generated modules stay imported,
    keyed by their source hash)."""
    _PLANS.clear()


def run_signature(inputs: Sequence[Any]) -> tuple:
    """What a plan is cached by, besides the fusion, backend and aliasing: each tensor's dtype, shape,
    strides and device type, each scalar's type."""
    return tuple(
        (x.dtype, tuple(x.shape), x.stride(), x.device.type) if isinstance(x, torch.Tensor) else type(x)
        for x in inputs
    )


def _prepare(
    fusion: Fusion, inputs: Sequence[Any], backend: str, alias_outputs: bool, merge: Merge | None
) -> Plan:
    if backend not in BACKENDS:
        raise UnsupportedError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if merge is not None and backend not in STRATEGIES:
        raise UnsupportedError(
            f"the {backend} backend runs the whole definition with torch: it has no segments to merge; "
            f"merge with the {' or '.join(STRATEGIES)} backend"
        )
    _check_inputs(fusion, inputs, kernels=backend in STRATEGIES)
    start = time.perf_counter()
    if backend == INDUCTOR:
        compiled = compile_eager(fusion, strategy=INDUCTOR)
        segments = (inductor_segment(compiled),)
    elif backend == EAGER:
        compiled = compile_eager(fusion)
        segments = (torch_segment(compiled.scheduled, compiled.segmentation.groups[0]),)
    else:
        compiled = compile_fusion(fusion, strategy=backend, alias_outputs=alias_outputs, merge=merge)
        if settings.AUTOTUNE.as_bool() and has_cuda():
            compiled = autotune.tune(compiled)
        direct = writable_in_place(compiled)
        segments = tuple(make_segment(compiled, group, direct) for group in compiled.segmentation.groups)
    plan = Plan(compiled, segments, backend, prepare_ms=(time.perf_counter() - start) * 1e3)
    plan.stage_ms.update(compiled.stage_ms)
    plan.stage_ms["load kernels"] = plan.prepare_ms - sum(compiled.stage_ms.values())
    plan.run_bytes = run_bytes(compiled, validating=False)
    scheduled = compiled.scheduled
    plan.constants = tuple((v.name, v.const) for v in scheduled.values if v.is_scalar and v.const is not None)
    plan.inputs, plan.outputs = tuple(scheduled.inputs), tuple(out.name for out in scheduled.outputs)
    positions = {name: i for i, name in enumerate(scheduled.inputs)}
    plan.in_place = tuple(
        (i, positions[out.alias_input]) for i, out in enumerate(scheduled.outputs) if out.alias_input
    )
    if plan.in_place:
        plan.returned = tuple(i for i, out in enumerate(scheduled.outputs) if not out.alias_input)
    if backend == EAGER:  # it is the reference: nothing to check it against
        plan.validated, plan.max_abs_error = True, 0.0
    return plan


def _check_inputs(fusion: Fusion, inputs: Sequence[Any], *, kernels: bool) -> None:
    if len(inputs) != len(fusion.inputs):
        raise DefinitionError(
            f"execute got {len(inputs)} inputs but the fusion defines {len(fusion.inputs)} "
            f"({', '.join(fusion.inputs)}): pass them in the order they were defined"
        )
    device = run_device()
    for index, (name, given) in enumerate(zip(fusion.inputs, inputs, strict=True)):
        value = fusion.value(name)
        if value.is_scalar:
            continue
        if not isinstance(given, torch.Tensor):
            raise DefinitionError(f"input {index} ({name}) must be a tensor, got {type(given).__name__}")
        if tuple(given.shape) != value.shape or given.dtype != value.dtype.torch:
            raise DefinitionError(
                f"input {index} ({name}) is {given.dtype}{list(given.shape)} but the fusion was built for "
                f"{value.dtype.torch}{list(value.shape)}: rebuild the fusion for these inputs"
            )
        if kernels and not same_layout(given, value):
            raise DefinitionError(
                f"input {index} ({name}) has strides {list(given.stride())} but the fusion was built for "
                f"{list(value.strides)}: rebuild the fusion for these inputs"
            )
        if kernels and given.device.type != device.type:
            raise UnsupportedError(
                f"input {index} ({name}) is on {given.device} but kernels run on {device}: "
                f"move the inputs with .to('{device.type}')"
            )


def _run_segments(
    plan: Plan, inputs: Sequence[Any], *, poison: bool, tell: Progress
) -> tuple[Env, list[Rerun | None]]:
    env: Env = dict(zip(plan.inputs, inputs, strict=True))
    env.update(plan.constants)
    if plan.launched and tell is _silent:
        return env, [segment.run(env, poison) for segment in plan.segments]
    reruns = []
    for segment in plan.segments:
        first_launch = segment.group.id not in plan.first_launch_ms and segment.group.kind.launches_kernel
        if tell is not _silent:
            tell(_step(segment, first_launch))
        if first_launch and has_cuda():
            # The first launch of a Triton kernel JIT-compiles it: its time is compile time.
            rerun, plan.first_launch_ms[segment.group.id] = wall_ms(partial(segment.run, env, poison))
        else:
            rerun = segment.run(env, poison)
            plan.first_launch_ms.setdefault(segment.group.id, 0.0)
        reruns.append(rerun)
    plan.launched = True
    return env, reruns


def _dry_launches(plan: Plan, inputs: Sequence[Any]) -> list[DryLaunch]:
    """Each kernel launch of the plan on stand-in arguments (real inputs, empty outputs), in order."""
    env: Env = dict(zip(plan.inputs, inputs, strict=True))
    env.update(plan.constants)
    launches = (segment.dry(env) for segment in plan.segments)
    return [launch for launch in launches if launch is not None]


def _step(segment: Segment, first_launch: bool) -> str:
    group = segment.group
    if not group.kind.launches_kernel:
        return f"running segment {group.id} ({group.kind.value})"
    verb = "compiling and launching" if first_launch else "launching"
    return f"{verb} kernel {segment.kernel_name} (segment {group.id})"


def _write_in_place_outputs(plan: Plan, inputs: Sequence[Any], results: list[torch.Tensor]) -> None:
    """Outputs added with `alias_input` are written into that input, as nvFuser does, and not returned."""
    for output, position in plan.in_place:
        target, result = inputs[position], results[output]
        if target.data_ptr() != result.data_ptr():
            target.copy_(result)
