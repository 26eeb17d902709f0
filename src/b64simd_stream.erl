%% @doc Streaming Base64: encode or decode data that arrives in pieces (files,
%% sockets, HTTP bodies) in memory bounded by the piece size.
%%
%% Any chunking of the input gives exactly the one-shot result of
%% `b64simd:encode/2' or `b64simd:try_decode/2' on the whole input, line
%% wrapping included, and decode errors carry 0-based offsets into the whole
%% stream. Between calls a state keeps a few bytes: an incomplete group of 3
%% input bytes (and, when wrapping, how full the last line is), or an
%% incomplete quantum of 4 Base64 characters with its whitespace and padding.
%% Each piece goes through the NIF in place, the carry put in front of it
%% there; only a decode that meets an error copies a piece, once, to join it
%% to the carry. Encoding pieces of a multiple of 3 bytes carries nothing.
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

-record(encoder, {
    options :: map(),
    %% The options as the NIF takes them, parsed once.
    flags :: non_neg_integer(),
    lines :: unwrapped | {pos_integer(), boolean()},
    %% With wrapping: the characters on the last line written so far. The
    %% NIF starts the next piece there, with a break first if it is full.
    column = 0 :: non_neg_integer(),
    %% The input bytes of an incomplete group: fewer than 3.
    carry = <<>> :: binary()
}).

-record(decoder, {
    options :: map(),
    %% The NIF's flags for the same options with padding optional and
    %% canonical off: the end-of-input rules apply once, in decode_final/1,
    %% to the last quantum. Parsed once: parsing a map per piece cost more
    %% than decoding a 1460-byte piece.
    loose :: non_neg_integer(),
    %% The NIF's flags for the options themselves, for decode_final/1.
    flags :: non_neg_integer(),
    %% What the NIF carries from one piece to the next: the input not yet
    %% decoded, the stream offset of each of its bytes, and that of the next
    %% piece. Only the NIF reads it.
    state = <<>> :: binary()
}).

