//! Bilingual Markdown text: English and Russian, both required, no raw HTML (the web renders
//! Markdown without raw HTML; a tag here would be shown as text or, worse, trusted).

use crate::scenario::FieldError;
use serde::{Deserialize, Serialize};

/// One piece of text in both languages. The fields are optional in the file only so that a
/// missing language is reported with its field path rather than as a TOML error.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub en: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ru: Option<String>,
}

/// The languages a lesson is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    En,
    Ru,
}

impl Text {
    /// The text in `lang` (validated lessons always have both).
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => self.en.as_deref().unwrap_or_default(),
            Lang::Ru => self.ru.as_deref().unwrap_or_default(),
        }
    }
}

/// How strictly a text is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TextRule {
    pub max_chars: usize,
    /// The Russian text must contain Cyrillic letters (catches English pasted twice); off for
    /// short labels such as a number or a record name.
    pub russian_letters: bool,
}

pub(crate) fn check(text: &Text, field: &str, rule: TextRule, errors: &mut Vec<FieldError>) {
    for (lang, value, name) in [("en", &text.en, "English"), ("ru", &text.ru, "Russian")] {
        let path = format!("{field}.{lang}");
        let mut err = |message: String| {
            errors.push(FieldError {
                field: path.clone(),
                message,
            })
        };
        let Some(value) = value else {
            err(format!(
                "{name} text is required (every text is written in en and ru)"
            ));
            continue;
        };
        if value.trim().is_empty() {
            err(format!("{name} text is blank"));
            continue;
        }
        let chars = value.chars().count();
        if chars > rule.max_chars {
            err(format!(
                "is {chars} characters long; the limit is {}",
                rule.max_chars
            ));
        }
        if let Some((at, tag)) = find_html(value) {
            err(format!(
                "raw HTML is not allowed in lesson text (found \"{tag}\" at character {at}); write Markdown instead"
            ));
        }
        if lang == "ru" && rule.russian_letters && !value.chars().any(is_cyrillic) {
            err("has no Cyrillic letters: is it really the Russian text?".into());
        }
    }
}

fn is_cyrillic(c: char) -> bool {
    ('\u{0400}'..='\u{04FF}').contains(&c)
}

/// The first thing that looks like an HTML tag, comment or declaration (`<b`, `</p`, `<!--`,
/// `<?`), as (character position, the tag's start). Markdown autolinks (`<https://…>`) and
/// comparisons (`a < b`, `x<5`) are not tags.
pub(crate) fn find_html(text: &str) -> Option<(usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c != '<' {
            continue;
        }
        let Some(next) = chars.get(i + 1) else {
            continue;
        };
        if !(next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?')) {
            continue;
        }
        let word: String = chars[i + 1..]
            .iter()
            .take_while(|c| !c.is_whitespace() && **c != '>')
            .collect();
        let autolink = word.contains("://") || word.starts_with("mailto:");
        if !autolink {
            let shown: String = std::iter::once('<').chain(word.chars().take(12)).collect();
            return Some((i, shown));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_found_and_comparisons_and_autolinks_are_not() {
        assert_eq!(
            find_html("hi <script>x</script>"),
            Some((3, "<script".into()))
        );
        assert_eq!(find_html("a</p>"), Some((1, "</p".into())));
        assert_eq!(find_html("<!-- c -->"), Some((0, "<!--".into())));
        assert_eq!(find_html("<img src=x>"), Some((0, "<img".into())));
        assert_eq!(
            find_html("a < b, x<5, <= and <https://kafka.apache.org>"),
            None
        );
        assert_eq!(find_html("ends with <"), None);
    }

    #[test]
    fn both_languages_are_required_and_russian_must_be_russian() {
        let rule = TextRule {
            max_chars: 20,
            russian_letters: true,
        };
        let mut errors = Vec::new();
        check(
            &Text {
                en: Some("Hello".into()),
                ru: None,
            },
            "title",
            rule,
            &mut errors,
        );
        check(
            &Text {
                en: Some(" ".into()),
                ru: Some("Hello".into()),
            },
            "summary",
            rule,
            &mut errors,
        );
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["title.ru", "summary.en", "summary.ru"]);
        let mut ok = Vec::new();
        check(
            &Text {
                en: Some("Hello".into()),
                ru: Some("Привет".into()),
            },
            "t",
            rule,
            &mut ok,
        );
        assert!(ok.is_empty(), "{ok:?}");
    }
}
