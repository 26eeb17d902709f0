# B64Simd against Elixir's own Base on the same inputs: the same encoding,
# and the same {:ok, data} or :error verdict (and ArgumentError for the bang
# versions) on valid, whitespace-laden and broken Base64, for every option.
defmodule B64SimdTest do
  use ExUnit.Case, async: true
  doctest B64Simd

  @decode_options [
    [],
    [padding: false],
    [ignore: :whitespace],
    [ignore: :whitespace, padding: false],
    [padding: true, ignore: :whitespace]
  ]

  defp random_data do
    size = Enum.random([0, 1, 2, 3, 4, :rand.uniform(64), :rand.uniform(1100)])
    :rand.bytes(size)
  end

  # Valid Base64 broken or decorated: bytes inserted, deleted or replaced,
  # drawn from characters of both alphabets, '=', whitespace and junk.
  defp mutate(text) do
    tricky = ~c"AQR+/-_=  \t\n\r\f\v!" ++ [0, 255, :rand.uniform(256) - 1]
    B64SimdTest.Random.mutate(text, tricky)
  end

  defp sprinkle_whitespace(text) do
    for <<byte <- text>>, into: <<>> do
      if :rand.uniform(8) == 1, do: <<Enum.random(~c" \t\r\n"), byte>>, else: <<byte>>
    end
  end

  # A bang function's result, or its ArgumentError's message.
  defp bang(fun) do
    {:ok, fun.()}
  rescue
    error in ArgumentError -> {:error, error.message}
  end

  defp assert_same_as_base(text) do
    for opts <- @decode_options do
      label = inspect({text, opts})
      assert B64Simd.decode64(text, opts) == Base.decode64(text, opts), label
      assert B64Simd.url_decode64(text, opts) == Base.url_decode64(text, opts), label

      assert bang(fn -> B64Simd.decode64!(text, opts) end) ==
               bang(fn -> Base.decode64!(text, opts) end),
             label

      assert bang(fn -> B64Simd.url_decode64!(text, opts) end) ==
               bang(fn -> Base.url_decode64!(text, opts) end),
             label

      assert B64Simd.valid64?(text, opts) == match?({:ok, _}, Base.decode64(text, opts)), label

      assert B64Simd.url_valid64?(text, opts) == match?({:ok, _}, Base.url_decode64(text, opts)),
             label
    end
  end

  # Elixir 1.20.0-1.20.3's Base.valid64?/2 and url_valid64?/2 accept some
  # text their decode64 refuses ("*+" among it). Ours answer as decode does:
  # every byte in every position of short inputs, judged by Base's decode.
  test "valid64? is decode's verdict, not Elixir 1.20.0-1.20.3's Base.valid64?" do
    refute B64Simd.valid64?("*+")
    refute B64Simd.url_valid64?("*-")
    refute B64Simd.valid64?("*+", padding: false)

    for byte <- 0..255,
        shape <- [&<<&1, ?+>>, &<<?A, &1, ?=, ?=>>, &<<?Q, ?Q, &1, ?=>>, &<<&1, ?A, ?A, ?A>>],
        text = shape.(byte),
        opts <- [[], [padding: false]] do
      label = "#{inspect(text)} #{inspect(opts)}"
      assert B64Simd.valid64?(text, opts) == match?({:ok, _}, Base.decode64(text, opts)), label

      assert B64Simd.url_valid64?(text, opts) == match?({:ok, _}, Base.url_decode64(text, opts)),
             label
    end
  end

  test "every public function has docs with an example that doctest runs" do
    {:docs_v1, _, :elixir, _, _, _, entries} = Code.fetch_docs(B64Simd)

    for {{:function, name, arity}, _, _, %{"en" => doc}, _} <- entries do
      call = ~r/iex> .*B64Simd\.#{Regex.escape(Atom.to_string(name))}[(\s]/
      assert doc =~ call, "#{name}/#{arity} has no example"
    end

    assert length(entries) >= 8
  end

  test "try_decode64's message says what is wrong in Elixir's words, for every reason" do
    for {text, opts, wanted} <- [
          {"Zm9vYg", [], "missing '=' padding"},
          {"Zm9v-mFy", [], "0x2D ('-') at byte 4; use url_decode64"},
          {"Zm9v+mFy", [:url], "0x2B ('+') at byte 4; use decode64"},
          {"Zm9v\nYg==", [], "0x0A at byte 4; use ignore: :whitespace"},
          {"Zm9vY===", [], "padding at byte 5"},
          {"Zm9vY", [padding: false], "dangling single base64 character at byte 4"}
        ] do
      decode = if :url in opts, do: &B64Simd.try_url_decode64/2, else: &B64Simd.try_decode64/2
      {:error, error} = decode.(text, opts -- [:url])
      assert error.message =~ wanted, "#{inspect(text)}: #{error.message}"
      refute error.message =~ "=>", "an Erlang option in #{inspect(error.message)}"
    end
  end

  test "runs on the simdutf kernel that make test forced" do
    case System.get_env("SIMDUTF_FORCE_IMPLEMENTATION") do
      nil -> :ok
      forced -> assert :b64simd.kernel() == String.to_atom(forced)
    end
  end

  test "encodes as Base does, both alphabets, with and without padding" do
    B64SimdTest.Random.seed("encode")

    for _ <- 1..2000, data = random_data(), padding <- [true, false] do
      assert B64Simd.encode64(data, padding: padding) == Base.encode64(data, padding: padding)

      assert B64Simd.url_encode64(data, padding: padding) ==
               Base.url_encode64(data, padding: padding)
    end

    big = :rand.bytes(3 * 1024 * 1024 + 1)
    assert B64Simd.encode64(big) == Base.encode64(big)
  end

  test "decodes valid, whitespace-laden and broken Base64 as Base does" do
    B64SimdTest.Random.seed("decode")

    for _ <- 1..1500 do
      data = random_data()
      encoded = Enum.random([Base.encode64(data), Base.url_encode64(data, padding: false)])
      assert_same_as_base(encoded)
      assert_same_as_base(sprinkle_whitespace(encoded))
      assert_same_as_base(mutate(encoded))
      assert_same_as_base(mutate(sprinkle_whitespace(encoded)))
    end
  end

  test "every byte value at the start, middle and end of a quantum" do
    for byte <- 0..255, text <- ["QUJD", "QQ==", "QUI=", "QQ", "QUJ"], at <- 0..byte_size(text) do
      {front, back} = :erlang.split_binary(text, at)
      assert_same_as_base(<<front::binary, byte, back::binary>>)
    end
  end

  test "every short string over a small alphabet" do
    alphabet = ~c"QR=- \n"

    strings =
      Enum.reduce(1..5, [""], fn _, acc ->
        acc ++ for s <- acc, c <- alphabet, do: <<c, s::binary>>
      end)
      |> Enum.uniq()

    Enum.each(strings, &assert_same_as_base/1)
  end

  test "try_decode64 names the problem and its offset, and the option that accepts it" do
    {:error, error} = B64Simd.try_decode64("Zm9v-mFy")
    assert error.message =~ "at byte 4"
    assert error.message =~ "use url_decode64"
    {:error, error} = B64Simd.try_decode64("Zm9vYg")
    assert error.message =~ "padding: false"
    {:error, error} = B64Simd.try_decode64("Zm9v\nYg==")
    assert error.message =~ "ignore: :whitespace"
    assert_raise ArgumentError, fn -> B64Simd.decode64!("Zm9vYg==", padding: :maybe) end
    assert_raise ArgumentError, fn -> B64Simd.decode64!("Zm9vYg==", ignore: :tabs) end
  end

  test "options are checked: an unknown key or a bad value names itself" do
    calls = [
      {&B64Simd.encode64/2, "foob"},
      {&B64Simd.url_encode64/2, "foob"},
      {&B64Simd.decode64/2, "Zm9vYg=="},
      {&B64Simd.url_decode64/2, "Zm9vYg=="},
      {&B64Simd.decode64!/2, "Zm9vYg=="},
      {&B64Simd.url_decode64!/2, "Zm9vYg=="},
      {&B64Simd.try_decode64/2, "Zm9vYg=="},
      {&B64Simd.try_url_decode64/2, "Zm9vYg=="},
      {&B64Simd.valid64?/2, "Zm9vYg=="},
      {&B64Simd.url_valid64?/2, "Zm9vYg=="},
      {&B64Simd.encode64_stream/2, ["foob"]},
      {&B64Simd.url_encode64_stream/2, ["foob"]},
      {&B64Simd.decode64_stream/2, ["Zm9vYg=="]},
      {&B64Simd.url_decode64_stream/2, ["Zm9vYg=="]}
    ]

    for {fun, input} <- calls do
      error = assert_raise ArgumentError, fn -> fun.(input, paddin: false) end
      assert error.message =~ "unknown option :paddin", inspect(fun)
      error = assert_raise ArgumentError, fn -> fun.(input, padding: :maybe) end
      assert error.message =~ "bad value :maybe for option :padding", inspect(fun)
      assert_raise ArgumentError, fn -> fun.(input, [:padding]) end
      assert_raise ArgumentError, fn -> fun.(input, %{padding: false}) end
    end

    # Each kind takes its own options only.
    assert_raise ArgumentError, ~r/unknown option :ignore/, fn ->
      B64Simd.encode64("foob", ignore: :whitespace)
    end

    assert_raise ArgumentError, ~r/unknown option :line_length/, fn ->
      B64Simd.decode64("Zm9vYg==", line_length: 76)
    end

    assert_raise ArgumentError, ~r/bad value 0 for option :line_length/, fn ->
      B64Simd.encode64("foob", line_length: 0)
    end

    # The whole messages, values as inspect/1 writes them.
    assert_raise ArgumentError,
                 "bad value :maybe for option :padding; expected true or false",
                 fn -> B64Simd.decode64("Zm9vYg==", padding: :maybe) end

    assert_raise ArgumentError,
                 "unknown option :paddin; the options are :padding, :line_length, :line_break",
                 fn -> B64Simd.encode64("foob", paddin: false) end

    assert_raise ArgumentError,
                 "bad value :cr for option :line_break; expected :crlf or :lf",
                 fn -> B64Simd.encode64("foob", line_break: :cr) end

    long = Enum.to_list(1..20)

    assert_raise ArgumentError,
                 "expected a keyword list of options, got: #{inspect(long)}",
                 fn -> B64Simd.encode64("foob", long) end

    # An improper list is not a keyword list either.
    assert_raise ArgumentError, ~r/expected a keyword list/, fn ->
      B64Simd.encode64("foob", [{:padding, false} | :tail])
    end
  end

  test "line wrapping, canonical and both alphabets, as :b64simd has them" do
    B64SimdTest.Random.seed("options")

    for _ <- 1..300, data = random_data(), length <- [1, 4, 64, 76], break <- [:crlf, :lf] do
      opts = [line_length: length, line_break: break]
      erlang = %{line_length: length, line_break: break}
      wrapped = B64Simd.encode64(data, opts)
      assert wrapped == :b64simd.encode(data, erlang)

      assert B64Simd.url_encode64(data, opts) ==
               :b64simd.encode(data, Map.put(erlang, :mode, :urlsafe))

      assert B64Simd.decode64(wrapped, ignore: :whitespace) == {:ok, data}
    end

    assert B64Simd.decode64("QR==") == {:ok, "A"}
    assert B64Simd.decode64("QR==", canonical: true) == :error
    {:error, error} = B64Simd.try_decode64("QR==", canonical: true)
    assert error.reason == {:non_canonical, 1}
    assert error.message =~ "canonical: false"
    assert B64Simd.decode64("-_+/", alphabet: :any) == {:ok, <<251, 255, 191>>}
    assert B64Simd.url_decode64("-_+/", alphabet: :any) == {:ok, <<251, 255, 191>>}
    assert B64Simd.decode64("-_+/") == :error
  end

  test "try_decode64 gives the reason as data, where decode64! raises Base's message" do
    for {text, opts, reason} <- [
          {"Zm9vYg", [], :missing_padding},
          {"Zm9v-mFy", [], {:invalid_character, 4}},
          {"Zm9vY===", [], {:bad_padding, 5}},
          {"Zm9vY", [padding: false], {:incomplete, 4}}
        ] do
      assert {:error, %B64Simd.DecodeError{reason: ^reason} = error} =
               B64Simd.try_decode64(text, opts)

      assert bang(fn -> B64Simd.decode64!(text, opts) end) ==
               bang(fn -> Base.decode64!(text, opts) end)

      refute Exception.message(error) == elem(bang(fn -> Base.decode64!(text, opts) end), 1)
    end

    assert B64Simd.try_url_decode64("__4=") == {:ok, <<255, 254>>}
  end

  test "streams give the one-shot result for any chunking" do
    B64SimdTest.Random.seed("streams")

    for _ <- 1..400 do
      data = random_data()
      chunks = chunk(data)

      opts =
        Enum.random([[], [padding: false], [line_length: 76], [line_length: 5, line_break: :lf]])

      assert chunks |> B64Simd.encode64_stream(opts) |> Enum.join() ==
               B64Simd.encode64(data, opts)

      assert chunks |> B64Simd.url_encode64_stream(opts) |> Enum.join() ==
               B64Simd.url_encode64(data, opts)

      text = Enum.random([Base.encode64(data), mutate(Base.encode64(data))])
      decode_opts = Enum.random([[], [padding: false], [ignore: :whitespace]])

      streamed =
        try do
          {:ok, text |> chunk() |> B64Simd.decode64_stream(decode_opts) |> Enum.join()}
        rescue
          error in B64Simd.DecodeError -> {:error, error.reason}
        end

      expected =
        case B64Simd.try_decode64(text, decode_opts) do
          {:ok, data} -> {:ok, data}
          {:error, error} -> {:error, error.reason}
        end

      assert streamed == expected, inspect({text, decode_opts})
    end
  end

  test "a file through the streams, as the README shows" do
    dir = System.tmp_dir!()
    stem = Path.join(dir, "b64simd_exunit_#{System.unique_integer([:positive])}")
    [plain, encoded, decoded] = for ext <- [".bin", ".b64", ".out"], do: stem <> ext
    data = :rand.bytes(1_000_003)
    File.write!(plain, data)

    try do
      File.stream!(plain, [], 65_536)
      |> B64Simd.encode64_stream(line_length: 76)
      |> Stream.into(File.stream!(encoded))
      |> Stream.run()

      assert File.read!(encoded) == :b64simd.encode(data, %{line_length: 76})

      File.stream!(encoded, [], 65_536)
      |> B64Simd.decode64_stream(ignore: :whitespace)
      |> Stream.into(File.stream!(decoded))
      |> Stream.run()

      assert File.read!(decoded) == data
    after
      Enum.each([plain, encoded, decoded], &File.rm/1)
    end
  end

  test "a stream's error carries its offset in the whole stream" do
    text = String.duplicate("QUJD", 10_000) <> "QU!D"

    error =
      assert_raise B64Simd.DecodeError, fn ->
        text |> chunk() |> B64Simd.decode64_stream() |> Stream.run()
      end

    assert error.reason == {:invalid_character, 40_002}
    assert error.message =~ "0x21 ('!') at byte 40002 of the stream"
  end

  # Random cuts, empty chunks included.
  defp chunk(binary) do
    cuts = for _ <- 1..Enum.random(0..6), do: :rand.uniform(byte_size(binary) + 1) - 1
    points = Enum.sort([0 | cuts] ++ [byte_size(binary)])

    points
    |> Enum.chunk_every(2, 1, :discard)
    |> Enum.map(fn [from, to] -> binary_part(binary, from, to - from) end)
  end

  # Every doc of B64Simd, :b64simd and :b64simd_stream renders whole in iex
  # (IEx's own renderer): no backslash lost, no link target left behind, a
  # newline at the end so that the prompt does not run into the last line.
  test "every doc renders whole in iex" do
    for module <- [B64Simd, :b64simd, :b64simd_stream],
        {entry, source} <- docs(module) do
      printed =
        ExUnit.CaptureIO.capture_io(fn ->
          Application.put_env(:iex, :colors, enabled: false)
          IEx.Introspection.h(entry)
        end)

      label = inspect(entry)
      assert String.ends_with?(printed, "\n"), "#{label}: no final newline"
      refute printed =~ ~r/\(#[a-z_]+\/[0-9]+\)/, "#{label}: link residue in #{printed}"

      for [escape] <- Regex.scan(~r/\\./, source) do
        assert printed =~ escape, "#{label}: #{escape} lost in #{printed}"
      end
    end
  end

  # A module's docs and each function's, with the text of each.
  defp docs(module) do
    {:docs_v1, _, _, _, %{"en" => module_doc}, _, entries} = Code.fetch_docs(module)

    [{module, text(module_doc)}] ++
      for {{:function, name, arity}, _, _, %{"en" => doc}, _} <- entries do
        {{module, name, arity}, text(doc)}
      end
  end

  defp text(doc) when is_binary(doc), do: doc
  defp text(doc) when is_list(doc), do: Enum.map_join(doc, &text/1)
  defp text({_tag, _attributes, content}), do: text(content)

  # The README's Elixir examples run as written, their matches their
  # assertions (the install line runs in make test-package).
  test "the README's Elixir examples run" do
    readme = File.read!("README.md")
    blocks = for [_, body] <- Regex.scan(~r/```elixir\n(.*?)```/s, readme), do: body
    examples = Enum.reject(blocks, &(&1 =~ "defp deps"))
    assert length(examples) >= 2

    for example <- examples do
      Code.eval_string(example)
    end
  end

  # Every message Base's bang functions raise, on every one of them, with
  # Base's message on this Elixir as the oracle: each byte in place of each
  # character of a valid text (the non-alphabet characters, which Base
  # writes with inspect), the text cut short and padded too much or too
  # early (padding, and Base16's length).
  test "every bang function raises Base's message, for each message Base has" do
    kinds = ["non-alphabet character found", "incorrect padding", "string given to decode"]

    functions = [
      {:decode64!, Base.encode64("foob"), [[], [padding: false], [ignore: :whitespace]]},
      {:url_decode64!, Base.url_encode64("foob"), [[], [padding: false]]},
      {:decode16!, Base.encode16("foo"), [[], [case: :lower], [case: :mixed]]},
      {:decode32!, Base.encode32("foob"), [[], [padding: false], [case: :lower]]},
      {:hex_decode32!, Base.hex_encode32("foob"), [[], [padding: false], [case: :mixed]]}
    ]

    for {name, valid, options} <- functions do
      size = byte_size(valid)

      texts =
        for(at <- 0..(size - 1), byte <- 0..255, do: replace(valid, at, byte)) ++
          for(cut <- 1..size, do: binary_part(valid, 0, size - cut)) ++
          [valid <> "=", "=" <> valid, valid <> valid, valid <> "A"]

      raised =
        for opts <- options, text <- texts, reduce: MapSet.new() do
          raised ->
            base = bang(fn -> apply(Base, name, [text, opts]) end)
            label = inspect({name, text, opts})
            assert bang(fn -> apply(B64Simd, name, [text, opts]) end) == base, label

            case base do
              {:ok, _} ->
                raised

              {:error, message} ->
                kind = Enum.find(kinds, &String.starts_with?(message, &1))
                assert kind, "#{label}: Base raised a message this test does not know: #{message}"
                MapSet.put(raised, kind)
            end
        end

      wanted = if name == :decode16!, do: [hd(kinds), List.last(kinds)], else: Enum.take(kinds, 2)
      assert raised == MapSet.new(wanted), "#{name} raised #{inspect(raised)}"
    end
  end

  defp replace(text, at, byte) do
    <<front::binary-size(at), _, back::binary>> = text
    <<front::binary, byte, back::binary>>
  end

  # Positions count from 0 everywhere: a byte offset, as :binary.at/2 does,
  # and a list element, as Enum.at/2 does.
  test "a bad argument is said in Elixir's words, raised from the call made" do
    calls = [
      {&B64Simd.decode64/1, :hello, inspect(:hello)},
      {&B64Simd.encode64/1, %{a: 1}, inspect(%{a: 1})},
      {&B64Simd.encode16/1, ["ab", :c], "the element at [1] is :c"},
      {&B64Simd.decode32!/1, ["ME", ["==", 1.5]], "the element at [1, 1] is 1.5"},
      {&B64Simd.valid64?/1, [?Q | :tail], "ends in the tail :tail"},
      {&B64Simd.url_decode64!/1, <<1::3>>, "not a whole number of bytes"},
      {&(&1 |> B64Simd.decode64_stream() |> Enum.to_list()), ["QQ", :x], inspect(:x)},
      {&(&1 |> B64Simd.encode64_stream() |> Enum.to_list()), [[256]], "the element at [0]"}
    ]

    assert Enum.at(["ab", :c], 1) == :c
    assert ["ME", ["==", 1.5]] |> Enum.at(1) |> Enum.at(1) == 1.5

    for {call, argument, shown} <- calls do
      {error, stacktrace} =
        try do
          call.(argument)
          flunk("no error for #{inspect(argument)}")
        rescue
          error -> {error, __STACKTRACE__}
        end

      label = inspect(argument)
      assert %ArgumentError{message: "not iodata: " <> _} = error, label
      assert error.message =~ shown, "#{label}: #{error.message}"
      assert [{B64Simd, _, arity, _} | _] = stacktrace, label
      assert is_integer(arity), "#{label}: arguments in the stack trace"

      for {module, _, args, _} <- stacktrace, is_list(args) do
        refute module in [:b64simd, :b64simd_hex, :b64simd_base32, :b64simd_stream],
               "#{label}: the Erlang call in the stack trace: #{inspect(stacktrace)}"
      end
    end
  end

  # The streams are Enumerables of their own: a consumer that stops early,
  # one that suspends after each element (zip), and a source that says
  # halted when it runs out (Stream.resource, as File.stream! does) all get
  # what Enum.to_list/1 of the whole gets, and the source is closed.
  test "streams follow the Enumerable protocol with any consumer and source" do
    data = :binary.copy("stream me", 101)
    pieces = for <<piece::binary-size(9) <- data>>, do: piece
    text = B64Simd.encode64(data)

    resource = fn list ->
      parent = self()

      Stream.resource(
        fn -> list end,
        fn
          [] -> {:halt, []}
          [head | tail] -> {[head], tail}
        end,
        fn _ -> send(parent, :closed) end
      )
    end

    for {stream, whole} <- [
          {&B64Simd.encode64_stream/1, text},
          {&B64Simd.decode64_stream/1, data}
        ],
        input =
          if(whole == text,
            do: pieces,
            else:
              Enum.chunk_every(text |> :binary.bin_to_list(), 7)
              |> Enum.map(&IO.iodata_to_binary/1)
          ) do
      all = input |> stream.() |> Enum.to_list()
      assert IO.iodata_to_binary(all) == whole
      assert input |> resource.() |> stream.() |> Enum.to_list() == all
      assert_received :closed
      assert input |> resource.() |> stream.() |> Enum.take(2) == Enum.take(all, 2)
      assert_received :closed
      zipped = input |> stream.() |> Stream.zip(Stream.iterate(0, &(&1 + 1))) |> Enum.to_list()
      assert Enum.map(zipped, &elem(&1, 0)) == all
      assert input |> stream.() |> Enum.take(length(all) + 1) == all
    end
  end

  test "takes iodata, which Base does not" do
    assert B64Simd.encode64(["fo", ?o, ["b"]]) == "Zm9vYg=="
    assert B64Simd.decode64(["Zm9v", [?Y, "g=="]]) == {:ok, "foob"}
  end
end
