#!/usr/bin/env escript
%% Puts each module's EDoc into its .beam as an EEP 48 "Docs" chunk, where
%% code:get_doc/1 looks first: so `h(b64simd, encode, 1)' in erl and
%% `h :b64simd.encode' in iex show the text wherever the .beam files go, for
%% rebar3 and mix, in this project or as a dependency (a doc/chunks
%% directory beside ebin/ would not follow mix's build directory).
%%
%%   escript scripts/doc_chunks.escript [EBIN...]
%%
%% Without arguments (rebar3's post_hook) it finds the ebin directories
%% rebar3 writes for this app. A .beam whose chunk is already current is
%% left untouched.
%%
%% EDoc's chunk is shaped for the shells before it goes in: the text of a
%% doc that EDoc leaves outside any paragraph is put into paragraphs (IEx
%% prints such text without the newline that ends a paragraph, so the
%% prompt ran into the last line), and links become their text (IEx prints
%% a link's target after it, as "(#format_error/2)").
-mode(compile).

main(Args) ->
    Root = filename:dirname(filename:dirname(filename:absname(escript:script_name()))),
    Ebins = case Args of
                [] -> rebar3_ebins(Root);
                _ -> Args
            end,
    Tmp = filename:join(Root, "_build/doc_chunks"),
    Sources = filelib:wildcard(filename:join([Root, "src", "*.erl"])),
    ok = edoc:files(Sources, [{doclet, edoc_doclet_chunks}, {layout, edoc_layout_chunks},
                              {dir, Tmp}, {preprocess, true}]),
    [embed(Ebin, Chunk)
     || Ebin <- Ebins, Chunk <- filelib:wildcard(filename:join([Tmp, "chunks", "*.chunk"]))],
    ok.

%% rebar3 compiles a top-level app into _build/PROFILE/lib/APP, a dependency
%% in place (its directory is that one), and a _checkouts/ app into
%% REBAR_CHECKOUTS_OUT_DIR/APP.
rebar3_ebins(Root) ->
    App = "b64simd",
    Candidates = [filename:join(Root, "ebin")]
        ++ [filename:join([Dir, "lib", App, "ebin"]) || Dir <- env("REBAR_BUILD_DIR")]
        ++ [filename:join([Dir, App, "ebin"]) || Dir <- env("REBAR_CHECKOUTS_OUT_DIR")],
    lists:usort([Dir || Dir <- Candidates, filelib:is_dir(Dir)]).

env(Name) ->
    case os:getenv(Name) of
        false -> [];
        "" -> [];
        Value -> [Value]
    end.

embed(Ebin, ChunkFile) ->
    Beam = filename:join(Ebin, filename:basename(ChunkFile, ".chunk") ++ ".beam"),
    case filelib:is_regular(Beam) of
        false -> ok;
        true ->
            {ok, EdocDocs} = file:read_file(ChunkFile),
            Docs = term_to_binary(shaped(binary_to_term(EdocDocs))),
            {ok, _, Chunks} = beam_lib:all_chunks(Beam),
            case lists:keyfind("Docs", 1, Chunks) of
                {"Docs", Docs} -> ok;
                _ ->
                    {ok, Binary} = beam_lib:build_module(lists:keystore("Docs", 1, Chunks,
                                                                        {"Docs", Docs})),
                    ok = file:write_file(Beam, Binary)
            end
    end.

%% The chunk with every doc's text shaped for the shells.
shaped({docs_v1, Anno, Language, Format, ModuleDoc, Metadata, Entries}) ->
    {docs_v1, Anno, Language, Format, shaped_doc(ModuleDoc), Metadata,
     [{Kind, EntryAnno, Signature, shaped_doc(Doc), EntryMetadata}
      || {Kind, EntryAnno, Signature, Doc, EntryMetadata} <- Entries]}.

shaped_doc(#{<<"en">> := Content} = Doc) -> Doc#{<<"en">> := paragraphs(unlinked(Content))};
shaped_doc(Doc) -> Doc.

%% Links as their text.
unlinked(Content) when is_list(Content) ->
    lists:append([unlinked_element(Element) || Element <- Content]);
unlinked(Text) ->
    Text.

unlinked_element({a, _Attributes, Content}) -> unlinked(Content);
unlinked_element({Tag, Attributes, Content}) -> [{Tag, Attributes, unlinked(Content)}];
unlinked_element(Text) -> [Text].

%% Inline text and elements between blocks, each run as a paragraph.
paragraphs(Content) ->
    paragraphs(Content, [], []).

paragraphs([], Run, Done) ->
    lists:reverse(flush(Run, Done));
paragraphs([{Tag, _, _} = Element | Rest], Run, Done) ->
    case lists:member(Tag, [p, pre, ul, ol, dl, 'div', h1, h2, h3, h4, table, blockquote]) of
        true -> paragraphs(Rest, [], [Element | flush(Run, Done)]);
        false -> paragraphs(Rest, [Element | Run], Done)
    end;
paragraphs([Text | Rest], Run, Done) ->
    paragraphs(Rest, [Text | Run], Done).

%% A run of inline content as a paragraph, unless it is only white space.
flush(Run, Done) ->
    Text = lists:reverse(Run),
    case lists:all(fun(T) -> is_binary(T) andalso string:trim(T) =:= <<>> end, Text) of
        true -> Done;
        false -> [{p, [], Text} | Done]
    end.
