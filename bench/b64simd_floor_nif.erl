%% @doc Stubs of `bench/c_src/b64simd_floor_nif.c' (see `b64simd_small').
-module(b64simd_floor_nif).

-export([load/1, identity/1, inspect_and_allocate/1]).

%% @doc Loads the NIF from `Dir'; `ok' or `{error, Reason}'.
-spec load(file:filename()) -> ok | {error, term()}.
load(Dir) ->
    case erlang:load_nif(filename:join(Dir, "b64simd_floor_nif"), 0) of
        ok -> ok;
        {error, {reload, _}} -> ok;
        {error, Reason} -> {error, Reason}
    end.

-spec identity(term()) -> term().
identity(_Term) ->
    erlang:nif_error(not_loaded).

-spec inspect_and_allocate(binary()) -> binary().
inspect_and_allocate(_Binary) ->
    erlang:nif_error(not_loaded).
