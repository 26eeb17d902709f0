%% The flags of an option map, for the shapes real code passes (none, one
%% or two of mode and padding, MIME's line length, and the Elixir facade's
%% three, for Base64 and for Base32) read without a call or a lookup in the
%% table: inlined into `b64simd_options:flags/2' and into the calls of
%% `b64simd', where a call for them, into another module or not, cost a
%% short call more than the rest of its options (bench/README.md). Any
%% other map is the table's (`b64simd_options:table_flags/2'). Needs
%% `b64simd_layout.hrl'.

-compile({inline, [shaped_flags/2, bits/2, length_bits/2, with/2, modes/1, paddings/0,
                   line_length_shift/0, whitespaces/1, alphabets/0, cases/1, unset/1]}).
%% A module that reads the shapes of some kinds only (`b64simd' Base64's)
%% leaves the others' clauses unused.
-dialyzer({nowarn_function, [shaped_flags/2, unset/1, alphabets/0, cases/1]}).

%% The kinds of Base64, Base16 (which take no padding) and Base32.
-define(IS_BASE64(Kind), (Kind =:= encode orelse Kind =:= decode orelse Kind =:= mime)).
-define(IS_HEX(Kind), (Kind =:= hex_encode orelse Kind =:= hex_decode)).
%% The kinds of Base32.
-define(IS_BASE32(Kind), (Kind =:= base32_encode orelse Kind =:= base32_decode)).

%% The flags of urlsafe mode without padding, JWT's, the one shape of
%% options that `flags/2' answers without a lookup (a literal once inlined).
-define(URLSAFE_UNPADDED, (map_get(urlsafe, modes(encode)) bor map_get(false, paddings()))).

%% The values of the options that the common shapes of map hold, read out of
%% the layout at compile time (each is a literal), which `flags/2' reads
%% directly: looking one up inside the whole table first cost more than the
%% rest of the parse.
modes(encode) -> map_get(mode, ?ENCODE_LAYOUT);
modes(decode) -> map_get(mode, ?DECODE_LAYOUT);
modes(mime) -> map_get(mode, ?MIME_LAYOUT).

paddings() -> map_get(padding, ?ENCODE_LAYOUT).

line_length_shift() -> element(2, map_get(line_length, ?ENCODE_LAYOUT)).

whitespaces(decode) -> map_get(whitespace, ?DECODE_LAYOUT);
whitespaces(_Kind) -> #{}.

alphabets() -> map_get(alphabet, ?BASE32_ENCODE_LAYOUT).

cases(base32_encode) -> map_get(letter_case, ?BASE32_ENCODE_LAYOUT);
cases(base32_decode) -> map_get(letter_case, ?BASE32_DECODE_LAYOUT).

%% The flags of no option (`b64simd_layout.hrl'): padding, where the kind
%% takes it.
unset(Kind) ->
    ?UNSET(Kind).

%% The bits of one value of an option, or `badarg'.
bits(Values, Value) ->
    case Values of
        #{Value := Bits} -> Bits;
        _ -> badarg
    end.

%% Longer than any output can be, so the same as no limit, and small enough
%% for the NIF's 64-bit integer once shifted.
-define(MAX_LINE_LENGTH, (1 bsl 48)).

%% The bits of a length (`line_length'), or `badarg' for a value that is
%% not a positive integer (in clauses: `min/2' would be a call).
length_bits(Shift, Length) when is_integer(Length), Length > 0, Length =< ?MAX_LINE_LENGTH ->
    Length bsl Shift;
length_bits(Shift, Length) when is_integer(Length), Length > 0 ->
    ?MAX_LINE_LENGTH bsl Shift;
length_bits(_Shift, _Length) ->
    badarg.

%% Flags with more bits, or `badarg' if either is.
with(badarg, _) -> badarg;
with(_, badarg) -> badarg;
with(Flags, More) -> Flags bor More.

%% The integer the NIF takes for options of a shape real code passes, or
%% `badarg' (as `b64simd_options:flags/2' says); `unshaped' for any other
%% map, which the table reads. The map's size is read once and chosen on
%% first, so that these shapes are looked up only for the keys their size
%% allows.
shaped_flags(Kind, Options) ->
    case map_size(Options) of
        0 ->
            unset(Kind);
        1 ->
            case Options of
                #{mode := Mode} when ?IS_BASE64(Kind) ->
                    with(bits(modes(Kind), Mode), bits(paddings(), true));
                #{padding := Padding} when not ?IS_HEX(Kind) -> bits(paddings(), Padding);
                %% MIME's.
                #{line_length := Length} when Kind =:= encode ->
                    with(unset(Kind), length_bits(line_length_shift(), Length));
                _ -> unshaped
            end;
        2 ->
            case Options of
                %% JWT's, the commonest options, as a literal: a value looked
                %% up in the table costs a short call more (bench/README.md).
                #{mode := urlsafe, padding := false} when ?IS_BASE64(Kind) -> ?URLSAFE_UNPADDED;
                #{mode := Mode, padding := Padding} when ?IS_BASE64(Kind) ->
                    with(bits(modes(Kind), Mode), bits(paddings(), Padding));
                _ -> unshaped
            end;
        3 ->
            case Options of
                #{mode := Mode, padding := Padding, whitespace := Whitespace}
                  when ?IS_BASE64(Kind) ->
                    with(with(bits(modes(Kind), Mode), bits(paddings(), Padding)),
                         bits(whitespaces(Kind), Whitespace));
                #{alphabet := Alphabet, letter_case := Case, padding := Padding}
                  when ?IS_BASE32(Kind) ->
                    with(with(bits(alphabets(), Alphabet), bits(cases(Kind), Case)),
                         bits(paddings(), Padding));
                _ -> unshaped
            end;
        _ ->
            unshaped
    end.
