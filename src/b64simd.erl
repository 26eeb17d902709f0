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
-export([to_binary/1, decode_flags/1, try_decode_flagged/2, decode_quanta/3]).
-export([encode_parsed/1, encode_after/3, encode_wrapped_after/5]).

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

%% Option flags shared with native/b64simd_nif/src/options.rs.
-define(MODE_STANDARD, 0).
-define(MODE_URLSAFE, 1).
-define(MODE_ANY, 2).
-define(PADDING, 4).
-define(REJECT_WHITESPACE, 8).
-define(CANONICAL, 16).
-define(DEFAULT_FLAGS, ?PADDING).
%% Longer than any output can be, so the same as no limit, and small enough
%% for the NIF's usize.
-define(MAX_LINE_LENGTH, (1 bsl 48)).

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
%% boolean(), line_length => pos_integer(), line_break => crlf | lf}'.
%% `encode(<<255,254>>, #{mode => urlsafe, padding => false})' gives
%% `<<"__4">>'; `encode(Data, #{line_length => 76})' gives a MIME body,
%% `encode(Der, #{line_length => 64, line_break => lf})' a PEM body. Decoding
%% wrapped output with default options gives `Data' back.
-spec encode(Data, Options) -> Base64 when
      Data :: iodata(),
      Options :: encode_options(),
      Base64 :: binary().
encode(Data, Options) when is_binary(Data), map_size(Options) =:= 0 ->
    finish(b64simd_nif:encode(Data, ?DEFAULT_FLAGS), Data);
