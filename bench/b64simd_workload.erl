%% @doc The erlfdb workload: what a key-value layer does (erlfdb's tuple-layer
%% benchmark encodes its keys this way), 10,000 random binaries of 32 to 512
%% bytes, each encoded, and each encoding decoded. The time per operation,
%% for b64simd, OTP's `base64' and, when `B64VERYFAST_EBIN' names its ebin,
%% b64veryfast; every library's output is checked against OTP's first.
%% `binary:copy/1' of the same inputs runs beside them as the reference: a
%% new binary of each input's size, what any call that returns one pays.
%%
%% The libraries take turns in 9 rounds (outside load then spreads over all
%% of them); each round runs the whole list in a fresh process, and the
%% median round is shown. Run by `scripts/bench.sh' (`make bench').
-module(b64simd_workload).

-export([main/0]).

-define(ROUNDS, 9).
-define(COUNT, 10_000).
-define(SEED, {18, 10_000, 512}).
%% b64simd's speed over b64veryfast's that encode and decode each aim at.
-define(TARGET, 1.1).

-spec main() -> no_return().
main() ->
    _ = rand:seed(exsss, ?SEED),
    ok = b64simd_bench:calibrated(),
    Raw = [rand:bytes(32 + rand:uniform(481) - 1) || _ <- lists:seq(1, ?COUNT)],
    Encoded = [base64:encode(Binary) || Binary <- Raw],
    Libraries = [{"b64simd", fun b64simd:encode/1, fun b64simd:decode/1},
                 {"otp-base64", fun base64:encode/1, fun base64:decode/1}]
        ++ peer(),
    [check(Library, Raw, Encoded) || Library <- Libraries],
    Reference = {"binary:copy", fun binary:copy/1, fun binary:copy/1},
    Cases = [{Name, Op, Fun, Input}
             || {Name, Encode, Decode} <- Libraries ++ [Reference],
                {Op, Fun, Input} <- [{encode, Encode, Raw}, {decode, Decode, Encoded}]],
    Rounds = [[ns_per_op(Fun, Input) || {_, _, Fun, Input} <- Cases]
              || _ <- lists:seq(1, ?ROUNDS)],
    Medians = [b64simd_bench:median(Column) || Column <- b64simd_bench:transpose(Rounds)],
    Results = lists:zip(Cases, Medians),
    io:format("~n== erlfdb workload: ~B binaries of 32-512 bytes (seed ~p), OTP ~s; "
              "ns per operation, median of ~B interleaved rounds; x = over b64simd;~n"
              "binary:copy = a copy of each input, the cost of making a new binary~n",
              [?COUNT, ?SEED, erlang:system_info(otp_release), ?ROUNDS]),
    [begin
         {_, Ours} = lists:keyfind({"b64simd", Op}, 1,
                                   [{{N, O}, Ns} || {{N, O, _, _}, Ns} <- Results]),
         [io:format("  ~-6s ~-12s ~8.1f ns  ~6.2fx~n", [Op, Name, Ns, Ns / Ours])
          || {{Name, O, _, _}, Ns} <- Results, O =:= Op]
     end || Op <- [encode, decode]],
    [print_target(Op, proplists:get_value({"b64simd", Op}, Times),
                  proplists:get_value({"b64veryfast", Op}, Times))
     || Times <- [[{{N, O}, Ns} || {{N, O, _, _}, Ns} <- Results]], Op <- [encode, decode]],
    halt(0).

%% The workload target: b64simd never slower than b64veryfast.
print_target(Op, _Ours, undefined) ->
    io:format("  target: ~s >= ~.2fx b64veryfast: not measured (no B64VERYFAST_EBIN)~n",
              [Op, ?TARGET]);
print_target(Op, Ours, Theirs) ->
    Verdict = case Theirs / Ours >= ?TARGET of
                  true -> "MET";
                  false -> "MISSED"
              end,
    io:format("  target: ~s >= ~.2fx b64veryfast: ~s (~.2fx)~n",
              [Op, ?TARGET, Verdict, Theirs / Ours]).

peer() ->
    case os:getenv("B64VERYFAST_EBIN") of
        Dir when is_list(Dir), Dir =/= "" ->
            true = code:add_patha(filename:absname(Dir)),
            {module, b64veryfast} = code:ensure_loaded(b64veryfast),
            [{"b64veryfast", fun b64veryfast:encode64/1, fun b64veryfast:decode64/1}];
        _ ->
            io:format("b64veryfast: not measured (set B64VERYFAST_EBIN to its ebin directory)~n"),
            []
    end.

check({Name, Encode, Decode}, Raw, Encoded) ->
    case {[Encode(B) || B <- Raw], [Decode(E) || E <- Encoded]} of
        {Encoded, Raw} -> ok;
        _ -> io:format("~s: output differs from OTP's~n", [Name]), halt(1)
    end.

%% The whole list once, in a fresh process (its heap sized for the run).
ns_per_op(Fun, Inputs) ->
    Self = self(),
    {Pid, Ref} = spawn_monitor(
                   fun() ->
                           {Us, ok} = timer:tc(fun() -> run(Fun, Inputs) end),
                           Self ! {self(), Us}
                   end),
    receive
        {Pid, Us} ->
            receive {'DOWN', Ref, process, Pid, _} -> ok end,
            Us * 1000 / ?COUNT
    end.

run(_Fun, []) ->
    ok;
run(Fun, [Input | Rest]) ->
    _ = Fun(Input),
    run(Fun, Rest).
