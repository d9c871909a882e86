# Subclass style with handles kept on self and a positional tuple define_tensor.
import torch
from nvfuser import FusionDefinition, DataType


class MultiDeviceModel(FusionDefinition):
    def definition(self):
        self.t0 = self.define_tensor((2, 4), (False, False), dtype=DataType.Float)
        self.t1 = self.ops.relu(self.t0)
        self.t2 = self.ops.add(self.t1, self.t1)
        self.add_output(self.t2)


fn = MultiDeviceModel()
inputs = [torch.randn(2, 4, device='cuda')]
o = fn.execute(inputs)
