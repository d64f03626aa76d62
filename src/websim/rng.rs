//! The synthetic webs' random numbers, the one generator of them all (the
//! procedural web, its shapes, the calibrated generator, the graph server):
//! splitmix64, seeded from a list of numbers (seed, host, page, stream), so
//! every choice is reproducible.

/// splitmix64: a small, fast, deterministic generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(parts: &[u64]) -> Self {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for &part in parts {
            state = Rng(state ^ part).next_u64();
        }
        Rng(state)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() <= p
    }

    /// Exponentially distributed with mean 1.
    pub fn exponential(&mut self) -> f64 {
        -(1.0 - self.unit()).max(1e-12).ln()
    }

    /// One of `items` (not empty), uniformly.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
