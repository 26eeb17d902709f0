%% @private
%% @doc How the API modules (`b64simd', `b64simd_hex', `b64simd_base32',
%% `b64simd_stream') finish a NIF call that did not give its result at
%% once: iodata flattened and the call made again on the binary, a sliced
%% job run to its end, and bad arguments or bad Base64 raised as the user's
%% call raises them. Each API function answers the common case itself (a
%% binary or a verdict back from the NIF) and hands anything else here.
-module(b64simd_call).

-export([result/4, finish/1, to_binary/1, raise/3]).

-export_type([call/0, shape/0]).

-type call() :: {module(), atom(), [term()]}.
%% The user's call: its module, function and arguments.

-type shape() :: value | decoded | tried.
%% What the user's function returns: the NIF's value (an encoding, a
%% verdict); a decode's data, its errors raised; or a decode's data as
%% `{ok, Data}', its errors as `{error, Reason}'.

%% @doc What `Call' returns or raises for `Result', what its NIF, `Nif'
%% (of the arguments of `Call'), gave: `{continue, Job}' is run to its end;
%% `badarg' for an input that is not a binary is retried on the input
%% flattened, and otherwise raised; `{error, Reason, Byte}' is raised, or
%% returned as `{error, Reason}' for `tried'.
-spec result(term(), function(), call(), shape()) -> term().
result(badarg, Nif, {_, _, [Input | Rest]} = Call, Shape) when not is_binary(Input) ->
    case to_binary(Input) of
        badarg -> raise(badarg, Call, #{});
        Binary -> finished(apply(Nif, [Binary | Rest]), Call, Shape)
    end;
result(Result, _Nif, Call, Shape) ->
    finished(Result, Call, Shape).

finished(Data, _Call, tried) when is_binary(Data) ->
    {ok, Data};
finished({error, Reason, _Byte}, _Call, tried) ->
    {error, Reason};
finished({error, Reason, Byte}, Call, _Shape) ->
    raise(Reason, Call, #{byte => Byte});
finished({continue, Job}, Call, Shape) ->
    finished(b64simd_nif:continue(Job), Call, Shape);
finished(badarg, Call, _Shape) ->
    raise(badarg, Call, #{});
finished(Value, _Call, _Shape) ->
    Value.

%% @doc A NIF call's result with its job run to the end: a big input comes
%% back as `{continue, Job}' after each slice, and calling back in from
%% Erlang lets the scheduler run others in between.
-spec finish(term()) -> term().
finish({continue, Job}) ->
    finish(b64simd_nif:continue(Job));
finish(Result) ->
    Result.

%% @doc iodata as one binary, or `badarg'. Flattened once here, not in the
%% NIF (as jiffy does): `iolist_to_binary/1' is OTP's fastest way, and a
%% binary is then read in place.
-spec to_binary(term()) -> binary() | badarg.
to_binary(Data) when is_binary(Data) ->
    Data;
to_binary(Data) when is_list(Data) ->
    try
        iolist_to_binary(Data)
    catch
        error:_ -> badarg
    end;
to_binary(_Data) ->
    badarg.

%% @doc Raises `Reason' as the user's `Call' would have raised it itself,
%% with `error_info' naming its module and `Cause': the stack trace is the
%% caller's, topped by that call. The API functions reach this in tail
%% calls, so their own frames are not in the trace to take out.
-spec raise(term(), call(), map()) -> no_return().
raise(Reason, {Module, Function, Args}, Cause) ->
    {current_stacktrace, [_Raise | Callers]} = process_info(self(), current_stacktrace),
    Info = [{error_info, #{module => Module, cause => Cause}}],
    erlang:raise(error, Reason, [{Module, Function, Args, Info} | Callers]).
