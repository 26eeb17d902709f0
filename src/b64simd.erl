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
-export([format_error/2, kernel/0]).

-export_type([mode/0, encode_options/0, decode_options/0, reason/0]).
-export_type([line_break/0, mime_decode_options/0]).

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

-include("b64simd_flags.hrl").

%% Raised from the API function itself, so the stack trace shows the call the
%% user made; format_error/2 explains it.
-define(RAISE(Reason, Args),
        erlang:error(Reason, Args, [{error_info, #{module => ?MODULE}}])).

%%====================================================================
%% API
%%====================================================================

%% @doc Encodes `Data' as standard Base64 with padding (RFC 4648 section 4).
-spec encode(Data) -> Base64 when
      Data :: iodata(),
      Base64 :: binary().
encode(Data) when is_binary(Data) ->
    encode_binary(Data, ?DEFAULT_FLAGS);
encode(Data) ->
    case b64simd_options:to_binary(Data) of
        badarg -> ?RAISE(badarg, [Data]);
        Binary -> encode_binary(Binary, ?DEFAULT_FLAGS)
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
%% A binary with a map: the map's size read once and chosen on first, so
%% the map is looked up only for the keys its size allows (as
%% b64simd_options does); the common cases go straight to the NIF.
encode(Data, Options) when is_binary(Data), is_map(Options) ->
    case map_size(Options) of
        0 ->
            encode_binary(Data, ?DEFAULT_FLAGS);
        2 ->
            case Options of
                %% The common urlsafe case (JWT, URLs): building the general
                %% case's tuple doubled a 32-byte call.
                #{mode := urlsafe, padding := false} ->
                    encode_binary(Data, ?MODE_URLSAFE);
                %% Both options named (the Elixir facade): no line options.
                #{mode := _, padding := _} ->
                    case b64simd_options:encode_flags(Options) of
                        badarg -> ?RAISE(badarg, [Data, Options]);
                        Flags -> encode_binary(Data, Flags)
                    end;
                _ ->
                    encode_any(Data, Options)
            end;
        _ ->
            encode_any(Data, Options)
    end;
encode(Data, Options) ->
    encode_any(Data, Options).

%% encode/2 in general: iodata, any options, line wrapping. Inlined, so that
%% its error is raised by encode/2.
-compile({inline, [encode_any/2]}).
encode_any(Data, Options) ->
    case {b64simd_options:to_binary(Data), b64simd_options:encode_flags(Options), b64simd_options:line_options(Options)} of
        {badarg, _, _} -> ?RAISE(badarg, [Data, Options]);
        {_, badarg, _} -> ?RAISE(badarg, [Data, Options]);
        {_, _, badarg} -> ?RAISE(badarg, [Data, Options]);
        {Binary, Flags, unwrapped} -> encode_binary(Binary, Flags);
        {Binary, Flags, {Length, Lf}} -> encode_wrapped(Binary, Flags, Length, Lf)
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
    case run_iodata(decode, Base64, ?DEFAULT_FLAGS) of
        Data when is_binary(Data) -> Data;
        {error, Reason} -> ?RAISE(Reason, [Base64]);
        badarg -> ?RAISE(badarg, [Base64])
    end.

%% @doc Decodes with options (see `decode_options()'). Raises like {@link
%% decode/1}, and `badarg' for an unknown option or a bad option value.
-spec decode(Base64, Options) -> Data when
      Base64 :: iodata(),
      Options :: decode_options(),
      Data :: binary().
decode(Base64, Options) ->
    case run_iodata(decode, Base64, b64simd_options:decode_flags(Options)) of
        Data when is_binary(Data) -> Data;
        {error, Reason} -> ?RAISE(Reason, [Base64, Options]);
        badarg -> ?RAISE(badarg, [Base64, Options])
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
    case run_iodata(decode, Base64, ?DEFAULT_FLAGS) of
        Data when is_binary(Data) -> {ok, Data};
        {error, _} = Error -> Error;
        badarg -> ?RAISE(badarg, [Base64])
    end.

%% @doc As {@link decode/2}, but bad Base64 gives `{error, Reason}'. Still
%% raises `badarg' for bad arguments or options.
-spec try_decode(Base64, Options) -> {ok, Data} | {error, Reason} when
      Base64 :: iodata(),
      Options :: decode_options(),
      Data :: binary(),
      Reason :: reason().
try_decode(Base64, Options) ->
    case run_iodata(decode, Base64, b64simd_options:decode_flags(Options)) of
        Data when is_binary(Data) -> {ok, Data};
        {error, _} = Error -> Error;
        badarg -> ?RAISE(badarg, [Base64, Options])
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
    case run_iodata(mime_decode, Base64, ?DEFAULT_FLAGS) of
        Data when is_binary(Data) -> Data;
        {error, Reason} -> ?RAISE(Reason, [Base64]);
        badarg -> ?RAISE(badarg, [Base64])
    end.

%% @doc As {@link mime_decode/1}, with OTP 26's options (see
%% `mime_decode_options()'): `padding => false' accepts an incomplete final
%% group without `='. Raises `badarg' for any other option or a bad value.
-spec mime_decode(Base64, Options) -> Data when
      Base64 :: iodata(),
      Options :: mime_decode_options(),
      Data :: binary().
mime_decode(Base64, Options) ->
    case run_iodata(mime_decode, Base64, b64simd_options:mime_flags(Options)) of
        Data when is_binary(Data) -> Data;
        {error, Reason} -> ?RAISE(Reason, [Base64, Options]);
        badarg -> ?RAISE(badarg, [Base64, Options])
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
    case run_iodata(is_valid, Base64, ?DEFAULT_FLAGS) of
        badarg -> ?RAISE(badarg, [Base64]);
        Valid -> Valid
    end.

%% @doc Whether {@link try_decode/2} with the same options would return
%% `{ok, _}'. Raises `badarg' for bad arguments or options, like `decode/2'.
-spec is_valid(Base64, Options) -> boolean() when
      Base64 :: iodata(),
      Options :: decode_options().
is_valid(Base64, Options) ->
    case run_iodata(is_valid, Base64, b64simd_options:decode_flags(Options)) of
        badarg -> ?RAISE(badarg, [Base64, Options]);
        Valid -> Valid
    end.

%% @doc The simdutf kernel in use: `icelake', `haswell', `westmere', `arm64'
%% or `fallback'. The environment variable `SIMDUTF_FORCE_IMPLEMENTATION'
%% forces one (the library refuses to load if the CPU cannot run it).
-spec kernel() -> atom().
kernel() ->
    binary_to_atom(b64simd_nif:kernel()).

%% @doc Explains an error raised by this module, for `erl_error' and the
%% shell: a map from argument position to a description that says what is
%% wrong and how to fix it.
-spec format_error(Reason, StackTrace) -> ErrorMap when
      Reason :: term(),
      StackTrace :: erlang:stacktrace(),
      ErrorMap :: #{pos_integer() => unicode:chardata(), general => unicode:chardata()}.
format_error(Reason, [{_M, Function, Args, _Info} | _]) when is_list(Args) ->
    format_reason(Reason, Function, Args);
format_error(_Reason, _StackTrace) ->
    #{}.

%%====================================================================
%% Internal: calling the NIF
%%====================================================================

%% The encoded binary; with the default flags from the NIF that need not
%% read them. Inlined, like run_iodata/3 for decoding.
encode_binary(Data, ?DEFAULT_FLAGS) ->
    finish(b64simd_nif:encode(Data), Data);
encode_binary(Data, Flags) ->
    finish(b64simd_nif:encode(Data, Flags), Data).

%% What the NIF `Nif' (decode, mime_decode, is_valid) gives for `Base64':
%% its result, or `badarg' for bad iodata or options; the caller raises, so
%% that the stack trace names the API call. Inlined: callers pass `Nif' as a
%% literal, and most the default flags too, so a binary, the hot case, is a
%% direct call of its NIF (with the default flags, of the one that need not
%% read them). One function of clauses: a dispatch function inlined within
%% an inlined one stayed a call.
run_iodata(decode, Base64, ?DEFAULT_FLAGS) when is_binary(Base64) ->
    finish(b64simd_nif:decode(Base64), Base64);
run_iodata(decode, Base64, Flags) when is_binary(Base64), is_integer(Flags) ->
    finish(b64simd_nif:decode(Base64, Flags), Base64);
run_iodata(mime_decode, Base64, ?DEFAULT_FLAGS) when is_binary(Base64) ->
    finish(b64simd_nif:mime_decode(Base64), Base64);
run_iodata(mime_decode, Base64, Flags) when is_binary(Base64), is_integer(Flags) ->
    finish(b64simd_nif:mime_decode(Base64, Flags), Base64);
run_iodata(is_valid, Base64, ?DEFAULT_FLAGS) when is_binary(Base64) ->
    finish(b64simd_nif:is_valid(Base64), Base64);
run_iodata(is_valid, Base64, Flags) when is_binary(Base64), is_integer(Flags) ->
    finish(b64simd_nif:is_valid(Base64, Flags), Base64);
run_iodata(Nif, Base64, Flags) ->
    iodata_to_nif(Nif, Base64, Flags).

iodata_to_nif(_Nif, _Base64, badarg) ->
    badarg;
iodata_to_nif(Nif, Base64, Flags) ->
    case b64simd_options:to_binary(Base64) of
        badarg -> badarg;
        Binary -> run_iodata(Nif, Binary, Flags)
    end.

encode_wrapped(Data, Flags, Length, Lf) ->
    finish(b64simd_nif:encode_wrapped(Data, Flags, Length, Lf), Data).

%% Big inputs come back as `{continue, Job}' after each slice (40 us of work,
%% charged as a full timeslice): b64simd_options:finish/2 calls back in, so
%% that the scheduler runs others in between. Inlined, and the common case
%% answered here: a call is a noticeable part of a 50 ns encode.
-compile({inline, [finish/2, encode_binary/2, run_iodata/3]}).
finish({continue, _} = Continue, Input) ->
    b64simd_options:finish(Continue, Input);
finish(Result, _Input) ->
    Result.

%%====================================================================
%% Internal: error descriptions
%%====================================================================

format_reason(badarg, Function, [Data | Rest]) ->
    maps:merge(describe_data(Data), describe_options(Function, Rest));
format_reason(Reason, _Function, [Data | Rest]) ->
    Options = case Rest of
                  [Map] when is_map(Map) -> Map;
                  _ -> #{}
              end,
    #{1 => describe_reason(Reason, Data, Options)};
format_reason(_Reason, _Function, _Args) ->
    #{}.

describe_data(Data) when is_binary(Data) -> #{};
describe_data(Data) ->
    try iolist_size(Data) of
        _ -> #{}
    catch
        error:_ when is_bitstring(Data) ->
            #{1 => "not iodata: a bitstring whose size is not a whole number of bytes"};
        error:_ ->
            #{1 => "not iodata: expected a binary or a list of bytes (0..255) and binaries"}
    end.

describe_options(_Function, []) -> #{};
describe_options(_Function, [Options]) when not is_map(Options) ->
    #{2 => "options must be a map"};
describe_options(Function, [Options]) ->
    Known = known_options(Function),
    Problems = [describe_option(Key, Value, maps:find(Key, Known))
                || {Key, Value} <- maps:to_list(Options),
                   not is_valid_option(Key, Value, Known)],
    case Problems of
        [] -> #{};
        _ -> #{2 => lists:join("; ", Problems)}
    end.

%% The options each function takes (the `_to_string' variants raise from
%% the function they call).
known_options(encode) ->
    #{mode => [standard, urlsafe], padding => [true, false],
      line_length => pos_integer, line_break => [crlf, lf]};
known_options(mime_decode) ->
    #{mode => [standard, urlsafe, any], padding => [true, false]};
known_options(_Decode) ->
    #{mode => [standard, urlsafe, any], padding => [true, false],
      whitespace => [skip, reject], canonical => [true, false]}.

