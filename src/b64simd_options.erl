%% @private
%% @doc What `b64simd' and `b64simd_stream' share, and no user calls:
%% iodata flattened once, option maps parsed once into the NIF's flags (one
%% table of option values), and a sliced NIF job run to its end.
-module(b64simd_options).

-export([to_binary/1, encode_flags/1, line_options/1, encode_parsed/1, decode_flags/1,
         mime_flags/1, finish/2]).

-include("b64simd_flags.hrl").

%% @doc iodata as one binary, or `badarg'.
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

%% @doc Encode options parsed once (a stream's), as the
%% NIF's flags and `unwrapped' or `{LineLength, Lf}'; `badarg' for bad ones.
-spec encode_parsed(term()) -> {non_neg_integer(), unwrapped | {pos_integer(), boolean()}} | badarg.
encode_parsed(Options) ->
    case {encode_flags(Options), line_options(Options)} of
        {badarg, _} -> badarg;
        {_, badarg} -> badarg;
        Parsed -> Parsed
    end.

%% @doc The result of a NIF call, its job run to the end: big inputs come
%% back as `{continue, Job}' after each slice, and calling back in from
%% Erlang lets the scheduler run others in between.
-spec finish(term(), binary()) -> term().
finish({continue, Job}, Input) ->
    finish(b64simd_nif:continue(Job, Input), Input);
finish(Result, _Input) ->
    Result.

%%====================================================================
%% Options, parsed once into the NIF's flags
%%====================================================================

%% @doc Each returns the NIF's flags, or `badarg' for a non-map, an unknown key
%% or a bad value (OTP would treat `mode => url' as standard; we refuse it).
%% The line options are parsed by line_options/1.
%% The option maps that real code passes are matched whole first (JWTs:
%% urlsafe without padding): cheaper than building and folding a list, which
%% cost as much as encoding 32 bytes.
-spec encode_flags(term()) -> non_neg_integer() | badarg.
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
%% Line wrapping
%%====================================================================

%% @doc `unwrapped', `{LineLength, Lf}', or `badarg'. `line_break' alone is
%% accepted and changes nothing: there is no line to break.
-spec line_options(term()) -> unwrapped | {pos_integer(), boolean()} | badarg.
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


%%====================================================================
%% mime_decode options
%%====================================================================

%% @doc mime_decode takes OTP 26's options only: whitespace is always skipped
%% and the unused bits are always dropped, as OTP does.
-spec mime_flags(term()) -> non_neg_integer() | badarg.
mime_flags(Options) when is_map(Options) ->
    fold_options(fun mime_option/2, ?DEFAULT_FLAGS, maps:to_list(Options));
mime_flags(_Options) ->
    badarg.

mime_option({mode, _} = Option, Flags) -> decode_option(Option, Flags);
mime_option({padding, _} = Option, Flags) -> decode_option(Option, Flags);
mime_option(_, _Flags) -> badarg.
