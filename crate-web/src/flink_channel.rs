//! A Flink channel in the inspector: what it joins, how full it is, why it is blocked, and
//! every record and barrier in it, in order, with when each arrives. Pure, tested natively.

use crate::i18n::{duration, Lang, S};
use crate::view_model::inspector::{InspectorVm, Selection};
use eos_core::flink::job::Job;
use eos_core::flink::record::{FRecord, Item};
use eos_core::flink::CheckpointMode;
use eos_core::ids::{NodeId, RecordId};
use eos_core::sim::Simulation;

/// Items listed one by one; the rest are counted.
pub const ITEMS_LISTED: usize = 24;

/// Channel `index` (the job graph's numbering), as the job has it now.
pub fn inspect(sim: &Simulation, index: u16, lang: Lang) -> InspectorVm {
    let vm = |title: String, rows, notes| InspectorVm {
        kind: "flink-channel",
        title,
        rows,
        notes,
        message: None,
        picks: Vec::new(),
        steps: Vec::new(),
    };
    let Some(job) = sim.flink.as_ref() else {
        return vm(
            S::Channel.get(lang).to_string(),
            Vec::new(),
            vec![S::NoFlinkJob.get(lang).to_string()],
        );
    };
    let i = usize::from(index);
    let (Some(def), Some(ch)) = (job.topology.channels.get(i), job.channels.get(i)) else {
        return vm(
            S::Channel.get(lang).to_string(),
            Vec::new(),
            vec![S::NoChannel.get(lang).to_string()],
        );
    };
    let task = |t: u8| sim.names.node(NodeId::Task(t));
    let (from, to) = (task(def.from), task(def.to));
    let now = sim.last_step_at();
    // "263 ms" kept on one line.
    let dur = |t| duration(t, lang).replace(' ', "\u{a0}");
    let row = |k: S, v: String| (k.get(lang).to_string(), v);
    let barriers = ch.queue.len().saturating_sub(ch.records());
    let mut fill = S::ChannelFill.f(lang, &[&ch.records(), &ch.capacity]);
    if barriers > 0 {
        fill.push_str(&S::PlusBarriers.f(lang, &[&barriers]));
    }
    let mut rows = vec![
        row(S::From, from.clone()),
        row(S::To, to.clone()),
        row(S::InTheChannel, fill),
        row(S::SoFar, S::SentTaken.f(lang, &[&ch.pushed, &ch.popped])),
    ];
    // Why it is blocked: the receiver's alignment, the barrier that came in here first.
    let align = job
        .tasks
        .get(usize::from(def.to))
        .and_then(|t| t.align.as_ref());
    if ch.blocked {
        let waiting =
            barrier_inputs(job, def.to).saturating_sub(align.map_or(0, |a| a.received.len()));
        rows.push(row(
            S::BlockedRow,
            match align {
                Some(a) => S::BlockedBy.f(lang, &[&a.id, &dur(a.first_at), &waiting]),
                None => S::Yes.get(lang).to_string(),
            },
        ));
    }
    // The first `ITEMS_LISTED` items, then the records past them counted; a barrier is
    // always listed, however far back it waits (as the stage draws it).
    let (mut hidden, mut picks) = (0usize, Vec::new());
    let more = |rows: &mut Vec<(String, String)>, hidden: &mut usize, at: usize| {
        if *hidden > 0 {
            rows.push((
                format!("{}–{}.", at - *hidden + 1, at),
                S::MoreItems.f(lang, &[hidden]),
            ));
            *hidden = 0;
        }
    };
    for (n, slot) in ch.queue.iter().enumerate() {
        if n >= ITEMS_LISTED && matches!(slot.item, Item::Record(_)) {
            hidden += 1;
            continue;
        }
        more(&mut rows, &mut hidden, n);
        let when = if slot.at <= now {
            S::ArrivedAt.f(lang, &[&dur(slot.at)])
        } else {
            S::ArrivesAt.f(lang, &[&dur(slot.at)])
        };
        let what = match slot.item {
            Item::Record(r) => record_words(sim, &r, lang),
            Item::Barrier { id, triggered_at } => S::BarrierOf.f(lang, &[&id, &dur(triggered_at)]),
        };
        // Each item opens from its row too (the stage's items take a click, not the focus).
        picks.push((
            rows.len(),
            match slot.item {
                Item::Record(r) => Selection::FlinkRecord(r.id),
                Item::Barrier { id, .. } => Selection::Checkpoint(id),
            },
        ));
        rows.push((format!("{}.", n + 1), format!("{what} · {when}")));
    }
    more(&mut rows, &mut hidden, ch.queue.len());
    let mut notes = vec![S::ChannelWhat.f(lang, &[&ch.capacity, &dur(job.config.channel_latency)])];
    notes.extend(channel_why(job, i).map(|why| why.get(lang).to_string()));
    if ch.queue.is_empty() {
        notes.push(S::ChannelEmpty.get(lang).to_string());
    }
    InspectorVm {
        picks,
        steps: Vec::new(),
        ..vm(format!("{from} → {to}"), rows, notes)
    }
}

