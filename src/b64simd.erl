%% @doc Base64 and Base64url (RFC 4648) at memory-copy speed, over simdutf's
%% runtime-dispatched SIMD kernels.
%%
%% A drop-in for OTP's `base64' (same function names, options and defaults as
%% OTP 26+), taking any `iodata()', with precise errors: bad Base64 raises
%% `error(Reason, Args, [{error_info, ...}])' where `Reason' names what is
%% wrong and its 0-based byte offset in the flattened input, and
%% `try_decode/1,2' returns it as `{error, Reason}'. Big inputs are processed
%% in slices of about 40 us, so no call blocks a scheduler.
-module(b64simd).

-export([encode/1, encode/2, encode_to_string/1, encode_to_string/2]).
-export([decode/1, decode/2, decode_to_string/1, decode_to_string/2]).
-export([try_decode/1, try_decode/2]).
-export([mime_decode/1, mime_decode/2, mime_decode_to_string/1, mime_decode_to_string/2]).
-export([is_valid/1, is_valid/2]).
-export([format_error/1, format_error/2, kernel/0, encoders/0]).

-export_type([mode/0, encode_options/0, decode_options/0, reason/0]).
-export_type([line_break/0, mime_decode_options/0, load_error/0, error_map/0]).

-type mode() :: standard | urlsafe.
%% `standard': RFC 4648 section 4, `+' and `/'. `urlsafe': section 5, `-' and `_'.

-type encode_options() :: #{mode => mode(), padding => boolean(),
                            line_length => pos_integer(), line_break => line_break()}.
%% `mode' defaults to `standard', `padding' to `true'. `line_length': wrap
%% the output every that many characters (default: no wrapping); the break
%% goes between lines only, never after the last. `line_break' (default
%% `crlf', as RFC 2045 requires) only matters with `line_length'. MIME bodies
%% use `#{line_length => 76}', PEM `#{line_length => 64, line_break => lf}'.

-type line_break() :: crlf | lf.

-type decode_options() :: #{mode => mode() | any,
                            padding => boolean(),
                            whitespace => skip | reject,
                            canonical => boolean()}.
%% `mode': `standard' (default), `urlsafe', or `any' to accept both alphabets,
%% mixed. `padding': `true' (default) requires `=' padding as OTP 26 does;
%% `false' makes it optional, but padding that is present must be complete.
%% `whitespace': `skip' (default) ignores `\t \n \r' and space anywhere,
%% `reject' refuses them. `canonical': `true' rejects non-zero unused bits in
%% the last character (RFC 4648 section 3.5); default `false', as OTP.

-type mime_decode_options() :: #{mode => mode() | any, padding => boolean()}.
%% As OTP 26's `base64:mime_decode/2': `mode' `standard' (default) or
%% `urlsafe' (and `any', both alphabets, as for decode); `padding' `true'
%% (default) requires a `=' after an incomplete final group, `false' does not.

-type error_map() :: #{pos_integer() => unicode:chardata(), general => unicode:chardata()}.
%% What `format_error/2' of b64simd's modules returns, as `erl_error'
%% reads it: what is wrong with each argument, by its position, and in
%% general.

-type reason() :: missing_padding
                | {invalid_character, non_neg_integer()}
                | {bad_padding, non_neg_integer()}
                | {incomplete, non_neg_integer()}
                | {non_canonical, non_neg_integer()}.
