%% @doc Throughput benchmark of `b64simd' against OTP `base64', `binary:copy/1'
%% (the memory-copy ceiling) and other Base64 NIFs found at run time.
%% Run by `scripts/bench.sh' (`make bench'); bench/README.md has the method.
%%
%% Every figure is end to end from Erlang (call, NIF boundary, allocation,
%% codec) and counted on the raw, unencoded payload size for encode and decode
%% alike, as b64veryfast's benchmark does, so numbers compare across projects.
-module(b64simd_bench).

-export([main/1]).
%% Shared with b64simd_small and b64simd_latency (same ebin).
-export([payload/1, timed/3, median/1, transpose/1, selected/2]).

-define(RUNS, 5).
%% Each measured run lasts at least this long (timer and scheduler noise
%% become negligible); calibration aims a little higher.
-define(MIN_RUN_NS, 30_000_000).
-define(TARGET_RUN_NS, 40_000_000).
-define(CALIBRATE_NS, 10_000_000).
%% The table shows ns per call up to this payload size.
-define(SMALL_SIZE, 1024).
%% MIME (RFC 2045): 76 characters a line, CRLF between lines.
-define(MIME_LINE, 76).
-define(STREAM_CHUNK, 65536).
-define(SEGMENT, 1460).
-define(MIB, 1_048_576).

-type op() :: encode | decode | encode_url | decode_url | encode_wrapped
            | decode_wrapped | is_valid | copy.

