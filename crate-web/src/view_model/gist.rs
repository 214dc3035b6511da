//! The kind of event at a step, as a record's story in the inspector names it ("#6 ack lost"):
//! the core's name for the kind of its note (`Note::kind_name`), in words, and in Russian on a
//! Russian page. A kind a record's story has not been seen to name stays in English words.

use crate::i18n::{Lang, S};

/// The kinds a record's story names, by `Note::kind_name`: the notes the oracle's ledger
/// witnesses a record at, and the notes that share a step with them.
const GISTS: &[(&str, S)] = &[
    ("ack_lost", S::GistAckLost),
    ("append_rejected", S::GistAppendRejected),
    ("appended", S::GistAppended),
    ("batch_sent", S::GistBatchSent),
    ("connection_closed", S::GistConnectionClosed),
    ("crashed", S::GistCrashed),
    ("restarted", S::GistRestarted),
    ("delivered", S::GistDelivered),
    ("delivery_failed", S::GistDeliveryFailed),
    ("duplicate_detected", S::GistDuplicateDetected),
    ("leader_elected", S::GistLeaderElected),
    ("unclean_leader_elected", S::GistUncleanLeaderElected),
    ("log_truncated", S::GistLogTruncated),
    ("message_dropped", S::GistMessageDropped),
    ("message_delayed", S::GistMessageDelayed),
    ("message_duplicated", S::GistMessageDuplicated),
    ("lost_at_crashed_node", S::GistLostAtCrashedNode),
    ("metadata_caught_up", S::GistMetadataCaughtUp),
    ("offsets_committed", S::GistOffsetsCommitted),
    ("processed", S::GistProcessed),
    ("producer_fenced", S::GistProducerFenced),
    ("producer_id_assigned", S::GistProducerIdAssigned),
    ("read", S::GistRead),
    ("record_accepted", S::GistRecordAccepted),
    ("request_timed_out", S::GistRequestTimedOut),
    ("retry_scheduled", S::GistRetryScheduled),
    ("sink_wrote", S::GistSinkWrote),
    ("sink_committed", S::GistSinkCommitted),
    ("sink_commit_rejected", S::GistSinkCommitRejected),
    ("txn_ended", S::GistTxnEnded),
    ("txn_partition_check", S::GistTxnPartitionCheck),
    ("txn_partition_check_failed", S::GistTxnPartitionCheckFailed),
    ("txn_timed_out", S::GistTxnTimedOut),
    ("marker_written", S::GistMarkerWritten),
    ("frozen", S::GistFrozen),
    ("thawed", S::GistThawed),
    ("broker_fenced", S::GistBrokerFenced),
    ("epoch_bumped", S::GistEpochBumped),
];

/// Whether `kind` has its words in the table (and so its Russian).
pub fn known(kind: &str) -> bool {
    GISTS.iter().any(|(k, _)| *k == kind)
}

/// `kind` (a `Note::kind_name`) in words, in `lang`.
pub fn gist(kind: &str, lang: Lang) -> String {
    match GISTS.iter().find(|(k, _)| *k == kind) {
        Some((_, s)) => s.get(lang).to_string(),
        None => kind.replace('_', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In English a gist is the kind's own words, so the table changes nothing there; every
    /// kind has its Russian, and no two kinds share a name.
    #[test]
    fn english_is_the_kind_in_words_and_russian_is_there() {
        for (kind, s) in GISTS {
            assert_eq!(gist(kind, Lang::En), kind.replace('_', " "));
            let ru = gist(kind, Lang::Ru);
            assert!(ru != s.get(Lang::En) && !ru.is_empty(), "{kind}: {ru}");
        }
        for (i, (a, _)) in GISTS.iter().enumerate() {
            assert!(GISTS[i + 1..].iter().all(|(b, _)| a != b), "{a} twice");
        }
        assert_eq!(gist("some_new_kind", Lang::Ru), "some new kind");
    }
}
