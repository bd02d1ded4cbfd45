//! Python's `random.Random(seed).sample(range(n), k)`, bit for bit.
//!
//! `make_repo.py` picks the edited modules and files with Python's Mersenne
//! Twister. Reproducing it exactly (MT19937 seeded by `init_by_array`, then
//! `_randbelow_with_getrandbits` and both branches of `sample`, as in CPython
//! 3.11) makes the Rust generator build the very same repository as the
//! script for the same seed, so figures stay comparable with `known-gaps.md`.

/// Size of the Mersenne Twister state, in 32-bit words.
const N: usize = 624;
/// Middle word offset of MT19937.
const M: usize = 397;

/// CPython's `random.Random`, reduced to what `sample` needs.
pub struct PyRandom {
    /// The generator state.
    mt: [u32; N],
    /// Next word of `mt` to temper; `N` means the state must be regenerated.
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for a non-negative integer seed.
    pub fn new(seed: u64) -> Self {
        let mut key: Vec<u32> = Vec::new();
        let mut rest = seed;
        while rest > 0 {
            key.push(rest as u32);
            rest >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut rng = PyRandom {
            mt: [0; N],
            index: N,
        };
        rng.init_by_array(&key);
        rng
    }

    /// MT19937 `init_genrand`.
    fn init_genrand(&mut self, seed: u32) {
        self.mt[0] = seed;
        for i in 1..N {
            let prev = self.mt[i - 1];
            self.mt[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    /// MT19937 `init_by_array`, which CPython uses for integer seeds.
    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
        }
        self.mt[0] = 0x8000_0000;
    }

    /// Regenerate the whole state (the "twist").
    fn twist(&mut self) {
        for i in 0..N {
            let y = (self.mt[i] & 0x8000_0000) | (self.mt[(i + 1) % N] & 0x7fff_ffff);
            let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
            self.mt[i] = self.mt[(i + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// MT19937 `genrand_uint32`.
    fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `getrandbits(k)` for `1 <= k <= 32`.
    fn getrandbits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow_with_getrandbits(n)`: uniform in `0..n` by rejection.
    fn randbelow(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let bits = usize::BITS - n.leading_zeros();
        assert!(bits <= 32, "randbelow is only reproduced for n < 2^32");
        loop {
            let r = self.getrandbits(bits) as usize;
            if r < n {
                return r;
            }
        }
    }

    /// `sample(range(n), k)`: `k` distinct values of `0..n` in Python's order.
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "sample larger than population");
        let mut setsize = 21usize;
        if k > 5 {
            let exp = ((k * 3) as f64).ln() / 4f64.ln();
            setsize += 4usize.pow(exp.ceil() as u32);
        }
        if n <= setsize {
            let mut pool: Vec<usize> = (0..n).collect();
            (0..k)
                .map(|i| {
                    let j = self.randbelow(n - i);
                    let picked = pool[j];
                    pool[j] = pool[n - i - 1];
                    picked
                })
                .collect()
        } else {
            let mut selected = std::collections::HashSet::new();
            (0..k)
                .map(|_| {
                    let mut j = self.randbelow(n);
                    while selected.contains(&j) {
                        j = self.randbelow(n);
                    }
                    selected.insert(j);
                    j
                })
                .collect()
        }
    }
}
