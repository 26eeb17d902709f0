%% @private
%% @doc What `b64simd', `b64simd_stream', `b64simd_hex', `b64simd_base32'
%% and `b64simd_messages' share, and no user calls: the one table of options, option maps parsed once into the
%% integer the NIF takes, iodata flattened once, and a sliced NIF job run to
%% its end.
-module(b64simd_options).

-export([table/1, flags/2, table_flags/2, bits/3, to_binary/1, finish/1, call/3]).
-export([elixir_names/1, from_elixir/3, elixir_flags/3]).

-export_type([kind/0, elixir_problem/0]).

-include("b64simd_layout.hrl").
-include("b64simd_flags.hrl").

%% `kind()', from the core's `Kind' (`b64simd_layout.hrl'): `encode' (and the
%% encoding stream), `decode' (with `try_decode', `is_valid' and the decoding
%% stream), and `mime' (`mime_decode'); Base16's (`b64simd_hex') and Base32's
%% (`b64simd_base32') encode and decode, validation with decode.

-type elixir_problem() :: {not_keyword, term()} | {unknown_option, kind(), term()}
                        | {bad_value, kind(), atom(), term()}.
%% Why `B64Simd' refuses its options (`b64simd_messages:elixir_options/2'
%% says it): not a keyword list, a key the kind does not take, or a bad
%% value.

%%====================================================================
%% The option table
%%====================================================================

%% @doc The options a kind of call takes, and for each value its bits in the
%% integer the NIF reads; `line_length' is a positive integer, placed from
%% bit 8 up. Parsing and the error messages both read this. Its maps are
%% written by the core's test from the core's own layout
%% (`b64simd_layout.hrl'), and a test holds them against the NIF's.
-spec table(kind()) -> #{atom() => #{term() => non_neg_integer()} | {pos_integer, 8}}.
table(Kind) ->
    ?LAYOUT(Kind).

%% @doc The options of `B64Simd', the Elixir facade, in the words of
%% Elixir's `Base': each key, in the order messages list them, the key of
%% `table/1' it stands for, and its values as `{Elixir, Erlang}' pairs in
%% the order messages list them, or `pos_integer' (the line length). The
%% core's table, written into `b64simd_layout.hrl'; literals, as they are
%% read on every call that names one.
-spec elixir_names(kind()) -> [{atom(), atom(), pos_integer | [{term(), term()}]}].
elixir_names(Kind) ->
    ?ELIXIR(Kind).

