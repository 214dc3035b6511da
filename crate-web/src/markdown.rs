//! A tiny, safe Markdown subset for lesson text, rendered to Yew nodes (never to an HTML
//! string): paragraphs, bullet and numbered lists, **bold**, *italic*, `code`, and links
//! (`[text](url)`, `<url>`) that become `<a>` only for http(s) addresses. Anything else is
//! text, so nothing in a lesson can inject markup.

use yew::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inline {
    Text(String),
    Code(String),
    Bold(Vec<Inline>),
    Italic(Vec<Inline>),
    Link { text: String, href: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Paragraph(Vec<Inline>),
    List {
        ordered: bool,
        items: Vec<Vec<Inline>>,
    },
}

/// A list item's marker and the rest of the line: `- x`, `* x`, `1. x`.
fn list_item(line: &str) -> Option<(bool, &str)> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        return Some((false, rest));
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        if let Some(rest) = t[digits..].strip_prefix(". ") {
            return Some((true, rest));
        }
    }
    None
}

pub fn parse(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    for chunk in text.split("\n\n").map(str::trim).filter(|c| !c.is_empty()) {
        let lines: Vec<&str> = chunk.lines().collect();
        match lines.first().and_then(|l| list_item(l)) {
            Some((ordered, _)) => {
                let mut items: Vec<String> = Vec::new();
                for line in lines {
                    match list_item(line) {
                        Some((_, rest)) => items.push(rest.trim().to_string()),
                        None => {
                            if let Some(last) = items.last_mut() {
                                last.push(' ');
                                last.push_str(line.trim());
                            }
                        }
                    }
                }
                blocks.push(Block::List {
                    ordered,
                    items: items.iter().map(|i| inline(i)).collect(),
                });
            }
            None => {
                let joined: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
                blocks.push(Block::Paragraph(inline(&joined.join(" "))));
            }
        }
    }
    blocks
}

fn safe_href(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && !url
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '<' | '>'))
}

/// The text between `open` at `from` and the next `close`, and the index after `close`.
fn delimited(chars: &[char], from: usize, open: &str, close: &str) -> Option<(String, usize)> {
    let open: Vec<char> = open.chars().collect();
    let close: Vec<char> = close.chars().collect();
    if !chars[from..].starts_with(&open) {
        return None;
    }
    let start = from + open.len();
    let mut i = start;
    while i + close.len() <= chars.len() {
        if chars[i..].starts_with(&close) && i > start {
            return Some((chars[start..i].iter().collect(), i + close.len()));
        }
        i += 1;
    }
    None
}

