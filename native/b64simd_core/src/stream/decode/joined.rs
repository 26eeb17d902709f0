//! A piece joined to the carry, the exact way, when `in_place` gave up. The body
//! (up to the last byte that is neither whitespace nor `=`) goes through `DecodeJob`
//! with the end rules off, so its errors are the stream's: a `=` in it fails at
//! once, and at its end only a dangling character can. The tail is read as the
//! one-shot decoder scans it: `=` only after 2 or 3 characters of a quantum and
//! no more than completes it, whitespace only when skipped.

use super::mid_stream;
use crate::decode::DecodeJob;
use crate::error::DecodeError;
use crate::job::{Job, Step};
use crate::options::DecodeOptions;
use crate::rules::{is_otp_whitespace, pads_allowed};
use std::mem::MaybeUninit;

#[derive(Clone, Debug)]
pub struct JoinedJob {
    opts: DecodeOptions,
    joined: Vec<u8>,
    /// The part of `joined` before its tail of whitespace and `=`.
    body_len: usize,
    decode: DecodeJob,
    /// The body's dangling character, once found: `decode` then stops there.
    dangling: Option<usize>,
    /// Once done: the offsets of the bytes the stream carries on.
    kept: Vec<usize>,
}

impl JoinedJob {
    pub fn new(carry: &[u8], piece: &[u8], opts: DecodeOptions) -> JoinedJob {
        let joined = [carry, piece].concat();
        let tail = joined
            .iter()
            .rev()
            .take_while(|&&b| b == b'=' || is_otp_whitespace(b))
            .count();
        let body_len = joined.len() - tail;
        JoinedJob {
            opts,
            decode: DecodeJob::new(&joined[..body_len], mid_stream(opts)),
            joined,
            body_len,
            dangling: None,
            kept: Vec::new(),
        }
    }

    /// Once done: the offsets of the last quantum's characters and the `=` after them.
    pub fn kept(&self) -> &[usize] {
        &self.kept
    }

    pub fn byte(&self, at: usize) -> Option<u8> {
        self.joined.get(at).copied()
    }

    /// `Done(n)`: the first `n` bytes of `output` (at least `maximal_decoded_len`
    /// of carry ++ piece) are the whole quanta's data; `kept()` says what to carry.
    pub fn step(&mut self, output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let limit = self.dangling.unwrap_or(self.body_len);
        let body = &self.joined[..limit];
        let (written, left) = match self.decode.step(body, output, max_input) {
            Step::More => return Step::More,
            Step::Failed(DecodeError::Incomplete(last)) if self.dangling.is_none() => {
                // One character left over: the whole quanta end before it.
                self.dangling = Some(last);
                self.decode = DecodeJob::new(&self.joined[..last], mid_stream(self.opts));
                return Step::More;
            }
            Step::Failed(error) => return Step::Failed(error),
            Step::Done(written) if self.dangling.is_some() => (written, 1),
            // 1 or 2 bytes of a partial quantum: 2 or 3 characters.
            Step::Done(written) => (written / 3 * 3, [0, 2, 3][written % 3]),
        };
        self.finish(left).map(|()| written).into()
    }

    /// The body's last `left` characters and the tail into `kept`, or the tail's error.
    fn finish(&mut self, left: usize) -> Result<(), DecodeError> {
        let body = &self.joined[..self.body_len];
        // The body decoded cleanly: every byte but whitespace is a character.
        let mut chars: Vec<usize> = (0..body.len())
            .rev()
            .filter(|&at| !is_otp_whitespace(body[at]))
            .take(left)
            .collect();
        chars.reverse();
        let mut pads_left = pads_allowed(left);
        for (at, &byte) in self.joined.iter().enumerate().skip(self.body_len) {
            if byte == b'=' {
                if pads_left == 0 {
                    return Err(DecodeError::BadPadding(at));
                }
                pads_left -= 1;
                chars.push(at);
            } else if self.opts.reject_whitespace {
                return Err(DecodeError::InvalidCharacter(at));
            }
        }
        self.kept = chars;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lengths::maximal_decoded_len;
    use crate::output::as_output;

    fn exact(
        input: &[u8],
        opts: DecodeOptions,
        slice: usize,
    ) -> Result<(Vec<u8>, Vec<usize>), DecodeError> {
        let mut out = vec![0u8; maximal_decoded_len(input.len())];
        let (carry, piece) = input.split_at(input.len() / 3);
        let mut job = JoinedJob::new(carry, piece, opts);
        loop {
            match job.step(as_output(&mut out), slice) {
                Step::More => continue,
                Step::Done(written) => return Ok((out[..written].to_vec(), job.kept().to_vec())),
                Step::Failed(error) => return Err(error),
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn examples() {
        let skip = DecodeOptions::DEFAULT;
        let reject = DecodeOptions {
            reject_whitespace: true,
            ..skip
        };
        for slice in [1, 4, usize::MAX] {
            // Whole quanta, then a partial one carried with its padding.
            assert_eq!(
                exact(b"QUJD QQ=", skip, slice),
                Ok((b"ABC".to_vec(), vec![5, 6, 7]))
            );
            assert_eq!(exact(b"QUJDQ", skip, slice), Ok((b"ABC".to_vec(), vec![4])));
            assert_eq!(
                exact(b"QUJDQ \n", skip, slice),
                Ok((b"ABC".to_vec(), vec![4]))
            );
            assert_eq!(exact(b"QU\nJ", skip, slice), Ok((vec![], vec![0, 1, 3])));
            // The tail's rules.
            assert_eq!(
                exact(b"QUJ==", skip, slice),
                Err(DecodeError::BadPadding(4))
            );
            assert_eq!(
                exact(b"QUJDQQ ", reject, slice),
                Err(DecodeError::InvalidCharacter(6))
            );
            // Errors in the body are the stream's.
            assert_eq!(exact(b"QU=D", skip, slice), Err(DecodeError::BadPadding(2)));
            assert_eq!(
                exact(b"QU*D", skip, slice),
                Err(DecodeError::InvalidCharacter(2))
            );
        }
    }
}
