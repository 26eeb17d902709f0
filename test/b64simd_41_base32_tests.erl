%% Base32 (b64simd_base32) against the reference in b64simd_ref (itself
%% held to RFC 4648's vectors here; the ExUnit tests hold b64simd to
%% Elixir's Base on every release): every length 0..1100 under every
%% encode option set, round trips and the reference's verdict under every
%% decode option set, every byte value at every position of short texts,
%% random long inputs, iolists, forced slices, big inputs sliced, the
%% reductions a call is charged, bad arguments and the messages.
-module(b64simd_41_base32_tests).
-include_lib("eunit/include/eunit.hrl").

-import(b64simd_test_lib, [label/1, seed/1]).

-define(MAX_EXHAUSTIVE, 1100).

encode_option_sets() ->
    [#{alphabet => A, letter_case => C, padding => P}
     || A <- [standard, hex], C <- [upper, lower], P <- [true, false]]
        ++ [#{}, #{padding => false}, #{alphabet => hex}, #{letter_case => lower}].

decode_option_sets() ->
    [#{alphabet => A, letter_case => C, padding => P}
     || A <- [standard, hex], C <- [upper, lower, mixed], P <- [true, false]].

%% The options that decode what `encode' wrote under `Encode'.
decoding(Encode) ->
    maps:with([alphabet, letter_case, padding], Encode).

decoded(Text, Options) ->
    Result = b64simd_base32:try_decode(Text, Options),
    ?assertEqual(element(1, Result) =:= ok, b64simd_base32:is_valid(Text, Options),
                 label({Text, Options})),
    ?assertEqual(Result,
                 b64simd_test_lib:result(fun() -> b64simd_base32:decode(Text, Options) end),
                 label({Text, Options})),
    Result.

reference_vectors_test() ->
    %% RFC 4648 section 10.
    Vectors = [{<<>>, <<>>, <<>>}, {<<"f">>, <<"MY======">>, <<"CO======">>},
               {<<"fo">>, <<"MZXQ====">>, <<"CPNG====">>},
               {<<"foo">>, <<"MZXW6===">>, <<"CPNMU===">>},
               {<<"foob">>, <<"MZXW6YQ=">>, <<"CPNMUOG=">>},
               {<<"fooba">>, <<"MZXW6YTB">>, <<"CPNMUOJ1">>},
               {<<"foobar">>, <<"MZXW6YTBOI======">>, <<"CPNMUOJ1E8======">>}],
    [begin
         ?assertEqual(Standard, b64simd_ref:base32_encode(Data, #{})),
         ?assertEqual(Hex, b64simd_ref:base32_encode(Data, #{alphabet => hex})),
         ?assertEqual({ok, Data}, b64simd_ref:base32_decode(Standard, #{})),
         ?assertEqual({ok, Data}, b64simd_ref:base32_decode(Hex, #{alphabet => hex})),
         ?assertEqual(Standard, b64simd_base32:encode(Data)),
         ?assertEqual(Hex, b64simd_base32:encode(Data, #{alphabet => hex})),
         ?assertEqual(Data, b64simd_base32:decode(Standard))
     end
     || {Data, Standard, Hex} <- Vectors],
    ok.

exhaustive_lengths_test_() ->
    {timeout, 300, fun exhaustive_lengths/0}.

exhaustive_lengths() ->
    _ = seed(base32_exhaustive_lengths),
    [begin
         Data = rand:bytes(Length),
         [begin
              Text = b64simd_base32:encode(Data, Encode),
              ?assertEqual(b64simd_ref:base32_encode(Data, Encode), Text,
                           label({Length, Encode})),
              ?assertEqual({ok, Data}, decoded(Text, decoding(Encode)), label({Length, Encode})),
              [?assertEqual(b64simd_ref:base32_decode(Text, Decode), decoded(Text, Decode),
                            label({Length, Encode, Decode}))
               || Length =< 300, Decode <- decode_option_sets()]
          end
          || Encode <- encode_option_sets()]
     end
     || Length <- lists:seq(0, ?MAX_EXHAUSTIVE)],
    ok.

%% Every byte value at every position of the encodings of 0 to 10 bytes
%% (up to two groups, padded and not), under option sets that cover both
%% alphabets, each case and both paddings.
every_byte_everywhere_test_() ->
    {timeout, 300, fun every_byte_everywhere/0}.

every_byte_everywhere() ->
    _ = seed(base32_every_byte_everywhere),
    OptionSets = [#{}, #{letter_case => mixed, padding => false},
                  #{alphabet => hex, letter_case => lower},
                  #{alphabet => hex, letter_case => mixed, padding => false},
                  #{letter_case => lower, padding => false}, #{alphabet => hex}],
    [begin
         Text = b64simd_ref:base32_encode(rand:bytes(Length), #{padding => Padding}),
         [begin
              <<Before:At/binary, _, After/binary>> = Text,
              Bad = <<Before/binary, Byte, After/binary>>,
              [?assertEqual(b64simd_ref:base32_decode(Bad, Options), decoded(Bad, Options),
                            label({Bad, Options}))
               || Options <- OptionSets]
          end
          || At <- lists:seq(0, byte_size(Text) - 1), Byte <- lists:seq(0, 255)]
     end
     || Length <- lists:seq(0, 10), Padding <- [true, false]],
    ok.

random_large_test_() ->
    {timeout, 120, fun random_large/0}.

random_large() ->
    _ = seed(base32_random_large),
    [begin
         Data = rand:bytes(Length),
         Text = b64simd_base32:encode(Data),
         ?assertEqual(b64simd_ref:base32_encode(Data, #{}), Text, label(Length)),
         ?assertEqual(Data, b64simd_base32:decode(Text), label(Length)),
         At = rand:uniform(byte_size(Text) - 8) - 1,
         <<Before:At/binary, _, After/binary>> = Text,
         ?assertEqual({error, {invalid_character, At}},
                      b64simd_base32:try_decode(<<Before/binary, $1, After/binary>>),
                      label({Length, At}))
     end
     || Length <- [rand:uniform(1 bsl (10 + rand:uniform(11))) + 10 || _ <- lists:seq(1, 8)]
            ++ [2 * 1024 * 1024 + 3]],
    ok.

iolists_test() ->
    _ = seed(base32_iolists),
    [begin
         Text = b64simd_base32:encode(Data),
         [?assertEqual(Text, b64simd_base32:encode(Shape), label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Data)],
         [?assertEqual(Data, b64simd_base32:decode(Shape), label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Text)]
     end
     || Length <- [0, 1, 5, 17, 100], Data <- [rand:bytes(Length)]],
    ok.

sliced_test_() ->
    {setup, fun() -> ok end, fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun sliced/0}}.

sliced() ->
    _ = seed(base32_sliced),
    ok = b64simd_nif:set_slice_bytes(5),
    ?assertMatch({continue, _}, b64simd_nif:base32_encode(<<"0123456789AB">>, #{})),
    ?assertMatch({continue, _}, b64simd_nif:base32_decode(<<"GAYTEMZUGU3DOOBZGAYTEMZU">>, #{})),
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         [begin
              Data = rand:bytes(Length),
              Text = b64simd_base32:encode(Data, #{letter_case => lower}),
              ?assertEqual(b64simd_ref:base32_encode(Data, #{letter_case => lower}), Text),
              ?assertEqual({ok, Data}, decoded(Text, #{letter_case => mixed})),
              [begin
                   <<Before:At/binary, _, After/binary>> = Text,
                   [begin
                        Bad = <<Before/binary, Byte, After/binary>>,
                        ?assertEqual(b64simd_ref:base32_decode(Bad, #{letter_case => lower}),
                                     decoded(Bad, #{letter_case => lower}),
                                     label({Slice, Bad}))
                    end
                    || Byte <- [$=, $A, $1]]
               end
               || At <- lists:seq(0, byte_size(Text) - 1)]
          end
          || Length <- lists:seq(0, 30)]
     end
     || Slice <- [1, 5, 8, 9, 64]],
    ok.

big_inputs_are_sliced_test() ->
    Big = binary:copy(<<"GAYTEMZUGU3DOOBZ">>, 1 bsl 16),
    ?assertMatch({continue, _}, b64simd_nif:base32_encode(Big, #{})),
    ?assertMatch({continue, _}, b64simd_nif:base32_decode(Big, #{})),
    ?assertMatch({continue, _}, b64simd_nif:base32_is_valid(Big, #{})),
    ?assert(b64simd_base32:is_valid(Big)).

%% A loop of 20 KiB calls is charged what the charge table says of Base32.
calls_are_charged_their_cost_test() ->
    Data = rand:bytes(20480),
    Text = b64simd_base32:encode(Data),
    [b64simd_test_lib:charged_as(Op, Fun, Small, Big, Work)
     || {Op, Fun, Small, Big, Work} <-
            [{encode, fun b64simd_base32:encode/1, <<"a">>, Data, base32_encode},
             {decode, fun b64simd_base32:decode/1, <<"ME======">>, Text, base32_decode}]],
    ok.

bad_arguments_test() ->
    ?assertError(badarg, b64simd_base32:encode(atom)),
    ?assertError(badarg, b64simd_base32:encode(<<"a">>, #{letter_case => mixed})),
    ?assertError(badarg, b64simd_base32:encode(<<"a">>, #{alphabet => crockford})),
    ?assertError(badarg, b64simd_base32:decode(<<"ME======">>, #{cas => lower})),
    ?assertError(badarg, b64simd_base32:try_decode(<<"ME======">>, [{padding, false}])),
    ?assertError(badarg, b64simd_base32:is_valid(1)),
    ?assertError(missing_padding, b64simd_base32:decode(<<"ME">>)),
    ?assertError({bad_padding, 2}, b64simd_base32:decode(<<"ME==">>, #{padding => false})),
    ?assertError({incomplete, 8}, b64simd_base32:decode(<<"MZXW6YTBM">>, #{padding => false})).

messages_test() ->
    Explain = fun b64simd_test_lib:explained/1,
    ?assertEqual("invalid base32 character 0x30 ('0') at byte 8; use alphabet => hex for the "
                 "extended hex alphabet",
                 Explain(fun() -> b64simd_base32:decode(<<"MZXW6YTB01======">>) end)),
    ?assertEqual("invalid base32 character 0x6D ('m') at byte 0; use letter_case => mixed to accept "
                 "both cases", Explain(fun() -> b64simd_base32:decode(<<"mzxw6ytb">>) end)),
    ?assertEqual("invalid base32 character 0x57 ('W') at byte 0; use alphabet => standard for "
                 "the standard alphabet",
                 Explain(fun() -> b64simd_base32:decode(<<"WZXW6YTB">>, #{alphabet => hex}) end)),
    %% A letter that no case of the hex alphabet takes: the alphabet that
    %% does, and its other case where only that takes it.
    ?assertEqual("invalid base32 character 0x77 ('w') at byte 0; use alphabet => standard for "
                 "the standard alphabet; use letter_case => mixed to accept both cases",
                 Explain(fun() -> b64simd_base32:decode(<<"wZXW6YTB">>, #{alphabet => hex}) end)),
    ?assertEqual("invalid base32 character 0x77 ('w') at byte 0; use alphabet => standard for "
                 "the standard alphabet",
                 Explain(fun() -> b64simd_base32:decode(<<"wzxw6ytb">>,
                                                        #{alphabet => hex, letter_case => lower})
                         end)),
    ?assertEqual("invalid base32 character 0x57 ('W') at byte 0; use alphabet => standard for "
                 "the standard alphabet; use letter_case => mixed to accept both cases",
                 Explain(fun() -> b64simd_base32:decode(<<"Wzxw6ytb">>,
                                                        #{alphabet => hex, letter_case => lower})
                         end)),
    ?assertEqual("missing '=' padding at the end; use padding => false to accept unpadded input",
                 Explain(fun() -> b64simd_base32:decode(<<"ME">>) end)),
    ?assertMatch("misplaced or incomplete '=' padding at byte 2" ++ _,
                 Explain(fun() -> b64simd_base32:decode(<<"ME==">>) end)),
    ?assertMatch("the last group of base32 characters, from byte 0, has 1, 3 or 6" ++ _,
                 Explain(fun() -> b64simd_base32:decode(<<"MZX">>, #{padding => false}) end)),
    ?assertEqual("unknown option cas; the options are alphabet, letter_case, padding",
                 Explain(fun() -> b64simd_base32:decode(<<"ME======">>, #{cas => lower}) end)),
    %% The key of earlier versions is refused with the name of the new one.
    [?assertEqual("unknown option 'case'; the letter case is the option letter_case now (case "
                  "is a reserved word in Erlang)", Explain(Call))
     || Call <- [fun() -> b64simd_base32:decode(<<"ME======">>, #{'case' => lower}) end,
                 fun() -> b64simd_base32:encode(<<"a">>, #{'case' => lower}) end]].
