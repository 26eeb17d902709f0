//! One comparison: an input through every path of our codec, held to the
//! scalar reference (bytes, accept/reject, reason and offset) and to the
//! `base64` crate (bytes and accept/reject).

use crate::reference::Reference;
use b64simd_core::avx2::{self, Stores};
use b64simd_core::decode::{DecodeJob, VALIDATION_SCRATCH};
use b64simd_core::encode::EncodeJob;
use b64simd_core::error::DecodeError;
use b64simd_core::job::{Job, Step};
use b64simd_core::lengths::{encoded_len, maximal_decoded_len};
use b64simd_core::options::{Alphabet, DecodeOptions, EncodeOptions, LineBreak, Lines};
use b64simd_core::output::as_output;
use b64simd_core::rules;
use b64simd_core::scalar;
use b64simd_core::simdutf;
use b64simd_core::stream::decode::{Carry, DecodeEnd, DecodePiece};

/// Output buffers get this many canary bytes past their end: simdutf writes
/// through raw pointers, so an overrun would not panic on its own.
const GUARD: usize = 64;
const CANARY: u8 = 0xA5;

pub fn all_decode_options() -> Vec<DecodeOptions> {
    DecodeOptions::all()
}

pub fn all_encode_options() -> Vec<EncodeOptions> {
    let mut all = Vec::with_capacity(4);
    for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
        for padding in [true, false] {
            all.push(EncodeOptions { alphabet, padding });
        }
    }
    all
}

fn guarded(len: usize) -> Vec<u8> {
    vec![CANARY; len + GUARD]
}

fn check_guard(buffer: &[u8], len: usize, what: &str) -> Result<(), String> {
    match buffer[len..].iter().position(|&b| b != CANARY) {
        None => Ok(()),
        Some(at) => Err(format!("{what} wrote {} bytes past its output", at + 1)),
    }
}

type Decoded = Result<Vec<u8>, DecodeError>;

/// A result short enough for a report: the length and the first bytes.
fn show<E: std::fmt::Debug>(result: &Result<Vec<u8>, E>) -> String {
    match result {
        Ok(bytes) if bytes.len() <= 24 => format!("Ok({bytes:02x?})"),
        Ok(bytes) => format!("Ok({} bytes, {:02x?}..)", bytes.len(), &bytes[..24]),
        Err(error) => format!("Err({error:?})"),
    }
}

/// Where two outputs first differ, if both succeeded.
fn first_difference<E>(a: &Result<Vec<u8>, E>, b: &Result<Vec<u8>, E>) -> String {
    match (a, b) {
        (Ok(a), Ok(b)) => match a.iter().zip(b).position(|(x, y)| x != y) {
            Some(at) => format!(" (first difference at output byte {at})"),
            None => format!(" (lengths {} and {})", a.len(), b.len()),
        },
        _ => String::new(),
    }
}

/// Runs a one-shot decoder on an output of exactly
/// `maximal_decoded_len(text.len())` bytes followed by canary bytes.
fn decode_guarded(
    text: &[u8],
    what: &str,
    decoder: impl FnOnce(&mut [u8]) -> Result<usize, DecodeError>,
) -> Result<Decoded, String> {
    let len = maximal_decoded_len(text.len());
    let mut out = guarded(len);
    let result = decoder(&mut out[..len]);
    check_guard(&out, len, what)?;
    Ok(result.map(|n| out[..n].to_vec()))
}

fn decode_scalar(text: &[u8], opts: DecodeOptions) -> Result<Decoded, String> {
    decode_guarded(text, "scalar::decode", |out| {
        scalar::decode(text, opts, as_output(out))
    })
}

/// The one-shot decode as the NIF makes it: the decode job in one step,
/// into an output of the size it asks for.
fn decode_fast(text: &[u8], opts: DecodeOptions) -> Result<Decoded, String> {
    decode_sliced(text, opts, usize::MAX)
}