/// What holds for whatever is in channel `i` now: a loop edge's records are in no snapshot; a
/// blocked channel's wait for the alignment; AT_LEAST_ONCE lets its receiver, which took
/// this channel's barrier and waits for the others, take them before its snapshot.
fn channel_why(job: &Job, i: usize) -> Option<S> {
    let (def, ch) = (job.topology.channels.get(i)?, job.channels.get(i)?);
    let align = job
        .tasks
        .get(usize::from(def.to))
        .and_then(|t| t.align.as_ref());
    if def.loop_edge {
        Some(S::LoopEdgeWhy)
    } else if ch.blocked {
        Some(S::BlockedWhy)
    } else if job.config.mode == CheckpointMode::AtLeastOnce
        && align.is_some_and(|a| a.received.contains(&i))
    {
        Some(S::NotBlockedAtLeastOnce)
    } else {
        None
    }
}

/// How many of a task's inputs carry barriers, as the job aligns them.
fn barrier_inputs(job: &Job, task: u8) -> usize {
    job.regular_inputs(usize::from(task)).len()
}

/// "record v3 · key k1 · count 2", as the channel lists it.
fn record_words(sim: &Simulation, r: &FRecord, lang: Lang) -> String {
    let mut parts = vec![S::RecordN.f(lang, &[&sim.names.record(r.id)])];
    parts.extend(record_content(sim, r, lang));
    parts.join(" · ")
}

/// What a record carries besides its name: its key, a count, passes to go.
fn record_content(sim: &Simulation, r: &FRecord, lang: Lang) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(k) = sim.names.key(r.key) {
        parts.push(S::KeyN.f(lang, &[&k]));
    }
    if r.count > 0 {
        parts.push(S::CountN.f(lang, &[&r.count]));
    }
    if r.passes > 0 {
        parts.push(S::PassesN.f(lang, &[&r.passes]));
    }
    parts
}

