//! Why Base64 was rejected (`b64simd:reason()`), with the offset of its byte:
//! defined by `scalar.rs`, and the same on every other path.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// An unpadded final quantum while padding is required.
    MissingPadding,
    /// A byte outside the alphabet (whitespace too, when rejected).
    InvalidCharacter(usize),
    /// `=` where no padding can be, one too many, data after it, or
    /// padding cut short: the offset of the `=` that shows it.
    BadPadding(usize),
    /// A dangling single character at the end.
    Incomplete(usize),
    /// Non-zero unused bits in the last character, under `canonical`.
    NonCanonical(usize),
}

impl DecodeError {
    /// The error with its offset moved `by` on (found after an input's first `by` bytes).
    pub fn shifted(self, by: usize) -> DecodeError {
        self.map_offset(|at| at + by)
    }

    /// The offset of the byte the error is at, if it is at one.
    pub fn offset(self) -> Option<usize> {
        use DecodeError::*;
        match self {
            MissingPadding => None,
            InvalidCharacter(at) | BadPadding(at) | Incomplete(at) | NonCanonical(at) => Some(at),
        }
    }

    /// The same error, its offset (if any) moved by `to`.
    pub fn map_offset(self, to: impl FnOnce(usize) -> usize) -> DecodeError {
        use DecodeError::*;
        match self {
            MissingPadding => MissingPadding,
            InvalidCharacter(at) => InvalidCharacter(to(at)),
            BadPadding(at) => BadPadding(to(at)),
            Incomplete(at) => Incomplete(to(at)),
            NonCanonical(at) => NonCanonical(to(at)),
        }
    }
}
