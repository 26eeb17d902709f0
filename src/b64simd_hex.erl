%% @doc Base16 (hex, RFC 4648 section 8) at SIMD speed: OTP's
%% `binary:encode_hex/1,2' and `binary:decode_hex/1' with the same names,
%% arguments and results, over const-hex's kernels (AVX2 or SSSE3 on
%% x86-64, chosen at run time, and NEON on aarch64).
%%
%% The module is named for what it holds, as `b64simd_stream' is, and its
%% functions keep OTP's names, so that replacing `binary:encode_hex(Digest)'
%% is a change of module only. Beyond OTP: every function takes any
%% `iodata()', `try_decode_hex/1,2' and `is_valid_hex/1,2' never raise for
%% bad hex, and bad hex raises `Reason' (`{invalid_character, Offset}' or
%% `{incomplete, Offset}') with `error_info' that {@link format_error/2}
%% explains, where OTP raises `badarg'. Decoding takes both cases, as OTP
%% does; the functions of arity 2 take the case to accept. Big inputs are
%% processed in slices of about 40 us, so no call blocks a scheduler.
-module(b64simd_hex).

-export([encode_hex/1, encode_hex/2, decode_hex/1, decode_hex/2]).
-export([try_decode_hex/1, try_decode_hex/2, is_valid_hex/1, is_valid_hex/2]).
-export([format_error/1, format_error/2]).

-export_type([encode_case/0, decode_case/0, reason/0]).

-type encode_case() :: upper | lower | uppercase | lowercase.
%% The digits `A-F' (`upper') or `a-f' (`lower'): the words of
%% `b64simd_base32''s `letter_case' and of Elixir's `Base'. OTP 26's words
%% for `binary:encode_hex/2', `uppercase' and `lowercase', are taken too.

-type decode_case() :: upper | lower | mixed | uppercase | lowercase.
%% The letters a decode accepts: `A-F' only (`upper', or `uppercase'),
%% `a-f' only (`lower', or `lowercase'), or both (`mixed', the default, as
%% OTP's `binary:decode_hex/1').

-type reason() :: {invalid_character, non_neg_integer()}
                | {incomplete, non_neg_integer()}.
%% Why hex was rejected, read left to right: the 0-based offset of the
%% first byte that is not a hex digit of the case accepted; else, for an
%% odd number of digits, the offset of the last one, which has no pair.


%%====================================================================
%% API
%%====================================================================

%% @doc Encodes `Data' as upper-case hex digits, as OTP's
%% `binary:encode_hex/1': `encode_hex(<<"foo">>)' gives `<<"666F6F">>'.
-spec encode_hex(Data) -> Hex when
      Data :: iodata(),
      Hex :: binary().
encode_hex(Data) ->
    case b64simd_nif:hex_encode(Data) of
        Hex when is_binary(Hex) -> Hex;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_encode/1, {?MODULE, encode_hex, [Data]}, value)
    end.

%% @doc Encodes `Data' as hex digits of `Case', as OTP 26's
%% `binary:encode_hex/2': `encode_hex(<<"foo">>, lower)' gives
%% `<<"666f6f">>'. Raises `badarg' for any other `Case'.
-spec encode_hex(Data, Case) -> Hex when
      Data :: iodata(),
      Case :: encode_case(),
      Hex :: binary().
encode_hex(Data, Case) ->
    case b64simd_nif:hex_encode(Data, Case) of
        Hex when is_binary(Hex) -> Hex;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_encode/2, {?MODULE, encode_hex, [Data, Case]}, value)
    end.

%% @doc Decodes hex digits of either case, as OTP's `binary:decode_hex/1':
%% `decode_hex(<<"666f6F">>)' gives `<<"foo">>'. Raises `reason()' (with
%% `error_info', see {@link format_error/2}) for bad hex, `badarg' if `Hex'
%% is not iodata.
-spec decode_hex(Hex) -> Data when
      Hex :: iodata(),
      Data :: binary().
decode_hex(Hex) ->
    case b64simd_nif:hex_decode(Hex) of
        Data when is_binary(Data) -> Data;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_decode/1, {?MODULE, decode_hex, [Hex]}, decoded)
    end.

