//! Which simdutf kernel runs, and whether a forced one is usable.
//!
//! simdutf picks its kernel on first use, or takes the one named by the
//! environment variable `SIMDUTF_FORCE_IMPLEMENTATION`. It checks neither
//! case for us: an unknown name silently makes encode return 0 bytes and
//! decode fail with `OTHER`, and a known name whose instructions the CPU lacks
//! faults the whole VM (DESIGN.md section 7). So the NIF refuses to load
//! unless the kernel is known and the CPU has what it needs.

pub const FORCE_VARIABLE: &str = "SIMDUTF_FORCE_IMPLEMENTATION";

/// The kernels simdutf 7 compiles for this architecture, best first, each
/// with the CPU features its constructor requires.
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
        vec![("arm64", true), ("fallback", true)]
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
    resolve(std::env::var(FORCE_VARIABLE).ok().as_deref())
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
    fn fallback_is_always_supported() {
        assert_eq!(supported().last(), Some(&"fallback"));
        assert_eq!(resolve(Some("fallback")), Ok("fallback"));
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
