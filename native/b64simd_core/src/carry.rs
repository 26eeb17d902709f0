//! The stream decoder's state between two pieces (`b64simd_stream`): the
//! bytes not decoded yet (the characters of a partial or padded quantum,
//! with the whitespace and `=` among and after them, a few bytes), the
//! stream offset of each, and the stream offset of the next piece. Erlang
//! holds it as a binary that only this module reads and writes, so the
//! offset of every error a stream raises is computed here.
//!
//! The binary: the next piece's offset, the carried bytes, then each one's
//! offset; offsets are 8 bytes, little-endian. A `Carry` reads it in place
//! and the next state is written straight into its binary: a piece costs
//! no allocation beyond that binary.

use crate::scalar::DecodeError;

const OFFSET_SIZE: usize = 8;

/// A state binary, read in place.
#[derive(Clone, Copy, Debug)]
pub struct Carry<'s> {
    /// Stream offset of the next piece's first byte.
    position: usize,
    bytes: &'s [u8],
    /// Stream offset of each of `bytes`, `OFFSET_SIZE` bytes each.
    offsets: &'s [u8],
}

impl<'s> Carry<'s> {
    /// The state a binary holds; the empty binary is a new stream's.
    /// `None` for a binary no `write_after` wrote.
    pub fn from_binary(state: &'s [u8]) -> Option<Carry<'s>> {
        let Some((position, rest)) = state.split_first_chunk::<OFFSET_SIZE>() else {
            return state.is_empty().then_some(Carry {
                position: 0,
                bytes: &[],
                offsets: &[],
            });
        };
        if !rest.len().is_multiple_of(1 + OFFSET_SIZE) {
            return None;
        }
        let (bytes, offsets) = rest.split_at(rest.len() / (1 + OFFSET_SIZE));
        Some(Carry {
            position: to_offset(*position)?,
            bytes,
            offsets,
        })
    }

    /// The bytes carried.
    pub fn bytes(&self) -> &'s [u8] {
        self.bytes
    }

    /// The stream offset of byte `at` of the carry followed by a piece.
    fn stream_offset(&self, at: usize) -> usize {
        match self.offsets.chunks_exact(OFFSET_SIZE).nth(at) {
            Some(chunk) => chunk
                .try_into()
                .ok()
                .and_then(to_offset)
                .unwrap_or(usize::MAX),
            None => self.position + (at - self.bytes.len()),
        }
    }

    /// `error`, found at an offset into the carry followed by a piece
    /// (`joined`, or the carry alone), at its stream offset, and the byte
    /// there.
    pub fn in_stream(&self, joined: &[u8], error: DecodeError) -> (DecodeError, Option<u8>) {
        match error.offset() {
            Some(at) => (
                error.with_offset(self.stream_offset(at)),
                joined.get(at).copied(),
            ),
            None => (error, None),
        }
    }

    /// The size of the state that keeps `kept` bytes.
    pub fn binary_len(kept: usize) -> usize {
        OFFSET_SIZE + kept * (1 + OFFSET_SIZE)
    }

    /// Writes the state after `piece` into `out` (`binary_len` of the
    /// count of `kept` bytes): the bytes at `kept`, offsets into the carry
    /// followed by the piece, in order, are carried on.
    pub fn write_after(
        &self,
        piece: &[u8],
        kept: impl ExactSizeIterator<Item = usize> + Clone,
        out: &mut [u8],
    ) {
        let (position, rest) = out.split_at_mut(OFFSET_SIZE);
        let (bytes, offsets) = rest.split_at_mut(kept.len());
        position.copy_from_slice(&((self.position + piece.len()) as u64).to_le_bytes());
        for (slot, at) in bytes.iter_mut().zip(kept.clone()) {
            *slot = match self.bytes.get(at) {
                Some(&byte) => byte,
                None => piece[at - self.bytes.len()],
            };
        }
        for (slot, at) in offsets.chunks_exact_mut(OFFSET_SIZE).zip(kept) {
            slot.copy_from_slice(&(self.stream_offset(at) as u64).to_le_bytes());
        }
    }
}

fn to_offset(bytes: [u8; OFFSET_SIZE]) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(bytes)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(state: &[u8], piece: &[u8], kept: &[usize]) -> Vec<u8> {
        let carry = Carry::from_binary(state).unwrap();
        let mut out = vec![0; Carry::binary_len(kept.len())];
        carry.write_after(piece, kept.iter().copied(), &mut out);
        out
    }

    /// `b64simd_stream:decode_final/1` ends a stream whose state is at most
    /// 8 bytes with no data and no NIF call.
    #[test]
    fn a_state_that_carries_nothing_is_8_bytes() {
        assert_eq!(Carry::binary_len(0), 8);
        assert_eq!(after(b"", b"QUJD", &[]).len(), 8);
        assert!(Carry::binary_len(1) > 8);
    }

    #[test]
    fn offsets_follow_the_bytes_across_pieces() {
        // "QU" of the first piece is left over at offsets 4 and 5.
        let first = after(b"", b"QUJDQU", &[4, 5]);
        let carry = Carry::from_binary(&first).unwrap();
        assert_eq!(carry.bytes(), b"QU");
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
            carry.in_stream(carry.bytes(), DecodeError::BadPadding(3)),
            (DecodeError::BadPadding(8), Some(b'='))
        );
        assert_eq!(
            carry.in_stream(b"", DecodeError::MissingPadding),
            (DecodeError::MissingPadding, None)
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
        assert_eq!(Carry::from_binary(b"").unwrap().bytes(), b"");
    }
}
