//! Page templates for built corpora: our own Chinese portal layouts, and
//! real pages with their main content cut out.

use scraper::{Html, Node};

use crate::extract::dom::Dom;
use crate::extract::main_content::select_article;

const TITLE_SLOT: &str = "\u{E000}NEARDUP-TITLE\u{E000}";
const ARTICLE_SLOT: &str = "\u{E000}NEARDUP-ARTICLE\u{E000}";

/// A page layout with a slot for the title and one for the article.
#[derive(Debug, Clone)]
pub struct Template {
    pub name: String,
    /// The site's name, for source lines of reprints.
    pub site: String,
    html: String,
    /// Ours declare `<meta charset="utf-8">` and can be re-declared as GBK.
    pub ours: bool,
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Template {
    /// A real template from HTML that marks the slots `{title}` and
    /// `{article}` itself (for tests of what the builder does with one).
    #[cfg(test)]
    pub(crate) fn marked(name: &str, html: &str) -> Template {
        Template {
            name: format!("real:{name}"),
            site: name.to_string(),
            html: html
                .replace("{title}", TITLE_SLOT)
                .replace("{article}", ARTICLE_SLOT),
            ours: false,
        }
    }

    pub fn render(&self, title: &str, paragraphs: &[String]) -> String {
        let body: String = paragraphs
            .iter()
            .map(|p| format!("<p>{}</p>", escape(p)))
            .collect();
        self.html
            .replace(TITLE_SLOT, &escape(title))
            .replace(ARTICLE_SLOT, &body)
    }
}

struct Portal {
    name: &'static str,
    suffix: &'static str,
    nav: &'static [&'static str],
    related: &'static [&'static str],
    ads: &'static [&'static str],
    footer: &'static str,
}

const PORTALS: [Portal; 4] = [
    Portal {
        name: "华夏资讯网",
        suffix: "_华夏资讯网",
        nav: &[
            "首页", "国内", "国际", "财经", "科技", "体育", "娱乐", "图片", "视频", "专题",
        ],
        related: &[
            "本周末全市天气以晴为主",
            "地铁三号线延长运营时间",
            "五大商圈推出夜间消费活动",
            "公积金贷款政策调整解读",
            "新版居住证办理流程一览",
            "暑期亲子游热门线路推荐",
        ],
        ads: &[
            "限时特惠：家电以旧换新最高补贴一千元",
            "名师一对一辅导 免费试听",
        ],
        footer: "关于我们 | 联系方式 | 广告服务 | 版权声明 © 华夏资讯网 版权所有 未经授权禁止转载",
    },
    Portal {
        name: "东方日报网",
        suffix: " - 东方日报网",
        nav: &[
            "要闻", "时政", "社会", "文化", "评论", "视频", "图集", "数据",
        ],
        related: &[
            "多地出台稳就业新举措",
            "冬季供暖保障工作全面启动",
            "全国铁路迎来客流高峰",
            "新能源汽车销量持续增长",
            "各地博物馆推出新春特展",
        ],
        ads: &["新楼盘火热认购中 首付三成起", "下载客户端 阅读更多精彩内容"],
        footer: "东方日报网 主办 | 互联网新闻信息服务许可证 | 违法和不良信息举报电话 010-12345678",
    },
    Portal {
        name: "南方在线",
        suffix: "|南方在线",
        nav: &[
            "新闻", "生活", "教育", "健康", "旅游", "房产", "汽车", "论坛",
        ],
        related: &[
            "城区部分路段临时交通管制公告",
            "二手房成交量连续三个月回升",
            "全市中小学开学时间确定",
            "本地菜价总体平稳",
            "市民热线月度办理情况通报",
            "公园湖区开放冬泳区域",
        ],
        ads: &["点击领取购物券", "专业装修 十年质保"],
        footer: "南方在线 新闻热线 | 意见反馈 | 网站地图 | 本站所有内容未经授权禁止转载",
    },
    Portal {
        name: "神州新闻中心",
        suffix: "--神州新闻中心",
        nav: &[
            "滚动", "国内", "地方", "军事", "经济", "文娱", "教育", "法治", "健康",
        ],
        related: &[
            "各地推进老旧小区改造",
            "新一轮寒潮将影响北方地区",
            "全国冬小麦长势良好",
            "多家银行下调存款利率",
            "春运火车票开售首日情况",
        ],
        ads: &["热门游戏 立即下载", "高端手表 限时折扣"],
        footer: "神州新闻中心 版权所有 | 电话 400-000-0000 | 公安备案号 00000000000000",
    },
];