%% Why Base64 was rejected, with the 0-based byte offset into the flattened
%% input: a byte outside the alphabet (`\f' and `\v' included, as in OTP);
%% `=' where no padding can be, or one too many, or padding cut short (offset
%% of its first `='); a dangling single character; an unpadded final quantum
%% while padding is required; non-zero unused bits under `canonical => true'.

-type load_error() :: {forced_kernel_unsupported, Kernel :: binary(), Supported :: [binary()]}
                    | {unknown_kernel, Name :: binary(), Known :: [binary()]}
                    | {own_avx2_unsupported, Value :: binary()}
                    | {unknown_own_avx2, Value :: binary(), Known :: [binary()]}
                    | {library_missing, File :: file:filename()}
                    | {built_for_another_otp, File :: file:filename(), Detail :: string()}
                    | {built_for_another_architecture, File :: file:filename(),
                       Detail :: string()}
                    | {glibc_too_old, File :: file:filename(), Needed :: string()}
                    | {load_failed, File :: file:filename(), Detail :: string()}
                    | {reload_refused, File :: file:filename(), Detail :: string()}
                    | unknown.
%% Why the NIF library did not load, as every call then raises it in
%% `{b64simd_nif_not_loaded, LoadError, Message}' (`Message' a binary that
%% says it and its fix, the text {@link format_error/1} gives for a
%% `LoadError'; the shell prints it whole): `SIMDUTF_FORCE_IMPLEMENTATION'
%% forces a simdutf kernel this CPU cannot run (and the kernels it can), or
%% names none; `B64SIMD_OWN_AVX2' asks for our AVX2 code on a CPU without
%% AVX2, or takes no such value; the library file is missing, or was built for another OTP,
%% another CPU architecture or operating system, or a newer glibc than this
%% system's (`Detail': what the loader said); any other failure of the
%% loader. A new version of the module while one runs is refused
%% (`reload_refused', which only the load returns: the running code keeps
%% its library). `unknown': old code of the module, replaced since, recorded
%% none.

%%====================================================================
%% API
%%====================================================================

%% @doc Encodes `Data' as standard Base64 with padding (RFC 4648 section 4).
-spec encode(Data) -> Base64 when
      Data :: iodata(),
      Base64 :: binary().
encode(Data) ->
    case b64simd_nif:encode(Data) of
        Base64 when is_binary(Base64) -> Base64;
        Other -> b64simd_call:result(Other, fun b64simd_nif:encode/1, {?MODULE, encode, [Data]}, value)
    end.

%% @doc Encodes `Data' with options: `#{mode => standard | urlsafe, padding =>
%% boolean(), line_length => pos_integer(), line_break => crlf | lf}'.
%% `encode(<<255,254>>, #{mode => urlsafe, padding => false})' gives
%% `<<"__4">>'; `encode(Data, #{line_length => 76})' gives a MIME body,
%% `encode(Der, #{line_length => 64, line_break => lf})' a PEM body. Decoding
%% wrapped output with default options gives `Data' back.
-spec encode(Data, Options) -> Base64 when
      Data :: iodata(),
      Options :: encode_options(),
      Base64 :: binary().
encode(Data, Options) ->
    case b64simd_nif:encode(Data, nif_options(Options)) of
        Base64 when is_binary(Base64) -> Base64;
        Other -> b64simd_call:result(Other, fun b64simd_nif:encode/2, {?MODULE, encode, [Data, Options]}, value)
    end.

%% @doc As {@link encode/1}, returning a string.
-spec encode_to_string(Data) -> Base64String when
      Data :: iodata(),
      Base64String :: string().
encode_to_string(Data) ->
    binary_to_list(encode(Data)).

%% @doc As {@link encode/2}, returning a string.
-spec encode_to_string(Data, Options) -> Base64String when
      Data :: iodata(),
      Options :: encode_options(),
      Base64String :: string().
encode_to_string(Data, Options) ->
    binary_to_list(encode(Data, Options)).

%% @doc Decodes standard Base64, padding required, whitespace skipped: accepts
%% exactly what OTP's `base64:decode/1' accepts. Raises `reason()' (with
%% `error_info', see {@link format_error/2}) on bad Base64, `badarg' if `Base64'
%% is not iodata.
-spec decode(Base64) -> Data when
      Base64 :: iodata(),
      Data :: binary().
decode(Base64) ->
    case b64simd_nif:decode(Base64) of
        Data when is_binary(Data) -> Data;
        Other -> b64simd_call:result(Other, fun b64simd_nif:decode/1, {?MODULE, decode, [Base64]}, decoded)
    end.

%% @doc Decodes with options (see `decode_options()'). Raises like {@link
%% decode/1}, and `badarg' for an unknown option or a bad option value.
-spec decode(Base64, Options) -> Data when
      Base64 :: iodata(),
      Options :: decode_options(),
      Data :: binary().
decode(Base64, Options) ->
    case b64simd_nif:decode(Base64, nif_options(Options)) of
        Data when is_binary(Data) -> Data;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:decode/2, {?MODULE, decode, [Base64, Options]},
                                decoded)
    end.

%% @doc As {@link decode/1}, returning a string.
-spec decode_to_string(Base64) -> DataString when
      Base64 :: iodata(),
      DataString :: string().
decode_to_string(Base64) ->
    binary_to_list(decode(Base64)).

%% @doc As {@link decode/2}, returning a string.
-spec decode_to_string(Base64, Options) -> DataString when
      Base64 :: iodata(),
      Options :: decode_options(),
      DataString :: string().
decode_to_string(Base64, Options) ->
    binary_to_list(decode(Base64, Options)).

%% @doc As {@link decode/1}, but bad Base64 gives `{error, Reason}' instead of
%% an exception. Still raises `badarg' if `Base64' is not iodata.
-spec try_decode(Base64) -> {ok, Data} | {error, Reason} when
      Base64 :: iodata(),
      Data :: binary(),
      Reason :: reason().
