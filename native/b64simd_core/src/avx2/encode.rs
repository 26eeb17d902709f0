//! Our Base64 encoder for x86-64 CPUs with AVX2, in place of simdutf's haswell
//! kernel, the one most BEAM servers run, slower than aklomp/base64's
//! (`bench/README.md`, "Kernels"; `dispatch.rs` decides where).
//!
//! The method is Wojciech Muła's, as aklomp/base64's AVX2 codec runs it: a
//! round loads 32 bytes from 4 before its 24, so that each 128-bit lane holds
//! the 12 it encodes (lanes cannot exchange bytes cheaply); a shuffle gives
//! each 32-bit lane a 3-byte group, two 16-bit multiplies move its four 6-bit
//! values into four bytes, and a 16-entry lookup makes them characters. The
//! last whole groups are a round over the input's last 32 bytes, inputs of 16
//! to 31 bytes take 128-bit rounds, and plain code encodes the rest.

use super::available;
use crate::lengths::{encoded_len, wrapped_len};
use crate::options::{Alphabet, EncodeOptions, LineBreak, Lines};
use crate::output::put;
#[cfg(any(test, feature = "testing"))]
use crate::reached::{count_rounds, Rounds};
use std::mem::MaybeUninit;
#[cfg(target_arch = "x86_64")]
use std::{arch::x86_64::*, hint::black_box};

/// The 64 characters of RFC 4648 section 4 and of section 5, in value order.
const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn characters(alphabet: Alphabet) -> &'static [u8; 64] {
    match alphabet {
        Alphabet::UrlSafe => URL_SAFE,
        _ => STANDARD,
    }
}

/// How the rounds write their output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stores {
    /// Through the caches.
    Cached,
    /// Non-temporal, where the output is aligned for it: for outputs far
    /// beyond the caches, whose lines would be read only to be overwritten.
    Streaming,
}

/// Encodes `input` into `output`, which must be exactly
/// `encoded_len(input.len(), opts.padding)` bytes long; returns that length.
/// Panics on another length, or on a CPU without AVX2 (`available`).
#[inline]
pub fn avx2_encode_into(
    input: &[u8],
    opts: EncodeOptions,
    output: &mut [MaybeUninit<u8>],
    stores: Stores,
) -> usize {
    assert_eq!(
        Some(output.len()),
        encoded_len(input.len(), opts.padding),
        "encode output sized exactly"
    );
    assert!(available(), "the AVX2 encoder on a CPU without AVX2");
    match stores {
        // SAFETY: the CPU has AVX2 (checked above).
        Stores::Streaming => unsafe { encode_streaming(input, opts, output) },
        // SAFETY: as above; cached stores take any address.
        Stores::Cached => unsafe { encode_checked::<false>(input, opts, output) },
    }
}

