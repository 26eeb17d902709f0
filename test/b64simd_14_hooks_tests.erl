%% The test and benchmark hooks exist only in the test profile's build: a
%% normal build's b64simd_nif exports none and its NIF library registers
%% none, so nothing can change a VM's slicing or run a dirty-scheduler copy.
%% (These suites run the test profile, which has them: so the normal build
%% is checked here by compiling the module without B64SIMD_HOOKS and by
%% reading the release library, with the hooks build as the control.)
-module(b64simd_14_hooks_tests).
-include_lib("eunit/include/eunit.hrl").

-define(HOOKS, [encode_dirty, decode_dirty, supported_kernels, set_slice_bytes, charges]).

%% Two compilations of a module, which a busy host can stretch past
%% EUnit's default of 5 s.
normal_build_exports_no_hook_test_() ->
    {timeout, 60, fun normal_build_exports_no_hook/0}.

normal_build_exports_no_hook() ->
    Source = filename:join([code:lib_dir(b64simd), "src", "b64simd_nif.erl"]),
    {ok, b64simd_nif, Beam} = compile:file(Source, [binary]),
    {ok, {b64simd_nif, [{exports, Exports}]}} = beam_lib:chunks(Beam, [exports]),
    ?assertEqual([], [F || {F, _} <- Exports, lists:member(F, ?HOOKS)]),
    {ok, b64simd_nif, HooksBeam} = compile:file(Source, [binary, {d, 'B64SIMD_HOOKS'}]),
    {ok, {b64simd_nif, [{exports, HooksExports}]}} = beam_lib:chunks(HooksBeam, [exports]),
    ?assertEqual(lists:sort(?HOOKS),
                 lists:usort([F || {F, _} <- HooksExports, lists:member(F, ?HOOKS)])).

release_library_registers_no_hook_test() ->
    Priv = code:priv_dir(b64simd),
    {ok, Release} = file:read_file(filename:join(Priv, "libb64simd_nif.so")),
    {ok, Hooks} = file:read_file(filename:join(Priv, "libb64simd_nif_hooks.so")),
    %% A NIF's name is a NUL-terminated string in the library's data.
    Names = [<<(atom_to_binary(Hook))/binary, 0>> || Hook <- ?HOOKS],
    ?assertEqual([], [N || N <- Names, binary:match(Release, N) =/= nomatch]),
    ?assertEqual([], [N || N <- Names, binary:match(Hooks, N) =:= nomatch]).

loaded_build_is_the_hooks_build_test() ->
    {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
    ?assert(erlang:function_exported(b64simd_nif, set_slice_bytes, 1)).
