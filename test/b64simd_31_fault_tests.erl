%% Faults: reloading the NIF module, and each cause of a failed load (a
%% forced simdutf kernel or encoder that cannot be used, on a smaller CPU
%% under qemu-user where this one runs them all; a library missing or built
%% for another machine, OTP or glibc). Each must either work or fail cleanly
%% with an error that says what is wrong and how to fix it; none may take
%% the VM down.
%%
%% What reloading does (rustler registers no `upgrade' callback):
%% - `code:load_file(b64simd_nif)' while the module is loaded: the new
%%   instance's on_load fails with `{upgrade, "Upgrade not supported by this
%%   NIF library."}', the load returns `{error, on_load_failure}' and the
%%   running instance keeps working;
%% - `code:delete/1' + `code:purge/1' + `code:load_file/1': the old instance
%%   goes with its module (erts unmaps its library once no resource of it is
%%   left) and the new load is one that works;
%% - a sliced job started by the old instance is refused with `badarg' by the
%%   new one (its resource type belongs to the old library), and is freed
%%   normally when dropped.
-module(b64simd_31_fault_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SAMPLE, <<"reliability">>).
%% The commands a missing library's message names; make test-package runs
%% them where a client project's b64simd dependency lost its library.
-define(REBUILD_WITH_REBAR3, "`rebar3 clean --apps=b64simd && rebar3 compile`").
-define(REBUILD_WITH_MIX, "`mix deps.compile b64simd`").
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

%% Twenty loads and purges in a row, each load's library unloaded with its
%% module, with a sliced call made on each: exact every time.
purge_and_load_in_a_row_test_() ->
    {timeout, 60, fun purge_and_load_in_a_row/0}.

purge_and_load_in_a_row() ->
    Big = binary:copy(<<"0123456789">>, 100_000),
    lists:foreach(
      fun(Round) ->
              ?assert(code:delete(b64simd_nif), {round, Round}),
              _ = code:purge(b64simd_nif),
              ?assertEqual({module, b64simd_nif}, code:load_file(b64simd_nif), {round, Round}),
              ?assertEqual(base64:encode(Big), b64simd:encode(Big), {round, Round})
      end, lists:seq(1, 20)),
    ?assertEqual(Big, b64simd:decode(b64simd:encode(Big))).

delete_purge_and_load_again_works_test_() ->
    {timeout, 60, fun delete_purge_and_load_again/0}.

delete_purge_and_load_again() ->
    Big = binary:copy(<<"0123456789">>, 400_000),
    %% A job started by the first instance, held by another process across
    %% the reloads, then continued under the last instance and dropped.
    Self = self(),
    Holder = spawn(fun() ->
                           ok = b64simd_nif:set_slice_bytes(64 * 1024),
                           {continue, Job} = b64simd_nif:encode(Big, #{}),
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
            ?assertEqual(badarg, Continued, "stale job refused")
    end,
    receive {'DOWN', Ref, process, Holder, normal} -> ok end,
    %% The stale job is gone (its destructor, of the first instance, ran);
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

%% Each cause that can be made here is made, in a VM of its own, and must
%% raise `{b64simd_nif_not_loaded, Reason, Message}' from every call: the
%% reason as data, the message `b64simd:format_error/1''s sentence for it
%% (which says the fix), and the same sentence logged at load.

missing_library_test_() ->
    {timeout, 60, fun() ->
        {File, Raised} = with_library(fun(File) -> ok = file:delete(File) end, []),
        assert_refusal({library_missing, File}, Raised, ?REBUILD_WITH_REBAR3)
    end}.

unknown_kernel_test_() ->
    {timeout, 60, fun() -> refused_kernel("pentium") end}.

foreign_kernel_test_() ->
    %% A real simdutf kernel of another architecture: not one of this build.
    Foreign = case erlang:system_info(system_architecture) of
                  "x86_64" ++ _ -> "arm64";
                  _ -> "icelake"
              end,
    {timeout, 60, fun() -> refused_kernel(Foreign) end}.

refused_kernel(Name) ->
    {Reason, Raised} = run_load([{"SIMDUTF_FORCE_IMPLEMENTATION", Name}]),
    ?assertMatch({unknown_kernel, _, _}, Reason, Raised),
    {unknown_kernel, Named, Known} = Reason,
    ?assertEqual(list_to_binary(Name), Named),
    ?assertEqual([], b64simd_nif:supported_kernels() -- Known,
                 "every kernel this CPU runs is among those named"),
    assert_refusal(Reason, Raised, "unset SIMDUTF_FORCE_IMPLEMENTATION").

%% A kernel of this build whose instructions the CPU lacks (icelake on a
%% CPU without AVX-512): on this CPU if it lacks one, else on an x86-64 CPU
%% without AVX (qemu-user's Westmere), which lacks icelake's and haswell's.
kernel_the_cpu_lacks_test_() ->
    Ours = b64simd_nif:supported_kernels(),
    %% x86-64's kernels that need more than SSE2; aarch64 has one kernel,
    %% which every aarch64 CPU runs.
    Demanding = case erlang:system_info(system_architecture) of
                    "x86_64" ++ _ -> [<<"icelake">>, <<"haswell">>, <<"westmere">>];
                    _ -> []
                end,
    case {[K || K <- Demanding, not lists:member(K, Ours)], smaller_cpu()} of
        {[Lacked | _], _} ->
            {timeout, 60, fun() -> lacked_kernel(host, Lacked, Ours) end};
        {[], {ok, Cpu}} ->
            [{timeout, 120, {binary_to_list(Lacked), fun() -> lacked_kernel(Cpu, Lacked, none) end}}
             || Lacked <- [<<"icelake">>, <<"haswell">>]];
        {[], {skip, Why}} ->
            b64simd_test_env:skip(kernel_the_cpu_lacks,
                                  "this CPU runs every simdutf kernel of its architecture, and "
                                  ++ Why)
    end.

%% The refusal of `Lacked', and the kernels the CPU can run: `Supported',
%% or where that CPU's list is not at hand, a part of this one's.
lacked_kernel(Cpu, Lacked, Supported) ->
    {Reason, Raised} = run_load(Cpu, [{"SIMDUTF_FORCE_IMPLEMENTATION", binary_to_list(Lacked)}]),
    ?assertMatch({forced_kernel_unsupported, Lacked, _}, Reason, Raised),
    {_, _, Runs} = Reason,
    case Supported of
        none ->
            ?assertNot(lists:member(Lacked, Runs)),
            ?assertEqual([], Runs -- b64simd_nif:supported_kernels()),
            ?assertEqual(lists:last(b64simd_nif:supported_kernels()), lists:last(Runs));
        _ ->
            ?assertEqual(Supported, Runs)
    end,
    assert_refusal(Reason, Raised, "unset SIMDUTF_FORCE_IMPLEMENTATION").

unknown_own_avx2_test_() ->
    {timeout, 60, fun() ->
        {Reason, Raised} = run_load([{"B64SIMD_OWN_AVX2", "avx2"}]),
        ?assertEqual({unknown_own_avx2, <<"avx2">>, [<<"auto">>, <<"always">>, <<"never">>]},
                     Reason),
        assert_refusal(Reason, Raised, "unset B64SIMD_OWN_AVX2")
    end}.

%% Our AVX2 code always: refused on a CPU without AVX2 (this one, or qemu-user's
%% Westmere), and where haswell runs (AVX2 and BMI), loaded and used.
own_avx2_always_test_() ->
    Avx2 = lists:member(<<"haswell">>, b64simd_nif:supported_kernels()),
    Refused = case {Avx2, smaller_cpu()} of
                  {false, _} -> [{timeout, 60, fun() -> refused_avx2(host) end}];
                  {true, {ok, Cpu}} -> [{timeout, 120, fun() -> refused_avx2(Cpu) end}];
                  {true, {skip, Why}} ->
                      b64simd_test_env:skip(own_avx2_always_refused,
                                            "this CPU has AVX2, and " ++ Why)
              end,
    Loaded = [{timeout, 60, fun() ->
                                  {Result, Raised} = run_load(host, [{"B64SIMD_OWN_AVX2", "always"}]),
                                  ?assertEqual({loaded, #{calls => avx2, big_calls => avx2}},
                                               {Result, encoders(Raised)})
                          end} || Avx2],
    Refused ++ Loaded.

%% SIMDUTF_FORCE_IMPLEMENTATION=fallback, simdutf's scalar kernel, means no
%% SIMD: simdutf's encoder for every call, and ours only where
%% B64SIMD_OWN_AVX2=always asks for it (on a CPU with AVX2). Once, in the
%% default kernel's run, where simdutf has that kernel (not on arm64,
%% where its build has only the NEON one).
fallback_runs_no_simd_test_() ->
    Kernels = b64simd_nif:supported_kernels(),
    case lists:member(<<"fallback">>, Kernels) of
        true -> fallback_runs_no_simd(lists:member(<<"haswell">>, Kernels));
        false ->
            b64simd_test_env:skip(fallback_runs_no_simd,
                                  io_lib:format("simdutf has no fallback kernel here (~s)",
                                                [lists:join(", ", Kernels)]))
    end.

fallback_runs_no_simd(Avx2) ->
    Fallback = {"SIMDUTF_FORCE_IMPLEMENTATION", "fallback"},
    Cases = [{[Fallback, {"B64SIMD_OWN_AVX2", false}], #{calls => simdutf, big_calls => simdutf}}
             | [{[Fallback, {"B64SIMD_OWN_AVX2", "always"}], #{calls => avx2, big_calls => avx2}}
                || Avx2]],
    [{timeout, 60, fun() ->
                           {Result, Raised} = run_load(host, Env),
                           ?assertEqual({loaded, Expected}, {Result, encoders(Raised)}, Env)
                   end}
     || b64simd_test_env:is_default_kernel(), {Env, Expected} <- Cases].

%% The kernel make test forces on this CPU is not forced there: the CPU
%% may lack it, which is refused first.
refused_avx2(Cpu) ->
    Env = [{"B64SIMD_OWN_AVX2", "always"}, {"SIMDUTF_FORCE_IMPLEMENTATION", false}],
    {Reason, Raised} = run_load(Cpu, Env),
    ?assertEqual({own_avx2_unsupported, <<"always">>}, Reason),
    assert_refusal(Reason, Raised, "unset B64SIMD_OWN_AVX2").

%% The encoders a VM that loaded said it runs.
encoders({loaded, Output}) ->
    [_, Line | _] = string:split(Output, "\nencoders="),
    {ok, Tokens, _} = erl_scan:string(hd(string:split(Line, "\n"))),
    {ok, Encoders} = erl_parse:parse_term(Tokens),
    Encoders.

%% A smaller x86-64 CPU to load the library on: this VM's emulator under
%% qemu-user as a Westmere (SSE4.2, no AVX), where this machine has qemu
%% and the VM is a JIT on x86-64; else why not.
smaller_cpu() ->
    Qemu = [Path || Name <- ["qemu-x86_64-static", "qemu-x86_64"],
                    Path <- [os:find_executable(Name)], Path =/= false],
    case {erlang:system_info(system_architecture), erlang:system_info(emu_flavor), Qemu,
          b64simd_test_env:emulator()} of
        {"x86_64" ++ _, jit, [Path | _], false} -> {ok, {qemu, Path, "Westmere"}};
        {"x86_64" ++ _, jit, [], false} -> {skip, "qemu-user (qemu-x86_64) is not installed"};
        {Arch, Flavor, _, false} ->
            {skip, io_lib:format("a smaller CPU is emulated for x86-64's JIT only, not ~s's "
                                 "~s", [Arch, Flavor])};
        {_, _, _, Emulator} -> {skip, "this VM already runs under " ++ Emulator}
    end.

%% A library for another machine: ours with the ELF header of an aarch64
%% (or x86-64) library, which the dynamic loader refuses as it refuses a
%% real one, and with a 32-bit ELF class.
another_architecture_test_() ->
    Machine = case erlang:system_info(system_architecture) of
                  "x86_64" ++ _ -> 183;
                  _ -> 62
              end,
    Patches = [{"e_machine", fun(<<Head:18/binary, _:16, Rest/binary>>) ->
                                     <<Head/binary, Machine:16/little, Rest/binary>>
                             end},
               {"EI_CLASS", fun(<<Head:4/binary, _, Rest/binary>>) ->
                                    <<Head/binary, 1, Rest/binary>>
                            end}],
    [{timeout, 60, {Field, fun() ->
        {File, Raised} = with_library(patch(Patch), []),
        ?assertMatch({built_for_another_architecture, File, _}, reason(Raised), Field),
        assert_refusal(reason(Raised), Raised, "B64SIMD_BUILD=source")
    end}} || {Field, Patch} <- Patches].

%% A library that needs a newer glibc: ours, asking for a version of it no
%% glibc has (the name changed in place, so the loader finds no such
%% version, as on a system older than the one it was built on).
glibc_too_old_test_() ->
    case erlang:system_info(system_architecture) of
        "x86_64-" ++ _ = Arch ->
            case string:find(Arch, "linux-gnu") of
                nomatch -> b64simd_test_env:skip(glibc_too_old, Arch ++ " has no glibc");
                _ -> {timeout, 60, fun glibc_too_old/0}
            end;
        Arch ->
            %% aarch64's first glibc version is 2.17: a name of another
            %% length would move the string table.
            b64simd_test_env:skip(glibc_too_old, "made on x86-64 only, not " ++ Arch)
    end.

glibc_too_old() ->
    Patch = fun(Library) ->
                    ?assertNotEqual(nomatch, binary:match(Library, <<"GLIBC_2.2.5">>)),
                    binary:replace(Library, <<"GLIBC_2.2.5">>, <<"GLIBC_9.9.9">>, [global])
            end,
    {File, Raised} = with_library(patch(Patch), []),
    ?assertEqual({glibc_too_old, File, "GLIBC_9.9.9"}, reason(Raised)),
    assert_refusal(reason(Raised), Raised, "B64SIMD_BUILD=source").

%% Causes this machine cannot make: a library of another NIF version (one
%% built for a newer OTP, which erts refuses by its version, or which needs
%% an enif_ function this OTP lacks), a refusal whose reason did not
%% arrive, and a text no rule knows. Their texts are the ones erts and
%% glibc give, as in erl_nif.c and dlerror.
load_error_mapping_test() ->
    File = "/x/priv/libb64simd_nif.so",
    Otp = "Library version (2.17) not compatible (with 2.16).",
    Symbol = "Failed to load NIF library: '" ++ File ++ ": undefined symbol: enif_dynamic_resource_call'",
    Class = "Failed to load NIF library: '" ++ File ++ ": wrong ELF class: ELFCLASS32'",
    Header = "Failed to load NIF library: '" ++ File ++ ": invalid ELF header'",
    Machine = "Failed to load NIF library: '" ++ File ++ ": cannot open shared object file: "
        "No such file or directory'",
    Glibc = "Failed to load NIF library: '/lib/x86_64-linux-gnu/libc.so.6: version "
        "`GLIBC_2.34' not found (required by " ++ File ++ ")'",
    Dependency = "Failed to load NIF library: 'libfoo.so.1: cannot open shared object file: "
        "No such file or directory'",
    Refused = "Library load-call unsuccessful (1).",
    Upgrade = "Upgrade not supported by this NIF library.",
    Cases = [{{bad_lib, Otp}, {built_for_another_otp, File, Otp}},
             {{load_failed, Symbol}, {built_for_another_otp, File, Symbol}},
             {{load_failed, Class}, {built_for_another_architecture, File, Class}},
             {{load_failed, Header}, {built_for_another_architecture, File, Header}},
             {{load_failed, Machine}, {built_for_another_architecture, File, Machine}},
             {{load_failed, Glibc}, {glibc_too_old, File, "GLIBC_2.34"}},
             {{load_failed, Dependency}, {load_failed, File, Dependency}},
             {{load, Refused}, {load_failed, File, Refused}},
             {{upgrade, Upgrade}, {reload_refused, File, Upgrade}}],
    [?assertEqual(Reason, b64simd_nif:load_error(File, Error), Error)
     || {Error, Reason} <- Cases],
    io:format(user, "~n*** load_error_mapping: a library built for another OTP is not made "
              "here (no other OTP's NIF build on this machine); its texts are mapped~n", []).

%% Every reason's sentence names the variable or the library, and the fix.
load_error_messages_test() ->
    File = "/x/priv/libb64simd_nif.so",
    Cases = [{{forced_kernel_unsupported, <<"icelake">>, [<<"haswell">>, <<"fallback">>]},
              ["icelake", "haswell, fallback", "unset SIMDUTF_FORCE_IMPLEMENTATION"]},
             {{unknown_kernel, <<"pentium">>, [<<"haswell">>, <<"fallback">>]},
              ["\"pentium\"", "haswell, fallback", "unset SIMDUTF_FORCE_IMPLEMENTATION"]},
             {{own_avx2_unsupported, <<"always">>},
              ["B64SIMD_OWN_AVX2=always", "lacks", "unset B64SIMD_OWN_AVX2"]},
             {{unknown_own_avx2, <<"sse">>, [<<"auto">>, <<"never">>]},
              ["\"sse\"", "auto, never", "unset B64SIMD_OWN_AVX2"]},
             {{library_missing, File}, [File, "missing", ?REBUILD_WITH_REBAR3, ?REBUILD_WITH_MIX]},
             {{built_for_another_otp, File, "v"}, [File, "another Erlang/OTP",
                                                   "B64SIMD_BUILD=source"]},
             {{built_for_another_architecture, File, "v"}, [File, "another CPU architecture",
                                                            "B64SIMD_BUILD=source"]},
             {{glibc_too_old, File, "GLIBC_2.34"}, [File, "GLIBC_2.34",
                                                    "B64SIMD_BUILD=source"]},
             {{load_failed, File, "v"}, [File, "B64SIMD_BUILD=source"]},
             {{reload_refused, File, "v"}, [File, "code:delete/1, code:purge/1"]}],
    [begin
         Message = b64simd:format_error(Reason),
         [?assert(contains(Message, Part), {Reason, Part, Message}) || Part <- Parts],
         ?assertEqual(Message, b64simd:format_error({b64simd_nif_not_loaded, Reason,
                                                     <<"ignored">>}))
     end || {Reason, Parts} <- Cases].

%% The exception a call raised after a failed load holds the reason and
%% its sentence, which the log at load said too, and which says the fix;
%% the shell prints that sentence whole (its `error_info').
assert_refusal(Reason, {Raised, Output}, Fix) ->
    ?assertMatch({b64simd_nif_not_loaded, Reason, _}, Raised, Output),
    {b64simd_nif_not_loaded, _, Message} = Raised,
    ?assertEqual(unicode:characters_to_binary(b64simd:format_error(Reason)), Message),
    ?assert(contains(binary_to_list(Message), Fix), Message),
    ?assert(contains(Output, "b64simd: " ++ binary_to_list(Message)), Output),
    ?assert(contains(Output, "*** " ++ binary_to_list(Message)), Output).

reason({{b64simd_nif_not_loaded, Reason, _Message}, _Output}) -> Reason;
reason({Raised, Output}) -> error({not_a_load_failure, Raised, Output}).

%% This build's ebin in a VM with `Env': `{loaded, Output}', or what a
%% call raised, `{Reason, {Raised, Output}}'; the VM on this CPU (`host')
%% or under qemu-user (`{qemu, Qemu, Cpu}').
run_load(Env) ->
    run_load(host, Env).

run_load(Cpu, Env) ->
    Ebin = filename:dirname(code:which(b64simd_nif)),
    case raised(Cpu, Env, Ebin) of
        {{b64simd_nif_not_loaded, Reason, _}, _} = Raised -> {Reason, Raised};
        {loaded, Output} -> {loaded, {loaded, Output}}
    end.

%% This build's ebin and NIF library copied to a directory of their own,
%% the library changed by `Change(File)', run in a VM with `Env': the
%% library's path there and what a call raised.
with_library(Change, Env) ->
    Root = temp_dir("b64simd_load"),
    Ebin = filename:join([Root, "b64simd", "ebin"]),
    Priv = filename:join([Root, "b64simd", "priv"]),
    ok = filelib:ensure_dir(filename:join(Ebin, "x")),
    ok = filelib:ensure_dir(filename:join(Priv, "x")),
    OurEbin = filename:dirname(code:which(b64simd_nif)),
    [{ok, _} = file:copy(F, filename:join(Ebin, filename:basename(F)))
     || F <- filelib:wildcard(filename:join(OurEbin, "b64simd*"))],
    %% The test profile's library: the one with the hooks (b64simd_14_hooks_tests).
    File = filename:join(Priv, "libb64simd_nif_hooks.so"),
    {ok, _} = file:copy(filename:join(code:priv_dir(b64simd), "libb64simd_nif_hooks.so"), File),
    Change(File),
    Raised = raised(Env, Ebin),
    ok = file:del_dir_r(Root),
    {File, Raised}.

%% A change to the bytes of a library file.
patch(Change) ->
    fun(File) ->
            {ok, Library} = file:read_file(File),
            ok = file:write_file(File, Change(Library))
    end.

%% What `b64simd:encode/1' raises in a VM with `Env' and `Ebin' (`loaded'
%% if it returns, and the VM prints its encoders), and everything that VM
%% printed, the exception as the shell prints it included.
raised(Env, Ebin) ->
    raised(host, Env, Ebin).

raised(Cpu, Env, Ebin) ->
    Eval = "R = try b64simd:encode(<<1>>) of _ -> loaded catch error:E:S ->"
        "      io:format(\"~nshell=~ts~n\", [erl_error:format_exception(error, E, S)]), E end,"
        "io:format(\"~nraised=~0p.~n\", [R]),"
        "R =:= loaded andalso io:format(\"~nencoders=~0p.~n\","
        "                               [maps:with([calls, big_calls], b64simd:encoders())]),"
        "halt(0).",
    {Status, Output} = case Cpu of
                           host -> run_erl(Env, ["-pa", Ebin], Eval);
                           {qemu, Qemu, Model} -> run_emulated(Qemu, Model, Env, Ebin, Eval)
                       end,
    ?assertEqual(0, Status, Output),
    [_, Term | _] = string:split(Output, "\nraised="),
    {ok, Tokens, _} = erl_scan:string(hd(string:split(Term, "\n"))),
    {ok, Raised} = erl_parse:parse_term(Tokens),
    {Raised, Output}.

%% This VM's emulator under qemu-user as a CPU `Model', started as erl
%% starts it; +JPperf maps the JIT's code once, which qemu-user runs (its
%% default double mapping crashes there).
run_emulated(Qemu, Model, Env, Ebin, Eval) ->
    Root = code:root_dir(),
    Bin = filename:join([Root, "erts-" ++ erlang:system_info(version), "bin"]),
    Args = ["-cpu", Model, filename:join(Bin, "beam.smp"), "-JPperf", "true", "--",
            "-root", Root, "-bindir", Bin, "-progname", "erl", "--",
            "-home", os:getenv("HOME", "/tmp"), "-noshell", "-pa", Ebin, "-eval", Eval],
    Port = open_port({spawn_executable, Qemu},
                     [{args, Args}, {env, Env}, exit_status, stderr_to_stdout, binary, hide]),
    collect(Port, []).

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
