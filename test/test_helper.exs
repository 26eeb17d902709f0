IO.puts("B64Simd tests running on simdutf kernel: #{:b64simd.kernel()}")

defmodule B64SimdTest.Random do
  @moduledoc false

  # Seeds this process's generator from the test's name, or from
  # B64SIMD_SEED, and prints the seed so that a failure can be replayed.
  def seed(test) do
    base =
      case System.get_env("B64SIMD_SEED") do
        nil -> :erlang.phash2(test)
        text -> String.to_integer(text)
      end

    IO.puts("\n#{test}: rand seed exsss {#{base}, 1789, 2026} (set B64SIMD_SEED=N to change)")
    :rand.seed(:exsss, {base, 1789, 2026})
  end

  # Text broken or decorated: up to three bytes inserted, deleted or
  # replaced, each drawn from `tricky`.
  def mutate(text, tricky) do
    Enum.reduce(1..Enum.random(0..3)//1, text, fn _, acc ->
      at = :rand.uniform(byte_size(acc) + 1) - 1
      {front, back} = :erlang.split_binary(acc, at)
      byte = Enum.random(tricky)

      case {Enum.random([:insert, :delete, :replace]), back} do
        {:insert, _} -> <<front::binary, byte, back::binary>>
        {_, <<>>} -> acc
        {:delete, <<_, rest::binary>>} -> front <> rest
        {:replace, <<_, rest::binary>>} -> <<front::binary, byte, rest::binary>>
      end
    end)
  end
end

ExUnit.start()
