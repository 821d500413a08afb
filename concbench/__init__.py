"""concbench: a workbench for measuring concurrency models."""
