%% @doc Scheduler-latency probe (docs/ARCHITECTURE.md, memory and scheduling): does a library
%% that encodes or decodes big inputs in a loop keep other processes on the
%% same scheduler responsive?
%%
%% Run in a VM with ONE normal scheduler (`erl +S 1'): a worker calls the
%% library in a loop while a pinger asks for a 1 ms timer over and over and
%% records how late each wake-up is. A library that blocks the scheduler in a
%% long NIF call, or charges too few reductions, shows up as large delays.
%% Printed per library, operation and size: ping delay p50/p99/max (ms), the
%% worker's throughput (MiB/s of raw payload), and the steal time of the row:
%% how long the hypervisor ran something else on this VM's vCPUs, a delay no
%% library causes (an idle VM here sees stalls of about 10 ms a few times a
%% minute, and its steal counter moves by as much).
%%
%% "b64simd dirty" is the same NIF doing each call whole on a dirty CPU
%% scheduler (as b64veryfast does above 2 MiB), for comparison with our
%% default, slicing on the normal scheduler.
%%
%% `scaling/0' (run with `erl +S 2') checks that two workers on two schedulers
%% get about twice the throughput of one; `slicing/0' compares sliced calls
%% with the unsliced kernel through the same NIF.
-module(b64simd_latency).

-export([main/0, main/1, scaling/0, slicing/0]).

-define(MiB, 1048576).

%% @doc `make bench''s entry: the latency table on one scheduler, then the
%% scaling check on two and the slicing cost; CSV at `Prefix.csv'.
-spec main([string()]) -> no_return().
main([Prefix]) ->
    Online = erlang:system_info(schedulers_online),
    erlang:system_flag(schedulers_online, 1),
    latency(Prefix ++ ".csv"),
    erlang:system_flag(schedulers_online, min(2, Online)),
    scaling_table(),
    slicing_table(),
    halt(0).

%% @doc The latency table alone (run with `erl +S 1').
-spec main() -> no_return().
main() ->
    latency(filename:join(results_dir(), "latency.csv")),
    halt(0).

latency(Csv) ->
    Seconds = seconds(),
    Rounds = rounds(),
    io:format("~n== Scheduler latency probe: ~b normal scheduler(s), ~.1f s per row in ~b "
              "interleaved rounds, b64simd kernel ~s~n",
              [erlang:system_info(schedulers_online), Seconds, Rounds, b64simd:kernel()]),
    {TimesliceNs, UnchargedNs, Rates} = b64simd_nif:charges(),
    io:format("charges: a timeslice per ~B ns of work, none under ~B ns; ps per byte: ~0p~n",
              [TimesliceNs, UnchargedNs, Rates]),
    Header = io_lib:format("~-22s ~-7s ~8s ~9s ~9s ~13s ~9s ~11s ~8s~n",
                           [library, op, size, "p50 ms", "p99 ms", "p99 rounds", "max ms",
                            "MiB/s", "steal ms"]),
    io:format("~s", [Header]),
    Rows = lists:append([size_rows(Size, Seconds, Rounds) || Size <- sizes()]),
    write_csv(Csv, Rows).

%% Every workload of a size (and an idle row, the noise floor of that
%% moment) is probed in turn, round after round, and each row pools its
%% rounds: a burst of outside load on this shared machine then lands on
%% every library of the size instead of on one of them.
%% `LATENCY_ONLY=idle,b64simd,otp' keeps the rows whose label starts with one
%% of these (all by default).
size_rows(Size, Seconds, Rounds) ->
    Workloads = [W || {Lib, _, _} = W <- [{"idle", "-", fun() -> timer:sleep(10) end}
                                           | workloads(Size)],
                      b64simd_bench:selected("LATENCY_ONLY", Lib)],
    PerRound = [[probe(Fun, Seconds / Rounds) || {_Lib, _Op, Fun} <- Workloads]
                || _ <- lists:seq(1, Rounds)],
    Pooled = [pool(Probes) || Probes <- b64simd_bench:transpose(PerRound)],
    Rows = [{Lib, Op, Size, Result} || {{Lib, Op, _Fun}, Result} <- lists:zip(Workloads, Pooled)],
    [print_row(Lib, Op, Size, Result) || {Lib, Op, _, Result} <- Rows],
    Rows.

%% {Calls, P50, P99, Max} over all rounds' pings, the lowest and highest
%% p99 of a single round (how far the noise of the moment moves it), and the
%% steal time of all rounds.
pool(Probes) ->
    Calls = lists:sum([C || {C, _, _} <- Probes]),
    Delays = lists:append([D || {_, D, _} <- Probes]),
    RoundP99s = [percentile(D, 99) || {_, D, _} <- Probes],
    {Calls, percentile(Delays, 50), percentile(Delays, 99), lists:max([0 | Delays]),
     lists:min(RoundP99s), lists:max(RoundP99s), lists:sum([S || {_, _, S} <- Probes])}.

%% @doc Combined throughput of 1 and 2 workers (run with `+S 2').
-spec scaling() -> no_return().
scaling() ->
    scaling_table(),
    halt(0).

