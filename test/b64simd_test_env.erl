%% Shared by the reliability suites: which kernel this test VM runs.
-module(b64simd_test_env).
-export([is_default_kernel/0]).

%% @doc True when this VM runs the kernel simdutf picks by itself: none is
%% forced, or the forced one is the best this CPU supports (make test forces
%% every kernel in turn). Tests too slow to repeat per kernel run only here.
-spec is_default_kernel() -> boolean().
is_default_kernel() ->
    case os:getenv("SIMDUTF_FORCE_IMPLEMENTATION") of
        false -> true;
        Forced -> list_to_binary(Forced) =:= hd(b64simd_nif:supported_kernels())
    end.
