#!/usr/bin/env python3
"""Builds datasets/demo/demo.jsonl.gz, the demo corpus embedded in neardup.

Deterministic (fixed seed, gzip mtime 0): running it again gives the same
bytes. The texts are ours (texts.py); the site templates below are ours too.

Each original article appears in one site template (kind `original`) and is
reprinted in other templates:
  full     the whole text, with the noise a reprint has (a source line, an
           editor line, full-width digits, one paragraph dropped);
  partial  the lead paragraph plus a contiguous block, or the text with
           sentences deleted and sentences from another article inserted.
Pages of kind `unique` have no copies. Pages of kind `layout` are short,
different briefs in one heavy portal template: layout duplicates, which a
detector must NOT flag, since only their page chrome is shared.
"""
import gzip
import html
import json
import os
import random
import re

from texts import (EN_BRIEFS, EN_NEWS, EN_PROSE, EN_UNIQUE, ZH_BRIEFS,
                   ZH_NEWS, ZH_PROSE, ZH_UNIQUE)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "demo.jsonl.gz")
rng = random.Random(20261122)

ZH_SITES = [
    dict(name="华夏资讯网", host="news.huaxia-zixun.example", suffix="_华夏资讯网",
         nav=["首页", "国内", "国际", "财经", "科技", "体育", "娱乐", "图片"],
         footer="关于我们 | 联系方式 | 广告服务 | 版权声明 © 华夏资讯网 版权所有"),
    dict(name="东方日报网", host="www.dongfang-daily.example", suffix=" - 东方日报网",
         nav=["要闻", "时政", "社会", "文化", "评论", "视频"],
         footer="东方日报网 主办 | 网络传播许可证 | 举报电话 010-12345678"),
    dict(name="南方在线", host="www.nanfang-online.example", suffix="|南方在线",
         nav=["新闻", "生活", "教育", "健康", "旅游", "房产", "汽车"],
         footer="南方在线 新闻热线 | 意见反馈 | 网站地图 | 本站所有内容未经授权禁止转载"),
]
EN_SITES = [
    dict(name="Riverside Herald", host="www.riverside-herald.example", suffix=" | Riverside Herald",
         nav=["Home", "News", "Sport", "Business", "Opinion", "Weather"],
         footer="Contact us | Advertise | Privacy policy | Copyright Riverside Herald Ltd"),
    dict(name="The Northfield Post", host="northfieldpost.example", suffix=" - The Northfield Post",
         nav=["Latest", "Local", "World", "Culture", "Lifestyle", "Video"],
         footer="The Northfield Post is part of Example Media Group. All rights reserved."),
    dict(name="County Times Online", host="www.countytimes.example", suffix=" - County Times",
         nav=["News", "Community", "Jobs", "Property", "Motors", "Announcements"],
         footer="County Times Online | Terms and conditions | Cookie settings | Sitemap"),
]
ZH_PORTAL = dict(
    name="城市生活门户", host="portal.chengshi-life.example", suffix="_城市生活门户",
    nav=["首页", "本地", "便民", "招聘", "房产", "汽车", "美食", "旅游", "论坛", "商城", "团购", "问答"],
    related=["本周末全市天气以晴为主 最高气温二十六度", "地铁三号线延长运营时间",
             "五大商圈推出夜间消费活动", "本市公积金贷款政策调整解读",
             "新版居住证办理流程一览", "暑期亲子游热门线路推荐", "城区部分路段临时交通管制公告",
             "二手房成交量连续三个月回升"],
    ads=["限时特惠：家电以旧换新最高补贴一千元", "名师一对一辅导 免费试听", "新楼盘火热认购中 首付三成起"],
    footer="城市生活门户 版权所有 | 客服热线 400-000-0000 | 违法和不良信息举报 | 公安备案号 00000000000",
)
EN_PORTAL = dict(
    name="Townlife Portal", host="www.townlife-portal.example", suffix=" | Townlife Portal",
    nav=["Home", "Local news", "What's on", "Jobs", "Homes", "Cars", "Food and drink", "Travel",
         "Forums", "Shop", "Deals", "Ask a question"],
    related=["Weekend weather: mostly sunny with a high of twenty-six degrees",
             "Late-night trains extended on the east line",
             "Five shopping districts launch evening events",
             "Your guide to the new parking permit rules",
             "How to register with a doctor when you move",
             "Top ten family days out this summer",
             "Temporary road closures in the town centre",
             "House sales rise for the third month in a row"],
    ads=["Limited offer: trade in your old fridge and save up to one hundred pounds",
         "Private tutoring with top teachers: book a free lesson",
         "New homes now selling: five percent deposit"],
    footer="Townlife Portal, all rights reserved | Customer service 0800 000 000 | Report content | Accessibility",
)