-record(series, {
    library :: string(),              % table column and CSV label
    op :: op(),
    role :: ours | peer | copy,
    call :: fun((binary()) -> term()),
    %% What the check runs instead of `call', when that differs.
    check_call :: fun((binary()) -> term()) | undefined
}).

-record(run, {series :: #series{}, size :: pos_integer(), index :: pos_integer(),
              iterations :: pos_integer(), elapsed_ns :: pos_integer()}).

%%====================================================================
%% Entry point
%%====================================================================

%% @doc Runs the benchmark and halts the VM: status 0, or 1 when a b64simd
%% output differed from the oracle. `Prefix' names the result files
%% (`Prefix.csv', `Prefix-summary.csv', `Prefix.gp'); `PlotFile' is the SVG
%% that `gnuplot Prefix.gp' draws. Environment: `FULL=1' (133 sizes instead
%% of 23), `SIZES=16,4096' (explicit sizes), `ONLY=b64simd,binary:copy'
%% (libraries whose label starts with one of these), `OPS=decode,encode_url'
%% (these operations only), `B64VERYFAST_EBIN',
%% `B64RS_EBIN', `B64FAST_EBIN' (peers' ebin directories).
-spec main([string()]) -> no_return().
main([Prefix, PlotFile]) ->
    ok = load_first(os:getenv("B64SIMD_LAYOUT_MODULES")),
    {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
    Status =
        try
            run(Prefix, PlotFile)
        catch
            Class:Reason:Stack ->
                io:format(standard_error, "b64simd_bench: ~p:~p~n~p~n", [Class, Reason, Stack]),
                2
        end,
    erlang:halt(Status);
main(_Args) ->
    io:format(standard_error, "usage: b64simd_bench main PREFIX PLOT_FILE~n", []),
    erlang:halt(2).

%% `scripts/bench_compare.sh' has each round load this many of OTP's own
%% modules first, so that the library's code lands elsewhere in the JIT's
%% memory each round: where it lands moved a 32-byte call by a tenth.
load_first(false) ->
    ok;
load_first(Count) ->
    Modules = lists:sort([list_to_atom(M) || {M, File, false} <- code:all_available(),
                                             is_list(File), lists:prefix(code:root_dir(), File)]),
    _ = [code:ensure_loaded(M) || M <- lists:sublist(Modules, list_to_integer(Count))],
    ok.

run(Prefix, PlotFile) ->
    Sizes = sizes(),
    {Series, Notes} = all_series(),
    print_header(Sizes, Series, Notes),
    {Runs, Failures} = measure_sizes(Sizes, Series),
    ok = filelib:ensure_dir(Prefix),
    ok = write_runs(Prefix ++ ".csv", Runs),
    Medians = medians(Runs),
    ok = write_medians(Prefix ++ "-summary.csv", Medians),
    print_tables(Sizes, Series, Medians, Failures),
    print_targets(Sizes, Medians),
    ok = write_gnuplot(Prefix ++ ".gp", PlotFile, Series, Medians),
    io:format("~nload average at the end: ~s~n", [load_average()]),
    io:format("files: ~s.csv (every run), ~s-summary.csv (medians), ~s.gp (plot)~n",
              [Prefix, Prefix, Prefix]),
    case [F || {#series{role = ours}, _, _} = F <- Failures] of
        [] -> 0;
        _ -> 1
    end.

%%====================================================================
%% Sizes and payloads
%%====================================================================

%% Log-spaced from 16 B to 64 MiB: one point per octave by default, six per
%% octave with FULL=1 (powers of two are always among them).
sizes() ->
    case os:getenv("SIZES") of
        Value when is_list(Value), Value =/= "" ->
            [list_to_integer(S) || S <- string:lexemes(Value, ", ")];
        _ ->
            PerOctave = case os:getenv("FULL") of "1" -> 6; _ -> 1 end,
            Steps = 22 * PerOctave,
            lists:usort([round(16 * math:pow(2, I / PerOctave)) || I <- lists:seq(0, Steps)])
    end.

%% The same bytes for a size whatever the size list, so runs compare.
payload(Size) ->
    rand:seed(exsss, {Size, 16#b64, 16#51d}),
    rand:bytes(Size).

%% Inputs by kind, and the oracle's answers, all from OTP `base64' or plain
%% binary operations: never from a library under test.
inputs(Size, Ops) ->
    Raw = payload(Size),
    Std = base64:encode(Raw),
    Url = case lists:member(encode_url, Ops) orelse lists:member(decode_url, Ops) of
              true -> to_urlsafe(Std);
              false -> undefined
          end,
    Wrapped = case lists:member(encode_wrapped, Ops) orelse lists:member(decode_wrapped, Ops) of
                  true -> wrap(Std, ?MIME_LINE);
                  false -> undefined
              end,
    #{raw => Raw, std => Std, url => Url, wrapped => Wrapped}.

%% RFC 4648 section 5, without padding.
to_urlsafe(Std) ->
    << <<(urlsafe_char(C))>> || <<C>> <= Std, C =/= $= >>.

urlsafe_char($+) -> $-;
urlsafe_char($/) -> $_;
urlsafe_char(C) -> C.

%% Breaks between lines only, never after the last one (the README's encode options).
wrap(Base64, Line) when byte_size(Base64) =< Line ->
    Base64;
wrap(Base64, Line) ->
    <<First:Line/binary, Rest/binary>> = Base64,
    iolist_to_binary([First | wrap_rest(Rest, Line)]).

wrap_rest(<<>>, _Line) ->
    [];
wrap_rest(Rest, Line) when byte_size(Rest) =< Line ->
    ["\r\n", Rest];
wrap_rest(Rest, Line) ->
    <<Chunk:Line/binary, More/binary>> = Rest,
    ["\r\n", Chunk | wrap_rest(More, Line)].

input_of(encode) -> raw;
input_of(encode_url) -> raw;
input_of(encode_wrapped) -> raw;
input_of(copy) -> raw;
input_of(decode) -> std;
input_of(is_valid) -> std;
input_of(decode_url) -> url;
input_of(decode_wrapped) -> wrapped.

expected(encode, Inputs) -> maps:get(std, Inputs);
expected(encode_url, Inputs) -> maps:get(url, Inputs);
expected(encode_wrapped, Inputs) -> maps:get(wrapped, Inputs);
expected(is_valid, _Inputs) -> true;
expected(_Decode, Inputs) -> maps:get(raw, Inputs).

%%====================================================================
%% What is measured
%%====================================================================

%% Every series present on this machine, and notes on what was skipped.
all_series() ->
    Optional = [peer_series(Env, Module, Library, Calls) || {Env, Module, Library, Calls} <- peers()],
    {Found, Notes} = lists:unzip(Optional),
    Extras = b64simd_extras(),
    All = b64simd_series() ++ Extras ++ otp_series() ++ lists:append(Found) ++
        [#series{library = "binary:copy", op = copy, role = copy, call = fun binary:copy/1}],
    {[S || S <- All, selected(S)], [N || N <- Notes, N =/= none]}.

b64simd_series() ->
    Url = #{mode => urlsafe, padding => false},
    [ours("b64simd", encode, fun b64simd:encode/1),
     ours("b64simd", decode, fun b64simd:decode/1),
     ours("b64simd", encode_url, fun(B) -> b64simd:encode(B, Url) end),
     ours("b64simd", decode_url, fun(B) -> b64simd:decode(B, Url) end),
     ours("b64simd", decode_wrapped, fun b64simd:decode/1)].

%% Wrapped encode, mime_decode/1, is_valid/1 and the stream.
b64simd_extras() ->
    Mime = #{line_length => ?MIME_LINE},
    Encoder = {fun b64simd_stream:encode_init/1, fun b64simd_stream:encode/2,
               fun b64simd_stream:encode_final/1},
    Decoder = {fun b64simd_stream:decode_init/1, fun b64simd_stream:decode/2,
               fun b64simd_stream:decode_final/1},
    [ours("b64simd", encode_wrapped, fun(B) -> b64simd:encode(B, Mime) end),
     ours("b64simd:mime_decode", decode_wrapped, fun b64simd:mime_decode/1),
     ours("b64simd", is_valid, fun b64simd:is_valid/1),
     stream_series(encode, ?STREAM_CHUNK, Encoder),
     stream_series(decode, ?STREAM_CHUNK, Decoder),
     %% One TCP segment's worth: what a socket hands over.
     stream_series(decode, ?SEGMENT, Decoder),
     stream_series(encode_wrapped, ?STREAM_CHUNK, Encoder),
     stream_series(decode_wrapped, ?STREAM_CHUNK, Decoder)].

ours(Library, Op, Call) ->
    #series{library = Library, op = Op, role = ours, call = Call}.

%% b64simd_stream as its module doc describes it, fed Size bytes at a
%% time. Timed, each piece is dropped once made, as a writer hands pieces on
%% to a file or socket: keeping them all made the ERTS allocator map fresh
%% memory for them (page faults), and the 16 MiB figure measured that rather
%% than the stream. The check keeps and joins them.
stream_series(Op, Size, {Init, Step, Final}) ->
    Options = case Op of
                  encode_wrapped -> #{line_length => ?MIME_LINE};
                  _ -> #{}
              end,
    Run = fun(Input, Keep) -> stream(Input, 0, Size, Init(Options), Step, Final, Keep, []) end,
    #series{library = stream_library(Size), op = Op, role = ours,
            call = fun(Input) -> Run(Input, false) end,
            check_call = fun(Input) -> iolist_to_binary(Run(Input, true)) end}.

stream_library(?STREAM_CHUNK) -> "b64simd_stream";
stream_library(Size) -> "b64simd_stream(" ++ integer_to_list(Size) ++ ")".

stream(Input, At, Size, State, Step, Final, Keep, Acc) when At < byte_size(Input) ->
    Chunk = binary:part(Input, At, min(Size, byte_size(Input) - At)),
    {Piece, Next} = Step(State, Chunk),
    stream(Input, At + byte_size(Chunk), Size, Next, Step, Final, Keep, kept(Keep, Piece, Acc));
stream(_Input, _At, _Size, State, _Step, Final, Keep, Acc) ->
    kept(Keep, Final(State), Acc).

kept(true, Piece, Acc) -> [Acc | Piece];
kept(false, _Piece, Acc) -> Acc.

otp_series() ->
    Std = [peer("otp-base64", encode, fun base64:encode/1),
           peer("otp-base64", decode, fun base64:decode/1),
           peer("otp-base64", decode_wrapped, fun base64:decode/1),
           peer("otp-base64:mime_decode", decode_wrapped, fun base64:mime_decode/1)],
    %% Options (and so urlsafe) arrived in OTP 26.
    Url = #{mode => urlsafe, padding => false},
    case erlang:function_exported(base64, encode, 2) of
        true ->
            Std ++ [peer("otp-base64", encode_url, fun(B) -> base64:encode(B, Url) end),
                    peer("otp-base64", decode_url, fun(B) -> base64:decode(B, Url) end)];
        false ->
            Std
    end.

peer(Library, Op, Call) ->
    #series{library = Library, op = Op, role = peer, call = Call}.

%% Other libraries: environment variable with their ebin directory, module,
%% label, and their functions for each operation (read from their sources).
%% b64veryfast's `_url' functions encode without padding; b64rs is urlsafe
%% without padding only.
peers() ->
    [{"B64VERYFAST_EBIN", b64veryfast, "b64veryfast",
      [{encode, encode64}, {decode, decode64}, {encode_url, encode64_url},
       {decode_url, decode64_url}]},
     {"B64RS_EBIN", b64rs, "b64rs", [{encode_url, encode}, {decode_url, decode}]},
     {"B64FAST_EBIN", b64fast, "b64fast", [{encode, encode64}, {decode, decode64}]}].

peer_series(Env, Module, Library, Calls) ->
    case os:getenv(Env) of
        Dir when is_list(Dir), Dir =/= "" ->
            case code:add_patha(filename:absname(Dir)) =:= true andalso
                code:ensure_loaded(Module) of
                {module, Module} ->
                    %% External funs, called exactly as b64simd's are.
                    {[peer(Library, Op, erlang:make_fun(Module, Function, 1))
                      || {Op, Function} <- Calls],
                     io_lib:format("~s: measured, ~s", [Library, code:which(Module)])};
                Why ->
                    {[], io_lib:format("~s: NOT measured, cannot load ~s from ~s=~s (~p)",
                                       [Library, Module, Env, Dir, Why])}
            end;
        _ ->
            {[], io_lib:format("~s: not measured (set ~s to its ebin directory)", [Library, Env])}
    end.

%% A series is measured if its library is in `ONLY' and its operation in
%% `OPS' (by whole name), so that one series can be timed alone.
selected(#series{library = Library, op = Op}) ->
    selected("ONLY", Library) andalso selected("OPS", atom_to_list(Op), fun erlang:'=:='/2).

%% Whether `Label' starts with one of the comma-separated prefixes in the
%% environment variable `Variable' (all labels when it is unset or empty).
selected(Variable, Label) ->
    selected(Variable, Label, fun lists:prefix/2).

selected(Variable, Label, Matches) ->
    case os:getenv(Variable) of
        Listed when is_list(Listed), Listed =/= "" ->
            lists:any(fun(Item) -> Matches(Item, Label) end, string:lexemes(Listed, ", "));
        _ ->
            true
    end.

%%====================================================================
%% Measuring
%%====================================================================

measure_sizes(Sizes, Series) ->
    Total = length(Sizes) * length(Series),
    Ops = lists:usort([S#series.op || S <- Series]),
    {Runs, Failures, _Done} =
        lists:foldl(
          fun(Size, {RunsAcc, FailAcc, Done}) ->
                  progress(Done, Total, Size, "preparing inputs"),
                  Inputs = inputs(Size, Ops),
                  {R, F} = measure_size(Size, Inputs, Series, Done, Total),
                  {[R | RunsAcc], F ++ FailAcc, Done + length(Series)}
          end, {[], [], 0}, Sizes),
    clear_progress(),
    {lists:append(lists:reverse(Runs)), lists:reverse(Failures)}.

%% Check and calibrate every series of a size, then take the runs round
%% robin (run 1 of each series, then run 2, ...): on a shared machine a burst
%% of outside load then spreads over all libraries instead of hitting one.
measure_size(Size, Inputs, Series, Done, Total) ->
    {Ready, Failures, _} =
        lists:foldl(
          fun(S, {ReadyAcc, FailAcc, N}) ->
                  progress(N, Total, Size, S#series.library ++ " " ++ op_name(S#series.op)),
                  Input = maps:get(input_of(S#series.op), Inputs),
                  case check(S, Input, expected(S#series.op, Inputs)) of
                      ok ->
                          Iterations = calibrate(S#series.call, Input, 1),
                          {[{S, Input, Iterations} | ReadyAcc], FailAcc, N + 1};
                      {failed, Why} ->
                          io:format(standard_error, "~nCHECK FAILED: ~s ~s at ~B bytes: ~s~n",
                                    [S#series.library, S#series.op, Size, Why]),
                          {ReadyAcc, [{S, Size, Why} | FailAcc], N + 1}
                  end
          end, {[], [], Done}, Series),
    Runs = [begin
                progress(Done + length(Series) - 1, Total, Size,
                         io_lib:format("run ~B of ~B", [Index, ?RUNS])),
                [measure_run(S, Size, Input, Iterations, Index)
                 || {S, Input, Iterations} <- lists:reverse(Ready)]
            end || Index <- lists:seq(1, ?RUNS)],
    {lists:append(Runs), Failures}.

%% Outputs are compared with the oracle before anything is timed.
check(#series{call = Call, check_call = CheckCall}, Input, Expected) ->
    Checked = case CheckCall of undefined -> Call; _ -> CheckCall end,
    try Checked(Input) of
        Expected -> ok;
        Other when is_binary(Other), is_binary(Expected) ->
            {failed, io_lib:format("output differs from OTP base64 at byte ~B (~B bytes, expected ~B)",
                                   [binary:longest_common_prefix([Other, Expected]),
                                    byte_size(Other), byte_size(Expected)])};
        Other ->
            {failed, io_lib:format("returned ~P", [Other, 8])}
    catch
        Class:Reason ->
            {failed, io_lib:format("raised ~p:~P", [Class, Reason, 8])}
    end.

%% Doubling batches until one lasts CALIBRATE_NS also warms caches, the
%% allocator and the branch predictors up.
calibrate(Call, Input, N) ->
    erlang:garbage_collect(),
    Elapsed = timed(Call, Input, N),
    case Elapsed >= ?CALIBRATE_NS of
        true -> iterations_for(N, Elapsed);
        false -> calibrate(Call, Input, N * 2)
    end.

iterations_for(N, Elapsed) ->
    max(1, ceil(N * ?TARGET_RUN_NS / max(Elapsed, 1))).

measure_run(S = #series{call = Call}, Size, Input, Iterations, Index) ->
    erlang:garbage_collect(),
    Elapsed = timed(Call, Input, Iterations),
    case Elapsed < ?MIN_RUN_NS of
        true ->
            %% Faster than calibrated: run again, longer.
            measure_run(S, Size, Input, iterations_for(Iterations, Elapsed), Index);
        false ->
            #run{series = S, size = Size, index = Index, iterations = Iterations,
                 elapsed_ns = Elapsed}
    end.

%% In a fresh process each time, so every run starts from the same heap and
%% garbage-collection state: otherwise a run of small calls inherits a heap
%% size grown by the runs before it, and small-size figures scatter by 40%.
timed(Call, Input, N) ->
    {Pid, Ref} = spawn_monitor(
                   fun() ->
                           Start = erlang:monotonic_time(nanosecond),
                           loop(Call, Input, N),
                           exit({elapsed, erlang:monotonic_time(nanosecond) - Start})
                   end),
    receive
        {'DOWN', Ref, process, Pid, {elapsed, Elapsed}} -> Elapsed;
        {'DOWN', Ref, process, Pid, Reason} -> error({benchmark_run_failed, Reason})
    end.

loop(_Call, _Input, 0) ->
    ok;
loop(Call, Input, N) ->
    _ = Call(Input),
    loop(Call, Input, N - 1).

%% The cost of the harness's own loop and fun call, included in every
%% figure (binary:copy/1 pays it too): shown so small-size numbers can be
%% read against it.
loop_overhead_ns() ->
    Identity = fun(B) -> B end,
    Iterations = calibrate(Identity, <<>>, 1),
    Samples = [begin
                   erlang:garbage_collect(),
                   timed(Identity, <<>>, Iterations) / Iterations
               end || _ <- lists:seq(1, ?RUNS)],
    median(Samples).

%% One line rewritten in place on a terminal (BENCH_TTY=1, set by
%% scripts/bench.sh), a line per size otherwise (logs).
progress(Done, Total, Size, What) ->
    Line = lists:flatten(io_lib:format("[~B/~B] ~s ~s", [Done + 1, Total, format_size(Size), What])),
    case os:getenv("BENCH_TTY") of
        "1" -> io:format(standard_error, "\r~-79s", [lists:sublist(Line, 79)]);
        _ when What =:= "preparing inputs" -> io:format(standard_error, "~s~n", [Line]);
        _ -> ok
    end.

clear_progress() ->
    case os:getenv("BENCH_TTY") of
        "1" -> io:format(standard_error, "\r~80s\r", [""]);
        _ -> ok
    end.

%%====================================================================
%% Results
%%====================================================================

mib_per_s(#run{size = Size, iterations = N, elapsed_ns = Ns}) ->
    Size * N / (Ns / 1.0e9) / ?MIB.

ns_per_call(#run{iterations = N, elapsed_ns = Ns}) ->
    Ns / N.

write_runs(File, Runs) ->
    Rows = [io_lib:format("~s,~s,~B,~B,~B,~B,~.3f,~.3f~n",
                          [L, Op, Size, Index, N, Ns, mib_per_s(R), ns_per_call(R)])
            || R = #run{series = #series{library = L, op = Op}, size = Size, index = Index,
                        iterations = N, elapsed_ns = Ns} <- Runs],
    file:write_file(File, ["library,operation,size_bytes,run,iterations,elapsed_ns,"
                           "mib_per_s,ns_per_call\n" | Rows]).

%% #{{Library, Op, Size} => {MedianMiBs, MedianNsPerCall, MinMiBs, MaxMiBs}}
medians(Runs) ->
    Grouped = lists:foldl(
                fun(R = #run{series = #series{library = L, op = Op}, size = Size}, Acc) ->
                        maps:update_with({L, Op, Size}, fun(Rs) -> [R | Rs] end, [R], Acc)
                end, #{}, Runs),
    maps:map(fun(_Key, Rs) ->
                     Rates = [mib_per_s(R) || R <- Rs],
                     {median(Rates), median([ns_per_call(R) || R <- Rs]),
                      lists:min(Rates), lists:max(Rates)}
             end, Grouped).

median(Values) ->
    Sorted = lists:sort(Values),
    Len = length(Sorted),
    case Len rem 2 of
        1 -> lists:nth(Len div 2 + 1, Sorted);
        0 -> (lists:nth(Len div 2, Sorted) + lists:nth(Len div 2 + 1, Sorted)) / 2
    end.

write_medians(File, Medians) ->
    Rows = [io_lib:format("~s,~s,~B,~.3f,~.3f,~.3f,~.3f~n", [L, Op, Size, Rate, Ns, Min, Max])
            || {{L, Op, Size}, {Rate, Ns, Min, Max}} <- lists:sort(maps:to_list(Medians))],
    file:write_file(File, ["library,operation,size_bytes,median_mib_per_s,median_ns_per_call,"
                           "min_mib_per_s,max_mib_per_s\n" | Rows]).

%%====================================================================
%% Report on stdout
%%====================================================================

print_header(Sizes, Series, Notes) ->
    io:format("b64simd throughput benchmark, ~s~n", [calendar:system_time_to_rfc3339(
                                                        erlang:system_time(second),
                                                        [{offset, "Z"}])]),
    io:format("OTP ~s (erts ~s), ~B schedulers, CPU: ~s~n",
              [erlang:system_info(otp_release), erlang:system_info(version),
               erlang:system_info(schedulers_online), cpu_model()]),
    io:format("simdutf kernel: ~s; Base64 encoder: ~s (the slice sizes and call charges are "
              "in the latency probe's report)~n", [b64simd:kernel(), encoders()]),
    io:format("~B sizes from ~s to ~s, ~B series, ~B runs each lasting >= ~B ms, medians;~n"
              "MiB/s counted on the raw payload size for encode and decode~n",
              [length(Sizes), format_size(hd(Sizes)), format_size(lists:last(Sizes)),
               length(Series), ?RUNS, ?MIN_RUN_NS div 1000000]),
    io:format("harness loop overhead: ~.1f ns per call (included in every figure)~n",
              [loop_overhead_ns()]),
    io:format("load average at the start: ~s~n", [load_average()]),
    [io:format("note: ~s~n", [N]) || N <- Notes],
    ok.

cpu_model() ->
    case file:read_file("/proc/cpuinfo") of
        {ok, Info} ->
            case re:run(Info, "model name\\s*:\\s*([^\\n]*)", [{capture, all_but_first, list}]) of
                {match, [Model]} -> Model;
                nomatch -> "unknown"
            end;
        {error, _} ->
            "unknown"
    end.

load_average() ->
    case file:read_file("/proc/loadavg") of
        {ok, Load} -> lists:join(" ", lists:sublist(string:lexemes(binary_to_list(Load), " "), 3));
        {error, _} -> "unknown"
    end.

print_tables(Sizes, Series, Medians, Failures) ->
    Copy = [S || S = #series{role = copy} <- Series],
    [print_op(Op, Sizes, [S || S <- Series, S#series.op =:= Op], Copy, Medians, Failures)
     || Op <- [encode, decode, encode_url, decode_url, encode_wrapped, decode_wrapped, is_valid],
        lists:keymember(Op, #series.op, Series)],
    ok.

print_op(Op, Sizes, OpSeries, Copy, Medians, Failures) ->
    Columns = OpSeries ++ Copy,
    Ours = [S || S = #series{role = ours} <- OpSeries],
    Peers = [S || S = #series{role = peer} <- OpSeries],
    Value = fun(S, Size, Pick) ->
                    case maps:find({S#series.library, S#series.op, Size}, Medians) of
                        {ok, M} -> Pick(M);
                        error -> undefined
                    end
            end,
    Rate = fun(S, Size) -> Value(S, Size, fun(M) -> element(1, M) end) end,
    Cell = fun(S, Size, Text) ->
                   case lists:any(fun({F, Sz, _}) -> F =:= S andalso Sz =:= Size end, Failures) of
                       true -> "FAILED";
                       false -> Text
                   end
           end,
    RatioHeaders = lists:append([[short(S) ++ "/peer", short(S) ++ "/copy"] || S <- Ours]),
    Headers = ["size" | [S#series.library || S <- Columns]] ++ RatioHeaders,
    RateRows = [[format_size(Size) | [Cell(S, Size, format_rate(Rate(S, Size))) || S <- Columns]]
                ++ lists:append([[ratio(Rate(S, Size), best([Rate(P, Size) || P <- Peers])),
                                  ratio(Rate(S, Size), best([Rate(C, Size) || C <- Copy]))]
                                 || S <- Ours])
                || Size <- Sizes],
    io:format("~n~s: MiB/s (median); simd/peer = b64simd over the fastest other library, "
              "simd/copy = over binary:copy/1~n", [op_title(Op)]),
    print_table(Headers, RateRows),
    case [Size || Size <- Sizes, Size =< ?SMALL_SIZE] of
        [] ->
            ok;
        Small ->
            io:format("~s: ns per call (median)~n", [op_title(Op)]),
            NsRows = [[format_size(Size) |
                       [Cell(S, Size, format_ns(Value(S, Size, fun(M) -> element(2, M) end)))
                        || S <- Columns]]
                      || Size <- Small],
            print_table(["size" | [S#series.library || S <- Columns]], NsRows)
    end.

%% The throughput targets, each a ratio of two medians of this run at each
%% size it covers, and whether it is met. A target whose series were not
%% measured (a peer not given, sizes not run) says so.
print_targets(Sizes, Medians) ->
    Rate = fun(Library, Op, Size) ->
                   case maps:find({Library, Op, Size}, Medians) of
                       {ok, {R, _, _, _}} -> R;
                       error -> undefined
                   end
           end,
    In = fun(From, To) -> [S || S <- Sizes, S >= From, S =< To] end,
    Ratios = fun(Over, Under, Sizes1) ->
                     [{Size, Rate(element(1, Over), element(2, Over), Size),
                       Rate(element(1, Under), element(2, Under), Size)} || Size <- Sizes1]
             end,
    Peer = fun(Op) -> {"b64veryfast", Op} end,
    Ours = fun(Op) -> {"b64simd", Op} end,
    Targets =
        [{"encode >= 1.00x b64veryfast, 32 B", 1.0,
          Ratios(Ours(encode), Peer(encode), In(32, 32))},
         {"encode >= 1.10x b64veryfast, 4 KiB-64 MiB", 1.1,
          Ratios(Ours(encode), Peer(encode), In(4096, 64 * ?MIB))},
         {"decode >= 1.00x b64veryfast, 4 KiB", 1.0,
          Ratios(Ours(decode), Peer(decode), In(4096, 4096))},
         {"decode >= 1.20x b64veryfast, 64 KiB-1 MiB", 1.2,
          Ratios(Ours(decode), Peer(decode), In(64 * 1024, ?MIB))},
         {"decode >= 1.00x b64veryfast, 2-64 MiB", 1.0,
          Ratios(Ours(decode), Peer(decode), In(2 * ?MIB, 64 * ?MIB))},
         {"encode >= 0.80x binary:copy/1, 64 KiB-1 MiB", 0.8,
          Ratios(Ours(encode), {"binary:copy", copy}, In(64 * 1024, ?MIB))},
         {"urlsafe encode >= 0.95x standard, 4 KiB and up", 0.95,
          Ratios(Ours(encode_url), Ours(encode), In(4096, 64 * ?MIB))},
         {"urlsafe decode >= 1.00x standard, every size", 1.0,
          Ratios(Ours(decode_url), Ours(decode), Sizes)},
         {"MIME-wrapped encode >= 0.70x plain encode, 4 KiB and up", 0.7,
          Ratios(Ours(encode_wrapped), Ours(encode), In(4096, 64 * ?MIB))}],
    io:format("~nTargets (ratios of this run's medians; MET or MISSED at each size):~n"),
    [print_target(Name, Floor, Points) || {Name, Floor, Points} <- Targets],
    ok.

print_target(Name, _Floor, []) ->
    io:format("  ~s: no size of this run is in its range~n", [Name]);
print_target(Name, Floor, Points) ->
    Measured = [{Size, Ours / Theirs} || {Size, Ours, Theirs} <- Points,
                                         is_number(Ours), is_number(Theirs)],
    case Measured of
        [] ->
            io:format("  ~s: not measured (a series is missing)~n", [Name]);
        _ ->
            Missed = [Size || {Size, R} <- Measured, R < Floor],
            Verdict = case Missed of
                          [] -> "MET";
                          _ -> io_lib:format("MISSED at ~s", [lists:join(", ", [format_size(S)
                                                                          || S <- Missed])])
                      end,
            io:format("  ~s: ~s~n    ~s~n",
                      [Name, Verdict,
                       lists:join("  ", [io_lib:format("~s ~.2fx", [format_size(S), R])
                                         || {S, R} <- Measured])])
    end.

%% Which Base64 encoders the library runs, in words: a build from before
%% `b64simd:encoders/0' (scripts/bench_compare.sh measures old builds too)
%% ran simdutf's.
encoders() ->
    {module, b64simd} = code:ensure_loaded(b64simd),
    case erlang:function_exported(b64simd, encoders, 0) of
        true ->
            #{calls := Calls, big_calls := BigCalls, big_call_bytes := BigBytes} =
                b64simd:encoders(),
            io_lib:format("~s, ~s from ~s", [Calls, BigCalls, format_size(BigBytes)]);
        false ->
            "simdutf"
    end.

%% Column label prefix for a ratio: "b64simd" -> "simd", "b64simd:mime_decode" -> "mime".
short(#series{library = "b64simd"}) -> "simd";
short(#series{library = "b64simd:" ++ Function}) -> lists:sublist(Function, 4);
short(#series{library = "b64simd_stream"}) -> "stream";
short(#series{library = "b64simd_stream(" ++ Size}) -> "stream" ++ lists:droplast(Size);
short(#series{library = Library}) -> Library.

print_table(Headers, Rows) ->
    Widths = [lists:max([string:length(C) || C <- Column])
              || Column <- transpose([Headers | Rows])],
    Line = fun(Cells) ->
                   [First | Rest] = lists:zip(Widths, Cells),
                   io_lib:format("~s", [string:pad(element(2, First), element(1, First))])
                       ++ [["  ", string:pad(C, W, leading)] || {W, C} <- Rest]
           end,
    io:format("~s~n", [Line(Headers)]),
    [io:format("~s~n", [Line(Row)]) || Row <- Rows],
    ok.

transpose([[] | _]) -> [];
transpose(Rows) -> [[hd(R) || R <- Rows] | transpose([tl(R) || R <- Rows])].

best(Values) ->
    case [V || V <- Values, V =/= undefined] of
        [] -> undefined;
        Present -> lists:max(Present)
    end.

ratio(undefined, _) -> "-";
ratio(_, undefined) -> "-";
ratio(A, B) -> io_lib:format("~.2fx", [A / B]).

format_rate(undefined) -> "-";
format_rate(Rate) -> thousands(round(Rate)).

format_ns(undefined) -> "-";
format_ns(Ns) when Ns < 100 -> io_lib:format("~.1f", [Ns]);
format_ns(Ns) -> thousands(round(Ns)).

thousands(N) ->
    Digits = integer_to_list(N),
    Lead = length(Digits) rem 3,
    {Head, Tail} = lists:split(Lead, Digits),
    Groups = [G || G <- [Head | chunks3(Tail)], G =/= []],
    lists:flatten(lists:join(",", Groups)).

chunks3([]) -> [];
chunks3([A, B, C | Rest]) -> [[A, B, C] | chunks3(Rest)].

format_size(Size) when Size < 1024 -> integer_to_list(Size) ++ " B";
format_size(Size) when Size < ?MIB -> scaled(Size / 1024, "KiB");
format_size(Size) -> scaled(Size / ?MIB, "MiB").

scaled(X, Unit) when X == trunc(X) -> integer_to_list(trunc(X)) ++ " " ++ Unit;
scaled(X, Unit) when X < 10 -> io_lib:format("~.2f ~s", [X, Unit]);
scaled(X, Unit) when X < 100 -> io_lib:format("~.1f ~s", [X, Unit]);
scaled(X, Unit) -> io_lib:format("~B ~s", [round(X), Unit]).

op_name(encode) -> "encode";
op_name(decode) -> "decode";
op_name(encode_url) -> "urlsafe encode";
op_name(decode_url) -> "urlsafe decode";
op_name(encode_wrapped) -> "wrapped encode";
op_name(decode_wrapped) -> "wrapped decode";
op_name(is_valid) -> "is_valid";
op_name(copy) -> "copy".

op_title(encode) -> "Encode, standard alphabet, padded";
op_title(decode) -> "Decode, standard alphabet, padded";
op_title(encode_url) -> "Encode, urlsafe alphabet, no padding";
op_title(decode_url) -> "Decode, urlsafe alphabet, no padding";
op_title(encode_wrapped) -> "Encode wrapped as MIME (76 characters, CRLF)";
op_title(decode_wrapped) -> "Decode of MIME-wrapped input (76 characters, CRLF)";
op_title(is_valid) -> "Validate standard Base64 (no output)".

%%====================================================================
%% Plot: a self-contained gnuplot script, data inline
%%====================================================================

write_gnuplot(File, PlotFile, Series, Medians) ->
    Panels = [{"Encode", [encode, encode_url, encode_wrapped]},
              {"Decode", [decode, decode_url, decode_wrapped, is_valid]}],
    Curves = [{Title, [S || S <- Series, lists:member(S#series.op, Ops) orelse
                                         S#series.role =:= copy]}
              || {Title, Ops} <- Panels],
    Indexed = lists:zip(lists:seq(1, length(lists:append([C || {_, C} <- Curves]))),
                        lists:append([C || {_, C} <- Curves])),
    Blocks = [data_block(I, S, Medians) || {I, S} <- Indexed],
    %% Points mark the measured sizes; with FULL=1 they would only clutter.
    Style = case length(lists:usort([Size || {_, _, Size} <- maps:keys(Medians)])) of
                Many when Many > 40 -> "lines";
                _ -> "linespoints pt 7 ps 0.5"
            end,
    {Plots, _} = lists:mapfoldl(
                   fun({Title, PanelSeries}, Next) ->
                           Numbered = lists:zip(lists:seq(Next, Next + length(PanelSeries) - 1),
                                                PanelSeries),
                           {panel(Title, Numbered, Style), Next + length(PanelSeries)}
                   end, 1, Curves),
    KeyRows = lists:max([length(C) || {_, C} <- Curves]),
    file:write_file(File, [gnuplot_preamble(PlotFile, KeyRows), Blocks, Plots,
                           "unset multiplot\n"]).

gnuplot_preamble(PlotFile, KeyRows) ->
    Title = io_lib:format("b64simd (~s kernel, encoder ~s) vs peers, OTP ~s, median of ~B runs",
                          [b64simd:kernel(), encoders(), erlang:system_info(otp_release), ?RUNS]),
    ["# Drawn by scripts/bench.sh: gnuplot FILE\n",
     io_lib:format("set terminal svg size 1400,~B dynamic noenhanced font 'Helvetica,13' "
                   "background rgb 'white'~n", [540 + 20 * KeyRows]),
     "set output '", PlotFile, "'\n",
     "set logscale xy\n",
     "set xrange [12:22000000]\n",
     "set yrange [10:100000]\n",
     "set xtics ('16 B' 16, '256 B' 256, '4 KiB' 4096, '64 KiB' 65536, '1 MiB' 1048576, "
     "'16 MiB' 16777216)\n",
     "set ytics ('10' 10, '100' 100, '1,000' 1000, '10,000' 10000, '100,000' 100000)\n",
     "set mytics 10\n",
     "set grid xtics ytics mytics lc rgb '#dddddd'\n",
     "set xlabel 'payload size (raw bytes)'\n",
     "set ylabel 'MiB/s of raw payload'\n",
     %% Keys below, with the same bottom margin in both panels so that
     %% their plot areas line up whatever the number of curves.
     io_lib:format("set key outside below center vertical maxrows ~B reverse Left samplen 4 "
                   "font ',11'~n", [KeyRows]),
     io_lib:format("set bmargin ~B~n", [KeyRows + 4]),
     "set multiplot layout 1,2 title '", Title, "'\n"].

data_block(I, #series{library = L, op = Op}, Medians) ->
    Points = lists:sort([{Size, Rate} || {{L1, Op1, Size}, {Rate, _, _, _}} <- maps:to_list(Medians),
                                         L1 =:= L, Op1 =:= Op]),
    [io_lib:format("$d~B << EOD~n", [I]),
     [io_lib:format("~B ~.3f~n", [Size, Rate]) || {Size, Rate} <- Points],
     "EOD\n"].

%% A panel with no series (OPS= chose none of its operations) is left out:
%% gnuplot refuses a plot of nothing.
panel(_Title, [], _Style) ->
    [];
panel(Title, Numbered, Style) ->
    Curves = [io_lib:format("$d~B using 1:2 with ~s lc rgb '~s' dt ~B lw ~s title '~s'",
                            [I, Style, colour(S#series.library), dash(S#series.op), width(S),
                             curve_title(S)])
              || {I, S} <- Numbered],
    ["set title '", Title, "'\nplot ", lists:join(", \\\n     ", Curves), "\n"].

colour("b64simd") -> "#1f5fbf";
colour("b64simd:mime_decode") -> "#17a2b8";
colour("b64simd_stream") -> "#7fb3ff";
colour("b64simd_stream(" ++ _) -> "#b3d1ff";
colour("b64veryfast") -> "#c0392b";
colour("otp-base64") -> "#2e8b57";
colour("otp-base64:mime_decode") -> "#9acd32";
colour("b64rs") -> "#e67e22";
colour("b64fast") -> "#8e44ad";
colour("binary:copy") -> "#555555";
colour(_) -> "#000000".

dash(Op) when Op =:= encode_url; Op =:= decode_url -> 2;
dash(Op) when Op =:= encode_wrapped; Op =:= decode_wrapped -> 3;
dash(is_valid) -> 4;
dash(_) -> 1.

width(#series{role = copy}) -> "3";
width(#series{role = ours}) -> "2.5";
width(_) -> "1.5".

curve_title(#series{role = copy}) -> "binary:copy/1 (memory-copy ceiling)";
curve_title(#series{library = L, op = Op}) ->
    L ++ case Op of
             encode -> " standard";
             decode -> " standard";
             encode_url -> " urlsafe";
             decode_url -> " urlsafe";
             encode_wrapped -> " MIME-wrapped";
             decode_wrapped -> " MIME-wrapped input";
             is_valid -> " is_valid"
         end.
