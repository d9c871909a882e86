"""Launch heuristics for generated kernels, in one place."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Options:
    """Launch heuristics. The defaults suit the H200; tests shrink them to reach every code path."""

    pointwise_block: int = 1024  # elements per program for 4-byte outputs (twice that for 2-byte)
    # Warps of a pointwise block of long math (erf, exp, ...): fewer than 8 give each thread more elements,
    # so more loads are in flight while the math runs. H200 device us, 4 -> 2: the erf GELU backward of
    # [16384, 6400] bf16 188.7 -> 180.7, but SiLU backward, SwiGLU, bias + GELU and the odd-size pointwise
    # case 1-9% slower
    long_math_warps: int = 4
    transpose_tile: int = 64  # edge of a transpose tile
    persistent_max_cols: int = 16384  # longest reduced row kept whole in registers
    # ... and the longest kept whole where a loop over its column blocks would read it more than once
    # (`reduction.rereads_rows`: a softmax, a norm, a variance), when at most `persistent_reread_inputs`
    # inputs are read along it: the row is then read once, not twice. H200 device us, looped -> whole:
    # LayerNorm over [4096, 32768] fp32 495.9 -> 259.2, add + LayerNorm writing both over [4096, 32768]
    # fp32 984.2 -> 524.1 and [4096, 20480] bf16 240.3 -> 164.3, softmax over [4096, 32000] fp32 380.1 ->
    # 253.8 and bf16 183.7 -> 172.1, over [4096, 16400] fp32 192.2 -> 130.8, log-softmax over [4096, 32000]
    # fp32 377.1 -> 253.3, RMSNorm over [2048, 28672] bf16 83.6 -> 63.0, a variance over [4096, 32000]
    # fp32 212.4 -> 125.1; slower: softmax over [4096, 24000] bf16 135.3 -> 144.9. With three inputs
    # along the row (a LayerNorm's weight and bias) it was slower (109.6 -> 136.5 at [4096, 20480] bf16),
    # as was a row read once anyway (logsumexp over [4096, 32000] bf16 77.6 -> 108.5).
    persistent_reread_cols: int = 32768
    persistent_reread_inputs: int = 2
    # Column block of looped reductions shorter than `long_row_cols`, a row a program at the default (H200,
    # cross-entropy over 32000 bf16 columns, 2048 -> 4096: 108.2 -> 94.9 us at 8192 rows, 10.6 -> 9.2 at 16)
    loop_cols: int = 4096
    # Looped rows this long (a vocabulary) take a row a program: the second pass over a row then finds it
    # in L2 more often (softmax over 50257 bf16 columns: 629 -> 485 us), in blocks of `long_loop_cols`
    # (4096: 617 us); rows past `longest_row_cols` loop over blocks of `longest_loop_cols` (log-softmax and
    # cross-entropy over 128256: 461 -> 419, 390 -> 354).
    long_row_cols: int = 32768
    long_loop_cols: int = 2048
    longest_row_cols: int = 98304
    longest_loop_cols: int = 4096
    row_tile: int = 4096  # elements of a reduction tile when several rows share a program
    store_tile_rows: int = 8  # rows per tile when outputs are contiguous along the rows (0: no such rule)
    warps: int = 0  # warps of every launch; 0: chosen per kernel from its tiles and math
    # A split reduction (two launches: parts of each row into partials, then the partials of each row)
    # when one program per tile of rows leaves the GPU mostly idle and the rows are long.
    split_below_programs: int = 264  # split only below this many tiles of rows (2 per SM of an H200)
    # ... and only rows of at least this many reduced elements: rows longer than `persistent_max_cols`,
    # which loop (cross-entropy over [16, 32000] bf16 on the H200: 23.2 -> 10.6 us split; rows of 32768
    # and more split before)
    split_min_cols: int = 16385
    # programs the first launch aims for, at most: 528 (4 per SM) made 9 parts of a bias gradient's 64 tiles,
    # 576 programs; 512 makes 8 (H200 sweep: bias gradient 48.9 -> 47.6 us, column centering 119.5 ->
    # 114.7, LayerNorm backward's column sums 106.6 -> 80.2)
    split_programs: int = 512
    # A column (outer) split writing full-shape outputs of at least this many elements writes them in a
    # third launch, by their flat index (`flat_finish`). H200 device us, two launches -> three: column
    # centering of [16384, 4096] bf16 107.2 -> 103.5, of [12289, 3001] fp32 196.0 -> 133.5, of
    # [16384, 4095] fp32 493.1 -> 348.4, of [4099, 5003] bf16 67.6 -> 60.5, a batch norm over [32768, 1024]
    # fp32 136.3 -> 129.4; at [2048, 4096] bf16 (8M elements) 15.6 -> 16.6, so smaller ones keep two.
    flat_finish_min_elements: int = 1 << 24
    # ... and such a normalization splits below this many tiles of rows, not `split_below_programs`: its
    # one launch reads each tile's rows twice in one program. H200 device us, one launch -> three: column
    # centering of [8192, 30528] bf16 389.7 -> 357.9, of [2048, 50257] bf16 351.7 -> 225.8, of [4096,
    # 20001] fp32 432.5 -> 264.4; a batch norm over [8192, 20001] bf16 772.7 -> 594.4; x / max(|x|, 0)
    # of [8192, 32000] bf16 406.5 -> 375.5; [4096, 20000] fp32 267.2 -> 265.5.
    flat_split_below_programs: int = 1024
    # A split inner normalization whose reduced dims have kept dims between them (a batch norm over dims 0,
    # 2, 3 of NCHW) writes its outputs by their flat index too, at any size. Written part by part, a
    # program per (row, part), the second launch was far slower and erratic (H200 device us, batch norm
    # of [32, 256, 56, 56] fp32: 49.7 in 2 parts a row, 1664 in 25). Flat, its partials in parts of
    # `split_reread_part`, whole batch norms (torch.compile): [32, 256, 56, 56] fp32 118.3 -> 83.4
    # (88.5), [32, 64, 56, 56] fp32 160.5 -> 24.3 (29.5), [64, 64, 112, 112] bf16 224.1 -> 96.2 (156.5).
    flat_finish_gapped: bool = True
    # The first launch of an outer split over rows off 16-byte boundaries (`rows.rows_aligned`: no vector
    # loads, no software pipeline) reads tiles of `misaligned_outer_tile` elements ([64, 16]) in about
    # `misaligned_outer_programs` programs: many small programs keep more scalar loads in flight than 512 of
    # [64, 64]. H200 device us, before -> after: column centering of [16384, 4095] bf16 313.3 -> 135.6 and
    # fp32 353.8 -> 204.4, of [32768, 1537] bf16 342.3 -> 105.2, of [4099, 5003] fp32 90.4 -> 72.8; a
    # middle-dim centering of [8, 2048, 2047] bf16 132.9 -> 73.4; column sums of [12289, 3001] bf16 61.3
    # -> 33.5, [8191, 12289] bf16 138.3 -> 91.3, [16384, 4095] fp32 114.6 -> 91.5; slower: column sums of
    # [32768, 1537] fp32 66.8 -> 70.9 and [8191, 12289] fp32 136.0 -> 137.9. Aligned rows were slower so
    # (bias gradients 38.9 -> 44.1), and so was a split whose second launch writes full-shape outputs in
    # the first's tiles (batch norm over [16383, 1023] bf16 55.3 -> 104.4): both keep the defaults.
    # 0: no such rule.
    misaligned_outer_tile: int = 1024
    misaligned_outer_programs: int = 2048
    # Rows off 4-byte boundaries (2-byte values at an odd stride), loaded element by element, split however
    # many tiles of rows there are: one launch of [64, 64] tiles keeps too few loads in flight. H200 device
    # us, bf16, one launch -> split ([64, 16] tiles, 2048 programs): column sums of [6007, 28001] 322.6 ->
    # 149.6, [6007, 32001] 326.0 -> 155.8, [8192, 32001] 299.1 -> 208.7, [16384, 20001] 562.3 -> 289.9, a
    # middle-dim sum of [4, 4096, 5001] 191.4 -> 74.6, a column centering of [2048, 80001] 534.0 -> 346.1;
    # slower: a column sum of [4096, 50257] 167.5 -> 172.5. Rows on 4-byte boundaries keep one launch
    # ([8192, 30522] 148.8 -> 189.4 split). Where no later launch reads the rows (column sums, not
    # normalizations), the first launch then reads tiles of `off_4_bytes_outer_tile` elements ([64, 32])
    # in about `off_4_bytes_outer_programs` programs, not [64, 16] in 2048: [16384, 20001] 288.0 -> 256.3
    # us, [4, 4096, 5001] 75.1 -> 64.0, [6007, 32001] 156.5 -> 146.4, [4096, 50257] 172.2 -> 153.9,
    # [8191, 12289] 91.5 -> 79.0 (split before); a column centering of [4099, 5003] was slower so (56.1 ->
    # 69.0). 0: no such rule.
    off_4_bytes_outer_tile: int = 2048
    off_4_bytes_outer_programs: int = 4096
    # Fewest reduced elements in one part of a row. A few rows then split into parts of one column block
    # each, so a program waits on one block's loads, not on a loop of them (H200 device us, 4096 -> 1024:
    # softmax over [8, 50257] bf16 8.5 -> 4.1, log-softmax over [1, 128256] 4.7 -> 3.3, cross-entropy over
    # [16, 32000] 4.8 -> 3.7 and over [4, 128256] 4.5 -> 3.6; no other kernel of the suites changed)
    split_min_part: int = 1024
    # Outer (column) reductions read a tile of many kept columns per step, so a program's tiles are few:
    # they split at shorter reduced extents (a bias gradient of 2048-16384 rows) into shorter parts.
    split_min_cols_outer: int = 1024
    split_min_part_outer: int = 256
    # Longest part (reduced elements) of a split whose first launch reads its part twice (a variance: the
    # mean, then the squared deviations from it), so that the second read finds the part in L2 (0: no
    # such limit); not where the second launch writes full-shape outputs part by part (see
    # `flat_finish_gapped`). H200 device us of the first launch, variance of 33554431 fp32: parts of 65536
    # 107.8, of 4096 41.0, of 8192 140.0; both launches, parts of 32768: 117.2 (torch.compile 60.4).
    split_reread_part: int = 4096
    # The first launch of a split of sums, maxima, minima or products that writes no full-shape output
    # reads its streamed inputs whole, and no later launch does: their loads are marked evict_first (L2
    # keeps what later kernels read) and issued by a plain loop (the software pipeline's asynchronous
    # copies carry no eviction hint), an inner reduction's in blocks of `split_stream_cols` columns at 4
    # values a thread, an outer one's at 8 warps. H200, suite device us before -> after (torch.compile):
    # l2 norm bf16 30.4 -> 26.6 (26.5), bias gradients bf16 41.5 -> 38.4 (40.8) and fp32 56.2 -> 54.2
    # (55.5), full mean 70.3 -> 70.1 (69.8); decode sizes 5.1 -> 4.7, 9.6 -> 9.8, 12.3 -> 10.8, 14.1 -> 12.3.
    # An online max and sum of exp (cross-entropy, logsumexp over a few rows) was slower so (4.6 -> 6.1,
    # 5.9 -> 7.0, 13.5 -> 17.8): it keeps the pipelined loop, as do variances.
    split_streaming: bool = True
    split_stream_cols: int = 2048
    # An outer (column or middle-dim) reduction of one launch that writes no full-shape output and reduces
    # by sums, maxima, minima or products marks its streamed loads evict_first too: H200 device us,
    # middle-dim sum of [8, 2048, 4096] bf16 41.1 -> 37.3, [4, 512, 4096] 8.1 -> 7.7. Row reductions were
    # not faster so: cross-entropy over [4096, 32000] bf16 79.0 -> 75.5 but fp32 127.5 -> 133.4, logsumexp
    # over [4093, 50257] 129.6 -> 131.7.
    outer_evict_first: bool = True
    outer_tile: int = 4096  # elements of an outer reduction's looped tile ([transpose_tile, the rest])
    # Fewest elements of an outer reduction's whole tile (kept columns x the few reduced ones): more kept
    # columns than `transpose_tile` where the reduced extent is short (0: no such rule), at the warps whose
    # threads load 16 bytes each (`reduction._row_kernel_warps`). H200 device us, [64, 4] tiles -> [1024,
    # 4]: column sums of [3, 4194304] fp32 41.2 -> 19.1 (torch.compile 19.2), [2, 8388608] fp32 80.1 ->
    # 28.1 (27.2), [4, 4194304] bf16 41.2 -> 14.3 (15.9), [7, 1048577] fp16 11.5 -> 8.2 (8.1); middle-dim
    # sums of [64, 3, 65536] bf16 41.1 -> 11.9 (11.9), [16, 12, 131072] fp32 52.2 -> 28.5 (63.0).
    outer_min_tile: int = 4096
    # Triton's software pipeline over looped column blocks: `loop_stages` stages for every looped row when
    # set, else `outer_stages` for an outer reduction of one streamed input over at least
    # `outer_stages_min_cols` reduced elements (`reduction.choose_layout`; measured at 2048 and 16384).
    loop_stages: int = 0
    outer_stages: int = 3
    outer_stages_min_cols: int = 8192
    # ... and `inner_stages` for an inner (row) reduction looping over at least `inner_stages_min_cols`
    # columns (0: a plain loop). On the H200, rows of 128256: log-softmax 420.4 -> 395.5 us, cross-entropy
    # 353.4 -> 341.0, and 9.5 -> 8.9, 9.0 -> 8.7 at 1 and 4 rows; rows of 50257 gained nothing.
    inner_stages: int = 3
    inner_stages_min_cols: int = 98304
    # ... or over fewer tiles of rows than `inner_stages_below_tiles`: few programs keep too few loads in
    # flight in a plain loop. H200 device us, the sum over dims (0, 2) of [64, 512, 768] bf16 (512 rows of
    # 49152) 31.3 -> 20.6 (torch.compile 15.0); the split kernels it reaches at decode sizes (cross-entropy,
    # logsumexp, softmax over 1-16 rows) within 0.1 us.
    inner_stages_below_tiles: int = 1024
    # A column block's loads of the streamed inputs at the top of the block, all in flight before its math
    # waits on one (else each where the math first reads it, and the compiler may reuse the first load's
    # registers for the second, which then waits on the first). On the H200: LayerNorm backward's column
    # sums 124.4 -> 106.4 us (large), 26.1 -> 23.4 (decode); no kernel measured was slower by more than 0.4.
    loads_first: bool = True
    # In an outer (column) reduction, each loop over the reduced rows walks them the other way from the loop
    # before, and the second launch of a split that reads them again takes the first launch's programs last
    # to first: a pass then starts on what the pass before read last, the likeliest still in the L2 cache.
    # H200, column mean then centering: 115.6 -> 113.7 us (large), 26.0 -> 20.8 (decode). The passes over a
    # row looped by one program alternate too (a softmax writes its outputs from the row's last block back),
    # since rows of odd length start at an aligned element: 1-11% on 11 vocabulary-size scripts (LayerNorm
    # over [4096, 32768] bf16 141.4 -> 126.4 us, softmax over [4096, 151655] 1045.9 -> 967.1), softmax over
    # [4096, 50257] 342.8 -> 338.3 and log-softmax over [2048, 128256] 397.4 -> 387.7 in the suite.
    alternate_passes: bool = True
    # A row kernel that also sums columns (`column_partials`: a normalization backward's grad-weight):
    # programs, each over many tiles of rows, and the longest row it keeps on chip beside its column sums.
    column_partials_programs: int = 264
    column_partials_max_cols: int = 8192
    # Triton's software pipeline over a program's tiles of rows (0: a plain loop). H200, large: LayerNorm
    # backward 138.4 -> 112.8 us, RMSNorm backward 155.8 -> 110.4 (2 stages: 145.5, 141.8)
    column_partials_stages: int = 3
    # A looped row a program whose offset is no multiple of the vector width (rows of 50257) reads and
    # writes from the aligned element before its first, the blocks inside the row without a mask, in
    # Triton's software pipeline of `aligned_stages` stages. H200, at 4 warps, unaligned -> aligned:
    # logsumexp over [4093, 50257] bf16 178.4 -> 131.1 us, softmax over [4096, 50257] 474.7 -> 465.2
    # (2 stages 693.6, none 728.6).
    align_rows: bool = True
    aligned_stages: int = 3