try_decode(Base64) ->
    case b64simd_nif:decode(Base64) of
        Data when is_binary(Data) -> {ok, Data};
        Other -> b64simd_call:result(Other, fun b64simd_nif:decode/1, {?MODULE, try_decode, [Base64]}, tried)
    end.

%% @doc As {@link decode/2}, but bad Base64 gives `{error, Reason}'. Still
%% raises `badarg' for bad arguments or options.
-spec try_decode(Base64, Options) -> {ok, Data} | {error, Reason} when
      Base64 :: iodata(),
      Options :: decode_options(),
      Data :: binary(),
      Reason :: reason().
try_decode(Base64, Options) ->
    case b64simd_nif:decode(Base64, nif_options(Options)) of
        Data when is_binary(Data) -> {ok, Data};
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:decode/2,
                                {?MODULE, try_decode, [Base64, Options]}, tried)
    end.

%%====================================================================
%% API: OTP's mime_decode, is_valid
%%====================================================================

%% @doc Decodes standard Base64 exactly as OTP's `base64:mime_decode/1':
%% every byte outside the alphabet is skipped (line breaks, `=' in
%% mid-stream, any garbage), as RFC 2045 section 6.8 asks of MIME readers.
%% Raises `{incomplete, Offset}' if the alphabet characters leave one
%% dangling (OTP crashes with `function_clause' there), `missing_padding' if
%% they end in an incomplete group with no `=' after it (OTP 26's reason),
%% `badarg' if `Base64' is not iodata.
-spec mime_decode(Base64) -> Data when
      Base64 :: iodata(),
      Data :: binary().
mime_decode(Base64) ->
    case b64simd_nif:mime_decode(Base64) of
        Data when is_binary(Data) -> Data;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:mime_decode/1, {?MODULE, mime_decode, [Base64]},
                                decoded)
    end.

%% @doc As {@link mime_decode/1}, with OTP 26's options (see
%% `mime_decode_options()'): `padding => false' accepts an incomplete final
%% group without `='. Raises `badarg' for any other option or a bad value.
-spec mime_decode(Base64, Options) -> Data when
      Base64 :: iodata(),
      Options :: mime_decode_options(),
      Data :: binary().
mime_decode(Base64, Options) ->
    case b64simd_nif:mime_decode(Base64, Options) of
        Data when is_binary(Data) -> Data;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:mime_decode/2,
                                {?MODULE, mime_decode, [Base64, Options]}, decoded)
    end.

%% @doc As {@link mime_decode/1}, returning a string.
-spec mime_decode_to_string(Base64) -> DataString when
      Base64 :: iodata(),
      DataString :: string().
mime_decode_to_string(Base64) ->
    binary_to_list(mime_decode(Base64)).

%% @doc As {@link mime_decode/2}, returning a string.
-spec mime_decode_to_string(Base64, Options) -> DataString when
      Base64 :: iodata(),
      Options :: mime_decode_options(),
      DataString :: string().
mime_decode_to_string(Base64, Options) ->
    binary_to_list(mime_decode(Base64, Options)).

%% @doc Whether {@link try_decode/1} would return `{ok, _}', without building
%% the decoded binary (the input is decoded into a small scratch buffer).
%% Raises `badarg' if `Base64' is not iodata.
-spec is_valid(Base64) -> boolean() when
      Base64 :: iodata().
