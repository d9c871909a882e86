# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 3ecb83a37 (2025-05-14),
#   TestNvFuserFrontend.test_pad.
# Computes: six pads of a [1, 2, 3] input: zero, partial, none, a fill value, a broadcast dim.
# Adapted: none; the method as it stands in its class (indented), pasted alone: no imports, no class,
#   run by the test case's self.exec_nvfuser.
    def test_pad(self):
        inputs = [
            torch.testing.make_tensor((1, 2, 3), dtype=torch.float32, device="cuda"),
        ]

        def fusion_func(fd: FusionDefinition):
            t0 = fd.from_pytorch(inputs[0])

            t1 = fd.ops.pad(t0, [1, 1, 1, 1])
            fd.add_output(t1)

            # zero padding in some dims
            t2 = fd.ops.pad(t0, [0, 0, 2, 3])
            fd.add_output(t2)

            # zero padding in all dims
            t3 = fd.ops.pad(t0, [0, 0, 0, 0])
            fd.add_output(t3)

            # no padding provided in first dim
            t4 = fd.ops.pad(t0, [2, 3])
            fd.add_output(t4)

            # test padding with a value other than 0
            fill_val = fd.define_scalar(2.0)
            t5 = fd.ops.pad(t0, [2, 3], fill_val)
            fd.add_output(t5)

            # pad a broadcast dimension with a value other than 0
            t6 = fd.ops.pad(t0, [2, 3, 0, 0, 0, 0])
            fd.add_output(t6)

        nvf_out, _ = self.exec_nvfuser(fusion_func, inputs)

        self.assertEqual(F.pad(inputs[0], [1, 1, 1, 1]), nvf_out[0])
        self.assertEqual(F.pad(inputs[0], [0, 0, 2, 3]), nvf_out[1])
