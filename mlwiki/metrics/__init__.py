"""Cloud Monitoring metrics as evidence: TPU duty cycle, HBM and host memory, live and offline.

- `filter`: the Monitoring filter language (parse, check, evaluate on series).
- `series`: time series in the JSON form `projects.timeSeries.list` returns.
- `aggregate`: alignment and reduction as the API does them, on the same grid.
- `cloud`: the real google-cloud-monitoring client, few counted calls, retries, partial.
- `source`: a bundle's `metrics/` or Cloud Monitoring behind one `query()`; exports.
- `summary`: the outputs a `metric_query` gives a workflow; `report`: the per-host text strip.
"""