/// Streaming stores need 32-byte aligned targets: the groups before the
/// first aligned one go plainly, if group boundaries (4 bytes) meet one.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(never)]
unsafe fn encode_streaming(
    input: &[u8],
    opts: EncodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> usize {
    let misalignment = output.as_ptr() as usize % 32;
    if misalignment % 4 != 0 {
        // SAFETY: the CPU has AVX2 (this function's contract); cached stores
        // take any address.
        return unsafe { encode_checked::<false>(input, opts, output) };
    }
    let head = (32 - misalignment) % 32 / 4 * 3;
    if head >= input.len() {
        return encode_tail(input, opts, output);
    }
    let head_written = encode_tail(&input[..head], opts, &mut output[..head / 3 * 4]);
    // SAFETY: the CPU has AVX2 (this function's contract), and the `head / 3`
    // groups' 4 characters each move the output `32 - misalignment` bytes on,
    // to 32-byte alignment.
    head_written
        + unsafe { encode_checked::<true>(&input[head..], opts, &mut output[head_written..]) }
}

/// The rounds, then the tail; `output` is exactly the encoding's length.
///
/// # Safety
/// The CPU must have AVX2, and when `STREAMING` `output` must start
/// 32-byte aligned.
#[inline(always)]
unsafe fn encode_checked<const STREAMING: bool>(
    input: &[u8],
    opts: EncodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> usize {
    // SAFETY: this function's contract is `rounds`'s.
    let (read, written) = unsafe { rounds::<STREAMING>(input, output, opts) };
    #[cfg(any(test, feature = "testing"))]
    count_rounds(Rounds::Encode, read);
    let (rest, output) = (&input[read..], &mut output[written..]);
    written
        + if rest.len() < 3 {
            encode_partial(rest, opts, output)
        } else {
            encode_tail(rest, opts, output)
        }
}

/// Whether `avx2_encode_lines_into` takes lines of `lines.length` characters:
/// MIME's 76 and PEM's 64 (RFC 2045, RFC 7468). Each gets code of its own: a
/// length read at run time let the compiler prepare the multiplies outside
/// the loop (`Multipliers`), slower than copying lines.
pub fn takes_lines(lines: Lines) -> bool {
    matches!(lines.length, 64 | 76)
}

/// Encodes `input` in lines of `lines.length` characters (`takes_lines`),
/// `lines.line_break` between two lines, into `output`, which must be exactly
/// that long; returns its length. Panics on another length, on lines it does
/// not take, or on a CPU without AVX2.
pub fn avx2_encode_lines_into(
    input: &[u8],
    opts: EncodeOptions,
    lines: Lines,
    output: &mut [MaybeUninit<u8>],
) -> usize {
    assert!(takes_lines(lines), "lines of whole rounds");
    let line_input = lines.length / 4 * 3;
    let line_break = lines.line_break.bytes();
    assert_eq!(
        Some(output.len()),
        wrapped_len(input.len(), opts.padding, lines, 0),
        "wrapped output sized exactly"
    );
    assert!(available(), "the AVX2 encoder on a CPU without AVX2");
    // SAFETY: the CPU has AVX2 and `output` holds every line and break (both
    // checked above); 76 and 64 are multiples of 4 and at least 32.
    let (mut read, mut written) = unsafe {
        if lines.length == 76 {
            line_rounds::<76>(input, output, opts, lines.line_break)
        } else {
            line_rounds::<64>(input, output, opts, lines.line_break)
        }
    };
    #[cfg(any(test, feature = "testing"))]
    count_rounds(Rounds::Encode, read);
    // The lines whose last round would read past the input, plainly; the
    // first writes over the junk a last pair of `line_rounds` leaves.
    while read < input.len() {
        let piece = &input[read..input.len().min(read + line_input)];
        let len = encoded_len(piece.len(), opts.padding).expect("a line's encoding fits");
        written += avx2_encode_into(
            piece,
            opts,
            &mut output[written..written + len],
            Stores::Cached,
        );
        read += piece.len();
        if read < input.len() {
            put(&mut output[written..written + line_break.len()], line_break);
            written += line_break.len();
        }
    }
    written
}

/// # Safety
/// None to keep: off x86-64 `available` is false, so nothing calls it.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn line_rounds<const LENGTH: usize>(
    _input: &[u8],
    _output: &mut [MaybeUninit<u8>],
    _opts: EncodeOptions,
    _line_break: LineBreak,
) -> (usize, usize) {
    unreachable!("`available` is false off x86-64")
}

/// Encodes the whole lines of `input` whose rounds read nothing past it, each
/// with its break (the input goes on for at least 4 bytes); returns the bytes
/// read and written. A line's rounds are at its characters 0, 32, ... and its
/// last 32 (overlapping when `LENGTH` is not a multiple of 32). Lines of 76
/// go in pairs first (`pairs_of_lines`), which may leave up to 3 junk bytes
/// past the written length for the caller's next line to overwrite. `output`
/// must hold the lines and breaks (it is checked).
///
/// # Safety
/// The CPU must have AVX2, and `LENGTH` be a multiple of 4 and at least 32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn line_rounds<const LENGTH: usize>(
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
    opts: EncodeOptions,
    line_break: LineBreak,
) -> (usize, usize) {
    let length = LENGTH;
    let crlf = line_break == LineBreak::CrLf;
    let line_input = length / 4 * 3;
    let stride = length + 1 + usize::from(crlf);
    // Line k's last round reads 4 bytes past it, so it is encoded here when
    // (k + 1) line_input + 4 <= input.len(); the first round reads 32 bytes.
    let count = match input.len() {
        len if len < 32 => 0,
        len => (len - 4) / line_input,
    };
    assert!(count * stride <= output.len());
    // SAFETY: the CPU has AVX2 (this function's contract).
    let (constants, multipliers) = unsafe { (Constants::new(opts.alphabet), Multipliers::new()) };
    let done = if LENGTH == 76 {
        // SAFETY: the CPU has AVX2 (this function's contract).
        2 * unsafe { pairs_of_lines(input, output, &constants, multipliers, crlf) }
    } else {
        0
    };
    // Pairs need more input after their lines than a line does.
    debug_assert!(done <= count);
    // Taken after the pairs' borrow of `output` has ended, so that no
    // pointer from before it is written through after it.
    let src = input.as_ptr();
    let dst = output.as_mut_ptr().cast::<u8>();
    let last = length - 32;
    for line in done..count {
        // SAFETY: the CPU has AVX2 (this function's contract). Line k < count
        // starts at input k line_input and output k stride. Its round at
        // character `at` (a multiple of 4, at most length - 32) reads
        // input[k line_input + 3 at / 4 - 4 ..][..32]: that ends by (k + 1)
        // line_input + 4, within the input by `count`, and starts in it but
        // for line 0's first round, which reads input[0..32] instead (`count`
        // is 0 under 32 bytes). Its stores are the line's characters and its
        // break: within the output by the assert above.
        unsafe {
            let (line_src, line_dst) = (src.add(line * line_input), dst.add(line * stride));
            let mut bytes = if line == 0 {
                let first = _mm256_loadu_si256(line_src.cast());
                _mm256_permutevar8x32_epi32(first, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6))
            } else {
                _mm256_loadu_si256(line_src.sub(4).cast())
            };
            // Opaque once a line, made after the branch: before it, the
            // compiler prepares the multiplies there and the rounds widen them.
            let multipliers = black_box(multipliers);
            let mut at = 0;
            loop {
                _mm256_storeu_si256(line_dst.add(at).cast(), constants.round(bytes, multipliers));
                if at == last {
                    break;
                }
                at = (at + 32).min(last);
                bytes = _mm256_loadu_si256(line_src.add(at / 4 * 3).sub(4).cast());
            }
            write_break(line_dst.add(length), crlf);
        }
    }
    (count * line_input, count * stride)
}

