%% Hostile arguments: sub-binaries at odd byte and bit offsets, bitstrings,
%% deep and improper iolists, huge lists, every term type, every bad option,
%% and the NIF stubs called directly with nonsense. Each gives the right
%% result or a clear error (`badarg' with a format_error/2 description);
%% never a crash, never a hang (EUnit's timeout would catch one).
-module(b64simd_32_hostile_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SEED, {32, 1, 1}).

%%====================================================================
%% Binaries that are not what they seem
%%====================================================================

sub_binaries_at_odd_offsets_test() ->
    rand:seed(exsss, ?SEED),
    Big = rand:bytes(4096),
    BigB64 = base64:encode(Big),
    lists:foreach(
      fun({Offset, Len}) ->
              <<_:Offset/binary, Sub:Len/binary, _/binary>> = Big,
              ?assertEqual(base64:encode(Sub), b64simd:encode(Sub), {Offset, Len}),
              <<_:Offset/binary, SubB64:Len/binary, _/binary>> = BigB64,
              ?assertEqual(oracle_decode(SubB64), try_decode(SubB64), {b64, Offset, Len})
      end,
      [{O, L} || O <- [0, 1, 2, 3, 5, 7, 63, 64, 65, 1001], L <- [0, 1, 2, 3, 4, 31, 32, 33, 1000]]).

%% A sub-binary that starts in the middle of a byte is not byte-aligned:
%% enif_inspect_binary has to hand the NIF an aligned copy.
unaligned_sub_binaries_test() ->
    rand:seed(exsss, ?SEED),
    Big = rand:bytes(3000),
    lists:foreach(
      fun({Bits, Len}) ->
              <<_:Bits, Sub:Len/binary, _/bits>> = <<Big/binary, 0:8>>,
              ?assertEqual(base64:encode(Sub), b64simd:encode(Sub), {Bits, Len}),
              Encoded = base64:encode(Sub),
              <<_:Bits, Unaligned:(byte_size(Encoded))/binary, _/bits>> =
                  <<0:Bits, Encoded/binary, 0:(8 - Bits)>>,
              ?assertEqual(Sub, b64simd:decode(Unaligned), {decode, Bits, Len})
      end,
      [{B, L} || B <- [1, 3, 7], L <- [0, 1, 2, 3, 100, 2000]]).

bitstrings_are_badarg_test() ->
    Bits = [<<1:1>>, <<1:7>>, <<"abc", 1:1>>, <<"QQ==", 0:4>>, [<<"QQ">>, <<1:3>>]],
    [check_badarg(Fun, Args) || B <- Bits, {Fun, Args} <- every_call(B)].

%%====================================================================
%% Lists
%%====================================================================

deep_iolists_test() ->
    Deep = nest(100_000, <<"aGVsbG8=">>),
    ?assertEqual(<<"hello">>, b64simd:decode(Deep)),
    ?assertEqual(<<"aGVsbG8=">>, b64simd:encode(nest(100_000, "hello"))),
    %% Nested on the right, one byte per level.
    RightDeep = lists:foldr(fun(Byte, Acc) -> [Byte, Acc] end, [], "aGVsbG8="),
    ?assertEqual(<<"hello">>, b64simd:decode(nest(50_000, RightDeep))).

improper_iolists_test() ->
    %% A binary tail is valid iodata; anything else in a tail is not.
    ?assertEqual(<<"hello">>, b64simd:decode([<<"aGVs">> | <<"bG8=">>])),
    ?assertEqual(<<"aGVsbG8=">>, b64simd:encode([$h, [$e | <<"llo">>]])),
    [check_badarg(Fun, Args) || Bad <- [[$Q | $Q], [<<"QQ">> | foo], [[<<"QQ">> | 1.0]],
                                        [$Q, $Q | $=]],
                                {Fun, Args} <- every_call(Bad)].

huge_lists_test_() ->
    {timeout, 120, fun huge_lists/0}.

huge_lists() ->
    rand:seed(exsss, ?SEED),
    Bytes = binary_to_list(rand:bytes(2_000_000)),
    Encoded = b64simd:encode(Bytes),
    ?assertEqual(base64:encode(list_to_binary(Bytes)), Encoded),
    ?assertEqual(list_to_binary(Bytes), b64simd:decode(binary_to_list(Encoded))),
    %% A huge list with one bad element at the end: badarg, no crash.
    check_badarg(encode, [Bytes ++ [256]]).

%%====================================================================
%% Every term type, every bad option
%%====================================================================

every_term_type_test() ->
    Terms = [foo, true, undefined, 0, -1, 256, 1 bsl 70, 1.5, -0.0, self(), make_ref(),
             hd(erlang:ports()), fun() -> ok end, fun lists:map/2, {}, {<<"QQ==">>},
             #{}, #{<<"QQ==">> => 1}, [256], [-1], [1.0], [foo], [self()], [{}],
             [$Q, $Q, 1000, $=, $=], "QQ==" ++ [16#1F600], [[], [[]], [[[], 300]]]],
    [check_badarg(Fun, Args) || T <- Terms, {Fun, Args} <- every_call(T)].

bad_options_test() ->
    BadEncode = [[], [{mode, urlsafe}], urlsafe, 1, <<>>, #{mode => url}, #{mode => any},
                 #{mode => <<"standard">>}, #{padding => yes}, #{padding => 1},
                 #{whitespace => skip}, #{canonical => true}, #{unknown => 1},
                 #{"mode" => standard}, #{mode => standard, extra => true}],
    BadDecode = [[], [{mode, urlsafe}], urlsafe, 1, <<>>, #{mode => url},
                 #{mode => <<"any">>}, #{padding => 'maybe'}, #{whitespace => true},
                 #{whitespace => strip}, #{canonical => 1}, #{canonical => yes},
                 #{unknown => 1}, #{line_length => 76}, #{mode => any, extra => true}],
    [check_badarg(encode, [<<"x">>, O]) || O <- BadEncode],
    [check_badarg(encode_to_string, [<<"x">>, O]) || O <- BadEncode],
    [check_badarg(F, [<<"QQ==">>, O]) || O <- BadDecode,
                                         F <- [decode, decode_to_string, try_decode]],
    %% The option problem is described for argument 2.
    Described = describe(decode, [<<"QQ==">>, #{mode => url}]),
    ?assertMatch(#{2 := _}, Described),
    ?assertNotEqual(nomatch, string:find(maps:get(2, Described), "url")).

%%====================================================================
%% The NIF stubs called directly
%%====================================================================

%% The NIFs answer `badarg' (an atom, which the API modules raise with the
%% caller's arguments) for anything but a binary to work on and options
%% its kind takes: not a map, an unknown key, a bad value, an option of
%% another kind of call.
nif_stubs_reject_nonsense_test() ->
    Nonsense = [-1, 4, 1 bsl 64, 1.0, foo, <<>>, [{mode, urlsafe}], #{foo => 1},
                #{mode => 3}, #{padding => yes}],
    DecodeOnly = [#{mode => any}, #{whitespace => reject}, #{canonical => true}],
    EncodeOnly = [#{line_length => 4}, #{line_break => lf}, #{line_length => 0},
                  #{line_length => -1}, #{line_length => 1.0}],
    [?assertEqual(badarg, b64simd_nif:encode(<<"x">>, O), O) || O <- Nonsense ++ DecodeOnly],
    [?assertEqual(badarg, b64simd_nif:decode(<<"QQ==">>, O), O) || O <- Nonsense ++ EncodeOnly],
    [?assertEqual(badarg, b64simd_nif:mime_decode(<<"QQ==">>, O), O)
     || O <- Nonsense ++ EncodeOnly ++ [#{whitespace => skip}, #{canonical => false}]],
    [?assertEqual(badarg, b64simd_nif:encode(T, #{}), T) || T <- [[], "x", <<1:1>>, foo, 1]],
    [?assertEqual(badarg, b64simd_nif:decode(T, #{}), T) || T <- [[], "QQ==", <<1:1>>, foo]],
    [?assertEqual(badarg, b64simd_nif:encode(T), T) || T <- [[], "x", <<1:1>>, foo, 1]],
    [?assertEqual(badarg, b64simd_nif:F(T), {F, T}) || T <- [[], "QQ==", <<1:1>>, foo],
                                                       F <- [decode, mime_decode, is_valid]],
    [?assertEqual(badarg, b64simd_nif:hex_encode(<<"x">>, C), C) || C <- [mixed, 1, #{}, "upper"]],
    [?assertEqual(badarg, b64simd_nif:decode_stream_init(O), O) || O <- Nonsense ++ EncodeOnly],
    [?assertEqual(badarg, b64simd_nif:encode_stream_init(O), O) || O <- Nonsense ++ DecodeOnly],
    [?assertEqual(badarg, b64simd_nif:decode_stream(T, <<"QQ==">>), T)
     || T <- [[], "QQ==", <<1:1>>, foo, 4, <<"not a state">>, <<0:128, 1>>]],
    State = b64simd_nif:decode_stream_init(#{}),
    [?assertEqual(badarg, b64simd_nif:decode_stream(State, T), T)
     || T <- [[], "QQ==", <<1:1>>, foo]],
    [?assertEqual(badarg, b64simd_nif:decode_stream_end(T), T) || T <- [[], <<1:1>>, foo, <<"bad">>]],
    [?assertEqual(badarg, b64simd_nif:encode_stream_end(T), T) || T <- [[], <<1:1>>, foo, <<"bad">>]],
    [?assertEqual(badarg, b64simd_nif:continue(J), J) || J <- [make_ref(), foo, <<>>, self(), 1]],
    [?assertEqual(badarg, b64simd_nif:options(K), K) || K <- [foo, "encode", 1]],
    [?assertError(badarg, b64simd_nif:set_slice_bytes(B)) || B <- [-1, foo, 1 bsl 65]].

nif_jobs_reject_misuse_test() ->
    Input = binary:copy(<<"abc">>, 100_000),
    ok = b64simd_nif:set_slice_bytes(4096),
    try
        {continue, Job} = b64simd_nif:encode(Input, #{}),
        {continue, _} = b64simd_nif:continue(Job),
        Encoded = finish(Job),
        ?assertEqual(base64:encode(Input), Encoded),
        %% A finished job cannot be continued.
        ?assertEqual(badarg, b64simd_nif:continue(Job)),
        %% A failed decode job neither.
        {continue, Bad} = b64simd_nif:decode(<<Encoded/binary, "*">>, #{}),
        ?assertMatch({error, {invalid_character, _}, $*}, finish(Bad)),
        ?assertEqual(badarg, b64simd_nif:continue(Bad)),
        %% Two processes racing on one job: the job ends once, with the right
        %% result, and the other gets badarg.
        {continue, Shared} = b64simd_nif:encode(Input, #{}),
        Self = self(),
        Finish = fun() -> finish(Shared) end,
        Racers = [spawn(fun() -> Self ! {self(), b64simd_test_lib:outcome(Finish)} end)
                  || _ <- [1, 2]],
        Results = [receive {R, Result} -> Result end || R <- Racers],
        ?assert(lists:member(Encoded, Results), Results),
        [?assert(R =:= Encoded orelse R =:= badarg, R) || R <- Results]
    after
        ok = b64simd_nif:set_slice_bytes(0)
    end.

finish(Job) ->
    case b64simd_nif:continue(Job) of
        {continue, Next} -> finish(Next);
        Result -> Result
    end.

%%====================================================================
%% Helpers
%%====================================================================

%% Every public function with `Arg' as its data argument.
every_call(Arg) ->
    [{encode, [Arg]}, {encode, [Arg, #{}]}, {encode_to_string, [Arg]},
     {encode_to_string, [Arg, #{mode => urlsafe}]}, {decode, [Arg]},
     {decode, [Arg, #{mode => any}]}, {decode_to_string, [Arg]},
     {decode_to_string, [Arg, #{}]}, {try_decode, [Arg]},
     {try_decode, [Arg, #{padding => false}]}].

%% `badarg' raised from the b64simd function itself, and format_error/2
%% gives a description (the shell's erl_error path), never a crash.
check_badarg(Fun, Args) ->
    try apply(b64simd, Fun, Args) of
        Result -> erlang:error({expected_badarg, Fun, Args, Result})
    catch
        error:badarg:Stack ->
            %% The *_to_string functions raise from the call they wrap.
            ?assertMatch([{b64simd, _, _, _} | _], Stack, {Fun, Args}),
            Map = b64simd:format_error(badarg, Stack),
            ?assert(is_map(Map), {Fun, Args}),
            ?assertNotEqual(#{}, Map, {Fun, Args}),
            Formatted = erl_error:format_exception(error, badarg, Stack),
            ?assert(is_list(unicode:characters_to_list(Formatted)), {Fun, Args})
    end.

describe(Fun, Args) ->
    try apply(b64simd, Fun, Args) of
        Result -> erlang:error({expected_badarg, Fun, Args, Result})
    catch
        error:badarg:Stack -> b64simd:format_error(badarg, Stack)
    end.

nest(0, Inner) -> Inner;
nest(N, Inner) -> nest(N - 1, [Inner]).

try_decode(B64) ->
    case b64simd:try_decode(B64) of
        {ok, Data} -> {ok, Data};
        {error, _} -> error
    end.

oracle_decode(B64) ->
    try base64:decode(B64) of
        Data -> {ok, Data}
    catch
        error:_ -> error
    end.
