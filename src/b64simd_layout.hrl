%% The option table: for each kind of call, its options and each value's
%% bits in the integer the NIF reads; then B64Simd's names for them; then
%% the kinds, and each kind's table, names and flags of no option. Made
%% from LAYOUT and ELIXIR in native/b64simd_core/src/options.rs by its test
%% erlang_layout_is_current, which fails while this file differs and
%% writes it when run with B64SIMD_WRITE_LAYOUT=1; not to be edited by hand.
-define(ENCODE_LAYOUT,
        #{mode => #{standard => 0, urlsafe => 1},
          padding => #{true => 4, false => 0},
          line_break => #{crlf => 0, lf => 32},
          line_length => {pos_integer, 8}}).
-define(DECODE_LAYOUT,
        #{mode => #{standard => 0, urlsafe => 1, any => 2},
          padding => #{true => 4, false => 0},
          whitespace => #{skip => 0, reject => 8},
          canonical => #{false => 0, true => 16}}).
-define(MIME_LAYOUT,
        #{mode => #{standard => 0, urlsafe => 1, any => 2},
          padding => #{true => 4, false => 0}}).
-define(HEX_ENCODE_LAYOUT,
        #{letter_case => #{upper => 0, lower => 1, uppercase => 0, lowercase => 1}}).
-define(HEX_DECODE_LAYOUT,
        #{letter_case => #{upper => 0, lower => 1, mixed => 2, uppercase => 0, lowercase => 1}}).
-define(BASE32_ENCODE_LAYOUT,
        #{alphabet => #{standard => 0, hex => 8},
          letter_case => #{upper => 0, lower => 1},
          padding => #{true => 4, false => 0}}).
-define(BASE32_DECODE_LAYOUT,
        #{alphabet => #{standard => 0, hex => 8},
          letter_case => #{upper => 0, lower => 1, mixed => 2},
          padding => #{true => 4, false => 0}}).
%% B64Simd's options, in Base's words: {Key, Option, Values}, Values being
%% {BaseWord, Value} pairs or pos_integer (the line length).
-define(ENCODE_ELIXIR,
        [{padding, padding, [{true, true}, {false, false}]},
         {line_length, line_length, pos_integer},
         {line_break, line_break, [{crlf, crlf}, {lf, lf}]}]).
-define(DECODE_ELIXIR,
        [{padding, padding, [{true, true}, {false, false}]},
         {ignore, whitespace, [{whitespace, skip}]},
         {canonical, canonical, [{true, true}, {false, false}]},
         {alphabet, mode, [{any, any}]}]).
-define(HEX_ENCODE_ELIXIR,
        [{'case', letter_case, [{upper, upper}, {lower, lower}]}]).
-define(HEX_DECODE_ELIXIR,
        [{'case', letter_case, [{upper, upper}, {lower, lower}, {mixed, mixed}]}]).
-define(BASE32_ENCODE_ELIXIR,
        [{'case', letter_case, [{upper, upper}, {lower, lower}]},
         {padding, padding, [{true, true}, {false, false}]}]).
-define(BASE32_DECODE_ELIXIR,
        [{'case', letter_case, [{upper, upper}, {lower, lower}, {mixed, mixed}]},
         {padding, padding, [{true, true}, {false, false}]}]).
%% The kinds of call, and each kind's table and B64Simd's names by kind.
-type kind() :: encode | decode | mime | hex_encode | hex_decode | base32_encode | base32_decode.
-define(LAYOUT(Kind),
        case Kind of
            encode -> ?ENCODE_LAYOUT;
            decode -> ?DECODE_LAYOUT;
            mime -> ?MIME_LAYOUT;
            hex_encode -> ?HEX_ENCODE_LAYOUT;
            hex_decode -> ?HEX_DECODE_LAYOUT;
            base32_encode -> ?BASE32_ENCODE_LAYOUT;
            base32_decode -> ?BASE32_DECODE_LAYOUT
        end).
-define(ELIXIR(Kind),
        case Kind of
            encode -> ?ENCODE_ELIXIR;
            decode -> ?DECODE_ELIXIR;
            hex_encode -> ?HEX_ENCODE_ELIXIR;
            hex_decode -> ?HEX_DECODE_ELIXIR;
            base32_encode -> ?BASE32_ENCODE_ELIXIR;
            base32_decode -> ?BASE32_DECODE_ELIXIR
        end).
%% The flags of no option: padding, where the kind takes it.
-define(UNSET(Kind),
        case Kind of
            encode -> 4;
            decode -> 4;
            mime -> 4;
            hex_encode -> 0;
            hex_decode -> 0;
            base32_encode -> 4;
            base32_decode -> 4
        end).
%% The flags of the NIFs of arity 1: the standard alphabet, padding
%% written and required.
-define(DEFAULT_FLAGS, 4).
