#!/usr/bin/env escript
%%! -pa _build/default/lib/b64simd/ebin
%% Run from the repository root after `rebar3 compile`: escript scripts/bench_issue5.escript
%% Throughput of issue 5's features relative to plain encode/decode, at
%% 64 KiB and 16 MiB: best of 5 runs of >= 50 ms each, GC before each run.
main(_) ->
    io:format("kernel ~p~n", [b64simd:kernel()]),
    rand:seed(exsss, {5, 5, 5}),
    [run(Size) || Size <- [64 * 1024, 16 * 1024 * 1024]],
    ok.

run(Size) ->
    Data = binary:copy(list_to_binary([rand:uniform(256) - 1 || _ <- lists:seq(1, 65536)]),
                       Size div 65536),
    Plain = b64simd:encode(Data),
    Mime = b64simd:encode(Data, #{line_length => 76}),
    Dirty = binary:replace(Mime, <<"\r\n">>, <<"\r\n!">>, [global]),
    Sparse = iolist_to_binary(lists:join(<<"!">>, [Chunk || <<Chunk:65536/binary>> <= Mime]
                                                  ++ [binary:part(Mime, byte_size(Mime), -(byte_size(Mime) rem 65536))])),
    Enc = rate(Size, fun() -> b64simd:encode(Data) end),
    Dec = rate(byte_size(Plain), fun() -> b64simd:decode(Plain) end),
    Rows = [{"encode", Enc, Enc},
            {"encode line_length 76 crlf (MIME)", Enc,
             rate(Size, fun() -> b64simd:encode(Data, #{line_length => 76}) end)},
            {"encode line_length 64 lf (PEM)", Enc,
             rate(Size, fun() -> b64simd:encode(Data, #{line_length => 64, line_break => lf}) end)},
            {"encode line_length 76 lf", Enc,
             rate(Size, fun() -> b64simd:encode(Data, #{line_length => 76, line_break => lf}) end)},
            {"decode", Dec, Dec},
            {"decode of 76/crlf text", Dec,
             rate(byte_size(Mime), fun() -> b64simd:decode(Mime) end)},
            {"mime_decode of 76/crlf text", Dec,
             rate(byte_size(Mime), fun() -> b64simd:mime_decode(Mime) end)},
            {"mime_decode of 76/crlf text with a '!' per line", Dec,
             rate(byte_size(Dirty), fun() -> b64simd:mime_decode(Dirty) end)},
            {"mime_decode of 76/crlf text with a '!' per 64 KiB", Dec,
             rate(byte_size(Sparse), fun() -> b64simd:mime_decode(Sparse) end)},
            {"is_valid", Dec, rate(byte_size(Plain), fun() -> b64simd:is_valid(Plain) end)},
            {"is_valid of 76/crlf text", Dec,
             rate(byte_size(Mime), fun() -> b64simd:is_valid(Mime) end)}]
        ++ case Size =< 65536 of
               true -> [{"OTP base64:mime_decode of 76/crlf text", Dec,
                         rate(byte_size(Mime), fun() -> base64:mime_decode(Mime) end)}];
               false -> []
           end,
    io:format("~n~b bytes of data~n", [Size]),
    [io:format("  ~-50s ~8.1f MiB/s  ~5.2fx of plain~n", [Name, R, R / Base])
     || {Name, Base, R} <- Rows].

%% MiB/s of input bytes.
rate(Bytes, Fun) ->
    Fun(),
    Reps = calibrate(Fun, 1),
    Best = lists:min([begin
                          garbage_collect(),
                          {T, _} = timer:tc(fun() -> repeat(Fun, Reps) end),
                          T / Reps
                      end || _ <- lists:seq(1, 5)]),
    Bytes / Best * 1.0e6 / 1048576.

calibrate(Fun, Reps) ->
    {T, _} = timer:tc(fun() -> repeat(Fun, Reps) end),
    case T < 50000 of
        true -> calibrate(Fun, Reps * 2);
        false -> Reps
    end.

repeat(_Fun, 0) -> ok;
repeat(Fun, N) -> Fun(), repeat(Fun, N - 1).
