"""What the runs say: series and their statistics, comparisons and regressions, scaling and growth, the diagnoses
of `explain`, a study's aggregates and verdicts, each claim's verdict. Nothing here prints."""
