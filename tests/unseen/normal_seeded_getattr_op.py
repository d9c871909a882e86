# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at fe9addc912 (2026-01-27),
#   TestNvFuserFrontend.test_deterministic_random.
# Computes: t * normal(0.3, 1.7) over [5, 9] with rng_seed and rng_offset as Int scalar inputs; the random
#   op is picked with getattr(fd.ops, randopname) and a keyword-only flag selects the seeded form.
# Adapted: the test loops over randopname in ['uniform', 'normal'] and compares stateful with seeded runs;
#   here randopname = 'normal', and the definition is built as the test builds fd_det and run with seed 0,
#   offset 0 as its exec_nvfuser call does.
import torch
from nvfuser import FusionDefinition, DataType

input_size = [5, 9]
dtype = torch.float32
device = "cuda"
inputs = [
    torch.randn(*input_size, device=device, dtype=dtype),
]
randopname = "normal"


def fusion_func(fd: FusionDefinition, *, deterministic) -> None:
    t1 = fd.from_pytorch(inputs[0])
    a = fd.define_scalar(0.3, DataType.Float)
    b = fd.define_scalar(1.7, DataType.Float)
    randop = getattr(fd.ops, randopname)
    if deterministic:
        rng_seed = fd.define_scalar(DataType.Int)
        rng_offset = fd.define_scalar(DataType.Int)
        u = randop(
            a, b, shape=[5, 9], rng_seed=rng_seed, rng_offset=rng_offset
        )
    else:
        u = randop(a, b, shape=[5, 9])
    t2 = t1 * u
    fd.add_output(t2)


with FusionDefinition() as fd_det:
    fusion_func(fd_det, deterministic=True)

fd_det.execute([inputs[0], 0, 0])
