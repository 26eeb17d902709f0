%% PropEr properties, run from EUnit with a fixed number of cases each:
%% round trips under compatible options, agreement with the reference and
%% with OTP on strings drawn from a Base64-heavy alphabet and on mutated
%% valid encodings, and indifference to the iolist shape.
%%
%% PropEr's API is called directly rather than through proper.hrl's macros:
%% Debian ships that header in erlang-proper-dev, which `make test' does not
%% require. PropEr 1.2 has no seed option, but keeps a `rand' state that the
%% process already has, so seeding `rand' first makes each run reproducible.
-module(b64simd_04_prop_tests).
-include_lib("eunit/include/eunit.hrl").

-import(proper_types, [binary/1, bind/3, boolean/0, byte/0, choose/2, elements/1,
                       frequency/1, list/1, oneof/1, tuple/1, vector/2]).

-define(NUMTESTS, 1000).
-define(MAX_LENGTH, 300).

%%====================================================================
%% EUnit entry points
%%====================================================================

round_trip_test_() ->
    property(round_trip, prop_round_trip()).

encode_matches_reference_test_() ->
    property(encode_matches_reference, prop_encode_matches_reference()).

decode_matches_reference_test_() ->
    property(decode_matches_reference, prop_decode_matches_reference()).

mutated_matches_reference_test_() ->
    property(mutated_matches_reference, prop_mutated_matches_reference()).

default_matches_otp_test_() ->
    property(default_matches_otp, prop_default_matches_otp()).

iolist_shape_irrelevant_test_() ->
    property(iolist_shape_irrelevant, prop_iolist_shape_irrelevant()).

%% Runs `Property' ?NUMTESTS times from a printed seed; a failure shows the
%% shrunk counterexample.
property(Name, Property) ->
    {timeout, 120,
     {atom_to_list(Name),
      fun() ->
          _ = b64simd_test_lib:seed(Name),
          Passed = proper:quickcheck(Property, [{numtests, ?NUMTESTS}, quiet]),
          ?assertEqual(true, Passed, {counterexample, proper:counterexample()})
      end}}.

forall(Generator, Check) ->
    proper:forall(Generator, Check).

%%====================================================================
%% Properties
%%====================================================================

%% decode(encode(X, E), D) =:= X whenever D accepts what E produces.
prop_round_trip() ->
    forall(tuple([data(), encode_options(), boolean(), elements([skip, reject]), boolean()]),
           fun({Data, Encode, Any, Whitespace, Canonical}) ->
                   Mode = case Any of
                              true -> any;
                              false -> maps:get(mode, Encode, standard)
                          end,
                   Decode = #{mode => Mode, padding => maps:get(padding, Encode, true),
                              whitespace => Whitespace, canonical => Canonical},
                   Data =:= b64simd:decode(b64simd:encode(Data, Encode), Decode)
           end).

prop_encode_matches_reference() ->
    forall(tuple([data(), encode_options()]),
           fun({Data, Options}) ->
                   b64simd_ref:encode(Data, Options) =:= b64simd:encode(Data, Options)
           end).

prop_decode_matches_reference() ->
    forall(tuple([base64_like(), decode_options()]),
           fun({Input, Options}) -> agrees_with_reference(Input, Options) end).

%% Valid encodings with a few bytes replaced, inserted or deleted: inputs
%% that fail late, near SIMD block boundaries, or not at all.
prop_mutated_matches_reference() ->
    forall(tuple([data(), decode_options(), list(mutation())]),
           fun({Data, Options, Mutations}) ->
                   Valid = b64simd_ref:encode(Data, encode_options_for(Options)),
                   agrees_with_reference(mutate(Valid, Mutations), Options)
           end).

prop_default_matches_otp() ->
    forall(oneof([base64_like(), bind(data(), fun base64:encode/1, false)]),
           fun(Input) ->
                   case {b64simd_test_lib:otp_decode(Input), b64simd:try_decode(Input)} of
                       {{ok, Data}, {ok, Data}} -> true;
                       {error, {error, _}} -> true;
                       _ -> false
                   end
           end).

prop_iolist_shape_irrelevant() ->
    forall(tuple([data(), base64_like(), list(shape_step()), decode_options()]),
           fun({Data, Input, Steps, Options}) ->
                   b64simd:encode(Data) =:= b64simd:encode(shape(Data, Steps))
                       andalso b64simd:try_decode(Input, Options)
                               =:= b64simd:try_decode(shape(Input, Steps), Options)
           end).

agrees_with_reference(Input, Options) ->
    b64simd_ref:decode(Input, Options) =:= b64simd:try_decode(Input, Options).

%%====================================================================
%% Generators
%%====================================================================

data() ->
    bind(choose(0, ?MAX_LENGTH), fun(Length) -> binary(Length) end, false).

encode_options() ->
    elements(b64simd_test_lib:encode_option_sets()).

decode_options() ->
    elements(b64simd_test_lib:decode_option_sets()).

encode_options_for(#{mode := any} = Options) ->
    encode_options_for(Options#{mode := urlsafe});
encode_options_for(#{mode := Mode, padding := Padding}) ->
    #{mode => Mode, padding => Padding}.

%% Mostly alphabet characters, with '=', both alphabets' extra characters,
%% skipped and rejected whitespace, and now and then any byte.
base64_like() ->
    bind(choose(0, ?MAX_LENGTH),
         fun(Length) -> bind(vector(Length, base64_byte()), fun list_to_binary/1, false) end,
         false).

base64_byte() ->
    frequency([{40, elements(b64simd_ref:alphabet(standard))},
               {4, elements("=")},
               {3, elements("-_+/")},
               {3, elements(" \t\r\n")},
               {1, elements("\f\v!.")},
               {1, byte()}]).

mutation() ->
    tuple([elements([replace, insert, delete]), choose(0, 4 * ?MAX_LENGTH), base64_byte()]).

mutate(Bin, []) ->
    Bin;
mutate(Bin, [{Kind, Position0, Byte} | Rest]) ->
    Position = Position0 rem (byte_size(Bin) + 1),
    <<Head:Position/binary, Tail/binary>> = Bin,
    Mutated = case {Kind, Tail} of
                  {insert, _} -> <<Head/binary, Byte, Tail/binary>>;
                  {replace, <<_, After/binary>>} -> <<Head/binary, Byte, After/binary>>;
                  {delete, <<_, After/binary>>} -> <<Head/binary, After/binary>>;
                  {_, <<>>} -> <<Head/binary, Byte>>
              end,
    mutate(Mutated, Rest).

%% How to cut the next piece off a binary and wrap it in an iolist.
shape_step() ->
    tuple([choose(0, 80), elements([binary, bytes, nested, empty_before, sub_binary,
                                    improper_tail])]).

%% An iolist that flattens to `Bin', built by `Steps' (the rest of `Bin'
%% goes last, as a binary).
shape(Bin, []) ->
    [Bin];
shape(Bin, [{Length0, Form} | Steps]) ->
    Length = min(Length0, byte_size(Bin)),
    <<Piece:Length/binary, Rest/binary>> = Bin,
    [piece(Piece, Form) | shape(Rest, Steps)].

piece(Piece, binary) -> Piece;
piece(Piece, bytes) -> binary_to_list(Piece);
piece(Piece, nested) -> [[[Piece]], []];
piece(Piece, empty_before) -> [[], <<>>, Piece];
piece(Piece, sub_binary) -> binary:part(<<"xyz", Piece/binary, "xyz">>, 3, byte_size(Piece));
piece(Piece, improper_tail) -> [[] | Piece].
