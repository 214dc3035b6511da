//! The command transcripts printed in the docs are the CLI's real output: each `$ eos-sim …`
//! in a fenced block of `docs/*.md` is run, and what the docs print under it must match. A
//! course author checks their setup against these (a stale step count or trace hash in the
//! docs reads as a broken install).
//!
//! A transcript is a fenced block whose lines start with `$ `:
//! - `$ cat PATH` followed by the file's lines (up to the next `$ ` line) defines PATH;
//! - a ```` ```toml ```` block defines the path named in "Saved as `PATH`" just before it, or
//!   else the next command's path that is not otherwise defined;
//! - `$ eos-sim ARGS` is run in a scratch directory, each defined PATH written there; its
//!   output (stderr, where `FAIL` goes, then stdout) must equal the lines printed under it, a
//!   line `...` standing for any number of lines left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const DOCS: [&str; 3] = [
    "docs/scenario-format.md",
    "docs/lesson-format.md",
    "docs/report-format.md",
];

/// A fenced block: its info string ("toml", or empty), its lines, and the prose before it.
struct Block {
    lang: String,
    lines: Vec<String>,
    prose: String,
    line: usize,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut prose = String::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => {
                open = Some(Block {
                    lang: lang.trim().to_string(),
                    lines: Vec::new(),
                    prose: std::mem::take(&mut prose),
                    line: i + 1,
                })
            }
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some(b), None) => b.lines.push(line.to_string()),
            (None, None) => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    out
}

/// The path in "Saved as `PATH`" in `prose`, if any.
fn saved_as(prose: &str) -> Option<String> {
    let rest = &prose[prose.find("Saved as `")? + "Saved as `".len()..];
    Some(rest[..rest.find('`')?].to_string())
}

/// One command of a transcript, with what the docs print under it.
struct Run {
    args: Vec<String>,
    expected: Vec<String>,
    line: usize,
}

/// The files a doc defines and the commands it runs, in order.
fn transcripts(doc: &str, text: &str) -> (BTreeMap<String, String>, Vec<Run>) {
    let mut files = BTreeMap::new();
    let mut runs = Vec::new();
    let mut unnamed: Option<String> = None;
    for b in blocks(text) {
        if b.lang == "toml" {
            let body = b.lines.join("\n") + "\n";
            match saved_as(&b.prose) {
                Some(path) => {
                    files.insert(path, body);
                }
                None => unnamed = Some(body),
            }
            continue;
        }
        if !b.lines.first().is_some_and(|l| l.starts_with("$ ")) {
            continue;
        }
        let mut i = 0;
        while i < b.lines.len() {
            let (cmd, line) = (&b.lines[i], b.line + i + 1);
            let mut body = Vec::new();
            i += 1;
            while i < b.lines.len() && !b.lines[i].starts_with("$ ") {
                body.push(b.lines[i].clone());
                i += 1;
            }
            if let Some(path) = cmd.strip_prefix("$ cat ") {
                while body.last().is_some_and(|l| l.is_empty()) {
                    body.pop();
                }
                files.insert(path.to_string(), body.join("\n") + "\n");
            } else if let Some(args) = cmd.strip_prefix("$ eos-sim ") {
                let args: Vec<String> = args.split_whitespace().map(String::from).collect();
                // A toml block with no "Saved as" is the file the next command names.
                if let Some(body) = unnamed.take() {
                    if let Some(path) = args.iter().find(|a| a.ends_with(".toml")) {
                        files.entry(path.clone()).or_insert(body);
                    }
                }
                runs.push(Run {
                    args,
                    expected: body,
                    line,
                });
            } else {
                panic!("{doc} line {line}: a transcript runs only `cat` and `eos-sim`: {cmd}");
            }
        }
    }
    (files, runs)
}

/// Whether `actual` is `expected` with each `...` line standing for any lines.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    let chunks: Vec<&[String]> = expected.split(|l| l == "...").collect();
    let mut at = 0;
    for (k, chunk) in chunks.iter().enumerate() {
        let (first, last) = (k == 0, k == chunks.len() - 1);
        if chunk.is_empty() {
            continue;
        }
        let fits = |start: usize| {
            start + chunk.len() <= actual.len()
                && chunk.iter().zip(&actual[start..]).all(|(e, a)| e == a)
        };
        let start = if first {
            Some(0).filter(|&s| fits(s))
        } else if last {
            actual
                .len()
                .checked_sub(chunk.len())
                .filter(|&s| s >= at && fits(s))
        } else {
            (at..actual.len()).find(|&s| fits(s))
        };
        let Some(start) = start else { return false };
        at = start + chunk.len();
        if last && at != actual.len() {
            return false;
        }
    }
    true
}

fn scratch(doc: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "eos-docs-{}-{}",
        std::process::id(),
        doc.replace(['/', '.'], "-")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn base_name(path: &str) -> &str {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

#[test]
fn every_transcript_in_the_docs_is_the_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).expect("the doc exists");
        let (files, runs) = transcripts(doc, &text);
        let dir = scratch(doc);
        for (path, body) in &files {
            std::fs::write(dir.join(base_name(path)), body).expect("write a doc's file");
        }
        for run in runs {
            // A defined path is the file in the scratch directory, under its own name.
            let args: Vec<String> = run
                .args
                .iter()
                .map(|a| match files.contains_key(a) {
                    true => base_name(a).to_string(),
                    false => a.clone(),
                })
                .collect();
            let out = Command::new(env!("CARGO_BIN_EXE_eos-sim"))
                .args(&args)
                .current_dir(&dir)
                .output()
                .expect("eos-sim runs");
            let mut text = String::from_utf8_lossy(&out.stderr).into_owned()
                + &String::from_utf8_lossy(&out.stdout);
            for a in &run.args {
                if files.contains_key(a) && a != base_name(a) {
                    text = text.replace(base_name(a), a);
                }
            }
            let actual: Vec<&str> = text.lines().collect();
            ran += 1;
            if !matches(&run.expected, &actual) {
                failures.push(format!(
                    "{doc} line {}: `eos-sim {}` prints\n{}\nbut the doc says\n{}",
                    run.line,
                    run.args.join(" "),
                    actual.join("\n"),
                    run.expected.join("\n")
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        ran >= 9,
        "the docs hold {ran} transcripts; the parser missed some"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_transcript_matcher_skips_only_at_an_ellipsis() {
    let e = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "b"]), &["a", "b"]));
    assert!(!matches(&e(&["a", "b"]), &["a", "b", "c"]));
    assert!(!matches(&e(&["a", "c"]), &["a", "b", "c"]));
    assert!(matches(&e(&["a", "...", "c"]), &["a", "b", "c"]));
    assert!(matches(&e(&["a", "..."]), &["a", "b", "c"]));
    assert!(matches(&e(&["...", "b", "..."]), &["a", "b", "c"]));
    assert!(!matches(&e(&["...", "d", "..."]), &["a", "b", "c"]));
    assert!(!matches(&e(&["c", "...", "a"]), &["a", "b", "c"]));
}
