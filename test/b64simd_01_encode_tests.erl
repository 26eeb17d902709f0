%% Encode: every length 0..1100 (they cross every SIMD block size) under
%% every option set, random lengths up to a few MiB, encode_to_string, and
%% iolists of every shape. Oracles: OTP 25 `base64:encode/1' (standard,
%% padded) and b64simd_ref (the rest), the reference itself checked against
%% OTP.
-module(b64simd_01_encode_tests).
-include_lib("eunit/include/eunit.hrl").

-import(b64simd_test_lib, [encode_option_sets/0, label/1, seed/1]).

-define(MAX_EXHAUSTIVE, 1100).

%% The reference agrees with OTP's encoder on every length: `encode/1', and
%% on OTP 26 and later `encode/2' with each option set, so it can judge what
%% OTP 25 cannot.
reference_matches_otp_test_() ->
    {timeout, 60, fun reference_matches_otp/0}.

reference_matches_otp() ->
    _ = seed(reference_matches_otp),
    {module, base64} = code:ensure_loaded(base64),
    OptionSets = case erlang:function_exported(base64, encode, 2) of
                     true ->
                         encode_option_sets();
                     false ->
                         io:format(user, "~n*** SKIPPED the reference against OTP's encode/2: "
                                   "OTP ~s's base64 takes no options~n",
                                   [erlang:system_info(otp_release)]),
                         []
                 end,
    [begin
         Data = rand:bytes(Length),
         ?assertEqual(base64:encode(Data), b64simd_ref:encode(Data, #{}), label(Length)),
         [?assertEqual(base64:encode(Data, Options), b64simd_ref:encode(Data, Options),
                       label({Length, Options}))
          || Options <- OptionSets]
     end
     || Length <- lists:seq(0, ?MAX_EXHAUSTIVE)].

reference_known_answers_test() ->
    %% RFC 4648 section 10, and the urlsafe characters.
    Vectors = [{<<>>, <<>>}, {<<"f">>, <<"Zg==">>}, {<<"fo">>, <<"Zm8=">>},
               {<<"foo">>, <<"Zm9v">>}, {<<"foob">>, <<"Zm9vYg==">>},
               {<<"fooba">>, <<"Zm9vYmE=">>}, {<<"foobar">>, <<"Zm9vYmFy">>}],
    [?assertEqual(Base64, b64simd_ref:encode(Data, #{}), label(Data))
     || {Data, Base64} <- Vectors],
    ?assertEqual(<<"__4">>, b64simd_ref:encode(<<255, 254>>, #{mode => urlsafe, padding => false})),
    ?assertEqual(<<"//4=">>, b64simd_ref:encode(<<255, 254>>, #{})).

exhaustive_lengths_test_() ->
    {timeout, 120, fun exhaustive_lengths/0}.

exhaustive_lengths() ->
    _ = seed(encode_exhaustive_lengths),
    [check_length(Length) || Length <- lists:seq(0, ?MAX_EXHAUSTIVE)].

check_length(Length) ->
    Patterns = [rand:bytes(Length), binary:copy(<<0>>, Length), binary:copy(<<255>>, Length)],
    [begin
         ?assertEqual(base64:encode(Data), b64simd:encode(Data), label({Length, default})),
         [?assertEqual(b64simd_ref:encode(Data, Options), b64simd:encode(Data, Options),
                       label({Length, Options}))
          || Options <- encode_option_sets()]
     end
     || Data <- Patterns].

%% Random sizes up to 4 MiB (sliced on the slower kernels; the 05 suite
%% forces slicing on all). The oracles are OTP's encoder and the reference.
random_large_test_() ->
    {timeout, 120, fun random_large/0}.

random_large() ->
    _ = seed(encode_random_large),
    Lengths = [rand:uniform(1 bsl (10 + rand:uniform(12))) || _ <- lists:seq(1, 14)]
        ++ [4 * 1024 * 1024, 4 * 1024 * 1024 + 1, 3 * 1024 * 1024 + 2],
    [begin
         Data = rand:bytes(Length),
         ?assertEqual(base64:encode(Data), b64simd:encode(Data), label(Length)),
         [?assertEqual(b64simd_ref:encode(Data, Options), b64simd:encode(Data, Options),
                       label({Length, Options}))
          || Options <- [#{mode => urlsafe, padding => false}, #{padding => false}]]
     end
     || Length <- Lengths].

encode_to_string_test() ->
    _ = seed(encode_to_string),
    [begin
         Data = rand:bytes(Length),
         ?assertEqual(base64:encode_to_string(Data), b64simd:encode_to_string(Data),
                      label(Length)),
         ?assertEqual(base64:encode_to_string(binary_to_list(Data)),
                      b64simd:encode_to_string(binary_to_list(Data)), label({string, Length})),
         [?assertEqual(binary_to_list(b64simd_ref:encode(Data, Options)),
                       b64simd:encode_to_string(Data, Options), label({Length, Options}))
          || Options <- encode_option_sets()]
     end
     || Length <- lists:seq(0, 130)].

iolist_shapes_test() ->
    _ = seed(encode_iolist_shapes),
    [check_shapes(rand:bytes(Length)) || Length <- lists:seq(0, 70) ++ [200, 1000]].

check_shapes(Data) ->
    [begin
         ?assertEqual(base64:encode(Data), b64simd:encode(Shape), label(Shape)),
         ?assertEqual(binary_to_list(base64:encode(Data)), b64simd:encode_to_string(Shape),
                      label(Shape)),
         [?assertEqual(b64simd_ref:encode(Data, Options), b64simd:encode(Shape, Options),
                       label({Options, Shape}))
          || Options <- encode_option_sets()]
     end
     || Shape <- b64simd_test_lib:iolist_shapes(Data)].

empty_iodata_test() ->
    [?assertEqual(<<>>, b64simd:encode(Empty, Options), label({Empty, Options}))
     || Empty <- [<<>>, [], [[]], [<<>>, [[], <<>>]], [[] | <<>>]],
        Options <- encode_option_sets()].

known_answers_test() ->
    ?assertEqual(<<"aGVsbG8=">>, b64simd:encode("hello")),
    ?assertEqual(<<"aGVsbG8">>, b64simd:encode(<<"hello">>, #{padding => false})),
    ?assertEqual(<<"__4">>, b64simd:encode(<<255, 254>>, #{mode => urlsafe, padding => false})),
    ?assertEqual(<<"__4=">>, b64simd:encode(<<255, 254>>, #{mode => urlsafe})),
    ?assertEqual(<<"+/8=">>, b64simd:encode([251, 255], #{mode => standard})),
    ?assertEqual("-_8", b64simd:encode_to_string([251, <<255>>], #{mode => urlsafe,
                                                                  padding => false})).
