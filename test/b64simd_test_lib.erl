%% Shared by the b64simd_NN_*_tests modules: option sets, seeded randomness,
%% iolist shapes and OTP's decoder as an oracle (the model of every option
%% is b64simd_ref).
-module(b64simd_test_lib).
-include_lib("eunit/include/eunit.hrl").

-export([encode_option_sets/0, decode_option_sets/0, label/1]).
-export([seed/1]).
-export([iolist_shapes/1]).
-export([otp_decode/1, result/1]).
-export([outcome/1]).
-export([charged_as/5, not_charged/4, explained/1]).

%% @doc Every encode option map: mode x padding, with the defaults spelled
%% out and left implicit.
-spec encode_option_sets() -> [map()].
encode_option_sets() ->
    [#{}, #{padding => false}, #{mode => urlsafe}, #{mode => urlsafe, padding => false},
     #{mode => standard, padding => true}].

%% @doc Every decode option combination: 3 modes x padding x whitespace x
%% canonical (24 maps).
-spec decode_option_sets() -> [map()].
decode_option_sets() ->
    [#{mode => M, padding => P, whitespace => W, canonical => C}
     || M <- [standard, urlsafe, any], P <- [true, false], W <- [skip, reject],
        C <- [false, true]].

%% @doc What `catch Fun()' gave, without that expression (deprecated from
%% OTP 29): the value, or `{'EXIT', {Reason, Stack}}' for an error.
-spec outcome(fun(() -> term())) -> term().
outcome(Fun) ->
    try
        Fun()
    catch
        error:Reason:Stack -> {'EXIT', {Reason, Stack}}
    end.

%% @doc A short label for assertion messages.
-spec label(term()) -> string().
label(Term) ->
    lists:flatten(io_lib:format("~0tp", [Term])).

%% @doc Seeds `rand' for this process with a fixed seed (or the one in
%% B64SIMD_SEED) and prints it, so that a failure reproduces.
-spec seed(atom()) -> {integer(), integer(), integer()}.
seed(Test) ->
    Seed = case os:getenv("B64SIMD_SEED") of
               false -> {erlang:phash2(Test), 1789, 2026};
               Text -> {list_to_integer(Text), 1789, 2026}
           end,
    io:format(user, "~n~p: rand seed exsss ~p (set B64SIMD_SEED=N to change)~n", [Test, Seed]),
    _ = rand:seed(exsss, Seed),
    Seed.

%% @doc Many iodata terms that all flatten to `Bin': deep lists, empty lists
%% and binaries, byte integers mixed with binaries, improper tails that are
%% binaries, and sub-binaries at odd offsets and bit alignments of their
%% parent.
-spec iolist_shapes(binary()) -> [iodata()].
iolist_shapes(Bin) ->
    Size = byte_size(Bin),
    Half = Size div 2,
    <<Front:Half/binary, Back/binary>> = Bin,
    [Bin,
     [Bin],
     [[], Bin, [[]], <<>>],
     binary_to_list(Bin),
     [binary_to_list(Front), Back],
     [Front | Back],
     [[[[Front]]], [[], [Back]]],
     lists:foldr(fun(Byte, Acc) -> [Acc, Byte] end, [], lists:reverse(binary_to_list(Bin))),
     [alternate(Chunk) || Chunk <- chunks(Bin, 3)],
     chunks(Bin, 1),
     chunks(Bin, 7),
     odd_offset(Bin, 1),
     odd_offset(Bin, 3),
     [odd_offset(Front, 5), <<>>, odd_offset(Back, 7)],
     unaligned(Bin)].

alternate(<<Byte, Rest/binary>>) -> [Byte, Rest];
alternate(Chunk) -> Chunk.

chunks(Bin, N) when byte_size(Bin) > N ->
    <<Chunk:N/binary, Rest/binary>> = Bin,
    [Chunk | chunks(Rest, N)];
chunks(Bin, _N) ->
    [Bin].

%% A sub-binary starting `Skip' bytes into a bigger binary.
odd_offset(Bin, Skip) ->
    Parent = <<(binary:copy(<<"#">>, Skip))/binary, Bin/binary, "tail">>,
    binary:part(Parent, Skip, byte_size(Bin)).

%% A sub-binary whose first byte is not byte-aligned in its parent.
unaligned(Bin) ->
    Parent = <<1:3, Bin/binary, 0:5>>,
    <<_:3, Sub:(byte_size(Bin))/binary, _:5>> = Parent,
    [Sub].

%% @doc OTP 25 `base64:decode/1' as `{ok, Data} | error' (OTP raises
%% assorted crash terms on bad input).
-spec otp_decode(binary()) -> {ok, binary()} | error.
otp_decode(Base64) ->
    try base64:decode(Base64) of
        Data -> {ok, Data}
    catch
        error:_ -> error
    end.

%% @doc Runs `Fun' and gives `{ok, Value}', or `{error, Reason}' for an
%% `error' exception (what a raising API call compares as).
-spec result(fun(() -> term())) -> {ok, term()} | {error, term()}.
result(Fun) ->
    try Fun() of
        Value -> {ok, Value}
    catch
        error:Reason -> {error, Reason}
    end.

%% @doc Checks that a loop of `Fun(Big)' calls is charged what the charge
%% table (`b64simd_nif:charges/0') says: `Big''s bytes at the rate of
%% `Work', a timeslice of 4000 reductions per its nanoseconds, beyond the
%% same loop of `Fun(Small)' calls, which are too short to be charged: the
%% loop's own reductions. `Big' must be charged and not sliced.
-spec charged_as(atom(), fun((binary()) -> term()), binary(), binary(), atom()) -> ok.
charged_as(Op, Fun, Small, Big, Work) ->
    {TimesliceNs, UnchargedNs, #{Work := PsPerByte}} = b64simd_nif:charges(),
    CallNs = byte_size(Big) * PsPerByte div 1000,
    Label = fun(Extra) ->
                    label({Op, Work, byte_size(Big), call_ns, CallNs, extra_reductions, Extra})
            end,
    ?assert(CallNs >= UnchargedNs andalso CallNs =< TimesliceNs, Label(none)),
    Calls = 2000,
    Extra = reductions(Fun, Big, Calls) - reductions(Fun, Small, Calls),
    %% What is under a percent of a timeslice carries over to the next call,
    %% so the loop is charged its total, not Calls times a rounded-down call.
    PerCall = CallNs * 4000 div TimesliceNs,
    Expected = Calls * CallNs * 4000 div TimesliceNs,
    %% erts counts a charge only up to the reductions the process has left
    %% (BUMP_REDS stops at zero; it yields all the same), so each timeslice
    %% of 4000 may count up to one call's charge short.
    Timeslices = Expected div 4000 + 1,
    Noise = 200 + Expected div 20,
    ?assert(Expected > 1000, Label(Extra)),
    ?assert(Extra =< Expected + Noise, Label(Extra)),
    ?assert(Extra >= Expected - Timeslices * PerCall - Noise, Label(Extra)),
    ok.

%% @doc Checks that a loop of `Fun(Big)' calls costs the reductions the
%% same loop of `Fun(Small)' calls does: neither is charged beyond its one
%% reduction.
-spec not_charged(atom(), fun((binary()) -> term()), binary(), binary()) -> ok.
not_charged(Op, Fun, Small, Big) ->
    Calls = 2000,
    Extra = reductions(Fun, Big, Calls) - reductions(Fun, Small, Calls),
    %% Charged even 1 ns a call, the loop would cost 200 reductions more.
    ?assert(Extra < 100, label({Op, byte_size(Big), extra_reductions, Extra})),
    ok.

%% Reductions a fresh process spends calling Fun(Input) Calls times.
reductions(Fun, Input, Calls) ->
    Parent = self(),
    Pid = spawn(fun() ->
                        {reductions, R0} = process_info(self(), reductions),
                        call_n(Fun, Input, Calls),
                        {reductions, R1} = process_info(self(), reductions),
                        Parent ! {self(), R1 - R0}
                end),
    receive {Pid, Reductions} -> Reductions end.

call_n(_Fun, _Input, 0) -> ok;
call_n(Fun, Input, N) -> _ = Fun(Input), call_n(Fun, Input, N - 1).

%% @doc What the module that raised from `Fun()' says of it through its
%% `format_error/2' (its error_info), or `none' if nothing was raised.
-spec explained(fun(() -> term())) -> string() | none.
explained(Fun) ->
    try Fun() of
        _ -> none
    catch
        error:Reason:Stack ->
            [{_, _, _, Info} | _] = Stack,
            #{module := Module} = proplists:get_value(error_info, Info),
            unicode:characters_to_list(maps:values(Module:format_error(Reason, Stack)))
    end.
