defmodule B64Simd do
  @moduledoc """
  Base64 and Base64url (RFC 4648) at memory-copy speed, a drop-in for the
  64-bit half of Elixir's `Base`.

  Same function names, options and results as `Base`: `encode64/2`,
  `decode64/2` returning `{:ok, binary} | :error`, `decode64!/2` raising
  `ArgumentError`, their `url_` variants, and `valid64?/2`. Options:

    * `padding:` (default `true`). Encode: emit `=` padding. Decode: `true`
      requires it; `false` makes it optional, but padding that is present
      must be complete (`"QQ="` is an error either way, as in `Base`).
    * `ignore: :whitespace` (decode only): skip `\\s \\t \\r \\n` anywhere.
      Without it whitespace is an error, as in `Base`.

  Unlike `Base`, every function also takes iodata, and `decode64!/2` says
  what is wrong and at which byte. Non-canonical final characters (`"QR=="`)
  are accepted, as `Base` accepts them.

      iex> B64Simd.encode64("foob")
      "Zm9vYg=="
      iex> B64Simd.url_decode64("_3_-_A", padding: false)
      {:ok, <<255, 127, 254, 252>>}
      iex> B64Simd.decode64("Zm9vYg==\\n")
      :error
      iex> B64Simd.decode64("Zm9vYg==\\n", ignore: :whitespace)
      {:ok, "foob"}
  """

  @typedoc "`padding: boolean` for encoding."
  @type encode_options :: [padding: boolean]
  @typedoc "`padding: boolean` and `ignore: :whitespace` for decoding."
  @type decode_options :: [padding: boolean, ignore: :whitespace]

  @doc """
  Encodes `data` as standard Base64 (`+` and `/`), as `Base.encode64/2`.

      iex> B64Simd.encode64("foob")
      "Zm9vYg=="
      iex> B64Simd.encode64(["fo", ?o, "b"], padding: false)
      "Zm9vYg"
  """
  @spec encode64(iodata, encode_options) :: binary
  def encode64(data, opts \\ [])
  def encode64(data, []), do: :b64simd.encode(data)
  def encode64(data, opts), do: :b64simd.encode(data, encode_options(:standard, opts))

  @doc """
  Encodes `data` as Base64url (`-` and `_`), as `Base.url_encode64/2`.

      iex> B64Simd.url_encode64(<<255, 254>>)
      "__4="
      iex> B64Simd.url_encode64(<<255, 254>>, padding: false)
      "__4"
  """
  @spec url_encode64(iodata, encode_options) :: binary
  def url_encode64(data, opts \\ []), do: :b64simd.encode(data, encode_options(:urlsafe, opts))

  @doc """
  Decodes standard Base64, as `Base.decode64/2`: `{:ok, data}` or `:error`.

      iex> B64Simd.decode64("Zm9vYg==")
      {:ok, "foob"}
      iex> B64Simd.decode64("Zm9vYg")
      :error
      iex> B64Simd.decode64("Zm9vYg", padding: false)
      {:ok, "foob"}
  """
  @spec decode64(iodata, decode_options) :: {:ok, binary} | :error
  def decode64(string, opts \\ []),
    do: ok_or_error(:b64simd.try_decode(string, decode_options(:standard, opts)))

  @doc """
  Decodes Base64url, as `Base.url_decode64/2`: `{:ok, data}` or `:error`.

      iex> B64Simd.url_decode64("__4=")
      {:ok, <<255, 254>>}
      iex> B64Simd.url_decode64("//4=")
      :error
  """
  @spec url_decode64(iodata, decode_options) :: {:ok, binary} | :error
  def url_decode64(string, opts \\ []),
    do: ok_or_error(:b64simd.try_decode(string, decode_options(:urlsafe, opts)))

  @doc """
  Decodes standard Base64, as `Base.decode64!/2`; raises `ArgumentError`
  naming the problem and its byte offset.

      iex> B64Simd.decode64!("Zm9vYg==")
      "foob"
      iex> B64Simd.decode64!("Zm9v-mFy")
      ** (ArgumentError) invalid base64 character 0x2D ('-') at byte 4; use url_decode64 for '-' and '_'
  """
  @spec decode64!(iodata, decode_options) :: binary
  def decode64!(string, opts \\ []), do: decode!(string, :standard, opts)

  @doc """
  Decodes Base64url, as `Base.url_decode64!/2`; raises `ArgumentError`
  naming the problem and its byte offset.

      iex> B64Simd.url_decode64!("__4", padding: false)
      <<255, 254>>
  """
  @spec url_decode64!(iodata, decode_options) :: binary
  def url_decode64!(string, opts \\ []), do: decode!(string, :urlsafe, opts)

  @doc """
  Whether `decode64/2` would succeed with these options (as `Base.valid64?/2`),
  without building the data.

      iex> B64Simd.valid64?("Zm9vYg==")
      true
      iex> B64Simd.valid64?("*+")
      false
  """
  @spec valid64?(iodata, decode_options) :: boolean
  def valid64?(string, opts \\ []),
    do: :b64simd.is_valid(string, decode_options(:standard, opts))

  @doc """
  Whether `url_decode64/2` would succeed with these options.

      iex> B64Simd.url_valid64?("__4", padding: false)
      true
  """
  @spec url_valid64?(iodata, decode_options) :: boolean
  def url_valid64?(string, opts \\ []),
    do: :b64simd.is_valid(string, decode_options(:urlsafe, opts))

  @compile {:inline, ok_or_error: 1}
  defp ok_or_error({:ok, _data} = ok), do: ok
  defp ok_or_error({:error, _reason}), do: :error

  defp decode!(string, mode, opts) do
    options = decode_options(mode, opts)

    case :b64simd.try_decode(string, options) do
      {:ok, data} ->
        data

      {:error, reason} ->
        raise ArgumentError, message(reason, string, mode)
    end
  end

  # The sentence is b64simd's (:b64simd_messages), in Base's words.
  defp message(reason, string, mode) do
    byte =
      case reason do
        {_kind, at} -> :binary.at(IO.iodata_to_binary(string), at)
        _ -> :undefined
      end

    context = %{
      byte: byte,
      kind: :decode,
      dialect: :elixir,
      options: %{mode: mode, whitespace: :reject}
    }

    IO.chardata_to_string(:b64simd_messages.reason(reason, context))
  end

  # Base reads only the options it knows and ignores the rest; so do we, but
  # a bad value for a known one is an ArgumentError rather than a crash.
  # The option lists calls pass most (none, padding: false, ignore:
  # :whitespace) map to literal maps, inlined into each function, which
  # then costs what the Erlang call it wraps does
  # (bench/b64simd_elixir_bench.exs). A list is matched by its parts: a
  # literal list in a pattern compiles to one comparison with the whole
  # literal, which costs a fifth of a short encode on OTP 25.
  # (encode64/2 answers [] itself, with b64simd:encode/1.)
  @compile {:inline, encode_options: 2, decode_options: 2}
  defp encode_options(:urlsafe, []), do: %{mode: :urlsafe, padding: true}

  defp encode_options(:standard, [{:padding, off}]) when off === false,
    do: %{mode: :standard, padding: false}

  defp encode_options(:urlsafe, [{:padding, off}]) when off === false,
    do: %{mode: :urlsafe, padding: false}

  defp encode_options(mode, opts), do: parse_encode_options(mode, opts)

  defp decode_options(:standard, []), do: %{mode: :standard, padding: true, whitespace: :reject}
  defp decode_options(:urlsafe, []), do: %{mode: :urlsafe, padding: true, whitespace: :reject}

  defp decode_options(:standard, [{:padding, off}]) when off === false,
    do: %{mode: :standard, padding: false, whitespace: :reject}

  defp decode_options(:urlsafe, [{:padding, off}]) when off === false,
    do: %{mode: :urlsafe, padding: false, whitespace: :reject}

  defp decode_options(:standard, [{:ignore, skip}]) when skip === :whitespace,
    do: %{mode: :standard, padding: true, whitespace: :skip}

  defp decode_options(:urlsafe, [{:ignore, skip}]) when skip === :whitespace,
    do: %{mode: :urlsafe, padding: true, whitespace: :skip}

  defp decode_options(mode, opts), do: parse_decode_options(mode, opts)

  defp parse_encode_options(mode, opts), do: %{mode: mode, padding: padding(opts)}

  defp parse_decode_options(mode, opts) do
    whitespace =
      case Keyword.get(opts, :ignore) do
        nil -> :reject
        :whitespace -> :skip
        other -> raise ArgumentError, "expected ignore: :whitespace, got: #{inspect(other)}"
      end

    %{mode: mode, padding: padding(opts), whitespace: whitespace}
  end

  defp padding(opts) do
    case Keyword.get(opts, :padding, true) do
      padding when is_boolean(padding) -> padding
      other -> raise ArgumentError, "expected padding: true or false, got: #{inspect(other)}"
    end
  end
end