%% @doc As {@link decode_hex/1}, accepting the letters of `Case' only:
%% `upper' (`A-F'), `lower' (`a-f') or `mixed' (both); OTP's `uppercase'
%% and `lowercase' too.
-spec decode_hex(Hex, Case) -> Data when
      Hex :: iodata(),
      Case :: decode_case(),
      Data :: binary().
decode_hex(Hex, Case) ->
    case b64simd_nif:hex_decode(Hex, Case) of
        Data when is_binary(Data) -> Data;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_decode/2, {?MODULE, decode_hex, [Hex, Case]}, decoded)
    end.

%% @doc As {@link decode_hex/1}, but bad hex gives `{error, Reason}'. Still
%% raises `badarg' if `Hex' is not iodata.
-spec try_decode_hex(Hex) -> {ok, Data} | {error, Reason} when
      Hex :: iodata(),
      Data :: binary(),
      Reason :: reason().
try_decode_hex(Hex) ->
    case b64simd_nif:hex_decode(Hex) of
        Data when is_binary(Data) -> {ok, Data};
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_decode/1, {?MODULE, try_decode_hex, [Hex]}, tried)
    end.

%% @doc As {@link decode_hex/2}, but bad hex gives `{error, Reason}'.
-spec try_decode_hex(Hex, Case) -> {ok, Data} | {error, Reason} when
      Hex :: iodata(),
      Case :: decode_case(),
      Data :: binary(),
      Reason :: reason().
try_decode_hex(Hex, Case) ->
    case b64simd_nif:hex_decode(Hex, Case) of
        Data when is_binary(Data) -> {ok, Data};
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_decode/2, {?MODULE, try_decode_hex, [Hex, Case]}, tried)
    end.

%% @doc Whether {@link decode_hex/1} would succeed, without building the
%% data. Raises `badarg' if `Hex' is not iodata.
-spec is_valid_hex(Hex) -> boolean() when
      Hex :: iodata().
is_valid_hex(Hex) ->
    case b64simd_nif:hex_is_valid(Hex) of
        Valid when is_boolean(Valid) -> Valid;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_is_valid/1, {?MODULE, is_valid_hex, [Hex]}, value)
    end.

%% @doc Whether {@link decode_hex/2} would succeed with `Case'.
-spec is_valid_hex(Hex, Case) -> boolean() when
      Hex :: iodata(),
      Case :: decode_case().
is_valid_hex(Hex, Case) ->
    case b64simd_nif:hex_is_valid(Hex, Case) of
        Valid when is_boolean(Valid) -> Valid;
        Other ->
            b64simd_call:result(Other, fun b64simd_nif:hex_is_valid/2, {?MODULE, is_valid_hex, [Hex, Case]}, value)
    end.

%% @doc Says what a reason (raised by this module, or returned by
%% {@link try_decode_hex/1}) means: `format_error({incomplete, 5})' says
%% that the digit at byte 5 has no pair.
-spec format_error(Reason) -> Message when
      Reason :: reason() | badarg,
      Message :: string().
format_error(Reason) ->
    unicode:characters_to_list(b64simd_messages:reason(Reason, #{encoding => base16})).

%% @doc Explains an error raised by this module for `erl_error' and the
%% shell: the bad hex argument, the digit found and the case accepted.
-spec format_error(Reason :: term(), erlang:stacktrace()) -> b64simd:error_map().
format_error(Reason, StackTrace) ->
    b64simd_messages:error_map(Reason, StackTrace, fun kind/1, #{encoding => base16}).

%%====================================================================
%% Internal
%%====================================================================

%% The kind of call a function makes (its options, its messages).
kind(encode_hex) -> hex_encode;
kind(_Decode) -> hex_decode.
