defmodule B64Simd do
  @moduledoc ~S"""
  Base64, Base64url, Base32 and Base16 (RFC 4648) at SIMD speed, a drop-in
  for all of Elixir's `Base`: `alias B64Simd, as: Base` keeps a program
  working.

  Every function of `Base` with its options and results: `encode64/2`,
  `decode64/2` returning `{:ok, binary} | :error`, `decode64!/2` raising
  `ArgumentError`, their `url_` variants, `valid64?/2`, and the same for
  Base16 (`encode16/2`, `decode16/2`, `decode16!/2`, `valid16?/2`, with
  `case:`) and Base32 (`encode32/2` and the rest, and their `hex_`
  variants in the extended hex alphabet, with `case:` and `padding:`). As in
  `Base`, `decode16/2` takes upper-case digits unless told `case: :lower` or
  `case: :mixed`, Base32 padding is required unless `padding: false` (which
  accepts it when complete), and neither skips whitespace. The `!`
  functions raise `ArgumentError` with the very message `Base` gives (asked
  of the `Base` of the Elixir that runs, on the error path), so that code
  and tests that read it read the same; `try_decode64/2` says what is wrong
  as data, with the byte offset. Unlike `Base`, every function also takes
  iodata, and options are checked: an unknown option or a bad value raises
  `ArgumentError` naming it, where `Base` ignores what it does not know (so
  that `paddin: false` cannot silently mean `padding: true`); that is the
  one error `Base` does not raise for the same call.

  Positions count from 0 everywhere: the byte offset of a reason (as
  `:binary.at/2` counts), and the element of a list that is not iodata (as
  `Enum.at/2` counts, one index per level of nesting).

  Options of the encoding functions:

    * `padding:` - `true` (default) or `false`: the `=` padding.
    * `line_length:` - wrap the output in lines of this many characters
      (MIME bodies: 76; PEM: 64). The break goes between lines only.
    * `line_break:` - `:crlf` (default, as RFC 2045 asks) or `:lf` (PEM).

  Options of the decoding functions:

    * `padding:` - `true` (default) requires `=` padding; `false` makes it
      optional, but padding that is present must be complete (`"QQ="` is an
      error either way, as in `Base`).
    * `ignore: :whitespace` - skip spaces, tabs, carriage returns and line
      feeds anywhere. Without it whitespace is an error, as in `Base`.
    * `canonical:` - `true` refuses non-zero unused bits in the last
      character (RFC 4648 section 3.5); default `false`, as `Base`.
    * `alphabet: :any` - accept both alphabets, mixed.

  For data that arrives in pieces (files, sockets, HTTP bodies), the
  `*_stream` functions take an enumerable of iodata chunks and return a
  stream of encoded or decoded chunks: any chunking gives the one-shot
  result, and a decoding error carries its offset in the whole stream.

      iex> B64Simd.encode64("foob")
      "Zm9vYg=="
      iex> B64Simd.url_decode64("_3_-_A", padding: false)
      {:ok, <<255, 127, 254, 252>>}
      iex> B64Simd.decode64("Zm9vYg==\n")
      :error
      iex> B64Simd.decode64("Zm9vYg==\n", ignore: :whitespace)
      {:ok, "foob"}
      iex> B64Simd.encode16(<<222, 173, 190, 239>>, case: :lower)
      "deadbeef"
      iex> B64Simd.decode32("mzxw6ytboi", case: :lower, padding: false)
      {:ok, "foobar"}
  """

  @typedoc "Options of the encoding functions; see the module documentation."
  @type encode_options :: [
          padding: boolean,
          line_length: pos_integer,
          line_break: :crlf | :lf
        ]
  @typedoc "Options of `encode16/2`: the case of the letters written."
  @type encode16_options :: [case: :upper | :lower]
  @typedoc "Options of the Base16 decoding functions: the letters accepted."
  @type decode16_options :: [case: :upper | :lower | :mixed]
  @typedoc "Options of the Base32 encoding functions."
  @type encode32_options :: [case: :upper | :lower, padding: boolean]
  @typedoc "Options of the Base32 decoding functions."
  @type decode32_options :: [case: :upper | :lower | :mixed, padding: boolean]
  @typedoc "Options of the decoding functions; see the module documentation."
  @type decode_options :: [
          padding: boolean,
          ignore: :whitespace,
          canonical: boolean,
          alphabet: :any
        ]

  defmodule DecodeError do
    @moduledoc """
    Why Base64 was rejected: `reason` is the reason `:b64simd` gives
    (`{:invalid_character, offset}`, `{:bad_padding, offset}`,
    `{:incomplete, offset}`, `{:non_canonical, offset}` or
    `:missing_padding`, the offset 0-based into the input, or into the whole
    stream), and `message` says it in words.
    """
    defexception [:reason, :message]

    @type t :: %__MODULE__{reason: :b64simd.reason(), message: String.t()}
  end

  @doc """
  Encodes `data` as standard Base64 (`+` and `/`), as `Base.encode64/2`,
  with the encoding options above.

      iex> B64Simd.encode64("foob")
      "Zm9vYg=="
      iex> B64Simd.encode64(["fo", ?o, "b"], padding: false)
      "Zm9vYg"
      iex> B64Simd.encode64("foobar", line_length: 4)
      "Zm9v\\r\\nYmFy"
  """
  @spec encode64(iodata, encode_options) :: binary
  def encode64(data, opts \\ [])
  def encode64(data, []) when is_binary(data), do: :b64simd.encode(data)

  def encode64(data, opts) when is_binary(data),
    do: run(&:b64simd_nif.encode/2, data, encode_options(:standard, opts))

  def encode64(data, opts), do: encode64(flatten!(data), opts)

  @doc """
  Encodes `data` as Base64url (`-` and `_`), as `Base.url_encode64/2`.

      iex> B64Simd.url_encode64(<<255, 254>>)
      "__4="
      iex> B64Simd.url_encode64(<<255, 254>>, padding: false)
      "__4"
  """
  @spec url_encode64(iodata, encode_options) :: binary
  def url_encode64(data, opts \\ [])

  def url_encode64(data, opts) when is_binary(data),
    do: run(&:b64simd_nif.encode/2, data, encode_options(:urlsafe, opts))

  def url_encode64(data, opts), do: url_encode64(flatten!(data), opts)

  @doc """
  Decodes standard Base64, as `Base.decode64/2`: `{:ok, data}` or `:error`
  (`try_decode64/2` says why).

      iex> B64Simd.decode64("Zm9vYg==")
      {:ok, "foob"}
      iex> B64Simd.decode64("Zm9vYg")
      :error
      iex> B64Simd.decode64("Zm9vYg", padding: false)
      {:ok, "foob"}
      iex> B64Simd.decode64("Zm9v_w==", alphabet: :any)
      {:ok, <<102, 111, 111, 255>>}
  """
  @spec decode64(iodata, decode_options) :: {:ok, binary} | :error
  def decode64(string, opts \\ [])

  def decode64(string, opts) when is_binary(string),
    do: ok_or_error(run(&:b64simd_nif.decode/2, string, decode_options(:standard, opts)))

  def decode64(string, opts), do: decode64(flatten!(string), opts)

  @doc """
  Decodes Base64url, as `Base.url_decode64/2`: `{:ok, data}` or `:error`.

      iex> B64Simd.url_decode64("__4=")
      {:ok, <<255, 254>>}
      iex> B64Simd.url_decode64("//4=")
      :error
  """
  @spec url_decode64(iodata, decode_options) :: {:ok, binary} | :error
  def url_decode64(string, opts \\ [])

  def url_decode64(string, opts) when is_binary(string),
    do: ok_or_error(run(&:b64simd_nif.decode/2, string, decode_options(:urlsafe, opts)))

  def url_decode64(string, opts), do: url_decode64(flatten!(string), opts)

  @doc """
  Decodes standard Base64 as `decode64/2` does, but says why it is not:
  `{:ok, data}` or `{:error, %B64Simd.DecodeError{}}`, whose `reason` is
  data a program can act on and whose message says it in words.

      iex> B64Simd.try_decode64("Zm9vYg==")
      {:ok, "foob"}
      iex> {:error, error} = B64Simd.try_decode64("Zm9v-mFy")
      iex> error.reason
      {:invalid_character, 4}
      iex> Exception.message(error)
      "invalid base64 character 0x2D ('-') at byte 4; use url_decode64 for '-' and '_'"
  """
  @spec try_decode64(iodata, decode_options) :: {:ok, binary} | {:error, DecodeError.t()}
  def try_decode64(string, opts \\ []), do: try_decode(string, :standard, opts)

  @doc """
  Decodes Base64url as `url_decode64/2` does, but says why it is not, as
  `try_decode64/2`.

      iex> {:error, error} = B64Simd.try_url_decode64("__4")
      iex> error.reason
      :missing_padding
  """
  @spec try_url_decode64(iodata, decode_options) :: {:ok, binary} | {:error, DecodeError.t()}
  def try_url_decode64(string, opts \\ []), do: try_decode(string, :urlsafe, opts)

  @doc """
  Decodes standard Base64, as `Base.decode64!/2`; raises `ArgumentError`
  with `Base`'s message (with an option `Base` lacks, `try_decode64/2`'s).

      iex> B64Simd.decode64!("Zm9vYg==")
      "foob"
      iex> B64Simd.decode64!("Zm9v-mFy")
      ** (ArgumentError) non-alphabet character found: "-" (byte 45)
  """
  @spec decode64!(iodata, decode_options) :: binary
  def decode64!(string, opts \\ []), do: decode!(string, :standard, opts)

  @doc """
  Decodes Base64url, as `Base.url_decode64!/2`; raises `ArgumentError` with
  `Base`'s message (with an option `Base` lacks, `try_url_decode64/2`'s).

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
  def valid64?(string, opts \\ [])

  def valid64?(string, opts) when is_binary(string),
    do: run(&:b64simd_nif.is_valid/2, string, decode_options(:standard, opts))

  def valid64?(string, opts), do: valid64?(flatten!(string), opts)

  @doc """
  Whether `url_decode64/2` would succeed with these options.

      iex> B64Simd.url_valid64?("__4", padding: false)
      true
  """
  @spec url_valid64?(iodata, decode_options) :: boolean
  def url_valid64?(string, opts \\ [])

  def url_valid64?(string, opts) when is_binary(string),
    do: run(&:b64simd_nif.is_valid/2, string, decode_options(:urlsafe, opts))

  def url_valid64?(string, opts), do: url_valid64?(flatten!(string), opts)

  @doc """
  Encodes `data` as Base16 (hex), as `Base.encode16/2`: upper-case letters,
  or lower-case with `case: :lower`.

      iex> B64Simd.encode16("foobar")
      "666F6F626172"
      iex> B64Simd.encode16(["foo", "bar"], case: :lower)
      "666f6f626172"
  """
  @spec encode16(iodata, encode16_options) :: binary
  def encode16(data, opts \\ [])
  def encode16(data, []) when is_binary(data), do: :b64simd_hex.encode_hex(data)

  def encode16(data, opts) when is_binary(data),
    do: run(&:b64simd_nif.hex_encode/2, data, hex_options(:hex_encode, opts))

  def encode16(data, opts), do: encode16(flatten!(data), opts)

  @doc """
  Decodes Base16, as `Base.decode16/2`: `{:ok, data}` or `:error`. Takes
  upper-case letters only, as `Base` does, unless told `case: :lower` or
  `case: :mixed`.

      iex> B64Simd.decode16("666F6F626172")
      {:ok, "foobar"}
      iex> B64Simd.decode16("666f6f626172")
      :error
      iex> B64Simd.decode16("666f6F626172", case: :mixed)
      {:ok, "foobar"}
  """
  @spec decode16(iodata, decode16_options) :: {:ok, binary} | :error
  def decode16(string, opts \\ [])

  def decode16(string, opts) when is_binary(string),
    do: ok_or_error(run(&:b64simd_nif.hex_decode/2, string, hex_options(:hex_decode, opts)))

  def decode16(string, opts), do: decode16(flatten!(string), opts)

  @doc """
  Decodes Base16, as `Base.decode16!/2`; raises `ArgumentError` with
  `Base`'s message (`:b64simd_hex.try_decode_hex/2` gives the reason and
  its offset).

      iex> B64Simd.decode16!("666F6F626172")
      "foobar"
      iex> B64Simd.decode16!("666f")
      ** (ArgumentError) non-alphabet character found: "f" (byte 102)
  """
  @spec decode16!(iodata, decode16_options) :: binary
  def decode16!(string, opts \\ []) do
    letter_case = hex_options(:hex_decode, opts)
    binary = binary!(string)

    case run(&:b64simd_nif.hex_decode/2, binary, letter_case) do
      {:error, reason, byte} ->
        raise_as_base(:decode16!, binary, opts, reason, %{
          encoding: :base16,
          options: %{letter_case: parsed_options(:hex_decode, :upper, opts)},
          byte: byte
        })

      data ->
        data
    end
  end

  @doc """
  Whether `decode16/2` would succeed with these options (as
  `Base.valid16?/2`), without building the data.

      iex> B64Simd.valid16?("666F")
      true
      iex> B64Simd.valid16?("666f")
      false
  """
  @spec valid16?(iodata, decode16_options) :: boolean
  def valid16?(string, opts \\ [])

  def valid16?(string, opts) when is_binary(string),
    do: run(&:b64simd_nif.hex_is_valid/2, string, hex_options(:hex_decode, opts))

  def valid16?(string, opts), do: valid16?(flatten!(string), opts)

  @doc """
  Encodes `data` as Base32 (RFC 4648 section 6), as `Base.encode32/2`:
  `case:` (`:upper` or `:lower`) and `padding:` (default `true`).

      iex> B64Simd.encode32("foobar")
      "MZXW6YTBOI======"
      iex> B64Simd.encode32("foobar", case: :lower, padding: false)
      "mzxw6ytboi"
  """
  @spec encode32(iodata, encode32_options) :: binary
  def encode32(data, opts \\ [])

  def encode32(data, opts) when is_binary(data),
    do: run(&:b64simd_nif.base32_encode/2, data, base32_options(:base32_encode, :standard, opts))

  def encode32(data, opts), do: encode32(flatten!(data), opts)

  @doc """
  Decodes Base32, as `Base.decode32/2`: `{:ok, data}` or `:error`.
  `case:` is `:upper` (default), `:lower` or `:mixed`; `padding: false`
  makes padding optional.

      iex> B64Simd.decode32("MZXW6YTBOI======")
      {:ok, "foobar"}
      iex> B64Simd.decode32("MZXW6YTBOI")
      :error
      iex> B64Simd.decode32("mzXW6ytBOi", case: :mixed, padding: false)
      {:ok, "foobar"}
  """
  @spec decode32(iodata, decode32_options) :: {:ok, binary} | :error
  def decode32(string, opts \\ [])

  def decode32(string, opts) when is_binary(string),
    do:
      ok_or_error(
        run(&:b64simd_nif.base32_decode/2, string, base32_options(:base32_decode, :standard, opts))
      )

  def decode32(string, opts), do: decode32(flatten!(string), opts)

  @doc """
  Decodes Base32, as `Base.decode32!/2`; raises `ArgumentError` with
  `Base`'s message (`:b64simd_base32.try_decode/2` gives the reason and its
  offset).

      iex> B64Simd.decode32!("MZXW6YTBOI======")
      "foobar"
      iex> B64Simd.decode32!("MZXW6YTBOI")
      ** (ArgumentError) incorrect padding
  """
  @spec decode32!(iodata, decode32_options) :: binary
  def decode32!(string, opts \\ []), do: decode32!(string, :standard, opts)

  @doc """
  Whether `decode32/2` would succeed with these options (as
  `Base.valid32?/2`), without building the data.

      iex> B64Simd.valid32?("MZXW6YTBOI======")
      true
  """
  @spec valid32?(iodata, decode32_options) :: boolean
  def valid32?(string, opts \\ [])

  def valid32?(string, opts) when is_binary(string),
    do:
      run(&:b64simd_nif.base32_is_valid/2, string, base32_options(:base32_decode, :standard, opts))

  def valid32?(string, opts), do: valid32?(flatten!(string), opts)

  @doc """
  Encodes `data` as Base32 in the extended hex alphabet (RFC 4648 section
  7), as `Base.hex_encode32/2`.

      iex> B64Simd.hex_encode32("foobar")
      "CPNMUOJ1E8======"
  """
  @spec hex_encode32(iodata, encode32_options) :: binary
  def hex_encode32(data, opts \\ [])

  def hex_encode32(data, opts) when is_binary(data),
    do: run(&:b64simd_nif.base32_encode/2, data, base32_options(:base32_encode, :hex, opts))

  def hex_encode32(data, opts), do: hex_encode32(flatten!(data), opts)

  @doc """
  Decodes Base32 in the extended hex alphabet, as `Base.hex_decode32/2`.

      iex> B64Simd.hex_decode32("CPNMUOJ1E8======")
      {:ok, "foobar"}
      iex> B64Simd.hex_decode32("cpnmuoj1e8", case: :lower, padding: false)
      {:ok, "foobar"}
  """
  @spec hex_decode32(iodata, decode32_options) :: {:ok, binary} | :error
  def hex_decode32(string, opts \\ [])

  def hex_decode32(string, opts) when is_binary(string),
    do:
      ok_or_error(
        run(&:b64simd_nif.base32_decode/2, string, base32_options(:base32_decode, :hex, opts))
      )

  def hex_decode32(string, opts), do: hex_decode32(flatten!(string), opts)

  @doc """
  Decodes Base32 in the extended hex alphabet, as `Base.hex_decode32!/2`;
  raises `ArgumentError` with `Base`'s message.

      iex> B64Simd.hex_decode32!("CPNMUOJ1E8======")
      "foobar"
  """
  @spec hex_decode32!(iodata, decode32_options) :: binary
  def hex_decode32!(string, opts \\ []), do: decode32!(string, :hex, opts)

  @doc """
  Whether `hex_decode32/2` would succeed with these options (as
  `Base.hex_valid32?/2`).

      iex> B64Simd.hex_valid32?("CPNMUOJ1E8======")
      true
  """
  @spec hex_valid32?(iodata, decode32_options) :: boolean
  def hex_valid32?(string, opts \\ [])

  def hex_valid32?(string, opts) when is_binary(string),
    do: run(&:b64simd_nif.base32_is_valid/2, string, base32_options(:base32_decode, :hex, opts))

  def hex_valid32?(string, opts), do: hex_valid32?(flatten!(string), opts)

  @doc """
  Encodes an enumerable of iodata chunks as standard Base64, lazily: a stream
  of the encodings of the whole 3-byte groups so far, then of the rest. Any
  chunking gives `encode64/2`'s result, line wrapping included. Options as
  `encode64/2`, checked now.

      iex> ["fo", "ob", "ar"] |> B64Simd.encode64_stream() |> Enum.join()
      "Zm9vYmFy"

  A file, a chunk of 64 KiB at a time:

      File.stream!("in.bin", [], 65_536)
      |> B64Simd.encode64_stream(line_length: 76)
      |> Stream.into(File.stream!("out.b64"))
      |> Stream.run()
  """
  @spec encode64_stream(Enumerable.t(), encode_options) :: Enumerable.t()
  def encode64_stream(chunks, opts \\ []), do: encode_stream(chunks, :standard, opts)

  @doc """
  As `encode64_stream/2`, in the Base64url alphabet.

      iex> [<<255>>, <<254>>] |> B64Simd.url_encode64_stream(padding: false) |> Enum.join()
      "__4"
  """
  @spec url_encode64_stream(Enumerable.t(), encode_options) :: Enumerable.t()
  def url_encode64_stream(chunks, opts \\ []), do: encode_stream(chunks, :urlsafe, opts)

  @doc """
  Decodes an enumerable of iodata chunks of standard Base64, lazily: a stream
  of the data of the whole 4-character groups so far, then of the rest. Any
  chunking gives `decode64/2`'s result; bad Base64 raises
  `B64Simd.DecodeError` when the stream reaches it, its offset in the whole
  stream. Options as `decode64/2`, checked now.

      iex> ["Zm9v", "Ym", "Fy"] |> B64Simd.decode64_stream() |> Enum.join()
      "foobar"
      iex> ["Zm9v", "Ym-y"] |> B64Simd.decode64_stream() |> Enum.join()
      ** (B64Simd.DecodeError) invalid base64 character 0x2D ('-') at byte 6 of the stream; use url_decode64 for '-' and '_'

  A file, a chunk of 64 KiB at a time:

      File.stream!("in.b64", [], 65_536)
      |> B64Simd.decode64_stream(ignore: :whitespace)
      |> Stream.into(File.stream!("out.bin"))
      |> Stream.run()
  """
  @spec decode64_stream(Enumerable.t(), decode_options) :: Enumerable.t()
  def decode64_stream(chunks, opts \\ []), do: decode_stream(chunks, :standard, opts)

  @doc """
  As `decode64_stream/2`, in the Base64url alphabet.

      iex> ["__", "4"] |> B64Simd.url_decode64_stream(padding: false) |> Enum.join()
      <<255, 254>>
  """
  @spec url_decode64_stream(Enumerable.t(), decode_options) :: Enumerable.t()
  def url_decode64_stream(chunks, opts \\ []), do: decode_stream(chunks, :urlsafe, opts)

  # A NIF of the kind that `options` were made for, on a binary, run to its
  # end: its data, verdict or `{:error, reason, byte}`.
  @compile {:inline, run: 3, ok_or_error: 1}
  defp run(nif, binary, options), do: :b64simd_call.finish(nif.(binary, options))

  defp ok_or_error({:error, _reason, _byte}), do: :error
  defp ok_or_error(data), do: {:ok, data}

  defp decode!(string, mode, opts) do
    binary = binary!(string)

    case run(&:b64simd_nif.decode/2, binary, decode_options(mode, opts)) do
      {:error, reason, byte} ->
        base_function = if mode == :standard, do: :decode64!, else: :url_decode64!
        options = parsed_options(:decode, mode, opts)
        context = %{kind: :decode, options: options, byte: byte}
        raise_as_base(base_function, binary, opts, reason, context)

      data ->
        data
    end
  end

  defp try_decode(string, mode, opts) do
    binary = binary!(string)

    case run(&:b64simd_nif.decode/2, binary, decode_options(mode, opts)) do
      {:error, reason, byte} ->
        options = parsed_options(:decode, mode, opts)
        {:error, decode_error(reason, %{byte: byte, options: options})}

      data ->
        {:ok, data}
    end
  end

  defp decode32!(string, alphabet, opts) do
    binary = binary!(string)

    case run(&:b64simd_nif.base32_decode/2, binary, base32_options(:base32_decode, alphabet, opts)) do
      {:error, reason, byte} ->
        base_function = if alphabet == :standard, do: :decode32!, else: :hex_decode32!
        options = parsed_options(:base32_decode, alphabet, opts)
        context = %{encoding: :base32, options: options, byte: byte}
        raise_as_base(base_function, binary, opts, reason, context)

      data ->
        data
    end
  end

  # A `!` function's ArgumentError: Base's own message for text that Base
  # rejects too (the same verdict, as the tests hold against Base), asked of
  # Base here, on the error path only, so that it is the message of the
  # Elixir that runs; b64simd's message under an option Base lacks, where
  # Base would judge other text. The reason and offset are try_decode64/2's.
  defp raise_as_base(base_function, binary, opts, reason, context) do
    message =
      if Enum.all?(opts, fn {key, _value} -> key in [:padding, :ignore, :case] end) do
        try do
          apply(Base, base_function, [binary, opts])
          nil
        rescue
          error in ArgumentError -> error.message
        end
      end

    raise ArgumentError, message || message(reason, context)
  end

  # The exception for a reason: the sentence is b64simd's
  # (:b64simd_messages), in Elixir's words (function names, `key: value`).
  defp decode_error(reason, context) do
    %DecodeError{reason: reason, message: message(reason, Map.put(context, :kind, :decode))}
  end

  defp message(reason, context),
    do:
      IO.chardata_to_string(:b64simd_messages.reason(reason, Map.put(context, :dialect, :elixir)))

  # Data as a binary for the Erlang call, or an ArgumentError raised here in
  # Elixir's words, so that the stack trace shows the call the user made,
  # not the NIF call it makes. The one-call
  # functions match a binary in their head instead, and send anything else
  # through flatten!/1 and back: a call before the Erlang call would cost
  # every call a stack frame (bench/README.md).
  @compile {:inline, binary!: 1}
  defp binary!(data) when is_binary(data), do: data
  defp binary!(data), do: flatten!(data)

  defp flatten!(data) do
    IO.iodata_to_binary(data)
  rescue
    ArgumentError ->
      message = :b64simd_messages.not_iodata(data, %{dialect: :elixir, inspect: &inspect/2})
      raise ArgumentError, IO.chardata_to_string(message)
  end

  defp encode_stream(chunks, mode, opts) do
    encoder = :b64simd_stream.encode_init(parsed_options(:encode, mode, opts))
    piece = fn encoder, chunk -> :b64simd_stream.encode(encoder, binary!(chunk)) end
    pieces(chunks, encoder, piece, &:b64simd_stream.encode_final/1)
  end

  defp decode_stream(chunks, mode, opts) do
    options = parsed_options(:decode, mode, opts)
    piece = fn decoder, chunk -> decode_piece(decoder, binary!(chunk), options) end
    last = fn decoder -> decode_last(decoder, options) end
    pieces(chunks, :b64simd_stream.decode_init(options), piece, last)
  end

  # A decoding stream's steps, their error as a DecodeError.
  defp decode_piece(decoder, chunk, options) do
    :b64simd_stream.decode(decoder, chunk)
  rescue
    error in ErlangError -> raise stream_error(error, __STACKTRACE__, options)
  end

  defp decode_last(decoder, options) do
    :b64simd_stream.decode_final(decoder)
  rescue
    error in ErlangError -> raise stream_error(error, __STACKTRACE__, options)
  end

  # The error b64simd_stream raised, the byte at its offset in its
  # error_info.
  defp stream_error(error, stacktrace, options) do
    byte =
      case stacktrace do
        [{:b64simd_stream, _, _, info} | _] ->
          info |> Keyword.get(:error_info, %{}) |> Map.get(:cause, %{}) |> Map.get(:byte)

        _ ->
          :undefined
      end

    decode_error(error.original, %{byte: byte, options: options, stream: true})
  end

  # The stream of what `piece` makes of each chunk, threading `state`, then
  # of what `last` makes of the final state; empty outputs are left out. It
  # is an Enumerable of its own (a function of the accumulator and the
  # reducer), which reduces the chunks directly: Stream.transform steps its
  # source one suspended element at a time, which cost more than the codec
  # on short pieces (bench/README.md).
  defp pieces(chunks, state, piece, last) do
    &reduce_pieces(chunks, state, piece, last, &1, &2)
  end

  defp reduce_pieces(_chunks, _state, _piece, _last, {:halt, acc}, _fun), do: {:halted, acc}

  defp reduce_pieces(chunks, state, piece, last, {:suspend, acc}, fun),
    do: {:suspended, acc, &reduce_pieces(chunks, state, piece, last, &1, fun)}

  defp reduce_pieces(chunks, state, piece, last, {:cont, acc}, fun) do
    step = fn chunk, {state, acc} ->
      {output, state} = piece.(state, chunk)
      emit(output, state, acc, fun)
    end

    chunks |> Enumerable.reduce({:cont, {state, acc}}, step) |> ended(last, fun)
  end

  # Passes one output on, keeping the state; a halt by the consumer replaces
  # the state with a mark, so that no last output follows.
  defp emit("", state, acc, _fun), do: {:cont, {state, acc}}

  defp emit(output, state, acc, fun) do
    case fun.(output, acc) do
      {:cont, acc} -> {:cont, {state, acc}}
      {:suspend, acc} -> {:suspend, {state, acc}}
      {:halt, acc} -> {:halt, {:consumer_halted, acc}}
    end
  end

  # The chunks' reduction ended, halted or suspended: after the last chunk
  # comes the last output, unless the consumer halted. A source may say
  # halted when it ran out (Stream.resource, File.stream! do).
  defp ended({:halted, {:consumer_halted, acc}}, _last, _fun), do: {:halted, acc}
  defp ended({_done, {state, acc}}, last, fun), do: last_output(last.(state), acc, fun)

  defp ended({:suspended, {state, acc}, continue}, last, fun) do
    {:suspended, acc,
     fn {command, acc} -> ended(continue.({command, {state, acc}}), last, fun) end}
  end

  defp last_output("", acc, _fun), do: {:done, acc}

  defp last_output(output, acc, fun) do
    case fun.(output, acc) do
      {:cont, acc} -> {:done, acc}
      {:halt, acc} -> {:halted, acc}
      {:suspend, acc} -> {:suspended, acc, &last_continue/1}
    end
  end

  # Resuming after the last output: nothing is left.
  defp last_continue({:halt, acc}), do: {:halted, acc}
  defp last_continue({:suspend, acc}), do: {:suspended, acc, &last_continue/1}
  defp last_continue({:cont, acc}), do: {:done, acc}

  # Options become the argument of the NIF call in one step: the lists calls
  # pass most (none, padding: false, ignore: :whitespace) are matched here,
  # each to the literal :b64simd_options.from_elixir/3 makes of it, asked at
  # compile time and inlined into each function, so that a call costs what
  # the Erlang call it stands for does (bench/b64simd_elixir_bench.exs); any
  # other list is renamed by parsed_options/3, which refuses what it does
  # not know. A list is matched by its parts: a literal list in a pattern
  # compiles to one comparison with the whole literal, which costs more
  # (bench/README.md).
  literal = fn kind, variant, opts ->
    {:ok, options} = :b64simd_options.from_elixir(kind, variant, opts)
    Macro.escape(options)
  end

  # A literal that serves both kinds of an encoding (a clause matching any
  # kind): the same for both, as the match checks.
  shared = fn kinds, variant, opts ->
    [same, same] = for kind <- kinds, do: literal.(kind, variant, opts)
    same
  end

  # The literals change with Base's defaults.
  @external_resource Path.join(__DIR__, "../src/b64simd_options.erl")

  @compile {:inline, encode_options: 2, decode_options: 2}
  defp encode_options(:urlsafe, []), do: unquote(literal.(:encode, :urlsafe, []))

  defp encode_options(:standard, [{:padding, off}]) when off === false,
    do: unquote(literal.(:encode, :standard, padding: false))

  defp encode_options(:urlsafe, [{:padding, off}]) when off === false,
    do: unquote(literal.(:encode, :urlsafe, padding: false))

  defp encode_options(mode, opts), do: parsed_options(:encode, mode, opts)

  defp decode_options(:standard, []), do: unquote(literal.(:decode, :standard, []))
  defp decode_options(:urlsafe, []), do: unquote(literal.(:decode, :urlsafe, []))

  defp decode_options(:standard, [{:padding, off}]) when off === false,
    do: unquote(literal.(:decode, :standard, padding: false))

  defp decode_options(:urlsafe, [{:padding, off}]) when off === false,
    do: unquote(literal.(:decode, :urlsafe, padding: false))

  defp decode_options(:standard, [{:ignore, skip}]) when skip === :whitespace,
    do: unquote(literal.(:decode, :standard, ignore: :whitespace))

  defp decode_options(:urlsafe, [{:ignore, skip}]) when skip === :whitespace,
    do: unquote(literal.(:decode, :urlsafe, ignore: :whitespace))

  defp decode_options(mode, opts), do: parsed_options(:decode, mode, opts)

  # Base16's case and Base32's options; the lists calls pass most are
  # matched first, as above.
  @compile {:inline, hex_options: 2, base32_options: 3}
  defp hex_options(_kind, []), do: unquote(shared.([:hex_encode, :hex_decode], :upper, []))

  defp hex_options(:hex_encode, [{:case, lower}]) when lower === :lower,
    do: unquote(literal.(:hex_encode, :upper, case: :lower))

  defp hex_options(:hex_decode, [{:case, mixed}]) when mixed === :mixed,
    do: unquote(literal.(:hex_decode, :upper, case: :mixed))

  defp hex_options(:hex_decode, [{:case, lower}]) when lower === :lower,
    do: unquote(literal.(:hex_decode, :upper, case: :lower))

  defp hex_options(kind, opts), do: parsed_options(kind, :upper, opts)

  defp base32_options(_kind, :standard, []),
    do: unquote(shared.([:base32_encode, :base32_decode], :standard, []))

  defp base32_options(_kind, :hex, []),
    do: unquote(shared.([:base32_encode, :base32_decode], :hex, []))

  defp base32_options(_kind, :standard, [{:padding, off}]) when off === false,
    do: unquote(shared.([:base32_encode, :base32_decode], :standard, padding: false))

  defp base32_options(kind, alphabet, opts), do: parsed_options(kind, alphabet, opts)

  # The same options as b64simd's option map, which the streams take and an
  # error's message reads.
  defp parsed_options(kind, variant, opts),
    do: accepted(:b64simd_options.from_elixir(kind, variant, opts))

  defp accepted({:ok, options}), do: options

  defp accepted({:error, problem}) do
    message = :b64simd_messages.elixir_options(problem, %{inspect: &inspect/2})
    raise ArgumentError, IO.chardata_to_string(message)
  end
end
