%% @doc Big calls (2 to 64 MiB) in the two loops users write, beside
%% b64veryfast (when `B64VERYFAST_EBIN' names its ebin), `binary:copy/1' of
%% the same bytes and b64simd's own stream (64 KiB pieces, each dropped as
%% made): `piled', a loop of calls whose results pile up until the process
%% collects, as a batch job's; `collected', each result dropped and
%% collected before the next call, as a server handling one upload at a
%% time. MiB/s of the raw payload and minor page faults per call, medians
%% of interleaved rounds, each series' run in a fresh process; then the
%% ratios the targets are written in. Run by `scripts/bench.sh'.
-module(b64simd_big).

-export([main/1]).

-define(MIB, 1048576).

%% Each run lasts at least this long, and at least 4 calls.
-define(RUN_NS, 150_000_000).
-define(PIECE, 65536).

%% @doc `main([ResultFile])': prints the tables and writes them to
%% `ResultFile'. `BIG_SIZES=8,16' (MiB) picks sizes.
-spec main([string()]) -> no_return().
main([File]) ->
    {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
    Sizes = [list_to_integer(S) * ?MIB || S <- string:lexemes(os:getenv("BIG_SIZES", "2,4,8,16,32,64"), ",")],
    Peer = peer(),
    Header = io_lib:format("~n== Big calls: kernel ~s, encoders ~0p, ~s~n", [b64simd:kernel(), b64simd:encoders(), peer_note(Peer)]),
    Rows = lists:append([size_rows(Size, Peer) || Size <- Sizes]),
    Text = [Header, table(Rows), ratios(Rows)],
    io:put_chars(Text),
    ok = file:write_file(File, Text),
    halt(0).

peer() ->
    case os:getenv("B64VERYFAST_EBIN") of
        Dir when is_list(Dir), Dir =/= "" ->
            true = code:add_patha(filename:absname(Dir)),
            {module, b64veryfast} = code:ensure_loaded(b64veryfast),
            b64veryfast;
        _ ->
            none
    end.

peer_note(none) -> "b64veryfast not measured (set B64VERYFAST_EBIN)";
peer_note(Module) -> io_lib:format("b64veryfast from ~s", [code:which(Module)]).

%% The series of one size: each library's encode and decode, the stream's,
%% and the copy.
series(Peer) ->
    Ours = [{b64simd, encode, fun b64simd:encode/1}, {b64simd, decode, fun b64simd:decode/1},
            {stream, encode, fun stream_encode/1}, {stream, decode, fun stream_decode/1},
            {copy, copy, fun binary:copy/1}],
    case Peer of
        none -> Ours;
        Module -> Ours ++ [{b64veryfast, encode, fun Module:encode64/1},
                           {b64veryfast, decode, fun Module:decode64/1}]
    end.

stream_encode(Data) -> pieces(Data, b64simd_stream:encode_init(#{}), fun b64simd_stream:encode/2, fun b64simd_stream:encode_final/1).
stream_decode(Text) -> pieces(Text, b64simd_stream:decode_init(#{}), fun b64simd_stream:decode/2, fun b64simd_stream:decode_final/1).

pieces(<<Piece:?PIECE/binary, Rest/binary>>, State, Step, Final) ->
    {_, Next} = Step(State, Piece),
    pieces(Rest, Next, Step, Final);
pieces(Rest, State, Step, Final) ->
    {_, Next} = Step(State, Rest),
    Final(Next).

size_rows(Size, Peer) ->
    rand:seed(exsss, {Size, 16#b64, 16#b16}),
    Data = rand:bytes(Size),
    Text = base64:encode(Data),
    Cases = [{Library, Op, Pattern, Fun, input(Op, Data, Text)}
             || Pattern <- [piled, collected], {Library, Op, Fun} <- series(Peer)],
    [check(Library, Op, Fun, Input, Data, Text) || {Library, Op, _, Fun, Input} <- Cases],
    Calls = max(4, ?RUN_NS div max(1, Size div 8)),
    Runs = [[{Case, run(Fun, Input, Pattern, Calls, Size)} || {_, _, Pattern, Fun, Input} = Case <- Cases]
            || _ <- lists:seq(1, rounds())],
    [{Size, Library, Op, Pattern, median([Rate || {C, {Rate, _}} <- lists:append(Runs), C =:= Case]),
      median([Faults || {C, {_, Faults}} <- lists:append(Runs), C =:= Case])}
     || {Library, Op, Pattern, _, _} = Case <- Cases].

%% Interleaved rounds (`BIG_ROUNDS', default 5).
rounds() -> list_to_integer(os:getenv("BIG_ROUNDS", "5")).

input(decode, _Data, Text) -> Text;
input(_, Data, _Text) -> Data.

%% Every library's result against OTP's before anything is timed (the
%% stream's pieces are dropped: its own suites check them).
check(stream, _, _, _, _, _) -> ok;
check(_, copy, _, _, _, _) -> ok;
check(_, encode, Fun, Data, _, Text) -> Text = Fun(Data), ok;
check(_, decode, Fun, Text, Data, _) -> Data = Fun(Text), ok.

%% MiB/s of `Raw' bytes a call and minor faults per call of `Calls' calls
%% in a fresh process.
run(Fun, Input, Pattern, Calls, Raw) ->
    Parent = self(),
    {Pid, Ref} = spawn_monitor(fun() ->
                                       Faults0 = minor_faults(),
                                       T0 = erlang:monotonic_time(nanosecond),
                                       loop(Fun, Input, Pattern, Calls),
                                       T1 = erlang:monotonic_time(nanosecond),
                                       Parent ! {self(), T1 - T0, minor_faults() - Faults0}
                               end),
    receive
        {Pid, Ns, Faults} ->
            receive {'DOWN', Ref, process, Pid, _} -> ok end,
            {Raw * Calls / ?MIB / (Ns / 1.0e9), Faults / Calls}
    end.

loop(_Fun, _Input, _Pattern, 0) ->
    ok;
loop(Fun, Input, piled, N) ->
    _ = Fun(Input),
    loop(Fun, Input, piled, N - 1);
loop(Fun, Input, collected, N) ->
    _ = Fun(Input),
    true = erlang:garbage_collect(),
    loop(Fun, Input, collected, N - 1).

%% The process's minor page faults (Linux; 0 elsewhere).
minor_faults() ->
    case file:read_file("/proc/self/stat") of
        {ok, Stat} ->
            [_, AfterName] = string:split(Stat, ") "),
            binary_to_integer(lists:nth(8, string:lexemes(AfterName, " ")));
        {error, _} ->
            0
    end.

median(Values) ->
    lists:nth((length(Values) + 1) div 2, lists:sort(Values)).

table(Rows) ->
    [io_lib:format("~-8s ~-10s ~-12s ~-7s ~10s ~12s~n",
                   [size, pattern, library, op, "MiB/s", "faults/call"]) |
     [io_lib:format("~-8s ~-10w ~-12w ~-7w ~10.1f ~12.1f~n",
                    [mib(Size), Pattern, Library, Op, Rate, Faults])
      || {Size, Library, Op, Pattern, Rate, Faults} <- Rows]].

%% b64simd against b64veryfast, the copy and its own stream, per size,
%% pattern and operation (raw MiB/s: the copy moves the raw bytes, so a
%% decode reads 4/3 as much and an encode writes 4/3 as much).
ratios(Rows) ->
    Rate = fun(Size, Library, Op, Pattern) ->
                   case [R || {S, L, O, P, R, _} <- Rows, {S, L, O, P} =:= {Size, Library, Op, Pattern}] of
                       [R] -> R;
                       [] -> undefined
                   end
           end,
    Faults = fun(Size, Library, Op, Pattern) ->
                     hd([F || {S, L, O, P, _, F} <- Rows, {S, L, O, P} =:= {Size, Library, Op, Pattern}])
             end,
    Keys = lists:usort([{Size, Pattern, Op} || {Size, b64simd, Op, Pattern, _, _} <- Rows]),
    ["\nb64simd over: b64veryfast, binary:copy/1, b64simd_stream; minor faults per call, b64simd / b64veryfast\n",
     io_lib:format("~-8s ~-10s ~-7s ~12s ~8s ~8s ~16s~n", [size, pattern, op, b64veryfast, copy, stream, faults]) |
     [begin
          Ours = Rate(Size, b64simd, Op, Pattern),
          Ratio = fun(undefined) -> "-"; (Other) -> io_lib:format("~.2f", [Ours / Other]) end,
          PeerFaults = case Rate(Size, b64veryfast, Op, Pattern) of
                           undefined -> "-";
                           _ -> io_lib:format("~.1f / ~.1f", [Faults(Size, b64simd, Op, Pattern),
                                                               Faults(Size, b64veryfast, Op, Pattern)])
                       end,
          io_lib:format("~-8s ~-10w ~-7w ~12s ~8s ~8s ~16s~n",
                        [mib(Size), Pattern, Op, Ratio(Rate(Size, b64veryfast, Op, Pattern)),
                         Ratio(Rate(Size, copy, copy, Pattern)), Ratio(Rate(Size, stream, Op, Pattern)),
                         PeerFaults])
      end
      || {Size, Pattern, Op} <- Keys]].

mib(Size) -> integer_to_list(Size div ?MIB) ++ " MiB".
