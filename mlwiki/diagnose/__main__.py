"""`python -m mlwiki.diagnose`: write the report template's compiled module
(`mlwiki/diagnose/report_compiled.py`, see `mlwiki.diagnose.report`)."""

from mlwiki.diagnose.report import write_compiled

write_compiled()
