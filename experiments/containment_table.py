"""Containment against Jaccard on the partial slices, from a run's results.

    neardup run experiments/containment.yaml
    python3 experiments/containment_table.py reports/containment/results.csv

For each algorithm: at its best pairwise F1 (over all pairs), the overall
precision and the recall on the partial slices; then, at the precision the
Jaccard twin reaches at its best F1, the most partial-slice recall each
score reaches with at least that precision; last, that recall at several
precisions. Standard library only.
"""

import csv
import sys
from collections import defaultdict

PARTIAL = ("prose/partial", "news/partial")


def main(path):
    rows = defaultdict(lambda: defaultdict(dict))
    for r in csv.DictReader(open(path, newline="")):
        rows[(r["label"], r["extract"])][float(r["threshold"])][r["slice"]] = r
    points = {}
    for key, by_t in rows.items():
        pts = []
        for t, slices in sorted(by_t.items()):
            a = slices["all"]
            actual = sum(int(slices[s]["pair_actual"]) for s in PARTIAL if s in slices)
            correct = sum(int(slices[s]["pair_correct"]) for s in PARTIAL if s in slices)
            detected = sum(int(slices[s]["pair_detected"]) for s in PARTIAL if s in slices)
            num = lambda x: float(x) if x not in ("", "NaN") else float("nan")
            pts.append(
                dict(
                    t=t,
                    p=num(a["pair_precision"]),
                    r=num(a["pair_recall"]),
                    f=num(a["pair_f1"]),
                    pr=correct / actual if actual else float("nan"),
                    pp=correct / detected if detected else float("nan"),
                    page_r=[num(slices[s]["page_recall"]) for s in PARTIAL if s in slices],
                )
            )
        points[key] = pts
    print("| algorithm | best F1 @ t | P | R | partial R (pairs) | partial P | page R prose/news partial |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    best = {}
    for key, pts in points.items():
        b = max((p for p in pts if p["f"] == p["f"]), key=lambda p: p["f"])
        best[key] = b
        print(
            f"| {key[0]} [{key[1]}] | {b['f']:.4f} @ {b['t']:g} | {b['p']:.4f} | {b['r']:.4f} "
            f"| {b['pr']:.4f} | {b['pp']:.4f} | {' / '.join(f'{x:.4f}' for x in b['page_r'])} |"
        )
    print()
    print("| at precision >= | algorithm | t | P | R | partial R (pairs) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for key, b in best.items():
        if not key[0].startswith(("jaccard", "minhash")) or "containment" in key[0]:
            continue
        twin = [k for k in points if k[1] == key[1] and twin_of(key[0], k[0])]
        for k in [key] + twin:
            ok = [p for p in points[k] if p["p"] >= b["p"]]
            if not ok:
                print(f"| {b['p']:.4f} | {k[0]} [{k[1]}] | - | - | - | - |")
                continue
            m = max(ok, key=lambda p: (p["pr"], p["r"]))
            print(
                f"| {b['p']:.4f} | {k[0]} [{k[1]}] | {m['t']:g} | {m['p']:.4f} | {m['r']:.4f} | {m['pr']:.4f} |"
            )
    print()
    levels = (0.9, 0.95, 0.97, 0.98, 0.99, 0.995)
    print("| partial-slice pair recall at overall precision >= | " + " | ".join(f"{x:g}" for x in levels) + " |")
    print("| --- |" + " --- |" * len(levels))
    for key, pts in points.items():
        cells = []
        for level in levels:
            ok = [p for p in pts if p["p"] >= level]
            cells.append(f"{max(p['pr'] for p in ok):.4f}" if ok else "-")
        print(f"| {key[0]} [{key[1]}] | " + " | ".join(cells) + " |")


def twin_of(jaccard_label, label):
    """The containment entry with the same settings."""
    if jaccard_label.startswith("jaccard("):
        return label == jaccard_label.replace("jaccard(", "containment(", 1)
    return label.startswith(jaccard_label.split(",lsh")[0]) and label.endswith(", containment)")


if __name__ == "__main__":
    main(sys.argv[1])
