//! The atoms the NIF returns: results, decode errors, option problems, load
//! refusals.

rustler::atoms! {
    continue_ = "continue",
    error,
    badarg,
    undefined,
    missing_padding,
    invalid_character,
    bad_padding,
    incomplete,
    non_canonical,
    not_a_map,
    unknown_option,
    bad_value,
    pos_integer,
    none,
    forced_kernel_unsupported,
    unknown_kernel,
    own_avx2_unsupported,
    unknown_own_avx2,
}
