# What a B64Simd call costs next to the b64simd call it stands for (the same
# options, as the literal map the facade passes), and next to Elixir's Base,
# at 32 bytes of data. `make bench` runs it (scripts/bench.sh); alone:
#
#   MIX_BUILD_ROOT=_build/mix MIX_ENV=prod mix run bench/b64simd_elixir_bench.exs
#
# Each row is timed in 9 interleaved rounds of 300,000 calls (B64Simd, then
# the Erlang call, then Base), each in a loop of its own; the medians are
# printed, and their ratio. A loop that calls nothing is subtracted.
# Loaded before anything is timed.
Code.ensure_loaded!(:b64simd_nif)
data = :binary.copy(<<0xA5, 0x3C, 0x7E>>, 11) |> binary_part(0, 32)
standard = Base.encode64(data)
url = Base.url_encode64(data, padding: false)
calls = 300_000
rounds = 9

defmodule B64SimdElixirBench.Loop do
  def run(_fun, 0), do: :ok

  def run(fun, n) do
    fun.()
    run(fun, n - 1)
  end
end

time = fn fun ->
  :erlang.garbage_collect()
  {us, :ok} = :timer.tc(fn -> B64SimdElixirBench.Loop.run(fun, calls) end)
  us * 1000 / calls
end

median = fn list -> list |> Enum.sort() |> Enum.at(div(length(list), 2)) end

rows = [
  {"encode64/1", fn -> B64Simd.encode64(data) end, fn -> :b64simd.encode(data) end,
   fn -> Base.encode64(data) end},
  {"url_encode64/2 padding: false", fn -> B64Simd.url_encode64(data, padding: false) end,
   fn -> :b64simd.encode(data, %{mode: :urlsafe, padding: false}) end,
   fn -> Base.url_encode64(data, padding: false) end},
  {"decode64/1", fn -> B64Simd.decode64(standard) end,
   fn ->
     :b64simd.try_decode(standard, %{mode: :standard, padding: true, whitespace: :reject})
   end, fn -> Base.decode64(standard) end},
  {"url_decode64/2 padding: false", fn -> B64Simd.url_decode64(url, padding: false) end,
   fn -> :b64simd.try_decode(url, %{mode: :urlsafe, padding: false, whitespace: :reject}) end,
   fn -> Base.url_decode64(url, padding: false) end},
  {"valid64?/1", fn -> B64Simd.valid64?(standard) end,
   fn -> :b64simd.is_valid(standard, %{mode: :standard, padding: true, whitespace: :reject}) end,
   fn -> match?({:ok, _}, Base.decode64(standard)) end}
]

empty = median.(for _ <- 1..rounds, do: time.(fn -> :ok end))

IO.puts(
  "B64Simd against the Erlang call it wraps, 32 bytes, OTP #{System.otp_release()}, " <>
    "Elixir #{System.version()}, kernel #{:b64simd.kernel()} (ns per call, loop of #{Float.round(empty, 1)} ns subtracted)"
)

IO.puts(String.pad_trailing("call", 32) <> "  B64Simd   Erlang   ratio     Base")

for {name, facade, erlang, base} <- rows do
  samples = for _ <- 1..rounds, do: {time.(facade), time.(erlang), time.(base)}
  [f, e, b] = for i <- 0..2, do: median.(Enum.map(samples, &elem(&1, i))) - empty

  figures = :io_lib.format("~8.1f ~8.1f ~7.2fx ~8.1f", [f, e, f / e, b])
  IO.puts(String.pad_trailing(name, 32) <> to_string(figures))
end

# Streams: what a piece costs through a B64Simd stream next to the
# :b64simd_stream calls on the same pieces (one state threaded through the
# list), at 78-byte pieces (to decode, a MIME body's lines: 76 characters
# and CRLF, with ignore: :whitespace) and at 64 KiB pieces; 9 interleaved
# rounds, the medians per piece.
defmodule B64SimdElixirBench.Streams do
  def erlang_encode(pieces, options) do
    encoder =
      Enum.reduce(pieces, :b64simd_stream.encode_init(options), fn piece, encoder ->
        {_base64, encoder} = :b64simd_stream.encode(encoder, piece)
        encoder
      end)

    :b64simd_stream.encode_final(encoder)
  end

  def erlang_decode(pieces, options) do
    decoder =
      Enum.reduce(pieces, :b64simd_stream.decode_init(options), fn piece, decoder ->
        {_data, decoder} = :b64simd_stream.decode(decoder, piece)
        decoder
      end)

    :b64simd_stream.decode_final(decoder)
  end
end

chunks = fn binary, size ->
  for <<piece::binary-size(size) <- binary>>, do: piece
end

lines_data = :binary.copy(<<0xA5, 0x3C, 0x7E>>, 19 * 20_000)
lines = lines_data |> chunks.(57) |> Enum.map(&(Base.encode64(&1) <> "\r\n"))
big_data = :binary.copy(<<0xA5, 0x3C, 0x7E, 0x11>>, 16 * 65_536)
big_text = Base.encode64(big_data)

stream_rows = [
  {"encode64_stream, 78 B pieces", chunks.(lines_data, 78), &B64Simd.encode64_stream(&1),
   &B64SimdElixirBench.Streams.erlang_encode(&1, %{})},
  {"encode64_stream, 64 KiB pieces", chunks.(big_data, 65_536), &B64Simd.encode64_stream(&1),
   &B64SimdElixirBench.Streams.erlang_encode(&1, %{})},
  {"decode64_stream, 78 B lines", lines, &B64Simd.decode64_stream(&1, ignore: :whitespace),
   &B64SimdElixirBench.Streams.erlang_decode(&1, %{whitespace: :skip})},
  {"decode64_stream, 64 KiB pieces", chunks.(big_text, 65_536), &B64Simd.decode64_stream(&1),
   &B64SimdElixirBench.Streams.erlang_decode(&1, %{whitespace: :reject})}
]

per_piece = fn fun, pieces ->
  :erlang.garbage_collect()
  {us, _} = :timer.tc(fun)
  us * 1000 / length(pieces)
end

IO.puts("\nStreams: B64Simd against :b64simd_stream on the same pieces (ns per piece)")
IO.puts(String.pad_trailing("stream", 32) <> "  B64Simd   Erlang   ratio")

for {name, pieces, elixir, erlang} <- stream_rows do
  samples =
    for _ <- 1..rounds do
      {per_piece.(fn -> elixir.(pieces) |> Stream.run() end, pieces),
       per_piece.(fn -> erlang.(pieces) end, pieces)}
    end

  [f, e] = for i <- 0..1, do: median.(Enum.map(samples, &elem(&1, i)))
  figures = :io_lib.format("~8.1f ~8.1f ~7.2fx", [f, e, f / e])
  IO.puts(String.pad_trailing(name, 32) <> to_string(figures))
end
