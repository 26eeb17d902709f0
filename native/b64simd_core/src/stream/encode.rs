//! An encoding stream: each piece gives the Base64 of the whole groups so far,
//! as the one-shot output. State: flags and the last line's column (8 bytes
//! each, little-endian), then an incomplete group's bytes (at most 2).

use crate::budget::Work;
use crate::dispatch::encode_piece;
use crate::encode::wrap::WrapJob;
use crate::encode::EncodeJob;
use crate::job::{Buffer, Job, Step};
use crate::lengths::{encoded_len, wrapped_len};
use crate::options::{EncodeOptions, Lines};
use crate::output::put;
use std::mem::MaybeUninit;

const NUMBER: usize = 8;
const HEADER: usize = 2 * NUMBER;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeStream {
    flags: u64,
    opts: EncodeOptions,
    lines: Option<Lines>,
    /// With wrapping: the characters on the last line written so far.
    column: usize,
    carry: [u8; 2],
    carry_len: usize,
}

impl EncodeStream {
    /// `None` for flags that are not an encode's.
    pub fn new(flags: u64) -> Option<EncodeStream> {
        let (opts, lines) = EncodeOptions::from_flags(flags)?;
        Some(EncodeStream {
            flags,
            opts,
            lines,
            column: 0,
            carry: [0; 2],
            carry_len: 0,
        })
    }

    /// The stream a state holds; `None` for bytes `write_state` did not write.
    pub fn from_state(state: &[u8]) -> Option<EncodeStream> {
        let (header, carry) = (state.get(..HEADER)?, state.get(HEADER..)?);
        let (flags, column) = header.split_at(NUMBER);
        let mut stream = EncodeStream::new(u64::from_le_bytes(flags.try_into().ok()?))?;
        stream.column = usize::try_from(u64::from_le_bytes(column.try_into().ok()?)).ok()?;
        let line_length = stream.lines.map_or(0, |lines| lines.length);
        if carry.len() > 2 || stream.column > line_length {
            return None;
        }
        stream.carry[..carry.len()].copy_from_slice(carry);
        stream.carry_len = carry.len();
        Some(stream)
    }

    pub fn state_len(&self) -> usize {
        HEADER + self.carry_len
    }

    /// Writes the state into `out`, `state_len()` bytes.
    pub fn write_state(&self, out: &mut [MaybeUninit<u8>]) {
        put(&mut out[..NUMBER], &self.flags.to_le_bytes());
        put(
            &mut out[NUMBER..HEADER],
            &(self.column as u64).to_le_bytes(),
        );
        put(&mut out[HEADER..], &self.carry[..self.carry_len]);
    }

    /// The job over the carry's and `piece`'s whole groups; `None` if their length overflows.
    pub fn piece(&self, piece: &[u8]) -> Option<EncodePiece> {
        let total = self.carry_len.checked_add(piece.len())?;
        let whole = total / 3 * 3;
        let taken = whole.saturating_sub(self.carry_len);
        let mut next = *self;
        let rest = if whole == 0 { piece } else { &piece[taken..] };
        let kept = if whole == 0 { self.carried() } else { &[] };
        next.carry_len = kept.len() + rest.len();
        next.carry[..kept.len()].copy_from_slice(kept);
        next.carry[kept.len()..next.carry_len].copy_from_slice(rest);
        if let Some(lines) = self.lines.filter(|_| whole > 0) {
            // A full line stays at `length`: its break comes before the next character.
            next.column = (self.column + whole / 3 * 4 - 1) % lines.length + 1;
        }
        Some(self.job(whole, taken, Some(next)))
    }

    /// The job that ends the stream: the carry, padded as the options say.
    pub fn end(&self) -> EncodePiece {
        self.job(self.carry_len, 0, None)
    }

    fn carried(&self) -> &[u8] {
        &self.carry[..self.carry_len]
    }

    fn job(&self, len: usize, data_len: usize, next: Option<EncodeStream>) -> EncodePiece {
        EncodePiece {
            stream: *self,
            next,
            data_len,
            len,
            inner: None,
        }
    }
}

/// A stream's piece: the group shared with the carry from a small buffer, the rest in place.
#[derive(Clone, Debug)]
pub struct EncodePiece {
    stream: EncodeStream,
    /// The stream after the piece; `None` at its end.
    next: Option<EncodeStream>,
    /// Bytes of the piece it encodes.
    data_len: usize,
    /// Input bytes it encodes, the carry's included.
    len: usize,
    /// Set once the shared group is encoded.
    inner: Option<Inner>,
}

#[derive(Clone, Debug)]
enum Inner {
    Plain(EncodeJob),
    Wrapped(WrapJob),
}

impl EncodePiece {
    pub fn next(&self) -> Option<&EncodeStream> {
        self.next.as_ref()
    }

