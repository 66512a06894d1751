#!/usr/bin/env python3
"""rensa's MinHash (R-MinHash, its Rust core) on the shingle sets `neardup
bench` sketches, on one core, to put its figures beside ours. Not part of
the tests.

    pip install rensa numpy
    neardup bench --shingles-out /tmp/shingles.u64 --fingerprints 1e3
    python3 scripts/compare_rensa.py /tmp/shingles.u64 [--runs 7]

The file holds the pages' 64-bit shingle hashes (see `shingle_sets_bytes` in
src/bench.rs); rensa gets them through
`RMinHash.digest_matrix_from_flat_token_hashes`, which goes straight from
the buffer to its kernel, so neither side hashes strings and both sketch the
same shingles with 128 permutations. RAYON_NUM_THREADS=1 keeps rensa on one
core, as `neardup bench` is. Prints pages/s and shingles/s (median of the
runs, CPU seconds of this process).
"""

import argparse
import os
import statistics
import sys
import time

# Before rensa starts its thread pool.
os.environ["RAYON_NUM_THREADS"] = "1"

try:
    import numpy as np
    from rensa import RMinHash
except ImportError as e:  # pragma: no cover - a tool, not a test
    sys.exit(f"error: {e}; install with `pip install rensa numpy`")


def read_sets(path: str) -> tuple[np.ndarray, np.ndarray]:
    words = np.fromfile(path, dtype="<u8")
    if len(words) < 3:
        sys.exit(f"error: {path}: too short for a shingle-set file")
    pages, total = int(words[0]), int(words[1])
    if len(words) != 2 + pages + 1 + total:
        sys.exit(
            f"error: {path}: {len(words)} words, expected {2 + pages + 1 + total} "
            f"for {pages} pages and {total} hashes"
        )
    offsets = words[2 : 3 + pages].astype(np.uint64)
    hashes = np.ascontiguousarray(words[3 + pages :])
    return hashes, offsets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shingles", help="file written by `neardup bench --shingles-out`")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--hashes", type=int, default=128)
    args = parser.parse_args()
    hashes, offsets = read_sets(args.shingles)
    pages = len(offsets) - 1
    # Warm up: the permutations, the thread pool, the page cache.
    RMinHash.digest_matrix_from_flat_token_hashes(hashes, offsets, args.hashes, 42)
    cpu = []
    for _ in range(args.runs):
        started = time.process_time()
        matrix = RMinHash.digest_matrix_from_flat_token_hashes(
            hashes, offsets, args.hashes, 42
        )
        cpu.append(time.process_time() - started)
    assert matrix.get_num_perm() == args.hashes
    seconds = statistics.median(cpu)
    print(
        f"rensa R-MinHash (n={args.hashes}), one core: {pages} pages, "
        f"{len(hashes)} shingles, median of {args.runs} runs {seconds:.4f} CPU s: "
        f"{pages / seconds:,.0f} pages/s, {len(hashes) / seconds:,.0f} shingles/s"
    )


if __name__ == "__main__":
    main()
