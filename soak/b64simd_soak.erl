%% @doc `make soak': PropEr at scale, run by scripts/soak.sh once per simdutf
%% kernel in a fresh VM. It lives outside test/ because rebar3 eunit runs
%% every module it finds there, and a soak takes many minutes.
%%
%% Every case is checked against the suites' reference model,
%% test/b64simd_ref.erl (accept/reject, output, reason and offset), and
%% against OTP's `base64:decode/1' itself for the default options. Inputs are random
%% binaries of every size class, their encodings, and mutations of those;
%% each decode case runs under one of the 24 decode option combinations
%% (drawn at random: a million cases cover each about 40,000 times) and
%% under the defaults against OTP, as a binary or a random iolist, and a
%% share of the cases with forced tiny slices so that the sliced path sees
%% them too.
-module(b64simd_soak).

%% Debian's erlang-proper ships no proper.hrl: the three macros used here,
%% as that header defines them.
-define(FORALL(X, Gen, Prop), proper:forall(Gen, fun(X) -> Prop end)).
-define(LET(X, Gen, Expr), proper_types:bind(Gen, fun(X) -> Expr end, false)).
-define(WHENFAIL(Action, Prop), proper:whenfail(fun() -> Action end, fun() -> Prop end)).
-import(proper_types, [boolean/0, byte/0, frequency/1, integer/2, list/1, nat/0, oneof/1,
                       range/2]).

-export([main/1]).

%%====================================================================
%% Entry point
%%====================================================================

