%% Says which simdutf kernel and Base64 encoders this run exercises, and
%% that they are the ones the test script forced (a fresh VM per
%% SIMDUTF_FORCE_IMPLEMENTATION and B64SIMD_OWN_AVX2), or, where none is
%% forced, the one simdutf picks by itself.
-module(b64simd_00_kernel_tests).
-include_lib("eunit/include/eunit.hrl").

kernel_is_the_forced_one_test() ->
    Kernel = b64simd:kernel(),
    io:format(user, "~n*** b64simd tests running on simdutf kernel: ~s, encoders: ~p~n",
              [Kernel, b64simd:encoders()]),
    Expected = case os:getenv("SIMDUTF_FORCE_IMPLEMENTATION") of
                   %% simdutf's own choice: the best kernel this CPU runs.
                   false -> binary_to_atom(hd(b64simd_nif:supported_kernels()));
                   Forced -> list_to_atom(Forced)
               end,
    ?assertEqual(Expected, Kernel).

%% Ours where simdutf runs haswell, and for big calls on every CPU with AVX2
%% (the CPUs that run haswell) but under the scalar kernel, which means no
%% SIMD; simdutf's elsewhere; B64SIMD_OWN_AVX2 forces either.
encoders_are_the_chosen_ones_test() ->
    Avx2 = lists:member(<<"haswell">>, b64simd_nif:supported_kernels()),
    Default = case {b64simd:kernel(), Avx2} of
                  {haswell, true} -> {avx2, avx2};
                  {fallback, _} -> {simdutf, simdutf};
                  {_, true} -> {simdutf, avx2};
                  {_, false} -> {simdutf, simdutf}
              end,
    Expected = case os:getenv("B64SIMD_OWN_AVX2") of
                   Unset when Unset =:= false; Unset =:= ""; Unset =:= "auto" -> Default;
                   "never" -> {simdutf, simdutf};
                   "always" -> {avx2, avx2}
               end,
    #{calls := Calls, big_calls := BigCalls, big_call_bytes := BigBytes} = b64simd:encoders(),
    ?assertEqual(Expected, {Calls, BigCalls}),
    ?assertEqual(16 * 1024 * 1024, BigBytes).

%% A big call, which our AVX2 encoder writes with streaming stores where the
%% CPU has AVX2, against OTP's encoder, at both ends of the sizes that
%% leave bytes after the whole groups.
big_call_equals_otp_test_() ->
    Seed = 16#5EED0A,
    io:format(user, "~n*** big call: seed ~p~n", [Seed]),
    _ = rand:seed(exsss, Seed),
    Data = rand:bytes(16 * 1024 * 1024 + 2),
    {timeout, 120,
     [?_assertEqual({Size, base64:encode(Part)}, {Size, b64simd:encode(Part)})
      || Size <- [16 * 1024 * 1024, 16 * 1024 * 1024 + 2],
         Part <- [binary:part(Data, 0, Size)]]}.

smoke_test() ->
    ?assertEqual(<<"aGVsbG8=">>, b64simd:encode(<<"hello">>)),
    ?assertEqual(<<"hello">>, b64simd:decode(<<"aGVsbG8=">>)).

%% The kernel is the one chosen at load: simdutf reads its variable once,
%% and so does the library, so setting it afterwards changes neither.
kernel_is_chosen_at_load_test() ->
    Kernel = b64simd:kernel(),
    Before = os:getenv("SIMDUTF_FORCE_IMPLEMENTATION"),
    Other = hd([K || K <- ["fallback", "westmere", "arm64"], list_to_atom(K) =/= Kernel]),
    os:putenv("SIMDUTF_FORCE_IMPLEMENTATION", Other),
    try
        ?assertEqual(Kernel, b64simd:kernel())
    after
        case Before of
            false -> os:unsetenv("SIMDUTF_FORCE_IMPLEMENTATION");
            Value -> os:putenv("SIMDUTF_FORCE_IMPLEMENTATION", Value)
        end
    end.
