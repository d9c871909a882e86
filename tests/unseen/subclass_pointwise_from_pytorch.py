# Subclass style reading the inputs list through from_pytorch; two broadcasts of one vector.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(16, device='cuda'),
    torch.randn(8, 16, device='cuda'),
    torch.randn(16, 8, device='cuda'),
]


class Pointwise(FusionDefinition):
    def definition(self):
        self.t0 = self.from_pytorch(inputs[0])
        self.t1 = self.from_pytorch(inputs[1])
        self.t2 = self.from_pytorch(inputs[2])
        self.t3 = self.ops.broadcast(self.t0, [True, False])
        self.t4 = self.ops.broadcast(self.t0, [False, True])
        self.t5 = self.ops.add(self.t3, self.t1)
        self.t6 = self.ops.add(self.t4, self.t2)
        self.add_output(self.t5)
        self.add_output(self.t6)


fn = Pointwise()
nvf_out = fn.execute(inputs)
