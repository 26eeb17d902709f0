IO.puts("B64Simd tests running on simdutf kernel: #{:b64simd.kernel()}")

defmodule B64SimdTest.Mutate do
  @moduledoc false

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
