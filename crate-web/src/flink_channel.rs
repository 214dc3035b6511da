//! A Flink channel in the inspector: what it joins, how full it is, why it is blocked, and
//! every record and barrier in it, in order, with when each arrives. Pure, tested natively.

use crate::i18n::{duration, Lang, S};
use crate::view_model::inspector::InspectorVm;
use eos_core::flink::record::Item;
use eos_core::flink::CheckpointMode;
use eos_core::ids::NodeId;
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
        // The receiver's inputs that carry barriers (an iteration's loop edge carries none).
        let regular = job.topology.tasks.get(usize::from(def.to)).map_or(0, |t| {
            t.inputs
                .iter()
                .filter(|c| job.topology.channels.get(**c).is_some_and(|d| !d.loop_edge))
                .count()
        });
        let waiting = regular.saturating_sub(align.map_or(0, |a| a.received.len()));
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
    let mut hidden = 0usize;
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
            Item::Record(r) => {
                let mut parts = vec![S::RecordN.f(lang, &[&sim.names.record(r.id)])];
                if let Some(k) = sim.names.key(r.key) {
                    parts.push(S::KeyN.f(lang, &[&k]));
                }
                if r.count > 0 {
                    parts.push(S::CountN.f(lang, &[&r.count]));
                }
                if r.passes > 0 {
                    parts.push(S::PassesN.f(lang, &[&r.passes]));
                }
                parts.join(" · ")
            }
            Item::Barrier { id, triggered_at } => S::BarrierOf.f(lang, &[&id, &dur(triggered_at)]),
        };
        rows.push((format!("{}.", n + 1), format!("{what} · {when}")));
    }
    more(&mut rows, &mut hidden, ch.queue.len());
    let mut notes = vec![S::ChannelWhat.f(lang, &[&ch.capacity, &dur(job.config.channel_latency)])];
    if def.loop_edge {
        notes.push(S::LoopEdgeWhy.get(lang).to_string());
    } else if ch.blocked {
        notes.push(S::BlockedWhy.get(lang).to_string());
    } else if job.config.mode == CheckpointMode::AtLeastOnce
        && align.is_some_and(|a| a.received.contains(&i))
    {
        notes.push(S::NotBlockedAtLeastOnce.get(lang).to_string());
    }
    if ch.queue.is_empty() {
        notes.push(S::ChannelEmpty.get(lang).to_string());
    }
    vm(format!("{from} → {to}"), rows, notes)
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
        // One row per item, in the channel's order: records named as the stage names them.
        let listed: Vec<&(String, String)> =
            vm.rows.iter().filter(|(k, _)| k.ends_with('.')).collect();
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