/// # Safety
/// `at` must be valid for writes of the break's bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn write_break(at: *mut u8, crlf: bool) {
    // SAFETY: `at` takes the break's bytes (this function's contract), and
    // an unaligned write or a byte's takes any address.
    unsafe {
        if crlf {
            at.cast::<[u8; 2]>().write_unaligned(*b"\r\n");
        } else {
            at.write(b'\n');
        }
    }
}

/// MIME's lines two at a time, A then B: rounds at each line's characters 0
/// and 32, then one round for A's last 12 (low lane) and B's (high lane),
/// where a line alone takes a third round. Encodes the first `2 pairs` lines
/// with their breaks, `pairs` being those whose rounds read nothing past the
/// input and leave at least 7 bytes after B; returns `pairs`. `output` is the
/// wrapped encoding of all of `input` (its length is checked).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pairs_of_lines(
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
    constants: &Constants,
    multipliers: Multipliers,
    crlf: bool,
) -> usize {
    const LENGTH: usize = 76;
    const LINE_INPUT: usize = 57;
    let stride = LENGTH + 1 + usize::from(crlf);
    // The shared round reads B's input[48..64], 7 bytes past B: pair p
    // (lines 2p and 2p + 1) needs 114 (p + 1) + 7 <= input.len().
    let pairs = input.len().saturating_sub(7) / (2 * LINE_INPUT);
    // The last B's shared round writes its characters 64..80: the output has
    // them, as the 7 input bytes after B make a line of at least 10
    // characters after B's break, and stride + 10 >= 80.
    assert!(pairs == 0 || (2 * pairs - 1) * stride + LENGTH + 4 <= output.len());
    // SAFETY: the CPU has AVX2 (this function's contract).
    let (breaks, break_bytes) = unsafe { line_breaks(crlf) };
    let src = input.as_ptr();
    let dst = output.as_mut_ptr().cast::<u8>();
    for pair in 0..pairs {
        // Opaque once a pair: its rounds are one block of code.
        let multipliers = black_box(multipliers);
        // SAFETY: the CPU has AVX2 (this function's contract). A starts at
        // input 114 pair and output 2 pair stride, B 57 and a stride later.
        // The rounds at characters 0 and 32 read a line's input[-4..28] and
        // input[20..52], the shared one A's input[44..60] and B's
        // input[48..64], which ends at 114 (pair + 1) + 7, within the input
        // by `pairs`; line 0's first round reads input[0..32] instead
        // (`pairs` is 0 under 121 bytes). Each store writes within a line and
        // the 4 bytes after it, within the output (B's last by the assert).
        // The shared round's, of 12 characters, the break and 2 or 3 junk
        // bytes, goes first, so that B's rounds here and the line after B
        // (the next pair's, `line_rounds`' or the caller's) overwrite the junk.
        unsafe {
            let (a_src, a_dst) = (src.add(2 * pair * LINE_INPUT), dst.add(2 * pair * stride));
            let (b_src, b_dst) = (a_src.add(LINE_INPUT), a_dst.add(stride));
            let a_first = if pair == 0 {
                let first = _mm256_loadu_si256(src.cast());
                _mm256_permutevar8x32_epi32(first, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6))
            } else {
                _mm256_loadu_si256(a_src.sub(4).cast())
            };
            let a_second = _mm256_loadu_si256(a_src.add(20).cast());
            // A's input[48..57] at the low lane's bytes 4..13, B's at the high
            // lane's 0..9, where `shuffle` reads each lane's 12 bytes.
            let tails = _mm256_loadu2_m128i(b_src.add(48).cast(), a_src.add(44).cast());
            let b_first = _mm256_loadu_si256(b_src.sub(4).cast());
            let b_second = _mm256_loadu_si256(b_src.add(20).cast());
            let tails =
                _mm256_blendv_epi8(constants.round(tails, multipliers), breaks, break_bytes);
            _mm256_storeu_si256(a_dst.cast(), constants.round(a_first, multipliers));
            _mm256_storeu_si256(a_dst.add(32).cast(), constants.round(a_second, multipliers));
            _mm256_storeu2_m128i(b_dst.add(64).cast(), a_dst.add(64).cast(), tails);
            _mm256_storeu_si256(b_dst.cast(), constants.round(b_first, multipliers));
            _mm256_storeu_si256(b_dst.add(32).cast(), constants.round(b_second, multipliers));
        }
    }
    pairs
}

