%% @private
%% @doc Every sentence the library says, made in one place from the data of
%% an error: why Base64, Base16 or Base32 was rejected
%% (`b64simd:format_error/1,2', `b64simd_hex', `b64simd_base32', the streams
%% and the Elixir module `B64Simd' all come here), and what is wrong with an
%% argument. No code reads these sentences back.
-module(b64simd_messages).

-export([reason/2, load_error/1, arguments/2, error_map/4, not_iodata/2, elixir_options/2,
         not_a_stream/1]).

-export_type([context/0]).

%% What builds the library from source, never a prebuilt one.
-define(SOURCE, "B64SIMD_BUILD=source ").

-type context() :: #{byte => byte() | undefined,
                     kind => b64simd_options:kind(),
                     options => map(),
                     encoding => base64 | base16 | base32,
                     dialect => erlang | elixir,
                     stream => boolean(),
                     inspect => fun((term(), list()) -> unicode:chardata())}.
%% What is known around a reason: the byte at its offset, the kind of call
%% and its options (for the hint that fixes it), the encoding (default
%% `base64'), whose words the hint uses (`erlang' options or `elixir'
%% functions), whether the offset is into a stream, and how the caller's
%% language writes a term (default: Erlang's way).

%%====================================================================
%% Reasons
%%====================================================================

%% @doc What `Reason' means and, where the context tells, how to fix it.
-spec reason(term(), context()) -> unicode:chardata().
reason({invalid_character, Offset}, #{encoding := base16} = Context) ->
    Byte = maps:get(byte, Context, undefined),
    ["invalid hex digit ", show_byte(Byte), "at ", at(Offset, Context)
     | hex_case_hint(Byte, Context)];
reason({incomplete, Offset}, #{encoding := base16} = Context) ->
    io_lib:format("odd number of hex digits: the digit at ~s has no pair; the input is "
                  "truncated", [at(Offset, Context)]);
reason({invalid_character, Offset}, #{encoding := base32} = Context) ->
    Byte = maps:get(byte, Context, undefined),
    ["invalid base32 character ", show_byte(Byte), "at ", at(Offset, Context)
     | base32_hint(Byte, Context)];
reason({bad_padding, Offset}, #{encoding := base32} = Context) ->
    io_lib:format("misplaced or incomplete '=' padding at ~s: '=' may only end the input, "
                  "filling its last group of 8 characters after 2, 4, 5 or 7 of them",
                  [at(Offset, Context)]);
reason({incomplete, Offset}, #{encoding := base32} = Context) ->
    io_lib:format("the last group of base32 characters, from ~s, has 1, 3 or 6 characters, "
                  "which no data encodes to: the input is truncated", [at(Offset, Context)]);
reason(missing_padding, #{kind := mime} = Context) ->
    ["the base64 characters end in an incomplete group with no '=' after it; mime_decode "
     "takes every alphabet character in its input, so text after the Base64 body (a MIME "
     "boundary, say) counts: pass the body alone, or ", option(padding, false, Context),
     " to accept an incomplete group"];
reason(missing_padding, Context) ->
    ["missing '=' padding at the end; use ", option(padding, false, Context),
     " to accept unpadded input"];
reason({invalid_character, Offset}, Context) ->
    Byte = maps:get(byte, Context, undefined),
    ["invalid base64 character ", show_byte(Byte), "at ", at(Offset, Context)
     | hint(Byte, Context)];
reason({bad_padding, Offset}, Context) ->
    io_lib:format("misplaced or incomplete '=' padding at ~s: '=' may only end the input, "
                  "once after 3 characters or twice after 2", [at(Offset, Context)]);
reason({incomplete, Offset}, Context) ->
    io_lib:format("dangling single base64 character at ~s: the input is truncated (a final "
                  "group needs at least 2 characters)", [at(Offset, Context)]);
reason({non_canonical, Offset}, Context) ->
    ["non-canonical encoding: the unused low bits of the character at ", at(Offset, Context),
     " are not zero (RFC 4648 section 3.5); use ", option(canonical, false, Context),
     " to accept it"];
reason(badarg, _Context) ->
    "bad argument: not iodata, or bad options";
reason(Reason, _Context) ->
    load_error(Reason).

at(Offset, #{stream := true}) -> io_lib:format("byte ~b of the stream", [Offset]);
at(Offset, _Context) -> io_lib:format("byte ~b", [Offset]).

%% An option as the caller writes it.
option(Key, Value, #{dialect := elixir}) -> io_lib:format("~s: ~s", [Key, Value]);
option(Key, Value, _Context) -> io_lib:format("~s => ~s", [Key, Value]).

%% What accepts the character: the other alphabet, or whitespace skipped.
%% What each alphabet, case and whitespace option takes is asked of the codec
%% (`accepts/3'), not written here again.
hint(Byte, Context) when is_integer(Byte) ->
    Options = maps:get(options, Context, #{}),
    Quantum = <<Byte, Byte, Byte, Byte>>,
    Mode = maps:get(mode, Options, standard),
    Skipped = maps:get(whitespace, Options, skip) =:= reject
        andalso accepts(decode, #{}, <<"AAAA", Byte>>),
    Other = maps:get(Mode, #{standard => urlsafe, urlsafe => standard}, none),
    case {Other, Skipped, Context} of
        {_, true, #{dialect := elixir}} -> "; use ignore: :whitespace to skip whitespace";
        {_, true, _} -> "; whitespace is rejected because of whitespace => reject";
        {none, false, _} -> "";
        {_, false, _} ->
            case accepts(decode, #{mode => Other}, Quantum)
                andalso not accepts(decode, #{mode => Mode}, Quantum) of
                true -> mode_hint(Mode, Context);
                false -> ""
            end
    end;
hint(_Byte, _Context) ->
    "".

mode_hint(standard, #{dialect := elixir}) -> "; use url_decode64 for '-' and '_'";
mode_hint(standard, _Context) -> "; use mode => urlsafe for '-' and '_'";
mode_hint(urlsafe, #{dialect := elixir}) -> "; use decode64 for '+' and '/'";
mode_hint(urlsafe, _Context) -> "; use mode => standard for '+' and '/'".

%% Base16: a letter of the other case, and the case that accepts it.
hex_case_hint(Byte, Context) when is_integer(Byte) ->
    Case = letter_case(Context),
    Pair = <<Byte, Byte>>,
    case accepts(hex_decode, #{letter_case => mixed}, Pair)
        andalso not accepts(hex_decode, #{letter_case => Case}, Pair) of
        true -> case_hint(Context);
        false -> ""
    end;
hex_case_hint(_Byte, _Context) ->
    "".

%% Base32: a letter of the other case, or a character of the other alphabet
%% (of the other case too, if only that takes it).
base32_hint(Byte, Context) when is_integer(Byte) ->
    Alphabet = maps:get(alphabet, maps:get(options, Context, #{}), standard),
    Other = maps:get(Alphabet, #{standard => hex, hex => standard}, none),
    Case = letter_case(Context),
    Group = binary:copy(<<Byte>>, 8),
    Accepts = fun(In, InCase) ->
                      In =/= none andalso
                          accepts(base32_decode, #{alphabet => In, letter_case => InCase}, Group)
              end,
    case {Accepts(Alphabet, mixed) andalso not Accepts(Alphabet, Case), Accepts(Other, Case),
          Accepts(Other, mixed)} of
        {true, _, _} -> case_hint(Context);
        {false, true, _} -> base32_alphabet_hint(Alphabet, Context);
        {false, false, true} -> [base32_alphabet_hint(Alphabet, Context) | case_hint(Context)];
        {false, false, false} -> ""
    end;
base32_hint(_Byte, _Context) ->
    "".

case_hint(#{dialect := elixir}) -> "; use case: :mixed to accept both cases";
case_hint(#{encoding := base16}) -> "; use the case mixed (decode_hex/1) to accept both cases";
case_hint(_Context) -> "; use letter_case => mixed to accept both cases".

base32_alphabet_hint(standard, #{dialect := elixir}) ->
    "; use hex_decode32 for the extended hex alphabet";
base32_alphabet_hint(standard, _Context) -> "; use alphabet => hex for the extended hex alphabet";
base32_alphabet_hint(hex, #{dialect := elixir}) -> "; use decode32 for the standard alphabet";
base32_alphabet_hint(hex, _Context) -> "; use alphabet => standard for the standard alphabet".

%% Whether a decode of `Kind' with `Options' (the rest default) accepts
%% `Text', asked of the codec itself; false where it cannot answer (the
%% library not loaded).
accepts(Kind, Options, Text) ->
    try
        case Kind of
            decode -> b64simd_nif:is_valid(Text, Options);
            hex_decode -> b64simd_nif:hex_is_valid(Text, maps:get(letter_case, Options));
            base32_decode -> b64simd_nif:base32_is_valid(Text, Options)
        end =:= true
    catch
        error:_ -> false
    end.

%% The case a Base16 or Base32 decode accepts, in either module's words; by
%% default, both for Base16 (`decode_hex/1') and upper for Base32.
letter_case(Context) ->
    Default = case Context of
                  #{encoding := base32} -> upper;
                  _ -> mixed
              end,
    case maps:get(letter_case, maps:get(options, Context, #{}), Default) of
        uppercase -> upper;
        lowercase -> lower;
        Case -> Case
    end.

%% The character, and a space after it.
show_byte(undefined) ->
    "";
show_byte(Byte) when Byte >= 16#21, Byte =< 16#7E ->
    io_lib:format("0x~2.16.0B ('~c') ", [Byte, Byte]);
show_byte(Byte) ->
    io_lib:format("0x~2.16.0B ", [Byte]).

%%====================================================================
%% Load failures
%%====================================================================

%% @doc Why the NIF library did not load (`b64simd:load_error()'), and what
%% fixes it; any other term as it is written.
-spec load_error(term()) -> unicode:chardata().
load_error({forced_kernel_unsupported, Kernel, Supported}) ->
    io_lib:format("SIMDUTF_FORCE_IMPLEMENTATION=~s forces simdutf's ~s kernel, whose "
                  "instructions this CPU lacks (it can run ~s): unset "
                  "SIMDUTF_FORCE_IMPLEMENTATION to let simdutf choose, or set it to one of "
                  "those", [Kernel, Kernel, names(Supported)]);
load_error({unknown_kernel, Name, Known}) ->
    io_lib:format("SIMDUTF_FORCE_IMPLEMENTATION=\"~ts\" names no simdutf kernel of this build "
                  "(known: ~s): unset SIMDUTF_FORCE_IMPLEMENTATION to let simdutf choose, or "
                  "set it to one of those", [Name, names(Known)]);
load_error({own_avx2_unsupported, Value}) ->
    io_lib:format("B64SIMD_OWN_AVX2=~s asks for b64simd's own AVX2 code, whose instructions "
                  "this CPU lacks: unset B64SIMD_OWN_AVX2 to let b64simd choose", [Value]);
load_error({unknown_own_avx2, Value, Known}) ->
    io_lib:format("B64SIMD_OWN_AVX2=\"~ts\" is none of its values (~s): unset "
                  "B64SIMD_OWN_AVX2 to let b64simd choose, or set it to one of those",
                  [Value, names(Known)]);
load_error({library_missing, File}) ->
    io_lib:format("the NIF library ~ts is missing: build it ~ts", [File, rebuild("")]);
load_error({built_for_another_otp, File, Detail}) ->
    io_lib:format("the NIF library ~ts was built for another Erlang/OTP (~ts): build it "
                  "again for this one from source ~ts", [File, Detail, rebuild(?SOURCE)]);
load_error({built_for_another_architecture, File, Detail}) ->
    io_lib:format("the NIF library ~ts was built for another CPU architecture or operating "
                  "system (~ts): build it again on this machine from source ~ts",
                  [File, Detail, rebuild(?SOURCE)]);
load_error({glibc_too_old, File, Needed}) ->
    io_lib:format("the NIF library ~ts needs ~ts, which this system's C library is older "
                  "than: build it again on this system from source ~ts; or run on a newer "
                  "system", [File, Needed, rebuild(?SOURCE)]);
load_error({load_failed, File, Detail}) ->
    io_lib:format("the NIF library ~ts did not load (~ts): build it again from source ~ts",
                  [File, Detail, rebuild(?SOURCE)]);
load_error({reload_refused, File, Detail}) ->
    io_lib:format("a new version of the module b64simd_nif cannot load the NIF library ~ts "
                  "while the old one holds it (~ts): the old code goes on running; delete and "
                  "purge b64simd_nif (code:delete/1, code:purge/1) before loading it again",
                  [File, Detail]);
load_error(unknown) ->
    "the NIF library is not loaded, and this module instance recorded no reason (its code "
    "was replaced since): call the module's current code, or restart the VM";
load_error(Term) ->
    io_lib:format("~tp", [Term]).

%% The commands that build the library again, in a rebar3 project and in a
%% mix one, with `Env' before the build: neither tool builds a dependency
%% again by itself.
rebuild(Env) ->
    ["with `rebar3 clean --apps=b64simd && ", Env, "rebar3 compile` in a rebar3 project or `",
     Env, "mix deps.compile b64simd` in a mix one"].

%% Names, as a list in a sentence.
names(Names) ->
    lists:join(", ", Names).

%%====================================================================
%% Arguments
%%====================================================================

%% @doc The map of `format_error/2' for an error raised by `b64simd',
%% `b64simd_hex' or `b64simd_base32' (its `Context', the encoding):
%% `badarg' described argument by argument, the kind of call `KindOf' the
%% function; a reason said with the byte at its offset (as its
%% `error_info' cause carries it, else read from the data) and the options
%% (for Base16, the case) of the call; a library that did not load, in
%% general, whole (the shell cuts the exception's own binary short).
-spec error_map(term(), erlang:stacktrace(), fun((atom()) -> b64simd_options:kind()),
                context()) -> #{pos_integer() => unicode:chardata()}.
error_map(badarg, [{_M, Function, Args, _Info} | _], KindOf, _Context) when is_list(Args) ->
    arguments(KindOf(Function), Args);
error_map(Reason, [{_M, Function, [Data | Rest], Info} | _], KindOf, Context) ->
    Cause = maps:get(cause, proplists:get_value(error_info, Info, #{}), #{}),
    Options = case Rest of
                  [Map] when is_map(Map) -> Map;
                  [Case] when is_atom(Case) -> #{letter_case => Case};
                  _ -> #{}
              end,
    Byte = case Cause of
               #{byte := Raised} -> Raised;
               _ -> byte_at(Data, Reason)
           end,
    #{1 => reason(Reason, Context#{byte => Byte, kind => KindOf(Function),
                                   options => Options})};
error_map({b64simd_nif_not_loaded, LoadError, _Message}, _StackTrace, _KindOf, _Context) ->
    #{general => unicode:characters_to_binary(load_error(LoadError))};
error_map(_Reason, _StackTrace, _KindOf, _Context) ->
    #{}.

%% The byte of `Data' at the reason's offset, for a stack trace whose
%% `error_info' does not carry it.
byte_at(Data, {_Kind, Offset}) when is_integer(Offset) ->
    case b64simd_call:to_binary(Data) of
        <<_:Offset/binary, Byte, _/binary>> -> Byte;
        _ -> undefined
    end;
byte_at(_Data, _Reason) ->
    undefined.

%% @doc What is wrong with each argument of a call of `Kind' that raised
%% `badarg': data that is not iodata, options that are not a map or hold an
%% unknown key or a bad value (as the option table has them), or for
%% Base16 a bad case. Arguments are `[Data]' or `[Data, Options]' (`[Data,
%% Case]' for Base16).
-spec arguments(b64simd_options:kind(), [term()]) -> #{pos_integer() => unicode:chardata()}.
arguments(Kind, [Data | Rest]) ->
    Described = #{1 => not_iodata(Data, #{}), 2 => bad_options(Kind, Rest)},
    maps:filter(fun(_Position, Text) -> Text =/= none end, Described);
arguments(_Kind, []) ->
    #{}.

%% @doc Why `Options' are refused, or `none': each pair the NIF refuses
%% (`b64simd_nif:option_problem/2'), said with the options the kind takes.
-spec bad_options(b64simd_options:kind(), [term()]) -> unicode:chardata() | none.
bad_options(_Kind, []) ->
    none;
bad_options(Kind, [Case]) when Kind =:= hex_encode; Kind =:= hex_decode ->
    case b64simd_nif:option_problem(Kind, Case) of
        none ->
            none;
        {bad_value, letter_case, Case} ->
            {letter_case, Cases} = lists:keyfind(letter_case, 1, b64simd_options:options(Kind)),
            io_lib:format("bad letter case ~tp; expected one of ~tp", [Case, lists:sort(Cases)])
    end;
bad_options(_Kind, [Options]) when not is_map(Options) ->
    io_lib:format("options must be a map, not ~tp", [Options]);
bad_options(Kind, [Options]) ->
    Table = b64simd_options:options(Kind),
    Problems = [problem(Problem, Table)
                || {Key, Value} <- lists:sort(maps:to_list(Options)),
                   Problem <- [b64simd_nif:option_problem(Kind, #{Key => Value})],
                   Problem =/= none],
    case Problems of
        [] -> none;
        _ -> lists:join("; ", Problems)
    end.

%% A refused pair in words. The key `case' of earlier versions of Base32
%% is named `letter_case' now.
problem({unknown_option, 'case'}, Table) when is_list(Table) ->
    case lists:keymember(letter_case, 1, Table) of
        true ->
            "unknown option 'case'; the letter case is the option letter_case now (case is a "
            "reserved word in Erlang)";
        false ->
            unknown_option('case', Table)
    end;
problem({unknown_option, Key}, Table) ->
    unknown_option(Key, Table);
problem({bad_value, Key, Value}, Table) ->
    case lists:keyfind(Key, 1, Table) of
        {Key, pos_integer} ->
            io_lib:format("bad value ~tp for option ~tp; expected a positive integer", [Value, Key]);
        {Key, Values} ->
            io_lib:format("bad value ~tp for option ~tp; expected one of ~tp",
                          [Value, Key, lists:sort(Values)])
    end.

unknown_option(Key, Table) ->
    Keys = [io_lib:format("~tp", [Known]) || {Known, _} <- lists:keysort(1, Table)],
    io_lib:format("unknown option ~tp; the options are ~ts", [Key, names(Keys)]).

%% @doc What a stream call's first argument is not: a state of its kind of
%% stream (`encoder' or `decoder').
-spec not_a_stream(encoder | decoder) -> unicode:chardata().
not_a_stream(encoder) -> "not a stream state from encode_init/1";
not_a_stream(decoder) -> "not a stream state from decode_init/1".

%% @doc Why `B64Simd' refuses its options, in Elixir's words: the keys
%% and values as `b64simd_options:elixir_names/1' has them, written by the
%% context's `inspect'.
-spec elixir_options(b64simd_options:elixir_problem(), context()) -> unicode:chardata().
elixir_options({not_keyword, Opts}, Context) ->
    ["expected a keyword list of options, got: ", show_option(Opts, Context)];
elixir_options({unknown_option, Kind, Key}, Context) ->
    Keys = [show_option(Name, Context) || {Name, _, _} <- b64simd_options:elixir_names(Kind)],
    ["unknown option ", show_option(Key, Context), "; the options are ", names(Keys)];
elixir_options({bad_value, Kind, Key, Value}, Context) ->
    {Key, _Name, Values} = lists:keyfind(Key, 1, b64simd_options:elixir_names(Kind)),
    ["bad value ", show_option(Value, Context), " for option ", show_option(Key, Context),
     "; expected ", expected(Values, Context)].

%% The values an option takes, as a sentence.
expected(pos_integer, _Context) ->
    "a positive integer";
expected(Values, Context) ->
    alternatives([show_option(Value, Context) || {Value, _} <- Values]).

alternatives([One]) -> One;
alternatives(Many) -> [names(lists:droplast(Many)), " or ", lists:last(Many)].

%% A term as the caller's `inspect' writes it with no options (Elixir's
%% `inspect/1', up to 50 items), as `B64Simd' wrote its options' errors
%% itself: not cut at 10 as `show/2' cuts data.
show_option(Term, #{inspect := Inspect}) ->
    Inspect(Term, []);
show_option(Term, _Context) ->
    io_lib:format("~tp", [Term]).

%% @doc Why `Data' is not iodata, naming the first element that is not, by
%% its position (0-based, as byte offsets are, one index per level of
%% nesting), or `none'. Terms are written as the context's dialect writes
%% them (Erlang's `~tP', or the context's `inspect', Elixir's `inspect/2').
-spec not_iodata(term(), context()) -> unicode:chardata() | none.
not_iodata(Data, _Context) when is_binary(Data) ->
    none;
not_iodata(Data, _Context) when is_bitstring(Data) ->
    "not iodata: a bitstring whose size is not a whole number of bytes";
not_iodata(Data, Context) when is_list(Data) ->
    case first_bad(Data, []) of
        none -> none;
        {element, Path, Term} ->
            ["not iodata: the element at ", show_path(Path, Context), " is ", show(Term, Context),
             ", not a byte (0..255), a binary or a list"];
        {tail, [], Term} ->
            ["not iodata: the list ends in the tail ", show(Term, Context),
             ", not [] or a binary"];
        {tail, Path, Term} ->
            ["not iodata: the list at ", show_path(Path, Context), " ends in the tail ",
             show(Term, Context), ", not [] or a binary"]
    end;
not_iodata(Data, Context) ->
    ["not iodata: expected a binary or a list of bytes (0..255) and binaries, not ",
     show(Data, Context)].

%% A term as the caller's language writes it (its `inspect', given by
%% Elixir's caller), cut short as the shell does.
show(Term, #{inspect := Inspect}) ->
    Inspect(Term, [{limit, 10}]);
show(Term, _Context) ->
    io_lib:format("~tP", [Term, 10]).

%% A list of indexes, never taken for text.
show_path(Path, #{inspect := Inspect}) ->
    Inspect(Path, [{charlists, as_lists}]);
show_path(Path, _Context) ->
    io_lib:format("~w", [Path]).

%% The first element of a list (at `Path', reversed) that iodata cannot
%% hold, or an improper tail that is not a binary.
first_bad(List, Path) ->
    first_bad(List, 0, Path).

first_bad([], _Index, _Path) ->
    none;
first_bad([Head | Tail], Index, Path) ->
    Found = if
                is_integer(Head), Head >= 0, Head =< 255 -> none;
                is_binary(Head) -> none;
                is_list(Head) -> first_bad(Head, [Index | Path]);
                true -> {element, lists:reverse([Index | Path]), Head}
            end,
    case Found of
        none -> first_bad(Tail, Index + 1, Path);
        _ -> Found
    end;
first_bad(Tail, _Index, _Path) when is_binary(Tail) ->
    none;
first_bad(Tail, _Index, Path) ->
    {tail, lists:reverse(Path), Tail}.
