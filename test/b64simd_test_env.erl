%% Shared by the reliability suites: which kernel this test VM runs.
-module(b64simd_test_env).
-export([is_default_kernel/0, emulator/0, skip/2]).

%% @doc True when this VM runs the kernel simdutf picks by itself: none is
%% forced, or the forced one is the best this CPU supports (make test forces
%% every kernel in turn). Tests too slow to repeat per kernel run only here.
-spec is_default_kernel() -> boolean().
is_default_kernel() ->
    case os:getenv("SIMDUTF_FORCE_IMPLEMENTATION") of
        false -> true;
        Forced -> list_to_binary(Forced) =:= hd(b64simd_nif:supported_kernels())
    end.

%% @doc The emulator this VM runs under, as `make test-arm64' says through
%% B64SIMD_EMULATED (qemu-user), or false on real hardware.
-spec emulator() -> string() | false.
emulator() ->
    case os:getenv("B64SIMD_EMULATED") of
        false -> false;
        "" -> false;
        Name -> Name
    end.

%% @doc Skips a test that cannot run here, saying which and why (EUnit has
%% no skip of its own): returns no tests.
-spec skip(atom(), string()) -> [].
skip(Test, Why) ->
    io:format(user, "~n*** SKIPPED ~s: ~s~n", [Test, Why]),
    [].
