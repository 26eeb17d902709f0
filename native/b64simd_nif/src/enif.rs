//! The erl_nif calls of every short call, linked directly where the VM
//! resolves a NIF library's undefined symbols at load (ELF, 64-bit: Linux,
//! the BSDs), as rustler 0.39 does. rustler 0.37 makes every erl_nif call
//! through a table of pointers it fills at load, a measurable part of a
//! short call (`bench/README.md`). Elsewhere these are rustler's.

#[cfg(all(unix, not(target_os = "macos"), target_pointer_width = "64"))]
pub(crate) use direct::{
    enif_alloc_binary, enif_get_uint64, enif_inspect_binary, enif_make_binary,
    enif_make_new_binary, enif_make_sub_binary, enif_realloc_binary, enif_release_binary,
};
#[cfg(not(all(unix, not(target_os = "macos"), target_pointer_width = "64")))]
pub(crate) use rustler::sys::{
    enif_alloc_binary, enif_get_uint64, enif_inspect_binary, enif_make_binary,
    enif_make_new_binary, enif_make_sub_binary, enif_realloc_binary, enif_release_binary,
};

#[cfg(all(unix, not(target_os = "macos"), target_pointer_width = "64"))]
mod direct {
    use rustler::sys::{c_int, ErlNifBinary, ErlNifEnv, ERL_NIF_TERM};

    extern "C" {
        pub(crate) fn enif_inspect_binary(
            env: *mut ErlNifEnv,
            bin_term: ERL_NIF_TERM,
            bin: *mut ErlNifBinary,
        ) -> c_int;
        pub(crate) fn enif_make_new_binary(
            env: *mut ErlNifEnv,
            size: usize,
            termp: *mut ERL_NIF_TERM,
        ) -> *mut u8;
        pub(crate) fn enif_alloc_binary(size: usize, bin: *mut ErlNifBinary) -> c_int;
        pub(crate) fn enif_realloc_binary(bin: *mut ErlNifBinary, size: usize) -> c_int;
        pub(crate) fn enif_release_binary(bin: *mut ErlNifBinary);
        pub(crate) fn enif_make_binary(env: *mut ErlNifEnv, bin: *mut ErlNifBinary)
            -> ERL_NIF_TERM;
        pub(crate) fn enif_make_sub_binary(
            env: *mut ErlNifEnv,
            bin_term: ERL_NIF_TERM,
            pos: usize,
            size: usize,
        ) -> ERL_NIF_TERM;
        /// `enif_get_uint64` is a macro for this where `long` has 64 bits.
        #[link_name = "enif_get_ulong"]
        pub(crate) fn enif_get_uint64(
            env: *mut ErlNifEnv,
            term: ERL_NIF_TERM,
            ip: *mut u64,
        ) -> c_int;
    }
}
