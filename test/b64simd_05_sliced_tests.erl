%% The time-sliced path, forced with tiny slices (b64simd_nif:set_slice_bytes/1)
%% so that it runs on small inputs: the same bytes as the one-shot path for
%% every length 0..1100, errors before, at and after slice boundaries with
%% absolute offsets, and random large inputs with realistic slice sizes.
-module(b64simd_05_sliced_tests).
-include_lib("eunit/include/eunit.hrl").

-import(b64simd_test_lib, [label/1, seed/1]).

-define(MAX_EXHAUSTIVE, 1100).
-define(SLICES, [1, 4, 5, 7, 64]).

%% Slices of 1 and 4 bytes cost a NIF call per byte or so: shorter inputs
%% suffice to cross hundreds of their boundaries.
lengths(Slice) when Slice < 5 -> lists:seq(0, 400);
lengths(_Slice) -> lists:seq(0, ?MAX_EXHAUSTIVE).

%% Every test forces its own slice size; the table's slicing is restored
%% after each, whatever happened.
sliced_test_() ->
    {foreach,
     fun() -> ok end,
     fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     [{timeout, 120, Test}
      || Test <- [fun slicing_is_forced/0, fun encode_lengths/0, fun decode_lengths/0,
                  fun errors_around_boundaries/0, fun errors_at_the_end/0,
                  fun random_large/0, fun iolists_through_slices/0, fun exact_size_outputs/0,
                  fun concurrent_jobs/0, fun abandoned_jobs_are_freed/0,
                  fun a_job_owns_its_input/0]]}.

%% The hook really sends small inputs through sliced jobs, so the tests
%% below prove the sliced path and not the one-shot one.
slicing_is_forced() ->
    ok = b64simd_nif:set_slice_bytes(5),
    Defaults = #{},
    ?assertMatch({continue, _}, b64simd_nif:encode(<<"0123456789">>, Defaults)),
    ?assertMatch({continue, _}, b64simd_nif:decode(<<"MDEyMzQ1Njc4OQ==">>, Defaults)),
    ?assertEqual(<<"MDEyMzQ1Njc4OQ==">>, b64simd:encode(<<"0123456789">>)),
    ?assertEqual(<<"0123456789">>, b64simd:decode(<<"MDEyMzQ1Njc4OQ==">>)),
    ok = b64simd_nif:set_slice_bytes(0),
    ?assert(is_binary(b64simd_nif:encode(<<"0123456789">>, Defaults))).

encode_lengths() ->
    _ = seed(sliced_encode_lengths),
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         [?assertEqual(b64simd_ref:encode(Data, Options), b64simd:encode(Data, Options),
                       label({Slice, byte_size(Data), Options}))
          || Length <- lengths(Slice), Data <- [rand:bytes(Length)],
             Options <- b64simd_test_lib:encode_option_sets()],
         ok
     end
     || Slice <- ?SLICES],
    ok.

%% Round trips in several option sets, plain and with line breaks that
%% fall across slice boundaries.
decode_lengths() ->
    _ = seed(sliced_decode_lengths),
    OptionSets = [#{}, #{mode => urlsafe, padding => false, canonical => true},
                  #{mode => any, padding => false, whitespace => reject}],
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         [begin
              Mode = case maps:get(mode, Options, standard) of
                         any -> urlsafe;
                         Mode0 -> Mode0
                     end,
              Base64 = b64simd_ref:encode(Data, #{mode => Mode,
                                                  padding => maps:get(padding, Options, true)}),
              Label = label({Slice, byte_size(Data), Options}),
              ?assertEqual({ok, Data}, b64simd:try_decode(Base64, Options), Label),
              Wrapped = b64simd_ref:lines(Base64, 19, <<"\r\n">>),
              ?assertEqual(b64simd_ref:decode(Wrapped, Options),
                           b64simd:try_decode(Wrapped, Options), Label)
          end
          || Length <- lengths(Slice), Data <- [rand:bytes(Length)], Options <- OptionSets],
         ok
     end
     || Slice <- ?SLICES],
    ok.

