"""Every merge the segmenter's verdicts allow runs correctly, and every merge they refuse is refused: random
small fusions, cut one kernel an op chain (naive) or by hfuse, each pair of their segments merged as one
kernel and as one launch; a legal merge's kernels match the torch reference on fresh inputs."""

from __future__ import annotations

import itertools
import os

import pytest
from engine_check import check_against_reference
from hypothesis import HealthCheck, given, note, settings
from random_fusions import fusions, random_inputs

from hfuse.errors import MergeError
from hfuse.ir import Fusion
from hfuse.pipeline import compile_fusion
from hfuse.printer import print_fusion
from hfuse.runtime import execute
from hfuse.segment import can_fuse, can_share_launch
from hfuse.segment.override import KERNEL, LAUNCH, Merge

EXAMPLES = int(os.environ.get("HFUSE_TEST_EXAMPLES", "25"))
PAIRS_PER_FUSION = 6  # the first pairs of each plan, in segment order: enough to reach every kind of merge


def _verdicts(fusion: Fusion, strategy: str) -> list[tuple[Merge, bool]]:
    """Each merge of the plan's first pairs of segments, with whether the segmenter allows it."""
    compiled = compile_fusion(fusion, strategy=strategy, alias_outputs=False)
    groups = compiled.segmentation.groups
    found = []
    for a, b in itertools.islice(itertools.combinations(groups, 2), PAIRS_PER_FUSION):
        rest = [g for g in groups if g.id not in (a.id, b.id)]
        found.append((Merge(a.id, b.id, KERNEL), can_fuse(a, b, compiled.scheduled, rest).ok))
        found.append((Merge(a.id, b.id, LAUNCH), can_share_launch(a, b, compiled.scheduled, rest).ok))
    return found


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(fusion=fusions())
@pytest.mark.parametrize("strategy", ["naive", "hfuse"])
def test_every_allowed_merge_matches_the_reference_and_every_other_is_refused(
    fresh_cache, device, strategy, fusion
):
    note(print_fusion(fusion))
    for merge, allowed in _verdicts(fusion, strategy):
        note(f"{merge}: {'allowed' if allowed else 'refused'}")
        if not allowed:
            with pytest.raises(MergeError, match=f"segments {merge.first} and {merge.second} cannot be"):
                compile_fusion(fusion, strategy=strategy, alias_outputs=False, merge=merge)
            continue
        merged = compile_fusion(fusion, strategy=strategy, alias_outputs=False, merge=merge)
        before = compile_fusion(fusion, strategy=strategy, alias_outputs=False)
        assert len(merged.segmentation.groups) == len(before.segmentation.groups) - 1
        inputs = random_inputs(fusion, seed=0, device=device)  # the first run validates against torch
        execute(fusion, inputs, backend=strategy, alias_outputs=False, merge=merge)
        fresh = random_inputs(fusion, seed=1, device=device)
        results, _, _ = execute(fusion, fresh, backend=strategy, alias_outputs=False, merge=merge)
        check_against_reference(fusion, results, fresh, f"{strategy}, {merge}")