pub fn inline(text: &str) -> Vec<Inline> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Inline> = Vec::new();
    let mut plain = String::new();
    let mut i = 0;
    let flush = |plain: &mut String, out: &mut Vec<Inline>| {
        if !plain.is_empty() {
            out.push(Inline::Text(std::mem::take(plain)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let found = match c {
            '`' => delimited(&chars, i, "`", "`").map(|(s, n)| (Inline::Code(s), n)),
            '*' if chars.get(i + 1) == Some(&'*') => {
                delimited(&chars, i, "**", "**").map(|(s, n)| (Inline::Bold(inline(&s)), n))
            }
            '*' | '_' => {
                let d = c.to_string();
                let word_start = i == 0 || !chars[i - 1].is_alphanumeric();
                delimited(&chars, i, &d, &d)
                    .filter(|_| word_start)
                    .map(|(s, n)| (Inline::Italic(inline(&s)), n))
            }
            '[' => delimited(&chars, i, "[", "](").and_then(|(label, n)| {
                let (url, end) = delimited(&chars, n - 1, "(", ")")?;
                let node = if safe_href(&url) {
                    Inline::Link {
                        text: label,
                        href: url,
                    }
                } else {
                    Inline::Text(label)
                };
                Some((node, end))
            }),
            '<' => delimited(&chars, i, "<", ">")
                .filter(|(url, _)| safe_href(url))
                .map(|(url, n)| {
                    (
                        Inline::Link {
                            text: url.clone(),
                            href: url,
                        },
                        n,
                    )
                }),
            _ => None,
        };
        match found {
            Some((node, next)) => {
                flush(&mut plain, &mut out);
                out.push(node);
                i = next;
            }
            None => {
                plain.push(c);
                i += 1;
            }
        }
    }
    flush(&mut plain, &mut out);
    out
}

fn inline_html(nodes: &[Inline]) -> Html {
    nodes
        .iter()
        .map(|n| match n {
            Inline::Text(t) => html! { {t.clone()} },
            Inline::Code(t) => html! { <code>{t.clone()}</code> },
            Inline::Bold(c) => html! { <strong>{inline_html(c)}</strong> },
            Inline::Italic(c) => html! { <em>{inline_html(c)}</em> },
            Inline::Link { text, href } => html! {
                <a href={href.clone()} target="_blank" rel="noopener noreferrer">{text.clone()}</a>
            },
        })
        .collect()
}

/// One line of Markdown (a title, a choice) without paragraphs.
pub fn inline_text(text: &str) -> Html {
    inline_html(&inline(text))
}

/// Lesson Markdown as Yew nodes.
pub fn render(text: &str) -> Html {
    parse(text)
        .iter()
        .map(|b| match b {
            Block::Paragraph(p) => html! { <p>{inline_html(p)}</p> },
            Block::List { ordered, items } => {
                let lis: Html = items
                    .iter()
                    .map(|i| html! { <li>{inline_html(i)}</li> })
                    .collect();
                if *ordered {
                    html! { <ol>{lis}</ol> }
                } else {
                    html! { <ul>{lis}</ul> }
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Inline::*;

    fn t(s: &str) -> Inline {
        Text(s.into())
    }

    #[test]
    fn emphasis_code_and_paragraphs() {
        let blocks = parse("A **bold** and *it* with `code`.\nSame para.\n\nSecond.");
        assert_eq!(
            blocks,
            vec![
                Block::Paragraph(vec![
                    t("A "),
                    Bold(vec![t("bold")]),
                    t(" and "),
                    Italic(vec![t("it")]),
                    t(" with "),
                    Code("code".into()),
                    t(". Same para."),
                ]),
                Block::Paragraph(vec![t("Second.")]),
            ]
        );
    }

    #[test]
    fn lists_bullet_and_numbered() {
        let blocks = parse("- one\n- two\n  more\n\n1. first\n2. second");
        assert_eq!(
            blocks,
            vec![
                Block::List {
                    ordered: false,
                    items: vec![vec![t("one")], vec![t("two more")]]
                },
                Block::List {
                    ordered: true,
                    items: vec![vec![t("first")], vec![t("second")]]
                },
            ]
        );
    }

    #[test]
    fn only_http_links_become_links_and_markup_stays_text() {
        assert_eq!(
            inline("[Kafka](https://kafka.apache.org) [x](javascript:alert(1)) <https://a.b>"),
            vec![
                Link {
                    text: "Kafka".into(),
                    href: "https://kafka.apache.org".into()
                },
                t(" "),
                t("x"),
                t(") "),
                Link {
                    text: "https://a.b".into(),
                    href: "https://a.b".into()
                },
            ]
        );
        assert_eq!(
            inline("<script>alert(1)</script>"),
            vec![t("<script>alert(1)</script>")]
        );
        assert_eq!(
            inline("a < b and 2*3*4 x_y_z"),
            vec![t("a < b and 2*3*4 x_y_z")]
        );
        assert_eq!(inline("unclosed **bold"), vec![t("unclosed **bold")]);
    }

    #[test]
    fn every_built_in_lesson_text_parses_to_something() {
        for lesson in crate::lessons::all() {
            for s in &lesson.steps {
                for lang in [eos_core::lesson::Lang::En, eos_core::lesson::Lang::Ru] {
                    assert!(!parse(s.text.get(lang)).is_empty(), "{}", lesson.id());
                }
            }
        }
    }
}