/// Our Chinese portal templates: navigation, related headlines, ads,
/// editor and source lines, footers, and a title suffix.
pub fn portal_templates() -> Vec<Template> {
    PORTALS
        .iter()
        .map(|p| {
            let nav: String = p.nav.iter().enumerate().map(|(i, n)| format!("<li><a href=\"/c{i}/\">{n}</a></li>")).collect();
            let related: String = p.related.iter().enumerate().map(|(i, r)| format!("<li><a href=\"/r{i}.html\">{r}</a></li>")).collect();
            let ads: String = p.ads.iter().enumerate().map(|(i, a)| format!("<div class=\"ad\"><a href=\"/ad{i}\">{a}</a></div>")).collect();
            let html = format!(
                "<!DOCTYPE html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>{TITLE_SLOT}{suffix}</title></head>\
                 <body><div class=\"header\"><div class=\"logo\">{name}</div><ul class=\"nav\">{nav}</ul></div>\
                 <div class=\"breadcrumb\"><a href=\"/\">首页</a> &gt; <a href=\"/news/\">正文</a></div>\
                 <div class=\"main\"><h1>{TITLE_SLOT}</h1><div class=\"info\">{name} 2024年</div>\
                 <div class=\"article\">{ARTICLE_SLOT}</div>\
                 <div class=\"related\"><h3>相关新闻</h3><ul>{related}</ul></div></div>\
                 <div class=\"ads\">{ads}</div><div class=\"footer\">{footer}</div></body></html>",
                suffix = p.suffix,
                name = p.name,
                footer = p.footer,
            );
            Template {
                name: format!("portal:{}", p.name),
                site: p.name.to_string(),
                html,
                ours: true,
            }
        })
        .collect()
}

/// The language a page declares on its root element (`<html lang="en-US">`,
/// or `xml:lang`), when it declares one neardup can parse.
pub fn html_lang(html: &str) -> Option<crate::text::lang::Lang> {
    // The root element opens a page; its first 64 KiB are enough.
    let mut end = html.len().min(64 * 1024);
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    let lower = html[..end].to_ascii_lowercase();
    let at = lower
        .match_indices("<html")
        .map(|(i, _)| i)
        .find(|&i| lower[i + 5..].starts_with(|c: char| c.is_whitespace() || c == '>'))?;
    let tag = &lower[at..at + lower[at..].find('>')?];
    let (_, after) = tag
        .match_indices("lang")
        .map(|(i, _)| (i, &tag[i + 4..]))
        .find(|(i, rest)| {
            let before = tag[..*i].chars().next_back();
            before.is_some_and(|c| c.is_whitespace() || c == ':')
                && rest.trim_start().starts_with('=')
        })?;
    let value = after.trim_start()[1..].trim_start();
    let value = match value.chars().next()? {
        q @ ('"' | '\'') => value[1..].split(q).next()?,
        _ => value.split(|c: char| c.is_whitespace()).next()?,
    };
    crate::text::lang::Lang::parse(value)
}

/// Elements removed from real templates: they carry no text and make the
/// pages large.
const STRIPPED: [&str; 6] = ["script", "style", "noscript", "iframe", "svg", "link"];

/// A real page with its main content replaced by the article slot, its
/// `<title>` and `<h1>` by the title slot. `None` when no main content is
/// found.
pub fn cut_template(name: &str, html: &str) -> Option<Template> {
    let mut document = Html::parse_document(html);
    let dom = Dom::of(&document);
    let chosen = select_article(&dom);
    let first = *chosen.first()?;
    if dom.elements[first as usize].tag == "body" {
        return None;
    }
    let site = dom.title.clone().unwrap_or_else(|| name.to_string());
    let mut emptied: Vec<(ego_tree::NodeId, &str)> =
        vec![(dom.elements[first as usize].node?, ARTICLE_SLOT)];
    for el in &dom.elements {
        if el.tag == "title" || el.tag == "h1" {
            emptied.extend(el.node.map(|n| (n, TITLE_SLOT)));
        }
    }
    let removed: Vec<ego_tree::NodeId> = chosen[1..]
        .iter()
        .filter_map(|&e| dom.elements[e as usize].node)
        .chain(
            dom.elements
                .iter()
                .filter(|e| STRIPPED.contains(&e.tag.as_str()))
                .filter_map(|e| e.node),
        )
        .collect();
    for (node, slot) in emptied {
        let Some(mut n) = document.tree.get_mut(node) else {
            continue;
        };
        while let Some(mut child) = n.first_child() {
            child.detach();
        }
        n.append(Node::Text(scraper::node::Text { text: slot.into() }));
    }
    for node in removed {
        if let Some(mut n) = document.tree.get_mut(node) {
            n.detach();
        }
    }
    let template = Template {
        name: format!("real:{name}"),
        site,
        html: document.html(),
        ours: false,
    };
    template.finds_its_article().then_some(template)
}

