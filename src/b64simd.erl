%% @doc Base64 and Base64url (RFC 4648) at memory-copy speed, over simdutf's
%% runtime-dispatched SIMD kernels.
%%
%% A drop-in for OTP's `base64' (same function names, options and defaults as
%% OTP 26+), taking any `iodata()', with precise errors: bad Base64 raises
%% `error(Reason, Args, [{error_info, ...}])' where `Reason' names what is
%% wrong and its 0-based byte offset in the flattened input, and
%% `try_decode/1,2' returns it as `{error, Reason}'. Big inputs are processed
%% in slices of about 1 ms, so no call blocks a scheduler.
-module(b64simd).

-export([encode/1, encode/2, encode_to_string/1, encode_to_string/2]).
-export([decode/1, decode/2, decode_to_string/1, decode_to_string/2]).
-export([try_decode/1, try_decode/2]).
-export([format_error/2, kernel/0]).

-export_type([mode/0, encode_options/0, decode_options/0, reason/0]).

-type mode() :: standard | urlsafe.
%% `standard': RFC 4648 section 4, `+' and `/'. `urlsafe': section 5, `-' and `_'.

-type encode_options() :: #{mode => mode(), padding => boolean()}.
%% `mode' defaults to `standard', `padding' to `true'.

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

%% Option flags shared with native/b64simd_nif/src/options.rs.
-define(MODE_STANDARD, 0).
-define(MODE_URLSAFE, 1).
-define(MODE_ANY, 2).
-define(PADDING, 4).
-define(REJECT_WHITESPACE, 8).
-define(CANONICAL, 16).
-define(DEFAULT_FLAGS, ?PADDING).

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
    finish(b64simd_nif:encode(Data, ?DEFAULT_FLAGS), Data);
encode(Data) ->
    case to_binary(Data) of
        badarg -> ?RAISE(badarg, [Data]);
        Binary -> encode_binary(Binary, ?DEFAULT_FLAGS)
    end.

%% @doc Encodes `Data' with options: `#{mode => standard | urlsafe, padding =>
%% boolean()}'. `encode(<<255,254>>, #{mode => urlsafe, padding => false})'
%% gives `<<"__4">>'.
-spec encode(Data, Options) -> Base64 when
      Data :: iodata(),
      Options :: encode_options(),
      Base64 :: binary().
encode(Data, Options) ->
    case {to_binary(Data), encode_flags(Options)} of
        {badarg, _} -> ?RAISE(badarg, [Data, Options]);
        {_, badarg} -> ?RAISE(badarg, [Data, Options]);
        {Binary, Flags} -> encode_binary(Binary, Flags)
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
    case decode_iodata(Base64, ?DEFAULT_FLAGS) of
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
    case decode_iodata(Base64, decode_flags(Options)) of
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
    case decode_iodata(Base64, ?DEFAULT_FLAGS) of
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
    case decode_iodata(Base64, decode_flags(Options)) of
        Data when is_binary(Data) -> {ok, Data};
        {error, _} = Error -> Error;
        badarg -> ?RAISE(badarg, [Base64, Options])
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
format_error(Reason, [{_M, Fun, Args, _Info} | _]) when is_list(Args) ->
    format_reason(Reason, Fun, Args);
format_error(_Reason, _StackTrace) ->
    #{}.

%%====================================================================
%% Internal: calling the NIF
%%====================================================================

encode_binary(Data, Flags) ->
    finish(b64simd_nif:encode(Data, Flags), Data).

%% The decoded binary, `{error, Reason}', or `badarg' for bad iodata or
%% options; the caller raises, so that the stack trace names the API call.
decode_iodata(_Base64, badarg) ->
    badarg;
decode_iodata(Base64, Flags) when is_binary(Base64) ->
    finish(b64simd_nif:decode(Base64, Flags), Base64);
decode_iodata(Base64, Flags) ->
    case to_binary(Base64) of
        badarg -> badarg;
        Binary -> finish(b64simd_nif:decode(Binary, Flags), Binary)
    end.