/// A record on its way through the job, by the input record it derives from: each channel
/// that holds a copy of it now (its place there, when it arrives, what it carries, the
/// barrier ahead of it), and its ledger so far. The selection follows it from channel to
/// channel as the run steps.
pub fn inspect_record(sim: &Simulation, id: RecordId, lang: Lang) -> InspectorVm {
    let name = sim.names.record(id);
    let mut vm = InspectorVm {
        kind: "flink-record",
        title: S::FlinkRecordTitle.f(lang, &[&name]),
        rows: Vec::new(),
        notes: Vec::new(),
        message: None,
        picks: Vec::new(),
        steps: Vec::new(),
    };
    let Some(job) = sim.flink.as_ref() else {
        vm.notes.push(S::NoFlinkJob.get(lang).to_string());
        return vm;
    };
    let now = sim.last_step_at();
    let dur = |t| duration(t, lang).replace(' ', "\u{a0}");
    let row = |k: S, v: String| (k.get(lang).to_string(), v);
    let task = |t: u8| sim.names.node(NodeId::Task(t));
    for (i, (def, ch)) in job.topology.channels.iter().zip(&job.channels).enumerate() {
        let (mut barrier_ahead, mut nth) = (None, 0);
        for slot in &ch.queue {
            let r = match slot.item {
                Item::Barrier { id, .. } => {
                    barrier_ahead = Some(id);
                    continue;
                }
                Item::Record(r) => {
                    nth += 1;
                    if r.id != id {
                        continue;
                    }
                    r
                }
            };
            let place = format!("{} → {}", task(def.from), task(def.to));
            let of = S::ItemNOf.f(lang, &[&nth, &ch.records()]);
            vm.rows.push(row(S::WhereNow, format!("{place} · {of}")));
            vm.rows.push(row(
                S::WhenRow,
                if slot.at <= now {
                    S::ArrivedAt.f(lang, &[&dur(slot.at)])
                } else {
                    S::ArrivesAt.f(lang, &[&dur(slot.at)])
                },
            ));
            let content = record_content(sim, &r, lang);
            if !content.is_empty() {
                vm.rows.push(row(S::Carries, content.join(" · ")));
            }
            // Behind a barrier it is after that checkpoint's cut, unless AT_LEAST_ONCE lets
            // a task with several inputs take it before the barrier is in on all of them.
            if let Some(b) = barrier_ahead {
                let note = if job.config.mode == CheckpointMode::AtLeastOnce
                    && barrier_inputs(job, def.to) > 1
                {
                    S::BehindBarrierAtLeastOnce.f(lang, &[&place, &b, &task(def.to)])
                } else {
                    S::BehindBarrier.f(lang, &[&place, &b])
                };
                vm.notes.push(note);
            }
            vm.notes
                .extend(channel_why(job, i).map(|why| why.get(lang).to_string()));
        }
    }
    let times = |m: &std::collections::BTreeMap<RecordId, u32>| m.get(&id).copied().unwrap_or(0);
    // Why no channel holds it: not read yet, or in a task, out through a sink, or (after
    // a failover) dropped with the channels, to be read again from the restored offsets.
    if vm.rows.is_empty() {
        vm.notes.push(if times(&job.read) == 0 {
            S::NotReadYet.f(lang, &[&name])
        } else if job.failovers > 0 {
            S::InNoChannelSinceFailover.f(lang, &[&name])
        } else {
            S::InNoChannel.f(lang, &[&name])
        });
    }
    vm.rows.push(row(
        S::ReadBySource,
        S::TimesN.f(lang, &[&times(&job.read)]),
    ));
    if job.counted.values().any(|n| *n > 0) {
        vm.rows.push(row(
            S::CountedInState,
            S::TimesN.f(lang, &[&times(&job.counted)]),
        ));
    }
    vm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::inspector::tests::value;
    use eos_core::builtin;

    fn sim(name: &str) -> Simulation {
        builtin::get(name).expect("built-in").simulation(None)
    }

    #[test]
    fn a_blocked_channel_lists_its_buffered_records_and_says_which_barrier_blocks_it() {
        let mut s = sim("flink-alignment-two-inputs");
        let job = |s: &Simulation| s.flink.clone().expect("a job");
        while !job(&s)
            .channels
            .iter()
            .any(|c| c.blocked && c.records() > 1)
        {
            assert!(!s.is_finished(), "the fast input never blocks");
            s.step();
        }
        let j = job(&s);
        let i = j
            .channels
            .iter()
            .position(|c| c.blocked && c.records() > 1)
            .expect("blocked");
        let ch = &j.channels[i];
        let vm = inspect(&s, i as u16, Lang::En);
        assert_eq!(vm.kind, "flink-channel");
        let names = j.task_names();
        let def = &j.topology.channels[i];
        assert_eq!(
            vm.title,
            format!(
                "{} → {}",
                names[usize::from(def.from)],
                names[usize::from(def.to)]
            )
        );
        assert!(value(&vm, "in the channel").starts_with(&format!(
            "{}/{} records",
            ch.records(),
            ch.capacity
        )));
        let id = j.tasks[usize::from(def.to)]
            .align
            .as_ref()
            .expect("aligning")
            .id;
        assert!(
            value(&vm, "blocked").starts_with(&format!("by barrier {id}")),
            "{vm:?}"
        );
        // One row per item, in the channel's order: records named as the stage names them,
        // each row opening its item (a record followed, a barrier's checkpoint).
        let listed: Vec<&(String, String)> =
            vm.rows.iter().filter(|(k, _)| k.ends_with('.')).collect();
        let opens: Vec<Selection> = ch
            .queue
            .iter()
            .take(ITEMS_LISTED)
            .map(|slot| match slot.item {
                Item::Record(r) => Selection::FlinkRecord(r.id),
                Item::Barrier { id, .. } => Selection::Checkpoint(id),
            })
            .collect();
        assert_eq!(vm.picks.iter().map(|p| p.1).collect::<Vec<_>>(), opens);
        assert!(vm
            .picks
            .iter()
            .all(|(row, _)| vm.rows[*row].0.ends_with('.')));
        assert_eq!(listed.len(), ch.queue.len().min(ITEMS_LISTED));
        for ((_, v), slot) in listed.iter().zip(&ch.queue) {
            match slot.item {
                Item::Record(r) => assert!(
                    v.starts_with(&format!("record {}", s.names.record(r.id))),
                    "{v}"
                ),
                Item::Barrier { id, .. } => {
                    assert!(v.starts_with(&format!("barrier {id}")), "{v}")
                }
            }
        }
        assert!(vm.notes.iter().any(|n| n.contains("aligned")), "{vm:?}");
        // The Russian view has the same rows.
        let ru = inspect(&s, i as u16, Lang::Ru);
        assert_eq!(ru.rows.len(), vm.rows.len());
        assert_ne!(ru.rows[0].0, vm.rows[0].0);
    }

    #[test]
    fn a_barrier_far_back_in_a_full_channel_is_listed_with_the_records_before_it_counted() {
        let mut s = sim("flink-backpressure-aligned");
        let far_barrier = |s: &Simulation| {
            s.flink.as_ref().and_then(|j| {
                j.channels.iter().enumerate().find_map(|(i, c)| {
                    c.queue
                        .iter()
                        .position(|x| matches!(x.item, Item::Barrier { .. }))
                        .filter(|at| *at > ITEMS_LISTED)
                        .map(|at| (i, at))
                })
            })
        };
        let (i, at) = loop {
            if let Some(found) = far_barrier(&s) {
                break found;
            }
            assert!(!s.is_finished(), "no barrier waits behind a full buffer");
            s.step();
        };
        let vm = inspect(&s, i as u16, Lang::En);
        let Some(Item::Barrier { id, .. }) = s.flink.as_ref().map(|j| j.channels[i].queue[at].item)
        else {
            panic!("a barrier")
        };
        assert!(
            value(&vm, &format!("{}.", at + 1))
                .starts_with(&format!("barrier {id} (triggered at ")),
            "{vm:#?}"
        );
        assert_eq!(
            value(&vm, &format!("{}–{at}.", ITEMS_LISTED + 1)),
            format!("records not listed: {}", at - ITEMS_LISTED)
        );
    }

    /// The first channel holding a record with a barrier ahead of it: (channel, record).
    fn behind_a_barrier(s: &Simulation) -> Option<(usize, FRecord)> {
        behind_a_barrier_into(s, |_| true)
    }

    /// The same, in a channel into a task whose number of barrier inputs passes `inputs`.
    fn behind_a_barrier_into(
        s: &Simulation,
        inputs: impl Fn(usize) -> bool,
    ) -> Option<(usize, FRecord)> {
        let job = s.flink.as_ref()?;
        job.channels.iter().enumerate().find_map(|(i, c)| {
            if !inputs(barrier_inputs(job, job.topology.channels[i].to)) {
                return None;
            }
            let b = c
                .queue
                .iter()
                .position(|x| matches!(x.item, Item::Barrier { .. }))?;
            c.queue.iter().skip(b).find_map(|x| match x.item {
                Item::Record(r) => Some((i, r)),
                Item::Barrier { .. } => None,
            })
        })
    }

    #[test]
    fn a_record_is_found_in_its_channel_and_followed_until_it_leaves_the_channels() {
        let mut s = sim("flink-alignment-two-inputs");
        let (i, r) = loop {
            if let Some(found) = behind_a_barrier(&s) {
                break found;
            }
            assert!(!s.is_finished(), "no record ever waits behind a barrier");
            s.step();
        };
        let job = s.flink.clone().expect("a job");
        let (ch, def) = (&job.channels[i], &job.topology.channels[i]);
        let names = job.task_names();
        let vm = inspect_record(&s, r.id, Lang::En);
        assert_eq!(vm.kind, "flink-record");
        assert_eq!(
            vm.title,
            format!("Record {} in the job", s.names.record(r.id))
        );
        // Its place among the channel's records (barriers are not counted, as on the stage).
        let nth = ch
            .queue
            .iter()
            .filter(|x| matches!(x.item, Item::Record(_)))
            .position(|x| x.item == Item::Record(r))
            .expect("in the channel")
            + 1;
        let place = format!(
            "{} → {}",
            names[usize::from(def.from)],
            names[usize::from(def.to)]
        );
        assert_eq!(
            value(&vm, "where"),
            format!(
                "{place} · record\u{a0}{}\u{a0}of\u{a0}{}",
                nth,
                ch.records()
            )
        );
        assert!(value(&vm, "content").starts_with("key "), "{vm:?}");
        assert!(value(&vm, "when").contains(" at "), "{vm:?}");
        assert_eq!(value(&vm, "read by a source"), "1×");
        assert!(
            vm.notes.iter().any(
                |n| n.starts_with(&format!("In {place} it is behind barrier"))
                    && n.contains("none of its snapshots")
            ),
            "{vm:?}"
        );
        // Stepped on, the same selection finds it wherever it is, until no channel holds it.
        let in_a_channel = |s: &Simulation| {
            s.flink.as_ref().is_some_and(|j| {
                j.channels.iter().any(|c| {
                    c.queue
                        .iter()
                        .any(|x| matches!(x.item, Item::Record(q) if q.id == r.id))
                })
            })
        };
        while in_a_channel(&s) {
            assert!(!s.is_finished(), "the record never leaves the channels");
            s.step();
        }
        let gone = inspect_record(&s, r.id, Lang::En);
        assert!(gone.rows.iter().all(|(k, _)| k != "where"), "{gone:?}");
        assert!(
            gone.notes[0].contains("is in no channel at this step"),
            "{gone:?}"
        );
        let ru = inspect_record(&s, r.id, Lang::Ru);
        assert_eq!(ru.rows.len(), gone.rows.len());
        assert!(ru.notes[0].contains("нет ни в одном канале"), "{ru:?}");
    }

    #[test]
    fn under_at_least_once_a_record_behind_a_barrier_may_be_counted_twice_and_its_reads_show_a_replay(
    ) {
        let mut s = sim("flink-at-least-once-overcount");
        let mut said = false;
        let (mut plain, mut past_cut) = (false, false);
        while !s.is_finished() {
            if let Some((_, r)) = behind_a_barrier_into(&s, |n| n > 1) {
                let vm = inspect_record(&s, r.id, Lang::En);
                said |= vm.notes.iter().any(|n| {
                    n.contains("AT_LEAST_ONCE does not hold it back")
                        && n.contains("processes it again")
                });
            }
            // Past its channel's barrier, taken by a task still waiting for its other input:
            // AT_LEAST_ONCE lets it in before the snapshot.
            if let Some(j) = s.flink.as_ref() {
                for (i, c) in j.channels.iter().enumerate() {
                    let to = usize::from(j.topology.channels[i].to);
                    let taken = j.tasks[to]
                        .align
                        .as_ref()
                        .is_some_and(|a| a.received.contains(&i));
                    let first = c.queue.iter().find_map(|x| match x.item {
                        Item::Record(r) => Some(r),
                        Item::Barrier { .. } => None,
                    });
                    if let (true, Some(r)) = (taken, first) {
                        let vm = inspect_record(&s, r.id, Lang::En);
                        let let_in = vm
                            .notes
                            .iter()
                            .any(|n| n.starts_with("AT_LEAST_ONCE blocks no channel"));
                        assert!(let_in, "{vm:?}");
                        past_cut = true;
                    }
                }
            }
            // A task with one input snapshots as soon as it takes the barrier: what is behind
            // it is after the cut under AT_LEAST_ONCE too.
            if let Some((_, r)) = behind_a_barrier_into(&s, |n| n == 1) {
                let vm = inspect_record(&s, r.id, Lang::En);
                assert!(
                    vm.notes.iter().all(|n| !n.contains("AT_LEAST_ONCE")),
                    "{vm:?}"
                );
                plain |= vm.notes.iter().any(|n| n.contains("none of its snapshots"));
            }
            s.step();
        }
        assert!(
            said,
            "no record was seen behind a barrier under AT_LEAST_ONCE"
        );
        assert!(
            plain,
            "no record was seen behind a barrier into a one-input task"
        );
        assert!(past_cut, "no record was seen past a barrier its task took");
        // The restore replayed what the sources had read since the checkpoint: such a record
        // says it was read twice, and how often keyed state counted it.
        let job = s.flink.clone().expect("a job");
        let (id, n) = job
            .read
            .iter()
            .find(|(_, n)| **n > 1)
            .map(|(id, n)| (*id, *n))
            .expect("a record read again after the restore");
        let vm = inspect_record(&s, id, Lang::En);
        assert_eq!(value(&vm, "read by a source"), format!("{n}×"));
        let counted = job.counted.get(&id).copied().unwrap_or(0);
        assert_eq!(
            value(&vm, "counted into keyed state"),
            format!("{counted}×")
        );
        // At the end no channel holds it; after a failover that may be why.
        assert!(job.failovers > 0);
        assert!(vm.notes[0].contains("a failover dropped it"), "{vm:?}");
        // Before the run, no source has read it.
        let fresh = sim("flink-at-least-once-overcount");
        let unread = inspect_record(&fresh, id, Lang::En);
        assert_eq!(value(&unread, "read by a source"), "0×");
        assert!(
            unread.notes[0].starts_with("No source has read "),
            "{unread:?}"
        );
    }

    #[test]
    fn a_channel_that_is_not_there_says_so() {
        let s = sim("flink-alignment-two-inputs");
        let vm = inspect(&s, 999, Lang::En);
        assert!(vm.rows.is_empty());
        assert!(vm.notes[0].contains("No such channel"), "{vm:?}");
        let kafka = sim("seed-commit-abort");
        assert!(inspect(&kafka, 0, Lang::En).notes[0].contains("no Flink job"));
    }
}
