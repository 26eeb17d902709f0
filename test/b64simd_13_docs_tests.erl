%% The shell shows our docs, and the public modules export nothing else:
%% every exported function of the public modules has EDoc text in the
%% EEP 48 "Docs" chunk that scripts/doc_chunks.escript puts into its .beam,
%% which is what `h(b64simd, encode, 1)' prints; and every doc renders
%% whole through the shell's own renderer (shell_docs): no backslash lost,
%% no link target left behind, a newline at the end. (The ExUnit tests do
%% the same through iex's.)
-module(b64simd_13_docs_tests).
-include_lib("eunit/include/eunit.hrl").

every_public_function_has_docs_test_() ->
    [{atom_to_list(Module), fun() -> has_docs(Module) end} || Module <- public()].

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

every_doc_renders_whole_test_() ->
    [{label(Module, Entry), fun() -> renders_whole(Module, Entry) end}
     || Module <- public(),
        Entry <- [module | documented(Module)]].

label(Module, module) -> atom_to_list(Module);
label(Module, {Name, Arity}) -> lists:flatten(io_lib:format("~s:~s/~b", [Module, Name, Arity])).

documented(Module) ->
    {ok, {docs_v1, _, _, _, _, _, Entries}} = code:get_doc(Module),
    [{Name, Arity} || {{function, Name, Arity}, _, _, #{<<"en">> := _}, _} <- Entries].

renders_whole(Module, Entry) ->
    {ok, {docs_v1, _, _, _, ModuleDoc, _, Entries} = Docs} = code:get_doc(Module),
    {Source, Printed} =
        case Entry of
            module ->
                {ModuleDoc, render(fun(Config) -> shell_docs:render(Module, Docs, Config) end)};
            {Name, Arity} ->
                [Doc] = [D || {{function, N, A}, _, _, D, _} <- Entries, N =:= Name, A =:= Arity],
                {Doc, render(fun(Config) ->
                                     shell_docs:render(Module, Name, Arity, Docs, Config)
                             end)}
        end,
    #{<<"en">> := Content} = Source,
    ?assertMatch([_ | _], Printed),
    ?assertEqual($\n, lists:last(Printed), {no_final_newline, Printed}),
    ?assertEqual(nomatch, re:run(Printed, "\\(#[a-z_]+/[0-9]+\\)"), {link_residue, Printed}),
    [?assertNotEqual(nomatch, string:find(Printed, Escape), {lost_backslash, Escape, Printed})
     || Escape <- escapes(Content)].

%% The backslash sequences of a doc's text (`\t', `\n'...).
escapes(Content) ->
    Text = unicode:characters_to_list(text(Content)),
    lists:usort([[$\\, C] || [$\\, C | _] <- suffixes(Text)]).

suffixes([]) -> [];
suffixes([_ | Rest] = Text) -> [Text | suffixes(Rest)].

text(Content) when is_binary(Content) -> Content;
text(Content) when is_list(Content) -> [text(C) || C <- Content];
text({_Tag, _Attributes, Content}) -> text(Content).

%% What shell_docs prints, as the shell asks for it. shell_docs asks the
%% group leader for its encoding; EUnit's answers enotsup, so render where
%% the VM's own terminal process leads.
render(Render) ->
    Self = self(),
    spawn(fun() ->
                  group_leader(whereis(user), self()),
                  Config = #{encoding => unicode, ansi => false, columns => 100},
                  Self ! {printed, unicode:characters_to_list(Render(Config))}
          end),
    receive {printed, Printed} -> Printed end.

public() ->
    [b64simd, b64simd_stream, b64simd_hex, b64simd_base32].
