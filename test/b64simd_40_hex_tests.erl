%% Base16 (b64simd_hex) against OTP's `binary:encode_hex/1,2' and
%% `binary:decode_hex/1' (encode_hex/2 from OTP 26 only: skipped with the
%% reason on older releases) and the reference decoder in b64simd_ref:
%% every length 0..1100, every byte value at every position of short
%% texts, random long inputs, iolists, forced slices with errors on both
%% sides of their boundaries, big inputs sliced as the charge table says, the
%% reductions a call is charged, bad arguments and the messages.
-module(b64simd_40_hex_tests).
-include_lib("eunit/include/eunit.hrl").

-import(b64simd_test_lib, [label/1, seed/1]).

-define(MAX_EXHAUSTIVE, 1100).
-define(CASES, [uppercase, lowercase, mixed]).

%% OTP 26's binary:encode_hex/2, or a reason to skip it.
otp_encode_hex2() ->
    {module, binary} = code:ensure_loaded(binary),
    case erlang:function_exported(binary, encode_hex, 2) of
        true -> fun binary:encode_hex/2;
        false -> {skip, "OTP " ++ erlang:system_info(otp_release) ++ " has no binary:encode_hex/2"}
    end.

otp_decode_hex(Hex) ->
    try binary:decode_hex(Hex) of
        Data -> {ok, Data}
    catch
        error:badarg -> error
    end.

%% Ours, as `{ok, Data} | {error, Reason}', checked against the other
%% functions that must agree with it.
decoded(Hex, Case) ->
    Result = b64simd_hex:try_decode_hex(Hex, Case),
    ?assertEqual(element(1, Result) =:= ok, b64simd_hex:is_valid_hex(Hex, Case), label(Hex)),
    ?assertEqual(Result, b64simd_test_lib:result(fun() -> b64simd_hex:decode_hex(Hex, Case) end),
                 label(Hex)),
    Result.

exhaustive_lengths_test_() ->
    {timeout, 120, fun exhaustive_lengths/0}.

exhaustive_lengths() ->
    _ = seed(hex_exhaustive_lengths),
    Encode2 = otp_encode_hex2(),
    case Encode2 of
        {skip, Why} -> b64simd_test_env:skip(hex_encode_hex2_against_otp, Why);
        _ -> ok
    end,
    [begin
         Hex = binary:encode_hex(Data),
         ?assertEqual(Hex, b64simd_hex:encode_hex(Data), label(Length)),
         ?assertEqual(Hex, b64simd_hex:encode_hex(Data, uppercase), label(Length)),
         Lower = b64simd_hex:encode_hex(Data, lowercase),
         ?assertEqual(string:lowercase(Hex), Lower, label(Length)),
         [?assertEqual(Encode2(Data, Case), b64simd_hex:encode_hex(Data, Case), label(Length))
          || is_function(Encode2), Case <- [uppercase, lowercase]],
         Mixed = mix_case(Hex),
         [?assertEqual(otp_decode_hex(Text), {ok, b64simd_hex:decode_hex(Text)}, label(Text))
          || Text <- [Hex, Lower, Mixed]],
         ?assertEqual({ok, Data}, decoded(Hex, uppercase)),
         ?assertEqual({ok, Data}, decoded(Lower, lowercase)),
         ?assertEqual({ok, Data}, decoded(Mixed, mixed)),
         [?assertEqual(b64simd_ref:hex_decode(Text, Case), decoded(Text, Case),
                       label({Text, Case}))
          || Text <- [Hex, Lower, Mixed], Case <- ?CASES]
     end
     || Length <- lists:seq(0, ?MAX_EXHAUSTIVE),
        Data <- [rand:bytes(Length), binary:copy(<<255>>, Length), binary:copy(<<10>>, Length)]],
    ok.

mix_case(Hex) ->
    << <<(case rand:uniform(2) of 1 -> string:to_lower(C); 2 -> C end)>> || <<C>> <= Hex >>.

