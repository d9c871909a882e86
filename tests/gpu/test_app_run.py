"""On a CUDA device, the app's Run page itself (AppTest, the real run service and its worker process):
its comparison measures like with like. The tables are printed, to be read beside `hfuse bench`'s."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
streamlit_testing = pytest.importorskip("streamlit.testing.v1", reason="the app's packages are not installed")

from hfuse import share  # noqa: E402
from hfuse.examples import get_example  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
RUN_TIMEOUT = 600  # a first run compiles the kernels and torch.compile's baseline


@pytest.fixture(scope="module", autouse=True)
def service():
    from hfuse.service import worker

    yield worker.shared_service()
    worker.shared_service().close()


def run_page(example: str, outputs: str):
    at = streamlit_testing.AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(f=share.encode_definition(get_example(example, "nanogpt").text), v="1")
    at.query_params["outputs"] = outputs
    at.run()
    at.button(key="nav_run").click().run()
    at.button(key="run").click().run(timeout=RUN_TIMEOUT)
    assert not at.exception and not [e.value for e in at.error]
    assert "outputs match torch" in at.success[0].value
    comparison = next(frame.value for frame in at.dataframe if "candidate" in frame.value.columns)
    print(f"\n{example} ({outputs}):\n{comparison.to_string(index=False)}")
    return comparison.set_index("candidate")


def _us(text: str) -> float:
    number, unit = text.split()
    return float(number.replace(",", "")) * {"us": 1.0, "ms": 1e3, "s": 1e6}[unit]


def test_the_seed_with_contiguous_outputs_is_no_slower_than_eager():
    table = run_page("qkv_split", "contiguous")
    hfuse, eager = table.loc["hfuse (hfuse)"], table.loc["eager"]
    assert hfuse["kernels"] == 1 and eager["kernels"] >= 1
    assert _us(hfuse["kernel time"]) <= _us(eager["kernel time"])
    # At this size a call is host-bound; on the device the kernel moves its bytes about as fast as a clone.
    assert _us(hfuse["device time"]) <= 1.25 * _us(table.loc["clone", "device time"])


def test_the_seed_with_views_launches_no_kernel_and_neither_does_eager():
    table = run_page("qkv_split", "views")
    assert table.loc["hfuse (hfuse)", "kernels"] == 0
    assert table.loc["eager", "kernels"] == 0  # torch returns the same views: only host time differs
    assert "clone" not in table.index  # no bytes move


def test_a_normalization_is_measured_beside_torch():
    table = run_page("softmax", "contiguous")
    assert table.loc["hfuse (hfuse)", "kernels"] == 1
    assert _us(table.loc["hfuse (hfuse)", "kernel time"]) <= 1.1 * _us(table.loc["eager", "kernel time"])
