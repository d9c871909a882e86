"""What a compiled kernel's program holds on an sm_90 SM, and how many programs an SM runs at once."""

import pytest

from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.tools.occupancy import Resources, parse_resource_usage
from hfuse.tools.triton_ir import triton_irs

# cuobjdump -res-usage of a cubin, as Triton's cuobjdump 13.1 prints it
REPORT = """
Resource usage:
 Common:
  GLOBAL:0
 Function hfuse_normalization_g0:
  REG:72 STACK:0 SHARED:1024 LOCAL:16 CONSTANT[0]:560 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


@pytest.mark.parametrize(
    ("registers", "shared", "warps", "programs"),
    [
        (167, 8208, 4, 3),  # registers decide: 168 x 32 a warp, 4 warps: 3 of 65536
        (72, 8208, 4, 7),
        (56, 9232, 4, 9),
        (32, 100_000, 4, 2),  # shared memory decides: 2 x (100,000 + 1,024) of 233,472
        (16, 0, 32, 2),  # warps decide: 64 an SM
        (0, 0, 1, 32),  # the count of programs decides
    ],
)
def test_programs_an_sm_runs_are_the_fewest_its_limits_allow(registers, shared, warps, programs):
    assert Resources(registers, shared, 0, warps).programs_per_sm == programs


def test_the_resource_report_of_a_cubin_reads_registers_shared_memory_and_spills():
    found = parse_resource_usage(REPORT, dynamic_shared_bytes=8192, warps=4)
    assert found == Resources(registers=72, shared_bytes=9216, local_bytes=16, warps=4)
    assert found.summary() == (
        "72 registers a thread, 9,216 B shared memory a program, 16 B a thread in local memory: "
        "7 programs of 4 warps an SM (28 of its 64 warps)"
    )
    assert parse_resource_usage("Resource usage:\n Common:\n  GLOBAL:0\n", 0, 4) is None


def test_a_kernel_compiled_for_sm_90_reports_what_its_program_holds():
    from triton.backends import backends  # after hfuse, which chose Triton's interpreter on import

    if "nvidia" not in backends:
        pytest.skip("this Triton has no NVIDIA backend")
    compiled = compile_fusion(load(get_example("softmax").text, device="meta").fusion)
    ((launch,),) = triton_irs([compiled])
    (kernel,) = compiled.kernels
    assert launch.resources is not None
    assert 0 < launch.resources.registers <= 255 and launch.resources.warps == kernel.num_warps
    assert launch.resources.shared_bytes > 0  # the reductions' scratch across warps
    assert 1 <= launch.resources.programs_per_sm <= 32
