//! Which simdutf kernel runs, and whether a forced one is usable.
//!
//! simdutf picks its kernel on first use, or takes the one named by the
//! environment variable `SIMDUTF_FORCE_IMPLEMENTATION`. It checks neither
//! case for us: an unknown name silently makes encode return 0 bytes and
//! decode fail with `OTHER`, and a known name whose instructions the CPU lacks
//! faults the whole VM. So the NIF refuses to load unless the kernel is one
//! simdutf has in this build, the CPU has what it needs, and a probe call
//! shows simdutf really runs it.

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
    kernels()
        .into_iter()
        .filter(|(_, ok)| *ok)
        .map(|(name, _)| name)
        .collect()
}

/// The kernel simdutf will use in this process, or why it must not be used.
pub fn active() -> Result<&'static str, String> {
    let name = resolve(std::env::var(FORCE_VARIABLE).ok().as_deref())?;
    if simdutf_runs_a_kernel() {
        Ok(name)
    } else {
        Err(format!(
            "simdutf has no kernel named {name:?} in this build: it runs none \
             (known here: {})",
            supported().join(", ")
        ))
    }
}

/// Whether simdutf runs a real kernel. When the forced name is not one it
/// compiled, it runs its "unsupported" stand-in, whose encode writes
/// nothing: so the list above can never claim a kernel that does not run.
fn simdutf_runs_a_kernel() -> bool {
    let input = [0u8];
    let mut output = [0u8; 4];
    let written =
        crate::simd::encode_into(&input, crate::options::EncodeOptions::DEFAULT, &mut output);
    written == 4 && &output == b"AA=="
}

fn resolve(forced: Option<&str>) -> Result<&'static str, String> {
    let kernels = kernels();
    match forced {
        None => Ok(supported().first().copied().unwrap_or("fallback")),
        Some(name) => match kernels.iter().find(|(known, _)| *known == name) {
            Some((known, true)) => Ok(known),
            Some((known, false)) => Err(format!(
                "{FORCE_VARIABLE}={known}: this CPU lacks the instructions of simdutf's {known} kernel; \
                 supported here: {}",
                supported().join(", ")
            )),
            None => Err(format!(
                "{FORCE_VARIABLE}={name:?} names no simdutf kernel; known here: {}",
                kernels.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            )),
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
            assert!(resolve(Some("fallback")).is_err());
        } else {
            assert_eq!(supported().last(), Some(&"fallback"));
            assert_eq!(resolve(Some("fallback")), Ok("fallback"));
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
        let err = resolve(Some("pentium")).unwrap_err();
        assert!(err.contains("names no simdutf kernel"), "{err}");
        assert!(resolve(Some("")).is_err());
    }

    #[test]
    fn default_is_the_best_supported() {
        assert_eq!(resolve(None), Ok(supported()[0]));
    }
}