%% Big inputs come back as `{continue, Job}' after each slice of about 1 ms;
%% calling back in from Erlang lets the scheduler run others in between.
finish({continue, Job}, Input) ->
    finish(b64simd_nif:continue(Job, Input), Input);
finish(Result, _Input) ->
    Result.

%% Flattened once here, not in the NIF (as jiffy does): iolist_to_binary is
%% OTP's fastest way, and a binary is then read in place.
to_binary(Data) when is_binary(Data) ->
    Data;
to_binary(Data) when is_list(Data) ->
    try
        iolist_to_binary(Data)
    catch
        error:_ -> badarg
    end;
to_binary(_Data) ->
    badarg.

%%====================================================================
%% Internal: options, parsed once into the NIF's flags
%%====================================================================

%% Each returns the NIF's flags, or `badarg' for a non-map, an unknown key
%% or a bad value (OTP would treat `mode => url' as standard; we refuse it).
encode_flags(Options) when is_map(Options) ->
    fold_options(fun encode_option/2, ?DEFAULT_FLAGS, maps:to_list(Options));
encode_flags(_Options) ->
    badarg.

encode_option({mode, standard}, Flags) -> Flags;
encode_option({mode, urlsafe}, Flags) -> Flags bor ?MODE_URLSAFE;
encode_option({padding, true}, Flags) -> Flags;
encode_option({padding, false}, Flags) -> Flags band bnot ?PADDING;
encode_option(_, _Flags) -> badarg.

decode_flags(Options) when is_map(Options) ->
    fold_options(fun decode_option/2, ?DEFAULT_FLAGS, maps:to_list(Options));
decode_flags(_Options) ->
    badarg.

decode_option({mode, standard}, Flags) -> Flags;
decode_option({mode, urlsafe}, Flags) -> Flags bor ?MODE_URLSAFE;
decode_option({mode, any}, Flags) -> Flags bor ?MODE_ANY;
decode_option({padding, true}, Flags) -> Flags;
decode_option({padding, false}, Flags) -> Flags band bnot ?PADDING;
decode_option({whitespace, skip}, Flags) -> Flags;
decode_option({whitespace, reject}, Flags) -> Flags bor ?REJECT_WHITESPACE;
decode_option({canonical, false}, Flags) -> Flags;
decode_option({canonical, true}, Flags) -> Flags bor ?CANONICAL;
decode_option(_, _Flags) -> badarg.

fold_options(_Parse, Flags, []) ->
    Flags;
fold_options(Parse, Flags, [Option | Rest]) ->
    case Parse(Option, Flags) of
        badarg -> badarg;
        Next -> fold_options(Parse, Next, Rest)
    end.

%%====================================================================
%% Internal: error descriptions
%%====================================================================

format_reason(badarg, Fun, [Data | Rest]) ->
    maps:merge(describe_data(Data), describe_options(known_options(Fun), Rest));
format_reason(Reason, _Fun, [Data | Rest]) ->
    Options = case Rest of
                  [Map] when is_map(Map) -> Map;
                  _ -> #{}
              end,
    #{1 => describe_reason(Reason, Data, Options)};
format_reason(_Reason, _Fun, _Args) ->
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

%% Encode takes fewer options than decode: `mode => any' or `whitespace'
%% given to encode must be described too.
known_options(Fun) when Fun =:= encode; Fun =:= encode_to_string ->
    #{mode => [standard, urlsafe], padding => [true, false]};
known_options(_Fun) ->
    #{mode => [standard, urlsafe, any], padding => [true, false],
      whitespace => [skip, reject], canonical => [true, false]}.

describe_options(_Known, []) -> #{};
describe_options(_Known, [Options]) when not is_map(Options) ->
    #{2 => "options must be a map"};
describe_options(Known, [Options]) ->
    Problems = [describe_option(Key, Value, maps:find(Key, Known))
                || {Key, Value} <- maps:to_list(Options),
                   not is_valid_option(Key, Value, Known)],
    case Problems of
        [] -> #{};
        _ -> #{2 => lists:join("; ", Problems)}
    end.

is_valid_option(Key, Value, Known) ->
    lists:member(Value, maps:get(Key, Known, [])).

describe_option(Key, _Value, error) ->
    io_lib:format("unknown option ~tp", [Key]);
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
