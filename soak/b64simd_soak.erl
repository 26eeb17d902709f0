%% @doc `make soak': PropEr at scale, run by scripts/soak.sh once per simdutf
%% kernel in a fresh VM. It lives outside test/ because rebar3 eunit runs
%% every module it finds there, and a soak takes many minutes.
%%
%% Every case is checked against oracles written here: an encoder built on
%% OTP `base64' (translated for urlsafe, padding stripped), a pure-Erlang
%% decoder that implements the rules of native/b64simd_core/src/scalar.rs
%% independently (accept/reject, output, reason and offset), and OTP's
%% `base64:decode/1' itself for the default options. Inputs are random
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

-export([main/1, reference_decode/2]).

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
                Expected = reference_encode(Plain, Mode, Padding),
                Opts = #{mode => Mode, padding => Padding},
                Got = with_slices(Slice, fun() -> b64simd:encode(split(Plain, Split), Opts) end),
                ?WHENFAIL(io:format("encode ~w bytes ~p slice ~p~n got ~p~n expected ~p~n",
                                    [byte_size(Plain), Opts, Slice, Got, Expected]),
                          Got =:= Expected)
            end).

prop_decode() ->
    ?FORALL({Text, Opts, Split, Slice}, {text(), decode_options(), split(), slice()},
            begin
                Expected = reference_decode(Text, Opts),
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
         mutate(reference_encode(Plain, Mode, Padding), Mutations)).

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

%% 0: calibrated slices (most inputs run inline); otherwise every input above
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

%%====================================================================
%% Oracles
%%====================================================================

reference_encode(Plain, Mode, Padding) ->
    Standard = base64:encode(Plain),
    Alphabet = case Mode of
                   standard -> Standard;
                   urlsafe -> << <<(swap(C))>> || <<C>> <= Standard >>
               end,
    case Padding of
        true -> Alphabet;
        false -> binary:replace(Alphabet, <<"=">>, <<>>, [global])
    end.

%% @doc The decode rules of scalar.rs, written again in Erlang: scan left to
%% right, the first problem wins; then the end-of-input rules.
-spec reference_decode(binary(), map()) -> {ok, binary()} | {error, term()}.
reference_decode(Text, Opts) ->
    scan(Text, 0, Opts, {0, 0, 0, undefined, 0, []}).

%% State: {Quantum, Significant, LastSignificant, FirstPad, Pads, Output}.
scan(<<>>, _At, Opts, State) ->
    finish(Opts, State);
scan(<<C, Rest/binary>>, At, Opts, {Q, Sig, Last, FirstPad, Pads, Out} = State) ->
    case classify(C, maps:get(mode, Opts)) of
        {sextet, _} when FirstPad =/= undefined ->
            {error, {bad_padding, FirstPad}};
        {sextet, V} when Sig rem 4 =:= 3 ->
            Word = (Q bsl 6) bor V,
            scan(Rest, At + 1, Opts, {0, Sig + 1, At, FirstPad, Pads, [Out, <<Word:24>>]});
        {sextet, V} ->
            scan(Rest, At + 1, Opts, {(Q bsl 6) bor V, Sig + 1, At, FirstPad, Pads, Out});
        pad ->
            Allowed = case Sig rem 4 of 2 -> 2; 3 -> 1; _ -> 0 end,
            First = case FirstPad of undefined -> At; _ -> FirstPad end,
            case Pads + 1 > Allowed of
                true -> {error, {bad_padding, At}};
                false -> scan(Rest, At + 1, Opts, {Q, Sig, Last, First, Pads + 1, Out})
            end;
        whitespace ->
            case maps:get(whitespace, Opts) of
                skip -> scan(Rest, At + 1, Opts, State);
                reject -> {error, {invalid_character, At}}
            end;
        invalid ->
            {error, {invalid_character, At}}
    end.

finish(Opts, {Q, Sig, Last, FirstPad, Pads, Out}) ->
    R = Sig rem 4,
    Check = if
                FirstPad =/= undefined, Pads + R =/= 4 -> {error, {bad_padding, FirstPad}};
                FirstPad =/= undefined -> ok;
                R =:= 1 -> {error, {incomplete, Last}};
                R =/= 0 -> case maps:get(padding, Opts) of
                               true -> {error, missing_padding};
                               false -> ok
                           end;
                true -> ok
            end,
    {Tail, Unused} = case R of
                         2 -> {<<(Q bsr 4)>>, Q band 16#F};
                         3 -> {<<(Q bsr 2):16>>, Q band 16#3};
                         _ -> {<<>>, 0}
                     end,
    case Check of
        ok when Unused =/= 0 ->
            case maps:get(canonical, Opts) of
                true -> {error, {non_canonical, Last}};
                false -> {ok, iolist_to_binary([Out, Tail])}
            end;
        ok -> {ok, iolist_to_binary([Out, Tail])};
        Error -> Error
    end.

classify(C, _) when C >= $A, C =< $Z -> {sextet, C - $A};
classify(C, _) when C >= $a, C =< $z -> {sextet, C - $a + 26};
classify(C, _) when C >= $0, C =< $9 -> {sextet, C - $0 + 52};
classify($+, Mode) when Mode =/= urlsafe -> {sextet, 62};
classify($/, Mode) when Mode =/= urlsafe -> {sextet, 63};
classify($-, Mode) when Mode =/= standard -> {sextet, 62};
classify($_, Mode) when Mode =/= standard -> {sextet, 63};
classify($=, _) -> pad;
classify(C, _) when C =:= $\t; C =:= $\n; C =:= $\r; C =:= $\s -> whitespace;
classify(_, _) -> invalid.
