%% Memory: nothing leaks, whatever happens to the caller.
%%
%% Each test measures `erlang:memory(binary)' and the VM's resident set size
%% (VmRSS from /proc) before and after, with the work done in separate
%% processes that have exited, and asserts both are back near the baseline:
%% after many mixed calls of every size class, after callers are killed in
%% the middle of sliced jobs on big inputs, and after many errors. The 1 GiB
%% round trip runs only on the default kernel (none forced, or the one simdutf
%% would pick anyway) and only with enough free memory.
-module(b64simd_30_memory_tests).
-include_lib("eunit/include/eunit.hrl").

-define(MiB, (1024 * 1024)).
%% Binary memory may differ by a few small binaries (logger, code server).
-define(BINARY_SLACK, (1 * ?MiB)).
%% RSS may keep a little of what the allocators cache for reuse (ERTS
%% gives freed carriers back to the OS a little later: wait_for/3 waits);
%% the kill test frees 600 MiB of inputs and 52 output buffers of 256 to
%% 350 MiB before it measures. Binary memory is the exact check.
-define(RSS_SLACK, (128 * ?MiB)).
-define(SEED, {30, 1, 1}).

%%====================================================================
%% Mixed calls of every size class
%%====================================================================

mixed_calls_leave_no_binary_memory_test_() ->
    {timeout, 300, fun mixed_calls_leave_no_binary_memory/0}.

mixed_calls_leave_no_binary_memory() ->
    Calls = scaled(1_000_000),
    Report = check_returns_to_baseline(
               "mixed calls",
               fun() ->
                       rand:seed(exsss, ?SEED),
                       mixed_calls(payload_pool(), Calls div 2)
               end),
    io:format(user, "~n  memory: ~b mixed calls (seed ~p) ~s~n", [Calls, ?SEED, Report]).

%% Two calls per round, an encode and a decode (a quarter of them failing).
%% Small inputs dominate; every 1000th round is medium (64 KiB..1 MiB,
%% inline), every 20000th large (4..16 MiB, sliced). Sizes and offsets of
%% small rounds come from the counter, to keep the rounds cheap.
mixed_calls(_Pool, 0) ->
    ok;
mixed_calls(Pool, N) ->
    Data = if
               N rem 20_000 =:= 0 -> slice_of(Pool, 4 * ?MiB + rand:uniform(12 * ?MiB));
               N rem 1_000 =:= 0 -> slice_of(Pool, 64 * 1024 + rand:uniform(?MiB));
               true -> binary:part(Pool, N * 7919 rem ?MiB, N rem 200)
           end,
    Mode = element(N rem 2 + 1, {standard, urlsafe}),
    Encoded = b64simd:encode(Data, #{mode => Mode}),
    case N rem 4 of
        0 -> {error, _} = b64simd:try_decode([Encoded, <<"*">>], #{mode => any});
        _ -> Data = b64simd:decode(Encoded, #{mode => Mode})
    end,
    mixed_calls(Pool, N - 1).

%%====================================================================
%% Callers killed mid-operation
%%====================================================================

killed_callers_leak_nothing_test_() ->
    {timeout, 300, fun killed_callers_leak_nothing/0}.

killed_callers_leak_nothing() ->
    %% Binary memory is the exact check here. RSS is reported, not asserted:
    %% after freeing buffers of 256-341 MiB the VM's segment cache may keep
    %% several of them mapped (seen: RSS 0.1 -> 1.0 GiB with binary memory
    %% back at 0.9 MiB), which says nothing about leaks.
    Report = check_returns_to_baseline("killed callers", fun kill_rounds/0, report_rss),
    io:format(user, "~n  memory: 2 x 26 callers killed on 256 MiB inputs, then the inputs "
              "freed: ~s~n", [Report]).

%% Two rounds of 26 callers killed, each round followed by a check that the
%% binary memory is back to what the inputs alone take.
kill_rounds() ->
    Size = 256 * ?MiB,
    Plain = binary:copy(<<"killed mid-way!">>, Size div 15 + 1),
    Encoded = b64simd:encode(Plain),
    %% Streams' states carrying "QU" and "a".
    {<<>>, CarryQU} = b64simd_nif:decode_stream(b64simd_nif:decode_stream_init(#{padding => false}), <<"QU">>),
    {<<>>, CarryA} = b64simd_nif:encode_stream(b64simd_nif:encode_stream_init(#{line_length => 76, padding => false}), <<"a">>),
    WithInputs = erlang:memory(binary),
    lists:foreach(
      fun(Round) ->
              %% Deterministic: the job is between two slices, its output
              %% buffer allocated, when the caller dies.
              [kill_between_slices(Fun, Input, WithInputs) || _ <- lists:seq(1, 4),
               {Fun, Input} <- [{encode, Plain}, {decode, Encoded},
                                %% The streams' NIFs, their carry in front.
                                {fun(I) -> b64simd_nif:decode_stream(CarryQU, I) end, Encoded},
                                {fun(I) -> b64simd_nif:encode_stream(CarryA, I) end, Plain}]],
              %% Realistic: killed at whatever point it has reached.
              [kill_after(Fun, Delay) || Delay <- [0, 1, 5, 20, 50],
               Fun <- [fun() -> b64simd:encode(Plain) end,
                       fun() -> b64simd:decode(Encoded) end]],
              After = wait_for(fun erlang:memory/1, binary, WithInputs + ?BINARY_SLACK),
              ?assert(After =< WithInputs + ?BINARY_SLACK, {round, Round, WithInputs, After})
      end, [1, 2]).

kill_between_slices(Fun, Input, WithInputs) ->
    %% The previous caller's buffer is gone (freed during its exit, which
    %% may finish after its 'DOWN' message), so the rise measured below is
    %% this job's.
    Before = wait_for(fun erlang:memory/1, binary, WithInputs + ?BINARY_SLACK),
    ?assert(Before =< WithInputs + ?BINARY_SLACK, {Fun, WithInputs, Before}),
    Self = self(),
    Pid = spawn(fun() ->
                        {continue, Job} = start_job(Fun, Input),
                        {continue, Job2} = b64simd_nif:continue(Job),
                        Self ! {started, self()},
                        receive never -> Job2 end
                end),
    receive {started, Pid} -> ok end,
    %% The job's output buffer (at least 3/4 of the input) is allocated.
    %% Measured against the inputs alone, not `Before': a previous victim's
    %% last buffer can still be freed in between, which made `Before' too high.
    ?assert(erlang:memory(binary) >= WithInputs + byte_size(Input) * 3 div 4 - ?MiB, Fun),
    kill(Pid).

start_job(Fun, Input) when is_atom(Fun) -> b64simd_nif:Fun(Input, #{});
start_job(Fun, Input) -> Fun(Input).

kill_after(Fun, DelayMs) ->
    Pid = spawn(Fun),
    timer:sleep(DelayMs),
    kill(Pid).

kill(Pid) ->
    Ref = monitor(process, Pid),
    exit(Pid, kill),
    receive {'DOWN', Ref, process, Pid, _} -> ok end.

%%====================================================================
%% Many errors
%%====================================================================

errors_leak_nothing_test_() ->
    {timeout, 300, fun errors_leak_nothing/0}.

errors_leak_nothing() ->
    Errors = scaled(20_000),
    Report = check_returns_to_baseline(
               "errors",
               fun() ->
                       rand:seed(exsss, ?SEED),
                       Pool = b64simd:encode(payload_pool()),
                       many_errors(Pool, Errors)
               end),
    io:format(user, "~n  memory: ~b decode errors ~s~n", [Errors, Report]).

%% Errors at random places in inputs of every size class, sliced ones
%% included (their output buffer is allocated before the error is found).
many_errors(_Pool, 0) ->
    ok;
many_errors(Pool, N) ->
    Size = case N rem 500 of
               0 -> 4 * ?MiB + 4 * rand:uniform(?MiB);
               _ -> 4 * rand:uniform(2048)
           end,
    Valid = slice_of(Pool, Size),
    At = rand:uniform(Size) - 1,
    <<Before:At/binary, _, After/binary>> = Valid,
    Bad = <<Before/binary, (pick([$*, $\f, $-, $.])), After/binary>>,
    {error, _} = b64simd:try_decode(Bad),
    try b64simd:decode(Bad) of
        _ -> error({accepted, N})
    catch
        error:_ -> ok
    end,
    many_errors(Pool, N - 1).

%%====================================================================
%% 1 GiB round trip
%%====================================================================

one_gib_round_trip_test_() ->
    case {b64simd_test_env:is_default_kernel(), available_memory()} of
        {true, Available} when Available >= 8 * 1024 * ?MiB ->
            {timeout, 600, fun one_gib_round_trip/0};
        {Default, Available} ->
            io:format(user, "~n  memory: 1 GiB round trip skipped (default kernel: ~p, "
                      "~b MiB available)~n", [Default, Available div ?MiB]),
            []
    end.

one_gib_round_trip() ->
    Seed = {30, 2, 1},
    rand:seed(exsss, Seed),
    io:format(user, "~n  memory: 1 GiB round trip, seed ~p~n", [Seed]),
    %% 1 MiB + 1 byte repeated: every copy starts at another offset modulo 3,
    %% so each spot check below sees different Base64 text.
    Unit = rand:bytes(?MiB + 1),
    Plain = binary:part(binary:copy(Unit, 1024), 0, 1024 * ?MiB),
    Encoded = b64simd:encode(Plain),
    ?assertEqual((1024 * ?MiB + 2) div 3 * 4, byte_size(Encoded)),
    Decoded = b64simd:decode(Encoded),
    ?assert(Decoded =:= Plain, "decode(encode(1 GiB)) =:= 1 GiB"),
    Last = byte_size(Plain) div 3 - 1000,
    Groups = [0, Last | [rand:uniform(Last) - 1 || _ <- lists:seq(1, 30)]],
    lists:foreach(
      fun(Group) ->
              Piece = binary:part(Plain, Group * 3, min(3000, byte_size(Plain) - Group * 3)),
              ?assertEqual(base64:encode(Piece),
                           binary:part(Encoded, Group * 4, byte_size(base64:encode(Piece))),
                           {group, Group})
      end, Groups),
    Tail = binary:part(Plain, Last * 3 + 3000, byte_size(Plain) - Last * 3 - 3000),
    ?assertEqual(base64:encode(Tail),
                 binary:part(Encoded, byte_size(Encoded), -byte_size(base64:encode(Tail))),
                 "tail, padding included").

%%====================================================================
%% Helpers
%%====================================================================

%% Runs `Work' in a fresh process, waits for it to exit, and asserts that
%% binary memory and RSS are back near where they were. Returns a report.
check_returns_to_baseline(Label, Work) ->
    check_returns_to_baseline(Label, Work, assert_rss).

