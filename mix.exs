# One package for mix and rebar3: mix compiles the Erlang modules in src/ and
# the Elixir facade in lib/, and builds the NIF through the same script as
# rebar3's pre_hook (scripts/build_nif.sh), and puts the Erlang modules' EDoc
# into their .beam files as rebar3's post_hook does (scripts/doc_chunks.escript),
# so that `h :b64simd.encode` shows it. Version, description, licence,
# links and the package's files are read from src/b64simd.app.src, so that
# the two build tools can never disagree about them.
defmodule B64Simd.MixProject do
  use Mix.Project

  {:ok, [{:application, :b64simd, app}]} =
    :file.consult(Path.join(__DIR__, "src/b64simd.app.src"))

  @app app
  @source_url to_string(:proplists.get_value(~c"Source", app[:links]))

  def project do
    [
      app: :b64simd,
      version: to_string(@app[:vsn]),
      elixir: "~> 1.14",
      description: to_string(@app[:description]),
      compilers: [:b64simd_nif | Mix.compilers()] ++ [:b64simd_docs],
      erlc_options: [:debug_info, :warnings_as_errors],
      deps: [],
      package: [
        licenses: Enum.map(@app[:licenses], &to_string/1),
        links: Map.new(@app[:links], fn {name, url} -> {to_string(name), to_string(url)} end),
        files: Enum.map(@app[:files], &to_string/1)
      ],
      source_url: @source_url
    ]
  end

  def application do
    [extra_applications: []]
  end
end

defmodule B64Simd.MixProject.Script do
  @moduledoc false
  # Runs one of the build's scripts for the compiler tasks below, its output
  # streamed after the `==> b64simd` header of a dependency's output.
  def run!(what, command, args) do
    Mix.shell().print_app()

    case System.cmd(command, args, into: IO.stream(:stdio, :line), stderr_to_stdout: true) do
      {_, 0} ->
        :ok

      {_, status} ->
        Mix.raise("b64simd: #{what} failed (#{Enum.join(args, " ")}, status #{status})")
    end
  end
end

defmodule Mix.Tasks.Compile.B64simdNif do
  @moduledoc false
  # Builds priv/libb64simd_nif.so before the Erlang and Elixir compilers run,
  # in this project or as a dependency, by the script rebar3 calls too.
  use Mix.Task.Compiler

  @impl true
  def run(_args) do
    B64Simd.MixProject.Script.run!("building the NIF", "sh", [
      Path.join(__DIR__, "scripts/build_nif.sh")
    ])

    # priv/ may be new: link it into the build directory now.
    Mix.Project.build_structure()
    {:ok, []}
  end
end

defmodule Mix.Tasks.Compile.B64simdDocs do
  @moduledoc false
  # The Erlang modules' EDoc into their .beam files, for `h :b64simd.encode`.
  use Mix.Task.Compiler

  @impl true
  def run(_args) do
    B64Simd.MixProject.Script.run!("EDoc chunks", "escript", [
      Path.join(__DIR__, "scripts/doc_chunks.escript"),
      Mix.Project.compile_path()
    ])

    {:ok, []}
  end
end
