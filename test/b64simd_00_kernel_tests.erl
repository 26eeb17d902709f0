%% Says which simdutf kernel this run exercises, and that it is the one the
%% test script forced (a fresh VM per SIMDUTF_FORCE_IMPLEMENTATION).
-module(b64simd_00_kernel_tests).
-include_lib("eunit/include/eunit.hrl").

kernel_is_the_forced_one_test() ->
    Kernel = b64simd:kernel(),
    io:format(user, "~n*** b64simd tests running on simdutf kernel: ~s~n", [Kernel]),
    case os:getenv("SIMDUTF_FORCE_IMPLEMENTATION") of
        false -> ok;
        Forced -> ?assertEqual(list_to_atom(Forced), Kernel)
    end.

smoke_test() ->
    ?assertEqual(<<"aGVsbG8=">>, b64simd:encode(<<"hello">>)),
    ?assertEqual(<<"hello">>, b64simd:decode(<<"aGVsbG8=">>)).
