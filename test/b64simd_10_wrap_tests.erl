%% Line-wrapped encode (`line_length', `line_break'): every length 0..600
%% with several line lengths, both breaks, both alphabets, with and without
%% padding, against the reference (b64simd_ref, checked against OTP's encode
%% in the 01 suite); the sliced path with forced tiny slices; decoding
%% wrapped output back.
-module(b64simd_10_wrap_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SEED, {10, 2026, 5}).
-define(LINE_LENGTHS, [1, 2, 3, 4, 5, 7, 63, 64, 75, 76, 77, 1000]).

random_bytes(N) ->
    rand:seed(exsss, ?SEED),
    io:format(user, "~n*** ~s: random data from seed ~p~n", [?MODULE, ?SEED]),
    list_to_binary([rand:uniform(256) - 1 || _ <- lists:seq(1, N)]).

every_length_test_() ->
    {timeout, 120, fun every_length/0}.

every_length() ->
    Plain = random_bytes(600),
    [check(binary:part(Plain, 0, Len), #{line_length => L, line_break => B})
     || L <- ?LINE_LENGTHS, B <- [crlf, lf], Len <- lists:seq(0, 600)],
    [check(binary:part(Plain, 0, Len), Options#{line_length => L, line_break => B})
     || L <- [1, 3, 4, 64, 76], B <- [crlf, lf], Len <- lists:seq(0, 200),
        Options <- [#{mode => urlsafe}, #{padding => false},
                    #{mode => urlsafe, padding => false}]].

check(Data, Options) ->
    ?assertEqual(b64simd_ref:encode(Data, Options), b64simd:encode(Data, Options),
                 {byte_size(Data), Options}).

mime_and_pem_shapes_test() ->
    Data = random_bytes(1000),
    Mime = b64simd:encode(Data, #{line_length => 76}),
    [First | _] = Lines = binary:split(Mime, <<"\r\n">>, [global]),
    ?assertEqual(76, byte_size(First)),
    ?assertEqual(18, length(Lines)),
    ?assertNotEqual(<<"\r\n">>, binary:part(Mime, byte_size(Mime), -2)),
    Pem = b64simd:encode(Data, #{line_length => 64, line_break => lf}),
    ?assertEqual(nomatch, binary:match(Pem, <<"\r">>)),
    ?assertEqual(21, length(binary:split(Pem, <<"\n">>, [global]))).

%% A break goes between lines only: output that fills its last line exactly
%% has no break after it, and so has empty input.
no_trailing_break_test() ->
    ?assertEqual(<<"Zm9v\r\nYmFy">>, b64simd:encode(<<"foobar">>, #{line_length => 4})),
    ?assertEqual(<<"Zm9v\nYmFy">>,
                 b64simd:encode(<<"foobar">>, #{line_length => 4, line_break => lf})),
    ?assertEqual(<<"Zm9vYmFy">>, b64simd:encode(<<"foobar">>, #{line_length => 8})),
    ?assertEqual(<<>>, b64simd:encode(<<>>, #{line_length => 1})),
    ?assertEqual(<<"Z\nm\n8">>,
                 b64simd:encode(<<"fo">>, #{line_length => 1, line_break => lf,
                                            padding => false})).

%% line_break without line_length is accepted and has no effect.
line_break_alone_has_no_effect_test() ->
    Data = random_bytes(300),
    ?assertEqual(b64simd_ref:encode(Data, #{}), b64simd:encode(Data, #{line_break => lf})),
    ?assertEqual(b64simd_ref:encode(Data, #{}), b64simd:encode(Data, #{line_break => crlf})).

huge_line_length_is_no_wrapping_test() ->
    Data = random_bytes(300),
    ?assertEqual(b64simd_ref:encode(Data, #{}),
                 b64simd:encode(Data, #{line_length => 1 bsl 70})).

%% Wrapped text (the reference's) decodes to the data; and b64simd's own
%% wrapped output decodes with OTP's decoders.
decode_gives_the_data_back_test() ->
    Data = random_bytes(5000),
    [?assertEqual(Data, b64simd:decode(b64simd_ref:encode(Data, Options)), Options)
     || Options <- [#{line_length => 76}, #{line_length => 64, line_break => lf},
                    #{line_length => 1}, #{line_length => 5, line_break => lf}]],
    ?assertEqual(Data, base64:decode(b64simd:encode(Data, #{line_length => 76}))),
    ?assertEqual(Data, base64:mime_decode(b64simd:encode(Data, #{line_length => 76}))).

encode_to_string_test() ->
    ?assertEqual("Zm9v\r\nYmFy", b64simd:encode_to_string("foobar", #{line_length => 4})),
    ?assertEqual("Zm9v\nYmFy",
                 b64simd:encode_to_string(<<"foobar">>, #{line_length => 4, line_break => lf})).

iodata_test() ->
    ?assertEqual(<<"Zm9v\r\nYmFy">>, b64simd:encode([<<"fo">>, $o, ["bar"]], #{line_length => 4})).

bad_options_test() ->
    [?assertError(badarg, b64simd:encode(<<"x">>, Options))
     || Options <- [#{line_length => 0}, #{line_length => -1}, #{line_length => foo},
                    #{line_length => 1.0}, #{line_length => 4, line_break => cr},
                    #{line_break => <<"\n">>}, #{line_length => 4, whitespace => skip}]],
    ?assertError(badarg, b64simd:encode_to_string(<<"x">>, #{line_length => 0})).

format_error_names_the_line_options_test() ->
    Describe = fun(Options) ->
                       try b64simd:encode(<<"x">>, Options) of
                           _ -> no_error
                       catch
                           error:Reason:Stack ->
                               lists:flatten(maps:get(2, b64simd:format_error(Reason, Stack)))
                       end
               end,
    ?assertEqual("bad value 0 for option line_length; expected a positive integer",
                 Describe(#{line_length => 0})),
    ?assertEqual("bad value cr for option line_break; expected one of [crlf,lf]",
                 Describe(#{line_break => cr})),
    ?assertEqual("unknown option whitespace; the options are line_break, line_length, mode, padding",
                 Describe(#{whitespace => skip})),
    ?assertEqual("bad value any for option mode; expected one of [standard,urlsafe]",
                 Describe(#{mode => any})).

%% The sliced path, forced to tiny slices, writes the reference's bytes.
sliced_test_() ->
    {setup, fun() -> ok end, fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun sliced/0}}.

sliced() ->
    Plain = random_bytes(700),
    Cases = [{binary:part(Plain, 0, Len), #{line_length => L, line_break => B}}
             || Len <- [0, 1, 2, 3, 47, 48, 49, 57, 58, 100, 300, 700],
                L <- [1, 3, 4, 5, 64, 76, 77], B <- [crlf, lf]],
    Want = [b64simd_ref:encode(Data, Options) || {Data, Options} <- Cases],
    ?assertEqual(Want, [b64simd:encode(Data, Options) || {Data, Options} <- Cases]),
    [begin
         b64simd_nif:set_slice_bytes(Slice),
         [?assertEqual(W, b64simd:encode(Data, Options), {Slice, byte_size(Data), Options})
          || {{Data, Options}, W} <- lists:zip(Cases, Want)]
     end || Slice <- [1, 2, 3, 4, 7, 48, 100]].

%% Several MiB on the sliced path.
big_input_test_() ->
    {timeout, 120,
     fun() ->
             Data = binary:copy(random_bytes(1000), 3000),
             [?assertEqual(b64simd_ref:encode(Data, Options), b64simd:encode(Data, Options), Options)
              || Options <- [#{line_length => 76}, #{line_length => 64, line_break => lf},
                             #{line_length => 77, line_break => lf}]]
     end}.
