"""A load is masked only by the tests along the axes its address moves with: a value read once per row (a
saved mean) is not masked by the columns, nor a weight read once per column by the rows. Masked by the
other axis, the address became a block of one element loaded in every lane, which on the GPU made a
LayerNorm backward over [16384, 2560] bf16 six times slower."""

from __future__ import annotations

import re

import pytest
from codegen_harness import check, generate, whole_group

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options
from hfuse.dtypes import DataType
from hfuse.ir import Op
from hfuse.segment.model import SchedulerKind

F32, BF16 = DataType.Float, DataType.BFloat16
_ASSIGNMENT = re.compile(r"^\s*(\w+) = (.+)$")
_LOAD = re.compile(r"tl\.load\((\w+)_ptr \+ ([^,)]+)(?:, mask=(\w+))?")


def _row_statistics_backward(rows: int, cols: int, dtype: DataType):
    """A LayerNorm backward's grad-input: the saved mean and rstd of each row read back, two row sums."""
    b = FusionBuilder()
    grad, x = b.define_tensor([rows, cols], dtype), b.define_tensor([rows, cols], dtype)
    mean, rstd = b.define_tensor([rows], F32), b.define_tensor([rows], F32)
    weight = b.define_tensor([cols], dtype)

    def per_row(value):
        (out,) = b.add(Op.BROADCAST_IN_DIM, [value], {"shape": [rows, cols], "broadcast_dims": [0]})
        return out

    (gf,) = b.add(Op.CAST, [grad], {"dtype": F32})
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    (wb,) = b.add(Op.BROADCAST_IN_DIM, [weight], {"shape": [rows, cols], "broadcast_dims": [1]})
    (wf,) = b.add(Op.CAST, [wb], {"dtype": F32})
    (centered,) = b.add(Op.SUB, [xf, per_row(mean)])
    (normed,) = b.add(Op.MUL, [centered, per_row(rstd)])
    (gw,) = b.add(Op.MUL, [gf, wf])
    (sum_gw,) = b.add(Op.SUM, [gw], {"dims": [1], "keepdim": False, "dtype": F32})
    (gwn,) = b.add(Op.MUL, [gw, normed])
    (sum_gwn,) = b.add(Op.SUM, [gwn], {"dims": [1], "keepdim": False, "dtype": F32})
    (scaled,) = b.add(Op.MUL, [gw, b.define_scalar(DataType.Double, float(cols))])
    (less_sum,) = b.add(Op.SUB, [scaled, per_row(sum_gw)])
    (along,) = b.add(Op.MUL, [normed, per_row(sum_gwn)])
    (diff,) = b.add(Op.SUB, [less_sum, along])
    (factor,) = b.add(Op.DIV, [per_row(rstd), b.define_scalar(DataType.Double, float(cols))])
    (grad_input,) = b.add(Op.MUL, [factor, diff])
    (out,) = b.add(Op.CAST, [grad_input], {"dtype": dtype})
    b.add_output(out)
    return b.build()


def _masked_loads(source: str) -> dict[str, str]:
    """Each loaded tensor's mask, spelled out through the names it is built of ('' for no mask)."""
    definitions = {}
    for line in source.splitlines():
        found = _ASSIGNMENT.match(line)
        if found:
            definitions.setdefault(found.group(1), found.group(2))

    def spelled(name: str, depth: int = 0) -> str:
        text = definitions.get(name, name)
        if depth > 4:
            return text
        return re.sub(r"\b(r?c?mask\w*|mask\w*)\b", lambda m: spelled(m.group(1), depth + 1), text)

    return {
        found.group(1): spelled(found.group(3)) if found.group(3) else "" for found in _LOAD.finditer(source)
    }


FORMS = {
    "whole rows": Options(),
    "looped rows": Options(persistent_max_cols=8, persistent_reread_cols=0, loop_cols=16),
}


@pytest.mark.parametrize("options", FORMS.values(), ids=FORMS.keys())
@pytest.mark.parametrize(("rows", "cols"), [(6, 40), (5, 33)])
def test_values_read_once_per_row_or_per_column_are_masked_along_their_own_axis(options, rows, cols):
    fusion = _row_statistics_backward(rows, cols, BF16)
    group = whole_group(fusion, SchedulerKind.NORMALIZATION)
    source = generate(group, fusion, options).source
    masks = _masked_loads(source)
    mean, rstd, weight = (fusion.inputs[i].lower() for i in (2, 3, 4))
    assert "cols" in masks[fusion.inputs[0].lower()]  # the tile's columns past the row's end
    for per_row in (mean, rstd):
        assert "cols" not in masks[per_row]
    assert "rows" not in masks[weight]
    check(fusion, [group], options=options, reduction_size=cols)
