%% Errors: one test per decode reason (raised with error_info, returned by
%% try_decode), one per kind of bad term for every API function, bad
%% options, and what format_error/2 (through erl_error, as the shell shows
%% it) says about each.
-module(b64simd_03_errors_tests).
-include_lib("eunit/include/eunit.hrl").

-import(b64simd_test_lib, [label/1]).

%%====================================================================
%% One test per reason
%%====================================================================

missing_padding_test() ->
    assert_reason(missing_padding, <<"QUJDQQ">>, #{}),
    assert_reason(missing_padding, <<"QUJDQUI">>, #{mode => urlsafe, canonical => true}),
    assert_message(<<"QQ">>, #{}, 1, ["missing '=' padding", "padding => false"]).

invalid_character_test() ->
    assert_reason({invalid_character, 2}, <<"QQ-=">>, #{}),
    assert_reason({invalid_character, 3}, <<"QQ=_">>, #{}),
    assert_reason({invalid_character, 0}, <<"+QQ=">>, #{mode => urlsafe}),
    assert_reason({invalid_character, 1}, <<"Q\fQ=">>, #{}),
    assert_reason({invalid_character, 1}, <<"Q\vQ=">>, #{mode => any}),
    assert_reason({invalid_character, 4}, <<"QUJD\r\n">>, #{whitespace => reject}),
    assert_reason({invalid_character, 5}, [<<"QU">>, $J, "D", <<"Q", 200>>], #{}),
    assert_message(<<"QUJDQQ-=">>, #{}, 1,
                   ["invalid base64 character 0x2D ('-') at byte 6",
                    "use mode => urlsafe for '-' and '_'"]),
    assert_message(<<"_">>, #{}, 1, ["0x5F ('_') at byte 0", "use mode => urlsafe"]),
    assert_message(<<"QQ/=">>, #{mode => urlsafe}, 1,
                   ["0x2F ('/') at byte 2", "use mode => standard for '+' and '/'"]),
    assert_message(<<"QQ\f=">>, #{}, 1, ["invalid base64 character 0x0C at byte 2"]),
    assert_message(<<"QQ ==">>, #{whitespace => reject}, 1,
                   ["0x20 at byte 2", "whitespace => reject"]).

%% A hint names an option only where the codec accepts the byte with it:
%% none for `\f' (which OTP rejects as whitespace too), nor for a byte no
%% mode takes.
hints_come_from_the_codec_test() ->
    Say = fun(Byte, Options) ->
                  Context = #{byte => Byte, kind => decode, options => Options},
                  unicode:characters_to_list(
                    b64simd_messages:reason({invalid_character, 0}, Context))
          end,
    ?assertEqual("invalid base64 character 0x0C at byte 0", Say($\f, #{whitespace => reject})),
    ?assertEqual("invalid base64 character 0x21 ('!') at byte 0", Say($!, #{})),
    ?assertEqual("invalid base64 character 0x2D ('-') at byte 0", Say($-, #{mode => any})),
    ?assertEqual("invalid base64 character 0x0A at byte 0; whitespace is rejected because of "
                 "whitespace => reject", Say($\n, #{whitespace => reject})).

%% The offset and the character named are those of the flattened iolist.
invalid_character_in_iolist_test() ->
    Input = [<<"QU">>, [$J, "D"], [[<<"Q">>], "Q"], $-, <<"=">>],
    assert_reason({invalid_character, 6}, Input, #{}),
    assert_message(Input, #{}, 1, ["0x2D ('-') at byte 6", "use mode => urlsafe"]).

%% No hint when the character is in no alphabet, or the mode already
%% accepts it.
invalid_character_without_hint_test() ->
    Message = message(<<"QQ-!">>, #{mode => any}),
    ?assertNotEqual(nomatch, string:find(Message, "0x21 ('!') at byte 3"), Message),
    ?assertEqual(nomatch, string:find(Message, "use mode"), Message).

bad_padding_test() ->
    assert_reason({bad_padding, 2}, <<"QQ=">>, #{}),
    assert_reason({bad_padding, 2}, <<"QQ=">>, #{padding => false}),
    assert_reason({bad_padding, 2}, <<"QQ==QQ==">>, #{}),
    assert_reason({bad_padding, 4}, <<"QQ===">>, #{}),
    assert_reason({bad_padding, 0}, <<"=">>, #{padding => false}),
    assert_reason({bad_padding, 5}, <<"QUJD\n=">>, #{}),
    assert_message(<<"QUJDQQ=">>, #{}, 1, ["padding at byte 6"]).

incomplete_test() ->
    assert_reason({incomplete, 0}, <<"Q">>, #{}),
    assert_reason({incomplete, 4}, <<"QUJDQ">>, #{padding => false}),
    assert_reason({incomplete, 5}, <<"QUJD Q\r\n">>, #{mode => urlsafe}),
    assert_message(<<"QUJDQ">>, #{}, 1, ["dangling single base64 character at byte 4"]).

non_canonical_test() ->
    assert_reason({non_canonical, 1}, <<"QR==">>, #{canonical => true}),
    assert_reason({non_canonical, 2}, <<"QUJ=">>, #{canonical => true}),
    assert_reason({non_canonical, 6}, <<"QUJD QR">>, #{canonical => true, padding => false}),
    %% Accepted when canonical is not asked for, as OTP does.
    ?assertEqual(<<"A">>, b64simd:decode(<<"QR==">>)),
    assert_message(<<"QUJ=">>, #{canonical => true}, 1,
                   ["non-canonical", "at byte 2", "canonical => false"]).

%% The reason raised by decode/2 (with error_info naming b64simd) and
%% decode_to_string/2, and returned by try_decode/2; for default options
%% also by the arity-1 functions.
assert_reason(Reason, Input, Options) ->
    Label = label({Input, Options}),
    ?assertEqual({error, Reason}, b64simd:try_decode(Input, Options), Label),
    ?assertError(Reason, b64simd:decode_to_string(Input, Options)),
    Stack = raised(Reason, fun() -> b64simd:decode(Input, Options) end),
    ?assertMatch([{b64simd, decode, [Input, Options], _} | _], Stack, Label),
    case Options of
        #{} when map_size(Options) =:= 0 ->
            ?assertEqual({error, Reason}, b64simd:try_decode(Input), Label),
            ?assertError(Reason, b64simd:decode_to_string(Input)),
            ?assertMatch([{b64simd, decode, [Input], _} | _],
                         raised(Reason, fun() -> b64simd:decode(Input) end), Label);
        _ ->
            ok
    end.

%% The stack trace of the `error' that `Fun' raises, checked to be `Reason'
%% with error_info for format_error/2.
raised(Reason, Fun) ->
    try Fun() of
        Value -> erlang:error({no_exception, Reason, Value})
    catch
        error:Raised:Stack ->
            ?assertEqual(Reason, Raised),
            [{b64simd, _Function, _Args, Info} | _] = Stack,
            ?assertMatch(#{module := b64simd}, proplists:get_value(error_info, Info)),
            Stack
    end.

%% What the shell prints for decode(Input, Options): the description of
%% argument `Position' contains each of `Parts'.
assert_message(Input, Options, Position, Parts) ->
    Message = message(Input, Options),
    [?assertNotEqual(nomatch, string:find(Message, Part), {Part, Message}) || Part <- Parts],
    ?assertNotEqual(nomatch, string:find(Message, io_lib:format("*** argument ~b:", [Position])),
                    Message).

message(Input, Options) ->
    try b64simd:decode(Input, Options) of
        Value -> erlang:error({no_exception, Input, Value})
    catch
        error:Reason:Stack ->
            Map = b64simd:format_error(Reason, Stack),
            ?assert(is_map(Map)),
            unicode:characters_to_list(erl_error:format_exception(error, Reason, Stack))
    end.

%%====================================================================
%% Bad terms: badarg from every function
%%====================================================================

bad_terms() ->
    [foo, true, 1, -1, 256, 1.5, 1 bsl 70, {}, {<<"QQ==">>}, #{}, #{data => <<"QQ==">>},
     self(), make_ref(), fun() -> ok end, fun lists:reverse/1, hd(erlang:ports()),
     <<1:1>>, <<"QQ==", 1:7>>, [<<"QQ">>, <<1:3>>],
     [256], [-1], [$Q, $Q, 1000, $=], [[<<"QQ">>, [300]]], [1.0], [foo], [<<"QQ">>, {}],
     [$Q | $Q], [<<"QQ">> | foo], [$Q, $Q | 1], [[$Q] | self()], "ĀĀ=="].

api_calls(Term) ->
    [{encode, [Term]}, {encode, [Term, #{}]}, {encode_to_string, [Term]},
     {encode_to_string, [Term, #{mode => urlsafe}]},
     {decode, [Term]}, {decode, [Term, #{}]}, {decode_to_string, [Term]},
     {decode_to_string, [Term, #{padding => false}]},
     {try_decode, [Term]}, {try_decode, [Term, #{mode => any}]}].

bad_term_test_() ->
    [{label({Function, Args}), ?_test(assert_badarg(Function, Args, 1))}
     || Term <- bad_terms(), {Function, Args} <- api_calls(Term)].

%% `badarg' with error_info; format_error/2 describes the bad argument.
assert_badarg(Function, Args, Position) ->
    try apply(b64simd, Function, Args) of
        Value -> erlang:error({no_exception, Function, Args, Value})
    catch
        error:Reason:Stack ->
            ?assertEqual(badarg, Reason),
            [{b64simd, Raiser, RaisedArgs, Info} | _] = Stack,
            %% The function called, or the one it wraps (`encode' for
            %% `encode_to_string'): never a helper's name.
            ?assert(lists:prefix(atom_to_list(Raiser), atom_to_list(Function)),
                    {Raiser, Function}),
            ?assertEqual(Args, RaisedArgs),
            ?assertMatch(#{module := b64simd}, proplists:get_value(error_info, Info)),
            ?assertMatch(#{Position := _}, b64simd:format_error(Reason, Stack)),
            Message = unicode:characters_to_list(erl_error:format_exception(error, Reason,
                                                                            Stack)),
            ?assertNotEqual(nomatch, string:find(Message, "*** argument"), Message)
    end.

%% Terms that are valid iodata although they look odd.
odd_but_valid_iodata_test() ->
    [?assertEqual(<<"QQ==">>, b64simd:encode(Data), label(Data))
     || Data <- [[<<"A">> | <<>>], [[] | <<"A">>], [[[[65]]]], [<<>>, 65, []]]],
    [?assertEqual(<<"A">>, b64simd:decode(Base64), label(Base64))
     || Base64 <- [[<<"QQ">> | <<"==">>], [$Q, <<"Q=">> | <<"=">>], [[], "QQ", [[<<"==">>]]]]].

%% Both arguments bad: both are described.
both_arguments_described_test() ->
    try b64simd:decode(foo, #{mode => url}) of
        Value -> erlang:error({no_exception, Value})
    catch
        error:badarg:Stack ->
            ?assertMatch(#{1 := _, 2 := _}, b64simd:format_error(badarg, Stack))
    end.

%% A bad element is named by its position counted from 0, as byte offsets
%% are, one index per level of nesting.
bad_element_position_test() ->
    Data = [<<"QQ">>, [$=, foo]],
    ?assertEqual(foo, lists:nth(1 + 1, lists:nth(1 + 1, Data))),
    Message = unicode:characters_to_list(caught_message(fun() -> b64simd:decode(Data) end)),
    ?assertNotEqual(nomatch, string:find(Message, "the element at [1,1] is foo"), Message).

bitstring_message_test() ->
    Message = unicode:characters_to_list(caught_message(fun() -> b64simd:encode(<<1:3>>) end)),
    ?assertNotEqual(nomatch, string:find(Message, "not a whole number of bytes"), Message).

caught_message(Fun) ->
    try Fun() of
        Value -> erlang:error({no_exception, Value})
    catch
        error:Reason:Stack -> erl_error:format_exception(error, Reason, Stack)
    end.

%%====================================================================
%% Bad options: badarg
%%====================================================================

bad_common_options() ->
    [[], [{mode, urlsafe}], foo, 1, {mode, urlsafe},
     #{foo => 1}, #{"mode" => urlsafe}, #{<<"mode">> => urlsafe},
     #{mode => url}, #{mode => "urlsafe"}, #{mode => <<"urlsafe">>}, #{mode => undefined},
     #{padding => 1}, #{padding => yes}, #{padding => "true"}, #{padding => undefined},
     #{mode => urlsafe, bogus => true}].

%% Decode-only options and values, which encode refuses.
decode_only_options() ->
    [#{mode => any}, #{whitespace => skip}, #{canonical => false}].

bad_decode_options() ->
    bad_common_options()
        ++ [#{whitespace => true}, #{whitespace => strip}, #{canonical => 1},
            #{canonical => yes}, #{mode => any, whitespace => reject, canonical => 'maybe'}].

bad_options_test_() ->
    Encode = [{Function, [Data, Options]}
              || Options <- bad_common_options(), Data <- [<<>>, <<"data">>, "data"],
                 Function <- [encode, encode_to_string]],
    Decode = [{Function, [Data, Options]}
              || Options <- bad_decode_options(), Data <- [<<>>, <<"QQ==">>, <<"!!">>, "QQ"],
                 Function <- [decode, decode_to_string, try_decode]],
    [{label(Call), ?_test(assert_badarg(Function, Args, 2))}
     || {Function, Args} = Call <- Encode ++ Decode].

%% Maps that name every option the Elixir facade passes (encode: mode and
%% padding; decode: mode, padding, whitespace) are read by a quick clause;
%% one more key sends the same options down the general path. Both must
%% agree on every value, good or bad.
named_options_agree_with_the_general_path_test_() ->
    Outcome = fun(F) -> try {ok, F()} catch error:badarg -> badarg end end,
    Encode = [{#{mode => M, padding => P}, #{mode => M, padding => P, line_break => crlf}}
              || M <- [standard, urlsafe, any, url], P <- [true, false, 1]],
    Decode = [{#{mode => M, padding => P, whitespace => W},
               #{mode => M, padding => P, whitespace => W, canonical => false}}
              || M <- [standard, urlsafe, any, url], P <- [true, false, 1],
                 W <- [skip, reject, strip]],
    Inputs = [<<"QUJD">>, <<"QQ==">>, <<"QQ">>, <<"_-8">>, <<"QU JD">>, <<"!!">>, <<>>],
    [{label(Quick),
      ?_test(begin
                 ?assertEqual(Outcome(fun() -> b64simd:encode(<<251, 255, 191, 1>>, General) end),
                              Outcome(fun() -> b64simd:encode(<<251, 255, 191, 1>>, Quick) end)),
                 case Outcome(fun() -> b64simd:encode(<<251, 255, 191, 1>>, General) end) of
                     badarg -> assert_badarg(encode, [<<251, 255, 191, 1>>, Quick], 2);
                     _ -> ok
                 end
             end)}
     || {Quick, General} <- Encode]
    ++ [{label({Quick, Input}),
         ?_test(begin
                    ?assertEqual(Outcome(fun() -> b64simd:try_decode(Input, General) end),
                                 Outcome(fun() -> b64simd:try_decode(Input, Quick) end)),
                    ?assertEqual(Outcome(fun() -> b64simd:is_valid(Input, General) end),
                                 Outcome(fun() -> b64simd:is_valid(Input, Quick) end))
                end)}
        || {Quick, General} <- Decode, Input <- Inputs].

%% encode refuses the decode-only options, and format_error/2 says why.
decode_only_options_for_encode_test_() ->
    [{label(Options),
      ?_test(begin
                 ?assertError(badarg, b64simd:encode(<<"data">>, Options)),
                 ?assertError(badarg, b64simd:encode_to_string("data", Options)),
                 assert_badarg(encode, [<<"data">>, Options], 2)
             end)}
     || Options <- decode_only_options()].

option_messages_test() ->
    Messages = [{#{mode => url}, ["bad value url for option mode"]},
                {#{padding => 1}, ["bad value 1 for option padding"]},
                {#{foo => 1}, ["unknown option foo; the options are canonical, mode, padding, "
                               "whitespace"]},
                {[{mode, urlsafe}], ["options must be a map"]}],
    [begin
         Message = unicode:characters_to_list(
                     caught_message(fun() -> b64simd:decode(<<"QQ==">>, Options) end)),
         [?assertNotEqual(nomatch, string:find(Message, Part), {Part, Message})
          || Part <- ["*** argument 2:" | Parts]]
     end
     || {Options, Parts} <- Messages].

%% try_decode raises badarg for bad terms and options, but returns bad
%% Base64 as {error, Reason}; bad options win over bad Base64.
try_decode_test() ->
    ?assertEqual({error, {invalid_character, 0}}, b64simd:try_decode(<<"!!">>)),
    ?assertEqual({error, {invalid_character, 0}}, b64simd:try_decode(<<"!!">>, #{})),
    ?assertError(badarg, b64simd:try_decode(foo)),
    ?assertError(badarg, b64simd:try_decode(<<"!!">>, #{mode => url})),
    ?assertError(badarg, b64simd:try_decode(<<"QQ==">>, [])).

%% The empty input still has its options checked.
empty_input_options_checked_test() ->
    ?assertError(badarg, b64simd:encode(<<>>, #{mode => url})),
    ?assertError(badarg, b64simd:decode(<<>>, #{padding => 1})),
    ?assertError(badarg, b64simd:decode([], #{whitespace => reject, canonical => 0})).

%%====================================================================
%% format_error/2 on its own
%%====================================================================

format_error_without_args_test() ->
    ?assertEqual(#{}, b64simd:format_error(badarg, [])),
    ?assertEqual(#{}, b64simd:format_error(badarg, [{b64simd, decode, 1, []}])).

%% A stack trace no call of the API makes (built by hand) still gets a map.
format_error_of_odd_frames_test() ->
    Frame = fun(Args) -> [{b64simd_hex, decode_hex, Args, [{error_info, #{cause => #{}}}]}] end,
    Reason = {invalid_character, 0},
    ?assertMatch(#{1 := _}, b64simd_hex:format_error(Reason, Frame([<<"g">>, "upper"]))),
    ?assertMatch(#{1 := _}, b64simd_hex:format_error(Reason, Frame([<<"g">>, a, b]))),
    ?assertMatch(#{1 := _}, b64simd:format_error(Reason, Frame([<<"-">>, #{mode => bad}]))).

format_error_direct_test() ->
    Stack = [{b64simd, decode, [<<"QQ-=">>], [{error_info, #{module => b64simd}}]}],
    #{1 := Text} = b64simd:format_error({invalid_character, 2}, Stack),
    Message = unicode:characters_to_list(Text),
    ?assertNotEqual(nomatch, string:find(Message, "use mode => urlsafe for '-' and '_'"),
                    Message).

%% The unknown-key policy, against OTP's: OTP 26 and later ignore option keys
%% they do not know, so a typo (`mod' for `mode') silently gives standard
%% Base64; b64simd refuses them with badarg, so a typo cannot change the
%% alphabet unnoticed. (OTP 25's base64 takes no options at all.)
unknown_keys_are_refused_where_otp_ignores_them_test() ->
    Data = <<255, 254>>,
    {module, base64} = code:ensure_loaded(base64),
    case erlang:function_exported(base64, encode, 2) of
        true ->
            ?assertEqual(<<"//4=">>, base64:encode(Data, #{mod => urlsafe}), "OTP ignores it");
        false ->
            io:format(user, "~n*** SKIPPED the OTP half of unknown_keys_are_refused: "
                      "OTP ~s's base64 takes no options~n", [erlang:system_info(otp_release)])
    end,
    ?assertError(badarg, b64simd:encode(Data, #{mod => urlsafe})),
    ?assertError(badarg, b64simd:decode(<<"__4=">>, #{mod => urlsafe})),
    ?assertError(badarg, b64simd:try_decode(<<"__4=">>, #{mod => urlsafe})).

%% The options each kind of call takes, written out here apart from the
%% NIF, which reads option maps: its list of them is this one, and every
%% map (each key absent or set to each valid value, or to a bad one) is
%% refused exactly when it holds a bad value, as a call with it is.
options_test_() ->
    Keys = #{encode => [{mode, [standard, urlsafe]}, {padding, [true, false]},
                        {line_length, pos_integer}, {line_break, [crlf, lf]}],
             decode => [{mode, [standard, urlsafe, any]}, {padding, [true, false]},
                        {whitespace, [skip, reject]}, {canonical, [false, true]}],
             mime => [{mode, [standard, urlsafe, any]}, {padding, [true, false]}],
             hex_encode => [{letter_case, [upper, lower, uppercase, lowercase]}],
             hex_decode => [{letter_case, [upper, lower, mixed, uppercase, lowercase]}],
             base32_encode => [{alphabet, [standard, hex]}, {letter_case, [upper, lower]},
                               {padding, [true, false]}],
             base32_decode => [{alphabet, [standard, hex]}, {letter_case, [upper, lower, mixed]},
                               {padding, [true, false]}]},
    [{atom_to_list(Kind), fun() -> takes_its_options(Kind, KindKeys) end}
     || {Kind, KindKeys} <- maps:to_list(Keys)].

takes_its_options(Kind, Keys) ->
    ?assertEqual(Keys, b64simd_options:options(Kind)),
    Values = fun(pos_integer) -> [76, 1 bsl 70, 0]; (Atoms) -> Atoms ++ [bogus] end,
    Maps = lists:foldl(fun({Key, Valid}, Acc) ->
                               [M#{Key => V} || M <- Acc, V <- Values(Valid)] ++ Acc
                       end, [#{}], Keys),
    [?assertEqual(expected_problem(Map, Keys), b64simd_nif:option_problem(Kind, Argument), Map)
     || Map <- Maps, {ok, Argument} <- [option_argument(Kind, Map)]],
    case Kind of
        _ when Kind =:= hex_encode; Kind =:= hex_decode -> ok;
        _ ->
            ?assertEqual({unknown_option, mod}, b64simd_nif:option_problem(Kind, #{mod => 1})),
            ?assertEqual(not_a_map, b64simd_nif:option_problem(Kind, [{mode, urlsafe}]))
    end.

%% What a call of the kind takes for the options of `Map': the map, or
%% Base16's letter case alone.
option_argument(Kind, #{letter_case := Case}) when Kind =:= hex_encode; Kind =:= hex_decode ->
    {ok, Case};
option_argument(Kind, _Map) when Kind =:= hex_encode; Kind =:= hex_decode ->
    none;
option_argument(_Kind, Map) ->
    {ok, Map}.

%% The first bad value, in the order of the kind's options.
expected_problem(Map, Keys) ->
    case [{Key, V} || {Key, _} <- Keys, V <- [maps:get(Key, Map, absent)], V =:= bogus orelse V =:= 0] of
        [] -> none;
        [{Key, Value} | _] -> {bad_value, Key, Value}
    end.

%% B64Simd's options (Base's words) name only keys and values the calls
%% take: Elixir renames them, the NIF checks them.
elixir_names_are_the_options_test() ->
    [begin
         {Name, Taken} = lists:keyfind(Name, 1, b64simd_options:options(Kind)),
         case Values of
             pos_integer -> ?assertEqual(pos_integer, Taken, {Kind, Key});
             _ -> [?assert(lists:member(Value, Taken), {Kind, Key, Value}) || {_, Value} <- Values]
         end
     end
     || Kind <- [encode, decode, hex_encode, hex_decode, base32_encode, base32_decode],
        {Key, Name, Values} <- b64simd_options:elixir_names(Kind)].

%% The atom b64simd passes for the commonest map means that map, for every
%% kind that takes both of its options, and nothing for the others.
urlsafe_unpadded_is_its_map_test() ->
    Map = #{mode => urlsafe, padding => false},
    Data = <<255, 254, 253, 252>>,
    Text = b64simd_ref:encode(Data, Map),
    ?assertEqual(Text, b64simd_nif:encode(Data, urlsafe_unpadded)),
    ?assertEqual(Data, b64simd_nif:decode(Text, urlsafe_unpadded)),
    ?assertEqual(true, b64simd_nif:is_valid(Text, urlsafe_unpadded)),
    ?assertEqual(Data, b64simd_nif:mime_decode(Text, urlsafe_unpadded)),
    ?assertEqual(badarg, b64simd_nif:base32_encode(Data, urlsafe_unpadded)),
    ?assertEqual(badarg, b64simd_nif:hex_encode(Data, urlsafe_unpadded)),
    ?assertEqual(Text, b64simd:encode(Data, Map)),
    ?assertEqual(Data, b64simd:decode(Text, Map)).
