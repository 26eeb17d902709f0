%% b64simd_stream against the one-shot API as oracle: every chunking of every
%% input (0- and 1-byte chunks included) must give the one-shot result, value
%% and error reason and offset alike, for every option combination.
%%
%% Random cases come from PropEr generators picked with fixed seeds (PropEr
%% 1.2, Debian's, has no seed option for quickcheck), printed so that a
%% failure reproduces; B64SIMD_SEED=N changes them. Encoded streams are also
%% held to the reference (b64simd_ref).
-module(b64simd_20_stream_tests).
-include_lib("eunit/include/eunit.hrl").

%% Bytes that exercise every decode rule: characters of both alphabets, a
%% character with non-zero low bits, '=', each whitespace, and invalid bytes.
-define(TRICKY, "AQRgw+/-_=  \t\n\r\f\v!\0\377").

%%====================================================================
%% Drivers
%%====================================================================

stream_encode(Chunks, Options) ->
    S0 = b64simd_stream:encode_init(Options),
    {Parts, S} = lists:mapfoldl(fun(Chunk, S1) -> b64simd_stream:encode(S1, Chunk) end,
                                S0, Chunks),
    iolist_to_binary([Parts, b64simd_stream:encode_final(S)]).

stream_decode(Chunks, Options) ->
    try
        S0 = b64simd_stream:decode_init(Options),
        {Parts, S} = lists:mapfoldl(fun(Chunk, S1) -> b64simd_stream:decode(S1, Chunk) end,
                                    S0, Chunks),
        {ok, iolist_to_binary([Parts, b64simd_stream:decode_final(S)])}
    catch
        error:Reason -> {error, Reason}
    end.

%% Cuts Bin into chunks of the given sizes, cycled while they cut something.
chunk(Bin, Sizes) ->
    case lists:sum(Sizes) of
        0 -> [<<>> || _ <- Sizes] ++ [Bin];
        _ -> chunk(Bin, Sizes, Sizes)
    end.

chunk(<<>>, _Sizes, _All) ->
    [];
chunk(Bin, [], All) ->
    chunk(Bin, All, All);
chunk(Bin, [Size | Sizes], All) when Size >= byte_size(Bin) ->
    [Bin | chunk(<<>>, Sizes, All)];
chunk(Bin, [Size | Sizes], All) ->
    <<Chunk:Size/binary, Rest/binary>> = Bin,
    [Chunk | chunk(Rest, Sizes, All)].

one_shot_decode(Chunks, Options) ->
    b64simd:try_decode(iolist_to_binary(Chunks), Options).

encode_option_sets() ->
    Plain = [#{mode => M, padding => P} || M <- [standard, urlsafe], P <- [true, false]],
    Wrapped = [O#{line_length => L, line_break => B}
               || O <- Plain, L <- lists:seq(1, 13) ++ [57, 64, 76], B <- [crlf, lf]]
        ++ [#{line_length => 76}, #{line_length => 5, mode => urlsafe}],
    [#{} | Plain] ++ Wrapped.

decode_option_sets() ->
    [#{mode => M, padding => P, whitespace => W, canonical => C}
     || M <- [standard, urlsafe, any], P <- [true, false], W <- [skip, reject],
        C <- [false, true]].

break(crlf) -> <<"\r\n">>;
break(lf) -> <<"\n">>.

%% Runs Check on Count cases picked from Type with fixed seeds (in batches, as
%% one PropEr pick each); Check returns ok or a failure description.
check(Test, Type, Count, Check) ->
    Base = case os:getenv("B64SIMD_SEED") of
               false -> erlang:phash2(Test);
               Text -> list_to_integer(Text)
           end,
    Batches = 10,
    io:format(user, "~n~p: ~b cases, PropEr seeds {~b, 2026, 1..~b} (set B64SIMD_SEED=N to change)~n",
              [Test, Count, Base, Batches]),
    Failures = lists:append(
                 [begin
                      Seed = {Base, 2026, Batch},
                      Size = 10 + Batch * 20,
                      {ok, Cases} = proper_gen:pick(proper_types:vector(Count div Batches, Type),
                                                    Size, Seed),
                      [{Seed, Case, Failure} || Case <- Cases, Failure <- [Check(Case)],
                                                Failure =/= ok]
                  end || Batch <- lists:seq(1, Batches)]),
    ?assertEqual({Test, []}, {Test, lists:sublist(Failures, 3)}).

same(Expected, Expected, _Case) -> ok;
same(Expected, Got, Case) -> {Case, {expected, Expected}, {got, Got}}.

%%====================================================================
%% Generators
%%====================================================================

chunk_sizes() ->
    proper_types:list(proper_types:frequency(
                        [{3, proper_types:oneof([0, 1])},
                         {3, proper_types:range(2, 5)},
                         {2, proper_types:range(6, 100)}])).

tricky_byte() ->
    proper_types:oneof([proper_types:elements(?TRICKY), proper_types:byte()]).

%% Base64 near valid: the encoding of random data in either alphabet, with
%% or without padding, then bytes inserted, deleted or replaced.
nearly_base64() ->
    proper_types:bind(
      [proper_types:binary(),
       proper_types:elements(encode_option_sets()),
       proper_types:list(proper_types:oneof(
                           [{insert, proper_types:non_neg_integer(), tricky_byte()},
                            {delete, proper_types:non_neg_integer()},
                            {replace, proper_types:non_neg_integer(), tricky_byte()}]))],
      fun([Data, Options, Edits]) ->
              Text = b64simd_ref:encode(Data, maps:without([line_length, line_break], Options)),
              lists:foldl(fun edit/2, Text, Edits)
      end, false).

edit(_Edit, <<>>) ->
    <<>>;
edit({insert, At, Byte}, Bin) ->
    {Front, Back} = split_binary(Bin, At rem (byte_size(Bin) + 1)),
    <<Front/binary, Byte, Back/binary>>;
edit({delete, At}, Bin) ->
    {Front, <<_, Back/binary>>} = split_binary(Bin, At rem byte_size(Bin)),
    <<Front/binary, Back/binary>>;
edit({replace, At, Byte}, Bin) ->
    {Front, <<_, Back/binary>>} = split_binary(Bin, At rem byte_size(Bin)),
    <<Front/binary, Byte, Back/binary>>.

random_tricky() ->
    proper_types:bind(proper_types:list(proper_types:elements(?TRICKY)), fun list_to_binary/1,
                      false).

%%====================================================================
%% Encode
%%====================================================================

encode_random_chunkings_test_() ->
    {timeout, 120, fun() ->
        Type = {proper_types:binary(), chunk_sizes(), proper_types:elements(encode_option_sets())},
        check(encode_random_chunkings, Type, 3000,
              fun({Data, Sizes, Options}) ->
                      Chunks = chunk(Data, Sizes),
                      same(b64simd_ref:encode(Data, Options), stream_encode(Chunks, Options),
                           {Chunks, Options})
              end)
    end}.

%% Every length up to 40, every option set, cut once at every position and
%% into 1-byte chunks with empty chunks between.
encode_exhaustive_small_test_() ->
    {timeout, 120, fun encode_exhaustive_small/0}.

encode_exhaustive_small() ->
    Failures = [{Chunks, Options}
                || Length <- lists:seq(0, 40),
                   Data <- [<< <<((Length * 7 + I) rem 256)>> || I <- lists:seq(1, Length) >>],
                   Options <- encode_option_sets(),
                   Chunks <- [[<<>>, Data] | every_cut(Data)] ++ [bytes_and_empties(Data)],
                   stream_encode(Chunks, Options) =/= b64simd_ref:encode(Data, Options)],
    ?assertEqual([], lists:sublist(Failures, 3)).

every_cut(Data) ->
    [[Front, Back] || At <- lists:seq(0, byte_size(Data)), {Front, Back} <- [split_binary(Data, At)]].

bytes_and_empties(Data) ->
    lists:append([[<<Byte>>, <<>>] || <<Byte>> <= Data]).

encode_iodata_chunks_test() ->
    Chunks = [[<<"he">>, $l], <<>>, [], "lo", [<<" w">>, [$o | <<"rld">>]]],
    ?assertEqual(base64:encode(<<"hello world">>), stream_encode(Chunks, #{})).

%% A few MiB in chunks of up to 64 KiB, as from file:read/2.
encode_large_test_() ->
    {timeout, 120, fun() ->
        _ = rand:seed(exsss, {20, 2026, 1}),
        Data = rand:bytes(3 * 1024 * 1024 + 5),
        Chunks = chunk(Data, [rand:uniform(65536) || _ <- lists:seq(1, 40)]),
        [?assertEqual({Options, Expected}, {Options, stream_encode(Chunks, Options)})
         || Options <- encode_option_sets() -- [#{mode => urlsafe, padding => false}],
            maps:get(line_length, Options, 76) >= 57,
            Expected <- [b64simd_ref:encode(Data, Options)]]
    end}.

%% The stream's state belongs to the NIF: a new stream's is made from its
%% options, and every state the NIF returns is bytes that only it reads
%% (these tests only pass states on). It refuses any other; an old state
%% gives the same result again.
stream_state_nifs_test() ->
    New = b64simd_nif:decode_stream_init(#{}),
    {<<>>, QU} = b64simd_nif:decode_stream(New, <<"QU">>),
    {<<"ABC">>, Q} = b64simd_nif:decode_stream(QU, <<"JDQQ">>),
    ?assertEqual({<<"ABC">>, Q}, b64simd_nif:decode_stream(QU, <<"JDQQ">>)),
    ?assertEqual({error, missing_padding, undefined}, b64simd_nif:decode_stream_end(Q)),
    {<<"ABC">>, Padded} = b64simd_nif:decode_stream(New, <<"QUJDQQ==">>),
    ?assertEqual(<<"A">>, b64simd_nif:decode_stream_end(Padded)),
    ?assertEqual({error, {bad_padding, 6}, $=}, b64simd_nif:decode_stream(Padded, <<"QUJD">>)),
    ?assertEqual({error, {invalid_character, 6}, $!},
                 b64simd_nif:decode_stream(QU, <<"JDQU!">>)),
    ?assertEqual(<<>>, b64simd_nif:decode_stream_end(New)),
    {<<"YWJj">>, Carry} = b64simd_nif:encode_stream(b64simd_nif:encode_stream_init(#{}), <<"abcd">>),
    ?assertEqual(<<"ZA==">>, b64simd_nif:encode_stream_end(Carry)),
    [?assertEqual(badarg, Call())
     || Call <- [fun() -> b64simd_nif:decode_stream(4, <<"QUJD">>) end,
                 fun() -> b64simd_nif:decode_stream(foo, <<"QUJD">>) end,
                 fun() -> b64simd_nif:decode_stream(<<"not a state">>, <<"QUJD">>) end,
                 fun() -> b64simd_nif:decode_stream_end(<<"not a state">>) end,
                 fun() -> b64simd_nif:decode_stream(Carry, <<"QUJD">>) end,
                 fun() -> b64simd_nif:encode_stream(4, <<"ab">>) end,
                 fun() -> b64simd_nif:encode_stream(QU, <<"ab">>) end,
                 fun() -> b64simd_nif:encode_stream_end(-1) end,
                 fun() -> b64simd_nif:decode_stream_init(#{line_length => 76}) end,
                 fun() -> b64simd_nif:encode_stream_init(#{mode => any}) end]].

encode_through_forced_slices_test_() ->
    {timeout, 120, fun() ->
        try
            ok = b64simd_nif:set_slice_bytes(5),
            _ = rand:seed(exsss, {20, 2026, 2}),
            [begin
                 Data = rand:bytes(rand:uniform(3000)),
                 Chunks = chunk(Data, [rand:uniform(200) || _ <- lists:seq(1, 5)]),
                 ?assertEqual({Options, b64simd_ref:encode(Data, Options)},
                              {Options, stream_encode(Chunks, Options)})
             end
             || _ <- lists:seq(1, 50),
                Options <- [#{}, #{mode => urlsafe, padding => false}, #{padding => false}]]
        after
            b64simd_nif:set_slice_bytes(0)
        end
    end}.

encode_state_stays_small_test() ->
    _ = rand:seed(exsss, {20, 2026, 2}),
    Data = rand:bytes(200000),
    [assert_small_state(Options, 3 * 76,
                        fun(S, Chunk) -> b64simd_stream:encode(S, Chunk) end,
                        b64simd_stream:encode_init(Options),
                        chunk(Data, [rand:uniform(9000) || _ <- lists:seq(1, 30)]))
     || Options <- encode_option_sets()].

%%====================================================================
%% Decode
%%====================================================================

%% Every string of up to 5 bytes over 5 symbols that cover every rule, cut
%% in every way (empty chunks at both ends), under an option set that cycles
%% through all 24; and each string in 1-byte chunks under all 24.
decode_exhaustive_small_test_() ->
    {timeout, 300, fun() ->
        OptionSets = list_to_tuple(decode_option_sets()),
        Strings = lists:append([strings("QR= -", N) || N <- lists:seq(0, 5)]),
        Cut = [{Chunks, element(Index rem 24 + 1, OptionSets)}
               || {String, I} <- lists:zip(Strings, lists:seq(1, length(Strings))),
                  {Chunks, J} <- numbered(all_chunkings(String)),
                  Index <- [I + J]],
        Bytes = [{bytes_and_empties(String), Options}
                 || String <- Strings, Options <- tuple_to_list(OptionSets)],
        Failures = [{Chunks, Options, Expected, Got}
                    || {Chunks, Options} <- Cut ++ Bytes,
                       Expected <- [one_shot_decode(Chunks, Options)],
                       Got <- [stream_decode(Chunks, Options)],
                       Got =/= Expected],
        io:format(user, "~ndecode_exhaustive_small: ~b streams compared~n",
                  [length(Cut) + length(Bytes)]),
        ?assertEqual([], lists:sublist(Failures, 3))
    end}.

strings(_Alphabet, 0) -> [<<>>];
strings(Alphabet, N) -> [<<C, S/binary>> || C <- Alphabet, S <- strings(Alphabet, N - 1)].

numbered(List) -> lists:zip(List, lists:seq(1, length(List))).

%% Every way to cut Bin into non-empty chunks, with an empty chunk at both ends.
all_chunkings(<<>>) ->
    [[<<>>]];
all_chunkings(Bin) ->
    [[<<>> | Chunks] ++ [<<>>] || Chunks <- cuts(Bin)].

cuts(<<Byte>>) ->
    [[<<Byte>>]];
cuts(<<Byte, Rest/binary>>) ->
    lists:append([[[<<Byte>> | Chunks], [<<Byte, First/binary>> | Others]]
                  || [First | Others] = Chunks <- cuts(Rest)]).

decode_random_chunkings_test_() ->
    {timeout, 120, fun() ->
        Type = {proper_types:oneof([nearly_base64(), random_tricky()]), chunk_sizes(),
                proper_types:elements(decode_option_sets())},
        check(decode_random_chunkings, Type, 6000, fun decode_check/1)
    end}.

%% Wrapped text (MIME and PEM shapes, with stray whitespace) decodes
%% across every chunking, whitespace at chunk edges included.
decode_wrapped_chunkings_test_() ->
    {timeout, 120, fun() ->
        Type = {proper_types:bind([proper_types:binary(), proper_types:range(1, 80),
                                   proper_types:elements([crlf, lf])],
                                  fun([Data, Length, Break]) ->
                                          b64simd_ref:lines(base64:encode(Data), Length, break(Break))
                                  end, false),
                chunk_sizes(), proper_types:elements(decode_option_sets())},
        check(decode_wrapped_chunkings, Type, 2000, fun decode_check/1)
    end}.

decode_check({Base64, Sizes, Options}) ->
    Chunks = chunk(Base64, Sizes),
    same(one_shot_decode(Chunks, Options), stream_decode(Chunks, Options), {Chunks, Options}).

%% Offsets stay absolute deep into a big stream: a bad byte at many
%% positions of a few MiB, in 64 KiB-ish chunks.
decode_large_error_offsets_test_() ->
    {timeout, 120, fun() ->
        _ = rand:seed(exsss, {20, 2026, 3}),
        Valid = b64simd_ref:lines(base64:encode(rand:bytes(2 * 1024 * 1024)), 76, <<"\r\n">>),
        Sizes = [rand:uniform(65536) || _ <- lists:seq(1, 40)],
        ?assertEqual({ok, base64:decode(Valid)}, stream_decode(chunk(Valid, Sizes), #{})),
        [begin
             At = rand:uniform(byte_size(Valid)) - 1,
             <<Front:At/binary, _, Back/binary>> = Valid,
             Bad = <<Front/binary, Byte, Back/binary>>,
             ?assertEqual({At, Byte, one_shot_decode([Bad], #{})},
                          {At, Byte, stream_decode(chunk(Bad, Sizes), #{})})
         end || Byte <- [$!, $=, $-, $\f, $Q, $\s]]
    end}.

%% Pieces of kilobytes, as from files and sockets: regular lines (the quick
%% cut after the last line break), lines longer than the window searched for
%% it, no lines, stray whitespace and a bad byte, under all 24 option sets.
decode_big_pieces_test_() ->
    {timeout, 120, fun() ->
        _ = rand:seed(exsss, {20, 2026, 6}),
        Failures =
            [{Length, Noise, Options}
             || Length <- [64, 76, 75, 1500, none],
                Noise <- [clean, spaces, bad_byte],
                Options <- decode_option_sets(),
                Base64 <- [noise(Noise, wrapped(base64:encode(rand:bytes(30000 + rand:uniform(9))),
                                               Length))],
                Chunks <- [chunk(Base64, [rand:uniform(5000) || _ <- lists:seq(1, 20)])],
                one_shot_decode(Chunks, Options) =/= stream_decode(Chunks, Options)],
        ?assertEqual([], Failures)
    end}.

%% The same with every NIF call forced to slices of 7 bytes, so that each
%% piece's decode (the carry put in front in the NIF) runs as a job of many
%% slices, stopping and resuming at every position.
decode_big_pieces_sliced_test_() ->
    {setup,
     fun() -> ok = b64simd_nif:set_slice_bytes(7) end,
     fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun() ->
         _ = rand:seed(exsss, {21, 2026, 6}),
         Failures =
             [{Length, Noise, Options}
              || Length <- [76, 64, none],
                 Noise <- [clean, spaces, bad_byte],
                 Options <- [#{}, #{mode => urlsafe, padding => false}, #{whitespace => reject}],
                 Base64 <- [noise(Noise, wrapped(b64simd_ref:encode(rand:bytes(3000 + rand:uniform(9)),
                                                                    maps:with([mode, padding], Options)),
                                                 Length))],
                 Chunks <- [chunk(Base64, [rand:uniform(700) || _ <- lists:seq(1, 8)])],
                 one_shot_decode(Chunks, Options) =/= stream_decode(Chunks, Options)],
         ?assertEqual([], Failures)
     end}}.

wrapped(Base64, none) -> Base64;
wrapped(Base64, Length) -> b64simd_ref:lines(Base64, Length, <<"\r\n">>).

noise(clean, Base64) ->
    Base64;
noise(spaces, Base64) ->
    lists:foldl(fun(_, Acc) -> edit({insert, rand:uniform(byte_size(Acc)), $\s}, Acc) end,
                Base64, lists:seq(1, 20));
noise(bad_byte, Base64) ->
    edit({replace, rand:uniform(byte_size(Base64)) - 1, $!}, Base64).

decode_iodata_chunks_test() ->
    Chunks = [[<<"aG">>, $V], <<>>, [], "sbG", [<<"8">>, [$= | <<>>]]],
    ?assertEqual({ok, <<"hello">>}, stream_decode(Chunks, #{})).

decode_state_stays_small_test() ->
    _ = rand:seed(exsss, {20, 2026, 4}),
    Base64 = b64simd_ref:lines(base64:encode(rand:bytes(100000)), 76, <<"\r\n">>),
    [assert_small_state(Options, 1024 + 4,
                        fun(S, Chunk) -> b64simd_stream:decode(S, Chunk) end,
                        b64simd_stream:decode_init(Options),
                        chunk(Base64, [rand:uniform(5000) || _ <- lists:seq(1, 30)]))
     || Options <- [#{}, #{canonical => true}, #{mode => any, padding => false}]],
    %% Pieces ending in long runs of whitespace or padding: the state keeps
    %% the last quantum's characters, not the run (each carried byte is 9
    %% bytes of state).
    Runs = [<<"QUJDQ", (binary:copy(<<"\r\n">>, 50000))/binary>>,
            <<"Q", (binary:copy(<<" ">>, 200000))/binary>>,
            <<"Q", (binary:copy(<<"\n">>, 3000))/binary, "=", (binary:copy(<<" ">>, 3000))/binary>>],
    assert_small_state(#{}, 1024, fun(S, Chunk) -> b64simd_stream:decode(S, Chunk) end,
                       b64simd_stream:decode_init(#{padding => false}), Runs).

%% After each chunk, the state holds no binary bigger than Limit bytes (nor
%% a sub-binary keeping a bigger one alive).
assert_small_state(Options, Limit, Feed, State0, Chunks) ->
    lists:foldl(fun(Chunk, State) ->
                        {_, Next} = Feed(State, Chunk),
                        Sizes = [binary:referenced_byte_size(B) || B <- binaries(Next)],
                        ?assertEqual({Options, []}, {Options, [S || S <- Sizes, S > Limit]}),
                        Next
                end, State0, Chunks).

binaries(Term) when is_binary(Term) -> [Term];
binaries(Term) when is_tuple(Term) -> binaries(tuple_to_list(Term));
binaries(Term) when is_map(Term) -> binaries(maps:to_list(Term));
binaries([Head | Tail]) -> binaries(Head) ++ binaries(Tail);
binaries(_Term) -> [].

%%====================================================================
%% Errors
%%====================================================================

bad_arguments_test() ->
    ?assertError(badarg, b64simd_stream:encode_init(#{mode => url})),
    ?assertError(badarg, b64simd_stream:encode_init(not_a_map)),
    ?assertError(badarg, b64simd_stream:decode_init(#{whitespace => keep})),
    E = b64simd_stream:encode_init(#{}),
    D = b64simd_stream:decode_init(#{}),
    ?assertError(badarg, b64simd_stream:encode(E, [256])),
    ?assertError(badarg, b64simd_stream:encode(D, <<"x">>)),
    ?assertError(badarg, b64simd_stream:encode_final(D)),
    ?assertError(badarg, b64simd_stream:decode(D, atom)),
    ?assertError(badarg, b64simd_stream:decode(E, <<"QQ==">>)),
    ?assertError(badarg, b64simd_stream:decode_final(E)).

%% The shell's description names the absolute offset and the byte.
format_error_test() ->
    D0 = b64simd_stream:decode_init(#{}),
    {_, D1} = b64simd_stream:decode(D0, <<"aGVsbG8g">>),
    Described = try b64simd_stream:decode(D1, <<"d2-y">>) of
                    _ -> no_error
                catch
                    error:Reason:Stack ->
                        ?assertEqual({invalid_character, 10}, Reason),
                        lists:flatten(erl_error:format_exception(error, Reason, Stack))
                end,
    ?assertNotEqual(nomatch, string:find(Described, "at byte 10 of the stream"), Described),
    ?assertNotEqual(nomatch, string:find(Described, "mode => urlsafe"), Described),
    ?assertEqual(<<>>, b64simd_stream:decode_final(D1)),
    {_, D2} = b64simd_stream:decode(D1, <<"Q">>),
    ?assertError({incomplete, 8}, b64simd_stream:decode_final(D2)).

%%====================================================================
%% The README example: a file through file:read/2 and file:write/2
%%====================================================================

file_roundtrip_test() ->
    _ = rand:seed(exsss, {20, 2026, 5}),
    Dir = os:getenv("TMPDIR", "/tmp"),
    Stem = filename:join(Dir, "b64simd_20_stream_" ++ os:getpid()),
    [Plain, Encoded, Decoded] = [Stem ++ Ext || Ext <- [".bin", ".b64", ".out"]],
    Data = rand:bytes(1000003),
    ok = file:write_file(Plain, Data),
    try
        ok = stream_file(Plain, Encoded, 65535, fun b64simd_stream:encode_init/1,
                         fun b64simd_stream:encode/2, fun b64simd_stream:encode_final/1),
        ?assertEqual({ok, base64:encode(Data)}, file:read_file(Encoded)),
        ok = stream_file(Encoded, Decoded, 65536, fun b64simd_stream:decode_init/1,
                         fun b64simd_stream:decode/2, fun b64simd_stream:decode_final/1),
        ?assertEqual({ok, Data}, file:read_file(Decoded))
    after
        [file:delete(F) || F <- [Plain, Encoded, Decoded]]
    end.

stream_file(InPath, OutPath, ChunkSize, Init, Step, Final) ->
    {ok, In} = file:open(InPath, [read, raw, binary]),
    {ok, Out} = file:open(OutPath, [write, raw]),
    Loop = fun Loop(S) ->
                   case file:read(In, ChunkSize) of
                       {ok, Chunk} ->
                           {Output, Next} = Step(S, Chunk),
                           ok = file:write(Out, Output),
                           Loop(Next);
                       eof ->
                           ok = file:write(Out, Final(S))
                   end
           end,
    Loop(Init(#{})),
    ok = file:close(In),
    file:close(Out).
