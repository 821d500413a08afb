"""Scaling out: a plan cut into shards for several machines, their time estimated, run as Slurm jobs."""
