%% A small, obviously-correct pure-Erlang reference for b64simd, the one
%% model the suites, the streams' tests and the soak hold it to: the oracle
%% for everything OTP 25's `base64' cannot judge (urlsafe, `any', optional
%% padding, line wrapping, `whitespace => reject', `canonical => true').
%%
%% Written from the rules in the README (Semantics) and of the scalar decoder's
%% module doc, not from the Rust code; simple rather than fast (one byte at
%% a time, bitstrings). It is itself checked against OTP `base64' in
%% b64simd_01_encode_tests and b64simd_02_decode_tests.
-module(b64simd_ref).

-export([encode/2, decode/2]).
-export([alphabet/1, lines/3]).
-export([hex_decode/2, base32_encode/2, base32_decode/2]).

-type encode_options() :: #{mode => standard | urlsafe, padding => boolean(),
                            line_length => pos_integer(), line_break => crlf | lf}.
-type decode_options() :: #{mode => standard | urlsafe | any,
                            padding => boolean(),
                            whitespace => skip | reject,
                            canonical => boolean()}.

%%====================================================================
%% Encode (RFC 4648 sections 4 and 5)
%%====================================================================

%% @doc Encodes `Data' under `Options' (defaults as b64simd: standard,
%% padded, one line).
-spec encode(binary(), encode_options()) -> binary().
encode(Data, Options) ->
    Mode = maps:get(mode, Options, standard),
    Padding = maps:get(padding, Options, true),
    Chars = list_to_tuple(alphabet(Mode)),
    Char = fun(Sextet) -> element(Sextet + 1, Chars) end,
    WholeBits = (byte_size(Data) div 3) * 24,
    <<Whole:WholeBits/bitstring, Tail/binary>> = Data,
    Body = <<<<(Char(S))>> || <<S:6>> <= Whole>>,
    wrap(<<Body/binary, (encode_tail(Tail, Char, Padding))/binary>>, Options).

%% The last 1 or 2 bytes: zero-filled to whole sextets (RFC 4648 section
%% 3.5), then '=' up to a full quantum of 4 characters.
encode_tail(<<>>, _Char, _Padding) ->
    <<>>;
encode_tail(<<A:6, B:2>>, Char, Padding) ->
    <<(Char(A)), (Char(B bsl 4)), (pad(2, Padding))/binary>>;
encode_tail(<<A:6, B:6, C:4>>, Char, Padding) ->
    <<(Char(A)), (Char(B)), (Char(C bsl 2)), (pad(1, Padding))/binary>>.

pad(N, true) -> binary:copy(<<"=">>, N);
pad(_N, false) -> <<>>.

%% Lines of `line_length' characters with `line_break' between them (CRLF
%% unless it says LF), none after the last.
wrap(Base64, #{line_length := Length} = Options) ->
    Break = case maps:get(line_break, Options, crlf) of
                crlf -> <<"\r\n">>;
                lf -> <<"\n">>
            end,
    lines(Base64, Length, Break);
wrap(Base64, _Options) ->
    Base64.

%% @doc `Text' cut into lines of `Length' characters, joined by `Break'.
-spec lines(binary(), pos_integer(), binary()) -> binary().
lines(Text, Length, Break) ->
    iolist_to_binary(lists:join(Break, cut(Text, Length))).

cut(Text, Length) when byte_size(Text) > Length ->
    <<Line:Length/binary, Rest/binary>> = Text,
    [Line | cut(Rest, Length)];
cut(Text, _Length) ->
    [Text].

%%====================================================================
%% Decode: the README's rules, first problem wins
%%====================================================================

-record(scan, {
    mode,
    whitespace,
    sextets = <<>> :: bitstring(),  % significant characters so far, 6 bits each
    count = 0 :: non_neg_integer(), % how many
    last = none,                     % offset of the last significant character
    pads = [] :: [non_neg_integer()] % offsets of the '=' seen, newest first
}).

%% @doc Decodes `Base64' (a binary) under `Options'.
-spec decode(binary(), decode_options()) -> {ok, binary()} | {error, term()}.
decode(Base64, Options) ->
    Scan = #scan{mode = maps:get(mode, Options, standard),
                 whitespace = maps:get(whitespace, Options, skip)},
    case scan(Base64, 0, Scan) of
        {error, _} = Error ->
            Error;
        #scan{} = Done ->
            finish(Done, maps:get(padding, Options, true), maps:get(canonical, Options, false))
    end.

scan(<<>>, _Offset, Scan) ->
    Scan;
