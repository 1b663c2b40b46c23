"""`python -m mlwiki.redact`: write the stored denylists of the detect-secrets plugins
(`mlwiki/redact/plugin_patterns.py`, see `mlwiki.redact.detector`)."""

from mlwiki.redact.detector import write_table

write_table()