ZH_EDITORS = ["王明", "李华", "张婷", "刘洋"]
EN_EDITORS = ["J. Smith", "A. Patel", "M. Brown", "L. Chen"]


def sentences(paragraph, lang):
    if lang == "zh":
        return [s for s in re.findall(r"[^。！？；]*[。！？；]", paragraph) if s.strip()]
    return [s for s in re.split(r"(?<=[.!?])\s+", paragraph) if s.strip()]


def join_sentences(sents, lang):
    return ("" if lang == "zh" else " ").join(sents)


def to_fullwidth_digits(text):
    return "".join(chr(ord(c) + 0xFEE0) if "0" <= c <= "9" else c for c in text)


def render(site, title, paragraphs, lang, extra_lines=(), portal=False):
    esc = html.escape
    nav = "".join(f'<li><a href="/{i}">{esc(n)}</a></li>' for i, n in enumerate(site["nav"]))
    body = "".join(f"<p>{esc(p)}</p>" for p in paragraphs)
    extra = "".join(f'<p class="meta">{esc(x)}</p>' for x in extra_lines)
    related = ""
    ads = ""
    if portal:
        related = ('<div class="related"><h3>' + ("相关新闻" if lang == "zh" else "Related stories") +
                   "</h3><ul>" + "".join(f'<li><a href="/r{i}">{esc(r)}</a></li>'
                                         for i, r in enumerate(site["related"])) + "</ul></div>")
        ads = '<div class="ads">' + "".join(f'<div class="ad"><a href="/ad{i}">{esc(a)}</a></div>'
                                            for i, a in enumerate(site["ads"])) + "</div>"
    charset = '<meta charset="utf-8">'
    return (f'<!DOCTYPE html><html lang="{lang}"><head>{charset}<title>{esc(title + site["suffix"])}</title>'
            f'<style>body{{font-family:sans-serif}}</style><script>var site="{site["host"]}";</script></head>'
            f'<body><div class="header"><div class="logo">{esc(site["name"])}</div><ul class="nav">{nav}</ul></div>'
            f'<div class="main"><h1>{esc(title)}</h1><div class="article">{body}{extra}</div>{related}</div>'
            f'{ads}<div class="footer">{esc(site["footer"])}</div></body></html>')


pages = []
clock = [0]


def published():
    clock[0] += 1
    day, hour = divmod(clock[0], 24)
    return f"2024-03-{1 + day % 28:02d}T{hour:02d}:00:00"


def add(id_, cluster, html_text, title, site, lang, category, kind):
    pages.append(dict(id=id_, cluster=cluster, html=html_text, title=None, url=f"https://{site['host']}/{id_}.html",
                      published=published(), category=category, kind=kind, lang=lang))


def reprint_noise(paragraphs, lang, site, k):
    """Lines a reprint adds: where it came from and who edited it."""
    if lang == "zh":
        return [f"来源：{site['name']}", f"（责任编辑：{ZH_EDITORS[k % len(ZH_EDITORS)]}）"]
    return [f"Source: {site['name']}", f"Editor: {EN_EDITORS[k % len(EN_EDITORS)]}"]


