%% The README's Erlang examples run: each ```erlang block (but the install
%% lines, which `make test-package' runs in fresh projects) is evaluated as
%% written, and its matches are its assertions; the shell transcript in the
%% ```text block is what the shell prints for its call. (The ExUnit tests
%% run the Elixir blocks.)
-module(b64simd_15_readme_tests).
-include_lib("eunit/include/eunit.hrl").

readme_examples_test_() ->
    case read_readme() of
        {ok, Readme} ->
            Erlang = [Block || Block <- blocks(Readme, "erlang"),
                               string:find(Block, "{deps,") =:= nomatch],
            Texts = blocks(Readme, "text"),
            [{"block " ++ integer_to_list(N), fun() -> evaluate(Block) end}
             || {N, Block} <- lists:zip(lists:seq(1, length(Erlang)), Erlang)]
                ++ [{"shell transcript", fun() -> transcript(Text) end} || Text <- Texts]
                ++ [{"has examples", fun() -> ?assert(length(Erlang) >= 4) end}];
        {error, Tried} ->
            [{"README.md is found",
              fun() -> erlang:error({no_readme, lists:flatten(["README.md is at none of: " |
                                                                  lists:join(", ", Tried)])})
              end}]
    end.

%% The project's README.md, found from where this module and b64simd were
%% compiled (the project's test/ and src/), or in b64simd's application
%% directory; never from the working directory, so that a run from
%% elsewhere fails instead of testing nothing.
read_readme() ->
    Tried = lists:usort([filename:join([Dir, "..", "README.md"])
                         || Module <- [?MODULE, b64simd],
                            Source <- [proplists:get_value(source, Module:module_info(compile))],
                            is_list(Source),
                            Dir <- [filename:dirname(Source)]]
                        ++ [filename:join(code:lib_dir(b64simd), "README.md")]),
    Found = [Readme || Path <- Tried, {ok, Readme} <- [file:read_file(Path)]],
    case Found of
        [Readme | _] -> {ok, Readme};
        [] -> {error, Tried}
    end.

%% The bodies of the ```Language blocks, in order.
blocks(Readme, Language) ->
    Pattern = "```" ++ Language ++ "\n(.*?)```",
    case re:run(Readme, Pattern, [global, dotall, {capture, [1], list}]) of
        {match, Found} -> [Body || [Body] <- Found];
        nomatch -> []
    end.

evaluate(Block) ->
    {ok, Tokens, _} = erl_scan:string(Block),
    {ok, Exprs} = erl_parse:parse_exprs(Tokens),
    {value, _, _} = erl_eval:exprs(Exprs, erl_eval:new_bindings()).

%% A transcript: `1> Call.' and then what the shell printed for it.
transcript(Text) ->
    [Prompt | Printed] = string:split(Text, "\n", all),
    "1> " ++ Call = Prompt,
    {ok, Tokens, _} = erl_scan:string(Call),
    {ok, Exprs} = erl_parse:parse_exprs(Tokens),
    Formatted = try erl_eval:exprs(Exprs, erl_eval:new_bindings()) of
                    Value -> erlang:error({no_exception, Value})
                catch
                    Class:Reason:Stack ->
                        Ours = lists:takewhile(fun({M, _, _, _}) -> M =/= erl_eval end, Stack),
                        erl_error:format_exception(Class, Reason, Ours)
                end,
    Shell = unicode:characters_to_list(["** ", Formatted]),
    [?assertNotEqual(nomatch, string:find(Shell, string:trim(Line)), {Line, Shell})
     || Line <- Printed, string:trim(Line) =/= ""].
