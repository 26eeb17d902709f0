%% Many processes encoding and decoding at once, on every scheduler, with
%% inputs large enough to be sliced (so jobs from different callers
%% interleave), every result checked exactly.
-module(b64simd_06_concurrency_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SEED, {16#b64, 16#51d, 6}).
-define(WORKERS, 16).
-define(ROUNDS, 10).

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

%% A job continued by a second process while a slice of it runs elsewhere
%% is refused at once with `badarg': the second caller never waits for the
%% first's slice (here all the rest of the job in one forced step, some
%% milliseconds), and the first gets the exact result.
continued_twice_at_once_test_() ->
    case erlang:system_info(schedulers_online) of
        1 -> b64simd_test_env:skip(continued_twice_at_once, "needs two schedulers");
        _ -> {timeout, 60, fun continued_twice_at_once/0}
    end.

continued_twice_at_once() ->
    Data = binary:copy(<<"0123456789ab">>, 4 bsl 20),
    ok = b64simd_nif:set_slice_bytes(1 bsl 20),
    try
        {continue, Job} = b64simd_nif:encode(Data, #{}),
        ok = b64simd_nif:set_slice_bytes(1 bsl 30),
        Parent = self(),
        %% One caller on each scheduler (spawn_opt's `scheduler' option,
        %% which erts's own suites use), so that both run at once.
        Caller = fun(Scheduler, Delay) ->
                         spawn_opt(fun() ->
                                           receive go -> ok end,
                                           timer:sleep(Delay),
                                           Result = b64simd_nif:continue(Job),
                                           Parent ! {self(), Result, erlang:monotonic_time()}
                                   end, [link, {scheduler, Scheduler}])
                 end,
        First = Caller(1, 0),
        Second = Caller(2, 1),
        [Pid ! go || Pid <- [First, Second]],
        {Result, Ended} = receive {First, R, E} -> {R, E} end,
        receive
            {Second, Refused, RefusedAt} ->
                ?assertEqual(badarg, Refused),
                ?assert(RefusedAt < Ended, "the second caller waited for the first's slice")
        end,
        ?assertEqual(base64:encode(Data), Result)
    after
        b64simd_nif:set_slice_bytes(0)
    end.
