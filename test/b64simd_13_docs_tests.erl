%% The shell shows our docs, and the public modules export nothing else:
%% every exported function of b64simd and b64simd_stream has EDoc text in the
%% EEP 48 "Docs" chunk that scripts/doc_chunks.escript puts into its .beam,
%% which is what `h(b64simd, encode, 1)' prints.
-module(b64simd_13_docs_tests).
-include_lib("eunit/include/eunit.hrl").

every_public_function_has_docs_test_() ->
    [{atom_to_list(Module), fun() -> has_docs(Module) end} || Module <- [b64simd, b64simd_stream]].

has_docs(Module) ->
    {ok, {docs_v1, _, erlang, _, ModuleDoc, _, Entries}} = code:get_doc(Module),
    ?assertMatch(#{<<"en">> := [_ | _]}, ModuleDoc, Module),
    Documented = [{Name, Arity} || {{function, Name, Arity}, _, _, #{<<"en">> := [_ | _]}, _}
                                       <- Entries],
    Exported = Module:module_info(exports) -- [{module_info, 0}, {module_info, 1}],
    ?assertEqual([], Exported -- Documented, {undocumented, Module}).

shell_prints_encode_docs_test() ->
    {ok, Docs} = code:get_doc(b64simd),
    Config = #{encoding => unicode, ansi => false, columns => 200},
    %% shell_docs asks the group leader for its encoding; EUnit's answers
    %% enotsup, so render where the VM's own terminal process leads.
    Self = self(),
    spawn(fun() ->
                  group_leader(whereis(user), self()),
                  Self ! {printed, shell_docs:render(b64simd, encode, 1, Docs, Config)}
          end),
    Printed = receive {printed, Text} -> unicode:characters_to_list(Text) end,
    ?assertNotEqual(nomatch, string:find(Printed, "Encodes Data as standard Base64"), Printed).
