%% What the API modules (b64simd, b64simd_hex, b64simd_base32) share: how a
%% call's result becomes what the function returns or raises. Macros, not
%% functions, so that an error is raised from the API function itself and
%% its stack trace shows the call the user made; the module's
%% format_error/2 explains it from the cause (the byte at the offset).
%% The variables they bind end in `__'; where a clause uses one twice,
%% the two are in different branches of a case, which Erlang allows.

-define(RAISE(Reason, Args, Cause),
        erlang:error(Reason, Args, [{error_info, #{module => ?MODULE, cause => Cause}}])).

%% An encode's or a validation's result: its text or verdict, or `badarg'
%% raised.
-define(RESULT(Result, Args),
        case Result of
            badarg -> ?RAISE(badarg, Args, #{});
            Result__ -> Result__
        end).

%% A decode's result: its data, or its reason raised with the byte there.
-define(DECODED(Result, Args),
        case Result of
            Data__ when is_binary(Data__) -> Data__;
            {error, Reason__, Byte__} -> ?RAISE(Reason__, Args, #{byte => Byte__});
            badarg -> ?RAISE(badarg, Args, #{})
        end).

%% A decode's result as `try_decode' returns it: `{ok, Data}' or
%% `{error, Reason}'; `badarg' raised.
-define(TRIED(Result, Args),
        case Result of
            Data__ when is_binary(Data__) -> {ok, Data__};
            {error, Reason__, _} -> {error, Reason__};
            badarg -> ?RAISE(badarg, Args, #{})
        end).

%% A NIF call's result, its job run to the end: big inputs come back as
%% `{continue, Job}' after each slice, which `b64simd_options:finish/1'
%% takes on. The common case is answered here, as a remote call is a
%% noticeable part of a small call.
-define(FINISH(Call),
        case Call of
            {continue, _} = Continue__ -> b64simd_options:finish(Continue__);
            Finished__ -> Finished__
        end).

%% What `Nif', a NIF of arity 1 that takes the default options as a
%% constant, gives for iodata `Input', run to the end: its result, or
%% `badarg' for bad iodata.
-define(RUN_DEFAULT(Nif, Input),
        case Input of
            Binary__ when is_binary(Binary__) -> ?FINISH(Nif(Binary__));
            Iodata__ ->
                case b64simd_options:to_binary(Iodata__) of
                    badarg -> badarg;
                    Binary__ -> ?FINISH(Nif(Binary__))
                end
        end).

%% An encode with the default options (`?RUN_DEFAULT'); `badarg' raised
%% for bad iodata.
-define(ENCODED(Nif, Data, Args), ?RESULT(?RUN_DEFAULT(Nif, Data), Args)).