%% A state that carries no bytes (a new stream's, or one whose pieces ended
%% on whole quanta) is at most the next piece's offset: 8 bytes. Its end
%% decodes to nothing under any options, without a NIF call (which cost
%% 40 ns a stream, a twentieth of a 4 KiB stream's time).
-define(NOTHING_CARRIED, 8).

-opaque encoder() :: #encoder{}.
%% An encoding stream's state.
-opaque decoder() :: #decoder{}.
%% A decoding stream's state.


-define(RAISE(Reason, Args, Cause),
        erlang:error(Reason, Args, [{error_info, #{module => ?MODULE, cause => Cause}}])).

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
    case b64simd_options:encode_parsed(Options) of
        {Flags, Lines} -> #encoder{options = Options, flags = Flags, lines = Lines};
        badarg -> ?RAISE(badarg, [Options], #{})
    end.

%% @doc Encodes the next piece of the input: returns the Base64 of all whole
%% groups (or whole lines, when wrapping) so far and the new state. Raises
%% `badarg' if `Data' is not iodata or `Encoder' not an encoder.
-spec encode(Encoder, Data) -> {Base64, NewEncoder} when
      Encoder :: encoder(),
      Data :: iodata(),
      Base64 :: binary(),
      NewEncoder :: encoder().
encode(#encoder{carry = Carry} = Encoder, Data) ->
    case b64simd_options:to_binary(Data) of
        badarg ->
            ?RAISE(badarg, [Encoder, Data], #{});
        Binary ->
            New = byte_size(Carry) + byte_size(Binary),
            case New - New rem 3 of
                0 ->
                    %% Copied, so that the piece it came from can be freed.
                    {<<>>, Encoder#encoder{carry = binary:copy(join(Carry, Binary))}};
                Whole ->
                    %% The carry goes in front in the NIF: joining it to the
                    %% chunk here copied the whole chunk (0.66-0.79x of
                    %% one-shot encode at 64 KiB and 16 MiB).
                    Taken = Whole - byte_size(Carry),
                    <<Pieces:Taken/binary, Rest/binary>> = Binary,
                    {encode_after(Encoder, Pieces),
                     Encoder#encoder{carry = binary:copy(Rest),
                                     column = column_after(Encoder, Whole div 3 * 4)}}
            end
    end;
encode(Encoder, Data) ->
    ?RAISE(badarg, [Encoder, Data], #{}).

%% @doc Ends an encoding stream: returns the Base64 of the last bytes, with
%% padding if the options ask for it.
-spec encode_final(Encoder) -> Base64 when
      Encoder :: encoder(),
      Base64 :: binary().
encode_final(#encoder{carry = <<>>}) ->
    <<>>;
encode_final(#encoder{} = Encoder) ->
    encode_after(Encoder, <<>>);
encode_final(Encoder) ->
    ?RAISE(badarg, [Encoder], #{}).

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
    case b64simd_options:decode_flags(Options) of
        badarg -> ?RAISE(badarg, [Options], #{});
        Flags -> #decoder{options = Options,
                          flags = Flags,
                          loose = b64simd_options:decode_flags(Options#{padding => false,
                                                                canonical => false})}
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
decode(#decoder{} = Decoder, Base64) ->
    case b64simd_options:to_binary(Base64) of
        badarg ->
            ?RAISE(badarg, [Decoder, Base64], #{});
        Binary ->
            case decode_piece(Decoder, Binary) of
                {error, Reason, Byte} -> ?RAISE(Reason, [Decoder, Base64], #{byte => Byte});
                Result -> Result
            end
    end;
decode(Decoder, Base64) ->
    ?RAISE(badarg, [Decoder, Base64], #{}).

%% @doc Ends a decoding stream: applies the end-of-input rules of
%% `b64simd:decode/2' (padding, a dangling character, canonical bits) to the
%% last quantum and returns its data. Raises as {@link decode/2}.
-spec decode_final(Decoder) -> Data when
      Decoder :: decoder(),
      Data :: binary().
decode_final(#decoder{state = State}) when byte_size(State) =< ?NOTHING_CARRIED ->
    <<>>;
decode_final(#decoder{state = State, flags = Flags} = Decoder) ->
    case b64simd_nif:decode_final(State, Flags) of
        {error, Reason, Byte} -> ?RAISE(Reason, [Decoder], #{byte => Byte});
        Data -> Data
    end;
decode_final(Decoder) ->
    ?RAISE(badarg, [Decoder], #{}).

%% @doc Explains an error raised by this module, for `erl_error' and the
%% shell, as `b64simd:format_error/2' does; offsets are into the whole stream.
-spec format_error(Reason, StackTrace) -> ErrorMap when
      Reason :: term(),
      StackTrace :: erlang:stacktrace(),
      ErrorMap :: #{pos_integer() => unicode:chardata(), general => unicode:chardata()}.
format_error(badarg, [{_M, F, Args, _Info} | _]) when is_list(Args) ->
    describe_badarg(F, Args);
format_error(Reason, [{_M, _F, [State | _] = Args, Info} | _]) ->
    Options = state_options(State),
    Cause = maps:get(cause, proplists:get_value(error_info, Info, #{}), #{}),
    %% decode/2 blames the piece; decode_final/1 the stream as a whole.
    Position = length(Args),
    #{Position => describe_reason(Reason, maps:get(byte, Cause, undefined), Options)};
format_error(_Reason, _StackTrace) ->
    #{}.

%%====================================================================
%% Internal: encode
%%====================================================================

%% The carry and Pieces encoded as one, after the output so far: whole
%% groups, or at the end whatever is left, padded. The NIF puts the carry
%% in front of Pieces itself, so neither is copied to join them; with
%% wrapping it continues a last line that holds `Column' characters.
encode_after(#encoder{carry = Carry, flags = Flags, lines = unwrapped}, Pieces) ->
    b64simd_options:finish(b64simd_nif:encode_after(Carry, Pieces, Flags), Pieces);
encode_after(#encoder{carry = Carry, flags = Flags, lines = {Length, Lf}, column = Column},
             Pieces) ->
    Result = b64simd_nif:encode_wrapped_after(Carry, Pieces, Flags, Length, Lf, Column),
    b64simd_options:finish(Result, Pieces).

%% The column once Chars (at least 1) more characters are written: a break
%% comes before each that finds the line full.
column_after(#encoder{lines = unwrapped}, _Chars) ->
    0;
column_after(#encoder{lines = {Length, _Lf}, column = Column}, Chars) ->
    (Column + Chars - 1) rem Length + 1.

%%====================================================================
%% Internal: decode
%%====================================================================

%% The quick way: the NIF decodes the whole quanta of the carry and the new
%% piece, without joining the two (which copied every piece); what follows,
%% at most a partial quantum, is carried. A padded quantum at the end is
%% carried too, for decode_final/1 (or the next piece) to judge. Anything
%% unusual (an error, padding, a long carry) makes it answer `exact': the
%% exact way joins the two once and finds the stream's first error. Either
%% way the NIF renews the state, and its errors carry stream offsets.
decode_piece(#decoder{state = State, loose = Loose} = Decoder, Binary) ->
    case b64simd_options:finish(b64simd_nif:decode_quanta(State, Binary, Loose), Binary) of
        exact ->
            case b64simd_options:finish(b64simd_nif:decode_exact(State, Binary, Loose), Binary) of
                {error, _Reason, _Byte} = Error -> Error;
                {Data, Next} -> {Data, Decoder#decoder{state = Next}}
            end;
        {Data, Next} ->
            {Data, Decoder#decoder{state = Next}}
    end.

join(<<>>, Binary) ->
    Binary;
join(Carry, Binary) ->
    Size = byte_size(Carry),
    <<Carry:Size/binary, Binary/binary>>.

state_options(#encoder{options = Options}) -> Options;
state_options(#decoder{options = Options}) -> Options;
state_options(_State) -> #{}.

describe_badarg(F, [_Options]) when F =:= encode_init; F =:= decode_init ->
    #{1 => "bad options: see b64simd:encode/2 and b64simd:decode/2 for the allowed keys and values"};
describe_badarg(F, [State | Rest]) ->
    Kind = case F of
               encode -> encoder;
               encode_final -> encoder;
               _ -> decoder
           end,
    StateProblem = case is_record(State, Kind) of
                       true -> #{};
                       false -> #{1 => io_lib:format("not a stream state from ~s_init/1", [stream_verb(Kind)])}
                   end,
    DataProblem = case Rest of
                      [Data] when is_binary(Data) -> #{};
                      [Data] ->
                          case b64simd_options:to_binary(Data) of
                              badarg -> #{2 => "not iodata: expected a binary or a list of bytes (0..255) and binaries"};
                              _ -> #{}
                          end;
                      [] -> #{}
                  end,
    maps:merge(StateProblem, DataProblem);
describe_badarg(_F, _Args) ->
    #{}.

stream_verb(encoder) -> "encode";
stream_verb(decoder) -> "decode".

%% b64simd describes every reason but the invalid character from the reason
%% alone; the character itself is known only here, where the piece was.
describe_reason({invalid_character, Offset}, Byte, Options) when is_integer(Byte) ->
    #{1 := Text} = b64simd:format_error({invalid_character, 0},
                                        [{b64simd, decode, [<<Byte>>, Options], []}]),
    string:replace(Text, "at byte 0", io_lib:format("at byte ~b of the stream", [Offset]));
describe_reason(Reason, _Byte, Options) ->
    case b64simd:format_error(Reason, [{b64simd, decode, [<<>>, Options], []}]) of
        #{1 := Text} -> Text;
        _ -> io_lib:format("~tp", [Reason])
    end.
