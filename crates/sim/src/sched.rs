//! The event queue: every future happening (a message delivery, a timer, a scripted fault) is an
//! item keyed by (virtual time in ms, sequence number), so ties break by insertion order and the
//! run is the same on every target.
use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

/// A deterministic priority queue of items ordered by `(time_ms, seq)`.
/// Items live in a slab; a binary heap (a min-heap through `Reverse`) holds only their keys and
/// slab slots, so inserting and popping move 24-byte keys, not the items (a message is 200
/// bytes), and allocate nothing once the heap has grown. Sequence numbers are unique, so the
/// order is total: the heap pops exactly the order a sorted map would, whatever its layout.
#[derive(Clone)]
pub struct Queue<T> {
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    slab: Vec<Option<T>>,
    free: Vec<u32>,
    next_seq: u64,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue { heap: BinaryHeap::new(), slab: Vec::new(), free: Vec::new(), next_seq: 0 }
    }
}

/// The items in pop order with their times and sequence numbers (not the heap's layout, which
/// depends on the pushes' history: two queues that pop alike print alike).
impl<T: core::fmt::Debug> core::fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Queue")
            .field(
                "items",
                &self
                    .keys()
                    .into_iter()
                    .map(|(t, seq, slot)| ((t, seq), &self.slab[slot as usize]))
                    .collect::<Vec<_>>(),
            )
            .field("next_seq", &self.next_seq)
            .finish()
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
        self.heap.push(Reverse((time_ms, seq, slot)));
        seq
    }

    /// The earliest item (ties: the first pushed), with its time.
    pub fn pop(&mut self) -> Option<(u64, T)> {
        let Reverse((t, _, slot)) = self.heap.pop()?;
        self.free.push(slot);
        self.slab[slot as usize].take().map(|v| (t, v))
    }

    /// The earliest item's time.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// The keys `(time, seq, slot)` in pop order.
    fn keys(&self) -> Vec<(u64, u64, u32)> {
        let mut keys: Vec<(u64, u64, u32)> = self.heap.iter().map(|Reverse(k)| *k).collect();
        crate::sorted::sort(&mut keys);
        keys
    }

    /// The items in the order they will be popped, with their times (sorted on each call: for
    /// views and state hashes, not the run's hot path).
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        self.keys().into_iter().filter_map(|(t, _, slot)| self.slab[slot as usize].as_ref().map(|v| (t, v)))
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No item queued.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

    #[test]
    fn iterates_and_pops_in_the_same_order_whatever_the_pushes() {
        // Pseudo-random times with many ties, pops interleaved: `iter` lists what the pops then
        // return, and the pops come out sorted by (time, push order).
        let mut q = Queue::default();
        let mut x: u64 = 7;
        let mut pushed = Vec::new();
        let mut popped = Vec::new();
        for i in 0..500u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = 100 + (x >> 33) % 40;
            q.push(t, i);
            pushed.push((t, i));
            if i % 3 == 0 {
                popped.push(q.pop().expect("pushed"));
            }
        }
        let listed: Vec<(u64, u64)> = q.iter().map(|(t, v)| (t, *v)).collect();
        while let Some(p) = q.pop() {
            popped.push(p);
        }
        assert_eq!(listed, popped[popped.len() - listed.len()..]);
        assert!(q.is_empty() && q.peek_time().is_none());
        let tail = &popped[popped.len() - listed.len()..];
        assert!(tail.windows(2).all(|w| w[0] <= w[1]), "the remaining items pop in (time, push order)");
        assert_eq!(popped.len(), pushed.len());
    }
}