/// What the shared round of `pairs_of_lines` blends in: each lane's break
/// after its 12 characters, and the mask of its bytes. A blend leaves no byte
/// store in the loop, nor a branch on the break, which costs the rounds after
/// it their 16-bit multiplies.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn line_breaks(crlf: bool) -> (__m256i, __m256i) {
    // SAFETY: the CPU has AVX2 (this function's contract).
    unsafe {
        if crlf {
            (
                _mm256_set1_epi32(0x0000_0A0D),
                _mm256_setr_epi32(0, 0, 0, 0xFFFF, 0, 0, 0, 0xFFFF),
            )
        } else {
            (
                _mm256_set1_epi32(0x0000_000A),
                _mm256_setr_epi32(0, 0, 0, 0xFF, 0, 0, 0, 0xFF),
            )
        }
    }
}

/// Plain code, the definition (RFC 4648 section 4) the rounds are held to,
/// for what they leave: inputs under 16 bytes, a group between rounds, the
/// bytes after the whole groups. `output` is exactly the encoding of `input`.
fn encode_tail(input: &[u8], opts: EncodeOptions, output: &mut [MaybeUninit<u8>]) -> usize {
    let characters = characters(opts.alphabet);
    let char_of = |value: u32| characters[(value & 63) as usize];
    let mut groups = input.chunks_exact(3);
    let mut quads = output.chunks_exact_mut(4);
    for (group, quad) in groups.by_ref().zip(quads.by_ref()) {
        let bits = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
        put(
            quad,
            &[
                char_of(bits >> 18),
                char_of(bits >> 12),
                char_of(bits >> 6),
                char_of(bits),
            ],
        );
    }
    let written = input.len() / 3 * 4;
    written + encode_partial(groups.remainder(), opts, &mut output[written..])
}

/// The input's last partial group, `rest` (0 to 2 bytes), and its padding,
/// into `output`, exactly their length; returns it. Always inlined: every
/// input of 16 bytes or more ends here, where a call showed in short encodes.
#[inline(always)]
fn encode_partial(rest: &[u8], opts: EncodeOptions, output: &mut [MaybeUninit<u8>]) -> usize {
    let characters = characters(opts.alphabet);
    let char_of = |value: u32| characters[(value & 63) as usize];
    let (bits, chars) = match *rest {
        [] => return 0,
        [a] => (u32::from(a) << 16, 2),
        [a, b] => (u32::from(a) << 16 | u32::from(b) << 8, 3),
        _ => unreachable!("a partial group has at most 2 bytes"),
    };
    let third = if chars == 3 { char_of(bits >> 6) } else { b'=' };
    let quad = [char_of(bits >> 18), char_of(bits >> 12), third, b'='];
    // A copy per length: one of a length read at run time calls `memcpy`.
    let len = if opts.padding { 4 } else { chars };
    match len {
        4 => put(&mut output[..4], &quad),
        3 => put(&mut output[..3], &quad[..3]),
        _ => put(&mut output[..2], &quad[..2]),
    }
    len
}

/// # Safety
/// None to keep: off x86-64 `available` is false, so nothing calls it.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn rounds<const STREAMING: bool>(
    _input: &[u8],
    _output: &mut [MaybeUninit<u8>],
    _opts: EncodeOptions,
) -> (usize, usize) {
    unreachable!("`available` is false off x86-64")
}

