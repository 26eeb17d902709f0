# B64Simd against Elixir's Base for Base16 and Base32: encode16/1,
# decode16/1, encode32/1 and decode32/1 at 16 B, 32 B (a SHA-256), 4 KiB,
# 1 MiB and 16 MiB of data (decode: its encoding). Every result is checked
# against Base's first. `make bench` and `make bench-otp` run it
# (scripts/bench.sh, scripts/bench_platforms.sh); alone:
#
#   MIX_BUILD_ROOT=_build/mix MIX_ENV=prod mix run bench/b64simd_codecs_bench.exs
#
# Each row is timed in 7 rounds, B64Simd and Base in turn; a round is a loop
# of calls that lasts about 20 ms (at least one call), after a garbage
# collection. The medians are printed, and their ratio, less the median time
# of the same loop calling a function that does nothing (as
# bench/b64simd_elixir_bench.exs does). The Base32 rows from 4 KiB up end
# with MET or MISSED against the 10x target.
defmodule B64SimdCodecsBench do
  @rounds 7
  @round_ns 20_000_000

  def run do
    :rand.seed(:exsss, {29, 16, 32})
    nothing = fn input -> input end
    calls = calls(nothing, "")
    loop = median(for _ <- 1..@rounds, do: ns_per_call(nothing, "", calls))
    Process.put(:loop_ns, loop)

    IO.puts(
      "\n== Base16 and Base32: B64Simd against Base, OTP #{System.otp_release()}, " <>
        "Elixir #{System.version()}; ns per call, median of #{@rounds} interleaved rounds, " <>
        "a loop of #{Float.round(loop, 1)} ns subtracted; x = Base over B64Simd"
    )

    IO.puts(
      String.pad_trailing("call", 16) <>
        String.pad_leading("bytes", 10) <>
        String.pad_leading("B64Simd ns", 15) <>
        String.pad_leading("Base ns", 15) <> String.pad_leading("x", 9)
    )

    for size <- [16, 32, 4096, 1_048_576, 16_777_216], do: size |> rows() |> Enum.each(&row/1)
  end

  defp rows(size) do
    data = :rand.bytes(size)
    hex = Base.encode16(data)
    base32 = Base.encode32(data)

    [
      {"encode16/1", size, &B64Simd.encode16/1, &Base.encode16/1, data},
      {"decode16/1", size, &B64Simd.decode16/1, &Base.decode16/1, hex},
      {"encode32/1", size, &B64Simd.encode32/1, &Base.encode32/1, data},
      {"decode32/1", size, &B64Simd.decode32/1, &Base.decode32/1, base32}
    ]
  end

  defp row({name, size, ours, base, input}) do
    if ours.(input) != base.(input) do
      IO.puts("b64simd_codecs_bench: B64Simd's #{name} differs from Base's at #{size} bytes")
      System.halt(1)
    end

    calls = {calls(ours, input), calls(base, input)}

    rounds =
      for _ <- 1..@rounds,
          do: {ns_per_call(ours, input, elem(calls, 0)), ns_per_call(base, input, elem(calls, 1))}

    ours_ns = median(Enum.map(rounds, &elem(&1, 0)))
    base_ns = median(Enum.map(rounds, &elem(&1, 1)))
    figures = :io_lib.format("~15.1f~15.1f~8.1fx", [ours_ns, base_ns, base_ns / ours_ns])

    IO.puts(
      String.pad_trailing(name, 16) <>
        String.pad_leading("#{size}", 10) <>
        "#{figures}" <> verdict(name, size, base_ns / ours_ns)
    )
  end

  # The Base32 target: Base's time over ours at least 10x from 4 KiB up.
  defp verdict(name, size, ratio) when name in ["encode32/1", "decode32/1"] and size >= 4096,
    do: if(ratio >= 10, do: "  MET (target 10x)", else: "  MISSED (target 10x)")

  defp verdict(_name, _size, _ratio), do: ""

  defp calls(fun, input) do
    fun.(input)
    max(1, round(@round_ns / max(1, ns_per_call(fun, input, 1))))
  end

  defp ns_per_call(fun, input, calls) do
    :erlang.garbage_collect()
    start = System.monotonic_time(:nanosecond)
    loop(fun, input, calls)
    (System.monotonic_time(:nanosecond) - start) / calls - Process.get(:loop_ns, 0)
  end

  defp loop(_fun, _input, 0), do: :ok

  defp loop(fun, input, n) do
    fun.(input)
    loop(fun, input, n - 1)
  end

  defp median(list), do: list |> Enum.sort() |> Enum.at(div(length(list), 2))
end

# Loaded before anything is timed.
Code.ensure_loaded!(:b64simd_nif)
B64SimdCodecsBench.run()
