%% @doc Base32 (RFC 4648 section 6, and the extended hex alphabet of
%% section 7) with the options of Elixir's `Base.encode32/2' and
%% `Base.decode32/2' and the error model of `b64simd': any `iodata()' in,
%% bad Base32 raised as `Reason' with its byte offset and `error_info', or
%% returned by `try_decode/1,2'. Decoding is the `data-encoding' crate's,
%% encoding a portable table loop of the NIF's own; both run in slices of
%% about 40 us, so no call blocks a scheduler.
%%
%% What a decode accepts is what `Base.decode32/2' accepts with the same
%% options: the unused bits of the last character are not checked, and no
%% whitespace is skipped.
-module(b64simd_base32).

-export([encode/1, encode/2, decode/1, decode/2, try_decode/1, try_decode/2]).
-export([is_valid/1, is_valid/2, format_error/1, format_error/2]).

-export_type([alphabet/0, encode_options/0, decode_options/0, reason/0]).

-type alphabet() :: standard | hex.
%% `standard': RFC 4648 section 6, `A-Z' and `2-7'. `hex': the extended hex
%% alphabet of section 7, `0-9' and `A-V', which sorts as the data does.

-type encode_options() :: #{alphabet => alphabet(), letter_case => upper | lower,
                            padding => boolean()}.
%% `alphabet' defaults to `standard', `letter_case' (of the letters
%% written) to `upper', `padding' (`=' up to a multiple of 8 characters) to
%% `true'. `letter_case' is the word of `b64simd_hex' too (the key `case'
%% of earlier versions is refused, with a message that names it).

-type decode_options() :: #{alphabet => alphabet(), letter_case => upper | lower | mixed,
                            padding => boolean()}.
%% `letter_case': the letters accepted, `upper' (default), `lower' or both
%% (`mixed').
%% `padding': `true' (default) requires it; `false' makes it optional, but
%% padding that is present must be complete, as in Elixir's `Base'.

-type reason() :: missing_padding
                | {invalid_character, non_neg_integer()}
                | {bad_padding, non_neg_integer()}
                | {incomplete, non_neg_integer()}.
%% Why Base32 was rejected, with 0-based byte offsets: a byte outside the
%% alphabet and case; `=' before the last group of 8 characters, or padding
%% that does not fill the last group after 2, 4, 5 or 7 characters (its
%% first `='); a last group of 1, 3 or 6 characters, which no data encodes
%% to (its first byte); an unpadded last group while padding is required.


%%====================================================================
%% API
%%====================================================================

%% @doc Encodes `Data' as padded upper-case Base32: `encode(<<"foobar">>)'
%% gives `<<"MZXW6YTBOI======">>'.
-spec encode(Data) -> Base32 when
      Data :: iodata(),
      Base32 :: binary().
encode(Data) ->
    encode(Data, #{}).

%% @doc Encodes `Data' with options (see `encode_options()'):
%% `encode(<<"foobar">>, #{alphabet => hex, letter_case => lower, padding => false})'
%% gives `<<"cpnmuoj1e8">>'. Raises `badarg' for an unknown option or a bad
%% value.
-spec encode(Data, Options) -> Base32 when
      Data :: iodata(),
      Options :: encode_options(),
      Base32 :: binary().
encode(Data, Options) ->
    case b64simd_nif:base32_encode(Data, Options) of
        Base32 when is_binary(Base32) -> Base32;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:base32_encode/2, {?MODULE, encode, [Data, Options]}, value)
    end.

%% @doc Decodes padded upper-case Base32, as `Base.decode32!/1'. Raises
%% `reason()' (with `error_info', see {@link format_error/2}) for bad
%% Base32, `badarg' if `Base32' is not iodata.
-spec decode(Base32) -> Data when
      Base32 :: iodata(),
      Data :: binary().
decode(Base32) ->
    decode(Base32, #{}).

%% @doc Decodes with options (see `decode_options()'). Raises like {@link
%% decode/1}, and `badarg' for an unknown option or a bad value.
-spec decode(Base32, Options) -> Data when
      Base32 :: iodata(),
      Options :: decode_options(),
      Data :: binary().
decode(Base32, Options) ->
    case b64simd_nif:base32_decode(Base32, Options) of
        Data when is_binary(Data) -> Data;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:base32_decode/2, {?MODULE, decode, [Base32, Options]}, decoded)
    end.

%% @doc As {@link decode/1}, but bad Base32 gives `{error, Reason}'.
-spec try_decode(Base32) -> {ok, Data} | {error, Reason} when
      Base32 :: iodata(),
      Data :: binary(),
      Reason :: reason().
try_decode(Base32) ->
    try_decode(Base32, #{}).

%% @doc As {@link decode/2}, but bad Base32 gives `{error, Reason}'. Still
%% raises `badarg' for bad arguments or options.
-spec try_decode(Base32, Options) -> {ok, Data} | {error, Reason} when
      Base32 :: iodata(),
      Options :: decode_options(),
      Data :: binary(),
      Reason :: reason().
try_decode(Base32, Options) ->
    case b64simd_nif:base32_decode(Base32, Options) of
        Data when is_binary(Data) -> {ok, Data};
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:base32_decode/2, {?MODULE, try_decode, [Base32, Options]}, tried)
    end.

%% @doc Whether {@link decode/1} would succeed, without building the data.
-spec is_valid(Base32) -> boolean() when
      Base32 :: iodata().
is_valid(Base32) ->
    is_valid(Base32, #{}).

%% @doc Whether {@link decode/2} would succeed with these options.
-spec is_valid(Base32, Options) -> boolean() when
      Base32 :: iodata(),
      Options :: decode_options().
is_valid(Base32, Options) ->
    case b64simd_nif:base32_is_valid(Base32, Options) of
        Valid when is_boolean(Valid) -> Valid;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:base32_is_valid/2, {?MODULE, is_valid, [Base32, Options]}, value)
    end.

%% @doc Says what a reason (raised by this module, or returned by
%% {@link try_decode/2}) means: `format_error(missing_padding)' says that
%% the `=' padding is missing at the end, and which option accepts
%% unpadded input.
-spec format_error(Reason) -> Message when
      Reason :: reason() | badarg,
      Message :: string().
format_error(Reason) ->
    unicode:characters_to_list(b64simd_messages:reason(Reason, #{encoding => base32})).

%% @doc Explains an error raised by this module for `erl_error' and the
%% shell: the bad argument (the Base32 or an option) and how to fix it.
-spec format_error(Reason :: term(), erlang:stacktrace()) -> b64simd:error_map().
format_error(Reason, StackTrace) ->
    b64simd_messages:error_map(Reason, StackTrace, fun kind/1, #{encoding => base32}).

%%====================================================================
%% Internal
%%====================================================================

%% The kind of call a function makes (its options, its messages).
kind(encode) -> base32_encode;
kind(_Decode) -> base32_decode.
