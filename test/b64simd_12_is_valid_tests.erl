%% is_valid/1,2: the same verdict as try_decode/1,2 with the same options, on
%% mutated encodings and random garbage, one shot, with forced tiny slices,
%% and on several MiB; OTP's decode as a second oracle for the defaults.
-module(b64simd_12_is_valid_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SEED, {12, 2026, 5}).

seed() ->
    rand:seed(exsss, ?SEED),
    io:format(user, "~n*** ~s: random inputs from seed ~p~n", [?MODULE, ?SEED]).

random_bytes(N) ->
    list_to_binary([rand:uniform(256) - 1 || _ <- lists:seq(1, N)]).

%% An encoding with a few bytes inserted, replaced or dropped.
mutated_input() ->
    Len = rand:uniform(200) - 1,
    Options = #{mode => lists:nth(rand:uniform(2), [standard, urlsafe]),
                padding => rand:uniform(2) =:= 1},
    Text = b64simd_ref:encode(random_bytes(Len), Options),
    mutate(Text, rand:uniform(4) - 1).

mutate(Text, 0) ->
    Text;
mutate(Text, N) ->
    Special = lists:nth(rand:uniform(16), "=\t\n\r \f\v-_+/\0.QA\377"),
    At = rand:uniform(byte_size(Text) + 1) - 1,
    <<Before:At/binary, After/binary>> = Text,
    Mutated = case {rand:uniform(3), After} of
                  {1, _} -> <<Before/binary, Special, After/binary>>;
                  {2, <<_, Rest/binary>>} -> <<Before/binary, Special, Rest/binary>>;
                  {3, <<_, Rest/binary>>} -> <<Before/binary, Rest/binary>>;
                  {_, <<>>} -> <<Before/binary, Special>>
              end,
    mutate(Mutated, N - 1).

all_options() ->
    [#{mode => M, padding => P, whitespace => W, canonical => C}
     || M <- [standard, urlsafe, any], P <- [true, false], W <- [skip, reject],
        C <- [true, false]].

verdict(Input, Options) ->
    element(1, b64simd:try_decode(Input, Options)) =:= ok.

otp_verdict(Input) ->
    try base64:decode(Input) of
        _ -> true
    catch
        error:_ -> false
    end.

same_verdict_as_try_decode_test_() ->
    {timeout, 120,
     fun() ->
             seed(),
             [begin
                  Input = mutated_input(),
                  ?assertEqual(verdict(Input, #{}), b64simd:is_valid(Input), Input),
                  ?assertEqual(otp_verdict(Input), b64simd:is_valid(Input), {otp, Input}),
                  [?assertEqual(verdict(Input, Options), b64simd:is_valid(Input, Options),
                                {Input, Options})
                   || Options <- all_options()]
              end || _ <- lists:seq(1, 3000)]
     end}.

random_garbage_test() ->
    seed(),
    [begin
         Input = random_bytes(rand:uniform(40) - 1),
         ?assertEqual(verdict(Input, #{}), b64simd:is_valid(Input), Input)
     end || _ <- lists:seq(1, 3000)].

examples_test() ->
    ?assert(b64simd:is_valid(<<>>)),
    ?assert(b64simd:is_valid(<<"QQ==">>)),
    ?assert(b64simd:is_valid([<<"Q">>, "Q=", [$=]])),
    ?assert(b64simd:is_valid(<<" QQ==\r\n">>)),
    ?assertNot(b64simd:is_valid(<<" QQ==\r\n">>, #{whitespace => reject})),
    ?assertNot(b64simd:is_valid(<<"QQ">>)),
    ?assert(b64simd:is_valid(<<"QQ">>, #{padding => false})),
    ?assertNot(b64simd:is_valid(<<"QR==">>, #{canonical => true})),
    ?assertNot(b64simd:is_valid(<<"-_8=">>)),
    ?assert(b64simd:is_valid(<<"-_8=">>, #{mode => urlsafe})),
    ?assertNot(b64simd:is_valid(<<"QQ\f==">>)).

bad_arguments_test() ->
    ?assertError(badarg, b64simd:is_valid(foo)),
    ?assertError(badarg, b64simd:is_valid([<<"QQ==">> | foo])),
    ?assertError(badarg, b64simd:is_valid(<<"QQ==">>, #{mode => url})),
    ?assertError(badarg, b64simd:is_valid(<<"QQ==">>, #{line_length => 4})),
    ?assertError(badarg, b64simd:is_valid(<<"QQ==">>, not_a_map)),
    try b64simd:is_valid(<<"QQ==">>, #{line_length => 4}) of
        _ -> ?assert(false)
    catch
        error:badarg:Stack ->
            ?assertEqual("unknown option line_length; the options are canonical, mode, padding, "
                         "whitespace",
                         lists:flatten(maps:get(2, b64simd:format_error(badarg, Stack))))
    end.

%% The sliced path, forced to tiny slices, gives the same verdicts.
sliced_test_() ->
    {setup, fun() -> ok end, fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun sliced/0}}.

sliced() ->
    seed(),
    Cases = [{mutated_input(), Options} || _ <- lists:seq(1, 200),
                                           Options <- [#{}, #{padding => false},
                                                       #{whitespace => reject, mode => any},
                                                       #{canonical => true}]],
    Want = [verdict(Input, Options) || {Input, Options} <- Cases],
    [begin
         b64simd_nif:set_slice_bytes(Slice),
         [?assertEqual(W, b64simd:is_valid(Input, Options), {Slice, Input, Options})
          || {{Input, Options}, W} <- lists:zip(Cases, Want)]
     end || Slice <- [1, 3, 4, 17, 100]].

%% Several MiB on the sliced path, valid and not.
big_input_test_() ->
    {timeout, 120,
     fun() ->
             seed(),
             Text = b64simd_ref:encode(binary:copy(random_bytes(999), 4000), #{}),
             Size = byte_size(Text),
             ?assert(b64simd:is_valid(Text)),
             ?assert(b64simd:is_valid(b64simd_ref:encode(random_bytes(3000),
                                                         #{line_length => 76}))),
             [?assertNot(b64simd:is_valid(Bad), At)
              || At <- [0, Size div 2, Size - 3],
                 Bad <- [<<(binary:part(Text, 0, At))/binary, "!",
                           (binary:part(Text, At + 1, Size - At - 1))/binary>>]],
             ?assertNot(b64simd:is_valid(binary:part(Text, 0, Size - 1)))
     end}.