check_returns_to_baseline(Label, Work, Rss) ->
    Binary0 = steady(fun erlang:memory/1, binary, -1, 20),
    Rss0 = steady(fun(rss) -> rss() end, rss, -1, 20),
    {Pid, Ref} = spawn_monitor(fun() -> Work(), exit(done) end),
    receive {'DOWN', Ref, process, Pid, Why} -> ?assertEqual(done, Why, Label) end,
    Binary1 = wait_for(fun erlang:memory/1, binary, Binary0 + ?BINARY_SLACK),
    Rss1 = wait_for(fun(rss) -> rss() end, rss, Rss0 + ?RSS_SLACK),
    ?assert(Binary1 =< Binary0 + ?BINARY_SLACK, {Label, binary, Binary0, Binary1}),
    ?assert(Rss =:= report_rss orelse Rss1 =< Rss0 + ?RSS_SLACK, {Label, rss, Rss0, Rss1}),
    io_lib:format("binary memory ~s -> ~s, RSS ~s -> ~s",
                  [mib(Binary0), mib(Binary1), mib(Rss0), mib(Rss1)]).

%% Resources and binaries are freed when their last reference goes, which
%% for references held by other processes (the code server, say) is at their
%% next garbage collection; ERTS gives freed carriers back to the OS a little
%% later (its segment cache is cleaned periodically). So collect everywhere
%% and wait up to 10 s for the figure to come down to `Limit'; the caller
%% asserts on the value returned.
wait_for(Measure, What, Limit) ->
    wait_for(Measure, What, Limit, 100).

wait_for(Measure, What, Limit, Tries) ->
    settle(),
    case Measure(What) of
        Now when Now =< Limit; Tries =:= 0 -> Now;
        _ -> timer:sleep(100), wait_for(Measure, What, Limit, Tries - 1)
    end.

%% The baseline, once what earlier tests freed has been given back: measure
%% until two readings 100 ms apart agree (at most `Tries' times).
steady(Measure, What, Previous, Tries) ->
    settle(),
    case Measure(What) of
        Now when Now =:= Previous; Tries =:= 0 -> Now;
        Now -> timer:sleep(100), steady(Measure, What, Now, Tries - 1)
    end.

