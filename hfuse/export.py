"""One segment of a compiled fusion as a standalone definition script: a small repro cut out of a big one."""

from __future__ import annotations

from hfuse.ir import Fusion, Output
from hfuse.printer import print_fusion
from hfuse.segment.model import Group
from hfuse.verify import verify


def segment_fusion(fusion: Fusion, group: Group) -> Fusion:
    """The group's exprs as a fusion of their own: what the group reads becomes its inputs."""
    used = set(group.inputs) | {name for expr in group.exprs for name in (*expr.inputs, *expr.outputs)}
    values = tuple(v for v in fusion.values if v.name in used)
    produced = {name for expr in group.exprs for name in expr.outputs}
    reads = (set(group.inputs) | {name for expr in group.exprs for name in expr.inputs}) - produced
    inputs = tuple(v.name for v in values if v.name in reads and not (v.is_scalar and v.const is not None))
    outputs = tuple(Output(name) for name in dict.fromkeys(group.outputs))
    segment = Fusion(values, inputs, group.exprs, outputs)
    verify(segment)
    return segment


def segment_script(fusion: Fusion, group: Group) -> str:
    header = f"# Segment {group.id} ({group.kind.value}) of a larger fusion, as a standalone definition\n"
    return header + print_fusion(segment_fusion(fusion, group))
