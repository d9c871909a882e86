# Only scalar inputs: define_scalar() without arguments, define_constant with a dtype, and the
# 2023 full(size=, arg=, dtype=) spelling.
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition):
    s0 = fd.define_scalar()
    s1 = fd.define_scalar()
    s2 = fd.ops.add(s0, s1)
    c0 = fd.define_constant(1.0, DataType.Float)
    t3 = fd.ops.full(size=[2, 2], arg=c0, dtype=DataType.Float)
    t4 = fd.ops.mul(t3, s2)
    fd.add_output(t4)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [2.0, 3.0]
fd.execute(inputs)
