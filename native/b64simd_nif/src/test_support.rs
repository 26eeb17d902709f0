//! Shared by the unit tests: a deterministic generator, so every failure
//! reproduces from the seed the test prints (xorshift64*).

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// Steps a sliced job until it finishes: the bytes written or the error.
pub fn run_steps(
    mut step: impl FnMut() -> crate::job::Step,
) -> Result<usize, crate::scalar::DecodeError> {
    loop {
        match step() {
            crate::job::Step::More => continue,
            crate::job::Step::Done(written) => return Ok(written),
            crate::job::Step::Failed(error) => return Err(error),
        }
    }
}