%% A bad byte, '=', or whitespace under `reject', put before, at and after
%% every slice boundary of a 400-character input: the offset is absolute.
errors_around_boundaries() ->
    _ = seed(sliced_errors_around_boundaries),
    Base64 = base64:encode(rand:bytes(300)),
    Size = byte_size(Base64),
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         Positions = lists:usort([P || Boundary <- lists:seq(0, Size, Slice),
                                       P <- lists:seq(Boundary - 2, Boundary + 2),
                                       P >= 0, P < Size]),
         [begin
              <<Head:Position/binary, _, Tail/binary>> = Base64,
              Input = <<Head/binary, Byte, Tail/binary>>,
              [?assertEqual(b64simd_ref:decode(Input, Options),
                            b64simd:try_decode(Input, Options),
                            label({Slice, Position, Byte, Options}))
               || Options <- [#{}, #{whitespace => reject}, #{mode => urlsafe},
                              #{mode => any, padding => false, canonical => true}]]
          end
          || Position <- Positions, Byte <- [$!, $=, $\n, $\s, $\f, $-, 0, 255]],
         ok
     end
     || Slice <- [4, 5, 7, 64, 100]],
    ok.

%% The end-of-input reasons, found after many slices, with absolute
%% offsets.
errors_at_the_end() ->
    Prefix = binary:copy(<<"QUJD">>, 50),
    P = byte_size(Prefix),
    Cases = [{<<"QQ">>, #{}, missing_padding},
             {<<"Q">>, #{padding => false}, {incomplete, P}},
             {<<"QQ=">>, #{padding => false}, {bad_padding, P + 2}},
             {<<"QR==">>, #{canonical => true}, {non_canonical, P + 1}},
             {<<"QUJ">>, #{canonical => true, padding => false}, {non_canonical, P + 2}},
             {<<"QQ==QQ==">>, #{}, {bad_padding, P + 2}},
             {<<"QQ===">>, #{}, {bad_padding, P + 4}}],
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         [?assertEqual({error, Reason}, b64simd:try_decode(<<Prefix/binary, End/binary>>, Options),
                       label({Slice, End, Options}))
          || {End, Options, Reason} <- Cases],
         ok
     end
     || Slice <- ?SLICES],
    ok.

%% Random inputs up to 1 MiB with slices of a few KiB (not multiples of 3
%% or 4), and up to 64 KiB with 1-byte slices, against OTP.
random_large() ->
    _ = seed(sliced_random_large),
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         Data = rand:bytes(rand:uniform(min(1 bsl 20, Slice bsl 16))),
         Base64 = base64:encode(Data),
         Label = label({Slice, byte_size(Data)}),
         ?assertEqual(Base64, b64simd:encode(Data), Label),
         ?assertEqual(Data, b64simd:decode(Base64), Label),
         ?assertEqual(Data, b64simd:decode(b64simd_ref:lines(Base64, 76, <<"\r\n">>)), Label),
         Bad = rand:uniform(byte_size(Base64)) - 1,
         <<Head:Bad/binary, _, Tail/binary>> = Base64,
         ?assertEqual({error, {invalid_character, Bad}},
                      b64simd:try_decode(<<Head/binary, $*, Tail/binary>>), Label)
     end
     || Slice <- [1000, 4097, 65536, 1]],
    ok.

%% iolists are flattened once and the same binary is fed to every slice.
iolists_through_slices() ->
    _ = seed(sliced_iolists),
    ok = b64simd_nif:set_slice_bytes(7),
    [begin
         Data = rand:bytes(Length),
         Base64 = base64:encode(Data),
         Bad = <<Base64/binary, " -">>,
         [?assertEqual(Base64, b64simd:encode(Shape), label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Data)],
         [?assertEqual(Data, b64simd:decode(Shape), label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Base64)],
         [?assertEqual({error, {invalid_character, byte_size(Base64) + 1}},
                       b64simd:try_decode(Shape), label(Shape))
          || Shape <- b64simd_test_lib:iolist_shapes(Bad)],
         ok
     end
     || Length <- [0, 1, 2, 3, 10, 47, 100, 500]],
    ok.

%% Encode allocates its output at the exact size and decode shrinks its
%% buffer in place, sliced or not: no result keeps a bigger buffer alive.
exact_size_outputs() ->
    _ = seed(sliced_exact_size_outputs),
    Data = rand:bytes(100001),
    Base64 = base64:encode(Data),
    Spaced = <<Base64/binary, (binary:copy(<<" ">>, 50000))/binary>>,
    Unpadded = b64simd_ref:encode(Data, #{padding => false}),
    [begin
         ok = b64simd_nif:set_slice_bytes(Slice),
         [?assertEqual(byte_size(Result), binary:referenced_byte_size(Result),
                       label({Slice, byte_size(Result)}))
          || Result <- [b64simd:encode(Data), b64simd:decode(Base64), b64simd:decode(Spaced),
                        b64simd:decode(Unpadded, #{padding => false})]],
         ok
     end
     || Slice <- [0, 1000, 65536]],
    ok.

%% Sliced jobs of many processes at once (two schedulers here) do not mix.
concurrent_jobs() ->
    _ = seed(sliced_concurrent_jobs),
    ok = b64simd_nif:set_slice_bytes(257),
    Inputs = [rand:bytes(rand:uniform(200000)) || _ <- lists:seq(1, 16)],
    Parent = self(),
    Workers = [spawn_link(fun() ->
                                  Results = [{b64simd:encode(Data),
                                              b64simd:decode(base64:encode(Data)),
                                              b64simd:try_decode(<<(base64:encode(Data))/binary, "*">>)}
                                             || _ <- lists:seq(1, 3)],
                                  Parent ! {self(), Results}
                          end)
               || Data <- Inputs],
    [receive
         {Worker, Results} ->
             Expected = {base64:encode(Data), Data,
                         {error, {invalid_character, byte_size(base64:encode(Data))}}},
             [?assertEqual(Expected, Result, label(byte_size(Data))) || Result <- Results]
     end
     || {Worker, Data} <- lists:zip(Workers, Inputs)],
    ok.

%% A job dropped half-way (its process died, or nobody continued it) frees
%% its output buffer when the job term is garbage collected.
abandoned_jobs_are_freed() ->
    ok = b64simd_nif:set_slice_bytes(1000),
    Data = binary:copy(<<"abc">>, 1 bsl 18),
    Defaults = #{},
    Start = fun() -> {continue, _} = b64simd_nif:encode(Data, Defaults), ok end,
    Before = erlang:memory(binary),
    [begin
         {Pid, Ref} = spawn_monitor(fun() -> Start(), exit(dropped) end),
         receive {'DOWN', Ref, process, Pid, dropped} -> ok end
     end
     || _ <- lists:seq(1, 100)],
    [Start() || _ <- lists:seq(1, 100)],
    true = erlang:garbage_collect(),
    %% 200 leaked buffers would be 200 MiB. A dead process's heap may be
    %% freed a little after its 'DOWN' message, so give that a moment.
    ?assertEqual(ok, binary_growth_below(Before, 50 bsl 20, 100)).

binary_growth_below(Before, Limit, Tries) ->
    case erlang:memory(binary) - Before of
        Growth when Growth < Limit -> ok;
        Growth when Tries =:= 0 -> {binary_memory_growth, Growth};
        _ -> timer:sleep(50), binary_growth_below(Before, Limit, Tries - 1)
    end.

%% A job owns its input: continuing it takes no input at all (there is
%% no `continue/2' to hand it another), and it goes on with its own after
%% the process that started it, and the input it passed, are gone. Once the
%% job has ended, continuing it is refused.
a_job_owns_its_input() ->
    ok = b64simd_nif:set_slice_bytes(64),
    Parent = self(),
    Inputs = [{encode, fun() -> rand:bytes(10000) end},
              {decode, fun() -> base64:encode(rand:bytes(10000)) end}],
    [begin
         Starter = spawn(fun() ->
                                 Input = Make(),
                                 {continue, Job} = b64simd_nif:Nif(Input, #{}),
                                 Parent ! {self(), Job, erlang:md5(Input), Input}
                         end),
         {Job, Digest, Input} = receive {Starter, J, D, I} -> {J, D, I} end,
         Expected = b64simd:Nif(Input),
         ?assertEqual(Digest, erlang:md5(Input)),
         ?assertEqual(Expected, run_job(Job), Nif),
         ?assertEqual(badarg, b64simd_nif:continue(Job))
     end
     || {Nif, Make} <- Inputs],
    {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
    ?assertNot(erlang:function_exported(b64simd_nif, continue, 2)).

run_job(Job) ->
    case b64simd_nif:continue(Job) of
        {continue, Job} -> run_job(Job);
        Result -> Result
    end.

%% A call that runs to its end is charged its bytes at its work's rate in
%% the charge table, whole percents of a timeslice (40 reductions) at a
%% time with the rest carried over: a loop of 16 KiB calls is charged what
%% the calls cost in total, not a rounded share per call. The same loop on
%% 3-byte inputs, which are not charged, is the baseline for the loop's own
%% reductions. MIME text is charged as text with whitespace, once the
%% decode has met it. A stream's piece is charged as a call on its bytes.
small_calls_are_charged_their_cost_test() ->
    Plain = rand:bytes(16384),
    Text = base64:encode(Plain),
    Mime = b64simd:encode(Plain, #{line_length => 76}),
    Encoder = b64simd_stream:encode_init(#{}),
    Decoder = b64simd_stream:decode_init(#{}),
    EncodePiece = fun(Piece) -> b64simd_stream:encode(Encoder, Piece) end,
    DecodePiece = fun(Piece) -> b64simd_stream:decode(Decoder, Piece) end,
    [b64simd_test_lib:charged_as(Op, Fun, Small, Big, Work)
     || {Op, Fun, Small, Big, Work} <-
            [{encode, fun b64simd:encode/1, <<"abc">>, Plain, encode},
             {encode_mime, fun(D) -> b64simd:encode(D, #{line_length => 76}) end, <<"abc">>,
              Plain, encode_lines},
             {decode, fun b64simd:decode/1, <<"YWJj">>, Text, decode},
             {decode_mime, fun b64simd:decode/1, <<"YWJj">>, Mime, decode_spaced},
             {mime_decode, fun b64simd:mime_decode/1, <<"YWJj">>, Mime, decode_spaced},
             {is_valid, fun b64simd:is_valid/1, <<"YWJj">>, Text, decode},
             {stream_encode, EncodePiece, <<"abc">>, Plain, encode},
             {stream_decode, DecodePiece, <<"YWJj">>, Text, decode}]],
    ok.

%% Calls whose work the table estimates under its uncharged threshold (200
%% ns) cost only their one reduction, like a BIF's small work: charged,
%% loops of such calls ran up to a fifth slower (bench/README.md,
%% "Charges"). The inputs are sized from the table to three quarters of it.
short_calls_cost_one_reduction_test() ->
    {_, UnchargedNs, #{encode := EncodePs, decode := DecodePs}} = b64simd_nif:charges(),
    Under = fun(Ps) -> UnchargedNs * 750 div Ps end,
    Text = base64:encode(rand:bytes(Under(DecodePs) * 3 div 4)),
    ?assert(byte_size(Text) * DecodePs div 1000 < UnchargedNs),
    [b64simd_test_lib:not_charged(Op, Fun, Small, Big)
     || {Op, Fun, Small, Big} <-
            [{encode, fun b64simd:encode/1, <<"abc">>, rand:bytes(Under(EncodePs))},
             {decode, fun b64simd:decode/1, <<"YWJj">>, Text}]],
    ok.

%% A job whose work the table estimates at a timeslice runs to its end in
%% the call; one estimated at more is sliced. Its first slice ends on the
%% clock, not on the table, so the sliced job is given four timeslices of
%% estimated work: only a CPU four times faster than the table's rate would
%% finish it in one slice (`budget::is_sliced' itself is tested at the
%% boundary in Rust).
calls_of_more_than_a_timeslice_are_sliced_test() ->
    {TimesliceNs, _, #{encode := EncodePs, decode := DecodePs}} = b64simd_nif:charges(),
    Most = fun(Ps) -> TimesliceNs * 1000 div Ps end,
    Defaults = #{},
    Data = rand:bytes(Most(EncodePs) div 3 * 3),
    ?assert(is_binary(b64simd_nif:encode(Data, Defaults))),
    ?assertMatch({continue, _}, b64simd_nif:encode(binary:copy(Data, 4), Defaults)),
    Text = binary:part(base64:encode(rand:bytes(Most(DecodePs))), 0, Most(DecodePs) div 4 * 4),
    ?assert(is_binary(b64simd_nif:decode(Text, Defaults))),
    ?assertMatch({continue, _}, b64simd_nif:decode(binary:copy(Text, 4), Defaults)).
