# libFuzzer targets (clang -fsanitize=fuzzer); `make fuzz` runs each for a while.