/// Encodes every whole 3-byte group of an `input` of at least 16 bytes
/// (`half_rounds` under 32) into the start of `output`, which must hold them
/// (it is checked); returns the bytes read and written (none under 16).
///
/// # Safety
/// The CPU must have AVX2, and when `STREAMING` `output` must start
/// 32-byte aligned.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rounds<const STREAMING: bool>(
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
    opts: EncodeOptions,
) -> (usize, usize) {
    // Round r reads input[24r - 4 .. 24r + 28], round 0 input[0..32] moved 4
    // bytes up: so rounds need 32 bytes, and `rounds` of them 24 (rounds - 1)
    // + 28 = 24 rounds + 4 <= input.len() bytes.
    let len = input.len();
    if len < 32 {
        // SAFETY: the CPU has AVX2 (this function's contract).
        return unsafe { half_rounds(input, output, opts) };
    }
    let rounds = (len - 4) / 24;
    let whole = len / 3 * 3;
    // Round r writes output[32r .. 32r + 32], and the last round below
    // output[4 whole / 3 - 32 .. 4 whole / 3]: all within the encoding of
    // the whole groups, as 24 rounds <= len - 4 < whole and whole >= 30.
    assert!(whole / 3 * 4 <= output.len());
    let src = input.as_ptr();
    let dst = output.as_mut_ptr().cast::<u8>();
    // SAFETY: the CPU has AVX2 (this function's contract). Round 0 reads
    // input[0..32] (len >= 32) and writes output[0..32] (the assert above),
    // the output's start, 32-byte aligned when `STREAMING` (the contract).
    let (constants, multipliers) = unsafe {
        let (constants, multipliers) = (Constants::new(opts.alphabet), Multipliers::new());
        let first = _mm256_loadu_si256(src.cast());
        let first = _mm256_permutevar8x32_epi32(first, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
        store::<STREAMING>(dst, constants.round(first, multipliers));
        (constants, multipliers)
    };
    let mut r = 1;
    // Four rounds an iteration: independent loads and stores in flight.
    while r + 4 <= rounds {
        let multipliers = black_box(multipliers);
        for r in r..r + 4 {
            // SAFETY: the CPU has AVX2 (this function's contract). Round r <
            // rounds reads input[24r - 4 .. 24r + 28] and writes
            // output[32r .. 32r + 32], in bounds by the count and the assert
            // above; 32r keeps the output's start's 32-byte alignment when
            // `STREAMING`.
            unsafe {
                let bytes = _mm256_loadu_si256(src.add(24 * r - 4).cast());
                store::<STREAMING>(dst.add(32 * r), constants.round(bytes, multipliers));
            }
        }
        r += 4;
    }
    while r < rounds {
        // SAFETY: as in the loop above.
        unsafe {
            let bytes = _mm256_loadu_si256(src.add(24 * r - 4).cast());
            let multipliers = black_box(multipliers);
            store::<STREAMING>(dst.add(32 * r), constants.round(bytes, multipliers));
        }
        r += 1;
    }
    // The groups left (at most 9): the last 8 by a round over the input's
    // last 32 bytes, rewriting any the rounds wrote; the one before, plainly
    // and last, as its borrow of `output` ends what `dst` may write.
    let last = whole - 24;
    // SAFETY: the CPU has AVX2 (this function's contract). The last round
    // reads input[len - 32 .. len] and writes output[4 last / 3 ..][..32],
    // which ends at 4 whole / 3, within the output by the assert above.
    unsafe {
        if STREAMING {
            // Streaming stores are weakly ordered: fence them before the
            // stores below and the term that hands the output over.
            _mm_sfence();
        }
        // The window input[last..whole] is bytes 8 - cut .. 32 - cut of the
        // 32, `cut` being the bytes after the whole groups; with words 1-4 in
        // the low lane and 4-7 in the high, each lane's 12 start at 4 - cut.
        let bytes = _mm256_loadu_si256(src.add(len - 32).cast());
        let bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(1, 2, 3, 4, 4, 5, 6, 7));
        let cut = _mm256_set1_epi8((len - whole) as i8);
        let groups = _mm256_shuffle_epi8(bytes, _mm256_sub_epi8(constants.last_shuffle, cut));
        let characters = constants.encode(groups, multipliers);
        _mm256_storeu_si256(dst.add(last / 3 * 4).cast(), characters);
    }
    if last > 24 * rounds {
        encode_tail(
            &input[24 * rounds..last],
            opts,
            &mut output[32 * rounds..last / 3 * 4],
        );
    }
    (whole, whole / 3 * 4)
}

/// Inputs of 16 to 31 bytes, on 128-bit registers: a lane's rounds of 12
/// bytes at bytes 0 and (from 27 whole bytes) 12, and the last whole groups
/// from the input's last 16 bytes, as `rounds` does with 32; returns the bytes
/// read and written (none under 16). `output` must hold the groups (checked).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn half_rounds(
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
    opts: EncodeOptions,
) -> (usize, usize) {
    let len = input.len();
    if len < 16 {
        return (0, 0);
    }
    let whole = len / 3 * 3;
    assert!(whole / 3 * 4 <= output.len());
    let src = input.as_ptr();
    let dst = output.as_mut_ptr().cast::<u8>();
    // SAFETY: the CPU has AVX2 (this function's contract). The rounds read
    // input[0..16], input[8..24] (when whole > 24, so len >= 27) and
    // input[len - 16 .. len] (len >= 16); they write output[0..16],
    // output[16..32] and the 16 bytes that end at 4 whole / 3, all within
    // the whole groups' encoding (the assert above; whole >= 15).
    unsafe {
        let constants = Constants::new(opts.alphabet);
        let multipliers = black_box(Multipliers::new());
        let shuffle = _mm256_castsi256_si128(constants.shuffle);
        let first = _mm_slli_si128::<4>(_mm_loadu_si128(src.cast()));
        let characters = constants.encode128(_mm_shuffle_epi8(first, shuffle), multipliers);
        _mm_storeu_si128(dst.cast(), characters);
        if whole > 24 {
            let bytes = _mm_loadu_si128(src.add(8).cast());
            let characters = constants.encode128(_mm_shuffle_epi8(bytes, shuffle), multipliers);
            _mm_storeu_si128(dst.add(16).cast(), characters);
        }
        // The window input[whole - 12 .. whole] is bytes 4 - cut .. 16 -
        // cut of the last 16, `cut` being the bytes after the whole groups.
        let bytes = _mm_loadu_si128(src.add(len - 16).cast());
        let cut = _mm_set1_epi8((len - whole) as i8);
        let groups = _mm_shuffle_epi8(bytes, _mm_sub_epi8(shuffle, cut));
        let characters = constants.encode128(groups, multipliers);
        _mm_storeu_si128(dst.add(whole / 3 * 4 - 16).cast(), characters);
    }
    (whole, whole / 3 * 4)
}

/// # Safety
/// The CPU must have AVX2, and `at` must be valid for 32 bytes of writes,
/// 32-byte aligned when `STREAMING`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store<const STREAMING: bool>(at: *mut u8, characters: __m256i) {
    // SAFETY: this function's contract is what either store needs.
    unsafe {
        if STREAMING {
            _mm256_stream_si256(at.cast(), characters)
        } else {
            _mm256_storeu_si256(at.cast(), characters)
        }
    }
}