%% The common urlsafe case (JWT, URLs) straight to the NIF: building the
%% general case's tuple doubled a 32-byte call.
encode(Data, #{mode := urlsafe, padding := false} = Options)
  when is_binary(Data), map_size(Options) =:= 2 ->
    finish(b64simd_nif:encode(Data, ?MODE_URLSAFE), Data);
%% Both options named (the Elixir facade): no line options to look for.
encode(Data, #{mode := _, padding := _} = Options) when is_binary(Data), map_size(Options) =:= 2 ->
    case encode_flags(Options) of
        badarg -> ?RAISE(badarg, [Data, Options]);
        Flags -> encode_binary(Data, Flags)
    end;
encode(Data, Options) ->
    case {to_binary(Data), encode_flags(Options), line_options(Options)} of
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
    case run_iodata(fun b64simd_nif:mime_decode/2, Base64, ?DEFAULT_FLAGS) of
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
    case run_iodata(fun b64simd_nif:mime_decode/2, Base64, mime_flags(Options)) of
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
    case run_iodata(fun b64simd_nif:is_valid/2, Base64, ?DEFAULT_FLAGS) of
        badarg -> ?RAISE(badarg, [Base64]);
        Valid -> Valid
    end.

%% @doc Whether {@link try_decode/2} with the same options would return
%% `{ok, _}'. Raises `badarg' for bad arguments or options, like `decode/2'.
-spec is_valid(Base64, Options) -> boolean() when
      Base64 :: iodata(),
      Options :: decode_options().
is_valid(Base64, Options) ->
    case run_iodata(fun b64simd_nif:is_valid/2, Base64, decode_flags(Options)) of
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

encode_binary(Data, Flags) ->
    finish(b64simd_nif:encode(Data, Flags), Data).

%% The decoded binary, `{error, Reason}', or `badarg' for bad iodata or
%% options; the caller raises, so that the stack trace names the API call.
%% A binary with good flags, the hot case, calls the NIF directly rather
%% than through a fun.
decode_iodata(Base64, Flags) when is_binary(Base64), is_integer(Flags) ->
    finish(b64simd_nif:decode(Base64, Flags), Base64);
decode_iodata(Base64, Flags) ->
    run_iodata(fun b64simd_nif:decode/2, Base64, Flags).

%% The NIF's result for iodata, or `badarg' for bad iodata or options.
run_iodata(_Nif, _Base64, badarg) ->
    badarg;
run_iodata(Nif, Base64, Flags) ->
    case to_binary(Base64) of
        badarg -> badarg;
        Binary -> finish(Nif(Binary, Flags), Binary)
    end.

%% Big inputs come back as `{continue, Job}' after each slice (40 us of work,
%% charged as a full timeslice); calling back in from Erlang lets the
%% scheduler run others in between.
%% Inlined: a local call is a noticeable part of a 50 ns encode.
-compile({inline, [finish/2, decode_iodata/2]}).
finish({continue, Job}, Input) ->
    finish(b64simd_nif:continue(Job, Input), Input);
finish(Result, _Input) ->
    Result.

%% @private
%% @doc iodata as one binary, or `badarg'; shared with `b64simd_stream'.
%% Flattened once here, not in the NIF (as jiffy does): iolist_to_binary is
%% OTP's fastest way, and a binary is then read in place.
-spec to_binary(term()) -> binary() | badarg.
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

%% @private
%% @doc For `b64simd_stream': encode options parsed once per stream, as the
%% NIF's flags and `unwrapped' or `{LineLength, Lf}'; `badarg' for bad ones.
-spec encode_parsed(term()) -> {non_neg_integer(), unwrapped | {pos_integer(), boolean()}} | badarg.
encode_parsed(Options) ->
    case {encode_flags(Options), line_options(Options)} of
        {badarg, _} -> badarg;
        {_, badarg} -> badarg;
        Parsed -> Parsed
    end.

%% @private
%% @doc For `b64simd_stream': `encode(<<Carry/binary, Data/binary>>, Options)'
%% without copying the two into one binary first. The stream passes at most
%% 2 bytes of carry and the flags of options without line wrapping.
-spec encode_after(binary(), binary(), non_neg_integer()) -> binary().
encode_after(Carry, Data, Flags) ->
    finish(b64simd_nif:encode_after(Carry, Data, Flags), Data).

%% @private
%% @doc For `b64simd_stream': the same with line wrapping, continuing a text
%% whose last line holds `Column' characters (its break comes first if that
%% line is full).
-spec encode_wrapped_after(binary(), binary(), non_neg_integer(), {pos_integer(), boolean()},
                           non_neg_integer()) -> binary().
encode_wrapped_after(Carry, Data, Flags, {Length, Lf}, Column) ->
    finish(b64simd_nif:encode_wrapped_after(Carry, Data, Flags, Length, Lf, Column), Data).

%% @private
%% @doc For `b64simd_stream': `try_decode/2' of a binary with options already
%% parsed by {@link decode_flags/1}, so that a stream parses its options
%% once rather than once per piece.
-spec try_decode_flagged(binary(), non_neg_integer()) -> {ok, binary()} | {error, reason()}.
try_decode_flagged(Base64, Flags) ->
    case finish(b64simd_nif:decode(Base64, Flags), Base64) of
        Data when is_binary(Data) -> {ok, Data};
        {error, _} = Error -> Error
    end.

%% @private
%% @doc For `b64simd_stream': the data of the whole quanta at the start of
%% `<<Carry/binary, Piece/binary>>' and how many bytes of the two they take
%% up, without copying the two into one; `exact' when something there needs
%% a closer look (an error, padding before the end, a long carry).
-spec decode_quanta(binary(), binary(), non_neg_integer()) ->
    {binary(), non_neg_integer()} | exact.
decode_quanta(Carry, Piece, Flags) ->
    finish(b64simd_nif:decode_quanta(Carry, Piece, Flags), Piece).

%%====================================================================
%% Internal: options, parsed once into the NIF's flags
%%====================================================================

%% Each returns the NIF's flags, or `badarg' for a non-map, an unknown key
%% or a bad value (OTP would treat `mode => url' as standard; we refuse it).
%% The line options are parsed by line_options/1.
%% The option maps that real code passes are matched whole first (JWTs:
%% urlsafe without padding): cheaper than building and folding a list, which
%% cost as much as encoding 32 bytes.
encode_flags(Options) when map_size(Options) =:= 0 ->
    ?DEFAULT_FLAGS;
encode_flags(#{mode := urlsafe, padding := false} = Options) when map_size(Options) =:= 2 ->
    ?MODE_URLSAFE;
encode_flags(#{mode := urlsafe} = Options) when map_size(Options) =:= 1 ->
    ?MODE_URLSAFE bor ?PADDING;
encode_flags(#{padding := false} = Options) when map_size(Options) =:= 1 ->
    ?MODE_STANDARD;
%% Both options named, as the Elixir facade passes them: read directly, as
%% the general fold below cost a 32-byte encode twice the encode (125 ns).
encode_flags(#{mode := Mode, padding := Padding} = Options) when map_size(Options) =:= 2 ->
    with(encode_mode(Mode), padding_flag(Padding));
encode_flags(#{line_length := _} = Options) when map_size(Options) =:= 1 ->
    ?DEFAULT_FLAGS;
encode_flags(#{line_length := _, line_break := _} = Options) when map_size(Options) =:= 2 ->
    ?DEFAULT_FLAGS;
encode_flags(Options) when is_map(Options) ->
    fold_options(fun encode_option/2, ?DEFAULT_FLAGS,
                 maps:to_list(maps:without([line_length, line_break], Options)));
encode_flags(_Options) ->
    badarg.

encode_option({mode, Mode}, Flags) -> with(Flags, encode_mode(Mode));
encode_option({padding, Padding}, Flags) -> with(Flags band bnot ?PADDING, padding_flag(Padding));
encode_option(_, _Flags) -> badarg.

%% @private
%% @doc The NIF's flags for decode options, or `badarg'.
-spec decode_flags(term()) -> non_neg_integer() | badarg.
decode_flags(Options) when map_size(Options) =:= 0 ->
    ?DEFAULT_FLAGS;
decode_flags(#{mode := urlsafe, padding := false} = Options) when map_size(Options) =:= 2 ->
    ?MODE_URLSAFE;
decode_flags(#{mode := urlsafe} = Options) when map_size(Options) =:= 1 ->
    ?MODE_URLSAFE bor ?PADDING;
decode_flags(#{padding := false} = Options) when map_size(Options) =:= 1 ->
    ?MODE_STANDARD;
%% Mode, padding and whitespace named, as the Elixir facade passes them:
%% read directly rather than folded (40-60 ns of a 70 ns call).
decode_flags(#{mode := Mode, padding := Padding, whitespace := Whitespace} = Options)
  when map_size(Options) =:= 3 ->
    with(with(decode_mode(Mode), padding_flag(Padding)), whitespace_flag(Whitespace));
decode_flags(Options) when is_map(Options) ->
    fold_options(fun decode_option/2, ?DEFAULT_FLAGS, maps:to_list(Options));
decode_flags(_Options) ->
    badarg.

decode_option({mode, Mode}, Flags) -> with(Flags, decode_mode(Mode));
decode_option({padding, Padding}, Flags) -> with(Flags band bnot ?PADDING, padding_flag(Padding));
decode_option({whitespace, Whitespace}, Flags) -> with(Flags, whitespace_flag(Whitespace));
decode_option({canonical, Canonical}, Flags) -> with(Flags, canonical_flag(Canonical));
decode_option(_, _Flags) -> badarg.

%% Each option value's flag bits, or `badarg': the one table both the quick
%% clauses and the fold read (inlined: as calls they cost the quick clauses
%% a third of their time).
-compile({inline, [encode_mode/1, decode_mode/1, padding_flag/1, whitespace_flag/1,
                   canonical_flag/1, with/2]}).
encode_mode(standard) -> ?MODE_STANDARD;
encode_mode(urlsafe) -> ?MODE_URLSAFE;
encode_mode(_) -> badarg.

decode_mode(any) -> ?MODE_ANY;
decode_mode(Mode) -> encode_mode(Mode).

padding_flag(true) -> ?PADDING;
padding_flag(false) -> 0;
padding_flag(_) -> badarg.

whitespace_flag(skip) -> 0;
whitespace_flag(reject) -> ?REJECT_WHITESPACE;
whitespace_flag(_) -> badarg.

canonical_flag(false) -> 0;
canonical_flag(true) -> ?CANONICAL;
canonical_flag(_) -> badarg.

%% Flags with more bits, or `badarg' if either is.
with(badarg, _) -> badarg;
with(_, badarg) -> badarg;
with(Flags, More) -> Flags bor More.

fold_options(_Parse, Flags, []) ->
    Flags;
fold_options(Parse, Flags, [Option | Rest]) ->
    case Parse(Option, Flags) of
        badarg -> badarg;
        Next -> fold_options(Parse, Next, Rest)
    end.

%%====================================================================
%% Internal: line-wrapped encode
%%====================================================================

%% `unwrapped', `{LineLength, Lf}', or `badarg'. `line_break' alone is
%% accepted and changes nothing: there is no line to break.
line_options(Options) when is_map(Options), not is_map_key(line_length, Options),
                           not is_map_key(line_break, Options) ->
    unwrapped;
line_options(Options) when is_map(Options) ->
    case {maps:find(line_length, Options), maps:get(line_break, Options, crlf)} of
        {_, Break} when Break =/= crlf, Break =/= lf -> badarg;
        {error, _} -> unwrapped;
        {{ok, Length}, Break} when is_integer(Length), Length > 0 ->
            {min(Length, ?MAX_LINE_LENGTH), Break =:= lf};
        {{ok, _}, _} -> badarg
    end;
line_options(_Options) ->
    badarg.

encode_wrapped(Data, Flags, Length, Lf) ->
    finish(b64simd_nif:encode_wrapped(Data, Flags, Length, Lf), Data).

%%====================================================================
%% Internal: mime_decode options
%%====================================================================

%% mime_decode takes OTP 26's options only: whitespace is always skipped
%% and the unused bits are always dropped, as OTP does.
mime_flags(Options) when is_map(Options) ->
    fold_options(fun mime_option/2, ?DEFAULT_FLAGS, maps:to_list(Options));
mime_flags(_Options) ->
    badarg.

mime_option({mode, _} = Option, Flags) -> decode_option(Option, Flags);
mime_option({padding, _} = Option, Flags) -> decode_option(Option, Flags);
mime_option(_, _Flags) -> badarg.

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