    /// Encodes the shared group; the job then reads on after it.
    fn start(&mut self, piece: &[u8], output: &mut [MaybeUninit<u8>]) {
        let stream = &self.stream;
        let carried = stream.carried();
        let taken = (3 - carried.len()).min(self.data_len) * usize::from(!carried.is_empty());
        let mut group = [0u8; 3];
        group[..carried.len()].copy_from_slice(carried);
        group[carried.len()..carried.len() + taken].copy_from_slice(&piece[..taken]);
        let group = &group[..carried.len() + taken];
        self.inner = Some(match stream.lines {
            None => {
                let written = encoded_len(group.len(), stream.opts.padding).unwrap_or(0);
                encode_piece(group, stream.opts, &mut output[..written], group.len());
                Inner::Plain(EncodeJob::resume(stream.opts, taken, written))
            }
            Some(lines) if group.is_empty() => {
                Inner::Wrapped(WrapJob::after(stream.opts, lines, stream.column))
            }
            Some(lines) => Inner::Wrapped(WrapJob::after_group(
                stream.opts,
                lines,
                stream.column,
                group,
                taken,
                output,
            )),
        });
    }
}

impl Job for EncodePiece {
    fn buffer(&self, _piece: &[u8]) -> Option<Buffer> {
        let stream = &self.stream;
        match stream.lines {
            None => encoded_len(self.len, stream.opts.padding),
            Some(lines) => wrapped_len(self.len, stream.opts.padding, lines, stream.column),
        }
        .map(Buffer::Data)
    }

    /// `piece` is the stream's piece (none at its end).
    fn step(&mut self, piece: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        if self.len == 0 {
            return Step::Done(0);
        }
        if self.inner.is_none() {
            self.start(piece, output);
        }
        let data = &piece[..self.data_len];
        match &mut self.inner {
            Some(Inner::Plain(job)) => job.step(data, output, max_input),
            Some(Inner::Wrapped(job)) => job.step(data, output, max_input),
            None => Step::More,
        }
    }

    fn work(&self) -> Work {
        match self.stream.lines {
            None => Work::Encode,
            Some(_) => Work::EncodeLines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::LineBreak;
    use crate::output::as_output;
    use crate::test_support::{reference_encode, reference_wrapped, Rng};

    fn run(job: &mut EncodePiece, piece: &[u8], slice: usize) -> Vec<u8> {
        let len = job.buffer(piece).unwrap().size();
        let mut out = vec![0u8; len];
        assert_eq!(job.run_to_end(piece, as_output(&mut out), slice), Ok(len));
        out
    }

    /// A stream through its state bytes, as Erlang holds it.
    fn stream(input: &[u8], flags: u64, cuts: &[usize], slice: usize) -> Vec<u8> {
        let first = EncodeStream::new(flags).unwrap();
        let mut state = vec![0u8; first.state_len()];
        first.write_state(as_output(&mut state));
        let mut out = Vec::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([input.len()].iter()) {
            let piece = &input[at..cut.max(at)];
            at = cut.max(at);
            let s = EncodeStream::from_state(&state).unwrap();
            let mut job = s.piece(piece).unwrap();
            out.extend(run(&mut job, piece, slice));
            let next = job.next().unwrap();
            state = vec![0u8; next.state_len()];
            next.write_state(as_output(&mut state));
        }
        let mut job = EncodeStream::from_state(&state).unwrap().end();
        out.extend(run(&mut job, &[], slice));
        out
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn any_chunking_gives_the_one_shot_output() {
        let seed = 0x5EED_0016;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for round in 0..3_000 {
            let length = [0, 1, 2, 3, 4, 5, 7, 63, 64, 76, 77, 1000][rng.next() as usize % 12];
            let line_break = [LineBreak::CrLf, LineBreak::Lf][rng.next() as usize % 2];
            let opts = rng.encode_options();
            let lines = (length > 0).then_some(Lines { length, line_break });
            let flags = opts.to_flags(lines);
            let len = rng.next() as usize % 3_000;
            let input = rng.bytes(len);
            let mut cuts: Vec<usize> = (0..rng.next() % 8)
                .map(|_| rng.next() as usize % (input.len() + 1))
                .collect();
            cuts.sort_unstable();
            let slice = [1, 7, 100, usize::MAX][rng.next() as usize % 4];
            let want = match lines {
                None => reference_encode(&input, opts),
                Some(lines) => reference_wrapped(&input, opts, lines),
            };
            assert_eq!(
                stream(&input, flags, &cuts, slice),
                want,
                "round {round} {length} {line_break:?} {opts:?} {cuts:?}"
            );
        }
    }

    #[test]
    fn reads_only_states_it_wrote() {
        assert!(EncodeStream::from_state(b"").is_none());
        assert!(EncodeStream::from_state(&[0; 15]).is_none());
        let mut state = [0u8; 19];
        assert!(
            EncodeStream::from_state(&state).is_none(),
            "3 bytes carried"
        );
        state[0] = 2; // mode any is no encode mode
        assert!(EncodeStream::from_state(&state[..16]).is_none());
        state[0] = 0;
        state[8] = 1; // a column without lines
        assert!(EncodeStream::from_state(&state[..16]).is_none());
    }
}
