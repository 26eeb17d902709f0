# The Elixir face of b64simd, built without hex: the Erlang sources in ../src
# are compiled by mix itself, and the NIF by cargo through the same script
# rebar3 uses, into ../priv (elixir/priv links there).
defmodule B64Simd.MixProject do
  use Mix.Project

  def project do
    [
      app: :b64simd,
      version: "0.1.0",
      elixir: "~> 1.14",
      erlc_paths: ["../src"],
      erlc_options: [:debug_info, :warnings_as_errors],
      aliases: [compile: ["cmd sh ../scripts/build_nif.sh", "compile"]],
      deps: []
    ]
  end

  def application do
    [extra_applications: []]
  end
end
