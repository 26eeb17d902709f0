//! Input generation: plain bytes of every length, their encodings, and
//! mutations of those encodings aimed at the decision rules (bytes replaced,
//! inserted, removed; whitespace; padding variants; mixed alphabets;
//! non-zero trailing bits; plain noise).

/// xorshift64*: deterministic, so a run reproduces from its printed seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // xorshift has a fixed point at 0.
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Plain data of `len` bytes: usually random, sometimes a constant byte so
/// that encodings repeat one character (`AAAA`, `////`).
pub fn plain(rng: &mut Rng, len: usize) -> Vec<u8> {
    match rng.below(8) {
        0 => vec![0; len],
        1 => vec![0xff; len],
        2 => vec![rng.next() as u8; len],
        _ => {
            let mut out = Vec::with_capacity(len + 8);
            while out.len() < len {
                out.extend_from_slice(&rng.next().to_le_bytes());
            }
            out.truncate(len);
            out
        }
    }
}

/// Bytes that sit on the decision rules' edges.
const SPECIALS: &[u8] = b"=\t\n\r \x0c\x0b-_+/\x00\x80\xff.:AQgw09";
const WHITESPACE: &[u8] = b"\t\n\r ";
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_";

fn random_byte(rng: &mut Rng) -> u8 {
    match rng.below(4) {
        0 => rng.pick(SPECIALS),
        1 => rng.next() as u8,
        _ => rng.pick(ALPHABET),
    }
}

/// Applies one to three mutations to a (usually valid) encoding.
pub fn mutate(rng: &mut Rng, text: &mut Vec<u8>) {
    for _ in 0..=rng.below(3) {
        match rng.below(10) {
            0 => {}
            1 => point_mutations(rng, text),
            2 => sprinkle_whitespace(rng, text),
            3 => wrap_lines(rng, text),
            4 => vary_padding(rng, text),
            5 => swap_alphabet(rng, text),
            6 => set_trailing_bits(rng, text),
            7 => surround_with_whitespace(rng, text),
            8 => {
                let len = text.len();
                *text = (0..rng.below(len + 9)).map(|_| random_byte(rng)).collect();
            }
            _ => {
                // Truncate anywhere: dangling characters, cut padding.
                let keep = rng.below(text.len() + 1);
                text.truncate(keep);
            }
        }
    }
}

fn point_mutations(rng: &mut Rng, text: &mut Vec<u8>) {
    for _ in 0..=rng.below(4) {
        let at = rng.below(text.len() + 1);
        let byte = random_byte(rng);
        match rng.below(3) {
            0 => text.insert(at, byte),
            1 if at < text.len() => text[at] = byte,
            _ if at < text.len() => {
                text.remove(at);
            }
            _ => text.push(byte),
        }
    }
}

/// Inserts whitespace before about one byte in `gap`, in one pass (inserting
/// one at a time would be quadratic on the large inputs).
fn sprinkle_whitespace(rng: &mut Rng, text: &mut Vec<u8>) {
    let gap = 1 + rng.below(16);
    let mut out = Vec::with_capacity(text.len() + text.len() / gap + 2);
    for &byte in text.iter().chain(std::iter::once(&0)) {
        if rng.chance(gap) {
            // \f and \v are rare: they are not whitespace for OTP.
            out.push(if rng.chance(50) {
                rng.pick(b"\x0c\x0b")
            } else {
                rng.pick(WHITESPACE)
            });
        }
        out.push(byte);
    }
    out.pop();
    *text = out;
}

/// A few whitespace bytes (rarely \f) before and after: one-shot decode
/// trims them first.
fn surround_with_whitespace(rng: &mut Rng, text: &mut Vec<u8>) {
    let around = |rng: &mut Rng| -> Vec<u8> {
        let pool: &[u8] = if rng.chance(20) {
            b"\x0c \n"
        } else {
            WHITESPACE
        };
        (0..rng.below(4)).map(|_| rng.pick(pool)).collect()
    };
    let (head, tail) = (around(rng), around(rng));
    *text = [&head[..], &text[..], &tail[..]].concat();
}

/// MIME (76, CRLF) and PEM (64, LF) style line breaks, or other widths.
fn wrap_lines(rng: &mut Rng, text: &mut Vec<u8>) {
    let width = rng.pick(&[76, 64, 72, 4, 1, 3, 17]);
    let brk: &[u8] = rng.pick(&[&b"\r\n"[..], b"\n", b" ", b"\r\n\r\n"]);
    let mut out = Vec::with_capacity(text.len() + text.len() / width * brk.len() + 2);
    for (i, chunk) in text.chunks(width).enumerate() {
        if i > 0 {
            out.extend_from_slice(brk);
        }
        out.extend_from_slice(chunk);
    }
    if rng.chance(2) {
        out.extend_from_slice(brk);
    }
    *text = out;
}

fn vary_padding(rng: &mut Rng, text: &mut Vec<u8>) {
    match rng.below(5) {
        0 => text.retain(|&b| b != b'='),
        1 => text.extend(std::iter::repeat(b'=').take(1 + rng.below(3))),
        2 => {
            let end = text.iter().rposition(|&b| b != b'=').map_or(0, |i| i + 1);
            text.truncate(end + rng.below(text.len() - end + 1));
        }
        3 => {
            let at = rng.below(text.len() + 1);
            let pad: &[u8] = rng.pick(&[&b"="[..], b"==", b"===", b"= ="]);
            text.splice(at..at, pad.iter().copied());
        }
        _ => {
            // Two encodings glued together: padding in mid-stream.
            let copy = text.clone();
            text.extend_from_slice(&copy);
        }
    }
}

fn swap_alphabet(rng: &mut Rng, text: &mut [u8]) {
    let all = rng.chance(2);
    for byte in text.iter_mut() {
        if all || rng.chance(4) {
            *byte = match *byte {
                b'+' => b'-',
                b'/' => b'_',
                b'-' => b'+',
                b'_' => b'/',
                other => other,
            };
        }
    }
}

/// Sets random low bits in the last significant character, so canonical =>
/// true has something to reject.
fn set_trailing_bits(rng: &mut Rng, text: &mut [u8]) {
    if let Some(last) = text.iter().rposition(|b| ALPHABET.contains(b)) {
        let value = ALPHABET.iter().position(|&b| b == text[last]).unwrap_or(0) % 64;
        let new_value = (value & !0xF) | rng.below(16);
        text[last] = ALPHABET[new_value];
    }
}
