//! The simulation's only source of randomness: a seeded SplitMix64, as TigerBeetle's simulator
//! draws every jitter from one seed, so a seed and a list of inputs reproduce a run exactly.

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and identical on every target.
#[derive(Clone, Debug, Hash)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed ^ 0x5DEE_CE66_D1CE_4E5B }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..=max` (0 when `max` is 0).
    pub fn up_to(&mut self, max: u64) -> u64 {
        if max == 0 {
            0
        } else {
            self.next_u64() % (max + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_bounds_hold() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut c = Rng::new(8);
        let xs: alloc::vec::Vec<u64> = (0..16).map(|_| a.next_u64()).collect();
        let ys: alloc::vec::Vec<u64> = (0..16).map(|_| b.next_u64()).collect();
        let zs: alloc::vec::Vec<u64> = (0..16).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        for _ in 0..1000 {
            assert!(a.up_to(5) <= 5);
        }
        assert_eq!(a.up_to(0), 0);
    }
}
