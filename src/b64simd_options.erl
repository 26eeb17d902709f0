%% @private
%% @doc The options of the library's calls, as Erlang sees them: the kinds
%% of call, the options each takes (read in the NIF, which is the one place
%% option maps are read; `options/1' asks it), and `B64Simd''s options in
%% the words of Elixir's `Base', renamed here into option maps.
-module(b64simd_options).

-export([options/1, from_elixir/3, elixir_names/1]).

-export_type([kind/0, elixir_problem/0]).

-type kind() :: encode | decode | mime | hex_encode | hex_decode | base32_encode | base32_decode.
%% `encode' (and the encoding stream), `decode' (with `try_decode',
%% `is_valid' and the decoding stream), `mime' (`mime_decode'); Base16's
%% (`b64simd_hex') and Base32's (`b64simd_base32') encode and decode,
%% validation with decode.

-type elixir_problem() :: {not_keyword, term()} | {unknown_option, kind(), term()}
                        | {bad_value, kind(), atom(), term()}.
%% Why `B64Simd' refuses its options (`b64simd_messages:elixir_options/2'
%% says it): not a keyword list, a key the kind does not take, or a bad
%% value.

%% @doc The options a kind of call takes, in the order messages list them:
%% each key with its values, or `pos_integer' (the line length).
-spec options(kind()) -> [{atom(), [atom()] | pos_integer}].
options(Kind) ->
    b64simd_nif:options(Kind).

%%====================================================================
%% B64Simd's options
%%====================================================================

%% @doc `B64Simd''s options (a keyword list in Base's words) as the option
%% argument of the Erlang call it makes: renamed into b64simd's words over
%% Base's defaults for `Kind' and `Variant' (the mode, alphabet or letter
%% case the function's name says), a map; for Base16, its letter case. The
%% first of a repeated key wins, as `Keyword.get/2' reads it. Values are
%% those `elixir_names/1' lists, or a line length the NIF takes.
-spec from_elixir(kind(), atom(), term()) -> {ok, map() | atom()} | {error, elixir_problem()}.
from_elixir(Kind, Variant, Opts) ->
    case reversed(Opts, []) of
        {ok, Reversed} ->
            case renamed(Kind, elixir_names(Kind), Reversed, base_defaults(Kind, Variant), Opts) of
                {ok, #{letter_case := Case}} when Kind =:= hex_encode; Kind =:= hex_decode ->
                    {ok, Case};
                Renamed ->
                    Renamed
            end;
        error ->
            {error, {not_keyword, Opts}}
    end.

%% @doc `B64Simd''s options for a kind, in the order its messages list
%% them: each `{BaseKey, Key, Values}', `Values' the `{BaseWord, Value}'
%% pairs it takes, or `pos_integer' (the line length). What `Base' calls
%% `ignore: :whitespace' is `whitespace => skip'; its `case' is our
%% `letter_case' (`case' is reserved in Erlang).
-spec elixir_names(kind()) -> [{atom(), atom(), pos_integer | [{atom(), atom()}]}].
elixir_names(encode) ->
    [{padding, padding, booleans()}, {line_length, line_length, pos_integer},
     {line_break, line_break, [{crlf, crlf}, {lf, lf}]}];
elixir_names(decode) ->
    [{padding, padding, booleans()}, {ignore, whitespace, [{whitespace, skip}]},
     {canonical, canonical, booleans()}, {alphabet, mode, [{any, any}]}];
elixir_names(Kind) when Kind =:= hex_encode; Kind =:= base32_encode ->
    [{'case', letter_case, [{upper, upper}, {lower, lower}]} | padding(Kind)];
elixir_names(Kind) when Kind =:= hex_decode; Kind =:= base32_decode ->
    [{'case', letter_case, [{upper, upper}, {lower, lower}, {mixed, mixed}]} | padding(Kind)].

booleans() -> [{true, true}, {false, false}].

padding(Kind) when Kind =:= base32_encode; Kind =:= base32_decode -> [{padding, padding, booleans()}];
padding(_Hex) -> [].

%% What Base does with no options: padding written and required, and for
%% Base64 whitespace rejected (where b64simd skips it).
base_defaults(encode, Mode) -> #{mode => Mode, padding => true};
base_defaults(decode, Mode) -> #{mode => Mode, padding => true, whitespace => reject};
base_defaults(Kind, Case) when Kind =:= hex_encode; Kind =:= hex_decode -> #{letter_case => Case};
base_defaults(_Base32, Alphabet) -> #{alphabet => Alphabet, letter_case => upper, padding => true}.

%% A proper list reversed, or `error' (an improper list, or no list).
reversed([], Acc) -> {ok, Acc};
reversed([Head | Tail], Acc) -> reversed(Tail, [Head | Acc]);
reversed(_Improper, _Acc) -> error.

renamed(_Kind, _Names, [], Options, _Opts) ->
    {ok, Options};
renamed(Kind, Names, [{Key, Value} | Rest], Options, Opts) when is_atom(Key) ->
    case lists:keyfind(Key, 1, Names) of
        false ->
            {error, {unknown_option, Kind, Key}};
        {Key, Name, Values} ->
            case erlang_value(Kind, Name, Values, Value) of
                {ok, Renamed} -> renamed(Kind, Names, Rest, Options#{Name => Renamed}, Opts);
                error -> {error, {bad_value, Kind, Key, Value}}
            end
    end;
renamed(_Kind, _Names, _Rest, _Options, Opts) ->
    {error, {not_keyword, Opts}}.

%% A value in b64simd's words: one of Base's words renamed, or a line
%% length, which the NIF checks.
erlang_value(Kind, Name, pos_integer, Value) ->
    case b64simd_nif:option_problem(Kind, #{Name => Value}) of
        none -> {ok, Value};
        _Problem -> error
    end;
erlang_value(_Kind, _Name, Values, Value) ->
    case lists:keyfind(Value, 1, Values) of
        {Value, Renamed} -> {ok, Renamed};
        false -> error
    end.
