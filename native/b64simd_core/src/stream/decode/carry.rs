//! A decoding stream's state: flags, the next piece's stream offset, the bytes not
//! decoded yet (with whitespace and `=`) and each one's stream offset (8-byte LE).

use crate::error::DecodeError;
use crate::options::{DecodeOptions, Kind};
use crate::output::put;
use std::mem::MaybeUninit;

const NUMBER: usize = 8;
const HEADER: usize = 2 * NUMBER;

/// The most bytes carried: a piece that would leave more (a long run of whitespace) is
/// joined to the carry, which keeps at most 4. Small, as every call copies the state.
pub const MAX_CARRY: usize = 16;

#[derive(Clone, Copy, Debug)]
pub struct Carry {
    flags: u64,
    opts: DecodeOptions,
    /// Stream offset of the next piece's first byte.
    position: usize,
    len: usize,
    bytes: [u8; MAX_CARRY],
    /// Stream offset of each of `bytes`.
    offsets: [usize; MAX_CARRY],
}

impl Carry {
    /// A new stream's state; `None` for flags that are not a decode's.
    pub fn new(flags: u64) -> Option<Carry> {
        Some(Carry {
            flags,
            opts: DecodeOptions::from_flags(flags, Kind::Decode)?,
            position: 0,
            len: 0,
            bytes: [0; MAX_CARRY],
            offsets: [0; MAX_CARRY],
        })
    }

    /// The state a binary holds; `None` for one `write_after` did not write.
    pub fn from_binary(state: &[u8]) -> Option<Carry> {
        let (header, rest) = (state.get(..HEADER)?, state.get(HEADER..)?);
        let (flags, position) = header.split_at(NUMBER);
        let len = rest.len() / (1 + NUMBER);
        if rest.len() != len * (1 + NUMBER) || len > MAX_CARRY {
            return None;
        }
        let mut carry = Carry::new(u64::from_le_bytes(flags.try_into().ok()?))?;
        carry.position = number(position)?;
        carry.len = len;
        let (bytes, offsets) = rest.split_at(len);
        carry.bytes[..len].copy_from_slice(bytes);
        for (slot, offset) in carry.offsets.iter_mut().zip(offsets.chunks_exact(NUMBER)) {
            *slot = number(offset)?;
        }
        Some(carry)
    }

    pub fn options(&self) -> DecodeOptions {
        self.opts
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The stream offset of byte `at` of the carry followed by a piece.
    fn stream_offset(&self, at: usize) -> usize {
        match at.checked_sub(self.len) {
            None => self.offsets[at],
            Some(in_piece) => self.position + in_piece,
        }
    }

    /// `error`, at an offset into carry ++ piece, at its stream offset.
    pub fn in_stream(&self, error: DecodeError) -> DecodeError {
        error.map_offset(|at| self.stream_offset(at))
    }

    /// The size of the state that carries `kept` bytes.
    pub fn binary_len(kept: usize) -> usize {
        HEADER + kept * (1 + NUMBER)
    }

    /// Writes the state after `piece` into `out` (`binary_len(kept.len())`, at most
    /// `MAX_CARRY` kept), carrying the bytes at the offsets `kept` into carry ++ piece.
    pub fn write_after(
        &self,
        piece: &[u8],
        kept: impl ExactSizeIterator<Item = usize> + Clone,
        out: &mut [MaybeUninit<u8>],
    ) {
        let (header, rest) = out.split_at_mut(HEADER);
        let (flags, position) = header.split_at_mut(NUMBER);
        let (bytes, offsets) = rest.split_at_mut(kept.len());
        put(flags, &self.flags.to_le_bytes());
        put(
            position,
            &((self.position + piece.len()) as u64).to_le_bytes(),
        );
        for (slot, at) in bytes.iter_mut().zip(kept.clone()) {
            *slot = MaybeUninit::new(match self.bytes().get(at) {
                Some(&byte) => byte,
                None => piece[at - self.len],
            });
        }
        for (slot, at) in offsets.chunks_exact_mut(NUMBER).zip(kept) {
            put(slot, &(self.stream_offset(at) as u64).to_le_bytes());
        }
    }
}

fn number(bytes: &[u8]) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(bytes.try_into().ok()?)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::DEFAULT_FLAGS;
    use crate::output::as_output;

    fn after(state: &[u8], piece: &[u8], kept: &[usize]) -> Vec<u8> {
        let carry = match state {
            [] => Carry::new(DEFAULT_FLAGS).unwrap(),
            _ => Carry::from_binary(state).unwrap(),
        };
        let mut out = vec![0; Carry::binary_len(kept.len())];
        carry.write_after(piece, kept.iter().copied(), as_output(&mut out));
        out
    }

    #[test]
    fn offsets_follow_the_bytes_across_pieces() {
        // "QU" of the first piece is left over at offsets 4 and 5.
        let first = after(b"", b"QUJDQU", &[4, 5]);
        let carry = Carry::from_binary(&first).unwrap();
        assert_eq!(carry.bytes(), b"QU");
        assert_eq!(carry.options(), DecodeOptions::DEFAULT);
        assert_eq!((carry.stream_offset(0), carry.stream_offset(1)), (4, 5));
        // The next piece starts at stream offset 6.
        assert_eq!(carry.stream_offset(2), 6);
        let second = after(&first, b"J\n=", &[0, 1, 2, 4]);
        let carry = Carry::from_binary(&second).unwrap();
        assert_eq!(carry.bytes(), b"QUJ=");
        let offsets: Vec<usize> = (0..4).map(|at| carry.stream_offset(at)).collect();
        assert_eq!(offsets, vec![4, 5, 6, 8]);
        assert_eq!(carry.position, 9);
        assert_eq!(
            carry.in_stream(DecodeError::BadPadding(3)),
            DecodeError::BadPadding(8)
        );
        assert_eq!(
            carry.in_stream(DecodeError::MissingPadding),
            DecodeError::MissingPadding
        );
    }

    #[test]
    fn reads_only_what_it_wrote() {
        let state = after(&after(b"", &[b'x'; 300], &[297, 298, 299]), b"ab", &[1, 3]);
        let carry = Carry::from_binary(&state).unwrap();
        assert_eq!((carry.bytes(), carry.position), (&b"xa"[..], 302));
        assert_eq!((carry.stream_offset(0), carry.stream_offset(1)), (298, 300));
        assert!(Carry::from_binary(&state[..state.len() - 1]).is_none());
        assert!(Carry::from_binary(b"1234567").is_none());
        assert!(
            Carry::from_binary(&[0; HEADER + (MAX_CARRY + 1) * 9]).is_none(),
            "too long"
        );
        assert!(Carry::from_binary(b"").is_none());
        let mut foreign = state.clone();
        foreign[0] = 3; // mode 3 is no mode
        assert!(Carry::from_binary(&foreign).is_none());
        assert!(Carry::new(1 << 40).is_none());
    }
}
