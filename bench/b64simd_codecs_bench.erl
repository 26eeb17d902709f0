%% @doc Base16 and Base32 against what OTP has: `b64simd_hex:encode_hex/1'
%% and `decode_hex/1' against OTP's `binary:encode_hex/1' and
%% `binary:decode_hex/1', and `b64simd_base32' alone (OTP has no Base32;
%% `bench/b64simd_codecs_bench.exs' runs Elixir's `Base' beside it), at 16 B,
%% 32 B (a SHA-256), 4 KiB, 1 MiB and 16 MiB of data (decode: its
%% encoding, 64 characters for 32 bytes). Every output is checked against
%% OTP's first.
%%
%% Each row is timed in 7 rounds, b64simd and OTP in turn (outside load then
%% spreads over both); a round is a loop of calls that lasts about 20 ms (at
%% least one call), after a garbage collection; the medians are printed and
%% their ratio, less the median time of the same loop calling a function
%% that does nothing (as bench/b64simd_elixir_bench.exs does). The hex rows
%% with a target (5x at 32 bytes, 20x from 4 KiB) end with MET or MISSED.
%% Run by `scripts/bench.sh' (`make bench') and `scripts/bench_platforms.sh'
%% (`make bench-otp'); alone:
%%
%%   erl -noshell -pa _build/default/lib/b64simd/ebin -pa _build/bench/ebin \
%%       -run b64simd_codecs_bench main
-module(b64simd_codecs_bench).

-export([main/0]).

-define(ROUNDS, 7).
-define(ROUND_NS, 20_000_000).
-define(SIZES, [16, 32, 4096, 1 bsl 20, 16 bsl 20]).

-spec main() -> no_return().
main() ->
    _ = rand:seed(exsss, {29, 16, 32}),
    {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
    Nothing = fun(Input) -> Input end,
    Loop = median([ns_per_call(Nothing, <<>>, calls(Nothing, <<>>)) || _ <- lists:seq(1, ?ROUNDS)]),
    put(loop_ns, Loop),
    io:format("~n== Base16 and Base32, OTP ~s, simdutf kernel ~s; ns per call, median of ~B "
              "interleaved rounds, a loop of ~.1f ns subtracted; x = OTP over b64simd~n",
              [erlang:system_info(otp_release), b64simd:kernel(), ?ROUNDS, Loop]),
    io:format("  ~-22s ~9s ~14s ~14s ~9s ~13s~n",
              ["call", "bytes", "b64simd ns", "OTP ns", "x", "b64simd MiB/s"]),
    [row(Size) || Size <- ?SIZES],
    halt(0).

row(Size) ->
    Data = rand:bytes(Size),
    Hex = binary:encode_hex(Data),
    Base32 = b64simd_base32:encode(Data),
    check(hex_encode, b64simd_hex:encode_hex(Data), Hex),
    check(hex_decode, b64simd_hex:decode_hex(Hex), Data),
    check(hex_decode_lower, b64simd_hex:decode_hex(string:lowercase(Hex)), Data),
    check(base32_decode, b64simd_base32:decode(Base32), Data),
    Rows = [{"encode_hex/1", Size, fun b64simd_hex:encode_hex/1, fun binary:encode_hex/1, Data},
            {"decode_hex/1", Size, fun b64simd_hex:decode_hex/1, fun binary:decode_hex/1, Hex},
            {"base32 encode/1", Size, fun b64simd_base32:encode/1, none, Data},
            {"base32 decode/1", Size, fun b64simd_base32:decode/1, none, Base32}],
    [print(Row, measure(Ours, Theirs, Input)) || {_, _, Ours, Theirs, Input} = Row <- Rows].

check(_What, Same, Same) -> ok;
check(What, _Ours, _Expected) ->
    io:format("b64simd_codecs_bench: ~p differs from OTP's result~n", [What]),
    halt(1).

%% Medians of interleaved rounds: `{OursNs, TheirsNs | none}'.
measure(Ours, Theirs, Input) ->
    Calls = {calls(Ours, Input), calls(Theirs, Input)},
    Rounds = [{ns_per_call(Ours, Input, element(1, Calls)),
               ns_per_call(Theirs, Input, element(2, Calls))}
              || _ <- lists:seq(1, ?ROUNDS)],
    {median([O || {O, _} <- Rounds]), median([T || {_, T} <- Rounds])}.

%% Calls a round makes: enough for ?ROUND_NS, from one timed call.
calls(none, _Input) ->
    0;
calls(Fun, Input) ->
    _ = Fun(Input),
    One = max(1, ns_per_call(Fun, Input, 1)),
    max(1, round(?ROUND_NS / One)).

ns_per_call(none, _Input, _Calls) ->
    none;
ns_per_call(Fun, Input, Calls) ->
    erlang:garbage_collect(),
    Start = erlang:monotonic_time(nanosecond),
    loop(Fun, Input, Calls),
    (erlang:monotonic_time(nanosecond) - Start) / Calls - get_loop_ns().

%% The empty loop's time per call, once measured (0 while it is measured).
get_loop_ns() ->
    case get(loop_ns) of
        undefined -> 0;
        Ns -> Ns
    end.

loop(_Fun, _Input, 0) -> ok;
loop(Fun, Input, N) -> _ = Fun(Input), loop(Fun, Input, N - 1).

median(List) ->
    case lists:member(none, List) of
        true -> none;
        false -> lists:nth(length(List) div 2 + 1, lists:sort(List))
    end.

print({Name, Size, _, _, _}, {Ours, Theirs}) ->
    MiBs = Size / Ours * 1.0e9 / (1 bsl 20),
    case Theirs of
        none ->
            io:format("  ~-22s ~9B ~14.1f ~14s ~9s ~13B~n", [Name, Size, Ours, "-", "-", round(MiBs)]);
        _ ->
            io:format("  ~-22s ~9B ~14.1f ~14.1f ~8.1fx ~13B~s~n",
                      [Name, Size, Ours, Theirs, Theirs / Ours, round(MiBs),
                       verdict(target(Size), Theirs / Ours)])
    end.

%% The hex targets, OTP's time over ours: 5x for a SHA-256 (32 bytes, 64
%% digits), 20x from 4 KiB up.
target(32) -> 5;
target(Size) when Size >= 4096 -> 20;
target(_) -> none.

verdict(none, _Ratio) -> "";
verdict(Target, Ratio) when Ratio >= Target -> io_lib:format("  MET (target ~Bx)", [Target]);
verdict(Target, _Ratio) -> io_lib:format("  MISSED (target ~Bx)", [Target]).
