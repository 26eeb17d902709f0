IO.puts("B64Simd tests running on simdutf kernel: #{:b64simd.kernel()}")
ExUnit.start()
