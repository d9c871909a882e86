"""The command line, the benchmark suite and the fuzzing campaign: users of the engine, never used by it."""