%% @doc `B64Simd''s options (a keyword list in Base's words) as the option
%% argument of the Erlang call it makes: renamed into this table's words
%% over Base's defaults for `Kind' and `Variant' (the mode, alphabet or
%% letter case the function's name says), a map; for Base16, the letter
%% case `b64simd_hex' takes. The first of a repeated key wins, as
%% `Keyword.get/2' reads it. Values are those `elixir_names/1' lists (a
%% test holds them against `table/1'), or a line length `table/1' takes.
-spec from_elixir(kind(), atom(), term()) -> {ok, map() | atom()} | {error, elixir_problem()}.
from_elixir(Kind, Variant, Opts) ->
    case reversed(Opts, []) of
        {ok, Reversed} ->
            case renamed(Kind, elixir_names(Kind), Reversed, base_defaults(Kind, Variant), Opts) of
                {ok, #{letter_case := Case}} when ?IS_HEX(Kind) -> {ok, Case};
                Renamed -> Renamed
            end;
        error ->
            {error, {not_keyword, Opts}}
    end.

%% @doc `B64Simd''s options (as `from_elixir/3' reads them) as the integer
%% the NIF takes, for the calls it makes without an option map: a list of
%% options crosses this module once.
-spec elixir_flags(kind(), atom(), term()) -> {ok, non_neg_integer()} | {error, elixir_problem()}.
elixir_flags(Kind, Variant, Opts) ->
    case from_elixir(Kind, Variant, Opts) of
        {ok, Case} when ?IS_HEX(Kind) -> {ok, bits(Kind, letter_case, Case)};
        {ok, Options} -> {ok, flags(Kind, Options)};
        Error -> Error
    end.

%% What Base does with no options: padding written and required, and for
%% Base64 whitespace rejected (where b64simd skips it), in the shapes
%% `flags/2' reads first.
base_defaults(encode, Mode) -> #{mode => Mode, padding => true};
base_defaults(decode, Mode) -> #{mode => Mode, padding => true, whitespace => reject};
base_defaults(Kind, Case) when ?IS_HEX(Kind) -> #{letter_case => Case};
base_defaults(Kind, Alphabet) when ?IS_BASE32(Kind) ->
    #{alphabet => Alphabet, letter_case => upper, padding => true}.

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

erlang_value(Kind, Name, pos_integer, Value) ->
    case bits(Kind, Name, Value) of
        badarg -> error;
        _ -> {ok, Value}
    end;
erlang_value(_Kind, _Name, Values, Value) ->
    case lists:keyfind(Value, 1, Values) of
        {Value, Renamed} -> {ok, Renamed};
        false -> error
    end.

%% @doc The integer the NIF takes for these options, or `badarg' for a
%% non-map, an unknown key (OTP 26+ ignores one, so a typo there silently
%% gives standard Base64) or a bad value. Padding is on unless the options
%% turn it off (for the kinds that take padding). The shapes real code
%% passes are read without a lookup in the table (`b64simd_flags.hrl').
-spec flags(kind(), term()) -> non_neg_integer() | badarg.
flags(Kind, Options) when is_map(Options) ->
    case shaped_flags(Kind, Options) of
        unshaped -> folded(Kind, Options);
        Flags -> Flags
    end;
flags(_Kind, _Options) ->
    badarg.

%% @doc As {@link flags/2}, through the table for every map: for a caller
%% that has read the shapes `b64simd_flags.hrl' knows already (`b64simd'),
%% so that a map of none of them is not looked at twice.
-spec table_flags(kind(), term()) -> non_neg_integer() | badarg.
table_flags(Kind, Options) when is_map(Options) ->
    folded(Kind, Options);
table_flags(_Kind, _Options) ->
    badarg.

%% @doc The bits of one option of a kind, or `badarg' for a key the kind
%% does not take or a bad value: for an option passed alone (Base16's
%% `letter_case').
-spec bits(kind(), atom(), term()) -> non_neg_integer() | badarg.
bits(Kind, Key, Value) ->
    option_bits(table(Kind), Key, Value).

%% Any other option map, each pair through the table (a list of pairs,
%% which costs a wrapped encode's options a fraction of what `maps:fold/3'
%% did).
folded(Kind, Options) ->
    Padded = case is_map_key(padding, Options) of
                 true -> 0;
                 false -> unset(Kind)
             end,
    pairs(table(Kind), maps:to_list(Options), Padded).

pairs(_Table, [], Flags) ->
    Flags;
pairs(Table, [{Key, Value} | Pairs], Flags) ->
    pairs(Table, Pairs, with(Flags, option_bits(Table, Key, Value))).

%% The bits of any option in a kind's table, or `badarg' for a key the kind
%% does not take or a bad value.
option_bits(Table, Key, Value) ->
    case Table of
        #{Key := {pos_integer, Shift}} -> length_bits(Shift, Value);
        #{Key := Values} when is_map(Values) -> bits(Values, Value);
        _ -> badarg
    end.

%%====================================================================
%% Inputs and jobs
%%====================================================================

%% @doc iodata as one binary, or `badarg'. Flattened once here, not in the
%% NIF (as jiffy does): `iolist_to_binary/1' is OTP's fastest way, and a
%% binary is then read in place.
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

%% @doc The result of a NIF call, its job run to the end: a big input comes
%% back as `{continue, Job}' after each slice, and calling back in from
%% Erlang lets the scheduler run others in between.
-spec finish(term()) -> term().
finish({continue, Job}) ->
    finish(b64simd_nif:continue(Job));
finish(Result) ->
    Result.

%% @doc `Nif(Binary, Flags)' run to the end for iodata `Data', or `badarg'
%% when `Flags' (from {@link flags/2} or {@link bits/3}) or `Data' is bad.
%% Base16 and Base32 call through it; `b64simd' names its NIFs itself, as a
%% fun's call is a noticeable part of a small Base64 call.
-spec call(fun((binary(), non_neg_integer()) -> term()), term(),
           non_neg_integer() | badarg) -> term().
call(_Nif, _Data, badarg) ->
    badarg;
call(Nif, Data, Flags) when is_binary(Data) ->
    finish(Nif(Data, Flags));
call(Nif, Data, Flags) ->
    case to_binary(Data) of
        badarg -> badarg;
        Binary -> finish(Nif(Binary, Flags))
    end.
