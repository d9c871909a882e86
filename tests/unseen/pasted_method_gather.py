# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 3ecb83a37 (2025-05-14),
#   TestNvFuserFrontend.test_gather.
# Computes: gather of a sum along dim 0, then dim 1 (the method runs its definition once per dim).
# Adapted: none; the method as it stands in its class (indented), pasted alone: no imports, no class,
#   run by the test case's self.exec_nvfuser.
    def test_gather(self):
        inputs = [
            torch.randn(8, 16, device="cuda"),
            torch.randn(8, 16, device="cuda"),
            torch.randint(0, 8, (4, 4), device="cuda").to(dtype=torch.long),
        ]

        def test_fn(dim):
            def fusion_func(fd: FusionDefinition):
                t0 = fd.from_pytorch(inputs[0])
                t1 = fd.from_pytorch(inputs[1])
                t2 = fd.from_pytorch(inputs[2])
                t3 = fd.ops.add(t0, t1)
                t4 = fd.ops.gather(t3, t2, dim)
                fd.add_output(t4)

            nvf_out, _ = self.exec_nvfuser(fusion_func, inputs)

            eager_out = torch.gather(inputs[0] + inputs[1], dim, inputs[2])
            self.assertEqual(eager_out, nvf_out[0])

        test_fn(0)
        test_fn(1)
