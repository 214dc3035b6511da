//! One sentence a student understands for every fact the simulation reports.

use super::fault::{Fault, MessageMatch};
use super::names::Names;
use super::note::{DropReason, Note};
use crate::ids::{NodeId, RecordId};
use crate::kafka::protocol::MessageKind;
use crate::kafka::KafkaError;
use crate::time::format_duration;

fn records(names: &Names, ids: &[RecordId]) -> String {
    // The same record more than once (a log's retries): each named once, with its count.
    let mut distinct: Vec<(RecordId, usize)> = Vec::new();
    for id in ids {
        match distinct.iter_mut().find(|(d, _)| d == id) {
            Some((_, n)) => *n += 1,
            None => distinct.push((*id, 1)),
        }
    }
    if distinct.len() < ids.len() && distinct.len() <= 4 {
        let list: Vec<String> = distinct
            .iter()
            .map(|(id, n)| match n {
                1 => names.record(*id),
                n => format!("{} ×{n}", names.record(*id)),
            })
            .collect();
        return format!("{} records ({})", ids.len(), list.join(", "));
    }
    match ids {
        [] => "nothing".into(),
        [one] => format!("record {}", names.record(*one)),
        few if few.len() <= 4 => {
            let list: Vec<String> = few.iter().map(|id| names.record(*id)).collect();
            format!("{} records ({})", few.len(), list.join(", "))
        }
        [first, .., last] => format!(
            "{} records ({}…{})",
            ids.len(),
            names.record(*first),
            names.record(*last)
        ),
    }
}

/// "1 record", "3 records": a count and its noun, singular or plural.
fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "offset 4", "offsets 4–6".
fn offsets(first: u64, last: u64) -> String {
    if first == last {
        format!("offset {first}")
    } else {
        format!("offsets {first}–{last}")
    }
}

fn seq_range(base: i32, count: usize) -> String {
    if base < 0 {
        return "no sequence (idempotence off)".into();
    }
    if count <= 1 {
        format!("sequence {base}")
    } else {
        format!("sequences {base}–{}", base + count as i32 - 1)
    }
}

fn pid(producer_id: i64) -> String {
    if producer_id < 0 {
        "no producer id".into()
    } else {
        format!("producer id {producer_id}")
    }
}

/// A message kind as Kafka and Flink name it ("Produce request", "EndTxn request").
pub fn message_name(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::InitProducerId => "InitProducerId request",
        MessageKind::InitProducerIdResponse => "InitProducerId response",
        MessageKind::Produce => "Produce request",
        MessageKind::ProduceResponse => "Produce response",
        // A follower pulls with Fetch; the leader's answer carries the records.
        MessageKind::Replicate => "replica Fetch response",
        MessageKind::ReplicateResponse => "follower acknowledgement",
        MessageKind::Fetch => "Fetch request",
        MessageKind::FetchResponse => "Fetch response",
        MessageKind::OffsetCommit => "OffsetCommit request",
        MessageKind::OffsetCommitResponse => "OffsetCommit response",
        MessageKind::OffsetFetch => "OffsetFetch request",
        MessageKind::OffsetFetchResponse => "OffsetFetch response",
        MessageKind::ListOffsets => "ListOffsets request",
        MessageKind::ListOffsetsResponse => "ListOffsets response",
        MessageKind::AddPartitionsToTxn => "AddPartitionsToTxn request",
        MessageKind::AddOffsetsToTxn => "AddOffsetsToTxn request",
        MessageKind::TxnOffsetCommit => "TxnOffsetCommit request",
        MessageKind::EndTxn => "EndTxn request",
        MessageKind::TxnResponse => "transaction coordinator response",
        MessageKind::WriteTxnMarkers => "WriteTxnMarkers request",
        MessageKind::WriteTxnMarkersResponse => "WriteTxnMarkers response",
        MessageKind::CheckpointTrigger => "checkpoint trigger",
        MessageKind::CheckpointAck => "checkpoint acknowledgement",
        MessageKind::CheckpointNotify => "notifyCheckpointComplete call",
        MessageKind::CheckpointAbort => "notifyCheckpointAborted call",
        MessageKind::Metadata => "Metadata request",
        MessageKind::MetadataResponse => "Metadata response",
    }
}

/// "Produce request", "3 Produce requests", "message", "2 messages": what a fault matches.
fn matched(kind: Option<MessageKind>, count: u32) -> String {
    let one = kind.map_or("message", message_name);
    if count == 1 {
        one.to_string()
    } else {
        format!("{count} {one}s")
    }
}

fn matcher(names: &Names, m: &MessageMatch, count: u32) -> String {
    let mut parts = vec![matched(m.kind, count)];
    if let Some(f) = m.from {
        parts.push(format!("from {}", names.node(f)));
    }
    if let Some(t) = m.to {
        parts.push(format!("to {}", names.node(t)));
    }
    if let Some(tp) = m.tp {
        parts.push(format!("for {}", names.tp(tp)));
    }
    parts.join(" ")
}

pub fn describe_fault(names: &Names, fault: &Fault) -> String {
    let n = |node: &NodeId| names.node(*node);
    match fault {
        Fault::Freeze { node, duration } => {
            format!("freeze {} for {}", n(node), format_duration(*duration))
        }
        Fault::Thaw { node } => format!("thaw {}", n(node)),
        Fault::Crash {
            node,
            restart_after,
        } => match restart_after {
            Some(t) => format!("crash {} (restart after {})", n(node), format_duration(*t)),
            None => format!("crash {}", n(node)),
        },
        Fault::Restart { node } => format!("restart {}", n(node)),
        Fault::SessionExpired { broker, .. } => format!(
            "{}'s session with the controller expires",
            n(&NodeId::Broker(*broker))
        ),
        Fault::MetadataCatchUp { broker } => {
            format!("{} hears the controller again", n(&NodeId::Broker(*broker)))
        }
        Fault::Drop { matcher: m, count } => format!("drop the next {}", matcher(names, m, *count)),
        Fault::Delay {
            matcher: m,
            extra,
            count,
        } => format!(
            "delay the next {} by {}",
            matcher(names, m, *count),
            format_duration(*extra)
        ),
        Fault::Duplicate {
            matcher: m,
            extra,
            count,
        } => format!(
            "duplicate the next {} (the copy {} later)",
            matcher(names, m, *count),
            format_duration(*extra)
        ),
        Fault::LoseAck { tp, count } => format!(
            "lose the acknowledgement of the next {} to {}",
            if *count == 1 {
                "append".to_string()
            } else {
                counted(*count, "append", "appends")
            },
            names.tp(*tp)
        ),
        Fault::Corrupt { tp, count } => format!(
            "corrupt the next {} for {} ({} checksum will not match)",
            matched(Some(MessageKind::Produce), *count),
            names.tp(*tp),
            if *count == 1 {
                "its batch"
            } else {
                "their batches'"
            }
        ),
        Fault::DropOnWire { matcher: m, count } => format!(
            "drop the first {} already on the wire",
            matcher(names, m, *count)
        ),
        Fault::DelayOnWire {
            matcher: m,
            extra,
            count,
        } => format!(
            "delay the first {} already on the wire by {}",
            matcher(names, m, *count),
            format_duration(*extra)
        ),
        Fault::Partition { a, b } => format!("cut the link between {} and {}", n(a), n(b)),
        Fault::Heal { a, b } => format!("heal the link between {} and {}", n(a), n(b)),
    }
}

