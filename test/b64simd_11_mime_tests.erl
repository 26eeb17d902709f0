%% mime_decode: differentially against the running OTP's own
%% base64:mime_decode/1 on random inputs full of garbage, `=' and whitespace
%% (the same data, or a failure), and against a clause-by-clause
%% transcription of OTP 26's mime_decode/2 (the same data, or our reason)
%% for every option. One shot, forced tiny slices, and several MiB.
-module(b64simd_11_mime_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SEED, {11, 2026, 5}).

seed() ->
    rand:seed(exsss, ?SEED),
    io:format(user, "~n*** ~s: random inputs from seed ~p~n", [?MODULE, ?SEED]).

%%--------------------------------------------------------------------
%% Oracles
%%--------------------------------------------------------------------

%% The running OTP's base64:mime_decode/1: its data, or `error'. Only the
%% verdict is compared, since the way OTP fails differs by release: OTP 25
%% raises function_clause from mime_decode_binary/3,4,5, OTP 26 and later
%% missing_padding. Our reasons come from otp26/2, the same on every
%% release.
otp(Input) ->
    try base64:mime_decode(Input) of
        Data -> {ok, Data}
    catch
        error:function_clause -> error;
        error:missing_padding -> error
    end.

verdict({ok, Data}) -> {ok, Data};
verdict({error, _}) -> error.

%% OTP 26's mime_decode_binary/4..7 (lib/stdlib/src/base64.erl), clause for
%% clause, with `{error, _}' where OTP raises.
otp26(Input, Options) ->
    Mode = maps:get(mode, Options, standard),
    Padding = maps:get(padding, Options, true),
    case m0(Input, Mode, Padding, <<>>) of
        {error, incomplete} -> {error, {incomplete, last_alphabet_offset(Input, Mode)}};
        {error, _} = Error -> Error;
        Data -> {ok, Data}
    end.

m0(<<C, Cs/binary>>, M, P, A) ->
    case sextet(C, M) of
        B1 when is_integer(B1) -> m1(Cs, M, P, A, B1);
        _ -> m0(Cs, M, P, A)
    end;
m0(<<>>, _M, _P, A) ->
    A.

m1(<<C, Cs/binary>>, M, P, A, B1) ->
    case sextet(C, M) of
        B2 when is_integer(B2) -> m2(Cs, M, P, A, B1, B2);
        _ -> m1(Cs, M, P, A, B1)
    end;
m1(<<>>, _M, _P, _A, _B1) ->
    {error, incomplete}.

m2(<<C, Cs/binary>>, M, P, A, B1, B2) ->
    case sextet(C, M) of
        B3 when is_integer(B3) -> m3(Cs, M, P, A, B1, B2, B3);
        eq -> after_eq(Cs, M, P, A, B1, B2, eq);
        _ -> m2(Cs, M, P, A, B1, B2)
    end;
m2(<<>>, M, P, A, B1, B2) ->
    case P of
        true -> {error, missing_padding};
        false -> after_eq(<<>>, M, P, A, B1, B2, eq)
    end.

m3(<<C, Cs/binary>>, M, P, A, B1, B2, B3) ->
    case sextet(C, M) of
        B4 when is_integer(B4) -> m0(Cs, M, P, <<A/bits, B1:6, B2:6, B3:6, B4:6>>);
        eq -> after_eq(Cs, M, P, A, B1, B2, B3);
        _ -> m3(Cs, M, P, A, B1, B2, B3)
    end;
m3(<<>>, M, P, A, B1, B2, B3) ->
    case P of
        true -> {error, missing_padding};
        false -> after_eq(<<>>, M, P, A, B1, B2, B3)
    end.

after_eq(<<C, Cs/binary>>, M, P, A, B1, B2, B3) ->
    case sextet(C, M) of
        B when is_integer(B), B3 =:= eq -> m3(Cs, M, P, A, B1, B2, B);
        B when is_integer(B) -> m0(Cs, M, P, <<A/bits, B1:6, B2:6, B3:6, B:6>>);
        _ -> after_eq(Cs, M, P, A, B1, B2, B3)
    end;
after_eq(<<>>, _M, _P, A, B1, B2, eq) ->
    <<A/bits, B1:6, (B2 bsr 4):2>>;
after_eq(<<>>, _M, _P, A, B1, B2, B3) ->
    <<A/bits, B1:6, B2:6, (B3 bsr 2):4>>.

sextet(C, _) when C >= $A, C =< $Z -> C - $A;
sextet(C, _) when C >= $a, C =< $z -> C - $a + 26;
sextet(C, _) when C >= $0, C =< $9 -> C - $0 + 52;
sextet($+, M) when M =/= urlsafe -> 62;
sextet($/, M) when M =/= urlsafe -> 63;
sextet($-, M) when M =/= standard -> 62;
sextet($_, M) when M =/= standard -> 63;
sextet($=, _) -> eq;
sextet(_, _) -> bad.

last_alphabet_offset(Input, Mode) ->
    lists:last([I || {I, C} <- lists:zip(lists:seq(0, byte_size(Input) - 1),
                                         binary_to_list(Input)),
                     is_integer(sextet(C, Mode))]).

ours(Input) ->
    try b64simd:mime_decode(Input) of
        Data -> {ok, Data}
    catch
        error:Reason -> {error, Reason}
    end.

ours(Input, Options) ->
    try b64simd:mime_decode(Input, Options) of
        Data -> {ok, Data}
    catch
        error:Reason -> {error, Reason}
    end.

%% Alphabet characters mixed with `=', whitespace and any byte at all, in a
%% random proportion.
garbage_input(MaxLen) ->
    Len = rand:uniform(MaxLen + 1) - 1,
    Noise = rand:uniform(8),
    list_to_binary([random_byte(Noise) || _ <- lists:seq(1, Len)]).

