//! The event queue: every future happening (a message delivery, a timer, a scripted fault) is an
//! item keyed by (virtual time in ms, sequence number), so ties break by insertion order and the
//! run is the same on every target.
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// A deterministic priority queue of items ordered by `(time_ms, seq)`.
/// Items live in a slab; the ordered map holds only their keys and slab slots, so inserting and
/// popping move 4-byte slots, not the items (a message is 200 bytes).
#[derive(Clone, Debug)]
pub struct Queue<T> {
    items: BTreeMap<(u64, u64), u32>,
    slab: Vec<Option<T>>,
    free: Vec<u32>,
    next_seq: u64,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue { items: BTreeMap::new(), slab: Vec::new(), free: Vec::new(), next_seq: 0 }
    }
}

impl<T> Queue<T> {
    /// Schedules `item` at `time_ms`; returns its sequence number.
    pub fn push(&mut self, time_ms: u64, item: T) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(item);
                slot
            }
            None => {
                self.slab.push(Some(item));
                (self.slab.len() - 1) as u32
            }
        };
        self.items.insert((time_ms, seq), slot);
        seq
    }

    /// The earliest item (ties: the first pushed), with its time.
    pub fn pop(&mut self) -> Option<(u64, T)> {
        let ((t, _), slot) = self.items.pop_first()?;
        self.free.push(slot);
        self.slab[slot as usize].take().map(|v| (t, v))
    }

    /// The earliest item's time.
    pub fn peek_time(&self) -> Option<u64> {
        self.items.keys().next().map(|(t, _)| *t)
    }

    /// The items in the order they will be popped, with their times.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        self.items.iter().filter_map(|((t, _), slot)| self.slab[*slot as usize].as_ref().map(|v| (*t, v)))
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No item queued.
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