/// The two multiplies that cut a group into 6-bit values, taken by each loop
/// iteration through `black_box`: seeing their values, the compiler turns
/// them into shifts and blends, or widened multiplies prepared outside the
/// loop, both far slower. Its and `Constants`' functions enable no target
/// feature, so that their intrinsics are unsafe calls on every Rust this
/// crate takes, each with its proof.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Multipliers {
    first_third: __m256i,
    second_fourth: __m256i,
}

#[cfg(target_arch = "x86_64")]
impl Multipliers {
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn new() -> Multipliers {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            Multipliers {
                first_third: _mm256_set1_epi32(0x0400_0040),
                second_fourth: _mm256_set1_epi32(0x0100_0010),
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
struct Constants {
    shuffle: __m256i,
    last_shuffle: __m256i,
    odd_bytes: __m256i,
    six_bits: __m256i,
    offsets: __m256i,
}

#[cfg(target_arch = "x86_64")]
impl Constants {
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn new(alphabet: Alphabet) -> Constants {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            Constants {
                // Each 32-bit lane gets a group a, b, c as b, a, c, b: its low
                // 16-bit word a then b, its high word b then c. The low lane's
                // 12 bytes start at its byte 4, the high lane's at 0.
                shuffle: _mm256_setr_epi8(
                    5, 4, 6, 5, 8, 7, 9, 8, 11, 10, 12, 11, 14, 13, 15, 14, //
                    1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,
                ),
                // For the last round, both lanes from byte 4 (less the cut).
                last_shuffle: _mm256_setr_epi8(
                    5, 4, 6, 5, 8, 7, 9, 8, 11, 10, 12, 11, 14, 13, 15, 14, //
                    5, 4, 6, 5, 8, 7, 9, 8, 11, 10, 12, 11, 14, 13, 15, 14,
                ),
                // `encode` takes each lane's bytes 1 and 3 from the low
                // multiply, 0 and 2 from the high one, and keeps 6 bits.
                odd_bytes: _mm256_set1_epi32(0xFF00_FF00_u32 as i32),
                six_bits: _mm256_set1_epi8(0x3F),
                // What `encode` adds to each range of 6-bit values: index 0 for
                // 0-25 (`A`), 1 for 26-51 (`a`), 2-11 for 52-61 (`0`), 12 for
                // 62 and 13 for 63 (`+` and `/`, or `-` and `_`).
                offsets: match alphabet {
                    Alphabet::UrlSafe => _mm256_setr_epi8(
                        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 0, 0, //
                        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 0, 0,
                    ),
                    _ => _mm256_setr_epi8(
                        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0, //
                        65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0,
                    ),
                },
            }
        }
    }

    /// A round's 32 characters from its 32 loaded bytes (the low lane's 12
    /// at its bytes 4..16, the high lane's at 0..12).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn round(&self, bytes: __m256i, multipliers: Multipliers) -> __m256i {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe { self.encode(_mm256_shuffle_epi8(bytes, self.shuffle), multipliers) }
    }

    /// `encode` on a 128-bit register: the 16 characters of 4 groups
    /// (`encode` works lane by lane, so the low lane's are these).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn encode128(&self, groups: __m128i, multipliers: Multipliers) -> __m128i {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe { _mm256_castsi256_si128(self.encode(_mm256_zextsi128_si256(groups), multipliers)) }
    }

    /// The 32 characters of a round from its 8 groups, one to a 32-bit
    /// lane as `shuffle` leaves them.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn encode(&self, groups: __m256i, multipliers: Multipliers) -> __m256i {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            // Each 6-bit value to the low bits of a byte of its own: the high
            // multiply (low word right by 10 bits, high word by 6) gives bytes
            // 0 and 2, the low one (low word left by 4, high by 8) 1 and 3.
            let first_third = _mm256_mulhi_epu16(groups, multipliers.first_third);
            let second_fourth = _mm256_mullo_epi16(groups, multipliers.second_fourth);
            let values = _mm256_and_si256(
                _mm256_blendv_epi8(first_third, second_fourth, self.odd_bytes),
                self.six_bits,
            );
            // The offset's index: 0 for values up to 51, 1-12 above, plus 1
            // for values above 25 (the comparison gives -1).
            let index = _mm256_subs_epu8(values, _mm256_set1_epi8(51));
            let index = _mm256_sub_epi8(index, _mm256_cmpgt_epi8(values, _mm256_set1_epi8(25)));
            _mm256_add_epi8(values, _mm256_shuffle_epi8(self.offsets, index))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::as_output;
    use crate::test_support::{on_avx2, Rng};