random_byte(Noise) ->
    case rand:uniform(Noise + 1) of
        1 -> lists:nth(rand:uniform(7), "=\r\n \t=-");
        2 when Noise > 1 -> rand:uniform(256) - 1;
        _ -> lists:nth(rand:uniform(64),
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    end.

all_options() ->
    [#{mode => M, padding => P} || M <- [standard, urlsafe, any], P <- [true, false]].

%%--------------------------------------------------------------------
%% Tests
%%--------------------------------------------------------------------

equals_otp_on_garbage_test_() ->
    {timeout, 120,
     fun() ->
             seed(),
             [begin
                  Input = garbage_input(120),
                  Want = otp26(Input, #{}),
                  ?assertEqual(Want, ours(Input), Input),
                  ?assertEqual(otp(Input), verdict(Want), {otp, Input}),
                  case Want of
                      {ok, _} ->
                          ?assertEqual(base64:mime_decode_to_string(Input),
                                       b64simd:mime_decode_to_string(Input), Input);
                      {error, _} ->
                          ok
                  end
              end || _ <- lists:seq(1, 20000)]
     end}.

equals_otp26_rules_for_every_option_test_() ->
    {timeout, 120,
     fun() ->
             seed(),
             [begin
                  Input = garbage_input(120),
                  [?assertEqual(otp26(Input, Options), ours(Input, Options), {Input, Options})
                   || Options <- all_options()]
              end || _ <- lists:seq(1, 5000)]
     end}.

otp_examples_test() ->
    ?assertEqual(<<"A">>, b64simd:mime_decode(<<"QQ=">>)),
    ?assertEqual(<<"ABC">>, b64simd:mime_decode(<<"QUJD=">>)),
    ?assertEqual(<<"A">>, b64simd:mime_decode(<<"Q=Q=">>)),
    ?assertEqual(<<"AB1">>, b64simd:mime_decode(<<"QUI=x">>)),
    ?assertEqual(<<65, 4, 16>>, b64simd:mime_decode(<<"QQ==QQ==">>)),
    ?assertEqual(<<"A">>, b64simd:mime_decode(<<"QQ">>, #{padding => false})),
    ?assertError(missing_padding, b64simd:mime_decode(<<"QQ">>)),
    ?assertError({incomplete, 0}, b64simd:mime_decode(<<"Q==">>, #{padding => false})),
    ?assertError({incomplete, 6}, b64simd:mime_decode(<<"QUJD\r\nQ\r\n">>)),
    ?assertEqual(<<251, 255, 191>>, b64simd:mime_decode(<<"-_+/-_">>, #{mode => urlsafe})),
    ?assertEqual(<<251, 255, 191>>, b64simd:mime_decode(<<"+/-_+/">>)),
    ?assertEqual(<<>>, b64simd:mime_decode(<<"!!==\0">>)).

mime_bodies_test() ->
    seed(),
    Data = crypto_free_random(3000),
    Body = b64simd_ref:encode(Data, #{line_length => 76}),
    ?assertEqual(Data, b64simd:mime_decode(Body)),
    ?assertEqual(Data, b64simd:mime_decode([<<"\r\n">>, Body, <<"\r\n--\r\n.">>])),
    ?assertEqual(binary_to_list(Data), b64simd:mime_decode_to_string(Body)),
    ?assertEqual(binary_to_list(Data), b64simd:mime_decode_to_string(Body, #{padding => false})),
    Url = b64simd_ref:encode(Data, #{line_length => 64, line_break => lf, mode => urlsafe,
                                     padding => false}),
    ?assertEqual(Data, b64simd:mime_decode(Url, #{mode => urlsafe, padding => false})).

crypto_free_random(N) ->
    list_to_binary([rand:uniform(256) - 1 || _ <- lists:seq(1, N)]).

bad_arguments_test() ->
    [?assertError(badarg, b64simd:mime_decode(<<"QQ==">>, Options))
     || Options <- [#{whitespace => skip}, #{canonical => false}, #{mode => url},
                    #{padding => 1}, #{line_length => 4}, [{mode, standard}]]],
    ?assertError(badarg, b64simd:mime_decode(foo)),
    ?assertError(badarg, b64simd:mime_decode([256])),
    ?assertError(badarg, b64simd:mime_decode_to_string(<<1:1>>)),
    ?assertError(badarg, b64simd:mime_decode_to_string(<<"QQ==">>, #{mode => any, x => y})).

format_error_test() ->
    Describe = fun(Fun) ->
                       try Fun() of
                           _ -> no_error
                       catch
                           error:Reason:Stack -> b64simd:format_error(Reason, Stack)
                       end
               end,
    ?assertMatch(#{1 := _}, Describe(fun() -> b64simd:mime_decode(<<"QQ">>) end)),
    ?assertMatch(#{1 := _}, Describe(fun() -> b64simd:mime_decode(<<"Q">>) end)),
    ?assertMatch(#{2 := _}, Describe(fun() -> b64simd:mime_decode(<<"Q">>, #{mode => x}) end)),
    ?assertEqual(#{2 => "unknown option whitespace; the options are mode, padding"},
                 maps:map(fun(_, V) -> lists:flatten(V) end,
                          Describe(fun() ->
                                           b64simd:mime_decode_to_string(<<"QQ==">>,
                                                                         #{whitespace => skip})
                                   end))).

%% The sliced path, forced to tiny slices, equals the one-shot result.
sliced_test_() ->
    {setup, fun() -> ok end, fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun sliced/0}}.

sliced() ->
    seed(),
    Clean = [b64simd_ref:encode(crypto_free_random(N), #{line_length => 76})
             || N <- [1, 2, 3, 57, 100, 500]],
    Inputs = Clean ++ [<<C/binary, "!">> || C <- Clean]
        ++ [garbage_input(300) || _ <- lists:seq(1, 300)],
    Cases = [{I, O} || I <- Inputs, O <- all_options()],
    Want = [otp26(I, O) || {I, O} <- Cases],
    [begin
         b64simd_nif:set_slice_bytes(Slice),
         [?assertEqual(W, ours(I, O), {Slice, I, O}) || {{I, O}, W} <- lists:zip(Cases, Want)]
     end || Slice <- [1, 2, 5, 64]].

%% Several MiB on the sliced path: a clean MIME body, and the
%% same with garbage sprinkled in (the filter does it all).
big_input_test_() ->
    {timeout, 120,
     fun() ->
             seed(),
             Data = binary:copy(crypto_free_random(1000), 3000),
             Body = b64simd_ref:encode(Data, #{line_length => 76}),
             ?assertEqual(Data, b64simd:mime_decode(Body)),
             Dirty = binary:replace(Body, <<"\r\n">>, <<"\r\n=!\0">>, [global]),
             ?assertEqual(Data, b64simd:mime_decode(Dirty)),
             Part = binary:part(Dirty, 0, 100000),
             ?assertEqual(otp(Part), verdict(ours(Part)))
     end}.
