"""What one program of a compiled kernel holds on an SM of an H100 or H200 (sm_90), and so how many of its
programs an SM runs at once. A loop that waits on its loads keeps more of them in flight with more
programs an SM: a softmax over rows of 50257 bf16 columns took 467 us at 167 registers a thread (3 programs
of 4 warps an SM) and 347 us at 72 (7 programs)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# sm_90's limits per SM (CUDA C Programming Guide, compute capability 9.0)
REGISTERS = 65536
WARPS = 64
PROGRAMS = 32
SHARED_BYTES = 233472  # 228 KB
SHARED_RESERVED_BYTES = 1024  # a program's share the runtime keeps
REGISTER_UNIT = 256  # registers are allocated to a warp in units of this many


@dataclass(frozen=True, slots=True)
class Resources:
    """One program of a launch, as its cubin for sm_90 says."""

    registers: int  # a thread
    shared_bytes: int  # a program: Triton's dynamic shared memory and the kernel's static
    local_bytes: int  # a thread: registers spilled to memory, or arrays kept there
    warps: int

    @property
    def programs_per_sm(self) -> int:
        """Programs an SM runs at once: the fewest its registers, warps, shared memory and count allow."""
        per_warp = math.ceil(self.registers * 32 / REGISTER_UNIT) * REGISTER_UNIT
        by_registers = REGISTERS // (per_warp * self.warps) if self.registers else PROGRAMS
        by_shared = SHARED_BYTES // (self.shared_bytes + SHARED_RESERVED_BYTES)
        return min(PROGRAMS, WARPS // self.warps, by_registers, by_shared)

    def summary(self) -> str:
        spilled = f"{self.local_bytes:,} B a thread in local memory" if self.local_bytes else "no spills"
        programs = self.programs_per_sm
        return (
            f"{self.registers} registers a thread, {self.shared_bytes:,} B shared memory a program, "
            f"{spilled}: {programs} program{'s' if programs != 1 else ''} of {self.warps} warps an SM "
            f"({programs * self.warps} of its {WARPS} warps)"
        )


def parse_resource_usage(text: str, dynamic_shared_bytes: int, warps: int) -> Resources | None:
    """The resources of the first function in `cuobjdump -res-usage`'s report of a cubin, with Triton's
    dynamic shared memory added to the static; None where the report has none."""
    found = re.search(r"REG:(\d+) STACK:\d+ SHARED:(\d+) LOCAL:(\d+)", text)
    if found is None:
        return None
    registers, shared, local = (int(group) for group in found.groups())
    return Resources(registers, shared + dynamic_shared_bytes, local, warps)
