%% @private
%% @doc NIF stubs for `b64simd'. Nothing here is public API: the functions
%% take already-validated binaries and option flags from `b64simd'.
-module(b64simd_nif).

-export([encode/1, encode/2, decode/1, decode/2, continue/2, encode_after/3]).
-export([decode_quanta/3, decode_exact/3, decode_final/2]).
-export([encode_wrapped/4, encode_wrapped_after/6, mime_decode/1, mime_decode/2, is_valid/1, is_valid/2]).
-export([kernel/0]).

-on_load(load/0).

%% The hooks of `make test' and `make bench' exist only in a build with
%% B64SIMD_HOOKS defined (rebar3's test profile), which loads the NIF
%% library built with cargo's `hooks' feature; a normal build has none.
-ifdef(B64SIMD_HOOKS).
-export([encode_dirty/2, decode_dirty/2]).
-export([supported_kernels/0, set_slice_bytes/1, slice_bytes/0, call_cost/0]).
-define(LIBRARY, "libb64simd_nif_hooks").
-else.
-define(LIBRARY, "libb64simd_nif").
-endif.

load() ->
    Path = filename:join(priv_dir(), ?LIBRARY),
    case filelib:is_regular(Path ++ ".so") of
        false ->
            report({nif_library_missing, Path ++ ".so"});
        true ->
            case erlang:load_nif(Path, 0) of
                ok -> ok;
                {error, Reason} -> report(Reason)
            end
    end.

%% The Rust side prints the detailed reason (an unusable simdutf kernel, say)
%% on standard error; here we make sure the failure itself is visible.
report(Reason) ->
    logger:error("b64simd: cannot load its NIF library: ~tp", [Reason]),
    {error, Reason}.

priv_dir() ->
    case code:priv_dir(b64simd) of
        {error, bad_name} ->
            %% Not loaded as an application (escript, plain -pa): the priv
            %% directory sits next to ebin.
            filename:join(filename:dirname(filename:dirname(code:which(?MODULE))), "priv");
        Dir ->
            Dir
    end.

%% encode/1, decode/1, mime_decode/1 and is_valid/1 are the /2 ones with
%% the default flags, which they need not read.
-spec encode(binary()) -> binary() | {continue, reference()}.
encode(_Data) -> not_loaded(?LINE).

-spec encode(binary(), non_neg_integer()) -> binary() | {continue, reference()}.
encode(_Data, _Flags) -> not_loaded(?LINE).

%% encode/2 of <<Carry/binary, Data/binary>> (Carry at most 2 bytes) without
%% joining them; a job continues with Data.
-spec encode_after(binary(), binary(), non_neg_integer()) -> binary() | {continue, reference()}.
encode_after(_Carry, _Data, _Flags) -> not_loaded(?LINE).

-spec decode(binary()) -> binary() | {error, term()} | {continue, reference()}.
decode(_Data) -> not_loaded(?LINE).

-spec decode(binary(), non_neg_integer()) ->
    binary() | {error, term()} | {continue, reference()}.
decode(_Data, _Flags) -> not_loaded(?LINE).

%% For b64simd_stream. State is the stream's state, which only these read
%% and write: the carry, the stream offset of each of its bytes and of the
%% next piece (<<>> for a new stream). Errors are {error, Reason, Byte},
%% Reason with the stream offset and Byte the byte there, or undefined.

%% The whole quanta at the start of the carry followed by Piece, without
%% joining them, and the next state; exact when the stream must find out
%% why not its exact way.
-spec decode_quanta(binary(), binary(), non_neg_integer()) ->
    {binary(), binary()} | exact | {continue, reference()}.
decode_quanta(_State, _Piece, _Flags) -> not_loaded(?LINE).

%% The exact way: the carry and Piece joined, decoded to the data of their
%% whole quanta, and the next state, or the stream's first error.
-spec decode_exact(binary(), binary(), non_neg_integer()) ->
    {binary(), binary()} | {error, term(), byte() | undefined} | {continue, reference()}.
decode_exact(_State, _Piece, _Flags) -> not_loaded(?LINE).

%% The end of the stream: what the carry decodes to, or the error.
-spec decode_final(binary(), non_neg_integer()) ->
    binary() | {error, term(), byte() | undefined}.
decode_final(_State, _Flags) -> not_loaded(?LINE).

-spec continue(reference(), binary()) -> binary() | {error, term()} | {continue, reference()}.
continue(_Job, _Data) -> not_loaded(?LINE).

-spec encode_wrapped(binary(), non_neg_integer(), pos_integer(), boolean()) ->
    binary() | {continue, reference()}.
encode_wrapped(_Data, _Flags, _LineLength, _Lf) -> not_loaded(?LINE).

%% encode_wrapped/4 of <<Carry/binary, Data/binary>> (Carry at most 2 bytes)
%% continuing a text whose last line holds Column characters.
-spec encode_wrapped_after(binary(), binary(), non_neg_integer(), pos_integer(), boolean(),
                           non_neg_integer()) -> binary() | {continue, reference()}.
encode_wrapped_after(_Carry, _Data, _Flags, _LineLength, _Lf, _Column) -> not_loaded(?LINE).

-spec mime_decode(binary()) -> binary() | {error, term()} | {continue, reference()}.
mime_decode(_Data) -> not_loaded(?LINE).

-spec mime_decode(binary(), non_neg_integer()) ->
    binary() | {error, term()} | {continue, reference()}.
mime_decode(_Data, _Flags) -> not_loaded(?LINE).

-spec is_valid(binary()) -> boolean() | {continue, reference()}.
is_valid(_Data) -> not_loaded(?LINE).

-spec is_valid(binary(), non_neg_integer()) -> boolean() | {continue, reference()}.
is_valid(_Data, _Flags) -> not_loaded(?LINE).

-spec kernel() -> binary().
kernel() -> not_loaded(?LINE).

-ifdef(B64SIMD_HOOKS).
%% For comparison in the latency probe only: one call on a dirty CPU scheduler.
-spec encode_dirty(binary(), non_neg_integer()) -> binary().
encode_dirty(_Data, _Flags) -> not_loaded(?LINE).

-spec decode_dirty(binary(), non_neg_integer()) -> binary() | {error, term()}.
decode_dirty(_Data, _Flags) -> not_loaded(?LINE).

-spec supported_kernels() -> [binary()].
supported_kernels() -> not_loaded(?LINE).

-spec set_slice_bytes(non_neg_integer()) -> ok.
set_slice_bytes(_Bytes) -> not_loaded(?LINE).

-spec slice_bytes() -> {pos_integer(), pos_integer()}.
slice_bytes() -> not_loaded(?LINE).

%% What a call too short to time is charged: {{EncodeFixedNs, EncodePsPerByte},
%% {DecodeFixedNs, DecodePsPerByte}, WhitespaceFactor}, measured at load; a
%% decode whose input held whitespace is charged WhitespaceFactor times its bytes.
-spec call_cost() -> {{non_neg_integer(), pos_integer()}, {non_neg_integer(), pos_integer()},
                      pos_integer()}.
call_cost() -> not_loaded(?LINE).

-endif.

not_loaded(Line) ->
    erlang:nif_error({not_loaded, [{module, ?MODULE}, {line, Line}]}).
