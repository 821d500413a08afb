"""Showing it: tables defined once and rendered to the terminal, Markdown and HTML, plots, exports."""