is_valid(Base64) ->
    case b64simd_nif:is_valid(Base64) of
        Valid when is_boolean(Valid) -> Valid;
        Other -> b64simd_call:result(Other, fun b64simd_nif:is_valid/1, {?MODULE, is_valid, [Base64]}, value)
    end.

%% @doc Whether {@link try_decode/2} with the same options would return
%% `{ok, _}'. Raises `badarg' for bad arguments or options, like `decode/2'.
-spec is_valid(Base64, Options) -> boolean() when
      Base64 :: iodata(),
      Options :: decode_options().
is_valid(Base64, Options) ->
    case b64simd_nif:is_valid(Base64, nif_options(Options)) of
        Valid when is_boolean(Valid) -> Valid;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:is_valid/2,
                                {?MODULE, is_valid, [Base64, Options]}, value)
    end.

%% @doc The simdutf kernel in use: `icelake', `haswell', `westmere', `arm64'
%% or `fallback'. The environment variable `SIMDUTF_FORCE_IMPLEMENTATION'
%% forces one (the library refuses to load if the CPU cannot run it).
-spec kernel() -> atom().
kernel() ->
    binary_to_atom(b64simd_nif:kernel()).

%% @doc The Base64 encoders in use: `avx2' is b64simd's own, for x86-64
%% CPUs with AVX2; `simdutf' is simdutf's, of the kernel {@link kernel/0}
%% names. `avx2' encodes where that kernel is `haswell', and calls of
%% `big_call_bytes' (16 MiB) or more on every CPU with AVX2 unless the
%% kernel is `fallback' (no SIMD), writing their output around the caches;
%% `simdutf' everywhere else. The environment variable `B64SIMD_OWN_AVX2'
%% chooses instead: `never' for `simdutf' on every call, `always' for `avx2'
%% on a CPU with AVX2, `auto' the default; the library refuses to load on
%% another value. It switches b64simd's short AVX2 decoder the same way.
-spec encoders() -> #{calls := Encoder, big_calls := Encoder, big_call_bytes := pos_integer()}
      when Encoder :: avx2 | simdutf.
encoders() ->
    {Calls, BigCalls, BigCallBytes} = b64simd_nif:encoders(),
    #{calls => binary_to_atom(Calls), big_calls => binary_to_atom(BigCalls),
      big_call_bytes => BigCallBytes}.

%% @doc Says what a reason (raised by this module, or returned by
%% {@link try_decode/2}) means, and how to fix it where the reason alone
%% tells: `format_error({invalid_character, 3})' gives
%% `"invalid base64 character at byte 3"'. The exception's own message
%% (see `format_error/2') also names the character and the option that
%% accepts it. A `load_error()', or the whole exception a call raises when
%% the NIF library did not load, gives the sentence that exception holds.
-spec format_error(Reason) -> Message when
      Reason :: reason() | badarg | load_error()
              | {b64simd_nif_not_loaded, load_error(), binary()},
      Message :: string().
format_error({b64simd_nif_not_loaded, LoadError, _Message}) ->
    format_error(LoadError);
format_error(Reason) ->
    unicode:characters_to_list(b64simd_messages:reason(Reason, #{})).

%% @doc Explains an error raised by this module, for `erl_error' and the
%% shell: a map from argument position to a description that says what is
%% wrong and how to fix it.
-spec format_error(Reason :: term(), erlang:stacktrace()) -> error_map().
format_error(Reason, StackTrace) ->
    b64simd_messages:error_map(Reason, StackTrace, fun kind/1, #{}).

%%====================================================================
%% Internal
%%====================================================================

%% The kind of call a function makes (its options, its messages).
kind(Function) when Function =:= encode; Function =:= encode_to_string -> encode;
kind(Function) when Function =:= mime_decode; Function =:= mime_decode_to_string -> mime;
kind(_Decode) -> decode.

%% The commonest option map (JWT's, and HyperBEAM's IDs') as the atom that
%% the NIF reads in one comparison, where a map costs it two lookups; any
%% other map as it is.
-compile({inline, [nif_options/1]}).
nif_options(#{mode := urlsafe, padding := false} = Options) when map_size(Options) =:= 2 ->
    urlsafe_unpadded;
nif_options(Options) ->
    Options.
