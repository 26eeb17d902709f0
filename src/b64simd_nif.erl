%% @private
%% @doc NIF stubs for `b64simd', `b64simd_stream', `b64simd_hex' and
%% `b64simd_base32'. Nothing here is public API: the functions take a
%% binary and an option map (Base16: its letter case), which the NIF reads.
%% Anything else comes back as the atom `badarg', for the caller to raise
%% with its own arguments; a big input as `{continue, Job}', to be passed
%% to `continue/1' until it gives the result; bad Base64 as `{error,
%% Reason, Byte}', `Byte' the byte at the reason's offset (or `undefined').
-module(b64simd_nif).

-export([encode/1, encode/2, decode/1, decode/2, mime_decode/1, mime_decode/2]).
-export([is_valid/1, is_valid/2, continue/1]).
-export([encode_stream_init/1, encode_stream/2, encode_stream_end/1]).
-export([decode_stream_init/1, decode_stream/2, decode_stream_end/1]).
-export([hex_encode/1, hex_encode/2, hex_decode/1, hex_decode/2]).
-export([hex_is_valid/1, hex_is_valid/2]).
-export([base32_encode/2, base32_decode/2, base32_is_valid/2]).
-export([kernel/0, encoders/0, options/1, option_problem/2, load_error/2]).

-on_load(load/0).

-include_lib("kernel/include/file.hrl").

%% The hooks of `make test' and `make bench' exist only in a build with
%% B64SIMD_HOOKS defined (rebar3's test profile), which loads the NIF
%% library built with cargo's `hooks' feature; a normal build has none.
-ifdef(B64SIMD_HOOKS).
-export([encode_dirty/2, decode_dirty/2]).
-export([supported_kernels/0, set_slice_bytes/1, charges/0]).
-define(LIBRARY, "libb64simd_nif_hooks").
-else.
-define(LIBRARY, "libb64simd_nif").
-endif.

-type result() :: binary() | {error, term(), byte() | undefined} | {continue, reference()}
                | badarg.
-type encoded() :: binary() | {continue, reference()} | badarg.
-type verdict() :: boolean() | {continue, reference()} | badarg.

%% A failed first load keeps this module, so that every call raises an
%% error that names the failure (`not_loaded/0') instead of `undef'. A
%% failed reload (a new version of the module while one runs) is refused,
%% so that the running code keeps its NIFs.
load() ->
    case load_library(filename:join(priv_dir(), ?LIBRARY)) of
        ok ->
            persistent_term:erase({?MODULE, load_error}),
            ok;
        {error, Reason} ->
            logger:error("b64simd: ~ts", [b64simd_messages:load_error(Reason)]),
            case erlang:module_loaded(?MODULE) of
                true ->
                    {error, Reason};
                false ->
                    persistent_term:put({?MODULE, load_error}, Reason),
                    ok
            end
    end.

%% The library's own refusal (a forced kernel or encoder this process cannot
%% run) comes as a message: its load callback can only answer yes or no, but
%% runs in this process, so it sends the reason here as data, tagged with
%% the fresh reference passed as load_info. Asking the library before
%% loading it is not possible (nothing of it runs until it is loaded), and
%% testing the variables here would write its rules twice.
load_library(Path) ->
    Tag = make_ref(),
    case erlang:load_nif(Path, Tag) of
        ok ->
            ok;
        {error, Error} ->
            receive
                {Tag, Refusal} -> {error, Refusal}
            after 0 -> {error, failure(Path ++ ".so", Error)}
            end
    end.

%% Whether the file is there is asked only once the load has failed: the
%% file server's answer is a fair part of what a load costs (bench/README.md,
%% "What is missed"). file, not filelib: filelib is seldom loaded yet when
%% this runs, and loading it would double what loading this module costs.
failure(File, Error) ->
    case file:read_file_info(File) of
        {ok, #file_info{type = regular}} -> load_error(File, Error);
        _ -> {library_missing, File}
    end.

%% @doc The reason for an error of `erlang:load_nif/2' on the library
%% `File', read from the words of erts and of the dynamic loader, which are
%% all either gives: glibc's (the fault tests hold the texts this machine
%% gives); a text not recognised is `{load_failed, File, Text}'.
-spec load_error(file:filename(), {atom(), string()}) -> b64simd:load_error().
load_error(File, {upgrade, Text}) ->
    {reload_refused, File, Text};
load_error(File, {bad_lib, "Library version " ++ _ = Text}) ->
    {built_for_another_otp, File, Text};
load_error(File, {load_failed, Text}) ->
    Says = fun(Part) -> string:find(Text, Part) =/= nomatch end,
    %% A library for another machine of the same ELF class is one glibc
    %% does not open ("No such file", of a file that exists).
    Foreign = ["wrong ELF class", "invalid ELF header", "ELF file", "Exec format error",
               File ++ ": cannot open shared object file"],
    case re:run(Text, "version `(GLIBC_[0-9.]+)' not found", [{capture, all_but_first, list}]) of
        {match, [Needed]} -> {glibc_too_old, File, Needed};
        nomatch ->
            case {Says("undefined symbol: enif_"), lists:any(Says, Foreign)} of
                {true, _} -> {built_for_another_otp, File, Text};
                {false, true} -> {built_for_another_architecture, File, Text};
                {false, false} -> {load_failed, File, Text}
            end
    end;
