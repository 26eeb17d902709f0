%% @doc Streaming Base64: encode or decode data that arrives in pieces (files,
%% sockets, HTTP bodies) in memory bounded by the piece size.
%%
%% Any chunking of the input gives exactly the one-shot result of
%% `b64simd:encode/2' or `b64simd:try_decode/2' on the whole input, line
%% wrapping included, and decode errors carry 0-based offsets into the whole
%% stream. Between calls a state keeps a few bytes: an incomplete group of 3
%% input bytes (and, when wrapping, how full the last line is), or an
%% incomplete quantum of 4 Base64 characters with its whitespace and padding.
%% Each piece is one NIF call, which reads the piece in place. A state is an
%% ordinary value: an old one can be used again, and gives the same result.
%%
%% ```
%% E0 = b64simd_stream:encode_init(#{}),
%% {A, E1} = b64simd_stream:encode(E0, <<"hel">>),
%% {B, E2} = b64simd_stream:encode(E1, <<"lo">>),
%% <<"aGVsbG8=">> = iolist_to_binary([A, B, b64simd_stream:encode_final(E2)]).
%% '''
-module(b64simd_stream).

-export([encode_init/1, encode/2, encode_final/1]).
-export([decode_init/1, decode/2, decode_final/1]).
-export([format_error/2]).

-export_type([encoder/0, decoder/0]).

%% A stream: the options it was started with (for error messages), and the
%% state the NIF keeps between pieces, which only the NIF reads: at first
%% the options' flags, then what it returned.
-record(encoder, {options :: map(), state :: binary()}).
-record(decoder, {options :: map(), state :: binary()}).

-opaque encoder() :: #encoder{}.
%% An encoding stream's state.
-opaque decoder() :: #decoder{}.
%% A decoding stream's state.


%%====================================================================
%% API: encode
%%====================================================================

%% @doc Starts an encoding stream with the options of `b64simd:encode/2'
%% (`mode', `padding', `line_length', `line_break'). Raises `badarg' for bad
%% options.
-spec encode_init(Options) -> Encoder when
      Options :: b64simd:encode_options(),
      Encoder :: encoder().
encode_init(Options) ->
    case b64simd_nif:encode_stream_init(Options) of
        State when is_binary(State) -> #encoder{options = Options, state = State};
        badarg -> b64simd_call:raise(badarg, {?MODULE, encode_init, [Options]}, #{})
    end.

%% @doc Encodes the next piece of the input: returns the Base64 of all whole
%% groups (or whole lines, when wrapping) so far and the new state. Raises
%% `badarg' if `Data' is not iodata or `Encoder' not an encoder.
-spec encode(Encoder, Data) -> {Base64, NewEncoder} when
      Encoder :: encoder(),
      Data :: iodata(),
      Base64 :: binary(),
      NewEncoder :: encoder().
encode(#encoder{state = State} = Encoder, Data) ->
    case b64simd_call:to_binary(Data) of
        badarg ->
            b64simd_call:raise(badarg, {?MODULE, encode, [Encoder, Data]}, #{});
        Binary ->
            {Base64, Next} = b64simd_call:finish(b64simd_nif:encode_stream(State, Binary)),
            {Base64, Encoder#encoder{state = Next}}
    end;
encode(Encoder, Data) ->
    b64simd_call:raise(badarg, {?MODULE, encode, [Encoder, Data]}, #{}).

%% @doc Ends an encoding stream: returns the Base64 of the last bytes, with
%% padding if the options ask for it.
-spec encode_final(Encoder) -> Base64 when
      Encoder :: encoder(),
      Base64 :: binary().
encode_final(#encoder{state = State}) ->
    b64simd_nif:encode_stream_end(State);
encode_final(Encoder) ->
    b64simd_call:raise(badarg, {?MODULE, encode_final, [Encoder]}, #{}).

%%====================================================================
%% API: decode
%%====================================================================

%% @doc Starts a decoding stream with the options of `b64simd:decode/2'
%% (`mode', `padding', `whitespace', `canonical'). Raises `badarg' for bad
%% options.
-spec decode_init(Options) -> Decoder when
      Options :: b64simd:decode_options(),
      Decoder :: decoder().
decode_init(Options) ->
    case b64simd_nif:decode_stream_init(Options) of
        State when is_binary(State) -> #decoder{options = Options, state = State};
        badarg -> b64simd_call:raise(badarg, {?MODULE, decode_init, [Options]}, #{})
    end.

%% @doc Decodes the next piece of Base64: returns the data of all whole
%% quanta so far and the new state. Raises, as `b64simd:decode/2' does, the
%% first problem in the stream as soon as it is certain, with its offset in
%% the whole stream (see {@link format_error/2}); raises `badarg' if `Base64'
%% is not iodata or `Decoder' not a decoder.
-spec decode(Decoder, Base64) -> {Data, NewDecoder} when
      Decoder :: decoder(),
      Base64 :: iodata(),
      Data :: binary(),
      NewDecoder :: decoder().
decode(#decoder{state = State} = Decoder, Base64) ->
    Call = {?MODULE, decode, [Decoder, Base64]},
    case b64simd_call:to_binary(Base64) of
        badarg ->
            b64simd_call:raise(badarg, Call, #{});
        Binary ->
            case b64simd_call:finish(b64simd_nif:decode_stream(State, Binary)) of
                {error, Reason, Byte} -> b64simd_call:raise(Reason, Call, #{byte => Byte});
                {Data, Next} -> {Data, Decoder#decoder{state = Next}}
            end
    end;
decode(Decoder, Base64) ->
    b64simd_call:raise(badarg, {?MODULE, decode, [Decoder, Base64]}, #{}).

%% @doc Ends a decoding stream: applies the end-of-input rules of
%% `b64simd:decode/2' (padding, a dangling character, canonical bits) to the
%% last quantum and returns its data. Raises as {@link decode/2}.
-spec decode_final(Decoder) -> Data when
      Decoder :: decoder(),
      Data :: binary().
decode_final(#decoder{state = State} = Decoder) ->
    case b64simd_nif:decode_stream_end(State) of
        {error, Reason, Byte} ->
            b64simd_call:raise(Reason, {?MODULE, decode_final, [Decoder]}, #{byte => Byte});
        Data -> Data
    end;
decode_final(Decoder) ->
    b64simd_call:raise(badarg, {?MODULE, decode_final, [Decoder]}, #{}).

%% @doc Explains an error raised by this module, for `erl_error' and the
%% shell, as `b64simd:format_error/2' does; offsets are into the whole stream.
-spec format_error(Reason, StackTrace) -> ErrorMap when
      Reason :: term(),
      StackTrace :: erlang:stacktrace(),
      ErrorMap :: b64simd:error_map().
format_error(badarg, [{_M, Function, Args, _Info} | _]) when is_list(Args) ->
    describe_badarg(Function, Args);
format_error(Reason, [{_M, _Function, [Stream | _] = Args, Info} | _]) ->
    Cause = maps:get(cause, proplists:get_value(error_info, Info, #{}), #{}),
    Context = #{byte => maps:get(byte, Cause, undefined), kind => decode,
                options => options(Stream), stream => true},
    %% decode/2 blames the piece; decode_final/1 the stream as a whole.
    #{length(Args) => b64simd_messages:reason(Reason, Context)};
format_error(_Reason, _StackTrace) ->
    #{}.

%%====================================================================
%% Internal
%%====================================================================

options(#encoder{options = Options}) -> Options;
options(#decoder{options = Options}) -> Options;
options(_Stream) -> #{}.

%% The bad arguments of a call that raised badarg: options as
%% b64simd_messages describes them for the kind of stream, a state that is
%% not one, data that is not iodata.
describe_badarg(encode_init, [Options]) ->
    at_position(1, b64simd_messages:arguments(encode, [<<>>, Options]));
describe_badarg(decode_init, [Options]) ->
    at_position(1, b64simd_messages:arguments(decode, [<<>>, Options]));
describe_badarg(Function, [Stream | Data]) ->
    Kind = case Function of
               encode -> encoder;
               encode_final -> encoder;
               _ -> decoder
           end,
    StreamProblem = case is_record(Stream, Kind) of
                        true -> #{};
                        false -> #{1 => b64simd_messages:not_a_stream(Kind)}
                    end,
    DataProblem = case Data of
                      [] -> #{};
                      [Piece] -> at_position(2, b64simd_messages:arguments(decode, [Piece]))
                  end,
    maps:merge(StreamProblem, DataProblem);
describe_badarg(_Function, _Args) ->
    #{}.

%% The description b64simd_messages gives of its argument 1 (data) or 2
%% (options), at this call's `Position'.
at_position(Position, Described) ->
    maps:from_list([{Position, Text} || {_, Text} <- maps:to_list(Described)]).
