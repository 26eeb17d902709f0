/*
 * The cost floor of a small Base64 call, for `b64simd_small` (make bench):
 * what any NIF that maps a binary to a new binary must pay before it does
 * any encoding at all. Not part of the library.
 */
#include <erl_nif.h>
#include <string.h>

/* The NIF call itself: returns its argument. */
static ERL_NIF_TERM
identity(ErlNifEnv* env, int argc, const ERL_NIF_TERM argv[])
{
    (void)env;
    (void)argc;
    return argv[0];
}

/* Reads the input binary and returns a new binary of its padded Base64
 * length (a heap binary up to 64 bytes), filled with 'A': an encoder whose
 * encoding costs nothing. */
static ERL_NIF_TERM
inspect_and_allocate(ErlNifEnv* env, int argc, const ERL_NIF_TERM argv[])
{
    ErlNifBinary input;
    ERL_NIF_TERM output;
    size_t length;
    unsigned char* bytes;

    (void)argc;
    if (!enif_inspect_binary(env, argv[0], &input)) {
        return enif_make_badarg(env);
    }
    length = (input.size + 2) / 3 * 4;
    bytes = enif_make_new_binary(env, length, &output);
    memset(bytes, 'A', length);
    return output;
}

static ErlNifFunc functions[] = {
    {"identity", 1, identity, 0},
    {"inspect_and_allocate", 1, inspect_and_allocate, 0},
};

ERL_NIF_INIT(b64simd_floor_nif, functions, NULL, NULL, NULL, NULL)
