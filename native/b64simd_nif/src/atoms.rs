//! The atoms the NIF returns: results, decode errors, load refusals.

rustler::atoms! {
    continue_ = "continue",
    error,
    ok,
    missing_padding,
    invalid_character,
    bad_padding,
    incomplete,
    non_canonical,
    undefined,
    forced_kernel_unsupported,
    unknown_kernel,
    forced_encoder_unsupported,
    unknown_encoder,
}