    fn encode_to_vec(input: &[u8], opts: EncodeOptions) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(input.len(), opts.padding).unwrap()];
        assert_eq!(
            avx2_encode_into(input, opts, as_output(&mut out), Stores::Cached),
            out.len()
        );
        out
    }

    fn simdutf_to_vec(input: &[u8], opts: EncodeOptions) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(input.len(), opts.padding).unwrap()];
        assert_eq!(
            crate::simdutf::simdutf_encode_into(input, opts, as_output(&mut out)),
            out.len()
        );
        out
    }

    /// The reference: `encode_tail`, the plain definition, over all of it.
    fn reference_to_vec(input: &[u8], opts: EncodeOptions) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(input.len(), opts.padding).unwrap()];
        assert_eq!(encode_tail(input, opts, as_output(&mut out)), out.len());
        out
    }

    const BOTH_STORES: [Stores; 2] = [Stores::Cached, Stores::Streaming];

    fn all_options() -> impl Iterator<Item = EncodeOptions> {
        [Alphabet::Standard, Alphabet::UrlSafe]
            .into_iter()
            .flat_map(|alphabet| [true, false].map(|padding| EncodeOptions { alphabet, padding }))
    }

    #[test]
    fn the_reference_follows_rfc4648_section10() {
        crate::test_support::follows_rfc4648(reference_to_vec);
    }

    /// Every value in every position of a round: each 6-bit value reaches
    /// each of the 32 characters of a round, in both alphabets.
    #[test]
    fn every_value_in_every_position() {
        on_avx2("every_value_in_every_position", Rounds::Encode, || {
            for options in all_options() {
                for value in 0..64u32 {
                    for len in [16, 20, 27, 31, 32, 33, 52, 100] {
                        // Bits that make `value` appear in each character in turn.
                        let bits: Vec<u8> = (0..len * 8)
                            .map(|bit| ((value >> (5 - bit % 6)) & 1) as u8)
                            .collect();
                        let input: Vec<u8> = bits
                            .chunks(8)
                            .map(|byte| byte.iter().fold(0, |acc, b| acc << 1 | b))
                            .collect();
                        assert_eq!(
                            encode_to_vec(&input, options),
                            reference_to_vec(&input, options),
                            "value {value} len {len} {options:?}"
                        );
                    }
                }
            }
        });
    }

    /// Every length 0..=4096, under both alphabets and paddings, against the
    /// reference and simdutf's encoder.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn every_length_to_4096() {
        on_avx2("every_length_to_4096", Rounds::Encode, || {
            let seed = 0x5EED_A002;
            println!("seed {seed:#x}");
            let plain = Rng(seed).bytes(4096);
            for options in all_options() {
                for len in 0..=4096 {
                    let input = &plain[..len];
                    let ours = encode_to_vec(input, options);
                    assert_eq!(
                        ours,
                        reference_to_vec(input, options),
                        "len {len} {options:?}"
                    );
                    assert_eq!(
                        ours,
                        simdutf_to_vec(input, options),
                        "len {len} {options:?}"
                    );
                }
            }
        });
    }

    /// Every input and output alignment 0..64, at lengths around the rounds'
    /// edges, into buffers whose bytes around the output must stay as they
    /// were.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn every_alignment() {
        on_avx2("every_alignment", Rounds::Encode, || {
            let seed = 0x5EED_A003;
            println!("seed {seed:#x}");
            let mut rng = Rng(seed);
            let plain = rng.bytes(4096 + 64);
            let mut out = vec![0u8; 6000];
            for len in [
                0, 1, 27, 28, 31, 32, 33, 51, 52, 53, 100, 124, 125, 1000, 4096,
            ] {
                for (options, stores) in all_options().flat_map(|o| BOTH_STORES.map(|s| (o, s))) {
                    for in_at in 0..64 {
                        let input = &plain[in_at..in_at + len];
                        let want = simdutf_to_vec(input, options);
                        for out_at in 0..64 {
                            let guard = rng.next() as u8;
                            out.fill(guard);
                            let target = &mut out[out_at..out_at + want.len()];
                            avx2_encode_into(input, options, as_output(target), stores);
                            let at =
                                format!("len {len} at {in_at}/{out_at} {options:?} {stores:?}");
                            assert_eq!(target, &want[..], "{at}");
                            assert!(
                                out[..out_at].iter().all(|&b| b == guard)
                                    && out[out_at + want.len()..].iter().all(|&b| b == guard),
                                "wrote outside the output: {at}"
                            );
                        }
                    }
                }
            }
        });
    }

    /// Random lengths up to 4 MiB against simdutf's encoder.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn random_lengths_to_4_mib() {
        on_avx2("random_lengths_to_4_mib", Rounds::Encode, || {
            let seed = 0x5EED_A004;
            println!("seed {seed:#x}");
            let mut rng = Rng(seed);
            let plain = rng.bytes(4 << 20);
            for _ in 0..40 {
                let len = rng.next() as usize % (plain.len() + 1);
                let at = rng.next() as usize % (plain.len() - len + 1);
                let options = rng.encode_options();
                let input = &plain[at..at + len];
                let want = simdutf_to_vec(input, options);
                for stores in BOTH_STORES {
                    let mut out = vec![0u8; want.len()];
                    avx2_encode_into(input, options, as_output(&mut out), stores);
                    assert!(out == want, "len {len} at {at} {options:?} {stores:?}");
                }
            }
        });
    }

    /// The line encoder takes MIME's and PEM's lines, and no others.
    #[test]
    fn takes_mime_and_pem_lines_only() {
        use crate::options::LineBreak;
        for line_break in [LineBreak::CrLf, LineBreak::Lf] {
            for length in [64, 76] {
                assert!(takes_lines(Lines { length, line_break }), "{length}");
            }
            for length in [4, 32, 60, 63, 65, 75, 77, 128] {
                assert!(!takes_lines(Lines { length, line_break }), "{length}");
            }
        }
    }

    /// `avx2_encode_lines_into` against the reference cut into lines, at every
    /// input length 0..=4096 (odd and even line counts, every length of the
    /// last line, on both sides of each pair's bound in `pairs_of_lines`),
    /// both line lengths, breaks, alphabets and paddings, each at its own
    /// input and output offsets 0..64, which move with the length; then
    /// 76-character lines at every pair of offsets, at lengths around the
    /// pairs' bounds. The bytes around the output must stay as they were.
    #[test]
    fn lines_at_every_length_and_offset() {
        use crate::options::LineBreak;
        on_avx2("lines_at_every_length_and_offset", Rounds::Encode, || {
            let seed = 0x5EED_A006;
            println!("seed {seed:#x}");
            let mut rng = Rng(seed);
            let plain = rng.bytes(4096 + 64);
            let options: Vec<EncodeOptions> = all_options().collect();
            // The encoding of the whole groups of plain[at..][..len] is the
            // start of that of plain[at..][..4096]: one reference per offset.
            let texts: Vec<Vec<Vec<u8>>> = (0..64)
                .map(|at| {
                    let input = &plain[at..at + 4096];
                    options
                        .iter()
                        .map(|&o| reference_to_vec(input, o))
                        .collect()
                })
                .collect();
            let mut out = vec![0u8; 6000];
            let mut check = |len: usize, in_at: usize, out_at: usize, o: usize, lines: Lines| {
                let (length, line_break) = (lines.length, lines.line_break.bytes());
                // The input ends where its allocation does: AddressSanitizer
                // reports a read past it.
                let owned = plain[..in_at + len].to_vec();
                let input = &owned[in_at..];
                let mut text = texts[in_at][o][..len / 3 * 4].to_vec();
                text.extend(reference_to_vec(&input[len / 3 * 3..], options[o]));
                let wrapped = text.len() + text.len().saturating_sub(1) / length * line_break.len();
                let guard = rng.next() as u8;
                out.fill(guard);
                let target = &mut out[out_at..out_at + wrapped];
                let label = format!("len {len} {lines:?} {:?} at {in_at}/{out_at}", options[o]);
                assert_eq!(
                    avx2_encode_lines_into(input, options[o], lines, as_output(target)),
                    wrapped,
                    "{label}"
                );
                let stride = length + line_break.len();
                for (i, line) in text.chunks(length).enumerate() {
                    let at = i * stride;
                    assert!(target[at..at + line.len()] == *line, "line {i}: {label}");
                    if at + line.len() < wrapped {
                        let brk = &target[at + length..at + stride];
                        assert!(brk == line_break, "break {i}: {label}");
                    }
                }
                assert!(
                    out[..out_at]
                        .iter()
                        .chain(&out[out_at + wrapped..])
                        .all(|&b| b == guard),
                    "wrote outside the output: {label}"
                );
            };
            let every_lines = [64, 76].into_iter().flat_map(|length| {
                [LineBreak::CrLf, LineBreak::Lf].map(|line_break| Lines { length, line_break })
            });
            for (l, lines) in every_lines.enumerate() {
                for o in 0..options.len() {
                    let c = l * options.len() + o;
                    for len in 0..=4096 {
                        check(len, (len + 5 * c) % 64, (3 * len + 11 * c) % 64, o, lines);
                    }
                }
            }
            // 1 and 2 lines, the first pair's bound (121) and the lines left
            // after the pairs (odd and even counts, short last lines).
            for len in [
                57, 114, 120, 121, 122, 170, 171, 177, 178, 234, 235, 292, 348, 349, 4096,
            ] {
                for in_at in 0..64 {
                    for out_at in 0..64 {
                        for line_break in [LineBreak::CrLf, LineBreak::Lf] {
                            let lines = Lines {
                                length: 76,
                                line_break,
                            };
                            check(len, in_at, out_at, (in_at + out_at) % 4, lines);
                        }
                    }
                }
            }
        });
    }

    /// The rounds use the upper halves of the YMM registers; the compiler
    /// clears them on the way out (`vzeroupper`), or every SSE instruction
    /// after the call would run slower (`simdutf.rs`, `clear_upper_state`).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn leaves_the_upper_state_clear() {
        use crate::test_support::{upper_state_in_use, upper_state_still_clear};
        on_avx2("leaves_the_upper_state_clear", Rounds::Encode, || {
            // SAFETY: the CPU has AVX2, so AVX's `vzeroupper`.
            unsafe { std::arch::x86_64::_mm256_zeroupper() };
            let before = upper_state_in_use();
            let input = [0x5Au8; 100];
            let mut out = [0u8; 136];
            avx2_encode_into(
                &input,
                EncodeOptions::DEFAULT,
                as_output(&mut out),
                Stores::Cached,
            );
            upper_state_still_clear("avx2::encode::leaves_the_upper_state_clear", before);
        });
    }
}