%% @doc Runs `Cases' PropEr cases (split between the encode and decode
%% properties), prints the counts and halts with 0 if all passed, 1 if not.
-spec main([string()]) -> no_return().
main([CasesArg]) ->
    Cases = list_to_integer(CasesArg),
    Kernel = b64simd:kernel(),
    EncodeCases = Cases div 4,
    DecodeCases = Cases - EncodeCases,
    Start = erlang:monotonic_time(millisecond),
    Results = [run(Name, Prop, N) || {Name, Prop, N} <-
                   [{encode, prop_encode(), EncodeCases},
                    {decode, prop_decode(), DecodeCases}]],
    Seconds = (erlang:monotonic_time(millisecond) - Start) / 1000,
    Failed = [Name || {Name, false} <- Results],
    io:format("~nSOAK kernel=~s cases=~b (encode ~b, decode ~b) failed=~b seconds=~.1f~n",
              [Kernel, Cases, EncodeCases, DecodeCases, length(Failed), Seconds]),
    halt(case Failed of [] -> 0; _ -> 1 end).

run(Name, Prop, N) ->
    io:format("b64simd_soak: ~s, ~b cases on kernel ~s~n", [Name, N, b64simd:kernel()]),
    Options = [{numtests, N}, {max_size, 20}, {on_output, fun progress/2}],
    {Name, proper:quickcheck(Prop, Options)}.

%% PropEr prints a dot per case: millions of them. Keep everything else
%% (the verdict, a counterexample, shrinking).
progress(".", []) -> ok;
progress(Format, Args) -> io:format(user, Format, Args).

%%====================================================================
%% Properties
%%====================================================================

prop_encode() ->
    ?FORALL({Plain, Mode, Padding, Split, Slice},
            {plain(), oneof([standard, urlsafe]), boolean(), split(), slice()},
            begin
                Opts = #{mode => Mode, padding => Padding},
                Expected = b64simd_ref:encode(Plain, Opts),
                Got = with_slices(Slice, fun() -> b64simd:encode(split(Plain, Split), Opts) end),
                ?WHENFAIL(io:format("encode ~w bytes ~p slice ~p~n got ~p~n expected ~p~n",
                                    [byte_size(Plain), Opts, Slice, Got, Expected]),
                          Got =:= Expected)
            end).

prop_decode() ->
    ?FORALL({Text, Opts, Split, Slice}, {text(), decode_options(), split(), slice()},
            begin
                Expected = b64simd_ref:decode(Text, Opts),
                Got = with_slices(Slice, fun() ->
                                                 b64simd:try_decode(split(Text, Split), Opts)
                                         end),
                OtpAgrees = otp_agrees(Text),
                ?WHENFAIL(io:format("decode ~p ~p slice ~p~n got ~p~n expected ~p~n"
                                    " OTP agrees ~p~n",
                                    [Text, Opts, Slice, Got, Expected, OtpAgrees]),
                          Got =:= Expected andalso OtpAgrees)
            end).

%% The default options against OTP itself: same accept/reject, same output.
otp_agrees(Text) ->
    Otp = try base64:decode(Text) of
              Data -> {ok, Data}
          catch
              error:_ -> error
          end,
    case {b64simd:try_decode(Text), Otp} of
        {{ok, Same}, {ok, Same}} -> true;
        {{error, _}, error} -> true;
        _ -> false
    end.

%%====================================================================
%% Generators
%%====================================================================

%% Random bytes of every size class, small ones most often. The bytes come
%% from a seed so that PropEr generates and shrinks two integers, not lists.
plain() ->
    ?LET({Len, Seed}, {frequency([{60, range(0, 80)}, {30, range(0, 1100)},
                                  {1, range(1100, 100_000)}]),
                       integer(1, 1 bsl 40)},
         bytes(Len, Seed)).

bytes(Len, Seed) ->
    {Bytes, _} = rand:bytes_s(Len, rand:seed_s(exsss, Seed)),
    Bytes.

%% An encoding of random bytes under random options, then mutated.
text() ->
    ?LET({Plain, Mode, Padding, Mutations},
         {plain(), oneof([standard, urlsafe]), boolean(), list(mutation())},
         mutate(b64simd_ref:encode(Plain, #{mode => Mode, padding => Padding}), Mutations)).

mutation() ->
    frequency([{4, {insert, nat(), special()}},
               {4, {replace, nat(), special()}},
               {2, {delete, nat()}},
               {1, {wrap, oneof([1, 4, 64, 76]), oneof([<<"\r\n">>, <<"\n">>, <<" ">>])}},
               {1, strip_padding},
               {1, {append, oneof([<<"=">>, <<"==">>, <<"\n">>, <<"A">>, <<"AA">>])}},
               {1, {truncate, nat()}},
               {1, swap_alphabet}]).

special() ->
    oneof([$=, $\t, $\n, $\r, $\s, $\f, $\v, $-, $_, $+, $/, 0, 16#80, 16#FF, $., $A, $Q, $w,
           byte()]).

mutate(Text, []) ->
    Text;
mutate(Text, [Mutation | Rest]) ->
    mutate(mutate1(Text, Mutation), Rest).

mutate1(Text, {insert, N, Byte}) ->
    At = N rem (byte_size(Text) + 1),
    <<Before:At/binary, After/binary>> = Text,
    <<Before/binary, Byte, After/binary>>;
mutate1(<<>>, {replace, _, _}) ->
    <<>>;
mutate1(Text, {replace, N, Byte}) ->
    At = N rem byte_size(Text),
    <<Before:At/binary, _, After/binary>> = Text,
    <<Before/binary, Byte, After/binary>>;
mutate1(<<>>, {delete, _}) ->
    <<>>;
mutate1(Text, {delete, N}) ->
    At = N rem byte_size(Text),
    <<Before:At/binary, _, After/binary>> = Text,
    <<Before/binary, After/binary>>;
mutate1(Text, {wrap, Width, Break}) ->
    iolist_to_binary(lists:join(Break, chunks(Text, Width)));
mutate1(Text, strip_padding) ->
    binary:replace(Text, <<"=">>, <<>>, [global]);
mutate1(Text, {append, Tail}) ->
    <<Text/binary, Tail/binary>>;
mutate1(Text, {truncate, N}) ->
    binary:part(Text, 0, N rem (byte_size(Text) + 1));
mutate1(Text, swap_alphabet) ->
    << <<(swap(C))>> || <<C>> <= Text >>.

swap($+) -> $-;
swap($/) -> $_;
swap($-) -> $+;
swap($_) -> $/;
swap(C) -> C.

chunks(Bin, Width) when byte_size(Bin) =< Width -> [Bin];
chunks(Bin, Width) ->
    <<Chunk:Width/binary, Rest/binary>> = Bin,
    [Chunk | chunks(Rest, Width)].

%% How to present the data: a binary, or an iolist cut at these points.
split() ->
    oneof([binary, list(nat())]).

split(Bin, binary) ->
    Bin;
split(Bin, Cuts) ->
    split_at(Bin, lists:usort([C rem (byte_size(Bin) + 1) || C <- Cuts]), 0).

split_at(Bin, [], At) ->
    [binary:part(Bin, At, byte_size(Bin) - At)];
split_at(Bin, [Cut | Cuts], At) ->
    [binary:part(Bin, At, Cut - At) | split_at(Bin, Cuts, Cut)].

%% 0: the table's slices (most inputs run inline); otherwise every input above
%% that many bytes is sliced, in slices of that many bytes.
slice() ->
    frequency([{3, 0}, {1, oneof([4, 5, 64, 1000])}]).

with_slices(0, Fun) ->
    Fun();
with_slices(Bytes, Fun) ->
    ok = b64simd_nif:set_slice_bytes(Bytes),
    try Fun() after ok = b64simd_nif:set_slice_bytes(0) end.

decode_options() ->
    ?LET({M, P, W, C}, {oneof([standard, urlsafe, any]), boolean(), oneof([skip, reject]),
                        boolean()},
         #{mode => M, padding => P, whitespace => W, canonical => C}).
