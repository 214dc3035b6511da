//! How read-process-write stages number their output records, and how they may chain.
//!
//! The stages are the `[[processors]]` in file order, then the Flink job. Each output record
//! is numbered `base + k` after the record `k` it was made from, so one numbering serves the
//! ledger, the names (`v3′`, and `v3′′` for an output's output) and the checks.
//!
//! - Unchained (every stage reads what the producers write), stage `i` takes the `n`
//!   numbers from `n × (i + 1)`: the producers' `n` records map one to one.
//! - When a stage reads another stage's output it may receive any record numbered before
//!   it, so every stage takes as many numbers as all before it: from `n × 2^i`, `n × 2^i`
//!   of them. A stage may read only earlier stages' output (no cycles), and Flink, last,
//!   may read the processors'.

use super::schema::ScenarioFile;

/// A stage's place: the first number of its outputs and how many it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub base: u64,
    pub size: u64,
}

/// The topics each stage reads and the one it writes (a Flink job may have several of
/// each: its sources and its kafka-2pc sinks).
fn topics(file: &ScenarioFile) -> Vec<(Vec<&str>, Vec<&str>)> {
    let mut out: Vec<(Vec<&str>, Vec<&str>)> = file
        .processors
        .iter()
        .map(|p| (vec![p.input.as_str()], vec![p.output.as_str()]))
        .collect();
    if let Some(job) = &file.flink {
        let of = |kind: &str| -> Vec<&str> {
            job.operators
                .iter()
                .filter(|o| o.kind == kind)
                .filter_map(|o| o.topic.as_deref())
                .collect()
        };
        out.push((of("source"), of("kafka-2pc")));
    }
    out
}

/// The stage (index) that writes `topic`, if one does.
fn writer(stages: &[(Vec<&str>, Vec<&str>)], topic: &str) -> Option<usize> {
    stages.iter().position(|(_, w)| w.contains(&topic))
}

/// Whether some stage reads another stage's output.
pub fn chained(file: &ScenarioFile) -> bool {
    let stages = topics(file);
    stages
        .iter()
        .any(|(reads, _)| reads.iter().any(|t| writer(&stages, t).is_some()))
}

/// Each stage that reads a later stage's output (or its own): `(stage, topic, writer)`.
/// Such a file is refused: its numbering would run out of range.
pub fn backwards(file: &ScenarioFile) -> Vec<(usize, String, usize)> {
    let stages = topics(file);
    let mut out = Vec::new();
    for (i, (reads, _)) in stages.iter().enumerate() {
        for t in reads {
            if let Some(w) = writer(&stages, t).filter(|w| *w >= i) {
                out.push((i, t.to_string(), w));
            }
        }
    }
    out
}

/// Every stage's range, for `n` producer records.
pub fn layout(file: &ScenarioFile, n: u64) -> Vec<Range> {
    let count = topics(file).len() as u32;
    let chain = chained(file);
    (0..count)
        .map(|i| {
            if chain {
                let size = n.saturating_mul(1u64 << i.min(16));
                Range { base: size, size }
            } else {
                Range {
                    base: n.saturating_mul(u64::from(i) + 1),
                    size: n,
                }
            }
        })
        .collect()
}

/// The number of stage `stage`'s output made, through the stages before it, from the
/// producers' record `k`: the processor reading another's output follows the chain back.
pub fn output_of(file: &ScenarioFile, n: u64, stage: usize, k: u64) -> Option<u64> {
    let stages = topics(file);
    let ranges = layout(file, n);
    let mut at = stage;
    let mut path = vec![stage];
    // Walk back to the stage that reads what the producers write (stages read only earlier
    // stages' output, so the walk ends).
    while let Some(w) = stages
        .get(at)?
        .0
        .iter()
        .find_map(|t| writer(&stages, t))
        .filter(|w| *w < at)
    {
        path.push(w);
        at = w;
    }
    path.iter()
        .rev()
        .try_fold(k, |id, s| Some(ranges.get(*s)?.base.saturating_add(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(processors: &[(&str, &str)]) -> ScenarioFile {
        let mut text = String::from("version = 1\nname = \"t\"\ntopics = []\nproducers = []\n");
        for (i, (input, output)) in processors.iter().enumerate() {
            text.push_str(&format!(
                "[[processors]]\nname = \"p{i}\"\nguarantee = \"at-least-once\"\ninput = \"{input}\"\noutput = \"{output}\"\n"
            ));
        }
        toml::from_str(&text).expect("a scenario file")
    }

    #[test]
    fn unchained_stages_keep_one_number_per_record_and_chained_ones_follow_the_chain() {
        let flat = file(&[("in", "a"), ("in", "b")]);
        assert!(!chained(&flat));
        let r = layout(&flat, 10);
        assert_eq!((r[0].base, r[1].base, r[1].size), (10, 20, 10));
        assert_eq!(output_of(&flat, 10, 1, 3), Some(23));
        let chain = file(&[("in", "a"), ("a", "b"), ("b", "c")]);
        assert!(chained(&chain) && backwards(&chain).is_empty());
        let r = layout(&chain, 10);
        assert_eq!(
            r.iter().map(|r| (r.base, r.size)).collect::<Vec<_>>(),
            vec![(10, 10), (20, 20), (40, 40)]
        );
        // Record 3 → p0's 13 → p1's 33 → p2's 73: each inside its stage's range.
        assert_eq!(output_of(&chain, 10, 0, 3), Some(13));
        assert_eq!(output_of(&chain, 10, 1, 3), Some(33));
        assert_eq!(output_of(&chain, 10, 2, 3), Some(73));
        // A stage reading a later one's output (a cycle, or the wrong order) is found.
        let cycle = file(&[("b", "a"), ("a", "b")]);
        assert_eq!(backwards(&cycle), vec![(0, "b".to_string(), 1)]);
    }
}
