%% @doc Per-call floor of small calls (the 32-byte target): how long a
%% call takes that does everything a Base64 NIF must do except encoding,
%% next to `binary:copy/1', b64simd and (when `B64VERYFAST_EBIN' is set)
%% b64veryfast. The floor NIF is `bench/c_src/b64simd_floor_nif.c', built
%% by `scripts/bench.sh'.
%%
%% Each case runs CALLS calls through a fun (in a fresh process), in rounds that take every case
%% in turn (outside load then spreads over all of them); the table shows the
%% median of the rounds, loop included, its ratio to `binary:copy/1' and its
%% ratio to the floor NIF (`inspect + new binary').
-module(b64simd_floor).

-export([main/1]).

-define(ROUNDS, 7).
-define(CALLS, 2_000_000).

-spec main([string()]) -> no_return().
main([NifDir]) ->
    ok = b64simd_floor_nif:load(NifDir),
    ok = b64simd_bench:calibrated(),
    Peer = peer_loaded(),
    io:format("~n== Per-call floor: ns per call (median of ~B interleaved rounds of ~B calls), "
              "loop included; over binary:copy/1, over the floor NIF (inspect + new binary)~n", [?ROUNDS, ?CALLS]),
    [report(Size, cases(Size, Peer)) || Size <- [16, 32, 64]],
    halt(0).

cases(Size, Peer) ->
    Raw = b64simd_bench:payload(Size),
    Base64 = base64:encode(Raw),
    [{"empty loop", fun(B) -> B end, Raw},
     {"binary:copy/1", fun binary:copy/1, Raw},
     {"C NIF: identity", fun b64simd_floor_nif:identity/1, Raw},
     {"C NIF: inspect + new binary", fun b64simd_floor_nif:inspect_and_allocate/1, Raw},
     {"b64simd:encode/1", fun b64simd:encode/1, Raw},
     {"b64simd:decode/1", fun b64simd:decode/1, Base64}]
    ++ [{"b64veryfast:encode64/1", fun b64veryfast:encode64/1, Raw} || Peer]
    ++ [{"b64veryfast:decode64/1", fun b64veryfast:decode64/1, Base64} || Peer].

report(Size, Cases) ->
    Rounds = [[ns_per_call(Fun, Input) || {_Name, Fun, Input} <- Cases]
              || _ <- lists:seq(1, ?ROUNDS)],
    Medians = [b64simd_bench:median(Column) || Column <- b64simd_bench:transpose(Rounds)],
    Copy = lists:nth(2, Medians),
    Floor = lists:nth(4, Medians),
    io:format("~B B payload~n", [Size]),
    Named = [{Name, Ns} || {{Name, _, _}, Ns} <- lists:zip(Cases, Medians)],
    [io:format("  ~-30s ~7.1f ns  ~5.2fx  ~5.2fx~n", [Name, Ns, Ns / Copy, Ns / Floor])
     || {Name, Ns} <- Named],
    [print_target(Size, Name, Ceiling, proplists:get_value(Name, Named) / Floor)
     || Size =:= 32, {Name, Ceiling} <- [{"b64simd:encode/1", 1.25}, {"b64simd:decode/1", 1.5}]],
    ok.

%% The small-call targets: at most this many times the floor NIF at 32 B.
print_target(Size, Name, Ceiling, Ratio) ->
    Verdict = case Ratio =< Ceiling of
                  true -> "MET";
                  false -> "MISSED"
              end,
    io:format("  target: ~s at ~B B <= ~.2fx the floor NIF: ~s (~.2fx)~n",
              [Name, Size, Ceiling, Verdict, Ratio]).

%% In a fresh process, as the throughput runs (b64simd_bench:timed/3).
ns_per_call(Fun, Input) ->
    b64simd_bench:timed(Fun, Input, ?CALLS) / ?CALLS.

peer_loaded() ->
    case os:getenv("B64VERYFAST_EBIN") of
        Dir when is_list(Dir), Dir =/= "" ->
            code:add_patha(filename:absname(Dir)) =:= true andalso
                code:ensure_loaded(b64veryfast) =:= {module, b64veryfast};
        _ ->
            false
    end.
