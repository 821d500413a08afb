"""`python -m concbench` is the `concbench` command."""

from .cli import main

main()