def make_cluster(prefix, n, title, paragraphs, lang, category, sites, fulls, partials, others):
    cluster = f"{prefix}-{n:02d}"
    home = sites[n % len(sites)]
    add(f"{cluster}-orig", cluster, render(home, title, paragraphs, lang), title, home, lang, category, "original")
    for k in range(fulls):
        site = sites[(n + 1 + k) % len(sites)]
        paras = list(paragraphs)
        if k == 1 and len(paras) > 3:
            paras.pop(rng.randrange(1, len(paras)))  # one paragraph dropped
        if lang == "zh" and k == 0:
            paras = [to_fullwidth_digits(p) for p in paras]
        source_line = reprint_noise(paras, lang, sites[n % len(sites)], n + k)
        add(f"{cluster}-full{k + 1}", cluster, render(site, title, paras, lang, source_line), title, site, lang,
            category, "full")
    all_sents = [s for p in paragraphs for s in sentences(p, lang)]
    for k in range(partials):
        site = sites[(n + 2 + k) % len(sites)]
        if k == 0:
            # Lead paragraph plus a contiguous block of 30-70% of the rest.
            rest = [s for p in paragraphs[1:] for s in sentences(p, lang)]
            size = max(1, round(len(rest) * rng.uniform(0.3, 0.7)))
            start = rng.randrange(0, len(rest) - size + 1)
            paras = [paragraphs[0], join_sentences(rest[start:start + size], lang)]
        else:
            # Sentences deleted, and two inserted from another article.
            kept = [s for s in all_sents if rng.random() > 0.25] or all_sents[:1]
            donor = others[(n + 3) % len(others)][1]
            donor_sents = [s for p in donor for s in sentences(p, lang)]
            for s in rng.sample(donor_sents, min(2, len(donor_sents))):
                kept.insert(rng.randrange(0, len(kept) + 1), s)
            half = len(kept) // 2
            paras = [join_sentences(kept[:half], lang), join_sentences(kept[half:], lang)]
        add(f"{cluster}-part{k + 1}", cluster, render(site, title, paras, lang), title, site, lang,
            category, "partial")


for lang, news, prose, unique, briefs, sites, portal in [
    ("zh", ZH_NEWS, ZH_PROSE, ZH_UNIQUE, ZH_BRIEFS, ZH_SITES, ZH_PORTAL),
    ("en", EN_NEWS, EN_PROSE, EN_UNIQUE, EN_BRIEFS, EN_SITES, EN_PORTAL),
]:
    for n, (title, paras) in enumerate(news):
        make_cluster(f"{lang}-news", n, title, paras, lang, "news", sites, 2, 2, news)
    for n, (title, paras) in enumerate(prose):
        make_cluster(f"{lang}-prose", n, title, paras, lang, "prose", sites, 2, 1, prose)
    for n, (title, paras) in enumerate(unique):
        category = "news" if n < 2 else "prose"
        site = sites[n % len(sites)]
        id_ = f"{lang}-unique-{n:02d}"
        add(id_, id_, render(site, title, paras, lang), title, site, lang, category, "unique")
    for n, brief in enumerate(briefs):
        id_ = f"{lang}-layout-{n:02d}"
        title = brief[:14] if lang == "zh" else " ".join(brief.split()[:6])
        add(id_, id_, render(portal, title, [brief], lang, portal=True), title, portal, lang, "news", "layout")

with open(OUT, "wb") as raw:
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        for i, page in enumerate(pages):
            # Half the pages leave `lang` out, so detection by script is exercised.
            page = {k: v for k, v in page.items() if v is not None and not (k == "lang" and i % 2)}
            out.write((json.dumps(page, ensure_ascii=False) + "\n").encode("utf-8"))
print(f"wrote {len(pages)} pages to {OUT}")
