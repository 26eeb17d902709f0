%% Decode: round trips for every length 0..1100 under every option set, OTP
%% 25 `base64:decode/1' as the oracle for the default options, b64simd_ref
%% for the rest (accept/reject, reason and offset), every byte value at many
%% positions, whitespace everywhere, every padding variant, iolists,
%% decode_to_string and try_decode.
-module(b64simd_02_decode_tests).
-include_lib("eunit/include/eunit.hrl").

-import(b64simd_test_lib, [decode_option_sets/0, label/1, otp_decode/1, result/1, seed/1]).

-define(MAX_EXHAUSTIVE, 1100).

%% The sweeps below end in `ok': a list comprehension whose value is unused
%% compiles to a loop, while one whose list is returned recurses on the
%% stack, and a deep stack makes every garbage collection (frequent with
%% OTP's exceptions) slow.

%% Option sets for the costlier sweeps: the default, each non-default value
%% alone, and mixes of them.
-define(SAMPLE_OPTIONS,
        [#{}, #{mode => urlsafe, padding => false}, #{mode => any},
         #{whitespace => reject}, #{canonical => true, padding => false},
         #{mode => urlsafe, whitespace => reject, canonical => true}]).

%%====================================================================
%% The reference, checked
%%====================================================================

%% The decoding rules as the README states them, one hand-typed case per
%% clause, so that the reference is not merely self-consistent.
reference_known_answers_test() ->
    Loose = #{padding => false},
    Cases = [{<<>>, #{}, {ok, <<>>}},
             {<<"QQ==">>, #{}, {ok, <<"A">>}},
             {<<"QUI=">>, #{}, {ok, <<"AB">>}},
             {<<"QUJD">>, #{}, {ok, <<"ABC">>}},
             {<<" Q Q = = ">>, #{}, {ok, <<"A">>}},
             {<<"QR==">>, #{}, {ok, <<"A">>}},
             {<<"QQ">>, #{}, {error, missing_padding}},
             {<<"QQ">>, Loose, {ok, <<"A">>}},
             {<<"QUI">>, Loose, {ok, <<"AB">>}},
             {<<"QQ=">>, #{}, {error, {bad_padding, 2}}},
             {<<"QQ=">>, Loose, {error, {bad_padding, 2}}},
             {<<"QQ==QQ==">>, #{}, {error, {bad_padding, 2}}},
             {<<"QQ= =QQ">>, Loose, {error, {bad_padding, 2}}},
             {<<"QQ===">>, #{}, {error, {bad_padding, 4}}},
             {<<"====">>, #{}, {error, {bad_padding, 0}}},
             {<<"Q===">>, #{}, {error, {bad_padding, 1}}},
             {<<"QUJD=">>, #{}, {error, {bad_padding, 4}}},
             {<<"QUI==">>, #{}, {error, {bad_padding, 4}}},
             {<<"Q">>, #{}, {error, {incomplete, 0}}},
             {<<"QUJDR \n">>, #{}, {error, {incomplete, 4}}},
             {<<"QUJDR">>, Loose, {error, {incomplete, 4}}},
             {<<"QQ\f==">>, #{}, {error, {invalid_character, 2}}},
             {<<"QQ\v==">>, #{}, {error, {invalid_character, 2}}},
             {<<"QQ==\f">>, #{}, {error, {invalid_character, 4}}},
             {<<"-_==">>, #{}, {error, {invalid_character, 0}}},
             {<<"-_-_">>, #{mode => urlsafe}, {ok, <<251, 255, 191>>}},
             {<<"+/+/">>, #{mode => urlsafe}, {error, {invalid_character, 0}}},
             {<<"-/+_">>, #{mode => any}, {ok, <<251, 255, 191>>}},
             {<<"QQ ==">>, #{whitespace => reject}, {error, {invalid_character, 2}}},
             {<<"QR==">>, #{canonical => true}, {error, {non_canonical, 1}}},
             {<<"QUJ=">>, #{canonical => true}, {error, {non_canonical, 2}}},
             {<<"QUJ">>, #{canonical => true, padding => false}, {error, {non_canonical, 2}}},
             {<<"QUJ">>, #{canonical => true}, {error, missing_padding}},
             {<<"QUI=">>, #{canonical => true}, {ok, <<"AB">>}}],
    [?assertEqual(Expected, b64simd_ref:decode(Input, Options), label({Input, Options}))
     || {Input, Options, Expected} <- Cases],
    %% And b64simd agrees on each.
    [check(Input, Options) || {Input, Options, _} <- Cases],
    ok.

%% Over every string of up to 6 bytes from a small alphabet that has two
%% letters (one with non-zero low bits), both alphabets' extra characters,
%% '=', skipped and rejected whitespace: the reference accepts exactly what
%% OTP accepts, with the same bytes.
reference_matches_otp_test_() ->
    {timeout, 60, fun reference_matches_otp/0}.

reference_matches_otp() ->
    [?assertEqual(otp_decode(Input), ok_or_error(b64simd_ref:decode(Input, #{})), label(Input))
     || Input <- strings("AR/-= \n\f", 6)],
    ok.

ok_or_error({ok, Data}) -> {ok, Data};
ok_or_error({error, _}) -> error.

%%====================================================================
%% Against the oracles
%%====================================================================

%% b64simd:decode/1 against OTP on the same strings, each also behind valid
%% prefixes that put it at several offsets of a 64-byte SIMD block.
otp_oracle_test_() ->
    {timeout, 120, fun otp_oracle/0}.

otp_oracle() ->
    _ = seed(decode_otp_oracle),
    Prefixes = [<<>> | [base64:encode(rand:bytes(N)) || N <- [45, 48, 93]]],
    [begin
         Input = <<Prefix/binary, Suffix/binary>>,
         Otp = otp_decode(Input),
         Ours = result(fun() -> b64simd:decode(Input) end),
         case Otp of
             {ok, _} -> ?assertEqual(Otp, Ours, label(Input));
             error -> ?assertMatch({error, _}, Ours, label(Input))
         end,
         check(Input, #{})
     end
     || Prefix <- Prefixes, Suffix <- strings("AR/-= \n\f", 5)],
    ok.

%% Every option set against the reference, on short strings over an
%% alphabet that stresses modes, padding, whitespace and canonical bits.
all_options_short_strings_test_() ->
    {timeout, 120, fun all_options_short_strings/0}.

all_options_short_strings() ->
    [check(Input, Options)
     || Input <- strings("AQR+_= \r\f\v", 4), Options <- decode_option_sets()],
    ok.

%% Every length 0..1100 under every option set: decode(encode(X)) =:= X for
%% every encoding the options accept (padded and, when optional, unpadded;
%% both alphabets and a mix for `any'), and with line breaks inserted.
round_trip_lengths_test_() ->
    {timeout, 120, fun round_trip_lengths/0}.

round_trip_lengths() ->
    _ = seed(decode_round_trip_lengths),
    [round_trip(rand:bytes(Length)) || Length <- lists:seq(0, ?MAX_EXHAUSTIVE)],
    ok.

round_trip(Data) ->
    Standard = b64simd_ref:encode(Data, #{}),
    ?assertEqual(Data, b64simd:decode(Standard), label(Data)),
    ?assertEqual({ok, Data}, b64simd:try_decode(Standard), label(Data)),
    [begin
         Encodings = encodings(Data, Options),
         [?assertEqual({ok, Data}, b64simd:try_decode(Encoded, Options),
                       label({Encoded, Options}))
          || Encoded <- Encodings],
         Wrapped = b64simd_ref:lines(hd(Encodings), 76, <<"\r\n">>),
         case maps:get(whitespace, Options) of
             skip ->
                 ?assertEqual(Data, b64simd:decode(Wrapped, Options), label({Wrapped, Options}));
             reject when Wrapped =/= hd(Encodings) ->
                 ?assertEqual({error, {invalid_character, 76}},
                              b64simd:try_decode(Wrapped, Options), label({Wrapped, Options}));
             reject ->
                 ok
         end
     end
     || Options <- decode_option_sets()],
    ok.

%% The encodings of `Data' that decode `Options' must accept.
encodings(Data, #{mode := Mode, padding := Padding}) ->
    Alphabets = case Mode of
                    any -> [standard, urlsafe, mixed];
                    _ -> [Mode]
                end,
    Paddings = case Padding of
                   true -> [true];
                   false -> [false, true]
               end,
    [encode_as(Data, Alphabet, Pad) || Alphabet <- Alphabets, Pad <- Paddings].

encode_as(Data, mixed, Padding) ->
    %% Standard and urlsafe characters alternating, for mode => any.
    Standard = b64simd_ref:encode(Data, #{padding => Padding}),
    Urlsafe = b64simd_ref:encode(Data, #{mode => urlsafe, padding => Padding}),
    list_to_binary([case Index rem 2 of
                        0 -> binary:at(Standard, Index);
                        1 -> binary:at(Urlsafe, Index)
                    end
                    || Index <- lists:seq(0, byte_size(Standard) - 1)]);
encode_as(Data, Mode, Padding) ->
    b64simd_ref:encode(Data, #{mode => Mode, padding => Padding}).

%% Random lengths up to 4 MiB (sliced on the slower kernels; the 05 suite
%% forces slicing on all), in the default options against OTP, and in
%% urlsafe unpadded form.
random_large_test_() ->
    {timeout, 120, fun random_large/0}.

random_large() ->
    _ = seed(decode_random_large),
    Lengths = [rand:uniform(1 bsl (10 + rand:uniform(12))) || _ <- lists:seq(1, 10)]
        ++ [4 * 1024 * 1024 + 2],
    [begin
         Data = rand:bytes(Length),
         Base64 = base64:encode(Data),
         ?assertEqual(base64:decode(Base64), b64simd:decode(Base64), label(Length)),
         Url = b64simd_ref:encode(Data, #{mode => urlsafe, padding => false}),
         ?assertEqual(Data, b64simd:decode(Url, #{mode => urlsafe, padding => false,
                                                   whitespace => reject, canonical => true}),
                      label(Length)),
         %% A bad byte near the end of a big input: its absolute offset.
         Bad = byte_size(Base64) - 3,
         <<Head:Bad/binary, _, Tail/binary>> = Base64,
         ?assertEqual({error, {invalid_character, Bad}},
                      b64simd:try_decode(<<Head/binary, $!, Tail/binary>>), label(Length))
     end
     || Length <- Lengths],
    ok.

%%====================================================================
%% Every byte value, whitespace, padding
%%====================================================================

%% Every byte value 0..255, replacing and inserted at every position of
%% short encodings and of a 64-character one, and at positions around each
%% 64-byte block boundary of a 256-character one.
every_byte_everywhere_test_() ->
    {timeout, 120, fun every_byte_everywhere/0}.

every_byte_everywhere() ->
    _ = seed(decode_every_byte_everywhere),
    Short = [{rand:bytes(N), all} || N <- lists:seq(0, 6)],
    Long = [{rand:bytes(48), all},
            {rand:bytes(191), lists:seq(0, 5) ++ around([31, 32, 64, 128, 192])
                              ++ lists:seq(250, 256)}],
    [place_every_byte(encode_for(Data, Options), Positions, Options)
     || {Data, Positions} <- Short ++ Long, Options <- ?SAMPLE_OPTIONS],
    ok.

%% Fewer byte values, but at both sides of every 16-byte step of a
%% 1468-character encoding, whatever block size a kernel uses.
bytes_at_every_block_boundary_test_() ->
    {timeout, 60, fun bytes_at_every_block_boundary/0}.

bytes_at_every_block_boundary() ->
    _ = seed(decode_bytes_at_every_block_boundary),
    Data = rand:bytes(1100),
    Bytes = [0, $!, $=, $\s, $\f, $-, $_, $+, 128, 255],
    [begin
         Base64 = encode_for(Data, Options),
         Positions = [P + D || P <- lists:seq(0, byte_size(Base64), 16), D <- [-1, 0, 1]],
         [check(Mutated, Options)
          || Position <- Positions, Position >= 0, Position < byte_size(Base64),
             Byte <- Bytes, Mutated <- [insert_at(Base64, Position, <<Byte>>),
                                        replace_at(Base64, Position, Byte)]],
         ok
     end
     || Options <- [#{}, #{mode => any, padding => false, whitespace => reject}]],
    ok.

%% Line-wrapped text (MIME's 76 with CRLF, PEM's 64 with LF, and 72, whose
%% shape is only looked for in inputs from 64 KiB) takes the line path, a
%% block of 16 KiB of characters at a time. A byte replaced or inserted in
%% the first line, in a break, at the line where the second block starts,
%% and in the last line: the reference's result, reason and offset.
line_wrapped_text_test_() ->
    {timeout, 120, fun line_wrapped_text/0}.

line_wrapped_text() ->
    _ = seed(decode_line_wrapped_text),
    Shapes = [{76, <<"\r\n">>, 13000}, {64, <<"\n">>, 13000}, {72, <<"\r\n">>, 50000}],
    [begin
         Data = rand:bytes(Size + rand:uniform(300)),
         Text = b64simd_ref:lines(base64:encode(Data), Width, Break),
         ?assertEqual(Data, b64simd:decode(Text), label({Width, Size})),
         ?assertEqual(Data, b64simd:mime_decode(Text), label({Width, Size})),
         Stride = Width + byte_size(Break),
         SecondBlock = (16384 div Width) * Stride,
         Last = byte_size(Text) - 2,
         Positions = [0, 5, Width, Width + byte_size(Break) - 1, 3 * Stride + 7,
                      SecondBlock - 1, SecondBlock, SecondBlock + 9, Last],
         [check(Mutated, Options)
          || Position <- Positions, Byte <- [$!, $=, $\s, $A],
             Mutated <- [insert_at(Text, Position, <<Byte>>), replace_at(Text, Position, Byte)],
             Options <- [#{}, #{mode => any, padding => false}, #{whitespace => reject}]],
         ok
     end
     || {Width, Break, Size} <- Shapes],
    ok.

%% Random bytes at random places of random encodings up to 20000
%% characters, under random option sets.
random_byte_random_place_test_() ->
    {timeout, 60, fun random_byte_random_place/0}.

random_byte_random_place() ->
    _ = seed(decode_random_byte_random_place),
    OptionSets = list_to_tuple(decode_option_sets()),
    [begin
         Options = element(rand:uniform(tuple_size(OptionSets)), OptionSets),
         Base64 = encode_for(rand:bytes(rand:uniform(15000)), Options),
         Position = rand:uniform(byte_size(Base64)) - 1,
         <<Byte>> = rand:bytes(1),
         check(replace_at(Base64, Position, Byte), Options),
         check(insert_at(Base64, Position, <<Byte>>), Options)
     end
     || _ <- lists:seq(1, 300)],
    ok.

replace_at(Bin, Position, Byte) ->
    <<Head:Position/binary, _, Tail/binary>> = Bin,
    <<Head/binary, Byte, Tail/binary>>.

around(Centres) ->
    lists:usort([P || C <- Centres, P <- lists:seq(C - 3, C + 3)]).

encode_for(Data, Options) ->
    Mode = case maps:get(mode, Options, standard) of
               any -> standard;
               Mode0 -> Mode0
           end,
    b64simd_ref:encode(Data, #{mode => Mode, padding => maps:get(padding, Options, true)}).

place_every_byte(Base64, all, Options) ->
    place_every_byte(Base64, lists:seq(0, byte_size(Base64)), Options);
place_every_byte(Base64, Positions, Options) ->
    [begin
         <<Head:Position/binary, Tail/binary>> = Base64,
         check(<<Head/binary, Byte, Tail/binary>>, Options),
         case Tail of
             <<_, After/binary>> -> check(<<Head/binary, Byte, After/binary>>, Options);
             <<>> -> ok
         end
     end
     || Position <- Positions, Position =< byte_size(Base64), Byte <- lists:seq(0, 255)],
    ok.

%% Whitespace (and the \f, \v that OTP rejects) inserted at every position
%% of short encodings, alone, as CRLF runs, and in every pair of positions.
whitespace_everywhere_test_() ->
    {timeout, 60, fun whitespace_everywhere/0}.

whitespace_everywhere() ->
    _ = seed(decode_whitespace_everywhere),
    Spaces = [<<"\t">>, <<"\n">>, <<"\r">>, <<" ">>, <<"\f">>, <<"\v">>, <<"\r\n">>,
              <<"  \t">>],
    [begin
         Data = rand:bytes(N),
         Base64 = base64:encode(Data),
         Size = byte_size(Base64),
         [begin
              <<Head:Position/binary, Tail/binary>> = Base64,
              Input = <<Head/binary, Space/binary, Tail/binary>>,
              [check(Input, Options) || Options <- decode_option_sets()],
              case Space of
                  <<C, _/binary>> when C =:= $\f; C =:= $\v ->
                      ?assertEqual({error, {invalid_character, Position}},
                                   b64simd:try_decode(Input), label(Input));
                  _ ->
                      ?assertEqual(Data, b64simd:decode(Input), label(Input)),
                      ?assertEqual({ok, Data}, otp_decode(Input), label(Input)),
                      ?assertEqual({error, {invalid_character, Position}},
                                   b64simd:try_decode(Input, #{whitespace => reject}),
                                   label(Input))
              end
          end
          || Position <- lists:seq(0, Size), Space <- Spaces],
         [check(insert_at(insert_at(Base64, J, <<"\n">>), I, <<" ">>), Options)
          || N =< 6, I <- lists:seq(0, Size), J <- lists:seq(I, Size),
             Options <- ?SAMPLE_OPTIONS]
     end
     || N <- lists:seq(0, 9) ++ [48, 49]],
    ok.

%% Whitespace before and after the text (a file read whole ends in a
%% newline), which one-shot calls trim before decoding: valid text, text with
%% a stray byte near either end or in the middle, and whitespace alone, at
%% lengths from the short path up to one-shot calls of 64 KiB; every option
%% set, against the reference (result, reason, offset), and is_valid/2.
whitespace_around_test_() ->
    {timeout, 120, fun whitespace_around/0}.

whitespace_around() ->
    _ = seed(decode_whitespace_around),
    Arounds = [{<<>>, <<"\n">>}, {<<>>, <<"\r\n">>}, {<<"\n">>, <<>>}, {<<" \t">>, <<"\r\n ">>},
               {<<"\n">>, <<"\f">>}, {<<"\f\n">>, <<"\n">>}],
    [begin
         Base64 = encode_for(rand:bytes(N), Options),
         Size = byte_size(Base64),
         Texts = [Base64 | [replace_at(Base64, P, Byte)
                            || Size > 0, P <- lists:usort([0, 1, Size div 2, max(0, Size - 2), Size - 1]),
                               Byte <- [$!, $=, $\s]]],
         [begin
              Input = <<Head/binary, Text/binary, Tail/binary>>,
              check(Input, Options),
              Valid = element(1, b64simd_ref:decode(Input, Options)) =:= ok,
              ?assertEqual(Valid, b64simd:is_valid(Input, Options), label({Input, Options}))
          end
          || Text <- Texts, {Head, Tail} <- Arounds]
     end
     || N <- [0, 1, 2, 3, 31, 32, 33, 47, 48, 200, 3000, 4096, 49151],
        Options <- ?SAMPLE_OPTIONS],
    [check(Blank, Options) || Blank <- [<<" ">>, <<"\r\n">>, <<"\n\n\t ">>],
                              Options <- decode_option_sets()],
    ok.

%% One or two whitespace bytes (or \f, \v) where the missing padding of an
%% unpadded encoding would be, so that the input is as long as the padded
%% encoding: a length check alone cannot tell that whitespace was skipped.
whitespace_in_place_of_padding_test_() ->
    {timeout, 60, fun whitespace_in_place_of_padding/0}.

whitespace_in_place_of_padding() ->
    _ = seed(decode_whitespace_in_place_of_padding),
    [begin
         Base64 = b64simd_ref:encode(rand:bytes(N), #{padding => false}),
         Missing = (4 - byte_size(Base64) rem 4) rem 4,
         [check(insert_at(insert_at(Base64, J, <<B>>), I, <<A>>), Options)
          || Missing =:= 2, A <- "\f\s\n\v", B <- "\f\t\r", I <- lists:seq(0, byte_size(Base64)),
             J <- [I, byte_size(Base64)], Options <- ?SAMPLE_OPTIONS],
         [check(insert_at(Base64, I, <<A>>), Options)
          || Missing =/= 0, A <- "\f\s\n\v\t\r", I <- lists:seq(0, byte_size(Base64)),
             Options <- ?SAMPLE_OPTIONS],
         ok
     end
     || N <- lists:seq(0, 20) ++ [46, 47, 49, 50, 94, 95, 190, 191]],
    ok.

insert_at(Bin, Position, Insert) ->
    <<Head:Position/binary, Tail/binary>> = Bin,
    <<Head/binary, Insert/binary, Tail/binary>>.

%% Every padding variant of the final quantum: missing, short, extra, in
%% mid-stream, after and between whitespace, alone, after a full quantum;
%% behind prefixes that move it across SIMD blocks.
padding_variants_test_() ->
    {timeout, 60, fun padding_variants/0}.

padding_variants() ->
    _ = seed(decode_padding_variants),
    Prefixes = [<<>> | [base64:encode(rand:bytes(N)) || N <- [3, 45, 48, 93, 96]]],
    Finals = [<<"QQ">>, <<"QR">>, <<"QUI">>, <<"QUJ">>, <<"QUJD">>, <<"Q">>, <<>>],
    Pads = [<<>>, <<"=">>, <<"==">>, <<"===">>, <<"====">>, <<" =">>, <<"= =">>,
            <<"=\n=">>, <<"==\r\n">>, <<"\t==">>, <<"=\f=">>, <<"==QQ">>, <<"=QUI=">>,
            <<"==\nQQ==">>, <<"= \nQ">>, <<"==!">>, <<"==-">>, <<"===\n">>],
    [begin
         Input = <<Prefix/binary, Final/binary, Pad/binary>>,
         [check(Input, Options) || Options <- decode_option_sets()],
         case otp_decode(Input) of
             {ok, _} = Otp -> ?assertEqual(Otp, b64simd:try_decode(Input), label(Input));
             error -> ?assertMatch({error, _}, b64simd:try_decode(Input), label(Input))
         end
     end
     || Prefix <- Prefixes, Final <- Finals, Pad <- Pads],
    ok.

%% Hand-typed offsets for padding behind a prefix (absolute offsets).
padding_offsets_test() ->
    Prefix = binary:copy(<<"QUJD">>, 20),
    P = byte_size(Prefix),
    ?assertEqual({error, missing_padding}, b64simd:try_decode(<<Prefix/binary, "QQ">>)),
    ?assertEqual({error, {bad_padding, P + 2}}, b64simd:try_decode(<<Prefix/binary, "QQ=">>)),
    ?assertEqual({error, {bad_padding, P + 2}},
                 b64simd:try_decode(<<Prefix/binary, "QQ=">>, #{padding => false})),
    ?assertEqual({error, {bad_padding, P + 4}}, b64simd:try_decode(<<Prefix/binary, "QQ===">>)),
    ?assertEqual({error, {bad_padding, P}}, b64simd:try_decode(<<Prefix/binary, "=">>)),
    ?assertEqual({error, {bad_padding, P + 2}},
                 b64simd:try_decode(<<Prefix/binary, "QQ==", Prefix/binary>>)),
    ?assertEqual({error, {bad_padding, P + 7}},
                 b64simd:try_decode(<<Prefix/binary, "QQ\n=\n=\n=">>)),
    ?assertEqual({error, {incomplete, P}}, b64simd:try_decode(<<Prefix/binary, "Q\n">>)),
    ?assertEqual({error, {non_canonical, P + 1}},
                 b64simd:try_decode(<<Prefix/binary, "QR">>, #{padding => false,
                                                                canonical => true})).

%%====================================================================
%% iolists, decode_to_string, try_decode
%%====================================================================

iolist_shapes_test() ->
    _ = seed(decode_iolist_shapes),
    [begin
         Data = rand:bytes(N),
         Good = base64:encode(Data),
         Bad = <<Good/binary, " !">>,
         [begin
              ?assertEqual(Data, b64simd:decode(Shape), label(Shape)),
              ?assertEqual(binary_to_list(Data), b64simd:decode_to_string(Shape), label(Shape)),
              ?assertEqual({ok, Data}, b64simd:try_decode(Shape, #{mode => any}), label(Shape))
          end
          || Shape <- b64simd_test_lib:iolist_shapes(Good)],
         [?assertEqual({error, {invalid_character, byte_size(Good) + 1}}, b64simd:try_decode(Shape),
                       label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Bad)],
         ok
     end
     || N <- lists:seq(0, 40) ++ [100, 500]],
    ok.

decode_to_string_test() ->
    _ = seed(decode_to_string),
    [begin
         Data = rand:bytes(N),
         Base64 = base64:encode(Data),
         ?assertEqual(base64:decode_to_string(Base64), b64simd:decode_to_string(Base64),
                      label(N)),
         ?assertEqual(base64:decode_to_string(binary_to_list(Base64)),
                      b64simd:decode_to_string(binary_to_list(Base64)), label(N)),
         [?assertEqual(binary_to_list(Data),
                       b64simd:decode_to_string(encode_for(Data, Options), Options),
                       label({N, Options}))
          || Options <- ?SAMPLE_OPTIONS],
         ok
     end
     || N <- lists:seq(0, 70)],
    ?assertError({bad_padding, 2}, b64simd:decode_to_string(<<"QQ=">>)),
    ?assertError(missing_padding, b64simd:decode_to_string("QQ", #{mode => urlsafe})).

try_decode_test() ->
    ?assertEqual({ok, <<"hello">>}, b64simd:try_decode(<<"aGVsbG8=">>)),
    ?assertEqual({ok, <<"hello">>}, b64simd:try_decode("aGVsbG8", #{padding => false})),
    ?assertEqual({error, missing_padding}, b64simd:try_decode("aGVsbG8")),
    ?assertEqual({error, {invalid_character, 0}}, b64simd:try_decode("-", #{})),
    ?assertEqual({ok, <<>>}, b64simd:try_decode([])),
    ?assertEqual({ok, <<>>}, b64simd:try_decode(" \r\n\t")),
    ?assertEqual({error, {invalid_character, 0}},
                 b64simd:try_decode(" ", #{whitespace => reject})).

%%====================================================================
%% Helpers
%%====================================================================

%% b64simd (decode/2 and try_decode/2) gives exactly the reference's verdict:
%% the same bytes, or the same reason with the same offset.
check(Input, Options) ->
    Expected = b64simd_ref:decode(Input, Options),
    ?assertEqual(Expected, b64simd:try_decode(Input, Options), label({Input, Options})),
    ?assertEqual(Expected, result(fun() -> b64simd:decode(Input, Options) end),
                 label({decode, Input, Options})).

%% Every string of length 0..Max over `Alphabet', as binaries.
strings(Alphabet, Max) ->
    lists:append([strings_of_length(Alphabet, N) || N <- lists:seq(0, Max)]).

strings_of_length(_Alphabet, 0) ->
    [<<>>];
strings_of_length(Alphabet, N) ->
    [<<C, Rest/binary>> || C <- Alphabet, Rest <- strings_of_length(Alphabet, N - 1)].
