%% @doc What loading the library costs: `code:ensure_loaded(b64simd_nif)'
%% (the module, its `on_load' and the NIF library) timed in fresh VMs, one
%% after another, as an escript or a test suite that starts pays it; beside
%% it, in the same VMs, what loading `b64simd_messages' costs, a module of
%% about the same size with no NIF, so that the library's own share shows.
-module(b64simd_load).

-export([main/1]).

-define(VMS, 20).
-define(TARGET_US, 1000).

-spec main([string()]) -> no_return().
main([LibEbin]) ->
    Erl = os:find_executable("erl"),
    Eval = "{Us, {module, b64simd_nif}} = timer:tc(code, ensure_loaded, [b64simd_nif]), "
           "{Plain, {module, _}} = timer:tc(code, ensure_loaded, [b64simd_messages]), "
           "io:format(\"~B ~B\", [Us, Plain]), halt().",
    Pairs = [load_us(Erl, LibEbin, Eval) || _ <- lists:seq(1, ?VMS)],
    Times = [Us || {Us, _} <- Pairs],
    Median = round(b64simd_bench:median(Times)),
    Plain = round(b64simd_bench:median([P || {_, P} <- Pairs])),
    io:format("~n== Load: code:ensure_loaded(b64simd_nif) in ~B fresh VMs, OTP ~s, kernel ~s~n"
              "  median ~B us, min ~B us, max ~B us; a module without NIF (b64simd_messages)"
              " median ~B us~n",
              [?VMS, erlang:system_info(otp_release), b64simd:kernel(), Median,
               lists:min(Times), lists:max(Times), Plain]),
    Verdict = case Median < ?TARGET_US of
                  true -> "MET";
                  false -> "MISSED"
              end,
    io:format("  target: load < ~B us (median): ~s~n", [?TARGET_US, Verdict]),
    halt(0).

load_us(Erl, LibEbin, Eval) ->
    Port = open_port({spawn_executable, Erl},
                     [{args, ["-noshell", "-pa", LibEbin, "-eval", Eval]}, exit_status,
                      binary, stderr_to_stdout]),
    Output = collect(Port, <<>>),
    try [binary_to_integer(Us) || Us <- string:lexemes(string:trim(Output), " ")] of
        [Us, Plain] -> {Us, Plain}
    catch error:badarg -> error({load_failed, Output})
    end.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, <<Acc/binary, Data/binary>>);
        {Port, {exit_status, 0}} -> Acc;
        {Port, {exit_status, Status}} -> error({load_failed, Status, Acc})
    end.
