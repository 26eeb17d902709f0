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
            {ok, Docs} = file:read_file(ChunkFile),
            {ok, _, Chunks} = beam_lib:all_chunks(Beam),
            case lists:keyfind("Docs", 1, Chunks) of
                {"Docs", Docs} -> ok;
                _ ->
                    {ok, Binary} = beam_lib:build_module(lists:keystore("Docs", 1, Chunks,
                                                                        {"Docs", Docs})),
                    ok = file:write_file(Beam, Binary)
            end
    end.