settle() ->
    [erlang:garbage_collect(P) || P <- processes()],
    ok.

rss() ->
    {ok, Status} = file:read_file("/proc/" ++ os:getpid() ++ "/status"),
    [_, Rest] = binary:split(Status, <<"VmRSS:">>),
    [Kb | _] = string:lexemes(Rest, " \t\n"),
    binary_to_integer(Kb) * 1024.

available_memory() ->
    case file:read_file("/proc/meminfo") of
        {ok, Info} ->
            [_, Rest] = binary:split(Info, <<"MemAvailable:">>),
            [Kb | _] = string:lexemes(Rest, " \t\n"),
            binary_to_integer(Kb) * 1024;
        _ ->
            0
    end.

mib(Bytes) ->
    io_lib:format("~.1f MiB", [Bytes / ?MiB]).

%% The fallback kernel is many times slower, and an emulated CPU slower
%% still: scale the call counts down so every run stays within the time
%% budget, and say so.
scaled(N) ->
    Kernel = os:getenv("SIMDUTF_FORCE_IMPLEMENTATION"),
    case {b64simd_test_env:emulator(), b64simd_test_env:is_default_kernel(), Kernel} of
        {false, true, _} -> N;
        {false, false, "fallback"} -> N div 10;
        {false, false, _} -> N div 5;
        {Emulator, _, _} ->
            io:format(user, "~n  memory: ~b of ~b calls under ~s~n", [N div 20, N, Emulator]),
            N div 20
    end.

payload_pool() ->
    rand:bytes(17 * ?MiB).

slice_of(Pool, Size) ->
    binary:part(Pool, rand:uniform(byte_size(Pool) - Size + 1) - 1, Size).

pick(List) ->
    lists:nth(rand:uniform(length(List)), List).
