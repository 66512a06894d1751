#!/usr/bin/env python3
"""Python trafilatura on the gold sets `neardup extract-eval` reads, with the
same metrics, to put its figures beside ours. Not part of the tests.

    pip install trafilatura lxml_html_clean
    python3 scripts/compare_trafilatura.py ../shared/corpora/article_extraction_benchmark
    python3 scripts/compare_trafilatura.py ../shared/corpora/trafilatura_eval
    neardup extract-eval DIR        # ours, on the same pages

The article benchmark is scored as extract-eval scores it (token 4-shingles,
mean precision and recall over pages, their harmonic mean); trafilatura's
evaluation by the share of `with` snippets found and `without` snippets
absent in the whitespace-folded text. Pages/s is one core: pages over the
summed per-page extraction times.
"""

import gzip
import io
import json
import re
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path

try:
    import lzma
    import trafilatura
except ImportError as e:  # pragma: no cover - a tool, not a test
    sys.exit(f"error: {e}; install with `pip install trafilatura lxml_html_clean`")


def extract(raw: bytes) -> tuple[str, float]:
    # Bytes in: trafilatura guesses the charset itself, as neardup does.
    started = time.perf_counter()
    text = trafilatura.extract(raw, include_comments=False, include_tables=True) or ""
    return text, time.perf_counter() - started


WORD = re.compile(r"[\w]+", re.UNICODE)


def shingles(text: str) -> Counter:
    tokens = WORD.findall(text)
    n = 4
    out = Counter()
    for i in range(max(len(tokens) - n + 1, 1)):
        s = tuple(tokens[i : i + n])
        if s:
            out[s] += 1
    return out


def matching(truth: str, predicted: str) -> tuple[float, float, float]:
    t, p = shingles(truth), shingles(predicted)
    tp = sum(min(c, p.get(k, 0)) for k, c in t.items())
    fn = sum(max(c - p.get(k, 0), 0) for k, c in t.items())
    fp = sum(max(c - t.get(k, 0), 0) for k, c in p.items())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def scores(per_page):
    def precision(tp, fp, fn):
        if fp == 0 and fn == 0:
            return 1.0
        return 0.0 if tp == 0 and fp == 0 else tp / (tp + fp)

    def recall(tp, fp, fn):
        if fp == 0 and fn == 0:
            return 1.0
        return 0.0 if tp == 0 and fn == 0 else tp / (tp + fn)

    ps = [precision(*m) for m in per_page if m[0] + m[1] > 0]
    rs = [recall(*m) for m in per_page if m[0] + m[2] > 0]
    p = sum(ps) / max(len(ps), 1)
    r = sum(rs) / max(len(rs), 1)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def article_benchmark(root: Path):
    gold = json.loads((root / "ground-truth.json").read_text())
    per_page, seconds = [], 0.0
    for key in sorted(gold):
        raw = gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes())
        text, s = extract(raw)
        seconds += s
        per_page.append(matching(gold[key]["articleBody"], text))
    p, r, f = scores(per_page)
    print(f"article-extraction-benchmark: {len(per_page)} pages")
    print(f"trafilatura {trafilatura.__version__}: precision {p:.3f} recall {r:.3f} F1 {f:.3f}, "
          f"{len(per_page) / seconds:.0f} pages/s (1 core)")


def fold(s: str) -> str:
    return " ".join(s.split())


def trafilatura_eval(root: Path):
    gold = json.loads((root / "evaldata.json").read_text())
    pages = {}
    data = lzma.decompress((root / "trafilatura_eval_html.tar.xz").read_bytes())
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                pages[Path(member.name).name] = tar.extractfile(member).read()
    counts = Counter()
    seconds, n = 0.0, 0
    for entry in sorted(gold.values(), key=lambda g: g["file"]):
        raw = pages.get(entry["file"])
        if raw is None:
            continue
        if entry["file"].endswith(".gz"):
            raw = gzip.decompress(raw)
        text, s = extract(raw)
        seconds += s
        n += 1
        text = fold(text)
        counts["with"] += len(entry.get("with", []))
        counts["found"] += sum(fold(x) in text for x in entry.get("with", []))
        counts["without"] += len(entry.get("without", []))
        counts["absent"] += sum(fold(x) not in text for x in entry.get("without", []))
    print(f"trafilatura evaluation: {n} pages")
    print(f"trafilatura {trafilatura.__version__}: with found {counts['found'] / counts['with']:.3f} "
          f"without absent {counts['absent'] / counts['without']:.3f}, {n / seconds:.0f} pages/s (1 core)")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    if (root / "ground-truth.json").is_file():
        article_benchmark(root)
    elif (root / "evaldata.json").is_file():
        trafilatura_eval(root)
    else:
        sys.exit(f"error: {root}: no ground-truth.json or evaldata.json")


if __name__ == "__main__":
    main()
