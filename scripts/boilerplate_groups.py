#!/usr/bin/env python3
"""Site boilerplate by host, by template and both, against none: false
positives among same-template different-story pages at equal recall, on a
corpus as it is and with every page's `url` removed. Not part of the tests.

    pip install pyyaml
    cargo build --release
    python3 scripts/boilerplate_groups.py experiments/site_boilerplate.yaml
    python3 scripts/boilerplate_groups.py experiments/demo.yaml
    python3 scripts/boilerplate_groups.py experiments/demo.yaml --share 0.1

For each variant the experiment is run once (`neardup run --pairs`) with
`boilerplate:` replaced (absent, or `{by: site, group: G}` with the
experiment's share and min_pages, or the share given). Same template means the same host in
the original corpus (the site and demo builders put one template on each
host); a false positive is a flagged pair of pages from different clusters.
Equal recall: for each algorithm, the highest recall (in steps of 0.05)
that every variant reaches, and at it the fewest flagged pairs (the
threshold each variant needs for that recall).
"""

import gzip
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlparse

import yaml

NEARDUP = os.environ.get("NEARDUP", "target/release/neardup")
VARIANTS = ["off", "host", "template", "both"]


def host(url):
    h = (urlparse(url).hostname or "").lower() if url else ""
    return h[4:] if h.startswith("www.") else h


def read_corpus(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pairs_file(csv_path):
    import csv

    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return header, body


def configured(results_csv):
    """Pairwise F1 and recall over all slices at each algorithm's threshold."""
    import csv

    out = {}
    with open(results_csv, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["is_default"] == "true" and r["slice"] == "all":
                name = f"{r['label']} [{r['extract']}]"
                out[name] = (float(r["pair_f1"] or 0), float(r["pair_recall"] or 0))
    return out


def tabulate(rows, columns, true_pairs, template_of, cluster_of):
    """Per algorithm column: sorted (score, is_true, same_template_fp)."""
    out = {}
    for c in columns:
        name = c[1]
        distance = name.startswith("simhash")
        points = []
        for r in rows:
            v = r[c[0]]
            if v == "":
                continue
            a, b = r[0], r[1]
            true = cluster_of[a] == cluster_of[b]
            same_t = template_of[a] == template_of[b] and template_of[a] != ""
            points.append((float(v), true, (not true) and same_t, not true))
        points.sort(key=lambda p: p[0], reverse=not distance)
        out[name] = points
    return out


def at_recall(points, total_true, recall):
    """Fewest pairs flagged reaching `recall`: (same-template FP, all FP, threshold)."""
    need = recall * total_true
    tp = fp_t = fp = 0
    i = 0
    while i < len(points):
        score = points[i][0]
        # A threshold takes every pair with its score.
        while i < len(points) and points[i][0] == score:
            tp += points[i][1]
            fp_t += points[i][2]
            fp += points[i][3]
            i += 1
        if tp >= need - 1e-9:
            return fp_t, fp, score
    return None


def main():
    args = sys.argv[1:]
    share = None
    if len(args) == 3 and args[1] == "--share":
        share = float(args[2])
        args = args[:1]
    if len(args) != 1:
        sys.exit(__doc__)
    experiment = Path(args[0]).resolve()
    config = yaml.safe_load(experiment.read_text(encoding="utf-8"))
    corpus = config["corpus"]
    corpus_path = (
        Path("datasets/demo/demo.jsonl.gz").resolve()
        if corpus == "demo"
        else (experiment.parent / corpus).resolve()
    )
    pages = read_corpus(corpus_path)
    template_of = {p["id"]: host(p.get("url")) for p in pages}
    cluster_of = {p["id"]: p.get("cluster") or p["id"] for p in pages}
    by_cluster = defaultdict(int)
    for p in pages:
        by_cluster[cluster_of[p["id"]]] += 1
    total_true = sum(n * (n - 1) // 2 for n in by_cluster.values())
    base = config.get("boilerplate") or {}
    if isinstance(base, str):
        base = {}
    work = Path(tempfile.mkdtemp(prefix="neardup-boilerplate-"))
    no_url = work / "no_url.jsonl.gz"
    with gzip.open(no_url, "wt", encoding="utf-8") as f:
        for p in pages:
            p = dict(p)
            p.pop("url", None)
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    results = {}
    at_threshold = {}
    for label, path in [("with url", corpus_path), ("no url", no_url)]:
        for variant in VARIANTS:
            c = dict(config)
            c.pop("build", None)
            c["corpus"] = str(path)
            c["name"] = f"{config['name']}_{variant}"
            if variant == "off":
                c.pop("boilerplate", None)
            else:
                c["boilerplate"] = {
                    "by": "site",
                    "group": variant,
                    "share": share or base.get("share", 0.3),
                    "min_pages": base.get("min_pages", 3),
                }
            y = work / f"{label.replace(' ', '_')}_{variant}.yaml"
            y.write_text(yaml.safe_dump(c, allow_unicode=True), encoding="utf-8")
            out = work / y.stem
            run = subprocess.run(
                [NEARDUP, "run", str(y), "-o", str(out), "--pairs", str(out / "pairs")],
                capture_output=True,
                text=True,
            )
            if run.returncode != 0:
                sys.exit(f"{y}: neardup exited {run.returncode}\n{run.stderr}")
            header, rows = pairs_file(out / "pairs.csv")
            columns = [(i, h) for i, h in enumerate(header) if i >= 4]
            results[(label, variant)] = tabulate(
                rows, columns, total_true, template_of, cluster_of
            )
            at_threshold[(label, variant)] = configured(out / "results.csv")
    names = list(results[("with url", "off")].keys())
    print(
        f"corpus {corpus_path.name}: {len(pages)} pages, {total_true} true pairs; "
        f"share {share or base.get('share', 0.3)}"
    )
    print(
        "| pages | algorithm | recall | "
        + " | ".join(VARIANTS)
        + " |\n|---|---|---:|"
        + "---:|" * len(VARIANTS)
    )
    for label in ["with url", "no url"]:
        for name in names:
            recall = 1.0
            for v in VARIANTS:
                pts = results[(label, v)][name]
                reached = sum(p[1] for p in pts) / total_true if total_true else 0
                recall = min(recall, reached)
            recall = int(recall * 20 + 1e-9) / 20
            if recall <= 0:
                continue
            cells = []
            for v in VARIANTS:
                r = at_recall(results[(label, v)][name], total_true, recall)
                cells.append("-" if r is None else f"{r[0]} ({r[1]})")
            print(f"| {label} | {name} | {recall:.2f} | " + " | ".join(cells) + " |")
    print(
        "\nAt the configured thresholds, pairwise F1 (recall):\n\n| pages | algorithm | "
        + " | ".join(VARIANTS)
        + " |\n|---|---|"
        + "---:|" * len(VARIANTS)
    )
    for label in ["with url", "no url"]:
        for name in at_threshold[(label, "off")]:
            cells = []
            for v in VARIANTS:
                f1, recall = at_threshold[(label, v)].get(name, (0.0, 0.0))
                cells.append(f"{f1:.3f} ({recall:.3f})")
            print(f"| {label} | {name} | " + " | ".join(cells) + " |")
    print(f"\nruns kept in {work}")


if __name__ == "__main__":
    main()
