%% Faults: reloading the NIF module, a NIF library missing from priv/, and a
%% forced simdutf kernel that cannot be used. Each must either work or fail
%% cleanly with an error that says what is wrong; none may take the VM down.
%%
%% What reloading does (rustler registers no `upgrade' callback):
%% - `code:load_file(b64simd_nif)' while the module is loaded: the new
%%   instance's on_load fails with `{upgrade, "Upgrade not supported by this
%%   NIF library."}', the load returns `{error, on_load_failure}' and the
%%   running instance keeps working;
%% - `code:delete/1' + `code:purge/1' + `code:load_file/1': the old library is
%%   unloaded with its module, and the new load is a fresh one that works;
%% - a sliced job started by the old instance is refused with `badarg' by the
%%   new one (its resource type belongs to the old library), and is freed
%%   normally when dropped.
-module(b64simd_31_fault_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SAMPLE, <<"reliability">>).
-define(SAMPLE_B64, <<"cmVsaWFiaWxpdHk=">>).

%%====================================================================
%% Reloading in this VM
%%====================================================================

reload_fails_cleanly_and_old_code_keeps_working_test() ->
    ?assertEqual(?SAMPLE_B64, b64simd:encode(?SAMPLE)),
    ?assertEqual({error, on_load_failure}, code:load_file(b64simd_nif)),
    ?assertEqual(?SAMPLE_B64, b64simd:encode(?SAMPLE), "old instance still in use"),
    ?assertEqual(?SAMPLE, b64simd:decode(?SAMPLE_B64)).

load_nif_from_another_module_is_refused_test() ->
    %% load_nif/2 must be called from the NIF module itself: from anywhere
    %% else it is refused ({bad_lib, ...}) without touching the loaded library.
    Path = filename:join(code:priv_dir(b64simd), "libb64simd_nif"),
    ?assertMatch({error, {_, _}}, erlang:load_nif(Path, 0)),
    ?assertEqual(?SAMPLE_B64, b64simd:encode(?SAMPLE)).

delete_purge_and_load_again_works_test_() ->
    {timeout, 60, fun delete_purge_and_load_again/0}.

delete_purge_and_load_again() ->
    Big = binary:copy(<<"0123456789">>, 400_000),
    %% A job started by the first instance, held by another process across
    %% the reloads, then continued under the last instance and dropped.
    Self = self(),
    Holder = spawn(fun() ->
                           ok = b64simd_nif:set_slice_bytes(64 * 1024),
                           {continue, Job} = b64simd_nif:encode(Big, 4),
                           ok = b64simd_nif:set_slice_bytes(0),
                           Self ! {started, self()},
                           receive continue -> ok end,
                           Continue = fun() -> b64simd_nif:continue(Job) end,
                           Self ! {continued, self(), b64simd_test_lib:outcome(Continue)}
                   end),
    receive {started, Holder} -> ok end,
    lists:foreach(
      fun(Round) ->
              ?assert(code:delete(b64simd_nif), {round, Round}),
              _ = code:purge(b64simd_nif),
              ?assertEqual({module, b64simd_nif}, code:load_file(b64simd_nif), {round, Round}),
              ?assertEqual(?SAMPLE_B64, b64simd:encode(?SAMPLE), {round, Round}),
              ?assertEqual(base64:encode(Big), b64simd:encode(Big), {round, Round})
      end, lists:seq(1, 5)),
    Ref = monitor(process, Holder),
    Holder ! continue,
    receive {continued, Holder, Continued} ->
            ?assertMatch({'EXIT', {badarg, _}}, Continued, "stale job refused")
    end,
    receive {'DOWN', Ref, process, Holder, normal} -> ok end,
    %% The stale job is gone (its destructor ran in the first library);
    %% sliced jobs of the current instance still work.
    [erlang:garbage_collect(P) || P <- processes()],
    ?assertEqual(base64:encode(Big), b64simd:encode(Big), "after the stale job was freed"),
    ?assertEqual(Big, b64simd:decode(b64simd:encode(Big))),
    %% b64simd itself reloads like any pure Erlang module.
    ?assert(code:soft_purge(b64simd)),
    ?assertEqual({module, b64simd}, code:load_file(b64simd)),
    ?assertEqual(?SAMPLE, b64simd:decode(?SAMPLE_B64)).

%%====================================================================
%% Load failures, each in a separate VM
%%====================================================================

missing_library_names_the_file_test_() ->
    {timeout, 60, fun missing_library_names_the_file/0}.

missing_library_names_the_file() ->
    Root = temp_dir("b64simd_missing_priv"),
    Ebin = filename:join([Root, "b64simd", "ebin"]),
    Priv = filename:join([Root, "b64simd", "priv"]),
    ok = filelib:ensure_dir(filename:join(Ebin, "x")),
    ok = filelib:ensure_dir(filename:join(Priv, "x")),
    OurEbin = filename:dirname(code:which(b64simd_nif)),
    [{ok, _} = file:copy(F, filename:join(Ebin, filename:basename(F)))
     || F <- filelib:wildcard(filename:join(OurEbin, "b64simd*"))],
    {Status, Output} =
        run_erl([], ["-pa", Ebin],
                "io:format(\"ensure_loaded=~p~n\", [code:ensure_loaded(b64simd_nif)]),"
                "io:format(\"call=~0p~n\", [catch b64simd:encode(<<1>>)]),"
                "halt(0)."),
    ok = file:del_dir_r(Root),
    ?assertEqual(0, Status, Output),
    %% The test profile's library: the one with the hooks (b64simd_14_hooks_tests).
    Expected = filename:join(Priv, "libb64simd_nif_hooks.so"),
    %% The stub module loads, and every call raises an error that names the
    %% load failure, not `undef' nor a crash of the VM.
    ?assert(contains(Output, "ensure_loaded={module,b64simd_nif}"), Output),
    ?assert(contains(Output, "call={'EXIT',{{b64simd_nif_not_loaded,{nif_library_missing,"),
            Output),
    ?assert(contains(Output, Expected), Output).

unknown_kernel_refuses_to_load_test_() ->
    {timeout, 60, fun() -> refused_kernel("bogus", "names no simdutf kernel") end}.

foreign_kernel_refuses_to_load_test_() ->
    %% A real simdutf kernel of another architecture.
    Foreign = case erlang:system_info(system_architecture) of
                  "x86_64" ++ _ -> "arm64";
                  _ -> "icelake"
              end,
    {timeout, 60, fun() -> refused_kernel(Foreign, "SIMDUTF_FORCE_IMPLEMENTATION") end}.

refused_kernel(Kernel, Message) ->
    Ebin = filename:dirname(code:which(b64simd_nif)),
    {Status, Output} =
        run_erl([{"SIMDUTF_FORCE_IMPLEMENTATION", Kernel}], ["-pa", Ebin],
                "io:format(\"call=~0p~n\", [catch b64simd:encode(<<1>>)]),"
                "halt(0)."),
    ?assertEqual(0, Status, Output),
    ?assert(contains(Output, "b64simd: refusing to load"), Output),
    ?assert(contains(Output, Message), Output),
    ?assert(contains(Output, "call={'EXIT',{{b64simd_nif_not_loaded,{load,"), Output).

%%====================================================================
%% An output that cannot be allocated
%%====================================================================

%% Without terabytes: a separate VM under `ulimit -v' (4 GB of address
%% space) holds a 1.2 GiB input, but not its 1.6 GiB encoding. The NIF's
%% allocation fails and raises system_limit; the VM survives and goes on.
%% Kernel-independent and slow, so on the default kernel only.
unallocatable_output_raises_system_limit_test_() ->
    case {b64simd_test_env:is_default_kernel(), b64simd_test_env:emulator()} of
        {true, false} -> {timeout, 120, fun unallocatable_output_raises_system_limit/0};
        {true, Emulator} ->
            b64simd_test_env:skip(unallocatable_output_raises_system_limit,
                                  Emulator ++ " ignores the address-space limit (ulimit -v)");
        {false, _} -> []
    end.

unallocatable_output_raises_system_limit() ->
    Ebin = filename:dirname(code:which(b64simd_nif)),
    Eval = "B = binary:copy(<<\"abc\">>, 400 * 1024 * 1024),"
        "R = try b64simd:encode(B) of _ -> fitted catch C:E -> {C, E} end,"
        "io:format(\"result=~p~n\", [R]),"
        "io:format(\"after=~p~n\", [b64simd:encode(<<\"abc\">>)]),"
        "halt(0).",
    Cmd = "ulimit -v 4000000 && exec \"$0\" -noshell -pa \"$1\" -eval \"$2\"",
    Port = open_port({spawn_executable, os:find_executable("sh")},
                     [{args, ["-c", Cmd, os:find_executable("erl"), Ebin, Eval]},
                      exit_status, stderr_to_stdout, binary, hide]),
    {Status, Output} = collect(Port, []),
    ?assertEqual(0, Status, Output),
    ?assert(contains(Output, "result={error,system_limit}"), Output),
    ?assert(contains(Output, "after=<<\"YWJj\">>"), Output).

%%====================================================================
%% Helpers
%%====================================================================

temp_dir(Prefix) ->
    Dir = filename:join(os:getenv("TMPDIR", "/tmp"),
                        Prefix ++ "_" ++ os:getpid() ++ "_"
                        ++ integer_to_list(erlang:unique_integer([positive]))),
    ok = filelib:ensure_dir(filename:join(Dir, "x")),
    Dir.

%% Runs `erl -noshell Args -eval Eval' with extra environment variables;
%% returns its exit status and everything it printed.
run_erl(Env, Args, Eval) ->
    Erl = os:find_executable("erl"),
    Port = open_port({spawn_executable, Erl},
                     [{args, ["-noshell" | Args] ++ ["-eval", Eval]}, {env, Env},
                      exit_status, stderr_to_stdout, binary, hide]),
    collect(Port, []).

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Acc, Data]);
        {Port, {exit_status, Status}} -> {Status, binary_to_list(iolist_to_binary(Acc))}
    after 50_000 ->
            port_close(Port),
            {timeout, binary_to_list(iolist_to_binary(Acc))}
    end.

contains(Haystack, Needle) ->
    string:find(Haystack, Needle) =/= nomatch.