fn decode_sliced(text: &[u8], opts: DecodeOptions, slice: usize) -> Result<Decoded, String> {
    let mut job = DecodeJob::new(text, opts);
    let len = job.buffer(text).ok_or("no output length")?.size();
    let mut out = guarded(len);
    // Every step consumes at least one byte or ends the job.
    let max_steps = text.len() + 2;
    for _ in 0..max_steps {
        let step = job.step(text, as_output(&mut out[..len]), slice);
        check_guard(&out, len, "DecodeJob::step")?;
        match step {
            Step::More => continue,
            Step::Done(n) => return Ok(Ok(out[..n].to_vec())),
            Step::Failed(error) => return Ok(Err(error)),
        }
    }
    Err(format!(
        "DecodeJob made no progress in {max_steps} steps of {slice} bytes"
    ))
}

/// Runs a stream's job to its end on a guarded output of `len` bytes.
fn stream_job(
    job: &mut impl Job,
    input: &[u8],
    len: usize,
    slice: usize,
    what: &str,
) -> Result<Decoded, String> {
    let mut out = guarded(len);
    let result = job.run_to_end(input, as_output(&mut out[..len]), slice);
    check_guard(&out, len, what)?;
    Ok(result.map(|n| out[..n].to_vec()))
}

/// The text as a decoding stream of three pieces: the data of all of them,
/// or the first error, at its offset in the stream.
fn decode_stream(text: &[u8], opts: DecodeOptions, slice: usize) -> Result<Decoded, String> {
    let cuts = [(text.len() / 3).min(7), text.len() / 2, text.len()];
    let mut carry = Carry::new(opts.to_flags()).ok_or("no stream for these options")?;
    let mut data = Vec::new();
    let mut at = 0;
    for cut in cuts {
        let piece = &text[at..cut];
        at = cut;
        let mut job = DecodePiece::new(&carry, piece);
        let len = job.buffer(piece).ok_or("no output length")?.size();
        match stream_job(&mut job, piece, len, slice, "DecodePiece")? {
            Ok(bytes) => data.extend(bytes),
            Err(error) => return Ok(Err(error)),
        }
        let mut state = vec![0u8; job.next_state_len()];
        job.write_next_state(piece, as_output(&mut state));
        carry = Carry::from_binary(&state).ok_or("a state the stream cannot read")?;
    }
    let mut end = DecodeEnd::new(&carry);
    let len = end.buffer(&[]).ok_or("no output length")?.size();
    Ok(stream_job(&mut end, &[], len, slice, "DecodeEnd")?.map(|bytes| [data, bytes].concat()))
}

fn is_valid(text: &[u8], opts: DecodeOptions, slice: usize) -> bool {
    let mut scratch = vec![0u8; VALIDATION_SCRATCH];
    let mut job = DecodeJob::validating(text, opts);
    job.run_to_end(text, as_output(&mut scratch), slice).is_ok()
}

/// The offset in a reason must point at a byte that can cause it.
fn check_offset(text: &[u8], opts: DecodeOptions, error: DecodeError) -> Result<(), String> {
    let is_significant = |b: u8| rules::sextet(b).is_some();
    let plausible = match error {
        DecodeError::MissingPadding => true,
        DecodeError::InvalidCharacter(at) => text.get(at).is_some_and(|&b| {
            b != b'='
                && (opts.reject_whitespace || !rules::is_otp_whitespace(b))
                && (!is_significant(b)
                    || (opts.alphabet == Alphabet::Standard && matches!(b, b'-' | b'_'))
                    || (opts.alphabet == Alphabet::UrlSafe && matches!(b, b'+' | b'/')))
        }),
        DecodeError::BadPadding(at) => text.get(at) == Some(&b'='),
        DecodeError::Incomplete(at) | DecodeError::NonCanonical(at) => {
            text.get(at).copied().is_some_and(is_significant)
        }
    };
    if plausible {
        Ok(())
    } else {
        Err(format!(
            "{error:?} does not point at a byte that can cause it"
        ))
    }
}