/// A news-length probe article for checking templates.
const PROBE: [&str; 3] = [
    "本报讯 记者从有关部门获悉，今年以来本市加快推进重点工程建设，一批交通、水利和民生项目陆续开工，全年计划完成投资比去年增长百分之十二。",
    "据介绍，新开工的项目包括两条城市快速路、三座污水处理厂和十所中小学校。有关负责人表示，将加强工程质量和安全监管，确保项目按期建成投入使用。",
    "不少市民表示，希望这些项目早日完工，让城市交通更顺畅、生活环境更舒适。",
];

impl Template {
    /// Whether main-content extraction finds an article placed in this
    /// template. A cut page whose leftover blocks outscore a news-length
    /// article would give every page built on it the same "main text",
    /// turning one template into one giant false cluster; such pages are
    /// not used as templates.
    fn finds_its_article(&self) -> bool {
        let probe: Vec<String> = PROBE.iter().map(|s| s.to_string()).collect();
        let page = self.render("重点工程建设加快推进", &probe);
        let text = crate::extract::extract_html(&page, crate::extract::Extraction::Main).text();
        let probe_chars: usize = probe.iter().map(|p| p.chars().count()).sum();
        let found = probe.iter().filter(|p| text.contains(p.as_str())).count();
        found == probe.len() && text.chars().count() <= probe_chars * 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_pages_lose_their_article_and_keep_their_chrome() {
        let html = "<html><head><title>Old headline - Site</title><script>var x</script></head><body>\
            <div class='nav'><a href='/'>Home</a> <a href='/n'>News</a></div><article><h1>Old headline</h1>\
            <p>The old article's first paragraph, with commas, goes on, and on.</p>\
            <p>The old article's second paragraph, also long enough, ends here.</p></article>\
            <div class='footer'>Copyright Site</div></body></html>";
        let t =
            cut_template("x", html).expect("main content found and the probe article extracted");
        let page = t.render("新标题", &["新的正文第一段。".to_string()]);
        assert!(
            !page.contains("old article") && !page.contains("var x"),
            "{page}"
        );
        assert!(
            page.contains("Home") && page.contains("Copyright Site"),
            "{page}"
        );
        assert!(
            page.contains("<p>新的正文第一段。</p>") && page.contains("新标题"),
            "{page}"
        );
    }

    #[test]
    fn html_lang_reads_the_root_element() {
        use crate::text::lang::Lang;
        assert_eq!(
            html_lang("<!DOCTYPE html><HTML LANG=\"en-US\"><p>x"),
            Some(Lang::En)
        );
        assert_eq!(html_lang("<html class='a' lang='zh-CN'>"), Some(Lang::Zh));
        assert_eq!(
            html_lang("<html xml:lang=de>"),
            Some(Lang::parse("de").unwrap())
        );
        // `data-lang` is not the page's language, nor is a `<p lang>`.
        assert_eq!(html_lang("<html data-lang=\"en\"><p lang=\"en\">"), None);
        assert_eq!(html_lang("<htmlx lang=en>"), None);
        assert_eq!(html_lang("<p>no root</p>"), None);
    }

    #[test]
    fn portals_render_title_and_paragraphs() {
        for t in portal_templates() {
            let page = t.render("标题<一>", &["段落。".to_string()]);
            assert!(
                page.contains("<h1>标题&lt;一&gt;</h1>") && page.contains("<p>段落。</p>"),
                "{page}"
            );
        }
    }
}