%% Every byte value at every position of 1- to 70-character texts (the
%% kernels' blocks of 16, 32 and 64 characters and their tails): OTP's
%% verdict, and the reference's reason and offset in every case.
every_byte_everywhere_test_() ->
    {timeout, 300, fun every_byte_everywhere/0}.

every_byte_everywhere() ->
    _ = seed(hex_every_byte_everywhere),
    [begin
         Text = binary:part(mix_case(binary:encode_hex(rand:bytes(36))), 0, Length),
         [begin
              <<Before:At/binary, _, After/binary>> = Text,
              Bad = <<Before/binary, Byte, After/binary>>,
              Ours = decoded(Bad, mixed),
              ?assertEqual(otp_decode_hex(Bad), ok_or_error(Ours), label(Bad)),
              [?assertEqual(b64simd_ref:hex_decode(Bad, Case), decoded(Bad, Case),
                            label({Bad, Case}))
               || Case <- ?CASES]
          end
          || At <- lists:seq(0, Length - 1), Byte <- lists:seq(0, 255)]
     end
     || Length <- lists:seq(1, 70)],
    ok.

ok_or_error({ok, Data}) -> {ok, Data};
ok_or_error({error, _}) -> error.

random_large_test_() ->
    {timeout, 120, fun random_large/0}.

random_large() ->
    _ = seed(hex_random_large),
    [begin
         Data = rand:bytes(Length),
         Hex = binary:encode_hex(Data),
         ?assertEqual(Hex, b64simd_hex:encode_hex(Data), label(Length)),
         ?assertEqual(Data, b64simd_hex:decode_hex(Hex), label(Length)),
         At = rand:uniform(byte_size(Hex)) - 1,
         <<Before:At/binary, _, After/binary>> = Hex,
         ?assertEqual({error, {invalid_character, At}},
                      b64simd_hex:try_decode_hex(<<Before/binary, $G, After/binary>>),
                      label({Length, At}))
     end
     || Length <- [rand:uniform(1 bsl (10 + rand:uniform(12))) || _ <- lists:seq(1, 10)]
            ++ [4 * 1024 * 1024 + 1]],
    ok.

iolists_test() ->
    _ = seed(hex_iolists),
    [begin
         Hex = binary:encode_hex(Data),
         [begin
              ?assertEqual(Hex, b64simd_hex:encode_hex(Shape), label(Shape)),
              ?assertEqual(string:lowercase(Hex), b64simd_hex:encode_hex(Shape, lowercase))
          end
          || Shape <- b64simd_test_lib:iolist_shapes(Data)],
         [?assertEqual(Data, b64simd_hex:decode_hex(Shape), label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Hex)]
     end
     || Length <- [0, 1, 2, 17, 100], Data <- [rand:bytes(Length)]],
    ok.

%% Forced tiny slices: the one-shot results byte for byte, and errors on
%% either side of a slice boundary at their absolute offsets.
sliced_test_() ->
    {setup, fun() -> ok end, fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun sliced/0}}.

sliced() ->
    _ = seed(hex_sliced),
    ok = b64simd_nif:set_slice_bytes(3),
    ?assertMatch({continue, _}, b64simd_nif:hex_encode(<<"0123456789">>)),
    ?assertMatch({continue, _}, b64simd_nif:hex_decode(<<"30313233343536">>)),
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         [begin
              Data = rand:bytes(Length),
              Hex = binary:encode_hex(Data),
              ?assertEqual(Hex, b64simd_hex:encode_hex(Data), label({Slice, Length})),
              ?assertEqual({ok, Data}, decoded(mix_case(Hex), mixed), label({Slice, Length})),
              [begin
                   <<Before:At/binary, _, After/binary>> = Hex,
                   Bad = <<Before/binary, $a, After/binary>>,
                   ?assertEqual(b64simd_ref:hex_decode(Bad, uppercase), decoded(Bad, uppercase),
                                label({Slice, Length, At}))
               end
               || At <- lists:seq(0, byte_size(Hex) - 1)],
              Odd = <<Hex/binary, "F">>,
              ?assertEqual({error, {incomplete, byte_size(Hex)}}, decoded(Odd, mixed))
          end
          || Length <- lists:seq(0, 40)]
     end
     || Slice <- [1, 2, 3, 7, 64]],
    ok.

%% A big input leaves the NIF after its first slice
%% ({continue, Job}) instead of holding the scheduler for the whole input.
big_inputs_are_sliced_test() ->
    Big = binary:copy(<<"0123456789abcdef">>, 1 bsl 18),
    ?assertMatch({continue, _}, b64simd_nif:hex_encode(Big)),
    ?assertMatch({continue, _}, b64simd_nif:hex_decode(Big)),
    ?assertMatch({continue, _}, b64simd_nif:hex_is_valid(Big)),
    ?assert(b64simd_hex:is_valid_hex(Big)).