scan(<<Byte, Rest/binary>>, Offset, Scan) ->
    case step(class(Byte, Scan), Offset, Scan) of
        {error, _} = Error -> Error;
        Next -> scan(Rest, Offset + 1, Next)
    end.

step({sextet, _}, _Offset, #scan{pads = [_ | _] = Pads}) ->
    %% Data after padding: the padding came too early.
    {error, {bad_padding, lists:last(Pads)}};
step({sextet, Value}, Offset, #scan{sextets = Bits, count = Count} = Scan) ->
    Scan#scan{sextets = <<Bits/bitstring, Value:6>>, count = Count + 1, last = Offset};
step(pad, Offset, #scan{count = Count, pads = Pads} = Scan) ->
    %% A quantum of 2 characters takes "==", of 3 takes "="; no other.
    Allowed = case Count rem 4 of
                  2 -> 2;
                  3 -> 1;
                  _ -> 0
              end,
    case length(Pads) < Allowed of
        true -> Scan#scan{pads = [Offset | Pads]};
        false -> {error, {bad_padding, Offset}}
    end;
step(whitespace, _Offset, #scan{whitespace = skip} = Scan) ->
    Scan;
step(_WhitespaceOrInvalid, Offset, _Scan) ->
    {error, {invalid_character, Offset}}.

finish(#scan{count = Count, pads = [_ | _] = Pads}, _Padding, _Canonical)
  when Count rem 4 + length(Pads) =/= 4 ->
    {error, {bad_padding, lists:last(Pads)}};
finish(#scan{count = Count, pads = [], last = Last}, _Padding, _Canonical)
  when Count rem 4 =:= 1 ->
    {error, {incomplete, Last}};
finish(#scan{count = Count, pads = []}, true, _Canonical) when Count rem 4 =/= 0 ->
    {error, missing_padding};
finish(#scan{sextets = Bits, last = Last}, _Padding, Canonical) ->
    Size = bit_size(Bits) div 8,
    <<Data:Size/binary, Unused/bitstring>> = Bits,
    UnusedSize = bit_size(Unused),
    case Unused of
        <<0:UnusedSize>> -> {ok, Data};
        _ when Canonical -> {error, {non_canonical, Last}};
        _ -> {ok, Data}
    end.

%% What one input byte is under the scan's mode.
class(Byte, _Scan) when Byte >= $A, Byte =< $Z -> {sextet, Byte - $A};
class(Byte, _Scan) when Byte >= $a, Byte =< $z -> {sextet, Byte - $a + 26};
class(Byte, _Scan) when Byte >= $0, Byte =< $9 -> {sextet, Byte - $0 + 52};
class($+, #scan{mode = Mode}) when Mode =/= urlsafe -> {sextet, 62};
class($/, #scan{mode = Mode}) when Mode =/= urlsafe -> {sextet, 63};
class($-, #scan{mode = Mode}) when Mode =/= standard -> {sextet, 62};
class($_, #scan{mode = Mode}) when Mode =/= standard -> {sextet, 63};
class($=, _Scan) -> pad;
class(Byte, _Scan) ->
    case lists:member(Byte, whitespace()) of
        true -> whitespace;
        false -> invalid
    end.

%%====================================================================
%% The alphabets
%%====================================================================

%% @doc The 64 characters of `Mode' in sextet order (for `any', the 66
%% characters it accepts).
-spec alphabet(standard | urlsafe | any) -> string().
alphabet(standard) -> common() ++ "+/";
alphabet(urlsafe) -> common() ++ "-_";
alphabet(any) -> common() ++ "+/-_".

common() ->
    lists:seq($A, $Z) ++ lists:seq($a, $z) ++ lists:seq($0, $9).

%% The bytes skipped as whitespace (as OTP: not `\f' nor `\v').
whitespace() -> "\t\n\r ".

%%====================================================================
%% Base16 and Base32 (RFC 4648 sections 8, 6 and 7)
%%====================================================================

%% @doc Decodes hex digits of `Case' (`uppercase', `lowercase' or `mixed'):
%% the data, or the first error read left to right (a byte that is not a
%% digit of the case; else a digit without a pair).
-spec hex_decode(binary(), uppercase | lowercase | mixed) -> {ok, binary()} | {error, term()}.
hex_decode(Hex, Case) ->
    Digits = [hex_digit(C, Case) || <<C>> <= Hex],
    case {string:str(Digits, [bad]), byte_size(Hex) rem 2} of
        {0, 0} -> {ok, << <<(H * 16 + L)>> || <<H, L>> <= list_to_binary(Digits) >>};
        {0, 1} -> {error, {incomplete, byte_size(Hex) - 1}};
        {Bad, _} -> {error, {invalid_character, Bad - 1}}
    end.

hex_digit(C, _Case) when C >= $0, C =< $9 -> C - $0;
hex_digit(C, Case) when C >= $A, C =< $F, Case =/= lowercase -> C - $A + 10;
hex_digit(C, Case) when C >= $a, C =< $f, Case =/= uppercase -> C - $a + 10;
hex_digit(_C, _Case) -> bad.

%% @doc Encodes `Data' as Base32 under `#{alphabet, case, padding}' (defaults
%% standard, upper, padded).
-spec base32_encode(binary(), map()) -> binary().
base32_encode(Data, Options) ->
    Symbols = list_to_tuple(base32_symbols(Options, maps:get(letter_case, Options, upper))),
    Bits = bit_size(Data),
    Pad = (5 - Bits rem 5) rem 5,
    Body = << <<(element(S + 1, Symbols))>> || <<S:5>> <= <<Data/bitstring, 0:Pad>> >>,
    case maps:get(padding, Options, true) of
        true -> <<Body/binary, (binary:copy(<<"=">>, (8 - byte_size(Body) rem 8) rem 8))/binary>>;
        false -> Body
    end.

base32_symbols(Options, Case) ->
    Upper = case maps:get(alphabet, Options, standard) of
                standard -> "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
                hex -> "0123456789ABCDEFGHIJKLMNOPQRSTUV"
            end,
    case Case of
        lower -> string:to_lower(Upper);
        _ -> Upper
    end.

%% @doc Decodes Base32 under `#{alphabet, case, padding}' by the rules of
%% `b64simd_base32' (its module doc): groups of 8 before the last take
%% symbols only ('=' there is bad padding); the last group's characters,
%% then its padding, then its length.
-spec base32_decode(binary(), map()) -> {ok, binary()} | {error, term()}.
base32_decode(Text, Options) ->
    Case = maps:get(letter_case, Options, upper),
    Values = maps:from_list(lists:append(
                [[{S, V} || Case =/= lower] ++ [{string:to_lower(S), V} || Case =/= upper]
                 || {S, V} <- lists:zip(base32_symbols(Options, upper), lists:seq(0, 31))])),
    Last = max(0, byte_size(Text) - 1) div 8 * 8,
    <<Groups:Last/binary, Group/binary>> = Text,
    Value = fun(C) -> maps:get(C, Values, bad) end,
    Padding = maps:get(padding, Options, true),
    case first(fun(C) -> Value(C) =:= bad end, Groups) of
        {At, $=} -> {error, {bad_padding, At}};
        {At, _} -> {error, {invalid_character, At}};
        none -> base32_last(Group, Last, Value, Groups, Padding)
    end.

base32_last(Group, Last, Value, Groups, Padding) ->
    Chars = case first(fun(C) -> C =:= $= end, Group) of
                none -> byte_size(Group);
                {At, _} -> At
            end,
    <<Data:Chars/binary, Pad/binary>> = Group,
    Padded = Pad =/= <<>>,
    Error = case first(fun(C) -> C =/= $= andalso Value(C) =:= bad end, Group) of
                {Bad, _} -> {invalid_character, Last + Bad};
                none when Padded, byte_size(Group) =/= 8 -> {bad_padding, Last + Chars};
                none when Padded -> pad_error(Pad, Chars, Last);
                none when Chars =:= 1; Chars =:= 3; Chars =:= 6 -> {incomplete, Last};
                none when Padding, Chars > 0, Chars < 8 -> missing_padding;
                none -> none
            end,
    case Error of
        none ->
            Bits = << <<(Value(C)):5>> || <<C>> <= <<Groups/binary, Data/binary>> >>,
            Whole = bit_size(Bits) div 8 * 8,
            <<Bytes:Whole/bitstring, _/bitstring>> = Bits,
            {ok, Bytes};
        _ ->
            {error, Error}
    end.

pad_error(Pad, Chars, Last) ->
    case lists:member(Chars, [2, 4, 5, 7]) andalso Pad =:= binary:copy(<<"=">>, 8 - Chars) of
        true -> none;
        false -> {bad_padding, Last + Chars}
    end.

%% The offset and byte of the first byte of `Bin' that `Pred' holds for.
first(Pred, Bin) ->
    first(Pred, Bin, 0).

first(Pred, <<C, Rest/binary>>, At) ->
    case Pred(C) of
        true -> {At, C};
        false -> first(Pred, Rest, At + 1)
    end;
first(_Pred, <<>>, _At) ->
    none.
