//! What a handler may ask for. Handlers never touch the clock, the RNG or the queue: they
//! push commands into a context, and the simulation carries them out.

use super::event::Timer;
use super::note::Note;
use crate::ids::{NodeId, Tp};
use crate::kafka::protocol::Message;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub enum Command {
    Send {
        from: NodeId,
        to: NodeId,
        msg: Message,
    },
    SetTimer {
        node: NodeId,
        after: SimTime,
        /// Spread the delay by up to ± this percentage, drawn from the simulation's RNG.
        jitter_percent: u8,
        /// The longest the spread delay may be (a client's backoff ceiling, applied after the
        /// jitter as Kafka's clients do).
        at_most: SimTime,
        timer: Timer,
    },
    Note(Note),
    /// A client closes its connection to a broker (after a request timeout) and will open a
    /// new one: whatever was stuck on the old one is gone, the new one flows.
    Disconnect {
        client: NodeId,
        broker: NodeId,
    },
    /// A client whose request timed out asks a live broker for fresh metadata (a producer
    /// does so with its `Disconnect`).
    RefreshMetadata {
        client: NodeId,
        /// Told NOT_COORDINATOR: it looks its transaction coordinator up (FindCoordinator,
        /// answered here with the metadata).
        find_coordinator: bool,
        /// A producer whose partitions have no leader asks again after its backoff.
        for_leader: bool,
    },
    /// A partition leader tells the controller its grown ISR (AlterPartition): the metadata
    /// every broker has takes it.
    AlterPartition {
        leader: u8,
        tp: Tp,
        isr: Vec<u8>,
    },
}

/// The handler's view of the world: the time, the step number, and an outbox.
pub struct Ctx<'a> {
    pub now: SimTime,
    /// The number the current step will have in the trace.
    pub step: u64,
    pub me: NodeId,
    out: &'a mut Vec<Command>,
}

impl<'a> Ctx<'a> {
    pub fn new(now: SimTime, step: u64, me: NodeId, out: &'a mut Vec<Command>) -> Self {
        Ctx { now, step, me, out }
    }

    pub fn send(&mut self, to: NodeId, msg: Message) {
        self.out.push(Command::Send {
            from: self.me,
            to,
            msg,
        });
    }

    /// Sends on behalf of another process (the controller moving data between brokers).
    pub fn send_as(&mut self, from: NodeId, to: NodeId, msg: Message) {
        self.out.push(Command::Send { from, to, msg });
    }

    pub fn set_timer(&mut self, after: SimTime, timer: Timer) {
        self.set_timer_jittered(after, 0, timer);
    }

    pub fn set_timer_jittered(&mut self, after: SimTime, jitter_percent: u8, timer: Timer) {
        self.set_timer_jittered_at_most(after, jitter_percent, SimTime::MAX, timer);
    }

    /// A jittered delay no longer than `at_most` (Kafka's clients spread a retry backoff,
    /// then cap it at `retry.backoff.max.ms`).
    pub fn set_timer_jittered_at_most(
        &mut self,
        after: SimTime,
        jitter_percent: u8,
        at_most: SimTime,
        timer: Timer,
    ) {
        self.out.push(Command::SetTimer {
            node: self.me,
            after,
            jitter_percent,
            at_most,
            timer,
        });
    }

    /// Wakes another process of the same job (a Flink task handing records downstream).
    pub fn set_timer_for(&mut self, node: NodeId, after: SimTime, timer: Timer) {
        self.set_timer_for_jittered(node, after, 0, SimTime::MAX, timer);
    }

    /// Another process's timer, spread by ± `jitter_percent` and capped at `at_most` (the
    /// JobManager's restart backoff).
    pub fn set_timer_for_jittered(
        &mut self,
        node: NodeId,
        after: SimTime,
        jitter_percent: u8,
        at_most: SimTime,
        timer: Timer,
    ) {
        self.out.push(Command::SetTimer {
            node,
            after,
            jitter_percent,
            at_most,
            timer,
        });
    }

    pub fn disconnect(&mut self, broker: NodeId) {
        self.out.push(Command::Disconnect {
            client: self.me,
            broker,
        });
    }

    pub fn refresh_metadata(&mut self) {
        self.refresh_metadata_for(self.me);
    }

    /// For a node that acts through another's handler (a Flink subtask through the job).
    pub fn refresh_metadata_for(&mut self, client: NodeId) {
        self.out.push(Command::RefreshMetadata {
            client,
            find_coordinator: false,
            for_leader: false,
        });
    }

    /// A producer holding batches for partitions with no leader asks again.
    pub fn refresh_metadata_for_leader(&mut self) {
        self.out.push(Command::RefreshMetadata {
            client: self.me,
            find_coordinator: false,
            for_leader: true,
        });
    }

    /// Told NOT_COORDINATOR: looks its transaction coordinator up again.
    pub fn find_coordinator(&mut self) {
        self.out.push(Command::RefreshMetadata {
            client: self.me,
            find_coordinator: true,
            for_leader: false,
        });
    }

    pub fn note(&mut self, note: Note) {
        self.out.push(Command::Note(note));
    }

    /// AlterPartition from leader `leader` of `tp`: the controller takes its new ISR.
    pub fn alter_partition(&mut self, leader: u8, tp: Tp, isr: Vec<u8>) {
        self.out.push(Command::AlterPartition { leader, tp, isr });
    }
}