scaling_table() ->
    Seconds = seconds(),
    io:format("~n== Scaling: ~b schedulers, b64simd kernel ~s~n",
              [erlang:system_info(schedulers_online), b64simd:kernel()]),
    io:format("~-8s ~-12s ~-7s ~12s ~12s ~7s~n",
              [size, library, op, "1 worker", "2 workers", ratio]),
    Rounds = rounds(),
    %% One worker, then two, round after round: outside load hits both.
    [begin
         Pairs = [{workers(1, Fun, Seconds / Rounds), workers(2, Fun, Seconds / Rounds)}
                  || _ <- lists:seq(1, Rounds)],
         {Ones, Twos} = lists:unzip(Pairs),
         {One, Two} = {lists:sum(Ones), lists:sum(Twos)},
         io:format("~-8s ~-12s ~-7s ~12.1f ~12.1f ~7.2f~n",
                   [size_label(Size), Lib, Op, mib_per_s(One, Size, Seconds),
                    mib_per_s(Two, Size, Seconds), Two / max(One, 1)])
     end
     || Size <- [64 * 1024, 16 * ?MiB],
        {Lib, Op, Fun} <- workloads(Size),
        Lib =:= "b64simd" orelse Lib =:= "binary:copy"],
    ok.

%% @doc Throughput of sliced calls against the unsliced kernel, same NIF.
-spec slicing() -> no_return().
slicing() ->
    slicing_table(),
    halt(0).

slicing_table() ->
    io:format("~n== Slicing cost: b64simd kernel ~s~n", [b64simd:kernel()]),
    io:format("~-8s ~-7s ~14s ~14s ~7s~n", [size, op, "unsliced MiB/s", "sliced MiB/s", ratio]),
    %% Alternating rounds, best of each: the first big allocations of a VM
    %% page-fault (microseconds per page here), whichever variant runs first.
    [begin
         Rounds = [{best_mib_per_s(with_slice_bytes(1 bsl 50, Fun), Size),
                    best_mib_per_s(with_slice_bytes(0, Fun), Size)}
                   || _ <- lists:seq(1, 3)],
         {UnslicedRates, SlicedRates} = lists:unzip(Rounds),
         Unsliced = lists:max(UnslicedRates),
         Sliced = lists:max(SlicedRates),
         io:format("~-8s ~-7s ~14.1f ~14.1f ~7.2f~n",
                   [size_label(Size), Op, Unsliced, Sliced, Sliced / Unsliced])
     end
     || Size <- [16 * ?MiB, 64 * ?MiB],
        {"b64simd", Op, Fun} <- workloads(Size)],
    ok.

%%--------------------------------------------------------------------
%% Workloads
%%--------------------------------------------------------------------

sizes() ->
    case os:getenv("LATENCY_SIZES") of
        false -> [1 * ?MiB, 4 * ?MiB, 16 * ?MiB, 64 * ?MiB];
        Text -> [list_to_integer(S) * ?MiB || S <- string:lexemes(Text, ", ")]
    end.

seconds() ->
    case os:getenv("LATENCY_SECONDS") of
        false -> 3.0;
        Text -> float(list_to_integer(Text))
    end.

rounds() ->
    case os:getenv("LATENCY_ROUNDS") of
        false -> 3;
        Text -> list_to_integer(Text)
    end.