/// Compares every decode path on `text` under `opts`; `slice` is the input
/// bytes per step of the sliced job.
pub fn decode_case(
    reference: &Reference,
    text: &[u8],
    opts: DecodeOptions,
    slice: usize,
) -> Result<(), String> {
    let expected = decode_scalar(text, opts)?;
    let fast = decode_fast(text, opts)?;
    if fast != expected {
        return Err(format!(
            "the one-shot decode gave {}, scalar::decode {}{}",
            show(&fast),
            show(&expected),
            first_difference(&fast, &expected)
        ));
    }
    let sliced = decode_sliced(text, opts, slice)?;
    if sliced != expected {
        return Err(format!(
            "DecodeJob (slices of {slice}) gave {}, scalar::decode {}{}",
            show(&sliced),
            show(&expected),
            first_difference(&sliced, &expected)
        ));
    }
    let streamed = decode_stream(text, opts, slice)?;
    if streamed != expected {
        return Err(format!(
            "the stream (slices of {slice}) gave {}, scalar::decode {}{}",
            show(&streamed),
            show(&expected),
            first_difference(&streamed, &expected)
        ));
    }
    if is_valid(text, opts, slice) != expected.is_ok() {
        return Err(format!(
            "the validation disagrees with scalar::decode {}",
            show(&expected)
        ));
    }
    if let Err(error) = expected {
        check_offset(text, opts, error)?;
    }
    avx2_decode_case(text, opts.alphabet, slice % 64)?;
    let theirs = reference.decode(text, opts).ok_or("rejected");
    match (&expected, &theirs) {
        (Ok(ours), Ok(theirs)) if ours == theirs => Ok(()),
        (Err(_), Err(_)) => Ok(()),
        _ => Err(format!(
            "b64simd gave {}, the base64 crate {}{}",
            show(&expected),
            show(&theirs),
            first_difference(&expected.map_err(|_| "rejected"), &theirs)
        )),
    }
}

/// Our AVX2 decoder, where the CPU has AVX2, on the whole 16-character
/// units of `text`, into an output `shift` bytes into its buffer: the
/// scalar decoder's bytes where every byte there is in the alphabet (the
/// units end no text, so a `=` there is refused), a refusal where one is
/// not, and nothing past the output.
fn avx2_decode_case(text: &[u8], alphabet: Alphabet, shift: usize) -> Result<(), String> {
    if !avx2::available() {
        return Ok(());
    }
    let units = &text[..text.len() / 16 * 16];
    let classes = rules::class_table_for(alphabet);
    let expected = match units
        .iter()
        .all(|&b| rules::is_sextet_class(classes[b as usize]))
    {
        true => {
            let opts = DecodeOptions {
                alphabet,
                padding_required: false,
                reject_whitespace: true,
                canonical: false,
            };
            Some(decode_scalar(units, opts)?.map_err(|e| format!("scalar::decode: {e:?}"))?)
        }
        false => None,
    };
    let end = shift + units.len() / 4 * 3;
    let mut out = guarded(end);
    let written = avx2::decode::decode_units(units, alphabet, as_output(&mut out[shift..end]));
    check_guard(&out, end, "avx2::decode::decode_units")?;
    let ours = written.map(|n| out[shift..shift + n].to_vec());
    if ours != expected {
        return Err(format!(
            "avx2::decode::decode_units (output at +{shift}) gave {:?}, the scalar decoder {:?}",
            ours.map(|o| o.len()),
            expected.map(|e| e.len())
        ));
    }
    Ok(())
}

