%% Many processes encoding and decoding at once, on every scheduler, with
%% inputs large enough to be sliced (so jobs from different callers
%% interleave), every result checked exactly.
-module(b64simd_06_concurrency_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SEED, {16#b64, 16#51d, 6}).
-define(WORKERS, 16).
-define(ROUNDS, 10).
-define(RACES, 50).

concurrent_calls_are_exact_test_() ->
    {timeout, 120, fun concurrent_calls_are_exact/0}.

%% Forced small slices: every big call is dozens of slices, so callers
%% interleave their jobs on the schedulers.
concurrent_sliced_calls_are_exact_test_() ->
    {setup,
     fun() -> b64simd_nif:set_slice_bytes(4096) end,
     fun(_) -> b64simd_nif:set_slice_bytes(0) end,
     {timeout, 120, fun concurrent_calls_are_exact/0}}.

concurrent_calls_are_exact() ->
    io:format(user, "~nconcurrency: seed ~p, ~b workers x ~b rounds on ~b schedulers~n",
              [?SEED, ?WORKERS, ?ROUNDS, erlang:system_info(schedulers_online)]),
    Parent = self(),
    Workers = [spawn_link(fun() -> Parent ! {self(), worker(N)} end)
               || N <- lists:seq(1, ?WORKERS)],
    Results = [receive {Pid, Result} -> Result end || Pid <- Workers],
    ?assertEqual([], lists:append(Results)).

%% Returns the list of mismatches (empty when every call was exact).
worker(N) ->
    {A, B, C} = ?SEED,
    rand:seed(exsss, {A, B, C + N}),
    lists:append([round_trip(N, Round) || Round <- lists:seq(1, ?ROUNDS)]).

round_trip(N, Round) ->
    Size = size_for(rand:uniform(4)),
    Data = rand:bytes(Size),
    Encoded = b64simd:encode(Data),
    Url = b64simd:encode(Data, #{mode => urlsafe, padding => false}),
    Bad = <<Encoded/binary, "!">>,
    Checks = [{encode, matches_otp(Data, Encoded)},
              {decode, b64simd:decode(Encoded) =:= Data},
              {urlsafe, b64simd:decode(Url, #{mode => urlsafe, padding => false}) =:= Data},
              {error_offset, b64simd:try_decode(Bad) =:= {error, {invalid_character, byte_size(Encoded)}}}],
    [{worker, N, round, Round, size, Size, Check} || {Check, false} <- Checks].

%% OTP's base64 runs at ~40 MB/s: compare whole encodings of small inputs,
%% and for big ones the head, the tail and a random window (on 3-byte
%% boundaries, where the encodings of parts are parts of the encoding).
matches_otp(Data, Encoded) when byte_size(Data) =< 65536 ->
    Encoded =:= base64:encode(Data);
matches_otp(Data, Encoded) ->
    Size = byte_size(Data),
    Tail = Size - Size rem 3 - 3000,
    Windows = [0, rand:uniform(Tail div 3) * 3, Tail],
    byte_size(Encoded) =:= (Size + 2) div 3 * 4
        andalso base64:encode(binary:part(Data, Size - Size rem 3, Size rem 3))
                =:= binary:part(Encoded, byte_size(Encoded), -4 * min(1, Size rem 3))
        andalso lists:all(fun(At) ->
                              base64:encode(binary:part(Data, At, 3000))
                                  =:= binary:part(Encoded, At div 3 * 4, 4000)
                          end, Windows).

size_for(1) -> rand:uniform(100);
size_for(2) -> rand:uniform(64 * 1024);
size_for(3) -> 256 * 1024 + rand:uniform(1024 * 1024);
size_for(4) -> 2 * 1024 * 1024 + rand:uniform(4 * 1024 * 1024).

%% A job continued by two processes at once, each calling `continue/1' in
%% a loop: while one runs a slice, the other is refused with `badarg' at
%% once, without waiting for that slice. A refusal followed by a slice of
%% the same caller proves it: the job had not ended, it was in use. A caller
%% made to wait for the other's slice would get the job after it instead,
%% and never be refused while the job lasts. Slices of 8 MiB are long
%% enough that a host running the two schedulers in turn on one core still
%% switches in the middle of one, and each caller pauses after each of its
%% slices, so that the other, refused during it, then finds the job free.
%% A busy host may still keep the two apart for a whole job, so the job
%% runs again, up to `?RACES' times, until such a refusal is seen.
continued_twice_at_once_test_() ->
    case erlang:system_info(schedulers_online) of
        1 -> b64simd_test_env:skip(continued_twice_at_once, "needs two schedulers");
        _ -> {timeout, 120, fun continued_twice_at_once/0}
    end.

continued_twice_at_once() ->
    Data = binary:copy(<<"0123456789ab">>, 4 bsl 20),
    Expected = base64:encode(Data),
    ok = b64simd_nif:set_slice_bytes(8 bsl 20),
    try
        races(Data, Expected, ?RACES)
    after
        b64simd_nif:set_slice_bytes(0)
    end.

races(_Data, _Expected, 0) ->
    ?assert(false, "no caller was refused during the other's slice and then continued the job");
races(Data, Expected, Left) ->
    {continue, Job} = b64simd_nif:encode(Data, #{}),
    Parent = self(),
    %% One caller on each scheduler (spawn_opt's `scheduler' option, which
    %% erts's own suites use), so that both run at once.
    Callers = [spawn_opt(fun() ->
                                 receive go -> ok end,
                                 Parent ! {self(), continue_until_done(Job, false, false)}
                         end, [link, {scheduler, Scheduler}])
               || Scheduler <- [1, 2]],
    [Pid ! go || Pid <- Callers],
    %% The first answer, whatever it is, so that a wrong result fails below.
    {Finisher, {Result, FinisherProved}} = receive {_, {_, _}} = Finished -> Finished end,
    [Other] = Callers -- [Finisher],
    Other ! stop,
    {stopped, OtherProved} = receive {Other, Answer} -> Answer end,
    ?assertEqual(Expected, Result),
    case FinisherProved orelse OtherProved of
        true -> ok;
        false -> races(Data, Expected, Left - 1)
    end.

%% Continues `Job' until it gives its result, or until told to stop; with
%% whether a refusal came before one of this caller's slices. A refusal is
%% retried at once, a slice followed by a pause of a millisecond.
continue_until_done(Job, Refused, Proved) ->
    case b64simd_nif:continue(Job) of
        {continue, _} -> unless_stopped(Job, false, Proved orelse Refused, 1);
        badarg -> unless_stopped(Job, true, Proved, 0);
        Result -> {Result, Proved orelse Refused}
    end.

unless_stopped(Job, Refused, Proved, PauseMs) ->
    receive stop -> {stopped, Proved}
    after PauseMs -> continue_until_done(Job, Refused, Proved)
    end.
