"""Running it: the plan, the session and its machine probe, one process launched and measured, the protocol
read and every answer verified; the toolchains that build the binaries and `concbench check`."""