/// Our AVX2 encoder, where the CPU has AVX2, both ways it stores, into an
/// output `shift` bytes into its buffer: the `base64` crate's bytes (which
/// simdutf's encoder wrote, above), and nothing past them. Then its line
/// encoder, MIME's and PEM's lines with either break, on a copy of `plain`
/// whose allocation ends where it does, so that AddressSanitizer reports a
/// read past it: the same bytes cut into lines.
fn avx2_case(
    plain: &[u8],
    opts: EncodeOptions,
    expected: &[u8],
    shift: usize,
) -> Result<(), String> {
    if !avx2::available() {
        return Ok(());
    }
    let differs = |what: String, got: &[u8], expected: &[u8]| {
        let (got, expected) = (Ok::<_, ()>(got.to_vec()), Ok(expected.to_vec()));
        format!(
            "{what} (output at +{shift}) wrote {}, base64 crate {}{}",
            show(&got),
            show(&expected),
            first_difference(&got, &expected)
        )
    };
    for stores in [Stores::Cached, Stores::Streaming] {
        let end = shift + expected.len();
        let mut out = guarded(end);
        let written = avx2::avx2_encode_into(plain, opts, as_output(&mut out[shift..end]), stores);
        check_guard(&out, end, "avx2::avx2_encode_into")?;
        if written != expected.len() || out[shift..end] != expected[..] {
            let what = format!("avx2::avx2_encode_into ({stores:?}) of {written} bytes");
            return Err(differs(what, &out[shift..end], expected));
        }
    }
    let exact = plain.to_vec();
    for length in [76, 64] {
        for line_break in [LineBreak::CrLf, LineBreak::Lf] {
            let lines = Lines { length, line_break };
            let wrapped = expected
                .chunks(length)
                .collect::<Vec<_>>()
                .join(line_break.bytes());
            let end = shift + wrapped.len();
            let mut out = guarded(end);
            let written =
                avx2::avx2_encode_lines_into(&exact, opts, lines, as_output(&mut out[shift..end]));
            check_guard(&out, end, "avx2::avx2_encode_lines_into")?;
            if written != wrapped.len() || out[shift..end] != wrapped[..] {
                let what = format!("avx2::avx2_encode_lines_into ({lines:?}) of {written} bytes");
                return Err(differs(what, &out[shift..end], &wrapped));
            }
        }
    }
    Ok(())
}

/// Compares both encode paths on `plain` under `opts` with the `base64`
/// crate, and checks that the result decodes back under matching options.
pub fn encode_case(
    reference: &Reference,
    plain: &[u8],
    opts: EncodeOptions,
    slice: usize,
) -> Result<(), String> {
    let expected = reference.encode(plain, opts);
    let len = encoded_len(plain.len(), opts.padding).ok_or("encoded_len overflowed")?;
    if len != expected.len() {
        return Err(format!(
            "encoded_len {len}, base64 crate {}",
            expected.len()
        ));
    }
    let mut out = guarded(len);
    let written = simdutf::simdutf_encode_into(plain, opts, as_output(&mut out[..len]));
    check_guard(&out, len, "simdutf::simdutf_encode_into")?;
    if written != len || out[..len] != expected[..] {
        return Err(format!(
            "simdutf::simdutf_encode_into wrote {written} bytes, {}, base64 crate {}{}",
            show::<()>(&Ok(out[..len].to_vec())),
            show::<()>(&Ok(expected.clone())),
            first_difference::<()>(&Ok(out[..len].to_vec()), &Ok(expected))
        ));
    }
    avx2_case(plain, opts, &expected, slice % 64)?;
    let mut out = guarded(len);
    let mut job = EncodeJob::new(opts);
    let mut result = None;
    for _ in 0..plain.len() + 2 {
        let step = job.step(plain, as_output(&mut out[..len]), slice);
        check_guard(&out, len, "EncodeJob::step")?;
        match step {
            Step::More => continue,
            other => {
                result = Some(other);
                break;
            }
        }
    }
    if result != Some(Step::Done(len)) || out[..len] != expected[..] {
        return Err(format!(
            "EncodeJob (slices of {slice}) ended {result:?} with {}, base64 crate {}{}",
            show::<()>(&Ok(out[..len].to_vec())),
            show::<()>(&Ok(expected.clone())),
            first_difference::<()>(&Ok(out[..len].to_vec()), &Ok(expected))
        ));
    }
    let decode_opts = DecodeOptions {
        alphabet: opts.alphabet,
        padding_required: opts.padding,
        reject_whitespace: true,
        canonical: true,
    };
    match decode_fast(&expected, decode_opts)? {
        Ok(back) if back == plain => Ok(()),
        other => Err(format!("decoding our own encoding gave {}", show(&other))),
    }
}
