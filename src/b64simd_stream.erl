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
    %% Offset in the stream of the next byte given to decode/2.
    position = 0 :: non_neg_integer(),
    %% The input not yet decoded: the characters of an incomplete (or
    %% padded) quantum, with the whitespace and '=' among and after them,
    %% a few bytes. `offsets' maps it back to the stream:
    %% {index in carry, stream offset} where a contiguous run starts, last
    %% first.
    carry = <<>> :: binary(),
    offsets = [] :: [{non_neg_integer(), non_neg_integer()}]
}).

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
        _Flags -> #decoder{options = Options,
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
decode_final(#decoder{carry = <<>>}) ->
    <<>>;
decode_final(#decoder{carry = Carry, options = Options} = Decoder) ->
    case b64simd:try_decode(Carry, Options) of
        {ok, Data} ->
            Data;
        {error, Reason} ->
            {Absolute, Byte} = locate(Reason, Carry, Decoder),
            ?RAISE(Absolute, [Decoder], #{byte => Byte})
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
%% piece, without joining the two (which copied every piece), and says how
%% many of their bytes those quanta take up; what follows, at most a partial
%% quantum, is carried. A padded quantum at the end is carried too, for
%% decode_final/1 (or the next piece, if the stream goes on) to judge.
%% Anything unusual (an error, a long carry) takes the exact way below.
decode_piece(#decoder{carry = Carry, position = Position, loose = Loose} = Decoder, Binary) ->
    Next = Decoder#decoder{position = Position + byte_size(Binary)},
    %% The data of the whole quanta at the start of Carry ++ Binary and the
    %% bytes they take up, without joining the two; `exact' when something
    %% there needs a closer look (an error, padding, a long carry).
    case b64simd_options:finish(b64simd_nif:decode_quanta(Carry, Binary, Loose), Binary) of
        {Data, Consumed} ->
            {NewCarry, Segments} = left_over(Consumed, Binary, Decoder),
            {Data, Next#decoder{carry = NewCarry, offsets = Segments}};
        exact ->
            decode_exact(join(Carry, Binary), Decoder, Next)
    end.

%% The bytes of the carry and the piece from Consumed on, copied so that the
%% piece can be freed, with the segments that map them to the stream.
left_over(Consumed, Binary, #decoder{carry = Carry, position = Position})
  when Consumed >= byte_size(Carry) ->
    From = Consumed - byte_size(Carry),
    case byte_size(Binary) - From of
        0 -> {<<>>, []};
        Size -> {binary:copy(binary_part(Binary, From, Size)), [{0, Position + From}]}
    end;
left_over(Consumed, Binary, #decoder{carry = Carry, offsets = Segments, position = Position}) ->
    Kept = binary_part(Carry, Consumed, byte_size(Carry) - Consumed),
    Later = [{Start - Consumed, Offset} || {Start, Offset} <- Segments, Start > Consumed],
    {binary:copy(join(Kept, Binary)),
     [{byte_size(Kept), Position} | Later] ++ [{0, segment_offset(Consumed, Segments)}]}.

%% One segment per carried character: {its index in the carry, its stream
%% offset}, last first, as absolute/2 reads them.
segments(Offsets) ->
    lists:reverse(lists:zip(lists:seq(0, length(Offsets) - 1), Offsets)).

%% The exact way, in the NIF (native/b64simd_core/src/exact.rs): the data
%% of the buffer's whole quanta and which of its bytes to carry on, or the
%% stream's first error, with offsets into the buffer that are mapped here
%% to the stream.
decode_exact(Buffer, #decoder{loose = Loose} = Decoder, Next) ->
    case b64simd_options:finish(b64simd_nif:decode_exact(Buffer, Loose), Buffer) of
        {error, Reason} ->
            {Absolute, Byte} = locate(Reason, Buffer, Decoder),
            {error, Absolute, Byte};
        {Data, Kept} ->
            Carry = << <<(binary:at(Buffer, At))>> || At <- Kept >>,
            Offsets = [absolute(At, Decoder) || At <- Kept],
            {Data, Next#decoder{carry = Carry, offsets = segments(Offsets)}}
    end.

%% The reason with its offset into Buffer (carry, then the new piece) made an
%% offset into the stream, and the byte there.
locate({Kind, At}, Buffer, Decoder) ->
    {{Kind, absolute(At, Decoder)}, binary:at(Buffer, At)};
locate(Reason, _Buffer, _Decoder) ->
    {Reason, undefined}.

absolute(At, #decoder{carry = Carry, offsets = Segments}) when At < byte_size(Carry) ->
    segment_offset(At, Segments);
absolute(At, #decoder{carry = Carry, position = Position}) ->
    Position + At - byte_size(Carry).

segment_offset(At, [{Start, Offset} | _]) when Start =< At ->
    Offset + At - Start;
segment_offset(At, [_ | Segments]) ->
    segment_offset(At, Segments).

%%====================================================================
%% Internal: arguments and error descriptions
%%====================================================================

%% Without a carry, the piece is used in place, not copied. With one, the
%% sized first segment keeps the compiler from building an appendable binary
%% (as <<Carry/binary, ...>> does): the NIF would have to shrink that one
%% first, a second copy, ten times slower than this one (iolist_to_binary/1
%% is slower still).
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