%% A loop of 8 KiB calls is charged what the charge table says of Base16.
calls_are_charged_their_cost_test() ->
    Data = rand:bytes(8192),
    Hex = binary:encode_hex(Data),
    [b64simd_test_lib:charged_as(Op, Fun, Small, Big, Work)
     || {Op, Fun, Small, Big, Work} <-
            [{encode_hex, fun b64simd_hex:encode_hex/1, <<"a">>, Data, hex_encode},
             {decode_hex, fun b64simd_hex:decode_hex/1, <<"61">>, Hex, hex_decode}]],
    ok.

bad_arguments_test() ->
    [?assertError(badarg, b64simd_hex:encode_hex(Bad)) || Bad <- [atom, 1, [256], <<1:3>>]],
    ?assertError(badarg, b64simd_hex:encode_hex(<<"a">>, up)),
    ?assertError(badarg, b64simd_hex:encode_hex(<<"a">>, mixed)),
    ?assertError(badarg, b64simd_hex:decode_hex(<<"61">>, up)),
    ?assertError(badarg, b64simd_hex:try_decode_hex(atom)),
    ?assertError(badarg, b64simd_hex:is_valid_hex(<<"61">>, #{})),
    ?assertError({invalid_character, 1}, b64simd_hex:decode_hex(<<"1x">>)),
    ?assertError({incomplete, 2}, b64simd_hex:decode_hex([<<"1">>, "23"])),
    %% OTP strips no prefix, and neither do we (const-hex would, given room).
    ?assertEqual({error, {invalid_character, 1}}, b64simd_hex:try_decode_hex(<<"0x12">>)).

%% One vocabulary for the letter case: Base32's `letter_case' values are
%% Base16's, which takes OTP's `uppercase' and `lowercase' as well; the
%% words give what OTP's `binary:encode_hex/1' gives, in that case.
one_letter_case_vocabulary_test() ->
    Data = <<"foo", 16#AB, 16#CD, 16#EF>>,
    Upper = binary:encode_hex(Data),
    Lower = string:lowercase(Upper),
    [begin
         ?assertEqual(Hex, b64simd_hex:encode_hex(Data, Word), Word),
         ?assertEqual(Hex, b64simd_hex:encode_hex(Data, Otp), Otp),
         ?assertEqual({ok, Data}, b64simd_hex:try_decode_hex(Hex, Word), Word),
         ?assertEqual({ok, Data}, b64simd_hex:try_decode_hex(Hex, Otp), Otp),
         ?assertMatch({error, {invalid_character, _}}, b64simd_hex:try_decode_hex(Other, Word),
                      Word),
         ?assert(b64simd_base32:is_valid(b64simd_base32:encode(Data, #{letter_case => Word}),
                                         #{letter_case => Word}), Word)
     end || {Word, Otp, Hex, Other} <- [{upper, uppercase, Upper, Lower},
                                        {lower, lowercase, Lower, Upper}]],
    ?assertEqual({ok, Data}, b64simd_hex:try_decode_hex(<<"666F6fABcdEF">>, mixed)),
    {letter_case, Base32Words} = lists:keyfind(letter_case, 1, b64simd_options:options(base32_decode)),
    {letter_case, Base16Words} = lists:keyfind(letter_case, 1, b64simd_options:options(hex_decode)),
    ?assertEqual([], Base32Words -- Base16Words).

messages_test() ->
    Explain = fun b64simd_test_lib:explained/1,
    ?assertEqual("invalid hex digit 0x67 ('g') at byte 2",
                 Explain(fun() -> b64simd_hex:decode_hex(<<"66g6">>) end)),
    ?assertEqual("invalid hex digit 0x61 ('a') at byte 2; use the case mixed (decode_hex/1) "
                 "to accept both cases",
                 Explain(fun() -> b64simd_hex:decode_hex(<<"66a6">>, uppercase) end)),
    ?assertEqual("odd number of hex digits: the digit at byte 2 has no pair; the input is "
                 "truncated", Explain(fun() -> b64simd_hex:decode_hex(<<"666">>) end)),
    ?assertEqual("bad letter case up; expected one of [lower,lowercase,upper,uppercase]",
                 Explain(fun() -> b64simd_hex:encode_hex(<<"a">>, up) end)),
    ?assertMatch("not iodata" ++ _, Explain(fun() -> b64simd_hex:decode_hex(atom) end)),
    ?assertEqual("invalid hex digit at byte 3", b64simd_hex:format_error({invalid_character, 3})).
