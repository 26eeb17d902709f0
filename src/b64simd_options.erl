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

%% The option table: for each kind of call (encode, decode, mime), each key
%% it takes and each value's flag bits; `badarg' for anything else (an
%% unknown key included: OTP 26+ ignores one, so a typo there silently gives
%% standard Base64). The line options are encode's, their values checked by
%% line_options/1. Padding is on unless an option turns it off.
-compile({inline, [bits/3, with/2, padded/2]}).
bits(_Kind, mode, standard) -> ?MODE_STANDARD;
bits(_Kind, mode, urlsafe) -> ?MODE_URLSAFE;
bits(decode, mode, any) -> ?MODE_ANY;
bits(mime, mode, any) -> ?MODE_ANY;
bits(_Kind, padding, true) -> ?PADDING;
bits(_Kind, padding, false) -> 0;
bits(decode, whitespace, skip) -> 0;
bits(decode, whitespace, reject) -> ?REJECT_WHITESPACE;
bits(decode, canonical, false) -> 0;
bits(decode, canonical, true) -> ?CANONICAL;
bits(encode, line_length, _) -> 0;
bits(encode, line_break, _) -> 0;
bits(_Kind, _Key, _Value) -> badarg.

%% @doc Each returns the NIF's flags, or `badarg' for a non-map, an unknown
%% key or a bad value. The shapes of map that real code passes (none, one
%% or two of mode and padding; the Elixir facade's) are matched whole
%% before the general fold: building and folding a list cost as much as
%% encoding 32 bytes. Every clause reads the one table, bits/3.
-spec encode_flags(term()) -> non_neg_integer() | badarg.
encode_flags(Options) -> flags(encode, Options).

%% @doc The NIF's flags for decode options, or `badarg'.
-spec decode_flags(term()) -> non_neg_integer() | badarg.
decode_flags(Options) -> flags(decode, Options).

%% @doc mime_decode takes OTP 26's options only: whitespace is always skipped
%% and the unused bits are always dropped, as OTP does.
-spec mime_flags(term()) -> non_neg_integer() | badarg.
mime_flags(Options) -> flags(mime, Options).

-compile({inline, [flags/2]}).
%% The map's size is read once and chosen on first, so that a map is looked
%% up only for the keys its size allows: clause by clause, a 3-key map (the
%% Elixir facade's decode options) was searched for mode and padding four
%% times before its own clause, 21 ns of a 23 ns parse.
flags(Kind, Options) when is_map(Options) ->
    case map_size(Options) of
        0 ->
            ?DEFAULT_FLAGS;
        1 ->
            case Options of
                #{mode := Mode} -> with(bits(Kind, mode, Mode), ?PADDING);
                #{padding := Padding} -> bits(Kind, padding, Padding);
                _ -> folded(Kind, Options)
            end;
        2 ->
            case Options of
                %% JWT's options, the commonest there are, as a literal: 6 ns
                %% less than reading the table (31.7 against 38.3 ns a parse,
                %% same VM); valid for every kind, and tested against the
                %% table (b64simd_03_errors_tests).
                #{mode := urlsafe, padding := false} -> ?MODE_URLSAFE;
                #{mode := Mode, padding := Padding} ->
                    with(bits(Kind, mode, Mode), bits(Kind, padding, Padding));
                _ -> folded(Kind, Options)
            end;
        3 ->
            case Options of
                #{mode := Mode, padding := Padding, whitespace := Whitespace} ->
                    with(with(bits(Kind, mode, Mode), bits(Kind, padding, Padding)),
                         bits(Kind, whitespace, Whitespace));
                _ -> folded(Kind, Options)
            end;
        _ ->
            folded(Kind, Options)
    end;
flags(_Kind, _Options) ->
    badarg.

%% Any other map: each pair through the table.
folded(Kind, Options) ->
    padded(fold(Kind, maps:to_list(Options), 0), Options).

fold(_Kind, [], Flags) ->
    Flags;
fold(Kind, [{Key, Value} | Rest], Flags) ->
    case bits(Kind, Key, Value) of
        badarg -> badarg;
        Bits -> fold(Kind, Rest, Flags bor Bits)
    end.

%% Flags with more bits, or `badarg' if either is.
with(badarg, _) -> badarg;
with(_, badarg) -> badarg;
with(Flags, More) -> Flags bor More.

%% Padding is on unless the options say otherwise.
padded(badarg, _Options) -> badarg;
padded(Flags, Options) when is_map_key(padding, Options) -> Flags;
padded(Flags, _Options) -> Flags bor ?PADDING.

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
