"""`torch.cuda` as a script sees it: its queries answer as one H200 would, and its calls that set up the
process (seeds, syncs, cache frees) do nothing.

Scripts ask the GPU only to choose what to test (`if torch.cuda.get_device_properties(0).major >= 9:`);
the answers are those of the GPU the kernels run on, a recent one, as pasted tests' GPU checks take it.
"""

from __future__ import annotations

from typing import Any

from hfuse.loader.values import MISSING, CallSite, Interpreted, describe

# calls that change the process, never a fusion or its inputs' values
SET_UP_CALLS = frozenset(
    {
        "manual_seed",
        "manual_seed_all",
        "synchronize",
        "empty_cache",
        "set_device",
        "reset_peak_memory_stats",
        "set_rng_state",
    }
)
DEVICE_PROPERTIES = {
    "name": "NVIDIA H200",
    "major": 9,
    "minor": 0,
    "total_memory": 143_771 * 2**20,
    "multi_processor_count": 132,
    "L2_cache_size": 60 * 2**20,
}
# query -> its answer, for calls that take at most a device
_QUERIES = {
    "is_available": True,
    "is_initialized": True,
    "device_count": 1,
    "current_device": 0,
    "get_device_name": DEVICE_PROPERTIES["name"],
    "get_device_capability": (DEVICE_PROPERTIES["major"], DEVICE_PROPERTIES["minor"]),
}
_TAKES_A_DEVICE = frozenset(
    {"get_device_name", "get_device_capability", "get_device_properties", "get_rng_state"}
)


class TorchCuda(Interpreted):
    label = "torch.cuda"

    def attribute(self, name: str) -> Any:
        if name in SET_UP_CALLS:
            return CudaSetUp(name)
        if name in _QUERIES or name in ("get_device_properties", "get_rng_state"):
            return CudaQuery(name)
        return MISSING


class CudaSetUp(Interpreted):
    def __init__(self, name: str):
        self.label = f"torch.cuda.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> None:
        return None


class CudaQuery(Interpreted):
    def __init__(self, name: str):
        self.name = name
        self.label = f"torch.cuda.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        given = [*args, *kwargs.values()]
        most = 1 if self.name in _TAKES_A_DEVICE else 0
        if len(given) > most or set(kwargs) - {"device"}:
            raise site.error(f"{self.label}() takes {'at most a device' if most else 'no arguments'}")
        if given and not _is_the_device(given[0]):
            raise site.error(f"{self.label}: there is one GPU, device 0 ('cuda:0'), not {describe(given[0])}")
        if self.name == "get_device_properties":
            return DeviceProperties()
        if self.name == "get_rng_state":
            return RNG_STATE
        return _QUERIES[self.name]


class DeviceProperties(Interpreted):
    """`torch.cuda.get_device_properties(0)`: `.major`, `.minor`, `.name`, `.total_memory` ..."""

    label = "the GPU's properties"

    def attribute(self, name: str) -> Any:
        return DEVICE_PROPERTIES.get(name, MISSING)


class RngState(Interpreted):
    """`torch.cuda.get_rng_state()`: kept only to be given back to set_rng_state, which is passed over."""

    label = "the GPU's random state"


RNG_STATE = RngState()


def _is_the_device(device: Any) -> bool:
    return device is None or device in (0, "cuda", "cuda:0")
