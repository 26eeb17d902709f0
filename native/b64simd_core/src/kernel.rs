//! Which simdutf kernel runs, and whether a forced one is usable: simdutf
//! checks neither. Forced (`SIMDUTF_FORCE_IMPLEMENTATION`) to an unknown name
//! it silently encodes nothing and fails decodes with `OTHER`; to a kernel
//! the CPU lacks, it faults the VM. So the NIF loads only if the kernel is in
//! this build, the CPU runs it, and a probe call shows simdutf really runs it.

use std::sync::OnceLock;

pub const FORCE_VARIABLE: &str = "SIMDUTF_FORCE_IMPLEMENTATION";

/// The kernels simdutf 7 compiles for this architecture, best first, each
/// with whether the CPU has what its constructor requires. aarch64 gets arm64
/// only: NEON is base ISA, so simdutf leaves the fallback out there.
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

/// Why a forced kernel must not be used; `b64simd_messages` words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A kernel of this build the CPU lacks, and those it can run.
    Unsupported {
        kernel: &'static str,
        supported: Vec<&'static str>,
    },
    /// A name this build has no kernel for, and those it has.
    Unknown {
        name: String,
        known: Vec<&'static str>,
    },
}

/// The kernel simdutf uses in this process, or why not: decided at the first
/// call (the NIF's load), as simdutf reads the variable only once.
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

/// Whether simdutf runs a real kernel, not the stand-in whose encode writes
/// nothing, which it runs for a forced name it lacks even if `kernels` has it.
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

/// The kernel `forced` (if any) resolves to among `kernels`.
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
