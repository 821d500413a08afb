"""What to run: the benchmarks' and implementations' files, each binary's description held to them, the studies
and their claims."""
