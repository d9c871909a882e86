# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 3ecb83a37 (2025-05-14),
#   TestNvFuserFrontend.test_expand.
# Computes: expand of a [1, 1, 4] input to the size of a [2, 3, 4] one, added to it.
# Adapted: none; the method as it stands in its class (indented), pasted alone: no imports, no class,
#   run by the test case's self.exec_nvfuser.
    def test_expand(self):
        inputs = [
            torch.randn(1, 1, 4, device="cuda"),
            torch.randn(2, 3, 4, device="cuda"),
        ]

        def fusion_func(fd: FusionDefinition):
            t0 = fd.from_pytorch(inputs[0])
            t1 = fd.from_pytorch(inputs[1])

            t0_b = fd.ops.expand(t0, inputs[1].size())
            t2 = fd.ops.add(t0_b, t1)

            fd.add_output(t2)

        nvf_out, _ = self.exec_nvfuser(fusion_func, inputs)
        eager_out = inputs[0].expand(inputs[1].size()) + inputs[1]
        self.assertEqual(eager_out, nvf_out[0])
