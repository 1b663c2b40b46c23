"""Log sources (Cloud Logging, offline bundles), the query language and entry access."""
