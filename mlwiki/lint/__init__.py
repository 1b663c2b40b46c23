"""The wiki linter: one small function per rule, all registered in `mlwiki.lint.registry.RULES`.

`mlwiki.lint.runner.lint(root)` returns a `Report`; `mlwiki.lint.report.render` prints it as
json, text or SARIF. (This package imports nothing itself so that `mlwiki.index` can use its
helpers without a cycle.)
"""
