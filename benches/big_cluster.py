#!/usr/bin/env python3
"""One huge cluster: N identical pages (a mirrored article, as crawls hold
error pages and mirrors) plus M unique pages, and one experiment per
algorithm of experiments/demo.yaml over them.

    python3 benches/big_cluster.py /tmp/big            # 30,000 + 2,000 pages
    python3 benches/big_cluster.py /tmp/big --copies 3000 --unique 200
    python3 benches/big_cluster.py /tmp/near --edits 3   # near-identical copies
    for e in /tmp/big/*.yaml; do /usr/bin/time -v target/release/neardup run "$e" -o /tmp/big/out; done

Each experiment must finish in seconds and a few hundred MB: the pairs
inside the cluster are counted, never listed. With `--edits K` each copy
gets K small word edits of its own (a word replaced, inserted or deleted at
a random place, fixed seed), so the copies are near-identical rather than
identical: signatures differ and the cluster cannot be one group.
"""

import argparse
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ZH = (
    "国务院 今天 召开 常务 会议 研究 部署 进一步 推进 农村 公路 建设 交通 运输 部门 "
    "要求 各地 加快 完善 基础 设施 提高 服务 水平 经济 社会 发展 城市 居民 生活 "
    "教育 医疗 卫生 科技 创新 企业 市场 投资 环境 保护 文化 旅游 体育 比赛 "
    "记者 报道 专家 认为 数据 显示 今年 以来 同比 增长 下降 政策 措施 落实"
).split()
EN = (
    "the council met today to discuss roads transport schools hospitals "
    "markets prices growth river bridge weather storm election court budget "
    "science museum festival harbour railway library farmers engineers report "
    "said figures show year rise fall policy plan city village region"
).split()


def page_html(title, paragraphs):
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<html><head><title>{title}</title></head><body>"
        f"<div class=nav><a href=/>首页</a> <a href=/news>新闻</a></div>"
        f"<div class=article><h1>{title}</h1>{body}</div>"
        f"<div class=footer>版权所有</div></body></html>"
    )


def text(rng, words, n, joiner):
    return joiner.join(rng.choice(words) for _ in range(n))


SYLLABLES = "ka lo mi ne ru sa ti vo we xa yu ze bi co du fe gi ha jo ku".split()


def own_words(rng, zh, n=300):
    """A vocabulary of the page's own, so that unique pages are unrelated
    (words from one small pool make every page look alike to SimHash)."""
    if zh:
        return ["".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(2)) for _ in range(n)]
    return ["".join(rng.choice(SYLLABLES) for _ in range(3)) for _ in range(n)]


def sentence_words(rng, zh, words=None):
    """Six paragraphs of four sentences, each sentence a list of words."""
    words = words or (ZH if zh else EN)
    return [
        [[rng.choice(words) for _ in range(rng.randint(8, 16))] for _ in range(4)]
        for _ in range(6)
    ]


def render(zh, story):
    joiner, end = ("", "。") if zh else (" ", ".")
    return [joiner.join(joiner.join(s) + end for s in para) for para in story]


def paragraphs(rng, zh, words=None):
    return render(zh, sentence_words(rng, zh, words))


def edited(rng, story, edits, words):
    """A copy of `story` with `edits` words replaced, inserted or deleted,
    each at a random sentence and position."""
    story = [[list(s) for s in para] for para in story]
    sentences = [s for para in story for s in para]
    for _ in range(edits):
        s = rng.choice(sentences)
        op = rng.choice(("replace", "insert", "delete"))
        if op == "delete" and len(s) > 1:
            del s[rng.randrange(len(s))]
        elif op == "insert":
            s.insert(rng.randrange(len(s) + 1), rng.choice(words))
        else:
            s[rng.randrange(len(s))] = rng.choice(words)
    return story


def algorithm_blocks():
    """The algorithm entries of the demo experiment, as YAML text."""
    lines = (ROOT / "experiments" / "demo.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index("algorithms:") + 1
    blocks = []
    for line in lines[start:]:
        if line.startswith("  - type:"):
            blocks.append([])
        if blocks and line.strip():
            blocks[-1].append(line)
    return blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--copies", type=int, default=30_000)
    ap.add_argument("--unique", type=int, default=2_000)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--edits", type=int, default=0,
                    help="small word edits in each copy (0: identical copies)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)

    title = "农村公路建设会议召开"
    story = sentence_words(rng, True)
    mirrored = page_html(title, render(True, story))
    # The edits draw from a generator of their own, so that the unique
    # pages stay the same whatever --edits says.
    edit_rng = random.Random(args.seed * 1_000_003 + args.edits)
    with open(args.out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for i in range(args.copies):
            html = mirrored
            if args.edits:
                html = page_html(title, render(True, edited(edit_rng, story, args.edits, ZH)))
            f.write(json.dumps({"id": f"m{i}", "cluster": "mirror", "html": html},
                               ensure_ascii=False) + "\n")
        for i in range(args.unique):
            zh = i % 2 == 0
            words = own_words(rng, zh)
            title = text(rng, words, 5, "" if zh else " ")
            html = page_html(title, paragraphs(rng, zh, words))
            f.write(json.dumps({"id": f"u{i}", "cluster": f"u{i}", "html": html},
                               ensure_ascii=False) + "\n")

    header = (ROOT / "experiments" / "demo.yaml").read_text(encoding="utf-8")
    header = header[header.index("extract:"):header.index("algorithms:")]
    for n, block in enumerate(algorithm_blocks()):
        kind = block[0].split("type:")[1].split()[0]
        name = f"{n}_{kind}"
        (args.out / f"{name}.yaml").write_text(
            f"name: {name}\ncorpus: corpus.jsonl\n{header}algorithms:\n"
            + "\n".join(block) + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
