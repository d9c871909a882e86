"""The extended suite's scripts at the sizes of other public models, for cases its own sizes do not show
(`bench/results/2026-12-04-NVIDIA-H200-reshaped.txt`): each integer of a case's map is replaced in the
script's code (not in its description), and `compare` runs hfuse against torch.compile (GPU only):

    python3 bench/reshaped_cases.py write DIR
    PYTHONPATH=. python3 bench/reshaped_cases.py compare DIR/*.py

torch.compile compiles each case's plain torch function (`hfuse.baselines`), as `hfuse bench` does.
"""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples" / "extended"

# size folder -> case -> its maps, old integer -> new: widths of Phi-2 (2560), Qwen2 (3584, 18944, 151936),
# Falcon (4544), Llama-2 13B (5120), Gemma (256000), T5 (32128), Phi-3 (32064), BERT (30522), and primes
RESHAPED = {
    "large": {
        "add_layernorm": [{"16384": "8192", "1600": "2560"}, {"16384": "4099", "1600": "5120"}],
        "add_rmsnorm": [{"16384": "8192", "4096": "3584"}, {"16384": "6000", "4096": "5120"}],
        "bias_grad_bf16": [{"16384": "8192", "4096": "5120"}, {"16384": "16000", "4096": "4544"}],
        "bias_grad_fp32": [{"16384": "16000", "3072": "2560"}],
        "column_center": [{"16384": "12000", "4096": "3584"}, {"16384": "8192", "4096": "1024"}],
        "cross_entropy_128k": [{"128256": "151936", "4096": "2048"}],
        "cross_entropy_32k": [{"32000": "32064", "4096": "8192"}, {"32000": "50257", "4096": "2048"}],
        "expanded_bias": [{"16384": "8192", "8192": "18944"}],
        "gelu_backward": [{"16384": "8192", "6400": "10240"}],
        "l2_norm_bf16": [{"11008": "13824"}],
        "layernorm_backward": [{"4096": "2560"}, {"4096": "1024", "16384": "32768"}],
        "rmsnorm_backward": [{"4096": "5120", "16384": "8192"}, {"4096": "3584", "16384": "6007"}],
        "log_softmax_vocab": [{"128256": "256000", "2048": "1024"}, {"128256": "32128", "2048": "8192"}],
        "mean_all_fp32": [{"16384": "12000", "4096": "5000", "67108864": "60000000"}],
        "middle_sum": [{"8": "4", "2048": "4096", "4096": "3584"}],
        "odd_bias_grad": [{"30522": "32001", "8192": "6007"}],
        "odd_pointwise": [{"4093": "6007", "5003": "3001"}],
        "odd_row_logsumexp": [{"4093": "2039", "50257": "65537"}],
        "permuted_add": [{"2048": "4096", "32": "28"}],
        "silu_backward": [{"14336": "18944", "8192": "4096"}],
        "softmax_vocab": [
            {"50257": "32128", "4096": "8192"},
            {"50257": "151936", "4096": "1024"},
            {"50257": "30522", "4096": "8192"},
        ],
        "transposed_add": [{"11008": "14336"}],
    },
    "decode": {
        "softmax_vocab": [{"8": "4", "50257": "151936"}],
        "log_softmax_vocab": [{"128256": "256000"}],
        "cross_entropy_32k": [{"32000": "32064", "16": "8"}],
        "odd_row_logsumexp": [{"127": "61", "50257": "65537"}],
    },
}


def reshaped(text: str, sizes: dict[str, str]) -> str:
    """`text` with each whole integer of `sizes` replaced (all at once, so 2048 -> 4096 -> 3584 does not
    chain), except in comment lines."""
    number = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sizes)) + r")(?!\w)")
    lines = text.splitlines(keepends=True)
    code = [line if line.startswith("#") else number.sub(lambda m: sizes[m[1]], line) for line in lines]
    return "".join(code)


def cases() -> dict[str, str]:
    found = {}
    for size, table in RESHAPED.items():
        for case, maps in table.items():
            text = (EXAMPLES / size / f"{case}.py").read_text(encoding="utf-8")
            for n, sizes in enumerate(maps):
                changes = ", ".join(f"{old} -> {new}" for old, new in sizes.items())
                header = f"# {size}/{case} re-shaped: {changes}\n"
                found[f"{size}_{case}_{n}.py"] = header + reshaped(text, sizes)
    return found


def write(folder: Path) -> None:
    from column_cases import write_scripts

    write_scripts(folder, cases())


def compare(path: str) -> str:
    """`column_cases.compare` of a script `write` wrote, against its case's plain torch function."""
    from column_cases import compare as compare_script

    from hfuse.baselines import baseline

    size, case = re.match(r"# (\w+)/(\w+) re-shaped", Path(path).read_text(encoding="utf-8")).groups()
    return compare_script(path, baseline(case, f"extended-{size}"))


if __name__ == "__main__":
    from column_cases import command_line

    command_line(__doc__, write, compare)
