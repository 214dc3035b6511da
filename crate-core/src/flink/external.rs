//! The external systems behind the non-Kafka sinks. They live outside the job: a restart
//! does not roll them back.

use super::record::FRecord;
use crate::ids::RecordId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExternalStore {
    /// Upsert store: business key → (value, the record that wrote it last).
    #[serde(with = "crate::serde_pairs")]
    pub upserts: BTreeMap<u32, (u64, RecordId)>,
    pub upsert_writes: u64,
    /// Append-only log, in write order.
    pub appended: Vec<FRecord>,
}

impl ExternalStore {
    /// The value a record carries into a sink: a count if a counter produced it, else 1.
    pub fn value(r: &FRecord) -> u64 {
        r.count.max(1)
    }

    pub fn upsert(&mut self, r: &FRecord) {
        self.upsert_writes += 1;
        self.upserts
            .insert(r.key.unwrap_or(r.id.0), (Self::value(r), r.id));
    }

    pub fn append(&mut self, r: &FRecord) {
        self.appended.push(*r);
    }

    /// Copies of each record in the append log.
    pub fn appended_copies(&self) -> BTreeMap<RecordId, u32> {
        let mut m = BTreeMap::new();
        for r in &self.appended {
            *m.entry(r.id).or_insert(0) += 1;
        }
        m
    }
}
