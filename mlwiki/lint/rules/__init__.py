"""One small function per lint rule, grouped by topic; the table in `mlwiki.lint.registry` names them."""