/// The sentence for one note.
pub fn narrate(names: &Names, note: &Note) -> String {
    let n = |node: &NodeId| names.spoken(*node);
    let tp = |t: &crate::ids::Tp| names.tp(*t);
    match note {
        Note::Flink(f) => f.narrate(names),
        Note::ProducerIdRequested { producer, broker } => format!(
            "{} asks {} for a producer id (InitProducerId).",
            n(producer),
            n(broker)
        ),
        Note::ProducerClosed { producer } => format!(
            "{} has nothing left to send and closes: it stops asking for a producer id.",
            n(producer)
        ),
        Note::ProducerIdAllocated {
            broker,
            producer_id,
        } => format!("{} hands out producer id {producer_id}.", n(broker)),
        Note::ProducerIdAssigned {
            producer,
            producer_id,
            epoch,
        } => format!(
            "{} is now producer id {producer_id}, epoch {epoch}: its sequence numbers start at 0.",
            n(producer)
        ),
        Note::RecordAccepted {
            producer,
            record,
            key,
            tp: t,
        } => match names.key(*key) {
            Some(k) => format!(
                "The application hands record {} (key \"{k}\") to producer {}; it goes to {}.",
                names.record(*record),
                n(producer),
                tp(t)
            ),
            None => format!(
                "The application hands record {} to producer {}; it goes to {}.",
                names.record(*record),
                n(producer),
                tp(t)
            ),
        },
        Note::BatchSent {
            producer,
            broker,
            tp: t,
            records: ids,
            producer_id,
            epoch,
            base_sequence,
            attempt,
            ..
        } => {
            let what = if *producer_id < 0 {
                format!("{} (idempotence off: no producer id, no sequence)", records(names, ids))
            } else {
                // The epoch once it is not the first: after a bump it tells a retry of the
                // old epoch's batch from the new epoch's.
                let epoch = if *epoch > 0 { format!(", epoch {epoch}") } else { String::new() };
                format!(
                    "{} with {}{epoch}, {}",
                    records(names, ids),
                    pid(*producer_id),
                    seq_range(*base_sequence, ids.len())
                )
            };
            if *attempt > 1 {
                let same = if *producer_id < 0 { "" } else { ", the same sequence" };
                format!(
                    "{} retries {what} to {} for {} (attempt {attempt}{same}).",
                    n(producer),
                    n(broker),
                    tp(t)
                )
            } else {
                format!("{} sends {what} to {} for {}.", n(producer), n(broker), tp(t))
            }
        }
        Note::RequestTimedOut {
            producer,
            records: ids,
            attempt,
            timeout_ms,
            ..
        } => format!(
            "{} heard nothing for {timeout_ms} ms (request.timeout.ms) about attempt {attempt} of {}: it cannot know whether the broker stored it.",
            n(producer),
            records(names, ids)
        ),
        Note::ConnectionClosed {
            producer,
            broker,
            records: ids,
            timed_out,
        } => {
            let why = match timed_out {
                Some((kind, ms)) => format!(
                    "{} heard nothing for {ms} ms (request.timeout.ms) about its {}: it",
                    n(producer),
                    message_name(*kind)
                ),
                None => n(producer),
            };
            if ids.is_empty() {
                format!(
                    "{why} closes its connection to {} and will open a new one{}.",
                    n(broker),
                    if timed_out.is_some() {
                        ""
                    } else {
                        ": no other produce request was waiting on it"
                    }
                )
            } else {
                format!(
                    "{why} closes its connection to {} and will open a new one. The {} requests in flight on it fail with it, as timed out too (REQUEST_TIMED_OUT), and will be retried: {}.",
                    n(broker),
                    if timed_out.is_some() { "produce" } else { "other" },
                    records(names, ids)
                )
            }
        }
        Note::RetryScheduled {
            producer,
            records: ids,
            backoff,
            reason,
            capped,
            ..
        } => {
            let jitter = crate::kafka::producer::BACKOFF_JITTER_PERCENT;
            let (who, what, after) = (n(producer), records(names, ids), format_duration(*backoff));
            if *capped {
                format!("{who} will retry {what} ({reason}) after at most {after}: the backoff has reached retry.backoff.max.ms, and the client's {jitter}% jitter can only shorten it.")
            } else {
                format!("{who} will retry {what} ({reason}) after {after}, give or take the client's {jitter}% jitter.")
            }
        }
        Note::Delivered {
            producer,
            tp: t,
            records: ids,
            base_offset,
            duplicate_answer,
        } => match (base_offset, duplicate_answer) {
            (Some(o), true) => format!(
                "{} gets its acknowledgement: {} at offset {o} of {} (the original offset, from the broker's de-duplication).",
                n(producer),
                records(names, ids),
                tp(t)
            ),
            (Some(o), false) => format!(
                "{} gets its acknowledgement: {} stored at offset {o} of {}.",
                n(producer),
                records(names, ids),
                tp(t)
            ),
            (None, _) => format!(
                "{} counts {} as sent (acks=0: no answer is ever awaited).",
                n(producer),
                records(names, ids)
            ),
        },
        Note::DeliveryFailed {
            producer,
            records: ids,
            error,
            indeterminate,
            ..
        } => {
            if *indeterminate {
                format!(
                    "{} gives up on {} ({error}); it was sent and never answered, so it may or may not be in the log.",
                    n(producer),
                    records(names, ids)
                )
            } else {
                format!("{} reports {} as failed ({error}).", n(producer), records(names, ids))
            }
        }
        Note::StaleResponseIgnored { producer, kind, .. } => format!(
            "{} takes no notice of a late {}: it answers a request already answered, or one given up on when its connection closed.",
            n(producer),
            message_name(*kind)
        ),
        Note::EpochBumped {
            producer,
            producer_id,
            new_epoch,
        } => format!(
            "{} bumps producer id {producer_id} to epoch {new_epoch} and restarts its sequences at 0.",
            n(producer)
        ),
        Note::LeaderChanged {
            producer,
            tp: t,
            leader,
        } => format!(
            "{} will send {} to broker {leader} from now on.",
            n(producer),
            tp(t)
        ),
        Note::Appended {
            broker,
            tp: t,
            base_offset,
            records: ids,
            producer_id,
            base_sequence,
            ..
        } => {
            if *producer_id < 0 {
                format!("{} appends {} at offset {base_offset} of {}.", n(broker), records(names, ids), tp(t))
            } else {
                format!(
                    "{} appends {} at offset {base_offset} of {} ({}, {}).",
                    n(broker),
                    records(names, ids),
                    tp(t),
                    pid(*producer_id),
                    seq_range(*base_sequence, ids.len())
                )
            }
        }
        Note::DuplicateDetected {
            broker,
            producer_id,
            base_sequence,
            last_sequence,
            original_offset,
            ..
        } => {
            let seq = if base_sequence == last_sequence {
                format!("sequence {base_sequence}")
            } else {
                format!("sequences {base_sequence}–{last_sequence}")
            };
            format!(
                "{} has already stored producer id {producer_id}'s {seq} at offset {original_offset}; it answers with offset {original_offset} again instead of appending a duplicate.",
                n(broker)
            )
        }
        Note::AppendRejected {
            broker,
            tp: t,
            error: KafkaError::CorruptMessage,
            records: ids,
            ..
        } => format!(
            "{} finds that the batch of {} for {} fails its CRC check (CORRUPT_MESSAGE): it stores nothing, and the producer may send it again.",
            n(broker),
            records(names, ids),
            tp(t)
        ),
        Note::AppendRejected {
            broker,
            producer_id,
            epoch,
            base_sequence,
            error,
            expected_sequence,
            ..
        } => match expected_sequence {
            Some(e) => format!(
                "{} refuses producer id {producer_id}'s sequence {base_sequence}: it expected {e} ({error}). Nothing is appended.",
                n(broker)
            ),
            None => format!(
                "{} refuses producer id {producer_id} at epoch {epoch}: a newer epoch exists ({error}). Nothing is appended.",
                n(broker)
            ),
        },
        Note::AckWaitsForReplicas {
            broker,
            base_offset,
            ..
        } => format!(
            "{} holds the answer for offset {base_offset} until every in-sync replica has it (acks=all).",
            n(broker)
        ),
        Note::IsrExpanded {
            broker,
            tp: t,
            follower,
            isr,
        } => format!(
            "{} has caught up with {}: the leader, {}, adds it to the in-sync replicas (now {}) and tells the controller (AlterPartition).",
            n(follower),
            tp(t),
            n(broker),
            brokers_list(isr)
        ),
        Note::IsrShrunk {
            broker,
            tp: t,
            followers,
            behind_since,
            lag_max_ms,
            isr,
            min_insync,
        } => format!(
            "{} last had all of {} at {}, longer ago than replica.lag.time.max.ms ({lag_max_ms} ms; the leader looks every {} ms): the leader, {}, takes {} out of the in-sync replicas (now {}) and tells the controller (AlterPartition). {}",
            brokers_list(followers),
            tp(t),
            format_duration(*behind_since),
            lag_max_ms / 2,
            n(broker),
            if followers.len() == 1 { "it" } else { "them" },
            brokers_list(isr),
            if isr.len() < usize::from(*min_insync) {
                format!("That is fewer than min.insync.replicas={min_insync}: the high watermark stays where it is, acks=all writes waiting are held and new ones refused (NOT_ENOUGH_REPLICAS) until a replica is back in sync.")
            } else if isr.len() == 1 {
                "acks=all waits only for the leader from now on.".to_string()
            } else {
                format!("acks=all waits only for {} from now on.", brokers_list(isr))
            },
        ),
        Note::OffsetLookup {
            consumer,
            broker,
            tp: t,
            past_end,
        } => match past_end {
            None => format!(
                "{} has no committed offset for {}: auto.offset.reset=latest, so it asks {} where the log ends (ListOffsets), to start there and skip what is already written.",
                n(consumer),
                tp(t),
                n(broker)
            ),
            Some(p) => format!(
                "{}'s position {p} on {} is past the leader's log end (OFFSET_OUT_OF_RANGE): auto.offset.reset=latest, so it asks {} where the log ends now (ListOffsets).",
                n(consumer),
                tp(t),
                n(broker)
            ),
        },
        Note::StartsAtLatest {
            consumer,
            tp: t,
            offset,
            isolation,
        } => format!(
            "{} starts {} at offset {offset}, where the log ends for it ({}){}",
            n(consumer),
            tp(t),
            match isolation {
                crate::kafka::Isolation::ReadCommitted => "the last stable offset: read_committed",
                crate::kafka::Isolation::ReadUncommitted => "the high watermark",
            },
            if *offset == 0 {
                ": nothing is written there yet.".to_string()
            } else {
                format!(": what it has not read below offset {offset} it never reads.")
            }
        ),
        Note::NoResetPolicy {
            consumer,
            tp: t,
            past_end,
        } => match past_end {
            None => format!(
                "{} has no committed offset for {}, and auto.offset.reset=none: poll() throws NoOffsetForPartitionException and the application stops.",
                n(consumer),
                tp(t)
            ),
            Some(p) => format!(
                "{}'s position {p} on {} is past the leader's log end, and auto.offset.reset=none: poll() throws OffsetOutOfRangeException and the application stops.",
                n(consumer),
                tp(t)
            ),
        },
        Note::TooFewInSync {
            broker,
            tp: t,
            isr,
            min_insync,
            appended_at,
            records: ids,
        } => {
            let in_sync = format!(
                "{} of {} {} in sync ({}), fewer than min.insync.replicas={min_insync}",
                counted(isr.len() as u64, "replica", "replicas"),
                tp(t),
                if isr.len() == 1 { "is" } else { "are" },
                brokers_list(isr)
            );
            match appended_at {
                None => format!(
                    "{} refuses {} (acks=all): only {in_sync}. NOT_ENOUGH_REPLICAS: nothing is appended, and the producer will retry.",
                    n(broker),
                    records(names, ids)
                ),
                Some(offset) => format!(
                    "{} has {} at offset {offset} on every in-sync replica, but only {in_sync}: it answers NOT_ENOUGH_REPLICAS_AFTER_APPEND. The records stay in the log; a retry may store them again.",
                    n(broker),
                    records(names, ids)
                ),
            }
        }
        Note::Replicated {
            broker,
            tp: t,
            records: count,
            log_end_offset,
        } => format!(
            "{} copies {} of {} from the leader; its log now ends at {log_end_offset}.",
            n(broker),
            counted(*count, "record", "records"),
            tp(t)
        ),
        Note::HighWatermarkAdvanced {
            broker,
            tp: t,
            high_watermark,
        } => format!(
            "The high watermark of {} on {} moves to {high_watermark}: consumers may read below it.",
            tp(t),
            n(broker)
        ),
        Note::NotLeader {
            broker,
            tp: t,
            leader,
        } => match leader {
            Some(l) => format!(
                "{} is not the leader of {} (broker {l} is): NOT_LEADER_OR_FOLLOWER.",
                n(broker),
                tp(t)
            ),
            None => format!(
                "{} cannot serve {}: it has no leader right now.",
                n(broker),
                tp(t)
            ),
        },
        Note::FetchServed {
            broker,
            consumer,
            tp: t,
            from,
            count,
            high_watermark,
            last_stable_offset,
            isolation,
        } => match isolation {
            // "serves reader 0 entries" read as a name and a number.
            // Records past the last stable offset are there; read_committed may not read them.
            _ if *count == 0
                && *isolation == crate::kafka::Isolation::ReadCommitted
                && from >= last_stable_offset
                && last_stable_offset < high_watermark =>
            {
                format!(
                    "{} has nothing {} may read yet in {} from offset {from}: a transaction with no COMMIT or ABORT marker here yet (still open, or decided and its marker not yet written) holds the last stable offset at {last_stable_offset}, and read_committed waits there, even for records already below the high watermark {high_watermark}.",
                    n(broker),
                    n(consumer),
                    tp(t)
                )
            }
            _ if *count == 0 => format!(
                "{} has nothing new for {} in {} from offset {from}: {}.",
                n(broker),
                n(consumer),
                tp(t),
                if from >= high_watermark {
                    format!("the high watermark is {high_watermark}")
                } else {
                    format!("high watermark {high_watermark}, last stable offset {last_stable_offset}")
                }
            ),
            crate::kafka::Isolation::ReadCommitted => format!(
                "{} returns {} of {} (records and any markers) to {}, from offset {from} up to the last stable offset {last_stable_offset} (read_committed; high watermark {high_watermark}).",
                n(broker),
                counted(*count, "log entry", "log entries"),
                tp(t),
                n(consumer)
            ),
            crate::kafka::Isolation::ReadUncommitted => format!(
                "{} returns {} of {} (records and any markers) to {}, from offset {from} up to the high watermark {high_watermark}.",
                n(broker),
                counted(*count, "log entry", "log entries"),
                tp(t),
                n(consumer)
            ),
        },
        Note::LeaderElected {
            tp: t,
            broker,
            leader_epoch,
            lost_records,
        } => {
            if lost_records.is_empty() {
                format!(
                    "{} becomes the leader of {} (leader epoch {leader_epoch}).",
                    n(broker),
                    tp(t)
                )
            } else {
                format!(
                    "{} becomes the leader of {} (leader epoch {leader_epoch}) without {}: the old leader never replicated {}.",
                    n(broker),
                    tp(t),
                    records(names, lost_records),
                    if lost_records.len() == 1 { "it" } else { "them" }
                )
            }
        }
        Note::LeaderAwaited {
            client,
            broker,
            tps,
            backoff,
        } => format!(
            "{} still knows no leader for {}: its batches there wait in its buffer, and it asks {} for metadata again ({} ms later, retry.backoff.max.ms), as it will until one is elected.",
            n(client),
            tps.iter().map(|tp| names.tp(*tp)).collect::<Vec<_>>().join(", "),
            n(broker),
            backoff / 1000
        ),
        Note::UncleanLeaderElected {
            tp: t,
            broker,
            leader_epoch,
            lost_records,
        } => format!(
            "No in-sync replica of {} is up, and its topic sets unclean.leader.election.enable=true: the controller elects {}, which is out of sync, as the leader (leader epoch {leader_epoch}), alone in the ISR. {}",
            tp(t),
            n(broker),
            if lost_records.is_empty() {
                "It lacks nothing the last leader had.".to_string()
            } else {
                format!(
                    "It never received {} from the last leader: {} lost, acknowledged or not.",
                    records(names, lost_records),
                    if lost_records.len() == 1 { "it is" } else { "they are" }
                )
            }
        ),
        Note::PositionReset {
            reader,
            tp: t,
            from,
            to,
            diverged: Some(epoch),
        } => format!(
            "{}'s position {from} on {} is past where the leader's log ends its leader epoch (epoch {epoch} ends at offset {to} there): the log it read from parted from this one (an unclean election). It goes back to offset {to} (truncation detected, KIP-320): what it read at {} is in no log now, and new records take those offsets.",
            n(reader),
            tp(t),
            if from.saturating_sub(*to) == 1 {
                format!("offset {to}")
            } else {
                format!("offsets {to}–{}", from.saturating_sub(1))
            }
        ),
        Note::PositionReset {
            reader,
            tp: t,
            from,
            to,
            diverged: None,
        } => format!(
            "{}'s position {from} on {} is past the leader's log end: OFFSET_OUT_OF_RANGE. It starts again from offset {to}, the log's start (auto.offset.reset=earliest), and reads again what is there.",
            n(reader),
            tp(t)
        ),
        Note::BrokerFenced {
            broker,
            session_timeout_ms,
            restarted,
        } => format!(
            "{}: the controller fences it. It leaves the ISR of every partition that has another replica in sync, and each partition it led moves to a live in-sync replica; where it was the last one in sync it stays in the ISR, and the partition has no leader until it is back.",
            if *restarted {
                format!("{} registers again before its session expired", n(broker))
            } else {
                format!(
                    "{} has sent no heartbeat for {session_timeout_ms} ms (broker.session.timeout.ms)",
                    n(broker)
                )
            }
        ),
        Note::BrokerRegistration {
            broker,
            accepted: false,
            session_timeout_ms,
        } => format!(
            "{} restarts, but the controller refuses its registration (DUPLICATE_BROKER_REGISTRATION): the session of the instance that crashed lasts until it has sent no heartbeat for {session_timeout_ms} ms (broker.session.timeout.ms). It tries again until then, and meanwhile opens no listener to clients.",
            n(broker)
        ),
        Note::BrokerRegistration {
            broker,
            accepted: true,
            ..
        } => format!(
            "The controller now takes {}'s registration: a new incarnation, which reads its log and catches up with the metadata before it is unfenced and serves again.",
            n(broker)
        ),
        Note::TxnPartitionCheck {
            broker,
            coordinator,
            tp: t,
            producer_id,
            epoch,
            add,
            again,
            records: ids,
        } => {
            let offsets = ids.is_empty();
            let ask = match (add, offsets) {
                (true, false) => format!("asks the transaction coordinator ({}) to add {} to producer id {producer_id}'s transaction (epoch {epoch}): under transaction protocol 2 the leader, not the client, sends AddPartitionsToTxn (KIP-890)", n(coordinator), tp(t)),
                (true, true) => format!("asks the transaction coordinator ({}) to add {} to producer id {producer_id}'s transaction (epoch {epoch}): under transaction protocol 2 the group coordinator does it, and the client sends no AddOffsetsToTxn (KIP-890)", n(coordinator), tp(t)),
                (false, _) => format!("asks the transaction coordinator ({}) whether {} is in producer id {producer_id}'s ongoing transaction (epoch {epoch}) (KIP-890), so that a late write cannot open a transaction nothing will end", n(coordinator), tp(t)),
            };
            let what = if offsets {
                "the group's offsets (TxnOffsetCommit)".to_string()
            } else {
                format!("{} for {}", records(names, ids), tp(t))
            };
            if *again {
                format!("{} asks the transaction coordinator ({}) again to add {} to producer id {producer_id}'s transaction: 20 ms ago it was still completing the previous one (CONCURRENT_TRANSACTIONS). The write waits.", n(broker), n(coordinator), tp(t))
            } else {
                format!("{} holds {what} and {ask}.", n(broker))
            }
        }
        Note::TxnEndGaveUp {
            producer,
            commit,
            waited,
        } => format!(
            "{}'s {}Transaction() has waited {} (max.block.ms) for the transaction coordinator to answer EndTxn: it throws a TimeoutException, and the application closes the producer.",
            n(producer),
            if *commit { "commit" } else { "abort" },
            format_duration(*waited)
        ),
        Note::TxnInitGaveUp { producer, waited } => format!(
            "{}'s initTransactions() has waited {} (max.block.ms) for the transaction coordinator to answer InitProducerId: it throws a TimeoutException, and the application closes the producer.",
            n(producer),
            format_duration(*waited)
        ),
        Note::TxnPartitionCheckFailed {
            broker,
            tp: t,
            error,
            answered,
            records: ids,
            cause,
            ..
        } => {
            use crate::kafka::txn_check::CheckFailure;
            let ended = *cause == CheckFailure::MarkerMeanwhile;
            let offsets = ids.is_empty();
            let what = if offsets {
                "the group's offsets (TxnOffsetCommit)".to_string()
            } else {
                format!("{} for {}", records(names, ids), tp(t))
            };
            let why = match error {
                _ if *cause == CheckFailure::PreviousOpen => "the producer's previous transaction is still open here, its marker not yet written (KAFKA-18575)".to_string(),
                _ if ended => "a marker ended the producer's transaction here while the write waited: the coordinator's answer no longer holds (Kafka's verification guard)".to_string(),
                None => "the transaction coordinator did not answer in time".to_string(),
                Some(KafkaError::ConcurrentTransactions) => "the transaction coordinator was still completing the previous transaction (CONCURRENT_TRANSACTIONS)".to_string(),
                Some(KafkaError::TransactionAbortable) => "the transaction coordinator answered TRANSACTION_ABORTABLE: the partition is not in the producer's ongoing transaction".to_string(),
                Some(e) => format!("the transaction coordinator answered {e}"),
            };
            let how = match (error, answered) {
                (Some(e), a) if e == a && !ended && a.is_retriable() => format!(" with {a}, which the client retries: {why}"),
                (Some(e), a) if e == a && !ended => format!(": {why}"),
                (Some(KafkaError::ProducerFenced), a) if offsets => format!(" with {a}: {why}, which the client takes as fenced"),
                (Some(KafkaError::ProducerFenced), a) => format!(" with {a}: {why}, which a leader passes on as {a} so that the client aborts rather than closes"),
                (_, a) if a.is_retriable() => format!(" with {a}, which the client retries: {why}"),
                (_, a) => format!(" with {a}: {why}"),
            };
            format!("{} refuses {what}{how}. Nothing is stored.", n(broker))
        }
        Note::BrokerRejoined { broker } => format!(
            "{} learns that the controller fenced it while it was frozen (its session expired): it heartbeats again, the controller unfences it once it has caught up with the metadata log, and it follows the current leaders, catching up from them.",
            n(broker)
        ),
        Note::MetadataCaughtUp {
            broker,
            demoted,
            answered,
        } => {
            let mut line = format!(
                "{} fetches the metadata it missed while frozen",
                n(broker)
            );
            if demoted.is_empty() {
                line.push('.');
            } else {
                let parts: Vec<String> = demoted.iter().map(tp).collect();
                line.push_str(&format!(
                    " and learns that it no longer leads {}. Until now it served {} as leader on its old view: a zombie leader.",
                    parts.join(", "),
                    if parts.len() == 1 { "it" } else { "them" }
                ));
            }
            if *answered > 0 {
                line.push_str(&format!(
                    " The {} waiting for its followers {} answered NOT_LEADER_OR_FOLLOWER.",
                    if *answered == 1 { "produce request".to_string() } else { format!("{answered} produce requests") },
                    if *answered == 1 { "is" } else { "are" }
                ));
            }
            line
        }
        Note::PartitionOffline { tp: t, unclean: false } => format!(
            "{} has no in-sync replica the controller can make leader: it is offline until one returns.",
            tp(t)
        ),
        Note::PartitionOffline { tp: t, unclean: true } => format!(
            "{} has no live replica the controller can make leader, in sync or not: it is offline until one returns (its topic allows unclean leader election, so any replica will do).",
            tp(t)
        ),
        Note::LogTruncated {
            broker,
            tp: t,
            to_offset,
            dropped,
        } => format!(
            "{} truncates {} to offset {to_offset}, dropping {} the new leader does not have.",
            n(broker),
            tp(t),
            records(names, dropped)
        ),
        Note::Read {
            consumer,
            tp: t,
            records: read,
            skipped,
            isolation,
        } => {
            let first = read.first().map_or(0, |r| r.0);
            let last = read.last().map_or(0, |r| r.0);
            let dropped = match (*skipped, isolation) {
                (0, _) => String::new(),
                (1, crate::kafka::Isolation::ReadUncommitted) => {
                    " and drops 1 marker, which is not for the application".to_string()
                }
                (k, crate::kafka::Isolation::ReadUncommitted) => {
                    format!(" and drops {k} markers, which are not for the application")
                }
                (1, crate::kafka::Isolation::ReadCommitted) => {
                    " and drops 1 entry (a marker or an aborted record)".to_string()
                }
                (k, crate::kafka::Isolation::ReadCommitted) => {
                    format!(" and drops {k} entries (markers and aborted records)")
                }
            };
            // "offsets 0–23" for 10 records read as 24 of them.
            let span = if read.len() <= 1 || last.saturating_sub(first) + 1 == read.len() as u64 {
                offsets(first, last)
            } else {
                format!("between offsets {first} and {last}")
            };
            format!(
                "{} reads {} of {} ({span}){dropped}.",
                n(consumer),
                counted(read.len() as u64, "record", "records"),
                tp(t)
            )
        }
        Note::FetchSent {
            consumer,
            broker,
            tp: t,
            offset,
        } => format!(
            "{} asks {} for {} from offset {offset}.",
            n(consumer),
            n(broker),
            tp(t)
        ),
        Note::PolledNothing {
            consumer,
            tp: t,
            offset,
            skipped,
            last_stable_offset,
            high_watermark,
            isolation,
        } => {
            if *skipped > 0 && *isolation == crate::kafka::Isolation::ReadUncommitted {
                // read_uncommitted hands aborted records over: only markers are dropped.
                format!(
                    "{} polls {} at offset {offset}: only transaction markers, which the consumer does not hand to the application.",
                    n(consumer),
                    tp(t)
                )
            } else if *skipped > 0 {
                format!(
                    "{} polls {} at offset {offset}: only markers and aborted records, which it drops.",
                    n(consumer),
                    tp(t)
                )
            } else if *isolation == crate::kafka::Isolation::ReadCommitted
                && *last_stable_offset <= *offset
                && *last_stable_offset < *high_watermark
            {
                format!(
                    "{} polls {} at offset {offset}: nothing it may read yet. A transaction with no COMMIT or ABORT marker here yet (still open, or decided and its marker not yet written) holds the last stable offset at {last_stable_offset}, below the high watermark {high_watermark}.",
                    n(consumer),
                    tp(t)
                )
            } else {
                format!(
                    "{} polls {} at offset {offset}: nothing new.",
                    n(consumer),
                    tp(t)
                )
            }
        }
        Note::MetadataRefreshed {
            client,
            leaders,
            offline,
        } if leaders.is_empty() && !offline.is_empty() => format!(
            "{} gets the fresh metadata it asked for: {} {} no leader (offline, no in-sync replica is up), so its requests there wait for one.",
            n(client),
            offline.iter().map(|tp| names.tp(*tp)).collect::<Vec<_>>().join(", "),
            if offline.len() == 1 { "has" } else { "have" }
        ),
        Note::MetadataLearned { client, leaders }
        | Note::MetadataRefreshed {
            client, leaders, ..
        } => {
            let moved: Vec<String> = leaders
                .iter()
                .map(|(tp, b)| format!("broker {b} leads {}", names.tp(*tp)))
                .collect();
            if matches!(note, Note::MetadataLearned { .. }) {
                format!(
                    "{} starts by asking a live broker for the cluster's metadata (as a client asks its bootstrap servers): {}.",
                    n(client),
                    moved.join(", ")
                )
            } else if moved.is_empty() {
                format!(
                    "{} gets the fresh metadata it asked for: the controller has moved no leader yet, so {} keeps sending to the same brokers.",
                    n(client),
                    n(client)
                )
            } else {
                format!(
                    "{} gets the fresh metadata it asked for: {}.",
                    n(client),
                    moved.join(", ")
                )
            }
        }
        Note::MetadataRequested {
            client,
            broker,
            find_coordinator: true,
            ..
        } => format!(
            "{} asks {} where its transaction coordinator is now (Kafka's FindCoordinator; here the metadata answer tells it).",
            n(client),
            n(broker)
        ),
        Note::MetadataRequested {
            client,
            broker,
            again: false,
            ..
        } => format!(
            "{} asks {} for fresh metadata, as Kafka's clients do after a request times out.",
            n(client),
            n(broker)
        ),
        Note::MetadataRequested {
            client,
            broker,
            again: true,
            ..
        } => format!(
            "{} asks {} for fresh metadata again: its earlier Metadata request was on the connection it just closed, and failed with it.",
            n(client),
            n(broker)
        ),
        Note::StaleReplicationIgnored {
            broker,
            from,
            tp: t,
            leader_epoch,
            current_epoch,
        } => format!(
            "{} takes nothing from {}'s late answer to its replica fetch of {} (leader epoch {leader_epoch}): it knows leader epoch {current_epoch} and no longer follows that broker, so the deposed leader's records are not taken.",
            n(broker),
            n(from),
            tp(t)
        ),
        Note::OffsetFetchRetry { consumer, error } => format!(
            "{} cannot resume yet ({error}: a transaction holds offsets for its group); it asks again.",
            n(consumer)
        ),
        Note::TxnTransition {
            coordinator,
            transactional_id,
            from,
            to,
            producer_id,
            epoch,
            from_epoch,
        } => {
            let meaning = match (to.as_str(), from == to) {
                ("PrepareCommit", _) => {
                    ": the decision to commit is durable, whatever happens next"
                }
                ("PrepareAbort", _) => ": the decision to abort is durable",
                ("CompleteCommit" | "CompleteAbort", _) => ": every partition has its marker",
                // Only InitProducerId leads to Empty, always with a new epoch.
                ("Empty", _) => {
                    ": an instance starts at this epoch, and a request at an older one is refused from now on"
                }
                ("Ongoing", true) => ": the open transaction now spans more partitions",
                ("Ongoing", false) => ": the transaction is open",
                _ => "",
            };
            // "Ongoing → Ongoing" read as nothing happening. A transactional id's first write
            // (InitProducerId at epoch 0: its state starts Empty) is not "again".
            let change = if from == to && to == "Empty" && *epoch == 0 {
                to.clone()
            } else if from == to {
                format!("{to} again")
            } else {
                format!("{from} → {to}")
            };
            // A bump is said, or epoch 1 → 3 across two sentences looks like a slip.
            let epoch = if *from_epoch >= 0 && from_epoch != epoch {
                format!("epoch {from_epoch} → {epoch}")
            } else {
                format!("epoch {epoch}")
            };
            format!(
                "The transaction coordinator ({}) writes {change} for \"{transactional_id}\" (producer id {producer_id}, {epoch}) to __transaction_state{meaning}.",
                n(coordinator)
            )
        }
        Note::TxnRequestRefused {
            coordinator,
            transactional_id,
            request,
            producer_id,
            epoch,
            error,
        } => format!(
            "The transaction coordinator ({}) refuses {request} for \"{transactional_id}\" from producer id {producer_id} at epoch {epoch}: {error}.",
            n(coordinator)
        ),
        Note::TxnFencedByNewInstance {
            coordinator,
            transactional_id,
        } => format!(
            "A new instance of \"{transactional_id}\" initialises: the coordinator ({}) bumps the epoch, fencing the old one, and aborts its open transaction (under transaction protocol 2 the abort's end bumps the epoch once more).",
            n(coordinator)
        ),
        Note::TxnTimedOut {
            coordinator,
            transactional_id,
            timeout_ms,
            scan_interval_ms,
            overdue,
        } => format!(
            "The coordinator ({}) checks for timed-out transactions (every {scan_interval_ms} ms, transaction.abort.timed.out.transaction.cleanup.interval.ms) and finds \"{transactional_id}\" open {} past its transaction.timeout.ms ({timeout_ms} ms): it fences the producer (an epoch bump) and aborts the transaction (under transaction protocol 2 its end bumps the epoch once more).",
            n(coordinator),
            format_duration(*overdue),
        ),
        Note::TxnRecovered {
            coordinator,
            transactional_id,
            state,
        } => format!(
            "The coordinator ({}) reloads __transaction_state: \"{transactional_id}\" is in {state}, so it sends the markers again.",
            n(coordinator)
        ),
        Note::TxnCoordinatorMoved { from, to, ids } => format!(
            "{} becomes the transaction coordinator in place of {}: the controller made it leader of the __transaction_state partition {} led, whose log every in-sync replica has. {}",
            n(to),
            n(from),
            n(from),
            if ids.is_empty() {
                "It holds no transaction yet.".to_string()
            } else {
                format!(
                    "It loads {} from that log and carries on with {}.",
                    ids.iter().map(|id| format!("\"{id}\"")).collect::<Vec<_>>().join(", "),
                    if ids.len() == 1 { "it" } else { "them" }
                )
            }
        ),
        Note::NotCoordinator {
            broker,
            transactional_id,
            coordinator,
            kind,
        } => format!(
            "{} no longer coordinates \"{transactional_id}\" ({} took its __transaction_state partition over): it answers the {} NOT_COORDINATOR, and the sender looks the coordinator up again.",
            n(broker),
            n(coordinator),
            message_name(*kind)
        ),
        Note::TxnCoordinatorFound {
            client,
            transactional_id,
            coordinator,
            resent,
        } => format!(
            "{} learns that the coordinator of \"{transactional_id}\" is now {} (FindCoordinator){}.",
            n(client),
            n(coordinator),
            match resent {
                Some(kind) => format!(", and sends its {} there", message_name(*kind)),
                None => String::new(),
            }
        ),
        Note::TxnEndAnsweredAsRetry {
            coordinator,
            transactional_id,
            request,
            state,
            producer_id,
            epoch,
            same_epoch_as_new,
        } => format!(
            "The transaction coordinator ({}) finds \"{transactional_id}\" already in {state} (producer id {producer_id}, epoch {epoch}): it takes {request} for a retry and answers success without writing anything.{}",
            n(coordinator),
            if *same_epoch_as_new {
                " Under protocol 1 a retry and a new EndTxn at the same epoch look alike: a record written since the last marker gets none, and stays open."
            } else {
                ""
            }
        ),
        Note::MarkerWritten {
            broker,
            tp: t,
            producer_id,
            control,
            offset,
            ..
        } => format!(
            "{} writes {} {control} marker for producer id {producer_id} at offset {offset} of {}: the marker takes an offset; consumers fetch it but never hand it to the application.",
            n(broker),
            if *control == crate::kafka::txn_index::ControlType::Abort { "an" } else { "a" },
            tp(t)
        ),
        Note::MarkerRefused {
            broker,
            tp: t,
            producer_id,
            control,
            isr,
            min_insync,
        } => format!(
            "{} refuses the {control} marker for producer id {producer_id} on {} (NOT_ENOUGH_REPLICAS): markers are written with acks=-1, and only {} in sync ({}), fewer than min.insync.replicas={min_insync}. read_committed readers of {} wait for the marker.",
            n(broker),
            tp(t),
            counted(isr.len() as u64, "replica is", "replicas are"),
            brokers_list(isr),
            tp(t)
        ),
        Note::MarkerWaitsForReplicas {
            broker,
            tp: t,
            offset,
            control,
        } => format!(
            "{} holds its answer to the transaction coordinator until the in-sync replicas of {} have the {control} marker at offset {offset} (markers are written with acks=-1), for at most request.timeout.ms (30 s).",
            n(broker),
            tp(t)
        ),
        Note::MarkersRetried {
            coordinator,
            transactional_id,
            control,
            partitions,
            error,
            backoff_ms,
            attempt,
        } => {
            let list: Vec<String> = partitions.iter().map(&tp).collect();
            if *attempt == 0 {
                format!(
                    "The transaction coordinator ({}) sends \"{transactional_id}\"'s {control} marker for {} again in {backoff_ms} ms: {} is retriable. The transaction is decided; only its markers wait. (Kafka queues them again at once; the simulator backs off, doubling up to 1 s.)",
                    n(coordinator),
                    list.join(", "),
                    error.name()
                )
            } else {
                // "again" once: the error is the one repeated.
                format!(
                    "The transaction coordinator ({}) retries \"{transactional_id}\"'s {control} marker for {} in {backoff_ms} ms: {} again (retry {}).",
                    n(coordinator),
                    list.join(", "),
                    error.name(),
                    attempt + 1
                )
            }
        }
        Note::TxnOffsetsPending {
            broker,
            group,
            producer_id,
            offsets,
        } => {
            let list: Vec<String> = offsets.iter().map(|(t, o)| format!("{} → {o}", tp(t))).collect();
            format!(
                "{} holds the offsets of group \"{group}\" ({}) as pending, inside producer id {producer_id}'s transaction.",
                n(broker),
                list.join(", ")
            )
        }
        Note::TxnOffsetsCompleted {
            broker,
            producer_id,
            control,
            offsets,
        } => {
            let list: Vec<String> = offsets.iter().map(|(_, t, o)| format!("{} → {o}", tp(t))).collect();
            match (control, list.is_empty()) {
                (crate::kafka::txn_index::ControlType::Commit, true) => format!(
                    "{} commits producer id {producer_id}'s transaction: no offsets were pending.",
                    n(broker)
                ),
                (crate::kafka::txn_index::ControlType::Commit, false) => format!(
                    "{} commits producer id {producer_id}'s transactional offsets: {}.",
                    n(broker),
                    list.join(", ")
                ),
                (crate::kafka::txn_index::ControlType::Abort, true) => format!(
                    "{} aborts producer id {producer_id}'s transaction: no offsets were pending, so the group keeps its committed ones.",
                    n(broker)
                ),
                (crate::kafka::txn_index::ControlType::Abort, false) => format!(
                    "{} drops producer id {producer_id}'s pending offsets ({}): the transaction aborted, so the group keeps its committed ones.",
                    n(broker),
                    list.join(", ")
                ),
            }
        }
        Note::TxnBegun {
            producer,
            transactional_id,
            number,
        } => format!(
            "{} begins transaction {} of \"{transactional_id}\" (beginTransaction: nothing is sent yet).",
            n(producer),
            number + 1
        ),
        Note::TxnRetry {
            producer,
            error: KafkaError::NotCoordinator,
            backoff,
        } => format!(
            "{} is told NOT_COORDINATOR: it asks again in {}, where the coordinator is now.",
            n(producer),
            format_duration(*backoff)
        ),
        Note::TxnRetry {
            producer,
            error,
            backoff,
        } => format!(
            "The coordinator answers {} with {error}: {} {} asks again in {}.",
            n(producer),
            match error {
                KafkaError::ConcurrentTransactions => "it is still ending the previous transaction.",
                _ => "it cannot answer yet.",
            },
            n(producer),
            format_duration(*backoff)
        ),
        Note::TxnRequestSent { producer, what } => {
            format!("{} sends {what}.", n(producer))
        }
        Note::TxnEnded {
            producer,
            transactional_id,
            commit,
            records: ids,
            new_epoch,
        } => {
            // What the producer believes: a v1 EndTxn answered as a retry covers less.
            let held = match ids.len() {
                0 => " (it held no records)".to_string(),
                1 => format!(": as far as it knows, so is {}", records(names, ids)),
                _ => format!(": as far as it knows, so are {}", records(names, ids)),
            };
            format!(
                "{} is told that \"{transactional_id}\" is {}{held}. It goes on with epoch {new_epoch}.",
                n(producer),
                if *commit { "committed" } else { "aborted" },
            )
        }
        Note::ProducerFenced {
            producer,
            error,
            records: ids,
        } => format!(
            "{} is fenced ({error}): its epoch is over, because a newer instance took its transactional id or the coordinator aborted its transaction at the timeout (the error does not say which). It closes; {} of its transaction will never be committed.",
            n(producer),
            records(names, ids)
        ),
        Note::ConsumerStopped { consumer } => format!("{} stops polling.", n(consumer)),
        Note::Processed {
            processor,
            guarantee,
            inputs,
        } => {
            let how = match guarantee.as_str() {
                "at-most-once" => "its input offsets are already committed",
                "at-least-once" => "it will commit its input offsets once its outputs are acknowledged",
                _ => "outputs and input offsets go into one transaction",
            };
            format!(
                "{} transforms {} and hands the outputs to its producer ({guarantee}: {how}).",
                n(processor),
                records(names, inputs)
            )
        }
        Note::OffsetsCommitted {
            broker,
            consumer,
            group,
            offsets,
        } => {
            let list: Vec<String> = offsets
                .iter()
                .map(|(t, o)| format!("{} → {o}", tp(t)))
                .collect();
            // The consumer and its group often share a name: say it once.
            let by = if names.node(*consumer) == *group {
                String::new()
            } else {
                format!(" for {}", n(consumer))
            };
            format!(
                "{} stores group \"{group}\"'s position{by}: {} (the next offset to read).",
                n(broker),
                list.join(", ")
            )
        }
        Note::ResumedFromCommitted {
            consumer,
            group,
            offsets,
            reset,
        } => {
            use crate::kafka::OffsetReset;
            let list: Vec<String> = offsets
                .iter()
                .map(|(t, o)| match (o, reset) {
                    (Some(o), _) => format!("{} at offset {o}, the group's committed offset", tp(t)),
                    (None, OffsetReset::Earliest) => format!(
                        "{} at the log's start (nothing committed yet; auto.offset.reset=earliest, where the Java client's default, latest, would skip what is already there)",
                        tp(t)
                    ),
                    (None, OffsetReset::Latest) => format!(
                        "{} where the log ends (nothing committed yet; auto.offset.reset=latest)",
                        tp(t)
                    ),
                    (None, OffsetReset::Fail) => format!(
                        "{} from no offset at all (nothing committed yet, and auto.offset.reset=none)",
                        tp(t)
                    ),
                })
                .collect();
            // The simulator's group members are static (`group.instance.id`): a restarted
            // one takes its partitions back at once. A dynamic member would wait for the
            // group to expire its dead predecessor (session.timeout.ms, 45 s) and rebalance.
            format!(
                "{} joins group \"{group}\" as a static member (group.instance.id: after a restart it takes its partitions back at once, with no rebalance) and reads {}.",
                n(consumer),
                list.join(", ")
            )
        }
        Note::MessageDropped {
            from,
            to,
            kind,
            label,
            why,
            ..
        } => {
            let why = match why {
                DropReason::Fault => "a scheduled fault",
                DropReason::Partitioned => "the link is cut",
                DropReason::RandomLoss => "random loss on the link",
                DropReason::StalledConnection => {
                    "stuck behind a message lost earlier on the same connection"
                }
            };
            format!(
                "The network drops the {} \"{label}\" from {} to {} ({why}).",
                message_name(*kind),
                n(from),
                n(to)
            )
        }
        Note::AckLost {
            broker,
            producer,
            tp: t,
            base_offset,
            behind: false,
            ..
        } => format!(
            "The network loses {}'s acknowledgement to {}: the record IS at offset {base_offset} of {}, but the producer will never hear so. The connection is stuck: TCP delivers in order, so nothing after it arrives either.",
            n(broker),
            n(producer),
            tp(t)
        ),
        Note::AckLost {
            broker,
            producer,
            tp: t,
            base_offset,
            behind: true,
            ..
        } => format!(
            "{}'s acknowledgement to {} is stuck behind the lost one on the same connection: the record IS at offset {base_offset} of {}, but the producer will not hear so.",
            n(broker),
            n(producer),
            tp(t)
        ),
        Note::MessageDelayed {
            from,
            to,
            kind,
            extra,
        } => format!(
            "The network delays the {} from {} to {} by {}.",
            message_name(*kind),
            n(from),
            n(to),
            format_duration(*extra)
        ),
        Note::MessageDuplicated {
            from,
            to,
            kind,
            extra,
        } => format!(
            "The network will deliver the {} from {} to {} twice (the copy {} later): a stand-in for a late copy of a request, as when a client resends one whose first copy sat stuck somewhere; TCP itself never delivers a request twice.",
            message_name(*kind),
            n(from),
            n(to),
            format_duration(*extra)
        ),
        Note::CopyArrived {
            from,
            to,
            kind,
            sent_at,
        } => format!(
            "The late copy of the {} from {}, sent at {}, reaches {}, which cannot tell it from a new request.",
            message_name(*kind),
            n(from),
            format_duration(*sent_at),
            n(to)
        ),
        Note::HeldWhileFrozen { node, kind } => format!(
            "{} is frozen: the {} waits in its socket buffer.",
            n(node),
            message_name(*kind)
        ),
        Note::LostAtCrashedNode { node, kind } => format!(
            "{} is down: the {} is lost.",
            n(node),
            message_name(*kind)
        ),
        Note::Frozen { node, duration } => format!(
            "{} freezes for {} (like docker pause: connections stay open, nothing is processed).",
            n(node),
            format_duration(*duration)
        ),
        Note::Thawed { node, held: 0 } => format!(
            "{} wakes up: no message arrived while it was frozen.",
            n(node)
        ),
        Note::Thawed { node, held } => format!(
            "{} wakes up and handles the {} that arrived while it was frozen, in order.",
            n(node),
            counted(*held, "message", "messages")
        ),
        Note::Crashed {
            node: node @ NodeId::Broker(_),
        } => format!(
            "{} crashes: whatever it held in memory is gone; its log on disk stays. Nothing answers for it, not even a refused connection (as when its host drops off the network), so clients hear nothing until their requests time out.",
            n(node)
        ),
        Note::Crashed { node } => format!("{} crashes: whatever it held in memory is gone.", n(node)),
        Note::Restarted { node } => format!("{} restarts.", n(node)),
        Note::FaultArmed { description } => format!("Fault armed: {description}."),
        Note::LinkCut { a, b } => format!("The link between {} and {} is cut.", n(a), n(b)),
        Note::LinkHealed { a, b } => format!("The link between {} and {} is healed.", n(a), n(b)),
    }
}

/// `broker 0, broker 2`.
fn brokers_list(ids: &[u8]) -> String {
    ids.iter()
        .map(|b| format!("broker {b}"))
        .collect::<Vec<_>>()
        .join(", ")
}
