//! Python's `random.Random(seed).shuffle`, bit for bit: the Mersenne Twister (MT19937) seeded
//! as CPython seeds it from an integer (`init_by_array` over the seed's 32-bit words), and
//! the Fisher–Yates walk `shuffle` makes with `_randbelow` (rejection sampling on
//! `getrandbits`). The symbol eval samples with it so that a seed picks the same names as
//! `../shared/eval/symbols.py` does. Pure computation, on the caller's thread.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The generator behind `random.Random`.
pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for a non-negative integer seed.
    pub fn new(seed: u64) -> PyRandom {
        // CPython: the absolute value's 32-bit words, least significant first; 0 is one word.
        #[allow(clippy::cast_possible_truncation)]
        let lo = seed as u32;
        let hi = (seed >> 32) as u32;
        let key: Vec<u32> = if hi == 0 { vec![lo] } else { vec![lo, hi] };
        let mut r = PyRandom {
            mt: [0; N],
            index: N,
        };
        r.init_by_array(&key);
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1];
            #[allow(clippy::cast_possible_truncation)]
            let i32_ = i as u32;
            self.mt[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i32_);
        }
        self.index = N;
    }

    #[allow(clippy::cast_possible_truncation)]
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

    fn twist(&mut self) {
        for k in 0..N {
            let y = (self.mt[k] & UPPER_MASK) | (self.mt[(k + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// `genrand_uint32`: the next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
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

    /// `getrandbits(k)` for 1 ≤ k ≤ 32.
    fn bits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` for 1 ≤ n < 2³²: uniform in `0..n`, by rejection.
    fn below(&mut self, n: u32) -> u32 {
        let k = u32::BITS - n.leading_zeros();
        loop {
            let r = self.bits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `random.shuffle(items)`. Lists of 2³² items or more are not shuffled (no eval
    /// samples from that many names).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        if u32::try_from(items.len()).is_err() {
            return;
        }
        for i in (1..items.len()).rev() {
            #[allow(clippy::cast_possible_truncation)]
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected value below is CPython 3.11's own output for the same calls.

    #[test]
    fn the_first_words_match_cpython() {
        let mut r = PyRandom::new(1);
        let words: Vec<u32> = (0..3).map(|_| r.next_u32()).collect();
        assert_eq!(words, [577_090_037, 2_444_712_010, 3_639_700_191]);
    }

    #[test]
    fn shuffles_match_cpython_and_continue_its_state() {
        let mut r = PyRandom::new(1);
        let mut x: Vec<u32> = (0..10).collect();
        r.shuffle(&mut x);
        assert_eq!(x, [6, 8, 9, 7, 5, 3, 0, 4, 1, 2]);
        let mut y: Vec<u32> = (0..7).collect();
        r.shuffle(&mut y);
        assert_eq!(y, [2, 5, 4, 3, 0, 1, 6]);
    }

    #[test]
    fn other_seeds_match_cpython() {
        let mut x: Vec<u32> = (0..10).collect();
        PyRandom::new(0).shuffle(&mut x);
        assert_eq!(x, [7, 8, 1, 5, 3, 4, 2, 0, 9, 6]);
        let mut x: Vec<u32> = (0..10).collect();
        PyRandom::new((1 << 40) + 5).shuffle(&mut x);
        assert_eq!(x, [1, 2, 3, 6, 7, 0, 5, 4, 9, 8]);
        let mut x: Vec<u32> = (0..1000).collect();
        PyRandom::new(1).shuffle(&mut x);
        assert_eq!(x[..8], [852, 836, 280, 575, 208, 609, 932, 725]);
        assert_eq!(x[997..], [867, 582, 137]);
    }
}
