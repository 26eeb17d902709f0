# B64Simd as all of Elixir's Base: every function Base exports on the
# running Elixir exists in B64Simd, and the Base16 and Base32 functions
# give Base's results (encodings, {:ok, data} or :error, ArgumentError for
# the bang versions, the valid?s' verdicts) on valid and broken text, for
# every option, on this Elixir release (make test-otp runs 1.18 and 1.20).
defmodule B64SimdBase16And32Test do
  use ExUnit.Case, async: true

  defp random_data do
    :rand.bytes(Enum.random([0, 1, 2, 3, 4, 5, 6, 7, 8, :rand.uniform(40), :rand.uniform(600)]))
  end

  # Text broken or decorated: bytes inserted, deleted or replaced, drawn
  # from both cases of both alphabets, '=', whitespace and junk.
  defp mutate(text) do
    tricky = ~c"AaFfGgZz0189VvWw=  \n!" ++ [0, 255, :rand.uniform(256) - 1]
    B64SimdTest.Random.mutate(text, tricky)
  end

  defp mix_case(text) do
    for <<c <- text>>,
      into: <<>>,
      do: if(:rand.uniform(2) == 1, do: <<c>>, else: String.downcase(<<c>>))
  end

  # A bang function's result, or its ArgumentError's message.
  defp bang(fun) do
    {:ok, fun.()}
  rescue
    error in ArgumentError -> {:error, error.message}
  end

  # Base's valid16?/valid32?/hex_valid32? (Elixir 1.19 on), or what they
  # mean on older releases: that the decode succeeds.
  defp base_valid?(name, decode, text, opts) do
    if function_exported?(Base, name, 2),
      do: apply(Base, name, [text, opts]),
      else: match?({:ok, _}, apply(Base, decode, [text, opts]))
  end

  test "B64Simd has every function Base exports on this Elixir release" do
    Code.ensure_loaded!(Base)
    Code.ensure_loaded!(B64Simd)
    missing = Base.__info__(:functions) -- B64Simd.__info__(:functions)

    IO.puts(
      "\nBase on Elixir #{System.version()}: #{length(Base.__info__(:functions))} functions"
    )

    assert missing == [], "B64Simd lacks #{inspect(missing)} of Elixir #{System.version()}'s Base"
  end

  @cases16 [[], [case: :upper], [case: :lower], [case: :mixed]]

  test "Base16 as Base.encode16, decode16, decode16! and valid16?" do
    B64SimdTest.Random.seed(:base16_against_base)

    for _ <- 1..1500 do
      data = random_data()
      assert B64Simd.encode16(data) == Base.encode16(data)
      assert B64Simd.encode16(data, case: :lower) == Base.encode16(data, case: :lower)
      assert B64Simd.encode16(data, case: :upper) == Base.encode16(data, case: :upper)

      for text <- [Base.encode16(data), Base.encode16(data, case: :lower)],
          text <- [text, mix_case(text), mutate(text)],
          opts <- @cases16 do
        label = inspect({text, opts})
        expected = Base.decode16(text, opts)
        assert B64Simd.decode16(text, opts) == expected, label

        assert bang(fn -> B64Simd.decode16!(text, opts) end) ==
                 bang(fn -> Base.decode16!(text, opts) end),
               label

        assert B64Simd.valid16?(text, opts) == base_valid?(:valid16?, :decode16, text, opts),
               label
      end
    end
  end

  @options32 for c <- [[], [case: :upper], [case: :lower], [case: :mixed]],
                 p <- [[], [padding: true], [padding: false]],
                 do: c ++ p

  test "Base32 as Base.encode32, decode32, decode32!, valid32? and the hex_ versions" do
    B64SimdTest.Random.seed(:base32_against_base)

    for _ <- 1..500,
        {encode, decode, decode!, valid} <- [
          {:encode32, :decode32, :decode32!, :valid32?},
          {:hex_encode32, :hex_decode32, :hex_decode32!, :hex_valid32?}
        ] do
      data = random_data()

      for opts <- [[], [case: :lower], [padding: false], [case: :lower, padding: false]] do
        assert apply(B64Simd, encode, [data, opts]) == apply(Base, encode, [data, opts])
      end

      for text <- [apply(Base, encode, [data, []]), apply(Base, encode, [data, [padding: false]])],
          text <- [text, mix_case(text), mutate(text), mutate(String.downcase(text))],
          opts <- @options32 do
        label = inspect({decode, text, opts})
        expected = apply(Base, decode, [text, opts])
        assert apply(B64Simd, decode, [text, opts]) == expected, label

        assert bang(fn -> apply(B64Simd, decode!, [text, opts]) end) ==
                 bang(fn -> apply(Base, decode!, [text, opts]) end),
               label

        assert apply(B64Simd, valid, [text, opts]) == base_valid?(valid, decode, text, opts),
               label
      end
    end
  end

  test "every byte at every position of short Base16 and Base32 texts, as Base" do
    B64SimdTest.Random.seed(:every_byte_against_base)

    for data <- [<<>>, "f", "fo", "foo", "foob", "fooba", "foobar", :rand.bytes(7)],
        {encode, decode, opts} <- [
          {:encode16, :decode16, [case: :mixed]},
          {:encode16, :decode16, []},
          {:encode32, :decode32, [padding: false]},
          {:encode32, :decode32, [case: :mixed]},
          {:hex_encode32, :hex_decode32, []}
        ],
        text = apply(Base, encode, [data, []]),
        at <- 0..(byte_size(text) - 1)//1,
        byte <- 0..255 do
      <<front::binary-size(at), _, back::binary>> = text
      bad = <<front::binary, byte, back::binary>>

      assert apply(B64Simd, decode, [bad, opts]) == apply(Base, decode, [bad, opts]),
             inspect({decode, bad, opts})
    end
  end

  test "iodata in, as the Erlang functions take it" do
    assert B64Simd.encode16(["fo", ?o]) == "666F6F"
    assert B64Simd.decode16(["666", ?F, "6F"]) == {:ok, "foo"}
    assert B64Simd.encode32([?f, "oobar"]) == "MZXW6YTBOI======"
    assert B64Simd.hex_decode32!(["CPNMUOJ1", "E8======"]) == "foobar"
  end

  test "options are checked: an unknown option or a bad value raises, naming it" do
    assert_raise ArgumentError, "unknown option :padding; the options are :case", fn ->
      B64Simd.encode16("a", padding: false)
    end

    assert_raise ArgumentError,
                 "bad value :mixed for option :case; expected :upper or :lower",
                 fn ->
                   B64Simd.encode32("a", case: :mixed)
                 end

    assert_raise ArgumentError, ~r/unknown option :ignore/, fn ->
      B64Simd.decode32("ME======", ignore: :whitespace)
    end

    assert_raise ArgumentError, ~r/bad value 1 for option :padding/, fn ->
      B64Simd.hex_valid32?("ME======", padding: 1)
    end

    assert_raise ArgumentError, ~r/expected a keyword list/, fn ->
      B64Simd.decode16("61", :lower)
    end
  end

  test "the bang versions raise Base's messages; :b64simd_hex and :b64simd_base32 say where" do
    for {b64simd, base, text} <- [
          {&B64Simd.decode16!/2, &Base.decode16!/2, "666"},
          {&B64Simd.decode32!/2, &Base.decode32!/2, "my======"}
        ] do
      assert bang(fn -> b64simd.(text, []) end) == bang(fn -> base.(text, []) end)
    end

    assert :b64simd_hex.try_decode_hex("666", :upper) == {:error, {:incomplete, 2}}
    assert :b64simd_base32.try_decode("my======") == {:error, {:invalid_character, 0}}
  end
end
