"""Scaling out: a plan cut into parts for several machines, their time estimated, run as Slurm jobs."""