is_valid_option(line_length, Value, #{line_length := pos_integer}) ->
    is_integer(Value) andalso Value > 0;
is_valid_option(Key, Value, Known) ->
    lists:member(Value, maps:get(Key, Known, [])).

describe_option(Key, _Value, error) ->
    io_lib:format("unknown option ~tp", [Key]);
describe_option(Key, Value, {ok, pos_integer}) ->
    io_lib:format("bad value ~tp for option ~tp; expected a positive integer", [Value, Key]);
describe_option(Key, Value, {ok, Allowed}) ->
    io_lib:format("bad value ~tp for option ~tp; expected one of ~tp", [Value, Key, Allowed]).

describe_reason(missing_padding, _Data, _Options) ->
    "missing '=' padding at the end; use padding => false to accept unpadded input";
describe_reason({invalid_character, Offset}, Data, Options) ->
    Byte = byte_at(Data, Offset),
    [io_lib:format("invalid base64 character ~s at byte ~b", [show_byte(Byte), Offset])
     | hint(Byte, Options)];
describe_reason({bad_padding, Offset}, _Data, _Options) ->
    io_lib:format("misplaced or incomplete '=' padding at byte ~b: '=' may only end "
                  "the input, once after 3 characters or twice after 2", [Offset]);
describe_reason({incomplete, Offset}, _Data, _Options) ->
    io_lib:format("dangling single base64 character at byte ~b: the input is truncated "
                  "(a final group needs at least 2 characters)", [Offset]);
describe_reason({non_canonical, Offset}, _Data, _Options) ->
    io_lib:format("non-canonical encoding: the unused low bits of the character at byte ~b "
                  "are not zero (RFC 4648 section 3.5); use canonical => false to accept it",
                  [Offset]);
describe_reason(Reason, _Data, _Options) ->
    io_lib:format("~tp", [Reason]).

hint(Byte, Options) when Byte =:= $-; Byte =:= $_ ->
    case maps:get(mode, Options, standard) of
        standard -> "; use mode => urlsafe for '-' and '_'";
        _ -> ""
    end;
hint(Byte, Options) when Byte =:= $+; Byte =:= $/ ->
    case maps:get(mode, Options, standard) of
        urlsafe -> "; use mode => standard for '+' and '/'";
        _ -> ""
    end;
hint(Byte, #{whitespace := reject}) when Byte =:= $\s; Byte =:= $\t; Byte =:= $\n; Byte =:= $\r ->
    "; whitespace is rejected because of whitespace => reject";
hint(_Byte, _Options) ->
    "".

byte_at(Data, Offset) ->
    try iolist_to_binary(Data) of
        <<_:Offset/binary, Byte, _/binary>> -> Byte;
        _ -> undefined
    catch
        error:_ -> undefined
    end.

show_byte(undefined) -> "?";
show_byte(Byte) when Byte >= 16#21, Byte =< 16#7E ->
    io_lib:format("0x~2.16.0B ('~c')", [Byte, Byte]);
show_byte(Byte) ->
    io_lib:format("0x~2.16.0B", [Byte]).