%% {Library, Operation, fun() -> _} for every library present.
workloads(Size) ->
    Data = payload(Size),
    Base64 = base64:encode(Data),
    [{"b64simd", "encode", fun() -> b64simd:encode(Data) end},
     {"b64simd", "decode", fun() -> b64simd:decode(Base64) end},
     {"b64simd dirty", "encode", fun() -> b64simd_nif:encode_dirty(Data, #{}) end},
     {"b64simd dirty", "decode", fun() -> b64simd_nif:decode_dirty(Base64, #{}) end},
     {"otp base64", "encode", fun() -> base64:encode(Data) end},
     {"otp base64", "decode", fun() -> base64:decode(Base64) end},
     {"binary:copy", "copy", fun() -> binary:copy(Data) end}]
    ++ peer_workloads(Data, Base64).

%% b64veryfast, when `B64VERYFAST_EBIN' points at its ebin directory.
peer_workloads(Data, Base64) ->
    case os:getenv("B64VERYFAST_EBIN") of
        false -> [];
        Ebin ->
            true = code:add_patha(Ebin),
            {module, b64veryfast} = code:ensure_loaded(b64veryfast),
            [{"b64veryfast", "encode", fun() -> b64veryfast:encode64(Data) end},
             {"b64veryfast", "decode", fun() -> b64veryfast:decode64(Base64) end}]
    end.

payload(Size) ->
    rand:seed(exsss, {1, 2, 3}),
    rand:bytes(Size).

%%--------------------------------------------------------------------
%% Probe
%%--------------------------------------------------------------------

%% Runs Fun in a loop in one process while another measures timer lateness:
%% {Calls, Delays in us, steal ms}.
probe(Fun, Seconds) ->
    garbage_collect(),
    StealBefore = steal_ms(),
    Self = self(),
    Worker = spawn_link(fun() -> worker(Fun, 0, Self) end),
    Pinger = spawn_link(fun() -> pinger(erlang:monotonic_time(microsecond), []) end),
    timer:sleep(round(Seconds * 1000)),
    Pinger ! {stop, Self},
    Delays = receive {delays, Ds} -> Ds end,
    Worker ! stop,
    Calls = receive {calls, N} -> N end,
    {Calls, Delays, steal_ms() - StealBefore}.

%% Steal time of all this VM's vCPUs so far, in ms: the eighth field of
%% /proc/stat's "cpu" line, in ticks of 10 ms (USER_HZ); 0 without it.
steal_ms() ->
    case file:read_file("/proc/stat") of
        {ok, <<"cpu ", Rest/binary>>} ->
            [Line | _] = binary:split(Rest, <<"\n">>),
            case binary:split(Line, <<" ">>, [global, trim_all]) of
                [_User, _Nice, _System, _Idle, _IoWait, _Irq, _SoftIrq, Steal | _] ->
                    binary_to_integer(Steal) * 10;
                _ ->
                    0
            end;
        _ ->
            0
    end.

worker(Fun, Calls, Parent) ->
    Fun(),
    receive
        stop -> Parent ! {calls, Calls + 1}
    after 0 ->
        worker(Fun, Calls + 1, Parent)
    end.

%% Each round asks for a 1 ms timeout; lateness is what exceeds 1 ms.
pinger(Start, Delays) ->
    receive
        {stop, Parent} -> Parent ! {delays, Delays}
    after 1 ->
        Now = erlang:monotonic_time(microsecond),
        pinger(Now, [max(0, Now - Start - 1000) | Delays])
    end.

percentile([], _) -> 0;
percentile(Values, P) ->
    Sorted = lists:sort(Values),
    lists:nth(max(1, round(length(Sorted) * P / 100)), Sorted).

workers(Count, Fun, Seconds) ->
    Self = self(),
    Pids = [spawn_link(fun() -> worker(Fun, 0, Self) end) || _ <- lists:seq(1, Count)],
    timer:sleep(round(Seconds * 1000)),
    [Pid ! stop || Pid <- Pids],
    lists:sum([receive {calls, N} -> N end || _ <- Pids]).

with_slice_bytes(Bytes, Fun) ->
    fun() -> b64simd_nif:set_slice_bytes(Bytes), Fun() end.

best_mib_per_s(Fun, Size) ->
    Times = [begin
                 garbage_collect(),
                 {Micros, _} = timer:tc(Fun),
                 Micros
             end || _ <- lists:seq(1, 7)],
    Size / ?MiB / (lists:min(Times) / 1.0e6).

mib_per_s(Calls, Size, Seconds) ->
    Calls * Size / ?MiB / Seconds.

%%--------------------------------------------------------------------
%% Output
%%--------------------------------------------------------------------

print_row(Lib, Op, Size, {Calls, P50, P99, Max, RoundMin, RoundMax, Steal}) ->
    Throughput = case Lib of
                     "idle" -> "-";
                     _ -> io_lib:format("~.1f", [mib_per_s(Calls, Size, seconds())])
                 end,
    Spread = io_lib:format("~.2f-~.2f", [RoundMin / 1000, RoundMax / 1000]),
    io:format("~-22s ~-7s ~8s ~9.2f ~9.2f ~13s ~9.2f ~11s ~8b~n",
              [Lib, Op, size_label(Size), P50 / 1000, P99 / 1000, Spread, Max / 1000,
               Throughput, Steal]).

size_label(0) -> "-";
size_label(Size) when Size >= ?MiB -> integer_to_list(Size div ?MiB) ++ " MiB";
size_label(Size) -> integer_to_list(Size div 1024) ++ " KiB".

write_csv(Path, Rows) ->
    ok = filelib:ensure_dir(Path),
    Lines = ["library,op,size_bytes,calls,p50_us,p99_us,max_us,round_p99_min_us,round_p99_max_us,"
             "steal_ms\n"
             | [io_lib:format("~s,~s,~b,~b,~b,~b,~b,~b,~b,~b~n",
                              [Lib, Op, Size, Calls, P50, P99, Max, RoundMin, RoundMax, Steal])
                || {Lib, Op, Size, {Calls, P50, P99, Max, RoundMin, RoundMax, Steal}} <- Rows]],
    ok = file:write_file(Path, Lines),
    io:format("written ~s~n", [Path]).

results_dir() ->
    case os:getenv("BENCH_RESULTS") of
        false -> "bench/results";
        Dir -> Dir
    end.
