//! The event queue: every future happening (a message delivery, a timer, a scripted fault) is an
//! item keyed by (virtual time in ms, sequence number), so ties break by insertion order and the
//! run is the same on every target.
use alloc::collections::BTreeMap;

/// A deterministic priority queue of items ordered by `(time_ms, seq)`.
#[derive(Clone, Debug)]
pub struct Queue<T> {
    items: BTreeMap<(u64, u64), T>,
    next_seq: u64,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue { items: BTreeMap::new(), next_seq: 0 }
    }
}

impl<T> Queue<T> {
    /// Schedules `item` at `time_ms`; returns its sequence number.
    pub fn push(&mut self, time_ms: u64, item: T) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.items.insert((time_ms, seq), item);
        seq
    }

    /// Removes and returns the earliest item.
    pub fn pop(&mut self) -> Option<(u64, T)> {
        self.items.pop_first().map(|((t, _), v)| (t, v))
    }

    /// The time of the earliest item.
    pub fn peek_time(&self) -> Option<u64> {
        self.items.keys().next().map(|(t, _)| *t)
    }

    /// All queued items in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        self.items.iter().map(|((t, _), v)| (*t, v))
    }

    /// Number of queued items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = Queue::default();
        q.push(10, 'c');
        q.push(5, 'a');
        q.push(10, 'd');
        q.push(5, 'b');
        let order: alloc::vec::Vec<char> = core::iter::from_fn(|| q.pop().map(|(_, c)| c)).collect();
        assert_eq!(order, ['a', 'b', 'c', 'd']);
    }
}