load_error(File, {_Tag, Text}) ->
    {load_failed, File, Text}.

priv_dir() ->
    case code:priv_dir(b64simd) of
        {error, bad_name} ->
            %% Not loaded as an application (escript, plain -pa): the priv
            %% directory sits next to ebin.
            filename:join(filename:dirname(filename:dirname(code:which(?MODULE))), "priv");
        Dir ->
            Dir
    end.

%% The calls of arity 1 take the default options.
-spec encode(term()) -> encoded().
encode(_Data) -> not_loaded().

-spec encode(term(), term()) -> encoded().
encode(_Data, _Options) -> not_loaded().

-spec decode(term()) -> result().
decode(_Data) -> not_loaded().

-spec decode(term(), term()) -> result().
decode(_Data, _Options) -> not_loaded().

-spec mime_decode(term()) -> result().
mime_decode(_Data) -> not_loaded().

-spec mime_decode(term(), term()) -> result().
mime_decode(_Data, _Options) -> not_loaded().

-spec is_valid(term()) -> verdict().
is_valid(_Data) -> not_loaded().

-spec is_valid(term(), term()) -> verdict().
is_valid(_Data, _Options) -> not_loaded().

%% Base16: hex_encode/1 is uppercase (OTP's `binary:encode_hex/1'),
%% hex_decode/1 and hex_is_valid/1 take both cases (`binary:decode_hex/1').
-spec hex_encode(term()) -> encoded().
hex_encode(_Data) -> not_loaded().

-spec hex_encode(term(), term()) -> encoded().
hex_encode(_Data, _Case) -> not_loaded().

-spec hex_decode(term()) -> result().
hex_decode(_Hex) -> not_loaded().

-spec hex_decode(term(), term()) -> result().
hex_decode(_Hex, _Case) -> not_loaded().

-spec hex_is_valid(term()) -> verdict().
hex_is_valid(_Hex) -> not_loaded().

-spec hex_is_valid(term(), term()) -> verdict().
hex_is_valid(_Hex, _Case) -> not_loaded().

-spec base32_encode(term(), term()) -> encoded().
base32_encode(_Data, _Options) -> not_loaded().

-spec base32_decode(term(), term()) -> result().
base32_decode(_Base32, _Options) -> not_loaded().

-spec base32_is_valid(term(), term()) -> verdict().
base32_is_valid(_Base32, _Options) -> not_loaded().

%% The next slice of a job that a call above returned; the job holds its
%% own input, so none is passed.
-spec continue(reference()) -> term().
continue(_Job) -> not_loaded().

%% A new encoding stream's state, or `badarg' for options encode does not
%% take.
-spec encode_stream_init(term()) -> binary() | badarg.
encode_stream_init(_Options) -> not_loaded().

%% A piece of an encoding stream: `{Base64, State}'.
-spec encode_stream(binary(), binary()) -> {binary(), binary()} | {continue, reference()}.
encode_stream(_State, _Piece) -> not_loaded().

%% The end of an encoding stream: the last Base64.
-spec encode_stream_end(binary()) -> binary().
encode_stream_end(_State) -> not_loaded().

%% A new decoding stream's state, or `badarg' for options decode does not
%% take.
-spec decode_stream_init(term()) -> binary() | badarg.
decode_stream_init(_Options) -> not_loaded().

%% A piece of a decoding stream: `{Data, State}', or the stream's first
%% error at its offset in the stream.
-spec decode_stream(binary(), binary()) ->
    {binary(), binary()} | {error, term(), byte() | undefined} | {continue, reference()}.
decode_stream(_State, _Piece) -> not_loaded().

%% The end of a decoding stream: the last data, or the error.
-spec decode_stream_end(binary()) -> binary() | {error, term(), byte() | undefined}.
decode_stream_end(_State) -> not_loaded().

%% The options a kind of call takes, in the order messages list them.
-spec options(b64simd_options:kind()) -> [{atom(), [atom()] | pos_integer}].
options(_Kind) -> not_loaded().

%% What is wrong with options for a kind of call (for Base16, its case).
-spec option_problem(b64simd_options:kind(), term()) ->
    none | not_a_map | {unknown_option, term()} | {bad_value, atom(), term()}.
option_problem(_Kind, _Options) -> not_loaded().

-spec kernel() -> binary().
kernel() -> not_loaded().

%% The encoders of calls and of big calls, and where big calls start.
-spec encoders() -> {binary(), binary(), pos_integer()}.
encoders() -> not_loaded().

-ifdef(B64SIMD_HOOKS).
%% For comparison in the latency probe only: one call on a dirty CPU scheduler.
-spec encode_dirty(binary(), map()) -> binary().
encode_dirty(_Data, _Flags) -> not_loaded().

-spec decode_dirty(binary(), map()) -> binary() | {error, term(), undefined}.
decode_dirty(_Data, _Flags) -> not_loaded().

-spec supported_kernels() -> [binary()].
supported_kernels() -> not_loaded().

-spec set_slice_bytes(non_neg_integer()) -> ok.
set_slice_bytes(_Bytes) -> not_loaded().

%% The charge table as the library reads it here: `{TimesliceNs,
%% UnchargedNs, #{Work => PsPerByte}}'. A call that runs to its end is
%% charged its input bytes times its work's rate, a timeslice (4000
%% reductions) per TimesliceNs, unless that is under UnchargedNs.
-spec charges() -> {pos_integer(), pos_integer(), #{atom() => pos_integer()}}.
charges() -> not_loaded().

-endif.

%% Raised by a stub whose NIF is not loaded: why the library did not load,
%% as data and in words. Its sentence comes from `b64simd_messages', the one
%% call this module makes upward, on this path only; with `error_info', so
%% that the shell prints it whole (`b64simd:format_error/2'). Through
%% apply/3, which Dialyzer takes to return any term, as it takes
%% erlang:nif_error/1 (which carries no `error_info'): the stubs keep the
%% return types of their specs.
not_loaded() ->
    Reason = persistent_term:get({?MODULE, load_error}, unknown),
    Message = unicode:characters_to_binary(b64simd_messages:load_error(Reason)),
    erlang:apply(erlang, error, [{b64simd_nif_not_loaded, Reason, Message}, none,
                                 [{error_info, #{module => b64simd}}]]).
