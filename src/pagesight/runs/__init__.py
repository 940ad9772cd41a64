"""Run records: what an agent run leaves in its folder (see :mod:`pagesight.runs.record`)."""
