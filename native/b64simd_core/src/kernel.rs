//! Which simdutf kernel runs, and whether a forced one is usable.
//!
//! simdutf picks its kernel on first use, or takes the one named by the
//! environment variable `SIMDUTF_FORCE_IMPLEMENTATION`. It checks neither
//! case for us: an unknown name silently makes encode return 0 bytes and
//! decode fail with `OTHER`, and a known name whose instructions the CPU lacks
//! faults the whole VM. So the NIF refuses to load unless the kernel is one
//! simdutf has in this build, the CPU has what it needs, and a probe call
//! shows simdutf really runs it.

use std::sync::OnceLock;

pub const FORCE_VARIABLE: &str = "SIMDUTF_FORCE_IMPLEMENTATION";

/// The kernels simdutf 7 compiles for this architecture, best first, each
/// with the CPU features its constructor requires. On aarch64 it compiles
/// its arm64 kernel only: NEON is part of the base ISA, so simdutf leaves
/// the fallback out (`SIMDUTF_IMPLEMENTATION_FALLBACK` is 0 there) and a
/// forced `fallback` would name no kernel.
fn kernels() -> Vec<(&'static str, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let haswell = has!("avx2") && has!("bmi1") && has!("bmi2");
        let icelake = haswell
            && has!("avx512bw")
            && has!("avx512cd")
            && has!("avx512vl")
            && has!("avx512vbmi2")
            && has!("avx512vpopcntdq");
        vec![
            ("icelake", icelake),
            ("haswell", haswell),
            ("westmere", has!("sse4.2")),
            ("fallback", true),
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        vec![("arm64", true)]
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        vec![("fallback", true)]
    }
}

/// The kernels this CPU can run, best first.
pub fn supported() -> Vec<&'static str> {
    supported_among(&kernels())
}

fn supported_among(kernels: &[(&'static str, bool)]) -> Vec<&'static str> {
    kernels
        .iter()
        .filter(|(_, ok)| *ok)
        .map(|(name, _)| *name)
        .collect()
}

/// Why a forced kernel must not be used, as data: the NIF hands it to
/// Erlang, where `b64simd_messages` says it in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A kernel of this build whose instructions the CPU lacks, and the
    /// kernels the CPU can run.
    Unsupported {
        kernel: &'static str,
        supported: Vec<&'static str>,
    },
    /// A name simdutf runs no kernel for in this build, and the names of
    /// those it has.
    Unknown {
        name: String,
        known: Vec<&'static str>,
    },
}

/// The kernel simdutf uses in this process, or why it must not be used:
/// decided once, at the first call (the NIF's load), as simdutf reads the
/// variable once; changing the variable later changes neither.
pub fn active() -> Result<&'static str, Refusal> {
    static ACTIVE: OnceLock<Result<&'static str, Refusal>> = OnceLock::new();
    ACTIVE.get_or_init(chosen).clone()
}

fn chosen() -> Result<&'static str, Refusal> {
    let name = resolve_among(std::env::var(FORCE_VARIABLE).ok().as_deref(), kernels())?;
    if simdutf_runs_a_kernel() {
        Ok(name)
    } else {
        Err(Refusal::Unknown {
            name: name.to_owned(),
            known: supported(),
        })
    }
}

/// Whether simdutf runs a real kernel. When the forced name is not one it
/// compiled, it runs its "unsupported" stand-in, whose encode writes
/// nothing: so the list above can never claim a kernel that does not run.
fn simdutf_runs_a_kernel() -> bool {
    let input = [0u8];
    let mut output = [0u8; 4];
    let written = crate::simdutf::simdutf_encode_into(
        &input,
        crate::options::EncodeOptions::DEFAULT,
        crate::output::as_output(&mut output),
    );
    written == 4 && &output == b"AA=="
}

/// The kernel a forced name (if any) resolves to, on a CPU that can run
/// the kernels marked true in `kernels`.
fn resolve_among(
    forced: Option<&str>,
    kernels: Vec<(&'static str, bool)>,
) -> Result<&'static str, Refusal> {
    let supported = supported_among(&kernels);
    match forced {
        None => Ok(supported.first().copied().unwrap_or("fallback")),
        Some(name) => match kernels.iter().find(|(known, _)| *known == name) {
            Some((known, true)) => Ok(known),
            Some((known, false)) => Err(Refusal::Unsupported {
                kernel: known,
                supported,
            }),
            None => Err(Refusal::Unknown {
                name: name.to_owned(),
                known: kernels.iter().map(|(known, _)| *known).collect(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_matches_the_architecture() {
        if cfg!(target_arch = "aarch64") {
            assert_eq!(supported(), ["arm64"]);
            assert!(resolve_among(Some("fallback"), kernels()).is_err());
        } else {
            assert_eq!(supported().last(), Some(&"fallback"));
            assert_eq!(resolve_among(Some("fallback"), kernels()), Ok("fallback"));
        }
    }

    /// The kernel cargo test runs under (scripts/test.sh forces each in
    /// turn) is one simdutf really has.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn the_running_kernel_is_real() {
        assert!(active().is_ok(), "{:?}", active());
    }

    #[test]
    fn unknown_names_are_refused() {
        let known: Vec<_> = kernels().into_iter().map(|(name, _)| name).collect();
        for name in ["pentium", ""] {
            assert_eq!(
                resolve_among(Some(name), kernels()),
                Err(Refusal::Unknown {
                    name: name.to_owned(),
                    known: known.clone()
                })
            );
        }
    }

    /// What a CPU without AVX-512 is told when icelake is forced, whatever
    /// CPU runs the test.
    #[test]
    fn a_kernel_the_cpu_lacks_is_refused_with_those_it_has() {
        let cpu = vec![
            ("icelake", false),
            ("haswell", true),
            ("westmere", true),
            ("fallback", true),
        ];
        assert_eq!(
            resolve_among(Some("icelake"), cpu.clone()),
            Err(Refusal::Unsupported {
                kernel: "icelake",
                supported: vec!["haswell", "westmere", "fallback"]
            })
        );
        assert_eq!(resolve_among(None, cpu), Ok("haswell"));
    }

    #[test]
    fn default_is_the_best_supported() {
        assert_eq!(resolve_among(None, kernels()), Ok(supported()[0]));
    }
}
