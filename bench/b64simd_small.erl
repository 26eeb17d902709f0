%% @doc Small calls, what real users make most: b64simd beside b64veryfast
%% (when `B64VERYFAST_EBIN' names its ebin) at each size from 32 B to
%% 4 KiB; the erlfdb workload (its tuple layer's benchmark encodes 10,000
%% binaries of 32-512 bytes, and here each encoding is decoded too), beside
%% OTP's `base64' and `binary:copy/1' of the same binaries (what making a
%% new binary of each costs); HyperBEAM's IDs (32 bytes as unpadded
%% urlsafe Base64); option maps against the calls without options on the
%% same input; and 32-byte calls against the floor NIF
%% (`bench/c_src/b64simd_floor_nif.c': it reads the input and returns a new
%% binary, encoding nothing, when its directory is given). Every output is
%% checked against OTP's `base64' first.
%%
%% Each case loops over its inputs (16 of its size, or the workload's
%% 10,000) in a fresh process, once untimed and then for about 2 ms in
%% whole passes (the workload's take longer); a round runs every case once,
%% in turn (each round in the other order, so that no case always follows
%% the same one), 31 rounds. The machines this runs on slow down for tens
%% of milliseconds at a time, every library alike, so a target compares
%% the two cases it names round by round (they run one after the other)
%% and takes the median of those ratios (or differences). It prints the
%% minimum and median ns per call of each case and every target, and
%% writes each case's rounds to a file. `scripts/bench.sh' (`make bench')
%% runs it in three fresh VMs, then `summary' over their files: a target is
%% met only if it is met in every VM.
-module(b64simd_small).

-export([main/1]).

-define(ROUNDS, 31).
-define(INPUTS, 16).
-define(CASE_NS, 2_000_000).
-define(SIZES, [32, 64, 128, 256, 512, 1024, 2048, 4096]).
-define(WORKLOAD, 10_000).
-define(WORKLOAD_SEED, {18, 10_000, 512}).
-define(URL, #{mode => urlsafe, padding => false}).

%% Each target: {Label, Kind, Ours, Theirs, Bound}: `speedup' means
%% Theirs / Ours >= Bound; `over' means Ours - Theirs =< Bound ns;
%% `floor' means Ours / Theirs =< Bound.
targets() ->
    [{"erlfdb workload, " ++ atom_to_list(Op) ++ ", over b64veryfast", speedup,
      {workload, Op, b64simd}, {workload, Op, b64veryfast}, 1.15} || Op <- [encode, decode]]
    ++ [{size_label(Op, Size), speedup, {Op, Size, b64simd}, {Op, Size, b64veryfast}, 1.05}
        || Size <- [32, 64, 128, 256, 512, 1024], Op <- [encode, decode]]
    ++ [{"ID encode, over encode64_url/1", speedup, {id, encode, b64simd},
         {id, encode, b64veryfast}, 1.15},
        {"ID decode, over decode64_url/1", speedup, {id, decode, b64simd},
         {id, decode, b64veryfast}, 1.15},
        {"ID decode, over decode64_url_unchecked/1", speedup, {id, decode, b64simd},
         {id, decode, b64veryfast_unchecked}, 1.0}]
    ++ [{"encode/2 " ++ map_label(Map) ++ " over encode/1, ns", over, {options, encode, Map},
         {options, encode, none}, 12.0} || Map <- maps()]
    ++ [{"decode/2 " ++ map_label(Map) ++ " over decode/1, ns", over, {options, decode, Map},
         {options, decode, none}, 12.0} || Map <- maps()]
    ++ [{"encode/1 of 32 B over the floor NIF", floor, {floor, encode}, {floor, nif}, 1.5},
        {"decode/1 of 44 characters over the floor NIF", floor, {floor, decode},
         {floor, nif}, 1.6}].

size_label(Op, Size) ->
    lists:flatten(io_lib:format("~s ~B B, over b64veryfast", [Op, Size])).

%% The option maps measured against the calls without options: none at
%% all, one key, and JWT's two.
maps() ->
    [#{}, #{mode => urlsafe}, ?URL].

map_label(Map) when map_size(Map) =:= 0 -> "#{}";
map_label(Map) ->
    Pairs = [io_lib:format("~p => ~p", [K, V]) || {K, V} <- lists:sort(maps:to_list(Map))],
    lists:flatten(["#{", lists:join(", ", Pairs), "}"]).

%%====================================================================
%% Entry points
%%====================================================================

-spec main([string()]) -> no_return().
main(["summary" | Files]) ->
    summary(Files),
    halt(0);
main([NifDir, File]) ->
    ok = b64simd_floor_nif:load(NifDir),
    measure(File, true);
main([File]) ->
    io:format("the floor NIF: not measured (no directory of b64simd_floor_nif.so given)~n"),
    measure(File, false).

measure(File, Floor) ->
    {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
    Peer = peer_loaded(),
    Cases = cases(Peer, Floor),
    [check(Case) || Case <- Cases],
    #{calls := Encoder} = b64simd:encoders(),
    io:format("~n== Small calls: ns per call (min and median of ~B interleaved rounds of "
              "about ~B ms a case), loop included; OTP ~s, kernel ~s, encoder ~s~n",
              [?ROUNDS, ?CASE_NS div 1_000_000, erlang:system_info(otp_release),
               b64simd:kernel(), Encoder]),
    Calls = [{Case, calls(Case)} || Case <- Cases],
    Rounds = [round_of(Calls, R) || R <- lists:seq(1, ?ROUNDS)],
    Columns = [{Key, Column}
               || {{Key, _, _}, Column} <- lists:zip(Cases, b64simd_bench:transpose(Rounds))],
    print_table([{Key, lists:min(Column), b64simd_bench:median(Column)}
                 || {Key, Column} <- Columns]),
    ByKey = maps:from_list(Columns),
    io:format("~n"),
    [print_target(Target, verdict(Target, ByKey)) || Target <- targets()],
    ok = file:write_file(File, [io_lib:format("~w.~n", [Column]) || Column <- Columns]),
    halt(0).

%%====================================================================
%% Cases
%%====================================================================

%% {Key, Fun, Inputs}; Key is {Op, Size, Library}, {workload, Op,
%% Library}, {id, Op, Library}, {options, Op, Map | none} or {floor, What}.
cases(Peer, Floor) ->
    workload_cases(Peer) ++ lists:append([size_cases(Size, Peer) || Size <- ?SIZES])
    ++ id_cases(Peer) ++ option_cases() ++ [Case || Floor, Case <- floor_cases()].

workload_cases(Peer) ->
    _ = rand:seed(exsss, ?WORKLOAD_SEED),
    Raw = [rand:bytes(32 + rand:uniform(481) - 1) || _ <- lists:seq(1, ?WORKLOAD)],
    Std = [base64:encode(B) || B <- Raw],
    [{{workload, encode, b64simd}, fun b64simd:encode/1, Raw}]
    ++ [{{workload, encode, b64veryfast}, fun b64veryfast:encode64/1, Raw} || Peer]
    ++ [{{workload, encode, 'otp-base64'}, fun base64:encode/1, Raw},
        {{workload, encode, 'binary:copy'}, fun binary:copy/1, Raw},
        {{workload, decode, b64simd}, fun b64simd:decode/1, Std}]
    ++ [{{workload, decode, b64veryfast}, fun b64veryfast:decode64/1, Std} || Peer]
    ++ [{{workload, decode, 'otp-base64'}, fun base64:decode/1, Std},
        {{workload, decode, 'binary:copy'}, fun binary:copy/1, Std}].

size_cases(Size, Peer) ->
    Raw = inputs(Size),
    Std = [base64:encode(B) || B <- Raw],
    [{{encode, Size, b64simd}, fun b64simd:encode/1, Raw}]
    ++ [{{encode, Size, b64veryfast}, fun b64veryfast:encode64/1, Raw} || Peer]
    ++ [{{decode, Size, b64simd}, fun b64simd:decode/1, Std}]
    ++ [{{decode, Size, b64veryfast}, fun b64veryfast:decode64/1, Std} || Peer].

id_cases(Peer) ->
    Raw = inputs(32),
    Url = [unpadded_urlsafe(B) || B <- Raw],
    [{{id, encode, b64simd}, fun(B) -> b64simd:encode(B, ?URL) end, Raw}]
    ++ [{{id, encode, b64veryfast}, fun b64veryfast:encode64_url/1, Raw} || Peer]
    ++ [{{id, decode, b64simd}, fun(B) -> b64simd:decode(B, ?URL) end, Url}]
    ++ [{{id, decode, b64veryfast}, fun b64veryfast:decode64_url/1, Url} || Peer]
    ++ [{{id, decode, b64veryfast_unchecked}, fun b64veryfast:decode64_url_unchecked/1, Url}
        || Peer].

%% The same 32 bytes (and their encoding, in the alphabet the map names)
%% with each map and without options.
option_cases() ->
    Raw = inputs(32),
    Text = fun(#{mode := urlsafe}) -> [padded_urlsafe(B) || B <- Raw];
              (_) -> [base64:encode(B) || B <- Raw]
           end,
    %% Closures on both sides, so that the fun call costs each case alike.
    [{{options, encode, none}, fun(B) -> b64simd:encode(B) end, Raw},
     {{options, decode, none}, fun(B) -> b64simd:decode(B) end, Text(#{})}]
    ++ [{{options, encode, Map}, fun(B) -> b64simd:encode(B, Map) end, Raw} || Map <- maps()]
    ++ [{{options, decode, Map}, fun(B) -> b64simd:decode(B, Map) end, Text(Map)}
        || Map <- maps()].

floor_cases() ->
    Raw = inputs(32),
    [{{floor, nif}, fun b64simd_floor_nif:inspect_and_allocate/1, Raw},
     {{floor, encode}, fun b64simd:encode/1, Raw},
     {{floor, decode}, fun b64simd:decode/1, [base64:encode(B) || B <- Raw]}].

%% ?INPUTS different binaries of `Size' bytes, the same in every run.
inputs(Size) ->
    rand:seed(exsss, {Size, 16#5a11, 16#ca11}),
    [rand:bytes(Size) || _ <- lists:seq(1, ?INPUTS)].

padded_urlsafe(Binary) ->
    << <<(urlsafe_char(C))>> || <<C>> <= base64:encode(Binary) >>.

unpadded_urlsafe(Binary) ->
    << <<C>> || <<C>> <= padded_urlsafe(Binary), C =/= $= >>.

urlsafe_char($+) -> $-;
urlsafe_char($/) -> $_;
urlsafe_char(C) -> C.

%% Every case's outputs against OTP's `base64' (a peer's too: a peer that
%% differs ends the run, as its figures would mean nothing).
check({Key, Fun, Inputs}) ->
    case [Fun(Input) || Input <- Inputs] =:= [expected(Key, Input) || Input <- Inputs] of
        true -> ok;
        false -> io:format("~p: output differs from OTP's base64~n", [Key]), halt(1)
    end.

expected({workload, _, 'binary:copy'}, Binary) -> Binary;
expected({workload, encode, _}, Raw) -> base64:encode(Raw);
expected({workload, decode, _}, Text) -> base64:decode(Text);
expected({floor, nif}, Raw) -> binary:copy(<<"A">>, (byte_size(Raw) + 2) div 3 * 4);
expected({floor, encode}, Raw) -> base64:encode(Raw);
expected({floor, decode}, Text) -> base64:decode(Text);
expected({encode, _, _}, Raw) -> base64:encode(Raw);
expected({decode, _, _}, Text) -> base64:decode(Text);
expected({id, encode, _}, Raw) -> unpadded_urlsafe(Raw);
expected({id, decode, _}, Text) -> base64:decode(standard_of(Text));
expected({options, encode, Map}, Raw) when map_get(mode, Map) =:= urlsafe ->
    case maps:get(padding, Map, true) of
        true -> padded_urlsafe(Raw);
        false -> unpadded_urlsafe(Raw)
    end;
expected({options, encode, _}, Raw) -> base64:encode(Raw);
expected({options, decode, _}, Text) -> base64:decode(standard_of(Text)).

%% Urlsafe text, padded or not, as the standard text OTP 25 decodes.
standard_of(Text) ->
    Std = << <<(standard_char(C))>> || <<C>> <= Text >>,
    case byte_size(Std) rem 4 of
        0 -> Std;
        Cut -> <<Std/binary, (binary:copy(<<"=">>, 4 - Cut))/binary>>
    end.

standard_char($-) -> $+;
standard_char($_) -> $/;
standard_char(C) -> C.

peer_loaded() ->
    case os:getenv("B64VERYFAST_EBIN") of
        Dir when is_list(Dir), Dir =/= "" ->
            code:add_patha(filename:absname(Dir)) =:= true andalso
                code:ensure_loaded(b64veryfast) =:= {module, b64veryfast};
        _ ->
            io:format("b64veryfast: not measured (set B64VERYFAST_EBIN to its ebin directory)~n"),
            false
    end.

%%====================================================================
%% Timing
%%====================================================================

%% How many calls of a case last about ?CASE_NS, in whole passes over its
%% inputs (at least one): from a first run of 1000.
calls({_Key, Fun, Inputs}) ->
    Ns = ns_per_call(Fun, Inputs, 1000),
    Pass = length(Inputs),
    Pass * max(1, round(?CASE_NS / max(Ns, 1.0) / Pass)).

round_of(Calls, Round) ->
    Order = case Round rem 2 of
                1 -> Calls;
                0 -> lists:reverse(Calls)
            end,
    Times = maps:from_list([{Key, ns_per_call(Fun, Inputs, N)} || {{Key, Fun, Inputs}, N} <- Order]),
    [maps:get(Key, Times) || {{Key, _, _}, _} <- Calls].

%% `N' calls of `Fun' over `Inputs' in turn, in a fresh process, after one
%% pass over them untimed: the workload's inputs outgrow the L2, and whichever
%% case first read them after other cases was charged their cache misses
%% (every other round b64simd's decode, then b64veryfast's, 0.6x and 1.1x).
ns_per_call(Fun, Inputs, N) ->
    {Pid, Ref} = spawn_monitor(
                   fun() ->
                           loop(Fun, Inputs, Inputs, length(Inputs)),
                           Start = erlang:monotonic_time(nanosecond),
                           loop(Fun, Inputs, Inputs, N),
                           Elapsed = erlang:monotonic_time(nanosecond) - Start,
                           true = erlang:garbage_collect(),
                           exit({elapsed, Elapsed})
                   end),
    receive
        {'DOWN', Ref, process, Pid, {elapsed, Elapsed}} -> Elapsed / N;
        {'DOWN', Ref, process, Pid, Reason} -> error({run_failed, Reason})
    end.

loop(_Fun, _Inputs, _All, 0) -> ok;
loop(Fun, [], All, N) -> loop(Fun, All, All, N);
loop(Fun, [Input | Inputs], All, N) ->
    _ = Fun(Input),
    loop(Fun, Inputs, All, N - 1).

%%====================================================================
%% Report
%%====================================================================

print_table(Stats) ->
    io:format("  ~-58s ~8s ~8s~n", ["case", "min", "median"]),
    [io:format("  ~-58s ~8.1f ~8.1f~n", [case_label(Key), Min, Median])
     || {Key, Min, Median} <- Stats].

case_label({workload, Op, Library}) ->
    lists:flatten(io_lib:format("erlfdb workload ~s, ~s", [Op, Library]));
case_label({floor, nif}) -> "floor NIF, 32 B";
case_label({floor, encode}) -> "b64simd:encode/1, 32 B (floor case)";
case_label({floor, decode}) -> "b64simd:decode/1, 44 characters (floor case)";
case_label({id, Op, Library}) ->
    lists:flatten(io_lib:format("ID ~s, ~s", [Op, id_call(Op, Library)]));
case_label({options, Op, none}) -> lists:flatten(io_lib:format("b64simd:~s/1, 32 B", [Op]));
case_label({options, Op, Map}) ->
    lists:flatten(io_lib:format("b64simd:~s/2 ~s, 32 B", [Op, map_label(Map)]));
case_label({Op, Size, Library}) ->
    lists:flatten(io_lib:format("~s ~B B, ~s", [Op, Size, Library])).

id_call(encode, b64simd) -> "b64simd:encode/2 urlsafe unpadded";
id_call(decode, b64simd) -> "b64simd:decode/2 urlsafe unpadded";
id_call(encode, b64veryfast) -> "b64veryfast:encode64_url/1";
id_call(decode, b64veryfast) -> "b64veryfast:decode64_url/1";
id_call(decode, b64veryfast_unchecked) -> "b64veryfast:decode64_url_unchecked/1".

%% {Value, met | missed}, the value the median over the rounds of the two
%% sides compared in each round; or `unmeasured' when a side is missing.
verdict({_, Kind, Ours, Theirs, Bound}, Rounds) ->
    case {maps:find(Ours, Rounds), maps:find(Theirs, Rounds)} of
        {{ok, O}, {ok, T}} ->
            Compared = case Kind of
                           speedup -> fun(Ou, Th) -> Th / Ou end;
                           over -> fun(Ou, Th) -> Ou - Th end;
                           floor -> fun(Ou, Th) -> Ou / Th end
                       end,
            Value = b64simd_bench:median(lists:zipwith(Compared, O, T)),
            Met = case Kind of
                      speedup -> Value >= Bound;
                      _ -> Value =< Bound
                  end,
            {Value, case Met of true -> met; false -> missed end};
        _ ->
            unmeasured
    end.

print_target({Label, Kind, _, _, Bound}, unmeasured) ->
    io:format("  target: ~s ~s: not measured~n", [Label, bound_label(Kind, Bound)]);
print_target({Label, Kind, _, _, Bound}, {Value, Verdict}) ->
    io:format("  target: ~s ~s: ~s (~s)~n",
              [Label, bound_label(Kind, Bound), verdict_label(Verdict), value_label(Kind, Value)]).

bound_label(speedup, Bound) -> io_lib:format(">= ~.2fx", [Bound]);
bound_label(over, Bound) -> io_lib:format("<= ~.1f", [Bound]);
bound_label(floor, Bound) -> io_lib:format("<= ~.2fx", [Bound]).

value_label(over, Value) -> io_lib:format("~.1f", [Value]);
value_label(_, Value) -> io_lib:format("~.2fx", [Value]).

verdict_label(met) -> "MET";
verdict_label(missed) -> "MISSED".

%% The targets over several VMs' medians: each VM's value, and MET only
%% where every VM met it.
summary(Files) ->
    Runs = [maps:from_list(Terms) || File <- Files, {ok, Terms} <- [file:consult(File)]],
    io:format("~n== Small-call targets over ~B fresh VMs (each VM's median of the rounds' "
              "ratios or differences)~n", [length(Runs)]),
    [begin
         Verdicts = [verdict(Target, Run) || Run <- Runs],
         print_summary(Target, Verdicts)
     end || Target <- targets()],
    ok.

print_summary({Label, Kind, _, _, Bound}, Verdicts) ->
    case lists:member(unmeasured, Verdicts) of
        true ->
            io:format("  target: ~s ~s: not measured~n", [Label, bound_label(Kind, Bound)]);
        false ->
            Verdict = case lists:all(fun({_, V}) -> V =:= met end, Verdicts) of
                          true -> met;
                          false -> missed
                      end,
            Values = lists:join(" / ", [value_label(Kind, V) || {V, _} <- Verdicts]),
            io:format("  target: ~s ~s: ~s (~s)~n",
                      [Label, bound_label(Kind, Bound), verdict_label(Verdict), Values])
    end.
