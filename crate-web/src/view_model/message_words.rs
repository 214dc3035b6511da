//! A message's kind and content in the page's language. Kafka's request names stay as Kafka
//! has them ("fetch", "end txn", "InitProducerId"), as engineers say them in either language;
//! the words around them ("response", "ack", "entries", "markers written") and Flink's RPCs
//! are translated.

use crate::i18n::{Lang, S};
use eos_core::kafka::protocol::MessageKind;

/// The kind, as the diagram and the inspector name it ("fetch response").
pub fn kind(kind: MessageKind, lang: Lang) -> String {
    let name = kind.name();
    let flink = match kind {
        MessageKind::CheckpointTrigger => Some(S::KindCheckpointTrigger),
        MessageKind::CheckpointAck => Some(S::KindCheckpointAck),
        MessageKind::CheckpointNotify => Some(S::KindCheckpointNotify),
        MessageKind::CheckpointAbort => Some(S::KindCheckpointAbort),
        _ => None,
    };
    if let Some(s) = flink {
        return s.get(lang).to_string();
    }
    match name.strip_suffix("_response") {
        Some(request) => S::KindResponse.f(lang, &[&request.replace('_', " ")]),
        None => name.replace('_', " "),
    }
}

/// A kind by its scenario name (`metadata_response`), as `kind` says it ("ответ metadata"); a
/// name that is no kind, as written with spaces.
pub fn kind_named(name: &str, lang: Lang) -> String {
    MessageKind::parse(name).map_or_else(|| name.replace('_', " "), |k| kind(k, lang))
}

/// The content shapes of `Message::label` and Flink's `Rpc::label` that have words, each
/// as its English template: a prefix and a suffix around one value, or a fixed text. A
/// longer prefix comes before a shorter one it starts with.
const CONTENTS: [S; 21] = [
    S::MsgDupAck,
    S::MsgAck,
    S::MsgEntries,
    S::MsgEntry,
    S::MsgMarkersWritten,
    S::MsgMarker,
    S::MsgCommitOk,
    S::MsgCommitted,
    S::MsgCommit,
    S::MsgOffset,
    S::MsgTxnOk,
    S::MsgReplicate,
    S::MsgLeader,
    S::MsgLeadersAll,
    S::MsgLeaders,
    S::MsgLeadersAsk,
    S::MsgTriggerFinal,
    S::MsgTrigger,
    S::MsgAckCp,
    S::MsgCpComplete,
    S::MsgCpAborted,
];

/// A message's content (the core's label, "ack @10") in the page's language.
pub fn content(label: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return label.to_string();
    }
    for s in CONTENTS {
        let template = s.get(Lang::En);
        let Some((prefix, suffix)) = template.split_once("{0}") else {
            if label == template {
                return s.get(lang).to_string();
            }
            continue;
        };
        let value = label
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
            .filter(|v| !v.is_empty() && !v.contains(' '));
        if let Some(v) = value {
            return s.f(lang, &[&v]);
        }
    }
    label.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::{builtin, RunLimit};

    #[test]
    fn kinds_keep_kafka_names_and_translate_the_rest() {
        assert_eq!(kind(MessageKind::FetchResponse, Lang::En), "fetch response");
        assert_eq!(kind(MessageKind::FetchResponse, Lang::Ru), "ответ fetch");
        assert_eq!(kind(MessageKind::EndTxn, Lang::Ru), "end txn");
        assert_eq!(
            kind(MessageKind::CheckpointNotify, Lang::Ru),
            "чекпоинт завершён"
        );
        for k in MessageKind::ALL {
            assert!(!kind(k, Lang::Ru).contains("response"), "{k:?}");
            assert_eq!(kind_named(k.name(), Lang::Ru), kind(k, Lang::Ru));
        }
        assert_eq!(kind_named("metadata_response", Lang::Ru), "ответ metadata");
        assert_eq!(kind_named("no_such_kind", Lang::En), "no such kind");
    }

    #[test]
    fn a_metadata_answer_names_brokers_in_either_language() {
        for (en, ru) in [
            ("leader: broker 0", "лидер: брокер 0"),
            ("leaders: broker 1×3", "лидеры: брокер 1×3"),
            ("leaders: brokers 0,1,-", "лидеры: брокеры 0,1,-"),
        ] {
            assert_eq!(content(en, Lang::Ru), ru);
            assert_eq!(content(en, Lang::En), en);
        }
    }

    /// Every content every built-in puts on the wire reads without an English word in
    /// Russian (Kafka's own names aside), and unchanged in English.
    #[test]
    fn every_content_on_the_wire_reads_in_russian() {
        const ENGLISH: [&str; 12] = [
            "leader",
            "broker",
            "ack",
            "entries",
            "entry",
            "written",
            "marker ",
            "commit",
            "ok",
            "replicate",
            "cp ",
            "offset ",
        ];
        let mut seen = 0;
        for name in builtin::names() {
            let mut sim = builtin::get(&name).expect("built-in").simulation(None);
            while !sim.is_finished() && sim.steps() < 600 {
                sim.run(RunLimit::Steps(sim.steps() + 1));
                for m in sim.in_flight() {
                    seen += 1;
                    assert_eq!(content(&m.label, Lang::En), m.label);
                    let ru = content(&m.label, Lang::Ru);
                    // Kafka's own: EndTxn's `committed` flag.
                    if ru.starts_with("EndTxn(") {
                        continue;
                    }
                    assert!(
                        ENGLISH.iter().all(|w| !ru.contains(w)),
                        "{name}: \"{}\" reads \"{ru}\"",
                        m.label
                    );
                }
            }
        }
        assert!(seen > 1_000, "messages seen: {seen}");
    }
}
