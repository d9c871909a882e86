"""The run's kernel table as CSV, from a real run in the interpreter."""

import csv
import io

import torch

from hfuse import DataType, FusionDefinition
from hfuse.tools.run_table import COLUMNS, kernel_table_csv


def test_every_segment_is_a_row_with_its_bytes_and_unmeasured_times_left_empty():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        fd.add_output(fd.ops.sum(fd.ops.exp(t0), dims=[1]))
        fd.add_output(fd.ops.permute(t0, dims=[1, 0]))
    fd.execute([torch.randn(8, 32)], profile=True)
    profile = fd.profile()

    rows = list(csv.DictReader(io.StringIO(kernel_table_csv(profile))))

    assert tuple(rows[0]) == COLUMNS
    assert [r["kernel"] for r in rows] == [k.name for k in profile.segment_profiles]
    assert [int(r["input_bytes"]) + int(r["output_bytes"]) for r in rows] == [
        k.input_bytes + k.output_bytes for k in profile.segment_profiles
    ]
    assert {r["time_ms"] for r in rows} == {""}  # the interpreter's times mean nothing
    assert any(r["scheduler"] == "reduction" and int(r["input_bytes"]) == 8 * 32 * 4 for r in rows)
