// alarm-bench: prints timings for the parts of alarm that must be fast. Each area has its own file.
AudioBench.run()
